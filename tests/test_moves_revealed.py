"""Moves in a game that listens to `revealed` alone (machine.py `move`): a move into a zone that is
not public, or one laid face down, cannot reveal a card, so the generated code moves it itself
(`Machine.quiet` / `noted` with `plain` = the uncapped zones that are not public, `plain_down` =
every uncapped zone); a move into a public zone raises `revealed` as before, with no parameters
where nothing is revealed only when a response window opens after it (`announce_all` of nothing
does nothing else). Each is checked against the runtime before this change (its steps recorded)
and against every instruction run as its closure (which calls `Machine.move`)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter import compile_stmt
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.report import Tally

ROOT = Path(__file__).resolve().parent.parent

# quick_hands.cards with its window opened after `revealed` only, a `when revealed` trigger, and
# moves of every kind into the public pile: face down (nothing revealed), face up from a hidden
# zone (revealed), face up from the pile's own face-up cards (nothing revealed), several at once
REVEAL_WINDOW = '''
game "Reveal Window":
    players: 2 to 2
    summary: "Strikes land each round; a quick hand raises a shield just in time."

player has:
    life: number = 10
    shielded: flag = no, reset each round
    shield_count: number = 0

zone box: shared, hidden
zone deck: shared, hidden
zone hand: per player, unordered, owner only
zone pile: shared, public

card type Coin:
    worth: number = 1

card type Trick:
    kind: text

    when revealed where card = this:
        set your shield_count to your shield_count + 1

    action "Raise a shield" from hand, at any time, if kind = "shield" and the current step = "Strike" and this is not in the stack:
        set your shield_count to your shield_count + 1
        set your shielded to yes
        move this to box

    action "Dodge late" from hand, at any time, if kind = "late" and the current step = "Strike" and count(cards in pile) > 0 and this is not in the stack:
        set your shielded to yes
        move this to box

response window "Quick":
    "After a card is revealed, the players may answer."
    opens after revealed

cards Coin in deck:
    | name   | copies |
    | "Coin" | 6      |

cards Trick in box:
    | name     | kind     |
    | "Shield" | "shield" |
    | "Late"   | "late"   |

procedure trick(p, kind_name):
    move first(cards in box where kind = kind_name) to p's hand

setup:
    trick(seat 2, "shield")
    trick(seat 1, "late")

round "Duel":
    step "Strike":
        move top card of deck to pile face down
        move top card of deck to hand of seat 1 face down
        move cards in pile to box face up
        move top card of deck to pile face up
        move cards in box where it is a Coin to pile
        for each p in players:
            if not p's shielded:
                subtract 3 from p's life

as soon as any(players where it's life <= 0):
    first(players where it's life > 0) wins
'''

# the steps of seeds 0-5, log off and on alike, played by the runtime before this change (3291855):
# the window opened after each move into the pile, whether or not it revealed a card
STEPS_BEFORE = [152, 153, 151, 151, 150, 151]


def _end(game, seed, fused, log, tally=None):
    was = Machine.fused
    Machine.fused = fused
    try:
        eng = run_game(game, 2, seed, log=log, tally=tally)
    finally:
        Machine.fused = was
    st = eng.m.st
    return json.dumps({"zones": st.zones, "face_up": st.face_up, "owner": st.owner, "cards": st.cards,
                       "players": st.players, "rng": st.rng, "steps": st.steps, "result": eng.result,
                       "log": eng.m.log.events, "tally": tally.record(eng.m) if tally is not None else None},
                      sort_keys=True, default=str)


@pytest.fixture(scope="module")
def reveal_window(tmp_path_factory):
    path = tmp_path_factory.mktemp("games") / "reveal_window.cards"
    path.write_text(REVEAL_WINDOW)
    return str(path)


def _by_plain_down(monkeypatch):
    """A face-down move's code reading `plain_down` (as compile_stmt.py may)."""
    quiet_move = compile_stmt._quiet_move

    def by_plain_down(many, place, face, span, **kw):
        lines = quiet_move(many, place, face, span, **kw)
        if face == "down":
            lines = tuple(re.sub(r"\bm\.plain\b", "m.plain_down", line) for line in lines)   # (a no-op once it does)
        return lines
    monkeypatch.setattr(compile_stmt, "_quiet_move", by_plain_down)


@pytest.mark.parametrize("plain_down", [False, True])
def test_an_empty_revealed_still_opens_its_window(reveal_window, plain_down, monkeypatch):
    if plain_down:      # a window opens after `revealed`: a face-down move into the pile is no plain move
        _by_plain_down(monkeypatch)
    game = load_game(reveal_window)
    for seed, steps in enumerate(STEPS_BEFORE):
        for log in (False, True):
            fused = json.loads(_end(game, seed, True, log))
            assert fused["steps"] == steps, (seed, log)
            assert _end(game, seed, True, log) == _end(game, seed, False, log), (seed, log)


def test_a_game_that_listens_to_revealed_alone_moves_into_hidden_zones_in_its_code():
    game = load_game(str(ROOT / "games" / "battlefield_space.cards"))
    eng = run_game(game, 2, 1, log=False)
    m = eng.m
    public = {k for k, (_d, _s, p) in m.zone_info.items() if p}
    assert m.quiet is m.st and m.noted is None
    assert m.plain and not set(m.plain) & public
    assert set(m.plain_down) == set(m.zone_info)       # no zone of this game has a cap, no window
    eng = run_game(game, 2, 1, log=True)
    assert eng.m.noted is eng.m.st and eng.m.quiet is None


def test_a_remembering_game_keeps_every_move_in_machine_move():
    game = load_game(str(ROOT / "tests" / "games" / "seen_cards.cards"))
    eng = run_game(game, game.min_players, 0, log=False)
    assert eng.m.quiet is None and eng.m.noted is None


def test_face_down_moves_by_plain_down_end_as_machine_move_does(monkeypatch):
    """A face-down move's code reading `plain_down` (as compile_stmt.py may) leaves the game, the log
    and the tally as `Machine.move` does."""
    _by_plain_down(monkeypatch)
    game = load_game(str(ROOT / "games" / "battlefield_space.cards"))
    for seed in range(3):
        for log in (False, True):
            assert _end(game, seed, True, log) == _end(game, seed, False, log), (seed, log)
            assert _end(game, seed, True, log, Tally(cards=True)) == _end(game, seed, False, log, Tally(cards=True))
