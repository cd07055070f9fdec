"""A game played both ways, for the tests that hold the generated code to its definition: fused
(the machine's generated blocks, interpreter/blocks.py) and as closures (`Machine.fused = False`:
one instruction at a time, each its closure). The two must give the same game."""
from __future__ import annotations

import json

from cardsmith.interpreter.errors import GameAborted
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game


def play(game, players: int, seed: int, fused: bool, *, log: bool = True, max_steps: int | None = None):
    """(the log as JSON, or None with the log off; the result; the steps; the work charged; the
    end state as JSON), or ("aborted", the error's words) for a game stopped by a bound."""
    was = Machine.fused
    Machine.fused = fused
    try:
        eng = run_game(game, players, seed, log=log, max_steps=max_steps)
        st = eng.m.st
        return (json.dumps(eng.m.log.events, sort_keys=True, default=str) if log else None, eng.result,
                st.steps, st.work,
                json.dumps([st.zones, st.cards, st.players, st.game, st.face_up], sort_keys=True, default=str))
    except GameAborted as err:
        return "aborted", str(err)
    finally:
        Machine.fused = was
