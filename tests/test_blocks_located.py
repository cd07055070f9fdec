"""The fused blocks keep no bookkeeping per instruction (interpreter/blocks.py): an error names its
instruction by the line of the generated source it passed through (`_located`'s table), steps are
counted once per way out (placeholders shifted where a block is pasted, a flat procedure's count
added with its caller's), and `fr.pc` is set only where something reads it. Whatever the shape,
the fused run must stop, count and locate exactly as the one-closure-at-a-time run does."""
from __future__ import annotations

import json

import pytest

from cardsmith.dsl.loader import check_source
from cardsmith.dsl.source import Source
from cardsmith.interpreter.errors import GameAborted
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import program_for

GAME = '''game "Located":
    players: 2 to 2

player has:
    points: number = 0
    rounds: number = 0

procedure inner(p, d):
    "Flat: jumps pass over instructions (an if, one inside it, an if-else), then a division."
    if d = 1:
        add 1 to p's points
        if d > 0:
            add 1 to p's points
    if d = 2:
        add 2 to p's points
    else:
        add 3 to p's points
    set p's points to 10 / d

procedure outer(p, d):
    "Flat, calling a flat one: pasted twice deep."
    inner(p, d)
    add 1 to p's points

setup:
    for each p in players:
        outer(p, 1)
        outer(p, 2)
    outer(first(players), INNER)
    set first(players)'s points to 7 / OWN

round "Round":
    for each p in players:
        outer(p, 1)
        add 1 to p's rounds
    if first(players)'s rounds > 3:
        first(players) wins
'''


def _play(text: str, fused: bool):
    game, diags, _ = check_source(Source("located.cards", text))
    assert game is not None, [d.message for d in diags]
    was = Machine.fused
    Machine.fused = fused
    try:
        eng = run_game(game, 2, 0, log=True)
        return json.dumps(eng.m.log.events, sort_keys=True, default=str), eng.result["steps"], game
    except GameAborted as err:
        return "aborted", str(err), game
    finally:
        Machine.fused = was


def _line(text: str) -> str:
    return f"located.cards:{GAME.splitlines().index(text) + 1}:"


@pytest.mark.parametrize("inner, own, where", [
    (5, 1, None),                   # no error: the same log and the same steps
    (2, 1, None),
    (0, 1, "    set p's points to 10 / d"),     # in the pasted flat procedure, past its jumps
    (5, 0, "    set first(players)'s points to 7 / OWN"),   # in the block's own instruction
])
def test_fused_blocks_stop_count_and_locate_as_one_at_a_time(inner, own, where):
    where = where and _line(where)
    text = GAME.replace("INNER", str(inner)).replace("OWN", str(own))
    fused = _play(text, True)
    assert fused[:2] == _play(text, False)[:2]
    if where is None:
        assert fused[0] != "aborted" and fused[1] > 0
    else:
        assert fused[0] == "aborted" and where in fused[1], fused[1]


def test_generated_sources_carry_no_bookkeeping_or_markers():
    *_, game = _play(GAME.replace("INNER", "5").replace("OWN", "1"), True)
    sources = program_for(game).pool.sources
    # inner pasted into outer, itself pasted into the setup's block, each with its parameters as
    # variables (blocks._local_call: `_pv1<nn>`, `_pv2<nn>`), where the env's dict was `_env2 = _i`
    assert any("_pv200 = " in src for src in sources), "outer and inner pasted into the setup's block"
    for src in sources:
        assert "_p = " not in src and "#@" not in src, src
        assert not any(ch in src for ch in "\x01\x02\x04"), src
