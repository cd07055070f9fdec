"""The moves a statement's generated code makes itself when nobody watches them
(compile_stmt.py `_quiet_move`, `Machine.quiet`) leave the game exactly as `Machine.move` does.

Every bundled and test game is played with the log off (the only way that path runs) with
fused blocks and with every instruction run as its closure (which calls `Machine.move`), and
the whole final state is compared: zones in order, where each card lies, how it faces, whose
it is, every attribute, the generator's state, the steps and the result. The log-on game (which
never takes that path) must end the same way too.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.errors import GameAborted
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted(p for p in list((ROOT / "games").glob("*.cards")) + list((ROOT / "tests" / "games").glob("*.cards"))
               if not p.name.endswith(".scenarios.cards") and p.stem not in ("counterspell_duel", "turn_order"))


def _end(game, players, seed, fused, log):
    was = Machine.fused
    Machine.fused = fused
    try:
        eng = run_game(game, players, seed, log=log)
    except GameAborted as err:
        return "aborted", str(err)
    finally:
        Machine.fused = was
    st = eng.m.st
    return json.dumps({"zones": st.zones, "card_zone": st.card_zone, "face_up": st.face_up, "owner": st.owner,
                       "cards": st.cards, "players": st.players, "game": st.game, "rng": st.rng,
                       "steps": st.steps, "result": eng.result}, sort_keys=True, default=str)


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_quiet_moves_end_the_game_as_machine_move_does(path):
    game = load_game(str(path))
    for players in sorted({game.min_players, game.max_players}):
        for seed in range(3):
            quiet = _end(game, players, seed, True, False)
            assert quiet == _end(game, players, seed, False, False), (path.stem, players, seed)
            assert quiet == _end(game, players, seed, True, True), (path.stem, players, seed)
