"""Records read in generated code: an entity's attribute or zone, a player's entities, every
entity of a kind, whether one is in play, a card's parts and a part's field, a board's places,
and `x otherwise d`, are read by the closures' own functions
(interpreter/entities.py, interpreter/parts.py) called straight from the expression, not by the
closure through `_bound`. tests/test_codegen.py holds every game played so to the closures;
here, that the generated code does call them, and that the errors and hints are the closures'."""
from __future__ import annotations

from pathlib import Path

from cardsmith.dsl.loader import load_game, load_text
from cardsmith.interpreter import entities, parts
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import program_for

import both_ways

ROOT = Path(__file__).resolve().parent.parent


def test_eve_reads_its_fleets_and_slots_in_generated_code():
    game = load_game(str(ROOT / "games" / "eve_war_for_new_eden.cards"))
    run_game(game, 2, 1, log=False)
    bound = {id(v) for v in program_for(game).pool.ns.values()}
    for fn in (entities.read, entities.of_player, entities.all_of, parts.read, parts.parts_of):
        assert id(fn) in bound, fn.__name__


SHIPS = '''game "Ships":
    players: 2

entity ship "Runabout": per player, at most 2
    has:
        speed: number = 1

player has:
    n: number = 0

setup:
    create a ship for seat 1 as boat
    create a ship for seat 1
    set seat 1's n to sum(speed of seat 1's ships) + (first(seat 2's ships)'s speed otherwise 5)
    set seat 2's n to count(seat 1's ships where it's speed > 0)
    destroy boat
    {read}
'''


def _abort(game, fused: bool):
    from cardsmith.interpreter.errors import GameAborted
    from cardsmith.interpreter.machine import Machine
    was = Machine.fused
    Machine.fused = fused
    try:
        run_game(game, 2, 0, log=True)
    except GameAborted as err:
        d = err.diagnostics[0]
        return d.code, d.message, d.hint, (d.span.line, d.span.column)
    finally:
        Machine.fused = was
    raise AssertionError("the game did not stop")


def test_a_destroyed_entity_read_in_generated_code_stops_the_game_as_the_closure_does():
    for read, named in (("set seat 2's n to boat's speed", True),
                        ("set seat 2's n to sum(it's speed for each it in [boat])", False)):
        game = load_text(SHIPS.replace("{read}", read), path="ships.cards")
        fast, slow = _abort(game, True), _abort(game, False)
        assert fast == slow and fast[0] == "E0861"
        assert ("if boat is in play" in fast[2]) == named, fast


def test_otherwise_and_entities_give_the_closures_values():
    game = load_text(SHIPS.replace("{read}", "set seat 2's n to seat 2's n + 10"), path="ships.cards")
    fast, slow = both_ways.play(game, 2, 0, True), both_ways.play(game, 2, 0, False)
    assert fast == slow
    assert '"n": 7' in fast[4] and '"n": 12' in fast[4]      # 1 + 1 + 5; 2 ships + 10
