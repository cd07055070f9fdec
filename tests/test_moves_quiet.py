"""The moves a statement's generated code makes itself where nobody but the log and the
tally watches them (compile_stmt.py `_quiet_move`, `Machine.quiet`, `Machine.noted`) leave the
game, the log and the tally exactly as `Machine.move` does.

Every bundled and test game is played with fused blocks and with every instruction run as its
closure (which calls `Machine.move`), the log off, on, and with a simulation's tally, and the
whole final state is compared: zones in order, where each card lies, how it faces, whose it is,
every attribute, the generator's state, the steps, the result, the log and the tally's record.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.errors import GameAborted
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.report import Tally

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted(p for p in list((ROOT / "games").glob("*.cards")) + list((ROOT / "tests" / "games").glob("*.cards"))
               if not p.name.endswith(".scenarios.cards") and p.stem not in ("counterspell_duel", "turn_order"))


def _end(game, players, seed, fused, log, tally=None):
    was = Machine.fused
    Machine.fused = fused
    try:
        eng = run_game(game, players, seed, log=log, tally=tally)
    except GameAborted as err:
        return "aborted", str(err)
    finally:
        Machine.fused = was
    st = eng.m.st
    return json.dumps({"zones": st.zones, "card_zone": st.card_zone, "face_up": st.face_up, "owner": st.owner,
                       "cards": st.cards, "players": st.players, "game": st.game, "rng": st.rng,
                       "steps": st.steps, "result": eng.result, "log": eng.m.log.events,
                       "tally": tally.record(eng.m) if tally is not None else None}, sort_keys=True, default=str)


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_quiet_moves_end_the_game_as_machine_move_does(path):
    game = load_game(str(path))
    for players in sorted({game.min_players, game.max_players}):
        for seed in range(3):
            assert _end(game, players, seed, True, False) == _end(game, players, seed, False, False), \
                (path.stem, players, seed)
            assert _end(game, players, seed, True, True) == _end(game, players, seed, False, True), \
                (path.stem, players, seed)
            for cards, log in ((True, False), (False, False), (True, True)):
                assert _end(game, players, seed, True, log, Tally(cards=cards)) == \
                    _end(game, players, seed, False, log, Tally(cards=cards)), (path.stem, players, seed, cards, log)


def _general(monkeypatch):
    """Every move down Machine.move's general path (`_moved`), as before the fast paths: a machine
    told that something listens to moves, which changes nothing else when nothing does."""
    init = Machine.__init__

    def watched_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.move_triggers = True
    monkeypatch.setattr(Machine, "__init__", watched_init)


@pytest.mark.parametrize("path", [p for p in GAMES if p.stem in ("space_war_in_space", "battlefield_space",
                                                                 "the_space_war", "cargo_hold")], ids=lambda p: p.stem)
def test_the_fast_paths_tell_the_log_and_the_tally_what_the_general_path_does(path, monkeypatch):
    game = load_game(str(path))
    runs = [(log, cards) for log in (False, True) for cards in (True, False)]
    fast = [_end(game, 2, seed, True, log, Tally(cards=cards)) for seed in range(3) for log, cards in runs]
    _general(monkeypatch)
    assert fast == [_end(game, 2, seed, True, log, Tally(cards=cards)) for seed in range(3) for log, cards in runs]
