"""The expression rows of issue 10, end to end: `is face up` / `is face down`, `has keyword`,
`if … then … else …`, lists joined with `+`, `item k of`, `last(...)`, random picks, `sorted by`,
`the current step` / `phase`, and seat arithmetic (`seat of p`, `seat (n)`, `the player k seats
to the left of p`, `mod`).

The test game tests/games/oddments.cards uses every one of them; its scenarios
(tests/games/oddments.scenarios.cards) are run here. The tests below look at what scenarios
cannot: the checker's located errors and hints, the runtime's errors, the random picks'
determinism and their log as each player may read it, the rulebook's English and the
`explain` listing. (tests/test_codegen.py plays the game both fused and one instruction at a
time; tests/test_registry.py checks every handler exists.)
"""
from __future__ import annotations

from pathlib import Path

import pytest

from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import load_game, load_text
from cardsmith.dsl.publish import english as E
from cardsmith.dsl.render import render_diagnostic
from cardsmith.interpreter.explain import written
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.scenario import run_scenario

GAMES = Path(__file__).resolve().parent / "games"
SCENARIOS = GAMES / "oddments.scenarios.cards"


def _scenarios():
    for s in load_game(str(SCENARIOS)).decls.scenarios:
        yield pytest.param(s.name, id=s.name)


@pytest.fixture(scope="module")
def oddments_scenarios():
    return load_game(str(SCENARIOS))


@pytest.mark.parametrize("name", list(_scenarios()))
def test_the_scenarios_of_the_test_game(oddments_scenarios, name):
    result = run_scenario(oddments_scenarios, name)
    assert result.ok, "\n".join(result.failures)


# ------------------------------------------------------------------ a small game to check against

BASE = '''\
game "Probe":
    players: 2 to 4

player has:
    score: number = 0

game has:
    x: number = 0
    names: list of text
    gears: list of Gear
    picked: text = ""

zone deck: shared, ordered, hidden
zone hand: per player, unordered, owner only
zone table: per player, ordered, public

keyword Weapon:
    "Scores double."

card type Gear:
    power: number

cards Gear in deck:
    | name   | power | copies |
    | "Rope" | 1     | 2      |

card "Sword": Gear in deck
    power = 3
    keyword Weapon

setup:
    set x to 1

round "Only":
    the game is a draw
'''


def problems(extra: str) -> list:
    """The diagnostics of BASE with `extra` lines added at its end (line numbers as in the text)."""
    text = BASE + extra
    with pytest.raises(CardsmithError) as info:
        load_text(text, path="probe.cards")
    return [(d, text) for d in info.value.diagnostics]


def _line_of(text: str, marker: str) -> int:
    lines = [i for i, ln in enumerate(text.split("\n"), 1) if marker in ln]
    assert len(lines) == 1, marker
    return lines[0]


ERRORS = [
    # (the added line, its code, the text the caret points at, words the message has, words the hint has)
    ("define d() as 3 is face up", "E0408", "3", "expected a card", "a card"),
    ("define d(c) as c has keyword Wepon", "E0213", "c has keyword Wepon", "unknown keyword 'Wepon'", "Weapon"),
    ('define d() as if x > 1 then 1 else "one"', "E0408", '"one"', "differ: a number and a text", "else"),
    ("define d() as item 1 of 5", "E0404", "5", "'item ... of' needs a collection", "collection"),
    ("define d() as [1, 2] + 3", "E0408", "3", "joins a list only to a list", "[3]"),
    ("define d() as cards in deck + deck", "E0408", "deck", "joins a list only to a list, but this is a zone",
     "+ cards in"),
    ('define d() as [1, 2] + ["a"]', "E0406", '[1, 2] + ["a"]', "cannot join", "one kind of thing"),
    ("define d() as 3 + [1]", "E0408", "[1]", "expected a number", "give a number"),
    ("define d() as random card from players", "E0408", "random card from players", "picks a card", "random player"),
    ("define d() as random number from 1 to players", "E0408", "players", "expected a number", "number"),
    ("define d() as players sorted by it highest first", "E0408", "it", "a sort key is a number or a text",
     "it's score"),
    ("define d() as 3 sorted by it highest first", "E0404", "3", "'sorted by' sorts a collection", "collection"),
    ("define d() as seat of 3", "E0408", "3", "expected a player", "player"),
    ("define d() as seat (0)", "E0412", "seat (0)", "seats are numbered from 1", "seat 1"),
    ("define d() as the player x seats to the left of 2", "E0408", "2", "expected a player", "player"),
    ('define d() as x mod "two"', "E0408", '"two"', "expected a number", "number"),
]


@pytest.mark.parametrize("line, code, at, message, hint", ERRORS, ids=[e[0][14:] for e in ERRORS])
def test_a_mistake_is_located_and_hinted(line, code, at, message, hint):
    found = problems(line + "\n")
    d, text = found[0]
    assert d.code == code, [x.message for x, _ in found]
    row = _line_of(text, line)
    assert (d.span.line, d.span.column) == (row, line.rindex(at) + 1), d.span
    assert message in d.message
    assert d.hint and hint in d.hint, d.hint
    shown = render_diagnostic(d, {"probe.cards": text})
    assert line in shown and "^" in shown


def test_a_face_test_of_a_card_and_keywords_of_cards_check_clean():
    load_text(BASE + "define d(c) as c is face down and c has no keyword Weapon\n", path="probe.cards")


# ------------------------------------------------------------------ errors while playing

def _failure(statement: str, players: int = 2) -> str:
    game = load_text(BASE + f'scenario "s" with {players} players:\n    {statement}\n', path="probe.cards")
    result = run_scenario(game, "s")
    assert not result.ok
    return "\n".join(result.failures)


@pytest.mark.parametrize("statement, message", [
    ("expect seat (count(all players) + 1) = seat 1", "there is no player 3 in a 2-player game"),
    ("expect x mod 0 = 0", "division by zero"),
    ("expect random number from 6 to 1 = 1", "the second number is smaller than the first"),
    ('expect count(["a"] + names) = 1', "there is no collection here"),
    ("expect count(cards in deck + gears) = 1", "there is no collection here"),
])
def test_a_rule_that_cannot_be_carried_out_stops_at_its_line(statement, message):
    failure = _failure(statement)
    assert failure.startswith("probe.cards:"), failure
    assert message in failure


def test_values_at_the_edges():
    game = load_text(BASE + '''scenario "edges" with 3 players:
    expect item 0 of [1, 2] = none
    expect item 3 of [1, 2] = none
    expect last([]) = none
    expect (0 - 7) mod 3 = 2
    expect the player 0 seats to the left of seat 2 = seat 2
    expect the player 4 seats to the right of seat 1 = seat 3
    expect (if no then seat 1 else none) = none
    expect ([] sorted by it highest first) = []
    expect (["b", "c", "a"] sorted by it lowest first) = ["a", "b", "c"]
    expect (players sorted by it's score highest first) = [seat 1, seat 2, seat 3]
    expect random item from [] = none
    expect the current phase = none
''', path="probe.cards")
    result = run_scenario(game, "edges")
    assert result.ok, result.failures


def test_the_branch_not_taken_is_not_computed():
    # `1 / 0` in the branch not taken would stop the game
    game = load_text(BASE + '''scenario "lazy" with 2 players:
    expect (if x = 1 then 1 / 0 else 5) = 5
    expect (if x = 0 then 5 else 1 / 0) = 5
''', path="probe.cards")
    assert run_scenario(game, "lazy").ok


# ------------------------------------------------------------------ random picks: seeded, logged, by visibility

@pytest.fixture(scope="module")
def oddments():
    return load_game(str(GAMES / "oddments.cards"))


def test_random_picks_are_the_same_for_the_same_seed_and_differ_between_seeds(oddments):
    logs = {seed: run_game(oddments, 3, seed).log_jsonl() for seed in (1, 2)}
    assert run_game(oddments, 3, 1).log_jsonl() == logs[1]
    picks = {seed: [e for e in run_game(oddments, 3, seed).log if e["event"] == "random"] for seed in range(8)}
    assert all(picks.values()), "every game rolls its starting seat and a bonus"
    assert len({tuple(str(e["picked"]) for e in p) for p in picks.values()}) > 1, "the seed changes the picks"


PRIVATE = BASE.replace('''setup:
    set x to 1''', '''setup:
    move cards in deck to seat 1's hand
    let c be random card from cards in seat 1's hand
    set picked to name of c
    let n be random number from 1 to 6
    set x to n''')


def test_a_random_card_is_named_only_to_who_may_see_it():
    game = load_text(PRIVATE, path="probe.cards")
    eng = run_game(game, 2, 5)
    picked = eng.state.game["picked"]
    [event] = [e for e in eng.log if e["event"] == "random" and "card" in e["text"]]
    assert event["picked"] == picked and event["text"].endswith(f": {picked}")
    [mine] = [e for e in eng.log_seen_by(0) if e.get("n") == event["n"]]
    [theirs] = [e for e in eng.log_seen_by(1) if e.get("n") == event["n"]]
    assert mine["text"].endswith(picked)
    assert theirs["text"].endswith(": a card") and "picked" not in theirs
    [number] = [e for e in eng.log_seen_by(1) if e["event"] == "random" and "number" in e["text"]]
    assert number["picked"] == eng.state.game["x"] and 1 <= number["picked"] <= 6


def test_a_random_number_is_uniform_over_its_range():
    game = load_text(PRIVATE, path="probe.cards")
    seen = [run_game(game, 2, seed, log=False).state.game["x"] for seed in range(300)]
    counts = [seen.count(k) for k in range(1, 7)]
    assert sum(counts) == 300 and min(counts) >= 25, counts      # 50 expected each


# ------------------------------------------------------------------ the rulebook and the listing

EXPRESSIONS = [
    ("c is face up", "the card is face up"),
    ("count(cards in deck where it is face down and it has no keyword Weapon)",
     "the number of cards in the deck that are face down and that do not have the keyword Weapon"),
    ("c has no keyword Weapon", "the card does not have the keyword Weapon"),
    ("if c is face down then 0 else power of c", "0 if the card is face down, otherwise its power"),
    ("[c] + [c]", "the card, followed by the card"),
    ("item 2 of [c]", "the second of"),
    ("random card from cards in deck", "a card picked at random from"),
    ("random number from 1 to 6", "a number from 1 to 6 picked at random"),
    ("players sorted by it's score highest first then seat of it lowest first",
     "the players in order of their score, highest first; then by"),
    ("the current step", "the name of the current step"),
    ("seat of you", "seat number"),
    ("seat (1 + 1)", "the player whose seat number is 1 plus 1"),
    ("the player 1 seats to the left of you", "the player 1 seat to the left of"),
    ("7 mod 3", "the remainder of 7 divided by 3"),
]


@pytest.mark.parametrize("expr, english", EXPRESSIONS, ids=[e[0] for e in EXPRESSIONS])
def test_each_expression_reads_as_english_and_lists_as_written(expr, english):
    game = load_text(BASE + f"define d(c) as {expr}\n"
                     + 'card "Bow": Gear in deck\n    power = 2\n    when flipped where card = this:\n'
                       "        set x to count([d(this)])\n", path="probe.cards")
    de = game.decls.defines["d"]
    ctx = E.make_ctx(game.decls, param_types=E.param_types(game.decls))
    said = E.plain(E.describe_define(de, ctx))
    assert english in said, said
    # as written, but for the brackets `explain` puts around compound parts
    assert written(de.expr).replace("(", "").replace(")", "") == expr.replace("(", "").replace(")", "")
