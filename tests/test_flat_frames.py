"""Flat procedures run without a frame (interpreter/blocks.py, `flat_fn`) and still stop at the
depth bound exactly where a pushed frame would: near MAX_FRAMES the framed version runs, so the
error names the same procedure, at the same place, as the one-instruction-at-a-time run."""
from __future__ import annotations

import json

import pytest

from cardsmith.dsl.bounds import MAX_FRAMES
from cardsmith.dsl.loader import check_source
from cardsmith.dsl.source import Source
from cardsmith.interpreter.blocks import flat, flat_depth, flat_fn
from cardsmith.interpreter.errors import GameAborted
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import program_for

DEEP = '''game "Deep calls":
    players: 2 to 2

player has:
    points: number = 0

procedure inner(p):
    "A flat procedure: it only adds."
    add 1 to p's points

procedure outer(p):
    "Flat too: it calls a flat procedure, so it stacks two frames."
    inner(p)
    add 1 to p's points

procedure down(p, n):
    if n > 0:
        down(p, n - 1)
    else:
        outer(p)

setup:
    down(first(players), START)

round "Round":
    first(players) wins
'''


def _play(game, fused):
    was = Machine.fused
    Machine.fused = fused
    try:
        eng = run_game(game, 2, 0, log=True)
        return json.dumps(eng.m.log.events, sort_keys=True, default=str), eng.result
    except GameAborted as err:
        return "aborted", str(err)
    finally:
        Machine.fused = was


def _game(start: int):
    game, diags, _ = check_source(Source("deep.cards", DEEP.replace("START", str(start))))
    assert game is not None, [d.message for d in diags]
    return game


def test_flat_procedures_are_frameless_and_know_their_depth():
    prog = program_for(_game(3))
    ids = {c.name: c.id for c in prog.codes}
    inner, outer = ids["procedure inner"], ids["procedure outer"]
    assert flat(prog, inner) is not None and flat(prog, outer) is not None
    assert flat(prog, ids["procedure down"]) is None
    assert (flat_depth(prog, inner), flat_depth(prog, outer)) == (1, 2)
    fn = flat_fn(prog, outer)
    assert "fr.pc" not in fn.source and "Frame" not in fn.source
    assert f"> {MAX_FRAMES - 2}" in fn.source      # the framed version near the bound


# the game's frame, setup's and one per `down` call: from MAX_FRAMES - 4 on, the frames of the
# calls pass the bound, in `inner`, then `outer`, then `down` itself
EXPECTED = {3: None, MAX_FRAMES - 5: None, MAX_FRAMES - 4: "inner", MAX_FRAMES - 3: "outer",
            MAX_FRAMES - 2: "down"}


@pytest.mark.parametrize("start", sorted(EXPECTED))
def test_the_depth_bound_stops_a_flat_call_where_a_pushed_frame_would(start):
    game = _game(start)
    fused = _play(game, True)
    assert fused == _play(game, False)
    if EXPECTED[start] is None:
        assert fused[0] != "aborted" and "points becomes 2" in fused[0]
    else:
        assert fused[0] == "aborted", fused
        assert f"more than {MAX_FRAMES} deep (procedure {EXPECTED[start]})" in fused[1], fused[1]
