"""Rules scenarios: every scenario of every games/*.scenarios.cards file is one test case.

A scenario fails on a false `expect`, on a choice its script left open (strict choice), or
on a rule failing while it runs. The last tests prove the runner reports each of those, at
the right line, on a tiny game written here, so a green run of the bundled scenarios means
something.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import load_game, load_text
from cardsmith.interpreter.scenario import run_scenario, run_scenarios

GAMES = Path(__file__).resolve().parents[1] / "games"
SCENARIO_FILES = sorted(GAMES.glob("*.scenarios.cards"))
_loaded: dict[Path, object] = {}


def _load(path: Path):
    if path not in _loaded:
        try:
            _loaded[path] = load_game(str(path))
        except CardsmithError as err:
            _loaded[path] = err
    return _loaded[path]


def _cases():
    """(file, scenario name) pairs; a file that does not load is one case that fails with its errors."""
    cases = []
    for path in SCENARIO_FILES:
        game = _load(path)
        if isinstance(game, CardsmithError):
            cases.append(pytest.param(path, None, id=f"{path.name}: does not load"))
            continue
        cases.extend(pytest.param(path, s.name, id=s.name) for s in game.decls.scenarios)
    return cases


CASES = _cases()


def test_every_bundled_game_has_scenarios():
    games = [p for p in GAMES.glob("*.cards") if not p.name.endswith(".scenarios.cards")]
    assert games, "no bundled game found"
    for g in games:
        assert GAMES / g.name.replace(".cards", ".scenarios.cards") in SCENARIO_FILES, f"{g.name} has no scenarios file"
    assert len(CASES) >= len(SCENARIO_FILES)


@pytest.mark.parametrize("path, name", CASES)
def test_scenario(path: Path, name: str | None):
    game = _load(path)
    if name is None:
        pytest.fail(f"{path.name} does not load:\n" + "\n".join(f"{d.span}: {d.message}" for d in game.diagnostics))
    result = run_scenario(game, name)
    assert result.ok, f"scenario {name!r} failed:\n" + "\n".join(result.failures)
    assert result.failures == []
    assert result.log, "a scenario that ran leaves a log"


# ---------------------------------------------------------------- scenarios can fail

TOP_CARD = '''\
game "Top Card":
    players: 2 to 2

enum Colour: red, blue

player has:
    colour: Colour = none

zone box: shared, hidden "The cards before the game."
zone pile: per player, ordered, public "Your pile."

card type Token:
    value: number, at least 1

cards Token in box:
    | name    | value | copies |
    | "One"   | 1     | 2      |
    | "Two"   | 2     | 2      |

setup:
    move cards in box to seat 1's pile face up
    for each p in players:
        p chooses c from Colour, prompt "Pick a colour"
        set p's colour to c

round "Pass":
    move top card of seat 1's pile to top of seat 2's pile face up

as soon as seat 1's pile is empty:
    seat 2 wins

scenario "Setup deals every card to seat 1" with 2 players:
    give seat 1 the choice red
    give seat 2 the choice blue
    play setup
    expect count(cards in seat 1's pile) = 4
    expect seat 2's colour = blue

scenario "Passing moves one card" with 2 players:
    give seat 1 the choice red
    give seat 2 the choice blue
    play setup
    play 1 round
    expect count(cards in seat 2's pile) = 1
    expect count(cards in seat 2's pile) = 2  # FALSE
    expect count(cards in seat 1's pile) = 3

scenario "Seat 2's colour is left unscripted" with 2 players:
    give seat 1 the choice red
    play setup
    expect seat 1's colour = red

scenario "A choice that is not an option" with 2 players:
    give seat 1 the choice red
    give seat 2 the choice 7
    play setup
'''
TOP_CARD_FILE = "top_card.cards"


def _where(marker: str, column_of: str | None = None) -> str:
    """`top_card.cards:LINE:COL` of the (only) line of TOP_CARD containing `marker`."""
    lines = [i for i, text in enumerate(TOP_CARD.splitlines(), 1) if marker in text]
    assert len(lines) == 1, marker
    text = TOP_CARD.splitlines()[lines[0] - 1]
    col = text.index(column_of if column_of is not None else text.strip()) + 1
    return f"{TOP_CARD_FILE}:{lines[0]}:{col}"


@pytest.fixture(scope="module")
def top_card():
    return load_text(TOP_CARD, path=TOP_CARD_FILE)


def test_a_scenario_whose_expectations_hold_passes(top_card):
    result = run_scenario(top_card, "Setup deals every card to seat 1")
    assert result.ok, result.failures
    assert result.players == 2


def test_a_false_expectation_is_a_failure_at_its_line(top_card):
    result = run_scenario(top_card, "Passing moves one card")
    assert not result.ok
    # only the false expect is reported; the true ones before and after it are not; it says the
    # condition as written, both values, and the last lines of the log before it
    assert result.failures == [
        f"{_where('# FALSE', 'expect')}: expectation failed: expect count(cards in seat 2's pile) = 2\n"
        "    count(cards in seat 2's pile) is 1\n"
        "    expected 2\n"
        "    the last lines of the log before it:\n"
        "      #3 round 0: Player 1's colour becomes red\n"
        "      #4 round 0: Player 2 chooses blue (Pick a colour)\n"
        "      #5 round 0: Player 2's colour becomes blue\n"
        "      #6 round 1: round 1: Pass\n"
        "      #7 round 1: Two from Player 1's pile to Player 2's pile face up"]
    assert [e["ok"] for e in result.log if e["event"] == "expect"] == [True, False, True]


def test_an_unscripted_choice_is_a_failure_at_the_rule_asking(top_card):
    result = run_scenario(top_card, "Seat 2's colour is left unscripted")
    assert not result.ok
    assert len(result.failures) == 1, result.failures
    failure = result.failures[0]
    assert failure.startswith(f"{_where('p chooses c from Colour', 'p chooses')}: ")
    assert "Player 2" in failure and "Pick a colour" in failure
    assert "red" in failure and "blue" in failure       # the options are listed


def test_a_scripted_answer_that_is_not_an_option_is_a_failure(top_card):
    result = run_scenario(top_card, "A choice that is not an option")
    assert not result.ok
    assert len(result.failures) == 1, result.failures
    # at the scenario's `give` line, naming the question, its options and an answer to write
    failure = result.failures[0]
    assert failure.startswith(f"{_where('give seat 2 the choice 7', 'give')}: ")
    assert "not one of the options" in failure
    assert f"the question at {_where('p chooses c from Colour', 'p chooses')}" in failure
    assert failure.split("\n")[0].endswith(": red, blue") and "give seat 2 the choice \"red\"" in failure


def test_run_scenarios_reports_each_scenario_in_file_order(top_card):
    results = run_scenarios(top_card)
    assert [(r.name, r.ok) for r in results] == [
        ("Setup deals every card to seat 1", True),
        ("Passing moves one card", False),
        ("Seat 2's colour is left unscripted", False),
        ("A choice that is not an option", False),
    ]


def test_a_false_expectation_on_an_enum_says_the_member_expected():
    game = load_text(TOP_CARD + '''
scenario "Seat 2's colour" with 2 players:
    give seat 1 the choice red
    give seat 2 the choice blue
    play setup
    expect seat 2's colour = red
''', path=TOP_CARD_FILE)
    result = run_scenario(game, "Seat 2's colour")
    assert result.failures[0].split("\n")[:3] == [
        f"{TOP_CARD_FILE}:{len(TOP_CARD.splitlines()) + 6}:5: expectation failed: expect seat 2's colour = red",
        "    seat 2's colour is blue", "    expected red"]
