"""Where nothing keeps an event but its triggers (Triggers.quiet_events) and every trigger of it is
pinned to the card the event names (`where card = this`), `Triggers.quiet_cards` gives those
cards, and Machine.flip / move make the parameters (for `revealed`, the learners) only for them:
the other sets would add nothing to the moment. A trigger not pinned may fire on any card: then
every set is made."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game

ROOT = Path(__file__).resolve().parent.parent
BATTLEFIELD = ROOT / "games" / "battlefield_space.cards"
SOUP = ROOT / "tests" / "games" / "event_soup.cards"


def _state(eng) -> str:
    return json.dumps(eng.save()["state"], sort_keys=True)


def test_only_the_pinned_cards_parameters_reach_revealed(monkeypatch):
    game = load_game(str(BATTLEFIELD))
    got = []
    orig = Machine.announce_all

    def spy(self, event, param_sets, span):
        if event == "revealed":
            got.append((self.quiet_cards(event), [p["card"] for p in param_sets]))
        return orig(self, event, param_sets, span)

    monkeypatch.setattr(Machine, "announce_all", spy)
    eng = run_game(game, 2, 1, log=False)
    pins = eng.m.quiet_cards("revealed")
    assert pins and len(pins) < len(game.cards)
    quiet = [cards for p, cards in got if p is not None]
    assert quiet and all(c in pins for cards in quiet for c in cards)


@pytest.mark.parametrize("path", [BATTLEFIELD, SOUP], ids=lambda p: p.stem)
def test_a_game_ends_the_same_with_every_parameter_set_made(path, monkeypatch):
    game = load_game(str(path))
    lean = [_state(run_game(game, 2, seed, log=False)) for seed in range(4)]
    monkeypatch.setattr(Machine, "quiet_cards", lambda self, event: None)
    assert lean == [_state(run_game(game, 2, seed, log=False)) for seed in range(4)]


def test_a_trigger_not_pinned_makes_every_set(tmp_path):
    src = BATTLEFIELD.read_text()
    alt = src.replace("when revealed where card = this and play_another",
                      "when revealed where card is in [this] and play_another", 1)
    assert alt != src
    path = tmp_path / "battlefield_unpinned.cards"
    path.write_text(alt)
    pinned, unpinned = load_game(str(BATTLEFIELD)), load_game(str(path))
    for seed in range(3):
        a, b = run_game(pinned, 2, seed, log=False), run_game(unpinned, 2, seed, log=False)
        assert b.m.quiet_cards("revealed") is None
        assert _state(a) == _state(b)
