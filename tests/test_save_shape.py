"""A save names its frames' rules by code id and their places by pc, both the compiler's: it
carries the program's shape (engine.program_shape), and a save restored into a program of another
shape is refused with a clear error instead of resuming at the wrong instruction."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardsmith.dsl.loader import check_source, load_game
from cardsmith.dsl.source import Source
from cardsmith.interpreter.engine import Engine, program_shape

SIGNAL_FIRES = Path(__file__).resolve().parent / "games" / "signal_fires.cards"


def _edited():
    """The same game with one more instruction in its setup's loop (the pcs after it move)."""
    text = SIGNAL_FIRES.read_text(encoding="utf-8")
    edited = text.replace("        set p's colour to c\n", "        set p's colour to c\n        set p's colour to c\n", 1)
    assert edited != text
    game, diags, _ = check_source(Source(str(SIGNAL_FIRES), edited))
    assert game is not None, [d.message for d in diags]
    return game


def test_a_save_carries_its_programs_shape_and_restores_into_the_same():
    game = load_game(str(SIGNAL_FIRES))
    eng = Engine(game, 2, seed=3)
    saved = eng.save()
    assert saved["program"] == program_shape(eng.prog) and len(saved["program"]) == 16
    again = Engine.restore(game, json.dumps(saved))
    assert again.save_json() == eng.save_json()


def test_a_save_restored_into_rules_that_compile_differently_is_refused():
    game = load_game(str(SIGNAL_FIRES))
    saved = Engine(game, 2, seed=3).save_json()
    edited = _edited()
    assert program_shape(Engine(edited, 2, seed=3).prog) != json.loads(saved)["program"]
    with pytest.raises(ValueError, match="compile differently"):
        Engine.restore(edited, saved)


def test_a_save_without_a_shape_still_restores():
    """Saves made before the shape was kept: restored as before (nothing to compare)."""
    game = load_game(str(SIGNAL_FIRES))
    data = Engine(game, 2, seed=3).save()
    del data["program"]
    again = Engine.restore(game, data)
    assert [(f.code_id, f.pc) for f in again.m.st.frames] == [(f[0], f[1]) for f in data["state"]["frames"]]
