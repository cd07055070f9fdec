"""A step begins plainly (its name kept and logged, no `begin_step` call) while `m.plain_steps`:
one flag the machine keeps equal to `stop_at is None and 'step_started' not in listened`
wherever those change (Machine.__init__, Scenarios.keep_history and park, a scenario's
`play until step` in compile_scenario), read by the generated step start instead of the two."""
from __future__ import annotations

from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.dsl.registry import STEP_STARTED
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.scenario import run_scenario

ROOT = Path(__file__).resolve().parent.parent
SPACE_WAR = ROOT / "games" / "space_war_in_space.cards"
SCENARIO_FILES = sorted((ROOT / "games").glob("*.scenarios.cards"))


def _checked(monkeypatch, reads: list):
    """`plain_steps` as a property that checks, at every read, that it says what the two would."""
    def get(self):
        got = self.__dict__["_plain_steps"]
        assert got == (self.stop_at is None and STEP_STARTED not in self.listened)
        reads.append(got)
        return got

    def put(self, value):
        self.__dict__["_plain_steps"] = value
    monkeypatch.setattr(Machine, "plain_steps", property(get, put), raising=False)


def test_the_generated_step_start_reads_the_flag():
    game = load_game(str(SPACE_WAR))
    eng = run_game(game, 2, 0, log=False)
    assert eng.m.plain_steps is True
    sources = "\n".join(eng.m.prog.pool.sources)
    assert "if m.plain_steps:" in sources
    assert "'step_started' not in m.listened" not in sources


def test_a_game_reads_the_flag_true_at_each_step(monkeypatch):
    reads: list = []
    _checked(monkeypatch, reads)
    run_game(load_game(str(SPACE_WAR)), 2, 1, log=True)
    assert reads and all(reads)


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: p.name)
def test_the_flag_says_what_the_two_would_in_every_scenario(path, monkeypatch):
    reads: list = []
    _checked(monkeypatch, reads)
    game = load_game(str(path))
    for s in game.decls.scenarios:
        result = run_scenario(game, s.name)
        assert result.ok, (s.name, result.failures)
