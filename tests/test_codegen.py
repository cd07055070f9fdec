"""The generated code (interpreter/blocks.py, interpreter/gen_expr.py) means what the closures mean.

* Every bundled and test game, played with fused blocks and with every instruction run as its
  closure one at a time (`Machine.fused = False`), gives the same log, result and steps.
* A stranger's names and texts never become code: a game full of quotes, backslashes, newlines
  and Python in its strings plays, logs those texts as they are, and every generated source
  parses to only the shapes the generator writes (no import, no name it did not make).
* Errors inside a block, and inside a flat procedure called from one, are located where the
  one-at-a-time run locates them; the step bound stops on the same instruction.
"""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from cardsmith.dsl.loader import check_source, load_game
from cardsmith.dsl.source import Source
from cardsmith.interpreter.blocks import flat
from cardsmith.interpreter.errors import GameAborted
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import program_for

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted(p for p in list((ROOT / "games").glob("*.cards")) + list((ROOT / "tests" / "games").glob("*.cards"))
               if not p.name.endswith(".scenarios.cards"))
# counterspell_duel's random games run to the log bound (hundreds of thousands of events): too slow here
PLAYABLE = [p for p in GAMES if p.stem != "counterspell_duel"]


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


@pytest.mark.parametrize("path", PLAYABLE, ids=lambda p: p.stem)
def test_fused_blocks_play_as_the_closures_do(path):
    game = load_game(str(path))
    for players in sorted({game.min_players, game.max_players}):
        for seed in range(4):
            assert _play(game, players, seed, True) == _play(game, players, seed, False), (path.stem, players, seed)


def test_the_step_bound_stops_on_the_same_instruction():
    game = load_game(str(ROOT / "games" / "space_war_in_space.cards"))
    for bound in (57, 400, 1234):
        fused = _play(game, 2, 3, True, max_steps=bound)
        assert fused == _play(game, 2, 3, False, max_steps=bound)
        assert fused[0] == "aborted" and "E0801" not in fused[1] or "steps" in fused[1]


HOSTILE = ROOT / "tests" / "hostile" / "codegen_strings.cards"    # quotes, backslashes, Python in its texts

# what a generated source may name: the run's own names, the helpers, the generated ones
_NAMES = re.compile(r"^(m|fr|env|_[a-z]+\d*(_\d+_\d+)?|_[a-z_]+|len|list|range|enumerate|isinstance|sum|any|bool|"
                    r"dict|reversed|min|max|RuleError|x|KeyError|BaseException|True|False|None)$")


def test_hostile_names_and_texts_stay_data():
    game, diags, _ = check_source(Source("hostile.cards", HOSTILE.read_text(encoding="utf-8")))
    assert game is not None, [d.message for d in diags]
    log, result = _play(game, 2, 1, True)
    assert log != "aborted", result
    assert log == _play(game, 2, 1, False)[0]
    events = json.loads(log)
    said = [e["text"] for e in events if e["event"] == "say"]
    assert "'); __import__('os').system('boom') #" in said
    sources = program_for(game).pool.sources
    assert sources, "the game ran generated code"
    for src in sources:
        tree = ast.parse(src)
        for node in ast.walk(tree):
            assert not isinstance(node, (ast.Import, ast.ImportFrom, ast.Lambda, ast.Global, ast.Nonlocal)), src
            if isinstance(node, ast.Name):
                assert _NAMES.match(node.id), (node.id, src)
        # the file's texts reach the source only as string literals (repr): never as code
        assert "__import__" not in "".join(line for line in src.splitlines()
                                          if not re.search(r"'[^']*__import__", line)), src


DIVIDE = '''
game "Divide":
    players: 2 to 2

player has:
    points: number = 0

zone pile: shared, ordered, public

define forever(n) as forever(n + 1)

procedure inner(p, d):
    "A flat procedure: it only sets a value."
    if d = 2:
        set p's points to forever(1)
    set p's points to 10 / d

procedure outer(p, d):
    inner(p, d)

setup:
    for each p in players:
        outer(p, 1)
    outer(first(players), 0)
'''


def test_errors_in_a_flat_procedure_are_located_in_it():
    game, diags, _ = check_source(Source("divide.cards", DIVIDE))
    assert game is not None, [d.message for d in diags]
    fused = _play(game, 2, 0, True)
    assert fused == _play(game, 2, 0, False)
    assert fused[0] == "aborted" and "divide.cards:16:23: division by zero" in fused[1]
    prog = program_for(game)
    assert all(flat(prog, c.id) is not None for c in prog.codes if c.name in ("procedure inner", "procedure outer"))
    # located by the machine (a Python error has no span): the instruction of the flat procedure
    game, diags, _ = check_source(Source("divide.cards", DIVIDE.replace("outer(first(players), 0)",
                                                                        "outer(first(players), 2)")))
    fused = _play(game, 2, 0, True)
    assert fused == _play(game, 2, 0, False)
    assert fused[0] == "aborted" and "divide.cards:15:" in fused[1] and "nested too deeply" in fused[1], fused



def test_deep_expressions_are_written_out_to_a_depth_then_left_to_the_closures():
    """Python's parser nests at most 200 brackets: deeper than gen_expr.MAX_DEPTH, the closure
    evaluates the rest (a flat procedure here, so its block is called from its caller's)."""
    expr, nots = "1", "yes"
    for _ in range(90):
        expr = f"({expr} + 1)"
    for _ in range(91):
        nots = f"not ({nots})"
    text = (DEEP.replace("EXPR", expr).replace("NOTS", nots))
    game, diags, _ = check_source(Source("deep.cards", text))
    assert game is not None, [d.message for d in diags]
    fused = _play(game, 2, 0, True)
    assert fused == _play(game, 2, 0, False)
    assert "points becomes 91" in fused[0] and "points becomes 0" not in fused[0]


DEEP = '''game "Deep":
    players: 2 to 2

player has:
    points: number = 0

procedure inner(p):
    "A flat procedure with deep expressions."
    set p's points to EXPR
    if NOTS:
        set p's points to 0

setup:
    for each p in players:
        inner(p)
'''
