"""How gen_expr walks a comprehension's collection and what it reads once (issue 9, H2).

* `cards in every table where ...` (a list of zones never none): the comprehension walks each
  zone's own list, the list of all their cards not built; the sum of the zones' lengths is
  charged first (`ExprGen.loop`, `_charged_zones`): the same work as the list's length, charged
  at the same moment, so a game stops on the work bound where it did.
* `cards in box where faction = p's faction`: a player's attribute of a name the comprehension
  does not bind, `your` attribute and the game's attribute are read once before it
  (`ExprGen.hoisted`, `invariant_attr`); a map's own name (`p's x for each p in ...`) is not.

Each game plays the same fused and as closures (`Machine.fused = False`): the logs and the work
charged are compared, and near the work bound the same error.
"""
from __future__ import annotations

import re

import pytest

from cardsmith.dsl.loader import check_source
from cardsmith.dsl.source import Source
from cardsmith.interpreter.program import program_for

import both_ways

GAME = '''game "Loops":
    players: 2 to 3

player has:
    side: number = 1
    bonus: number = 0

game has:
    note: number = 0
    turns: number = 0
    cut: number = 2

zone box: shared, ordered, hidden
zone deck: shared, ordered, hidden
zone table: per player, ordered, public
zone pile: per player, ordered, public

card type Ship:
    side: number
    force: number = 1

card type Gadget:
    force: number = 0

cards Ship in box:
    | name    | side | force | copies |
    | "Scout" | 1    | 1     | 4      |
    | "Hulk"  | 2    | 4     | 4      |
    | "Probe" | 3    | 2     | 4      |

cards Gadget in deck:
    | name     | force | copies |
    | "Widget" | 2     | 6     |

define tables() as [seat 1's table, seat 2's table]

setup:
    for each p in players:
        set p's side to count(players) - count(players where it = p) + 0
        move cards in box where side = p's side to p's pile
    shuffle deck

round "Play":
BODY
    add 1 to turns
    for each p in players:
        if p's pile is not empty:
            move top card of p's pile to p's table
        if deck is not empty:
            move top card of deck to p's table

as soon as turns > 4:
    seat 1 wins
'''


def _play(game, players, seed, fused, max_steps=None):
    return both_ways.play(game, players, seed, fused, max_steps=max_steps)


def _game(body):
    game, diags, _ = check_source(Source("loops.cards", GAME.replace("BODY", body)))
    assert game is not None, [d.message for d in diags]
    return game


def _same_both_ways(game, max_steps=None):
    for players in (2, 3):
        for seed in range(3):
            fused = _play(game, players, seed, True, max_steps)
            assert fused == _play(game, players, seed, False, max_steps), (players, seed)


def _sources(game) -> str:
    """Every generated source, once a game has been played (a block is built as it is reached)."""
    _play(game, 2, 0, True)
    return "\n".join(program_for(game).pool.sources)


ZONES = {
    "where": "    set note to count(cards in every table where it is a Ship and force > 1)\n",
    "map": "    set note to sum(c.force + 1 for each c in cards in every table where c.force < 3)\n",
    "a define's zones": "    set note to count(cards in tables() where force > note)\n",
}


@pytest.mark.parametrize("case", sorted(ZONES))
def test_cards_in_zones_are_walked_in_place(case):
    game = _game(ZONES[case])
    text = _sources(game)
    assert "_charged_zones(m, " in text, text
    assert not re.search(r"\[_c\d+ for _z\d+ in", text), text      # no list of the cards built
    _same_both_ways(game)


def test_the_work_bound_stops_the_same_both_ways():
    src = GAME.replace("BODY", "    repeat 40 times:\n"
                                          "        set note to count(cards in every table where force > 0)\n")
    game, diags, _ = check_source(Source("loops.cards", src))
    assert game is not None, [d.message for d in diags]
    for limit in (300, 700, 1500):
        for seed in range(2):
            got = _play(game, 2, seed, True, limit)
            assert got == _play(game, 2, seed, False, limit), (limit, seed)
    assert any(_play(game, 2, 0, True, limit)[0] == "aborted" for limit in (300, 700))


HOIST = {
    # a rule's player: read once; the card's own field each time
    "a name's": ("    for each p in players:\n"
                 "        set note to count(cards in p's table where side = p's side and force >= cut)\n",
                 [r"m\.players\[env\['p'\]\]\['side'\]", r"m\.st\.game\['cut'\]"]),
    # a map's own name: not hoisted
    "a map's own": ("    set note to sum(p's side + p's bonus for each p in players)\n", []),
}


@pytest.mark.parametrize("case", sorted(HOIST))
def test_invariant_attributes_are_read_once(case):
    body, hoisted = HOIST[case]
    game = _game(body)
    text = _sources(game)
    for read in hoisted:
        assert re.search(r"for _h\d+(?:, _h\d+)* in \(+[^)]*" + read, text), (read, text)
    if not hoisted:
        assert not re.search(r"for _h\d+", text.partition("def _b1")[2]), text
    _same_both_ways(game)


def test_setup_reads_the_players_attribute_once():
    text = _sources(_game("    set note to 1\n"))
    assert re.search(r"for _h\d+ in \(m\.players\[env\['p'\]\]\['side'\],\) for _x\d+ in", text), text
