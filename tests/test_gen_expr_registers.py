"""`this` and `you` in a card type's abilities (issue 9, H2).

Every env a card type's ability runs in holds its card as `$this` and a seat as `$you`, never none
(triggers._collector, resolver, card_text, Machine._mod_table), so code generated in a scope that
names the card type (`ExprGen.in_ability`) tests neither for none: a trigger's condition checked
again, its body, an action's condition. A keyword's abilities (no card type in their scope) keep
the tests. Each game plays the same fused and as closures (`Machine.fused = False`).
"""
from __future__ import annotations

import re

from cardsmith.dsl.loader import check_source
from cardsmith.dsl.source import Source
from cardsmith.interpreter.program import program_for

import both_ways

GAME = '''game "Registers":
    players: 2 to 3

player has:
    score: number = 0

game has:
    turns: number = 0

event rallied(who: player)

zone deck: shared, ordered, hidden
zone hand: per player, ordered, public
zone pile: per player, ordered, public

keyword Loud:
    "Loud - when rallied, its player scores 2."
    when rallied where who = you and this is in cards in your hand:
        add 2 to your score

card type Unit:
    force: number = 1
    eager: flag = no

    when rallied where who = you and eager and this is in cards in your hand:
        add force to your score
        move this to your pile

cards Unit in deck:
    | name    | force | eager | copies |
    | "Scout" | 1     | yes   | 4      |
    | "Hulk"  | 3     | no    | 4      |

card "Horn": Unit in deck
    force = 2
    keyword Loud

setup:
    shuffle deck

round "Play":
    add 1 to turns
    for each p in players:
        if deck is not empty:
            move top card of deck to p's hand
        announce rallied(p)

as soon as turns > 4:
    seat 1 wins
'''


def _play(game, players, seed, fused):
    return both_ways.play(game, players, seed, fused)


def test_a_card_types_abilities_test_neither_this_nor_you():
    game, diags, _ = check_source(Source("registers.cards", GAME))
    assert game is not None, [d.message for d in diags]
    for players in (2, 3):
        for seed in range(4):
            assert _play(game, players, seed, True) == _play(game, players, seed, False), (players, seed)
    text = "\n".join(program_for(game).pool.sources)
    # the Unit trigger's condition checked again, and its body: `your hand`, `force` read untested
    assert re.search(r"\(env\['\$this'\] in m\.zones\[_k\d+\[env\['\$you'\]\]\]\)", text), text
    assert "m.cards[env['$this']]['force']" in text and "None if env['$this'] is None" not in text
    # the keyword's ability (no card type in its scope): `your hand` tested as before
    assert re.search(r"\(m\.zones\[_k\d+\[env\['\$you'\]\]\] if env\['\$you'\] is not None else _raise_no_zone", text)
