"""A flat procedure pasted inside a pasted flat procedure (two deep) takes its parameters as
Python variables too (blocks._flat_body calls `_local_call` at its nesting, `_pv2<nn>`), where
its env's dict was built (`_env2 = _i`): the same log, steps and error locations as one
instruction at a time."""
from __future__ import annotations

from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import program_for

from test_blocks_located import GAME, _play

ROOT = Path(__file__).resolve().parent.parent
SPACE_WAR = ROOT / "games" / "space_war_in_space.cards"


def test_the_inner_procedure_takes_its_parameters_as_variables():
    *_, game = _play(GAME.replace("INNER", "5").replace("OWN", "1"), True)
    sources = program_for(game).pool.sources
    assert any("_pv200 = " in src for src in sources)
    assert not any("_env2 = _i" in src for src in sources)


@pytest.mark.parametrize("inner", [5, 2, 1, 0])
def test_it_plays_as_one_instruction_at_a_time(inner):
    text = GAME.replace("INNER", str(inner)).replace("OWN", "1")
    assert _play(text, True)[:2] == _play(text, False)[:2]


def test_space_war_pastes_two_deep_with_variables():
    game = load_game(str(SPACE_WAR))
    run_game(game, 2, 0, log=False)
    sources = "\n".join(program_for(game).pool.sources)
    assert "_pv2" in sources and "_env2 = _i" not in sources
