"""What gen_expr learns from the model (issue 9, H2): a card type tested in an `and`, and a
player's or the game's attribute that never holds none.

* `it is a Ship and race = X`: Python's `and` reaches `race = X` only for a Ship, whose record holds
  every field Ship declares (dsl/checks/cards.py), so the field is read `['race']`, not
  `.get('race')` (`ExprGen.narrow`, `read_field`); an `or`, a `not`, or a field the type does not
  declare keeps `.get`.
* `bonus: number = 0` that no statement of the game sets to a value that may be none is read with
  no test of none (`ExprGen.attr_nn`): `strength + p's bonus` tests the strength alone. A `set` to a
  value that may be none anywhere in the game, a `modify`, or any other statement naming it keeps
  the test, and the error is the closure's.

Each game plays the same fused and as closures (`Machine.fused = False`), logs compared.
"""
from __future__ import annotations

import re

import pytest

from cardsmith.dsl.loader import check_source
from cardsmith.dsl.source import Source
from cardsmith.interpreter.program import program_for

import both_ways

GAME = '''game "Narrow":
    players: 2 to 3

player has:
    bonus: number = 0
    spare: number = 1

game has:
    note: number = 0
    turns: number = 0

zone deck: shared, ordered, hidden
zone hand: per player, ordered, public
zone pile: shared, ordered, public

card type Ship:
    race: number
    force: number = 1

card type Gadget:
    force: number = 0

cards Ship in deck:
    | name    | race | force | copies |
    | "Scout" | 1    | 1     | 3      |
    | "Hulk"  | 2    | 4     | 3      |

cards Gadget in deck:
    | name     | force | copies |
    | "Widget" | 2     | 3      |

define power(p) as (top card of p's hand).force + p's bonus

setup:
    shuffle deck
    for each p in players:
        move top card of deck to p's hand
        move top card of deck to pile

round "Play":
BODY
    add 1 to turns
    for each p in players:
        if deck is not empty:
            move top card of deck to p's hand

as soon as turns > 3:
    seat 1 wins
'''


def _play(game, players, seed, fused):
    return both_ways.play(game, players, seed, fused)


def _game(body, extra=""):
    src = GAME.replace("BODY", body) + extra
    game, diags, _ = check_source(Source("narrow.cards", src))
    assert game is not None, [d.message for d in diags]
    return game


def _same_both_ways(game):
    for players in (2, 3):
        for seed in range(3):
            assert _play(game, players, seed, True) == _play(game, players, seed, False), (players, seed)


def _sources(game) -> str:
    return "\n".join(program_for(game).pool.sources)


CARD = r"m\.cards\[(?:_[a-z]+[0-9]+|env\['[a-z$]+'\])\]"
NARROW = {
    # after `it is a Ship`, Ship's own field: read as a key
    "where": ("    set note to count(cards in pile where it is a Ship and race = 2)\n", True),
    "if": ("    for each c in cards in pile:\n"
           "        if c is a Ship and c's race = 1:\n"
           "            add 1 to note\n", True),
    # an `or`, a `not`: nothing is known of the card's type
    "or": ("    set note to count(cards in pile where it is a Ship or race = 2)\n", False),
    "not": ("    set note to count(cards in pile where not (it is a Gadget) and race = 2)\n", False),
    # the test after the field: nothing known yet where the field is read
    "after": ("    set note to count(cards in pile where race = 2 and it is a Ship)\n", False),
}


@pytest.mark.parametrize("case", sorted(NARROW))
def test_a_card_type_tested_in_an_and_reads_its_fields_as_keys(case):
    body, narrowed = NARROW[case]
    game = _game(body)
    _same_both_ways(game)
    text = _sources(game)
    keyed = re.search(CARD + r"\['race'\]", text) is not None
    got = re.search(CARD + r"\.get\('race'\)", text) is not None
    assert keyed == narrowed and got != narrowed, text


def test_a_field_the_type_does_not_declare_keeps_get():
    game = _game("    set note to count(cards in pile where it is a Gadget and race = 2)\n")
    _same_both_ways(game)
    assert ".get('race')" in _sources(game)


STRENGTH = ("    let best be highest(power(p) for each p in players)\n"
            "    let tied be players where power(it) = best\n"
            "    set note to count(tied) + turns\n")
BONUS_READ_TESTED = re.compile(r":= m\.players\[[^\]]+\]\['bonus'\]\) is not None")


def test_an_attribute_never_none_is_read_untested():
    game = _game(STRENGTH + "    for each p in players:\n        add 1 to p's bonus\n"
                 "        set p's spare to count(cards in p's hand) + 2\n")
    _same_both_ways(game)
    text = _sources(game)
    assert "['bonus']" in text and not BONUS_READ_TESTED.search(text)
    prog = program_for(game)
    assert prog.gen.attr_nn("player", "bonus") and prog.gen.attr_nn("player", "spare")
    assert prog.gen.attr_nn("game", "turns")


@pytest.mark.parametrize("setting", [
    # a set to a value that may be none, in any rule: the test stays; the game stops as the closure does
    "    for each p in players:\n        set p's bonus to (top card of pile).force\n"
    "    move cards in pile to deck\n"
    "    for each p in players:\n        set p's bonus to (top card of pile).force\n",
    # a set of a field so named whatever its owner (here none is no player: unknown)
    "    set (first(players where turns > 5))'s bonus to 1\n    set (top card of pile)'s force to none\n",
])
def test_an_attribute_that_may_be_none_keeps_its_test(setting):
    game = _game(setting + STRENGTH)
    _same_both_ways(game)
    prog = program_for(game)
    if "force to none" in setting:
        assert not prog.gen.attr_nn("player", "force") and prog.gen.attr_nn("player", "bonus")
    else:
        assert not prog.gen.attr_nn("player", "bonus") and BONUS_READ_TESTED.search(_sources(game))
        assert _play(game, 2, 0, True)[0] == "aborted"


def test_a_modified_attribute_keeps_its_test():
    game = _game(STRENGTH, "\ncard type Totem:\n    modify bonus of you by 1 while this is in your hand\n\n"
                           "cards Totem in deck:\n    | name | copies |\n    | \"Idol\" | 2 |\n")
    _same_both_ways(game)
    assert not program_for(game).gen.attr_nn("player", "bonus")
