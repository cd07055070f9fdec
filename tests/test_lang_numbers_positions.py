"""Issue 18's first rows, end to end: numbers as options (`numbers from a to b`), positions in a
zone or a list (`the position of x in C`, `the card k from the top of Z`), enums as numbers and
back (`item k of Rank`, `the position of r in Rank`), a default for none (`x otherwise d`), a
word of the language given as a name by `let` (E0021 at the name), and `as soon as` end checks
named so a variant can override them, in a documented order.

The test game tests/games/bid_row.cards uses every one of them, and its variant
tests/games/bid_row_quick.cards overrides an end check; their scenarios run here (and in
tests/test_games_dir.py). The tests below look at what scenarios cannot: the checker's located
errors, the runtime's, the bots' and the research tools' handling of number options, the
loader's order of end checks, the rulebook's English and the `explain` listing.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import check_source, load_game, load_text
from cardsmith.dsl.publish import english as E
from cardsmith.dsl.source import Source
from cardsmith.interpreter.agents import RandomAgent
from cardsmith.interpreter.explain import written
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.scenario import run_scenario

GAMES = Path(__file__).resolve().parent / "games"
BASE_GAME = GAMES / "bid_row.cards"
SCENARIOS = GAMES / "bid_row.scenarios.cards"
QUICK = GAMES / "bid_row_quick.cards"


def _scenarios(path):
    return [pytest.param(path, s.name, id=f"{path.stem}: {s.name}") for s in load_game(str(path)).decls.scenarios]


@pytest.mark.parametrize("path, name", _scenarios(SCENARIOS) + _scenarios(QUICK))
def test_the_scenarios_of_the_test_games(path, name):
    result = run_scenario(load_game(str(path)), name)
    assert result.ok, "\n".join(result.failures)


# ------------------------------------------------------------------ a small game to check against

PROBE = '''\
game "Probe":
    players: 2 to 4

enum Suit: cups, coins, swords

player has:
    score: number = 0

game has:
    x: number = 0
    picked: list of number

zone deck: shared, ordered, hidden
zone row: shared, ordered, public

card type Chip:
    suit: Suit

cards Chip in deck:
    | name   | suit   | copies |
    | "Cup"  | cups   | 3      |
    | "Coin" | coins  | 3      |

'''


def problems(extra: str) -> list:
    _, diags, _ = check_source(Source("probe.cards", PROBE + extra))
    return diags


ERRORS = [
    # (a rule's line, code, the text under the caret, message part, hint part)
    ('    let xs be numbers from "a" to 3', "E0408", '"a"', "expected a number", "give a number"),
    ("    let k be the position of 3 in x", "E0404", "x", "needs a list or a zone", "a collection"),
    ("    let k be the position of seat 1 in cards in deck", "E0406", "the position of seat 1 in cards in deck",
     "cannot look for a player among cards", "look for"),
    ("    let c be the card 2 from the top of players", "E0403", "players", "expected a zone", "a zone is"),
    ("    let k be highest(picked) otherwise seat 1", "E0408", "seat 1", "the two values of 'otherwise' differ",
     "give after 'otherwise' a number"),
    ("    let s be item 4 of Suit", "E0415", "4", "'Suit' has 3 members: there is no member 4",
     "item 1 of Suit is cups"),
    ("    let s be item 0 of Suit", "E0415", "0", "there is no member 0", "count from 1 to 3"),
]


@pytest.mark.parametrize("line, code, at, message, hint", ERRORS, ids=[e[1] + e[0][8:30] for e in ERRORS])
def test_a_mistake_is_located_and_hinted(line, code, at, message, hint):
    text = "setup:\n" + line + "\n"
    diags = problems(text)
    assert diags, f"no problem found in {line!r}"
    d = diags[0]
    assert d.code == code, (d.code, d.message)
    assert d.span.line == PROBE.count("\n") + 2
    assert line[d.span.column - 1:d.span.end_column - 1] == at
    assert message in d.message and hint in (d.hint or ""), (d.message, d.hint)


def test_an_enum_indexed_by_a_computed_number_is_not_an_error():
    assert problems("setup:\n    let k be 4\n    let s be item k of Suit\n    let t be item 3 of Suit\n") == []


# ------------------------------------------------------------------ running

def _failure(statement: str) -> str:
    game = load_text(PROBE + f'scenario "s":\n    {statement}\n', path="probe.cards")
    result = run_scenario(game, "s")
    assert not result.ok
    return "\n".join(result.failures)


@pytest.mark.parametrize("statement, message", [
    ("let xs be numbers from 1 to highest(picked)", "'numbers from ... to ...' met 'none' where it needs a number"),
    ("let xs be numbers from 1 to 10001", "more than 10,000 (the bound MAX_NUMBER_RANGE)"),
    ("let c be the card highest(picked) from the top of row", "'the card ... from the ... of' met 'none'"),
    ("let k be highest(picked) + 1", "arithmetic met 'none'"),
    ("let k be 2 * highest(picked)", "arithmetic met 'none'"),
    ("let k be -highest(picked)", "arithmetic met 'none'"),
    ("add highest(picked) to seat 1's score", "arithmetic met 'none'"),
])
def test_a_rule_that_cannot_be_carried_out_stops_at_its_line(statement, message):
    failure = _failure(statement if "picked" not in statement else "set picked to []\n    " + statement)
    assert failure.startswith("probe.cards:"), failure
    assert message in failure, failure


@pytest.mark.parametrize("fused", [True, False])
@pytest.mark.parametrize("rule", ["set x to highest(picked) + 1", "set x to 2 * highest(picked)",
                                  "set x to -highest(picked)", "add highest(picked) to x"])
def test_arithmetic_on_none_points_to_otherwise(rule, fused):
    from cardsmith.interpreter.machine import Machine
    game = load_text(PROBE + f'setup:\n    set picked to []\n    {rule}\nround "R":\n    seat 1 wins\n', path="probe.cards")
    saved = Machine.fused
    Machine.fused = fused
    try:
        with pytest.raises(CardsmithError) as err:
            run_game(game, 2, 0, log=False)
    finally:
        Machine.fused = saved
    d = err.value.diagnostics[0]
    assert d.message == "arithmetic met 'none' where it needs a number" and "otherwise 0" in d.hint


def test_a_range_at_its_bound_is_fine_and_past_it_is_E0811():
    game = load_text(PROBE + "setup:\n    set x to count(numbers from 1 to 10000)\n"
                     'round "R":\n    seat 1 wins\n', path="probe.cards")
    assert run_game(game, 2, 0, log=False).state.game["x"] == 10000
    game = load_text(PROBE + "setup:\n    set x to count(numbers from 0 to 10000)\n"
                     'round "R":\n    seat 1 wins\n', path="probe.cards")
    with pytest.raises(CardsmithError) as err:
        run_game(game, 2, 0, log=False)
    assert err.value.diagnostics[0].code == "E0811"


def test_otherwise_works_out_its_default_only_when_needed():
    # the default would stop the game (arithmetic on none): it is not computed when not needed
    game = load_text(PROBE + 'setup:\n    set picked to [4]\n    set x to highest(picked) otherwise (highest([]) + 1)\n'
                     'round "R":\n    seat 1 wins\n', path="probe.cards")
    assert run_game(game, 2, 0, log=False).state.game["x"] == 4


# ------------------------------------------------------------------ numbers as options, for every agent

CHOOSER = PROBE + '''\
setup:
    set picked to []

round "R":
    seat 1 chooses n from numbers from 1 to 4, prompt "Pick a number"
    set picked to picked + [n]
    if count(picked) = 400:
        seat 1 wins
'''


def test_the_random_bot_picks_a_number_uniformly():
    game = load_text(CHOOSER, path="probe.cards")
    eng = run_game(game, 2, 5, agents=[RandomAgent(5), RandomAgent(6)], log=False)
    counts = Counter(eng.state.game["picked"])
    assert sorted(counts) == [1, 2, 3, 4]
    assert all(75 <= counts[k] <= 125 for k in counts), counts      # 100 expected each


def test_a_number_choice_shows_its_numbers_as_options():
    from cardsmith.interpreter.engine import Engine
    eng = Engine(load_text(CHOOSER, path="probe.cards"), 2, 0)
    assert eng.pending.prompt == "Pick a number"
    assert [str(o) for o in eng.pending.options] == ["1", "2", "3", "4"]
    eng.decide(2)
    assert eng.state.game["picked"] == [3]


def test_the_same_seed_gives_the_same_game_and_log():
    game = load_game(str(BASE_GAME))
    a, b = run_game(game, 3, 11), run_game(game, 3, 11)
    assert a.log_jsonl() == b.log_jsonl()
    assert "chooses" in a.log_jsonl()
    assert run_game(game, 3, 12).log_jsonl() != a.log_jsonl()


def test_greedy_and_ismcts_agents_play_number_choices_to_the_end():
    from cardsmith.interpreter.greedy import GreedyAgent
    from cardsmith.interpreter.ismcts import ISMCTSAgent
    game = load_game(str(BASE_GAME))
    eng = run_game(game, 2, 1, agents=[GreedyAgent(seed=1, samples=1), ISMCTSAgent(seed=2, iterations=8)], log=False)
    assert eng.finished


def test_openspiel_plays_the_game_with_number_options():
    pyspiel = pytest.importorskip("pyspiel")
    from cardsmith.interpreter.integrations import openspiel as cs
    game = cs.load(str(BASE_GAME))
    assert game.num_distinct_actions() >= 4          # a bid of 0 to 3 cards is 4 options
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_pettingzoo_plays_the_game_with_number_options():
    pytest.importorskip("pettingzoo")
    import warnings
    from pettingzoo.test import api_test
    from cardsmith.interpreter.integrations.pettingzoo import env
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(str(BASE_GAME)), num_cycles=60)


# ------------------------------------------------------------------ end checks: names, overrides, order

def test_a_variant_overrides_a_named_end_check_in_its_place():
    base = load_game(str(BASE_GAME)).decls.end_checks
    quick = load_game(str(QUICK)).decls.end_checks
    assert [ec.name for ec in base] == ["Twenty points", "Twelve rounds"]
    # the override takes the base's place; the variant's own comes after every one of the base's
    assert [ec.name for ec in quick] == ["Twenty points", "Twelve rounds", "Three rounds"]
    assert quick[0].span.path.endswith("bid_row_quick.cards")
    assert quick[1].span.path.endswith("bid_row.cards") and not quick[1].span.path.endswith("quick.cards")


def test_an_override_of_an_end_check_needs_its_name(tmp_path):
    (tmp_path / "base.cards").write_text(PROBE + 'as soon as x = 3, named "Three":\n    seat 1 wins\n')
    (tmp_path / "variant.cards").write_text('extends "base.cards"\n\noverride as soon as x = 4:\n    seat 2 wins\n')
    with pytest.raises(CardsmithError) as err:
        load_game(str(tmp_path / "variant.cards"))
    d = err.value.diagnostics[0]
    assert (d.code, d.span.line) == ("E0111", 3) and 'named "Last one standing"' in d.hint


def test_two_end_checks_of_one_name_are_E0102(tmp_path):
    (tmp_path / "base.cards").write_text(PROBE + 'as soon as x = 3, named "Three":\n    seat 1 wins\n')
    (tmp_path / "variant.cards").write_text('extends "base.cards"\n\nas soon as x = 4, named "Three":\n    seat 2 wins\n')
    with pytest.raises(CardsmithError) as err:
        load_game(str(tmp_path / "variant.cards"))
    d = err.value.diagnostics[0]
    assert d.code == "E0102" and '"Three" is declared twice' in d.message and "override" in d.hint


# ------------------------------------------------------------------ a word of the language as a let name

@pytest.mark.parametrize("rule, word, column", [
    ("    let top be 3\n    let y be top + 1\n", "top", 9),           # the later line cannot parse
    ("    let top be 3\n", "top", 9),                                   # never read back: still wrong
    ("    let seat be 2\n    repeat seat times:\n        stop\n", "seat", 9),
    ("    for each players in [1, 2]:\n        stop\n", "players", 14),
    ("    seat 1 chooses cards from [1, 2]\n", "cards", 20),
])
def test_a_reserved_word_given_as_a_name_is_located_at_the_name(rule, word, column):
    diags = problems("setup:\n" + rule)
    d = diags[0]
    assert (d.code, d.span.line, d.span.column, d.span.end_column) == (
        "E0021", PROBE.count("\n") + 2, column, column + len(word)), (d.code, d.span, d.message)
    assert f"'{word}' is a word of the language, so it can't name a value" in d.message
    assert "choose another name" in d.hint


def test_prose_and_comments_that_read_like_a_let_are_not_names():
    text = ('setup:\n    "Each player chooses cards from their hand; let top be known."\n'
            '    say "you chooses cards from here"  # let top be 3\n'
            '    """Then\n    for each players in turn."""\n    say "done"\n')
    assert problems(text) == []


def test_words_the_rules_cannot_mistake_stay_usable_as_names():
    assert problems("setup:\n    let first be 3\n    let text be first + 1\n    let value be text\n") == []


# ------------------------------------------------------------------ the rulebook and the listing

EXPRESSIONS = [
    ("numbers from 0 to count(cards in deck)", "the numbers from 0 to the number of cards in the deck"),
    ("the position of c in row", "the position of the card in the row (counting from 1)"),
    ("the position of c in cards in row", "the position of the card in the row (counting from 1)"),
    ("the card 2 from the top of row", "the second card from the top of the row"),
    ("the card x from the bottom of row", "card number the x from the bottom of the row (counting from 1)"),
    ("highest(picked) otherwise 0", "(or 0 when there is no such value)"),
    ("item 2 of Suit", "the second of"),
]


@pytest.mark.parametrize("expr, english", EXPRESSIONS, ids=[e[0] for e in EXPRESSIONS])
def test_each_expression_reads_as_english_and_lists_as_written(expr, english):
    game = load_text(PROBE + f"define d(c) as {expr}\n"
                     + "setup:\n    let k be d(top card of deck)\n", path="probe.cards")
    de = game.decls.defines["d"]
    ctx = E.make_ctx(game.decls, param_types=E.param_types(game.decls))
    said = E.plain(E.describe_define(de, ctx))
    assert english in said, said
    assert written(de.expr).replace("(", "").replace(")", "") == expr.replace("(", "").replace(")", "")


def test_the_rulebook_titles_a_named_end_check_by_its_name(tmp_path):
    from cardsmith.interpreter.cli import main
    out = tmp_path / "book"
    assert main(["rulebook", str(QUICK), "-o", str(out), "--format", "md"]) in (0, None)
    text = (out / "bid_row_quick.md").read_text(encoding="utf-8")
    assert "Twenty points: as soon as" in text and "Three rounds: as soon as" in text


def test_explain_lists_a_named_end_check_by_its_name(capsys):
    from cardsmith.interpreter.cli import main
    main(["explain", str(QUICK), "--list"])
    out = capsys.readouterr().out
    assert 'as soon as "Twenty points"' in out and 'as soon as "Three rounds"' in out
