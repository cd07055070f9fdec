"""Modifiers evaluated once per state version (Machine._from_table): which fields qualify, that
a game plays the same with the table as without it, and that a restored game counts the same
work as the game it was saved from (the table is not part of the state)."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import program_for

ROOT = Path(__file__).resolve().parent.parent
BONUSES = ROOT / "tests" / "games" / "standing_bonuses.cards"
BATTLEFIELD = ROOT / "games" / "battlefield_space.cards"


def _play(path: Path, seed: int, tabled: bool):
    game = load_game(str(path))             # a fresh Game: its program is built anew
    prog = program_for(game)
    if not tabled:
        prog.tabled_mods = frozenset()
    eng = run_game(game, 2, seed, log=True)
    return json.dumps(eng.m.log.events, sort_keys=True, default=str), eng.result


def test_only_fields_whose_modifiers_read_versioned_state_are_tabled():
    prog = program_for(load_game(str(BONUSES)))
    assert set(prog.modifiers) == {"power", "guard", "luck"}
    # guard's modifier reads power, itself modified: per card, so not tabled; luck draws at each look
    assert prog.tabled_mods == {"power"}
    assert {"banner", "drill", "drilled"} <= prog.tabled_reads
    assert "score" not in prog.tabled_reads            # setting a score leaves the table standing
    assert program_for(load_game(str(BATTLEFIELD))).tabled_mods == {"force"}


@pytest.mark.parametrize("path", [BONUSES, BATTLEFIELD], ids=lambda p: p.stem)
def test_a_game_plays_the_same_with_the_table_as_without(path):
    for seed in range(6 if path == BATTLEFIELD else 20):
        assert _play(path, seed, True) == _play(path, seed, False), (path.stem, seed)


@pytest.mark.parametrize("path", [BONUSES, BATTLEFIELD], ids=lambda p: p.stem)
def test_a_restored_game_does_the_same_work_as_the_one_it_was_saved_from(path):
    game = load_game(str(path))
    for seed in (1, 2):
        rng = random.Random(seed)
        eng = Engine(game, players=2, seed=seed, log=False)
        answers = []
        while not eng.finished:
            k = rng.randrange(len(eng.pending.options))
            answers.append(k)
            eng.decide(k)
        whole = eng.save()
        assert whole["state"]["work"] > 0
        # again, saved and restored after each decision in turn: a restored machine starts with
        # no table, and must count the work the saved one counted reading its kept table
        for cut in range(1, len(answers), 3):
            eng = Engine(game, players=2, seed=seed, log=False)
            for k in answers[:cut]:
                eng.decide(k)
            eng = Engine.restore(game, eng.save(), log=False)
            for k in answers[cut:]:
                eng.decide(k)
            assert eng.save() == whole, (seed, cut)
