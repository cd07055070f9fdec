"""What a designer new to cardsmith tripped on when writing games from docs/ alone (a docs
trial): each finding fixed as a general improvement, each with a test that failed before."""
from __future__ import annotations

import pytest


from cardsmith.dsl.fmt import format_text
from cardsmith.dsl.loader import load_text
from cardsmith.dsl.publish import rulebook as R

SMALL = """game "Solo Duel":
    players: {players}

player has:
    score: number = 0

setup:
    add 1 to seat 1's score

as soon as any(players where it's score >= 1):
    first(players where it's score >= 1) wins
"""


# ---------------------------------------------------------------- 1. `players: 2`


def test_players_may_be_one_number():
    game = load_text(SMALL.format(players="2"), "solo.cards")
    assert (game.min_players, game.max_players) == (2, 2)
    assert R.players_text(game) == "2 players"


def test_players_as_one_number_is_the_same_game_as_the_range():
    one = load_text(SMALL.format(players="3"), "one.cards")
    two = load_text(SMALL.format(players="3 to 3"), "two.cards")
    assert (one.min_players, one.max_players) == (two.min_players, two.max_players) == (3, 3)


def test_fmt_keeps_players_as_one_number():
    text = SMALL.format(players="2")
    assert format_text(text, "solo.cards") == text


# ---------------------------------------------------------------- 2. the rulebook's English

KNIGHTS = """game "Knights and Pawns":
    players: 2
    summary: "Score with your units."

enum Rank: Knights "Knights of the Realm", Pawns

player has:
    score "victory points": number = 0, at least 0, at most 30
    ready "is ready to fight": flag = no

zone box: shared, hidden
zone barracks "Barracks of the Realm": per player, ordered, public
zone field: per player, ordered, public

card type Unit:
    rank: Rank
    might "Battle Might": number, at least 1

cards Unit in box:
    | name      | rank    | might | copies |
    | "Knights" | Knights | 3     | 2      |
    | "Pawn"    | Pawns   | 1     | 2      |

define my_units(p) as cards in p's field
define knights_might(p) as sum(might of (cards in p's field where rank = Knights))

setup:
    for each p in players:
        move cards in box where count(cards in p's barracks) < 2 to p's barracks

round "Battle":
    for each p in players:
        turn of p:
            step "March":
                if p's barracks is not empty:
                    move top card of p's barracks to p's field face up
            step "Count":
                add count(my_units(p)) to p's score
                set p's ready to yes
                let knights be first(players where it's score > 0)
                add knights_might(p) to knights's score

as soon as any(players where it's score >= 5):
    first(players where it's score >= 5) wins
"""


@pytest.fixture(scope="module")
def knights():
    return load_text(KNIGHTS, "knights.cards")


@pytest.fixture(scope="module")
def knights_md(knights):
    return R.render(R.build_book(knights), "md")


def test_a_value_named_with_my_is_said_after_its_owner_without_it(knights_md):
    assert "A player's units is the cards in their field." in knights_md
    assert "Add the number of their units to their victory points." in knights_md
    assert "my units" not in knights_md.lower()
    assert '<a id="value-my-units"></a>**Units** (value)' in knights_md      # its heading, same anchor


def test_a_name_ending_in_s_takes_only_an_apostrophe(knights_md):
    assert "*knights*' victory points" in knights_md
    assert "'s's" not in knights_md and "s's " not in knights_md.replace("Gus's", "")


def test_possessive_of_names():
    from cardsmith.dsl.publish.words import possessive
    assert [possessive(w) for w in ("Ann", "Knights", "Gus", "the boss", "your opponents")] == \
        ["Ann's", "Knights'", "Gus's", "the boss's", "your opponents'"]


def test_display_names_in_the_reference_tables_and_the_glossary(knights_md):
    assert "| Battle Might | a number, at least 1 |" in knights_md
    assert "| victory points | a number, at least 0, at most 30; starts at 0 |" in knights_md
    assert "| is ready to fight | yes or no; starts at no |" in knights_md
    assert "**Barracks of the Realm** (zone)" in knights_md
    assert "Fields: name, rank, Battle Might." in knights_md
    assert "**ready to fight** (player attribute)" in knights_md      # listed as a reader looks it up
    assert "the total Battle Might of the cards in their field" in knights_md
    assert "| might |" not in knights_md and "**barracks** (zone)" not in knights_md


def test_the_examples_say_a_flag_by_its_display_name(knights):
    from cardsmith.dsl.publish import examples as EX
    teller = EX.Teller(knights, ["Ann", "Ben"])
    assert teller.tell({"event": "set", "what": "Ann's ready", "value": True}) == "Ann is ready to fight."
    assert teller.tell({"event": "set", "what": "Ann's ready", "value": False}) == "Ann is not ready to fight."
    assert teller.tell({"event": "set", "what": "Knights's might", "value": 4}) == "Knights' Battle Might becomes 4."


def test_a_step_in_which_nothing_is_told_has_no_heading(knights):
    from cardsmith.dsl.publish import examples as EX
    teller = EX.Teller(knights, ["Ann", "Ben"])
    log = [{"event": "step", "name": "March"},
           {"event": "step", "name": "Count"},
           {"event": "set", "what": "Ann's score", "value": 3},
           {"event": "step", "name": "March"}]
    lines, _ = EX._tell(teller, log, 0, len(log))
    assert lines == [{"heading": "Step \u201cCount\u201d"}, {"text": "Ann's victory points becomes 3."}]


def test_no_example_in_the_book_has_an_empty_step(knights_md):
    chapter = knights_md.split("Examples of play", 2)[-1].split("Procedures and values")[0]
    blocks = [b.strip() for b in chapter.split("**Step ")[1:]]
    assert blocks and all("\n- " in b.split("**Step ")[0] for b in blocks), blocks


# ---------------------------------------------------------------- 3. a scripted answer that is no option

def _signal_fires_with(scenario: str):
    from pathlib import Path
    text = (Path(__file__).parent / "games" / "signal_fires.cards").read_text(encoding="utf-8") + scenario
    return load_text(text, "signal_fires.cards"), text


def test_an_answer_that_is_no_option_lists_the_options_at_the_give_line():
    from cardsmith.interpreter.scenario import run_scenario
    game, text = _signal_fires_with('''
scenario "A misspelt colour" with 2 players:
    give seat 1 the choice "gren"
    play setup
''')
    line = text.splitlines().index('    give seat 1 the choice "gren"') + 1
    asked = next(i for i, t in enumerate(text.splitlines(), 1) if "p chooses c from Colour" in t)
    result = run_scenario(game, "A misspelt colour")
    assert not result.ok and len(result.failures) == 1, result.failures
    head, hint = result.failures[0].split("\n")
    assert head == (f'signal_fires.cards:{line}:5: the scenario gives Player 1 the choice "gren", which is not '
                    f'one of the options of the question at signal_fires.cards:{asked}:9 ("Choose your colour"): '
                    "red, blue, green")
    assert hint == '    did you mean "green"? write: give seat 1 the choice "green"'


def test_an_answer_far_from_every_option_still_gets_one_to_write():
    from cardsmith.interpreter.scenario import run_scenario
    game, _ = _signal_fires_with('''
scenario "A card for a colour" with 2 players:
    give seat 1 the choice 12
    play setup
''')
    failure = run_scenario(game, "A card for a colour").failures[0]
    assert failure.endswith('give one of the options by its name, e.g. give seat 1 the choice "red"')


# ---------------------------------------------------------------- 4. a word of the language as a name

ORDERS = """game "Orders":
    players: 2

player has:
    orders: number = 3, at least 0

zone box: shared, public

card type Unit:
    kind: text
    action "March" in your turn, {when}:
        add 1 to your orders

cards Unit in box:
    | name    | kind   |
    | "Scout" | "fast" |
"""


def _first_error(text: str, path: str = "game.cards"):
    from cardsmith.dsl.diagnostics import CardsmithError
    from cardsmith.dsl.render import render_diagnostic
    with pytest.raises(CardsmithError) as err:
        load_text(text, path)
    d = err.value.diagnostics[0]
    return d, render_diagnostic(d, {path: text})


def test_a_word_of_the_language_where_a_name_is_expected_is_said_so_with_another_name():
    text = ORDERS.format(when="cost: pay 1 orders")
    d, shown = _first_error(text)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "pay 1 orders" in t)
    column = text.splitlines()[line - 1].index("orders") + 1
    assert d.code == "E0021" and (d.span.line, d.span.column) == (line, column)
    assert d.message == "'orders' is a word of the language, so it can't be used as a name here"
    assert d.hint == "choose another name, such as 'commands', here and where 'orders' is declared"
    source, carets = shown.splitlines()[1:3]
    assert source.endswith("cost: pay 1 orders:")
    assert carets.index("^") == source.index("orders") and carets.rstrip().endswith("| " + " " * (
        source.index("orders") - source.index("|") - 2) + "^" * 6)


def test_the_same_word_as_a_plain_name_elsewhere_is_still_fine():
    load_text(ORDERS.format(when="if your orders > 0"), "game.cards")


# ---------------------------------------------------------------- 5. a bound of `numbers from a to b`

RANGE = """game "Bids":
    players: 2

player has:
    supply: number = 3
    bid: number = 0

setup:
    for each p in players:
        p chooses n from {range}, prompt "Bid"
        set p's bid to n
"""


@pytest.mark.parametrize("written, bound, fixed", [
    ("numbers from 0 to p's supply", "p's supply", "numbers from 0 to (p's supply)"),
    ("numbers from p's bid to 9", "p's bid", "numbers from (p's bid) to 9"),
    ("random number from 1 to p.supply", "p.supply", "random number from 1 to (p.supply)"),
])
def test_a_bound_that_needs_brackets_says_so_and_shows_them(written, bound, fixed):
    text = RANGE.format(range=written)
    d, shown = _first_error(text)
    line = text.splitlines()[9]
    assert d.code == "E0019" and (d.span.line, d.span.column) == (10, line.index(bound) + 1)
    assert d.span.end_column - d.span.column == len(bound)
    assert d.message.startswith(f"'{bound}' needs brackets here")
    assert d.hint == f"write:  {fixed}"
    assert shown.splitlines()[2].rstrip().endswith("^" * len(bound))
    if written.startswith("numbers"):          # and the line the hint writes is right
        load_text(RANGE.format(range=fixed), "fixed.cards")


def test_your_in_a_bound_needs_brackets_too():
    d, _ = _first_error(RANGE.format(range="numbers from 0 to your supply"))
    assert d.code == "E0019" and d.hint == "write:  numbers from 0 to (your supply)"


def test_a_mistake_after_a_plain_bound_is_not_blamed_on_brackets():
    d, _ = _first_error(RANGE.replace(', prompt "Bid"', ' prompt "Bid"').format(range="numbers from 0 to 3"))
    assert d.code == "E0019" and "brackets" not in d.message and "'prompt'" in d.message


# ---------------------------------------------------------------- 6. the simulation's text report

def _printed(fn, stats) -> str:
    import io

    from rich.console import Console
    out = io.StringIO()
    fn(stats, Console(file=out, width=200, color_system=None))
    return out.getvalue()


def test_a_grouping_by_a_list_is_named_as_the_file_writes_it():
    from cardsmith.interpreter.stats import summarize_games
    records = [{"seed": s, "status": "finished", "winners": [s % 2], "draw": False, "rounds": 1, "steps": 1,
                "groupings": {0: {"sides": ["sun", "moon"]}, 1: {"sides": []}}} for s in range(4)]
    stats = summarize_games(records, 2)
    assert set(stats["groupings"]["sides"]) == {"[sun, moon]", "[]"}
    from cardsmith.interpreter.report_text import render_groups
    shown = _printed(render_groups, stats)
    assert "[sun, moon]" in shown and "['sun'" not in shown


def test_shared_wins_are_said_under_the_wins():
    from cardsmith.interpreter.report_text import render_groups, shared_wins_note
    from cardsmith.interpreter.stats import summarize_games
    shared = [{"seed": s, "status": "finished", "winners": [0, 1] if s < 3 else [0], "draw": False,
               "rounds": 1, "steps": 1} for s in range(4)]
    stats = summarize_games(shared, 2)
    assert sum(seat["wins"] for seat in stats["seats"]) == 7
    note = shared_wins_note(stats)
    assert note is not None and note.startswith("Shared wins: the 4 games that had a winner gave 7 wins")
    assert note in " ".join(_printed(render_groups, stats).split())
    alone = [{**r, "winners": [r["seed"] % 2]} for r in shared]
    assert shared_wins_note(summarize_games(alone, 2)) is None
    drawn = [{**r, "winners": [], "draw": True} for r in shared]
    assert shared_wins_note(summarize_games(drawn, 2)) is None
