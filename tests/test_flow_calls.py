"""Procedures and rounds run inline from a block (Machine.call_in) and blocks pasted into the
block a jump reaches (blocks._body): the step bound still stops on the same instruction, deep
calls still stop at the same depth, and a game plays as its closures do one at a time."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game, load_text
from cardsmith.interpreter.errors import GameAborted
from cardsmith.interpreter.machine import CALL_DEPTH, Machine
from cardsmith.interpreter.play import run_game

ROOT = Path(__file__).resolve().parent.parent


def _play(game, players, seed, fused, max_steps=None):
    was = Machine.fused
    Machine.fused = fused
    try:
        eng = run_game(game, players, seed, log=True, max_steps=max_steps)
        return json.dumps(eng.m.log.events, sort_keys=True, default=str), eng.result
    except GameAborted as err:
        return "aborted", str(err)
    finally:
        Machine.fused = was


def test_the_step_bound_stops_on_the_same_instruction_inside_inline_calls():
    # a Contest enters the round, which calls capture: bounds all over a few contests
    game = load_game(str(ROOT / "games" / "space_war_in_space.cards"))
    for bound in list(range(60, 160, 7)) + [997, 2003]:
        fused = _play(game, 4, 2, True, max_steps=bound)
        assert fused == _play(game, 4, 2, False, max_steps=bound), bound
        assert fused[0] == "aborted" and "MAX_STEPS" in fused[1], bound


DEEP = '''game "Deep":
    players: 2

player has:
    n: number = 0


procedure down(k):
    if k > 0:
        add 1 to first(players)'s n
        down(k - 1)
        add 1 to first(players)'s n

setup:
    down(DEPTH)

round "R":
    first(players) wins
'''


@pytest.mark.parametrize("depth", [CALL_DEPTH - 2, CALL_DEPTH + 3, 3 * CALL_DEPTH])
def test_a_deep_call_runs_past_the_inline_depth_as_the_closures_do(depth):
    game = load_text(DEEP.replace("DEPTH", str(depth)), path="deep.cards")
    fused = _play(game, 2, 0, True)
    assert fused == _play(game, 2, 0, False)
    assert fused[0] != "aborted"
    for bound in (depth, 2 * depth + 5, 3 * depth):
        assert _play(game, 2, 0, True, max_steps=bound) == _play(game, 2, 0, False, max_steps=bound)


def test_too_deep_stops_where_it_did():
    game = load_text(DEEP.replace("DEPTH", "20000"), path="deep.cards")
    fused = _play(game, 2, 0, True)
    assert fused[0] == "aborted" and "deep" in fused[1]
    assert fused == _play(game, 2, 0, False)
