"""Calls in the generated blocks (interpreter/blocks.py): a flat procedure pasted with its
parameters as Python variables (`_local_call`), and a procedure whose first instruction ends it,
that test made in the caller before any frame is pushed (`_guard`). Whatever the shape, the fused
run plays, counts its steps, stops at the bound and locates its errors as the one-closure-at-a-time
run does."""
from __future__ import annotations

import json

import pytest

from cardsmith.dsl.loader import check_source
from cardsmith.dsl.source import Source
from cardsmith.interpreter.errors import GameAborted
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import program_for

GAME = '''game "Calls":
    players: 2 to 3

player has:
    points: number = 0
    rounds: number = 0

zone box: shared, ordered, hidden
zone deck: per player, ordered, hidden
zone pile: per player, ordered, public

card type Chip:
    value: number

cards Chip in box:
    | name   | value | copies |
    | "Chip" | 1     | 9      |

procedure refill(p):
    "Not flat (it moves cards an end check reads), its whole body under one if: the test peeled."
    if p's deck is empty and p's pile is not empty:
        move cards in p's pile to p's deck face down
        shuffle p's deck

procedure draw(p):
    refill(p)
    move top card of p's deck to p's pile face up

procedure score(p, d):
    "Flat: its parameters as variables where it is pasted."
    if d > 1:
        add d to p's points
    else:
        add 1 to p's points
    set p's points to p's points + 10 / DIV

setup:
    for each p in players:
        score(p, 2)
        repeat 3 times:
            move top card of box to p's deck face down

round "Round":
    for each p in players:
        draw(p)
        score(p, 1)
        add 1 to p's rounds
    refill(FIRST)
    if first(players)'s rounds > 4:
        first(players) wins

as soon as count(cards in box) = 99:
    "Reads the zones only: a move is watched (refill is not flat), an attribute is not (score is)."
    first(players) wins
'''


def _game(div="1", first="first(players)"):
    text = GAME.replace("DIV", div).replace("FIRST", first)
    game, diags, _ = check_source(Source("calls.cards", text))
    assert game is not None, [d.message for d in diags]
    return game, text


def _play(game, fused: bool, players=2, seed=0, max_steps=None):
    was = Machine.fused
    Machine.fused = fused
    try:
        eng = run_game(game, players, seed, log=True, max_steps=max_steps)
        return json.dumps(eng.m.log.events, sort_keys=True, default=str), eng.result["steps"]
    except GameAborted as err:
        return "aborted", str(err)
    finally:
        Machine.fused = was


def _line(text: str, line: str) -> str:
    return f"calls.cards:{text.splitlines().index(line) + 1}:"


@pytest.mark.parametrize("players", [2, 3])
def test_fused_plays_as_one_at_a_time(players):
    game, _ = _game()
    for seed in range(3):
        fused = _play(game, True, players, seed)
        assert fused[0] != "aborted"
        assert fused == _play(game, False, players, seed)


def test_the_step_bound_stops_on_the_same_instruction():
    game, _ = _game()
    for bound in range(5, 90, 3):
        fused = _play(game, True, max_steps=bound)
        assert fused == _play(game, False, max_steps=bound), bound


def test_the_peeled_test_and_the_pasted_lines_are_written():
    game, _ = _game()
    _play(game, True)
    sources = "\n".join(program_for(game).pool.sources)
    from cardsmith.dsl.bounds import MAX_FRAMES
    assert f"if len(m.st.frames) < {MAX_FRAMES} and (not (" in sources, "refill's test made before its frame is pushed"
    assert "_pv100 = " in sources, "score's parameters pasted as variables"


def test_an_error_in_the_peeled_test_is_the_procedures():
    # refill(none): its test reads the deck of none, as its own first instruction does
    game, text = _game(first="first(players where it's rounds > 99)")
    fused = _play(game, True)
    assert fused == _play(game, False)
    assert fused[0] == "aborted" and _line(text, "    if p's deck is empty and p's pile is not empty:") in fused[1]


def test_an_error_in_a_pasted_procedure_is_located():
    game, text = _game(div="0")
    fused = _play(game, True)
    assert fused == _play(game, False)
    assert fused[0] == "aborted" and _line(text, "    set p's points to p's points + 10 / 0") in fused[1]


def test_the_variables_have_the_generators_shapes():
    import ast

    from test_codegen import _NAMES
    game, _ = _game()
    _play(game, True)
    for src in program_for(game).pool.sources:
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.Name):
                assert _NAMES.match(node.id), (node.id, src)
