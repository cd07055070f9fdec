"""entities._refs keeps the ids of the live entities per machine until the live ones change
(create moves `next` on, destroy shortens `live`): every list it gives must be the one worked
out from the live records at that moment, in games that create and destroy them (Space Race's
runabouts, EVE's fleets, the test game of flotillas), and after a save and restore."""
from __future__ import annotations

from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter import entities
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.play import run_game

ROOT = Path(__file__).resolve().parent.parent
GAMES = [ROOT / "games" / "space_race.cards", ROOT / "games" / "eve_war_for_new_eden.cards",
         ROOT / "tests" / "games" / "flotillas.cards"]


def _fresh(m, kind, owner=None):
    live = m.st.entities["live"]
    ids = sorted(int(i) for i, r in live.items() if r["kind"] == kind and (owner is None or r["owner"] == owner))
    return [{"entity": kind, "id": i} for i in ids]


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_kept_ids_are_the_live_ones(path, monkeypatch):
    kept = entities._refs
    calls = [0]

    def both(m, kind, owner=None):
        got = kept(m, kind, owner)
        assert got == _fresh(m, kind, owner)
        calls[0] += 1
        return got

    monkeypatch.setattr(entities, "_refs", both)
    game = load_game(str(path))
    for seed in range(2):
        run_game(game, game.min_players, seed, log=False)
    assert calls[0] > 0


def test_a_restored_state_reads_its_own_entities():
    game = load_game(str(GAMES[2]))
    eng = Engine(game, game.min_players, 0)
    saved = eng.save()
    kinds = list(game.decls.entities)
    before = {k: entities.all_of(eng.m, k) for k in kinds}
    while eng.pending is not None and eng.result is None:
        eng.decide(0)
        if any(entities.all_of(eng.m, k) != before[k] for k in kinds):
            break
    back = Engine.restore(game, saved)
    assert {k: entities.all_of(back.m, k) for k in kinds} == before
