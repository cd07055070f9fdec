"""The step machine's frames are typed (`Frame`) and saved as plain JSON lists; every engine
register a frame's env may hold is documented in `state.REGISTERS`."""
from __future__ import annotations

import json
import re
from pathlib import Path

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.state import REGISTERS, Frame

ROOT = Path(__file__).resolve().parents[1]
SIGNAL_FIRES = ROOT / "tests" / "games" / "signal_fires.cards"
INTERPRETER = ROOT / "interpreter"


def test_a_game_saved_mid_rule_is_json_with_frames_as_lists_and_restores_to_frames():
    game = load_game(str(SIGNAL_FIRES))
    eng = Engine(game, 2, seed=3)
    assert eng.pending is not None            # stopped at a choice, inside setup's loop
    frames = eng.m.st.frames
    assert frames and all(isinstance(fr, Frame) for fr in frames)
    saved = json.loads(eng.save_json())
    assert saved["state"]["frames"] == [[fr.code_id, fr.pc, json.loads(json.dumps(fr.env))] for fr in frames]
    again = Engine.restore(game, json.dumps(saved))
    assert all(isinstance(fr, Frame) for fr in again.m.st.frames)
    assert [(f.code_id, f.pc) for f in again.m.st.frames] == [(f.code_id, f.pc) for f in frames]
    # the copy is its own: answering in one leaves the other where it was
    again.decide(0)
    assert eng.save_json() == json.dumps(saved, sort_keys=True)
    assert again.save_json() != eng.save_json()


def _stem(name: str) -> str:
    return name.rstrip("0123456789")


def test_every_register_the_interpreter_writes_is_documented():
    source = "\n".join(p.read_text(encoding="utf-8") for p in sorted(INTERPRETER.glob("*.py")))
    literals = set(re.findall(r"[\"'](\$[a-z_]+)[\"']", source))
    fresh = {f"${stem}<n>" for stem in re.findall(r"\.fresh\([\"']([a-z_]+)[\"']\)", source)}
    assert literals and fresh
    missing = sorted((literals | fresh) - set(REGISTERS))
    assert not missing, f"state.REGISTERS does not say what these are: {missing}"
    stale = sorted(set(REGISTERS) - literals - fresh)
    assert not stale, f"state.REGISTERS names registers nothing writes any more: {stale}"
