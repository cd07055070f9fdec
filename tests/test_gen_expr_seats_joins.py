"""Seats every game has, and lists joined whose lengths are known (issue 9, H2).

* `seat N` with N no more than the game's least number of players is that seat, with no test
  of the player count (`ExprGen.g_SeatPlayer`: an Engine and a scenario refuse fewer players);
  a seat above it keeps the test, and its error where the seat is missing.
* `line(seat 1) + line(seat 2)`, each side a list written out (or a define whose body is one),
  is Python's `+` (`ExprGen.static_len`): neither side can be none nor the join too long; a side
  whose length is not known keeps `_join` and its checks.

Each game plays the same fused and as closures (`Machine.fused = False`), logs compared.
"""
from __future__ import annotations

import re

import pytest

from cardsmith.dsl.loader import check_source
from cardsmith.dsl.source import Source
from cardsmith.interpreter.program import program_for

import both_ways

GAME = '''game "Seats":
    players: 2 to 3

player has:
    side: number = 0

game has:
    note: number = 0
    turns: number = 0

zone deck: shared, ordered, hidden
zone left: per player, ordered, public
zone right: per player, ordered, public

card type Unit:
    force: number = 1

cards Unit in deck:
    | name    | force | copies |
    | "Scout" | 1     | 6      |
    | "Hulk"  | 3     | 6      |

define line(p) as [p's left, p's right]
define field() as line(seat 1) + line(seat 2)

setup:
    shuffle deck

round "Play":
BODY
    add 1 to turns
    for each p in players:
        if deck is not empty:
            move top card of deck to p's left
        if deck is not empty:
            move top card of deck to p's right

as soon as turns > 3:
    seat 1 wins
'''


def _play(game, players, seed, fused):
    return both_ways.play(game, players, seed, fused)


def _game(body):
    game, diags, _ = check_source(Source("seats.cards", GAME.replace("BODY", body)))
    assert game is not None, [d.message for d in diags]
    return game


def _played(game) -> str:
    """The generated sources once the game has been played both ways, the same."""
    for players in (2, 3):
        for seed in range(3):
            assert _play(game, players, seed, True) == _play(game, players, seed, False), (players, seed)
    return "\n".join(program_for(game).pool.sources)


def test_a_seat_every_game_has_is_not_tested():
    text = _played(_game("    set seat 2's side to count(cards in seat 1's left) + 1\n"
                         "    set note to seat 2's side + count(cards in field())\n"))
    assert "_no_seat(m, 0" not in text and "_no_seat(m, 1" not in text, text
    assert "_join(" not in text


def test_a_seat_a_game_may_not_have_keeps_its_test():
    game = _game("    set note to count(cards in seat 3's left)\n")
    text = _played(game)
    assert "_no_seat(m, 2" in text
    assert _play(game, 2, 0, True)[0] == "aborted" and _play(game, 3, 0, True)[0] != "aborted"


JOINS = {
    # both lengths known: `+`
    "written out": ("    set note to count(cards in field() where force > 1)\n", True),
    "a join of joins": ("    set note to count(cards in (line(seat 2) + field()) where force > 0)\n", True),
    # a side whose length is not known (a `where`): `_join` and its checks
    "a where": ("    set note to count(cards in (line(seat 1) + (line(seat 2) where it is not empty)) where force > 0)\n", False),
}


@pytest.mark.parametrize("case", sorted(JOINS))
def test_lists_of_known_length_are_joined_with_plus(case):
    body, plus = JOINS[case]
    text = _played(_game(body))
    joined = re.search(r"\]\)* \+ \(*\[", text) is not None
    assert ("_join(" not in text) == plus and joined == plus, text
