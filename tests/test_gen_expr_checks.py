"""The checks interpreter/gen_expr.py writes in place (or leaves out where they cannot fire) raise
what the closures raise, at the same span, in the same order.

gen_expr writes `a + b` as an inline test of none and of MAX_RUNTIME_NUMBER, drops the test of a
value that cannot be none (a literal, a count, a loop variable over players or cards), tests a
collection for none in place, and writes `highest` / `lowest` of values that cannot be none as
max() / min(). Each case here plays a small game both ways (fused blocks, and every instruction as
its closure: `Machine.fused = False`) and wants the same log or the same error, naming the place.
"""
from __future__ import annotations

import json

import pytest

from cardsmith.dsl.loader import check_source
from cardsmith.dsl.source import Source
from cardsmith.interpreter.errors import GameAborted
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import program_for

GAME = '''game "Checks":
    players: 2 to 3

player has:
    points: number = 0
    picks: list of card

game has:
    zero: number = 0
    big: number = 1000000000000000
    note: number = 0

zone deck: shared, ordered, hidden
zone hand: per player, ordered, public

card type Number:
    rank: number

card type Blank:
    colour: text = "white"

cards Number in deck:
    | name    | rank | copies |
    | "One"   | 1    | 2      |
    | "Two"   | 2    | 2      |
    | "Three" | 3    | 1      |

cards Blank in deck:
    | name    | copies |
    | "Blank" | 1      |

define cards_left(p) as count(cards in p's hand) + count(cards in deck)
define held(p) as (top card of p's hand).rank + p's points

setup:
    move top card of deck to seat 1's hand
    move bottom card of deck to seat 2's hand
BODY
'''

# (the setup's further lines, what the log or the error must hold)
CASES = {
    "sum of counts": ("    set note to cards_left(seat 1) + count(cards in deck)", "note becomes 9"),
    "none on the left": ("    set note to (top card of seat 3's hand).rank + 1", "arithmetic met 'none'"),
    "none on the right": ("    set note to count(cards in deck) + (top card of seat 3's hand).rank",
                          "arithmetic met 'none'"),
    "the right raises first": ("    set note to (top card of seat 3's hand).rank + (1 / zero)", "division by zero"),
    "none from a define": ("    set note to held(seat 3)", "arithmetic met 'none'"),
    "a define's sum": ("    set note to held(seat 2) + held(seat 2)", "note becomes 2"),
    "too large": ("    set note to big * big", "MAX_RUNTIME_NUMBER"),
    "too large, never none": ("    set note to (count(cards in deck) + 1000000000000000) * 1000",
                              "MAX_RUNTIME_NUMBER"),
    "too large, a product": ("    set note to (big * 1000) * (count(cards in deck) * 1000)", "MAX_RUNTIME_NUMBER"),
    "a difference": ("    set note to 3 - count(cards in deck) - big", "note becomes -1000000000000001"),
    "compare none left": ("    if (top card of seat 3's hand).rank > 0:\n        set note to 1", "a comparison met 'none'"),
    "compare none right": ("    if 0 < (top card of seat 3's hand).rank:\n        set note to 1", "a comparison met 'none'"),
    "compare counts": ("    if cards_left(seat 1) > count(cards in seat 2's hand):\n        set note to 7", "note becomes 7"),
    "no collection, count": ("    set note to count(seat 1's picks)", "there is no collection here"),
    "no collection, first": ("    move first(seat 1's picks) to seat 1's hand", "there is no collection here"),
    "no collection, is in": ("    if top card of deck is in seat 1's picks:\n        set note to 1",
                             "there is no collection here"),
    "no collection, where": ("    set note to count(seat 1's picks where it is a Number)", "there is no collection here"),
    "no collection, map": ("    set note to sum(rank of c for each c in seat 1's picks)", "there is no collection here"),
    "a list set": ("    set seat 1's picks to cards in deck where it is a Number\n"
                   "    set note to count(seat 1's picks where rank > 1) + highest(rank of c for each c in seat 1's picks)\n"
                   "    move first(seat 1's picks) to seat 2's hand", "note becomes 6"),
    "highest of counts": ("    set note to highest(cards_left(p) for each p in players)", "note becomes"),
    "lowest of a list": ("    set note to lowest([count(cards in deck), 2, 2, cards_left(seat 2)])", "note becomes 2"),
    "highest of nothing": ("    set note to 5\n    set note to highest(cards_left(p) for each p in players where zero > 1)",
                           "note becomes none"),
    "highest skips none": ("    set note to highest(rank of c for each c in cards in deck)", "note becomes 3"),
    "players counted": ("    eliminate seat 2\n    set note to count(players)\n    if players is empty:\n"
                        "        set note to 99", "note becomes 2"),
    "every zone": ("    set note to count(cards in every hand where it is a Number and rank > 0)", "note becomes"),
    "a field of it": ("    set note to count(cards in deck where colour = \"white\") + count(cards in deck where rank = 2)",
                      "note becomes 2"),
}


def _play(game, players, seed, fused):
    was = Machine.fused
    Machine.fused = fused
    try:
        eng = run_game(game, players, seed, log=True)
        return json.dumps(eng.m.log.events, sort_keys=True, default=str), eng.result
    except GameAborted as err:
        return "aborted", str(err)
    finally:
        Machine.fused = was


@pytest.mark.parametrize("case", sorted(CASES))
def test_generated_checks_raise_what_the_closures_raise(case):
    body, want = CASES[case]
    game, diags, _ = check_source(Source("checks.cards", GAME.replace("BODY", body)))
    assert game is not None, [d.message for d in diags]
    for players in (2, 3):
        fused = _play(game, players, 1, True)
        assert fused == _play(game, players, 1, False), (case, players)
    assert want in fused[0] + str(fused[1]), (case, fused)
    if fused[0] == "aborted" and "seat 3" not in body:
        assert "checks.cards:" in fused[1], fused


def test_checks_that_cannot_fire_are_not_written():
    """A sum of counts, a comparison with a count, a loop variable over players: no test."""
    body = ("    set note to cards_left(seat 1) + count(cards in deck)\n"
            "    eliminate players where cards_left(it) > 0 and it is in players and count(cards in it's hand) = 9\n")
    game, diags, _ = check_source(Source("checks.cards", GAME.replace("BODY", body)))
    assert game is not None, [d.message for d in diags]
    _play(game, 2, 0, True)
    src = "\n".join(program_for(game).pool.sources)
    assert "_add(" not in src and "_raise_none_cmp" not in src, src
    assert " is not None else _raise_no_zone" not in src.split("eliminate")[-1], src
