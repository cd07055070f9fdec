"""A place's field read in generated code (compile_boards.read_field, called straight from the
expression, not through the closure and `_bound`) reads what the closure reads: the value set,
else the place's own starting value, else the field's default; none for no place; and a zone
that is no place stops the game with the same error, located at the same rule."""
from __future__ import annotations

import pytest

from cardsmith.dsl.loader import load_text
import both_ways

GAME = '''game "Fields":
    players: 2

board valley "The valley":
    places: Camp, Ford, Peak
    links: Camp - Ford, Ford - Peak
    place has:
        tier: number = 0
        watched: flag = no
    values:
        | place | tier | watched |
        | Peak  | 3    | yes     |

board yard "The yard":
    places: Gate, Well
    links: Gate - Well

game has:
    total: number = 0
    seen: number = 0

zone box: shared, ordered, hidden

card type Token:
    weight: number = 1

cards Token in box:
    | name  | copies |
    | "Pip" | 3      |

setup:
    set Ford's tier to 2

round "Count":
    set total to sum(tier of the places of valley) + count(the places of valley where it's watched)
    for each z in the places of valley where z's tier > 0:
        add z's tier to seen
    {poke}
    if total > 0:
        first(players) wins
'''


def fields_game(poke: str = ""):
    return load_text(GAME.replace("{poke}", poke), path="fields.cards")


def test_generated_reads_give_the_set_and_starting_values():
    game = fields_game()
    fast, slow = both_ways.play(game, 2, 0, True), both_ways.play(fields_game(), 2, 0, False)
    assert fast == slow
    # the generated code calls read_field itself (the closure is not called through `_bound`)
    from cardsmith.interpreter.compile_boards import read_field
    from cardsmith.interpreter.program import program_for
    assert any(v is read_field for v in program_for(game).pool.ns.values())
    state = fast[4]
    assert '"total": 6' in state and '"seen": 5' in state      # 0 + 2 + 3, one watched; 2 + 3


@pytest.mark.parametrize("poke,words", [
    ("set seen to (zone of first(cards in box))'s tier", "is a zone that is not on one"),
    ("set seen to sum(tier of the places of yard)", "has no field 'tier'"),
])
def test_a_zone_that_is_no_place_or_a_place_without_the_field_stops_the_game_alike(poke, words):
    fast, slow = both_ways.play(fields_game(poke), 2, 0, True), both_ways.play(fields_game(poke), 2, 0, False)
    assert fast == slow
    assert fast[0] == "aborted" and words in fast[1], fast
