"""A procedure that is not flat but straight is pasted into the block that calls it, with its
frame pushed and popped around its lines (interpreter/blocks.py, `_framed_call`), instead of
its blocks being run by `Machine.call_in`. It must be the same run: the same log and steps as
the machine running one instruction at a time, the same frames where it stops (a trigger
pushed mid-procedure, a decision inside that trigger, a changed end check), a save taken there
restoring to the same game, and the step bound stopping it at the same instruction."""
from __future__ import annotations

from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game

import both_ways

GAME = Path(__file__).resolve().parent / "games" / "framed_calls.cards"


@pytest.fixture(scope="module")
def game():
    return load_game(str(GAME))


def _codes(eng) -> dict:
    return {c.name: c.id for c in eng.m.prog.codes}


def _play(game, fused: bool, seed: int, max_steps=None):
    return both_ways.play(game, 2, seed, fused, max_steps=max_steps)


def test_straight_procedures_run_pasted_not_through_call_in(game, monkeypatch):
    """`both` (called from the round's loop) and `reward` (called from `both`) announce an event
    a trigger answers, so neither is flat; both are straight, so neither goes through call_in."""
    eng = run_game(game, 2, 0, log=False)
    ids = _codes(eng)
    called = []
    real = Machine.call_in

    def spy(self, code_id, env):
        called.append(self.codes[code_id].name)
        return real(self, code_id, env)
    monkeypatch.setattr(Machine, "call_in", spy)
    for seed in range(1, 6):
        run_game(game, 2, seed, log=False)
    assert "procedure reward" not in called and "procedure both" not in called, called
    sources = [fn.source for code in eng.m.prog.codes for fn in code.fast if fn is not None and hasattr(fn, "source")]
    assert any("_fr1 = " in src and f"({ids['procedure both']}, 0, _env1)" in src for src in sources)
    assert any(f"({ids['procedure reward']}, 0, _env2)" in src for src in sources)


@pytest.mark.parametrize("seed", range(8))
def test_the_same_log_and_steps_as_one_instruction_at_a_time(game, seed):
    fused = _play(game, True, seed)
    assert fused[0] != "aborted" and '"on": "scored"' in fused[0]
    assert fused == _play(game, False, seed)


def _frames(eng):
    return [(eng.m.codes[fr.code_id].name, fr.pc, dict(fr.env)) for fr in eng.m.st.frames]


def test_a_decision_inside_a_trigger_of_a_pasted_procedure_stops_with_its_frames(game):
    """Stopped at the bonus point's choice: the trigger's frame sits on `reward`'s (at the pc after
    its `announce`), on `both`'s (after its call of `reward`), as the unfused machine stacks them;
    a save there restores and plays on to the same end."""
    eng = Engine(game, 2, seed=1)
    was = Machine.fused
    Machine.fused = False
    try:
        plain = Engine(game, 2, seed=1)
    finally:
        Machine.fused = was
    names = [name for name, _pc, _env in _frames(eng)]
    assert names[-3:-1] == ["procedure both", "procedure reward"], names
    assert _frames(eng)[-2][1] == 2          # reward's frame: past `announce scored(p)`
    assert _frames(eng) == _frames(plain)
    saved = eng.save_json()
    again = Engine.restore(game, saved)
    for e in (eng, again):
        while e.pending is not None:
            e.decide(0)
    assert again.result == eng.result and again.log[-1] == eng.log[-1]
    assert again.m.st.steps == eng.m.st.steps


@pytest.mark.parametrize("bound", [40, 41, 47, 53, 60, 75, 90])
def test_the_step_bound_stops_a_pasted_procedure_where_one_at_a_time_does(game, bound):
    fused = _play(game, True, 2, max_steps=bound)
    assert fused[0] == "aborted" and "did not end within" in fused[1], fused
    assert fused == _play(game, False, 2, max_steps=bound)
