"""Errors a designer met and could not read (issue 7, item 6), each now said in their words:
a table of (broken source, expected code, line, column, words in the message, words in the
hint), then the language changes they asked for (`is an`, `where` after `of`) and the log
naming players and cards."""
import pytest

from cardsmith.dsl import ast as A
from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import load_text
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.scenario import run_scenario

BASE = '''game "Tiny":
    players: 2 to 4

enum Colour: red, blue

player has:
    score: number = 0

zone deck: per player, ordered, hidden
zone pile: shared, public

card type Chip:
    colour: Colour
    value: number

cards Chip in pile:
    | name   | colour | value |
    | "One"  | red    | 1     |
    | "Two"  | blue   | 2     |
    | "Four" | red    | 4     |

round "Play":
    for each p in players:
        add 1 to p's score

as soon as count(cards in pile) = 0:
    first(players) wins
'''
LOOP = "    for each p in players:\n        add 1 to p's score\n"     # lines 23-24 of BASE


def diagnostics(text):
    with pytest.raises(CardsmithError) as info:
        load_text(text, "tiny.cards")
    return info.value.diagnostics


def game(text):
    return load_text(text, "tiny.cards")


def test_base_is_valid():
    assert len(game(BASE).cards) == 3


CASES = [
    # (replace this, with this, code, line, column, in message, in hint)
    # --- a word of the language as a name: it says so, and offers another name
    ("    value: number\n", "    value: number\n    text: number\n",
     "E0021", 15, 5, "'text' is a word of the language", "'card_text'"),
    ("    value: number\n", "    value: number\n    when: number\n",
     "E0021", 15, 5, "'when' is a word of the language", "'timing'"),
    ("    score: number = 0\n", "    score: number = 0\n\ndefine early(p) as seat < 3\n",
     "E0021", 9, 20, "'seat' is a word of the language", "'seat_no'"),
    ("add 1 to p's score", "add count(cards) to p's score",
     "E0021", 24, 19, "'cards' is a word of the language", "'pile'"),
    ('    | "Four" | red    | 4     |\n',
     '    | "Four" | red    | 4     |\n\ncard "Five": Chip in pile\n    colour = red\n    when = 5\n',
     "E0021", 24, 5, "'when'", "another name"),
    # --- `for each c in C where ...` names the element c, and the message says so
    (LOOP, "    for each p in players where it's score < 3:\n        add 1 to p's score\n",
     "E0201", 23, 33, "the element is called 'p', not 'it'", "write 'p' where 'it' stands"),
    (LOOP, "    for each c in cards in pile where it is a Chip:\n        add 1 to first(players)'s score\n",
     "E0201", 23, 39, "after 'for each c in'", "'c'"),
    (LOOP, "    for each c in cards in pile where value > 1:\n        add 1 to first(players)'s score\n",
     "E0201", 23, 39, "unknown name 'value'", "c's value"),
    ("add 1 to p's score", "add sum(c.value for each c in cards in pile where colour = red) to p's score",
     "E0201", 24, 59, "unknown name 'colour'", "c's colour"),
    ("add 1 to p's score", "if it's score > 1:\n            stop",
     "E0201", 24, 12, "unknown name 'it'", "'<collection> where ...'"),
    # --- `keyword Name():` and `event name()`: no brackets without parameters
    ("round \"Play\":", 'keyword Swift():\n    "Moves first."\n\nround "Play":',
     "E0022", 22, 9, "a keyword without parameters", "keyword Swift:"),
    ("round \"Play\":", 'event tick()\n\nround "Play":',
     "E0022", 22, 7, "an event without parameters", "event tick"),
    ("    value: number\n", "    value: number\n    keyword Swift()\n",
     "E0022", 15, 13, "a keyword without parameters", "keyword Swift"),
    # --- `set <field> of <x>` read like a value but cannot be changed: now a checker error
    ("add 1 to p's score", "set value of top card of pile to 3",
     "E0410", 24, 13, "'value of ...' cannot be changed", "set c's value to"),
]


@pytest.mark.parametrize("old, new, code, line, column, message, hint", CASES,
                         ids=[f"{c[2]}-{i}" for i, c in enumerate(CASES)])
def test_designer_error(old, new, code, line, column, message, hint):
    assert old in BASE
    d = diagnostics(BASE.replace(old, new, 1))[0]
    assert (d.code, d.span.line, d.span.column) == (code, line, column), f"{d.code} {d.span} {d.message}"
    assert message in d.message, d.message
    assert hint in (d.hint or ""), d.hint


@pytest.mark.parametrize("rule", [
    # the words stay usable as names wherever the grammar cannot expect the word itself
    "set p's seat to 3",
    "if p's seat < 3:\n            stop",
    "let text be p's seat + 1",
])
def test_a_word_of_the_language_where_it_cannot_be_meant_is_a_name(rule):
    text = BASE.replace("    score: number = 0\n", "    score: number = 0\n    seat: number = 0\n")
    game(text.replace("add 1 to p's score", rule))


def test_a_name_that_is_a_word_is_reported_where_the_let_gives_it():
    # `let seat be 3` parses; the line that reads `seat` back cannot: the let's name is the mistake
    text = BASE.replace("add 1 to p's score", "let seat be 3\n        add seat to p's score")
    d = diagnostics(text)[0]
    assert (d.code, d.span.line, d.span.column, d.span.end_column) == ("E0021", 24, 13, 17)
    assert "can't name a value" in d.message and "seat_no" in d.hint


def test_the_word_renamed_is_only_blamed_when_renaming_helps():
    # `up` is a word too, but the mistake here is the missing ':' after the name
    d = diagnostics(BASE + "enum Side up, down\n")[0]
    assert d.code == "E0019"


# ---------------------------------------------------------------- `is an`

def test_is_an_reads_like_is_a():
    def condition(article):
        g = game(BASE.replace("count(cards in pile) = 0", f"count(cards in pile where it is {article} Chip) = 0"))
        return g.decls.end_checks[0].cond.left.args[0].cond

    a, an = condition("a"), condition("an")
    assert isinstance(an, A.IsA) and an.type_name == a.type_name == "Chip"


# ---------------------------------------------------------------- `where` after `of`

def _filter_of(text):
    g = game(BASE.replace("add 1 to p's score", f"let n be {text}"))
    return g.decls.rounds[0].body[0].body[0].value


def test_where_after_of_filters_the_cards():
    e = _filter_of("sum(value of cards in pile where colour = red)").args[0]
    assert isinstance(e, A.FieldOf) and e.name == "value"
    assert isinstance(e.obj, A.WhereExpr) and isinstance(e.obj.coll, A.CardsIn)
    # its span is the whole text, its filter's the cards and the condition
    assert (e.span.column, e.span.end_column) == (22, 63)
    assert (e.obj.span.column, e.obj.span.end_column) == (31, 63)


def test_top_card_of_is_not_a_field_and_keeps_its_where():
    # `top card of` is no `<field> of`: the filter stays after the card, which it cannot filter
    d = diagnostics(BASE.replace("add 1 to p's score", "let n be name of top card of pile where it is a Chip"))[0]
    assert (d.code, d.span.line, d.span.column) == ("E0404", 24, 26)


def test_of_of_filters_the_innermost_collection():
    g = game(LEAD.replace("    first(players) wins", "    let r be rival of holder of cards in pile where value > 1"))
    e = g.decls.setup.body[-1].value
    assert isinstance(e, A.FieldOf) and isinstance(e.obj, A.FieldOf)
    assert isinstance(e.obj.obj, A.WhereExpr) and isinstance(e.obj.obj.coll, A.CardsIn)


def test_a_bracketed_of_is_filtered_as_values():
    e = _filter_of("sum((value of cards in pile) where it > 1)").args[0]
    assert isinstance(e, A.WhereExpr) and isinstance(e.coll, A.FieldOf)


SCENARIOS = '''
scenario "where after of":
    play setup
    expect sum(value of cards in pile where colour = red) = 5
    expect sum((value of cards in pile) where it > 1) = 6
    expect count(name of cards in pile where value > 1) = 2
    expect count(cards in pile where it is an Chip) = 3
'''


def test_where_after_of_runs_as_it_reads():
    result = run_scenario(game(BASE + SCENARIOS), "where after of")
    assert result.ok, result.failures


# ---------------------------------------------------------------- the log names players and cards

LEAD = '''game "Lead":
    players: 4 to 4

game has:
    leader: player = none
    best: card = none
    chosen: list of player

player has:
    rival: player = none

zone pile: shared, public

card type Chip:
    value: number
    holder: player = none

cards Chip in pile:
    | name  | value |
    | "One" | 1     |
    | "Two" | 2     |

setup:
    set leader to seat 4
    set best to top card of pile
    set seat 1's rival to seat 3
    set chosen to [seat 2, seat 3]
    let c be top card of pile
    set c's holder to seat 2
    set c's value to 7
    first(players) wins
'''


def test_the_log_names_players_and_cards_that_attributes_hold():
    eng = Engine(game(LEAD), players=4, seed=1)
    sets = [e for e in eng.log if e["event"] == "set"]
    top = eng.state.zones["pile"][-1]
    top_name = game(LEAD).cards[top].name
    assert [e["text"] for e in sets] == [
        "leader becomes Player 4",                 # not "leader becomes 3"
        f"best becomes {top_name}",                # not the card's number
        "Player 1's rival becomes Player 3",
        "chosen becomes ['Player 2', 'Player 3']",
        f"{top_name}'s holder becomes Player 2",
        f"{top_name}'s value becomes 7",           # numbers stay numbers
    ]
    assert [e["value"] for e in sets] == ["Player 4", top_name, "Player 3", ["Player 2", "Player 3"],
                                          "Player 2", 7]
