"""The checker reports every error in a file, located, with a suggestion: a table of
(broken source, expected code, line, words in the message, words in the hint)."""
import pytest

from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import load_text

BASE = '''game "Tiny":
    players: 2 to 2

enum Colour: red, blue

player has:
    score: number = 0, at least 0

zone deck: per player, ordered, hidden
zone pile: shared, public

card type Chip:
    colour: Colour
    value: number

cards Chip in pile:
    | name   | colour | value |
    | "One"  | red    | 1     |
    | "Two"  | blue   | 2     |

setup:
    for each p in players:
        move top card of pile to p's deck

round "Play":
    for each p in players:
        add 1 to p's score

as soon as count(pile) = 0:
    first(players) wins
'''


def diagnostics(text):
    with pytest.raises(CardsmithError) as info:
        load_text(text, "tiny.cards")
    return info.value.diagnostics


def test_base_is_valid():
    game = load_text(BASE.replace("count(pile)", "count(cards in pile)"), "tiny.cards")
    assert len(game.cards) == 2


CASES = [
    # (replace this, with this, code, line, in message, in hint)
    ("move top card of pile to p's deck", "move top card of pile to p's dek", "E0206", 23, "dek", "deck"),
    ("add 1 to p's score", "add 1 to p's scroe", "E0206", 27, "scroe", "score"),
    ("| \"Two\"  | blue   | 2     |", "| \"Two\"  | bleu   | 2     |", "E0503", 19, "bleu", "blue"),
    ("| \"Two\"  | blue   | 2     |", "| \"Two\"  | blue   | two   |", "E0501", 19, "not a number", "whole number"),
    ("cards Chip in pile:", "cards Chp in pile:", "E0209", 16, "Chp", "Chip"),
    ("for each p in players:\n        add", "for each p in playerz:\n        add", "E0201", 26, "playerz", None),
    ("first(players) wins", "frist(players) wins", "E0202", 30, "frist", "first"),
    ("count(cards in pile) = 0", "count(cards in pile) = \"x\" + 1", "E0408", 29, "text", None),
    ("zone pile: shared, public", "zone pile: shared, public\nzone pile: shared, public", "E0102", 11, "twice", "line 10"),
]


@pytest.mark.parametrize("old, new, code, line, message, hint", CASES, ids=[c[2] + ":" + c[1][:20] for c in CASES])
def test_checker_reports(old, new, code, line, message, hint):
    text = BASE.replace("count(pile)", "count(cards in pile)")
    assert old in text or old in BASE
    broken = text.replace(old, new) if old in text else BASE.replace(old, new)
    found = [d for d in diagnostics(broken) if d.code == code]
    assert found, [f"{d.code} {d.message}" for d in diagnostics(broken)]
    d = found[0]
    assert d.span.line == line
    assert d.span.column >= 1
    assert message in d.message
    if hint is not None:
        assert d.hint and hint in d.hint


def test_every_error_is_reported_not_only_the_first():
    text = BASE.replace("count(pile)", "count(cards in pile)")
    broken = text.replace("p's deck", "p's dek").replace("p's score", "p's scroe").replace("frist", "x")
    broken = broken.replace("first(players) wins", "frist(players) wins")
    codes = [d.code for d in diagnostics(broken)]
    assert codes.count("E0206") == 2 and "E0202" in codes


def test_count_of_a_zone_name_needs_cards_in():
    # `count(pile)` counts a zone, not a collection: the checker says so
    d = diagnostics(BASE)[0]
    assert d.code == "E0401" and d.span.line == 29


def test_a_field_inside_a_keyword_is_an_error():
    text = BASE.replace("count(pile)", "count(cards in pile)") + '''
keyword Sturdy(x: number):
    toughness: number
    modify value of this by x
'''
    found = [d for d in diagnostics(text) if d.code == "E0107"]
    assert found and "toughness" in found[0].message and found[0].span.line == 33
