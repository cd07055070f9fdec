"""Decks as input (issue 13, item 2): the deck rules of a game (`decks from ... into ...:`),
deck files, `cardsmith deck check` / `deck build`, and games played with the players' decks
(given with `--deck SEAT=FILE`, or random legal ones from the pool).

The test game is tests/games/deck_duel.cards (its scenarios: deck_duel.scenarios.cards); the
deck files are in tests/decks/.
"""
from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path

import pytest

from cardsmith.dsl import ast as A
from cardsmith.dsl.decks import check_deck, describe_deck_rules, parse_deck, pool_of, read_deck
from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import check_source, load_game, load_text
from cardsmith.dsl.render import render_all
from cardsmith.dsl.source import Source
from cardsmith.interpreter.cli import main
from cardsmith.interpreter.decks import NoLegalDeck, dealt_game, game_with_decks, random_deck
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.scenario import run_scenarios

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "tests" / "games" / "deck_duel.cards"
DECKS = ROOT / "tests" / "decks"
GOOD, BAD, UNREADABLE = DECKS / "steady_line.deck", DECKS / "too_greedy.deck", DECKS / "unreadable.deck"


@pytest.fixture(scope="module")
def game():
    return load_game(str(GAME))


def _deck(text: str, path: str = "d.deck"):
    deck, problems = parse_deck(text, path)
    assert not problems, problems
    return deck


# ---------------------------------------------------------------- the declaration


def test_the_deck_rules_read_as_the_file_writes_them(game):
    rules = game.decls.deck_rules
    assert (rules.pool, rules.into) == ("collection", "deck")
    got = [(r.kind, r.bound, r.n, r.type_name, r.field, r.zone) for r in rules.rules]
    assert got == [("count", "exactly", 4, "Unit", None, None),
                   ("count", "at least", 2, "Tactic", None, None),
                   ("count", "at most", 3, "Tactic", None, None),
                   ("count", "at most", 6, None, None, None),
                   ("unique", None, 0, None, None, None),
                   ("copies", None, 2, "Tactic", None, None),
                   ("sum", None, 7, "Unit", "cost", None),
                   ("into", None, 0, "Tactic", None, "tactics")]
    assert [t for t, _ in rules.rules[4].excepted] == ["Tactic"]
    assert rules.docs == ("Decks are built before the game from the cards of the collection.",)


def test_the_pool_is_the_cards_of_the_pool_zone_with_their_copies(game):
    pool = pool_of(game)
    assert {n: (c.type_name, c.copies) for n, c in pool.items()} == {
        "Scout": ("Unit", 1), "Pikeman": ("Unit", 1), "Archer": ("Unit", 1), "Knight": ("Unit", 1),
        "Giant": ("Unit", 1), "Rally": ("Tactic", 2), "Ambush": ("Tactic", 2), "Feint": ("Tactic", 1)}


BASE = ('game "T":\n    players: 2 to 2\nzone pool: shared, hidden\nzone deck: per player, hidden\n'
        'zone discard: shared\ncard type C:\n    cost: number = 1\n    tag: flag = no\n')
TABLE = 'cards C in pool:\n    | name | cost |\n    | "A" | 1 |\n'


@pytest.mark.parametrize("rules, code, line, hint", [
    ("decks from deck into deck:\n    exactly 1 C\n", "E0601", 9, "shared zone"),
    ("decks from pool into discard:\n    exactly 1 C\n", "E0601", 9, "per player"),
    ("decks from pol into deck:\n    exactly 1 C\n", "E0207", 9, "did you mean 'pool'?"),
    ("decks from pool:\n    exactly 1 C\n", "E0602", 9, "C into <zone>"),
    ("decks from pool into deck:\n    the tag of C cards adds up to at most 1\n", "E0603", 10, "number field"),
    ("decks from pool into deck:\n    the size of C cards adds up to at most 1\n", "E0204", 10, None),
    ("decks from pool into deck:\n    exactly 2 C\n    at most 1 C\n", "E0604", 11, "agree"),
    ("decks from pool into deck:\n    at least 5 cards\n    at most 4 cards\n", "E0604", 11, "agree"),
    ("decks from pool into deck:\n    exactly 2 Cc\n", "E0209", 10, "did you mean 'C'?"),
    ("decks from pool into deck:\n    names are unique except D\n", "E0209", 10, None),
])
def test_the_checker_reports_broken_deck_rules_where_they_are(rules, code, line, hint):
    _, diags, sources = check_source(Source("t.cards", BASE + rules + TABLE))
    assert diags, "nothing reported"
    first = diags[0]
    assert (first.code, first.span.line) == (code, line), [(d.code, d.span.line, d.message) for d in diags]
    if hint:
        assert hint in first.hint
    assert "^" in render_all(diags, sources)


def test_deck_rules_declared_twice_is_e0102():
    text = BASE + "decks from pool into deck:\n    exactly 1 C\ndecks from pool into deck:\n    exactly 1 C\n" + TABLE
    _, diags, _ = check_source(Source("t.cards", text))
    assert [(d.code, d.span.line) for d in diags] == [("E0102", 11)]


# ---------------------------------------------------------------- deck files


def test_a_deck_file_reads_counts_names_comments_and_its_title():
    deck, problems = parse_deck('title: "Mine"\n# a comment\n\n3 "Card # One"  # after\n2x Two Words\n'
                                '  1 x  Spaced\nBare Name\n4× Times\n', "m.deck")
    assert problems == []
    assert deck.title == "Mine"
    assert [(e.count, e.name, e.span.line, e.span.column) for e in deck.entries] == [
        (3, "Card # One", 4, 3), (2, "Two Words", 5, 4), (1, "Spaced", 6, 8), (1, "Bare Name", 7, 1), (4, "Times", 8, 4)]
    assert deck.names() == ["Card # One"] * 3 + ["Two Words"] * 2 + ["Spaced", "Bare Name"] + ["Times"] * 4


def test_a_name_that_starts_with_x_is_not_taken_for_the_x_of_a_count():
    deck = _deck("3 Xenon Cannon\n2 x Wing\n")
    assert [(e.count, e.name) for e in deck.entries] == [(3, "Xenon Cannon"), (2, "Wing")]


def test_every_unreadable_line_is_reported_at_its_place():
    deck, problems, sources = read_deck(str(UNREADABLE))
    assert [(d.code, d.span.line, d.span.column) for d in problems] == [
        ("E0610", 2, 3), ("E0610", 3, 1), ("E0610", 4, 1), ("E0610", 5, 1)]
    assert "is not closed" in problems[0].message
    drawn = render_all(problems, sources)
    assert ' 2 | 2 "Scout' in drawn and "^^^^^^" in drawn


def test_a_missing_deck_file_is_a_located_error_not_a_traceback(tmp_path):
    deck, problems, _ = read_deck(str(tmp_path / "none.deck"))
    assert deck is None and [d.code for d in problems] == ["E0901"]


# ---------------------------------------------------------------- a deck against the rules


def test_a_legal_deck_has_nothing_to_report(game):
    deck, problems, _ = read_deck(str(GOOD))
    assert problems == [] and check_deck(game, deck) == []
    assert deck.title == "Steady Line" and len(deck.names()) == 6


def test_every_violation_of_a_bad_deck_is_reported_at_its_line(game):
    deck, problems, _ = read_deck(str(BAD))
    assert problems == []
    got = [(d.code, d.span.line) for d in check_deck(game, deck)]
    assert got == [("E0616", 5), ("E0614", 5), ("E0617", 5), ("E0611", 6), ("E0616", 7), ("E0615", 7),
                   ("E0613", 7), ("E0613", 8)]
    by_code = {d.code: d for d in check_deck(game, deck)}
    assert by_code["E0611"].hint == "did you mean 'Scout'?"
    assert by_code["E0611"].span.column == 3            # the name, not the count
    assert "adds up to 11; at most 7" in by_code["E0617"].message
    assert "Giant 4, Knight 3, Archer 2 \u00d72" in by_code["E0617"].hint
    assert by_code["E0614"].notes == ("the rule is at deck_duel.cards:34: names are unique except Tactic",)


def test_too_few_cards_is_reported_at_the_title_line(game):
    deck = _deck("title: Thin\n1 Scout\n2 Rally\n")
    diags = check_deck(game, deck)
    assert [(d.code, d.span.line, d.message, d.hint) for d in diags] == [
        ("E0613", 1, "this deck has 1 Unit cards; the deck rules ask for exactly 4", "add 3 Unit cards")]


def test_a_card_of_the_game_outside_the_pool_is_named_as_such():
    text = (BASE + "decks from pool into deck:\n    at most 3 cards\n" + TABLE
            + 'cards C in discard:\n    | name | cost |\n    | "Token" | 0 |\n')
    game = load_text(text, "t.cards")
    [d] = check_deck(game, _deck("1 Token\n"))
    assert d.code == "E0611" and "not of the pool" in d.message


def test_a_name_in_another_case_is_suggested(game):
    [d] = [d for d in check_deck(game, _deck("1 giant\n1 Knight\n1 Scout\n1 Pikeman\n2 Rally\n")) if d.code == "E0611"]
    assert d.hint == "did you mean 'Giant'?"


# ---------------------------------------------------------------- random legal decks


def test_random_decks_are_legal_for_every_seed_and_seat(game):
    seen = set()
    for seed in range(150):
        for seat in range(3):
            names = random_deck(game, seed, seat)
            counts = Counter(names)
            deck = _deck("".join(f'{n} "{name}"\n' for name, n in counts.items()))
            assert check_deck(game, deck) == [], (seed, seat, names)
            seen.add(tuple(sorted(names)))
    # every legal deck, found by trying each combination of the pool: the random ones are all of them
    pool = pool_of(game)
    legal = set()
    for k in range(7):
        for combo in itertools.combinations_with_replacement(sorted(pool), k):
            deck = _deck("".join(f'{n} "{name}"\n' for name, n in Counter(combo).items()))
            if check_deck(game, deck) == []:
                legal.add(combo)
    assert len(legal) == 5 and seen == legal


def test_random_decks_are_the_same_for_the_same_seed_and_seat(game):
    assert random_deck(game, 7, 1) == random_deck(game, 7, 1)
    assert [random_deck(game, s, 0) for s in range(20)] != [random_deck(game, s, 1) for s in range(20)]


def test_random_decks_keep_a_tight_sum_cap():
    # 3 of the 4 cards, the cheapest three cost exactly the cap: only one legal deck
    text = (BASE + "decks from pool into deck:\n    exactly 3 C\n    names are unique\n"
            "    the cost of C cards adds up to at most 6\n"
            'cards C in pool:\n    | name | cost |\n    | "A" | 1 |\n    | "B" | 2 |\n    | "D" | 3 |\n    | "E" | 9 |\n')
    game = load_text(text, "t.cards")
    for seed in range(30):
        assert sorted(random_deck(game, seed, 0)) == ["A", "B", "D"]


def test_when_no_legal_deck_exists_the_reason_is_given():
    text = (BASE + "decks from pool into deck:\n    exactly 3 C\n    names are unique\n"
            'cards C in pool:\n    | name | cost | copies |\n    | "A" | 1 | 5 |\n    | "B" | 1 | 5 |\n')
    game = load_text(text, "t.cards")
    with pytest.raises(NoLegalDeck, match="at least 3 C cards, and a deck may take only 2"):
        random_deck(game, 1, 0)
    with pytest.raises(CardsmithError) as err:
        Engine(game, 2, 1)
    [d] = err.value.diagnostics
    assert (d.code, d.span.line) == ("E0618", 9)
    assert "no legal deck can be built from the pool" in d.message


def test_a_sum_cap_no_deck_can_keep_is_no_legal_deck():
    text = (BASE + "decks from pool into deck:\n    exactly 2 C\n    the cost of C cards adds up to at most 1\n"
            + TABLE.replace('| "A" | 1 |', '| "A" | 1 |\n    | "B" | 1 |'))
    game = load_text(text, "t.cards")
    with pytest.raises(NoLegalDeck, match="cost of C cards may be too low"):
        random_deck(game, 3, 0)


# ---------------------------------------------------------------- playing with decks


def test_a_given_deck_is_dealt_into_its_seats_zones_in_the_files_order(game):
    good = read_deck(str(GOOD))[0].names()
    eng = Engine(game, 2, 5, decks={0: good})
    g, st = eng.game, eng.state
    assert g.decks[0] == tuple(good)
    first = [c for c in g.cards if c.zone in ("deck:0", "tactics:0")]
    assert [c.name for c in first if c.zone == "deck:0"] == ["Scout", "Pikeman", "Archer", "Knight"]
    assert [c.name for c in first if c.zone == "tactics:0"] == ["Rally", "Rally"]
    assert all(st.owner[c.id] == 0 for c in first)
    assert not [c for c in g.cards if c.zone == "collection"]       # the pool is not in play
    assert len(g.cards) == 12 and Counter(c.zone.split(":")[1] for c in g.cards) == {"0": 6, "1": 6}
    assert game.cards[0].zone == "collection"                        # the declared game is unchanged


def test_the_same_seed_and_decks_give_the_same_log_byte_for_byte(game):
    logs = [run_game(game, 2, 11).log_jsonl() for _ in range(2)]
    assert logs[0] == logs[1]
    decks = [random_deck(game, 11, 0), random_deck(game, 11, 1)]
    # the random decks of a seed are the decks it would be given: the same game
    assert run_game(game, 2, 11, decks={0: decks[0], 1: decks[1]}).log_jsonl() == logs[0]
    assert run_game(game, 2, 12).log_jsonl() != logs[0]


def test_a_saved_game_with_decks_is_restored_with_the_same_cards(game):
    good = read_deck(str(GOOD))[0].names()
    eng = Engine(game, 2, 4, decks={1: good})
    data = json.loads(eng.save_json())
    assert data["decks"][1] == good
    back = Engine.restore(game, data)                 # from the declared game and the save
    assert back.game.decks == eng.game.decks
    while not eng.finished:
        eng.decide(0)
        back.decide(0)
    assert eng.result == back.result and eng.log_jsonl().count("\n") >= 1
    clone = Engine(game, 2, 4, decks={1: good}).clone()
    assert clone.game.decks == eng.game.decks


def test_dealt_games_are_kept_per_decks(game):
    a = dealt_game(game, [random_deck(game, 1, 0), random_deck(game, 1, 1)])
    b = dealt_game(game, [random_deck(game, 1, 0), random_deck(game, 1, 1)])
    assert a is b
    assert game_with_decks(game, 2, 1) is a


def test_a_scenario_plays_the_declared_game_and_its_scenarios_pass():
    scenarios = load_game(str(ROOT / "tests" / "games" / "deck_duel.scenarios.cards"))
    results = run_scenarios(scenarios)
    assert len(results) == 4 and all(r.ok for r in results), [(r.name, r.failures) for r in results if not r.ok]


def test_many_random_games_end_with_every_card_kept(game):
    for seed in range(40):
        eng = run_game(game, 3 if seed % 2 else 2, seed, log=False)
        assert eng.finished
        assert sum(len(z) for z in eng.state.zones.values()) == len(eng.game.cards)


# ---------------------------------------------------------------- the rulebook


def test_the_rulebook_says_how_to_build_a_deck(game):
    said = describe_deck_rules(game.decls)
    assert said == [
        "Each player brings a deck of their own, built from the cards of the Collection (the card reference "
        "lists how many copies of each card a deck may take).",
        "A deck holds exactly 4 Units, at least 2 Tactics, at most 3 Tactics and at most 6 cards in all.",
        "No two cards in a deck share a name, except Tactics.",
        "A deck holds at most 2 copies of any one Tactic.",
        "The cost of the Units in a deck adds up to at most 7.",
        "As the game begins, each player puts their Tactics into their Tactics pile and the rest into their "
        "deck, in the order the deck lists them."]
    from cardsmith.dsl.publish.rulebook import build_book
    book = build_book(game, examples=False)
    [chapter] = [s for s in book.chapters if s.title == "Building your deck"]
    assert [s.title for s in book.chapters].index("Building your deck") < [s.title for s in book.chapters].index("Setup")
    assert any(said[1] in (b.texts or []) for b in chapter.blocks)


# ---------------------------------------------------------------- the command line


def test_deck_check_reports_every_violation_and_exits_1(capsys):
    assert main(["deck", "check", str(GAME), str(GOOD), str(BAD)]) == 1
    out = capsys.readouterr().out
    assert f"{GOOD}: ok (6 cards, \u201cSteady Line\u201d)" in out
    for code in ("E0611", "E0613", "E0614", "E0615", "E0616", "E0617"):
        assert f"error[{code}]" in out
    assert f"{BAD}:6:3: error[E0611]: no card of the pool is named 'Scot'" in out
    assert "= hint: did you mean 'Scout'?" in out
    assert "8 errors in" in out


def test_deck_check_of_a_good_deck_exits_0(capsys):
    assert main(["deck", "check", str(GAME), str(GOOD)]) == 0


def test_deck_check_of_a_game_without_deck_rules_is_a_usage_error(capsys):
    assert main(["deck", "check", str(ROOT / "tests" / "games" / "high_card_duel.cards"), str(GOOD)]) == 1
    assert "declares no deck rules" in capsys.readouterr().err


def test_deck_build_prints_a_legal_deck_file(tmp_path, capsys, game):
    assert main(["deck", "build", str(GAME), "--seed", "9", "--seat", "2"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("title: Deck Duel, seed 9, seat 2\n")
    deck = _deck(text)
    assert check_deck(game, deck) == [] and sorted(deck.names()) == sorted(random_deck(game, 9, 1))


def test_play_with_a_deck_per_seat(capsys):
    assert main(["play", str(GAME), "--seed", "3", "--deck", f"1={GOOD}", "--quiet"]) == 0
    assert main(["play", str(GAME), "--seed", "3", "--deck", f"1={BAD}", "--quiet"]) == 1
    assert "error[E0614]" in capsys.readouterr().out
    assert main(["play", str(GAME), "--seed", "3", "--deck", f"3={GOOD}"]) == 1
    assert "the seat must be from 1 to 2" in capsys.readouterr().err
    assert main(["play", str(GAME), "--seed", "3", "--deck", str(GOOD)]) == 1
    assert "SEAT=FILE" in capsys.readouterr().err


def test_play_with_a_deck_deals_the_files_cards(tmp_path):
    log = tmp_path / "log.jsonl"
    assert main(["play", str(GAME), "--seed", "3", "--deck", f"2={GOOD}", "--quiet", "--log", str(log)]) == 0
    text = log.read_text()
    eng = run_game(load_game(str(GAME)), 2, 3, decks={1: read_deck(str(GOOD))[0].names()})
    assert [json.loads(line) for line in text.splitlines()] == eng.log


def test_simulate_with_a_deck_file_on_workers_and_here(capsys):
    outs = []
    for jobs in ("1", "2"):
        assert main(["simulate", str(GAME), "-n", "12", "--jobs", jobs, "--force-jobs", "--json", "--no-progress",
                     "--deck", f"1={GOOD}"]) == 0
        outs.append(json.loads(capsys.readouterr().out))
    strip = lambda s: {k: v for k, v in s.items() if k not in ("elapsed_seconds", "games_per_second", "jobs")}  # noqa: E731
    assert strip(outs[0]) == strip(outs[1])
    assert outs[0]["finished"] == 12
    assert main(["simulate", str(GAME), "-n", "2", "--deck", f"1={BAD}", "--no-progress"]) == 1


def test_the_seed_rulebooks_deck_rules_are_written_as_the_language_reads_them():
    """Space Race's deck building (seed 004): 10/10/10/10/20 by type, unique names except Actions,
    at most two Actions of a name, a Complication power cap — every rule is one line."""
    text = ('game "Piles":\n    players: 2 to 4\nzone collection: shared, hidden\nzone deck: per player, hidden\n'
            + "".join(f"zone {z}: per player, ordered, hidden\n" for z in ("modules", "recruits", "systems",
                                                                            "complications", "actions"))
            + "".join(f"card type {t}:\n    power: number = 0\n" for t in ("Module", "Recruit", "System",
                                                                           "Complication", "Action"))
            + "decks from collection:\n    exactly 10 Module\n    exactly 10 Recruit\n    exactly 10 System\n"
              "    exactly 10 Complication\n    exactly 20 Action\n    names are unique except Action\n"
              "    at most 2 copies of each Action\n    the power of Complication cards adds up to at most 10\n"
            + "".join(f"    {t} into {t.lower()}s\n" for t in ("Module", "Recruit", "System", "Complication", "Action"))
            + "".join(f"cards {t} in collection:\n    | name | power | copies |\n"
                      + "".join(f'    | "{t} {i}" | {i % 3} | {2 if t == "Action" else 1} |\n' for i in range(14))
                      for t in ("Module", "Recruit", "System", "Complication", "Action")))
    game = load_text(text, "piles.cards")
    names = random_deck(game, 1, 0)
    kinds = Counter(n.split()[0] for n in names)
    assert kinds == {"Module": 10, "Recruit": 10, "System": 10, "Complication": 10, "Action": 20}
    assert sum(int(n.split()[1]) % 3 for n in names if n.startswith("Complication")) <= 10
    eng = Engine(game, 2, 1)
    assert Counter(z for z in eng.state.card_zone) == {f"{z}:{s}": n for s in (0, 1) for z, n in (
        ("modules", 10), ("recruits", 10), ("systems", 10), ("complications", 10), ("actions", 20))}
    assert isinstance(game.decls.deck_rules, A.DeckRulesDecl)


def test_deck_options_a_game_or_a_command_cannot_take_are_usage_errors(capsys):
    other = str(ROOT / "tests" / "games" / "high_card_duel.cards")
    assert main(["play", other, "--seed", "1", "--deck", f"1={GOOD}"]) == 1
    assert "declares no deck rules" in capsys.readouterr().err
    assert main(["simulate", str(GAME), "-n", "2", "--deck", f"1={GOOD}", "--scheduler", "tcp://127.0.0.1:1"]) == 1
    assert "--deck and --scheduler" in capsys.readouterr().err
    assert main(["play", str(GAME), "--seed", "1", "--deck", f"1={GOOD}", "--deck", f"1={GOOD}"]) == 1
    assert "seat 1 is given two decks" in capsys.readouterr().err


def test_with_an_unreadable_line_the_readable_entries_are_still_judged(game, tmp_path, capsys):
    path = tmp_path / "mixed.deck"
    path.write_text('title: Mixed\n1 "Scot\n1 Knight\n3x Rally\n')
    assert main(["deck", "check", str(GAME), str(path)]) == 1
    out = capsys.readouterr().out
    found = [line.split(": ", 1)[1].split("]")[0] for line in out.splitlines() if line.startswith(str(path))]
    assert found == ["error[E0610", "error[E0616", "error[E0615"]       # no count: line 2 may hold it
    assert "this deck has 3 copies of 'Rally'; at most 2 copies of each Tactic" in out


def test_play_says_which_seats_got_random_decks_and_how_to_see_them(capsys, game):
    assert main(["play", str(GAME), "--seed", "5", "--deck", f"1={GOOD}"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1] == (f"random legal decks for seat 2 (cardsmith deck build {GAME} --seed 5 "
                                   "--seat K shows seat K's)")
    assert main(["deck", "build", str(GAME), "--seed", "5", "--seat", "2"]) == 0
    shown = _deck(capsys.readouterr().out)
    assert sorted(shown.names()) == sorted(Engine(game, 2, 5, decks={0: read_deck(str(GOOD))[0].names()}).game.decks[1])


def test_a_large_pool_with_a_tight_cap_builds_a_legal_deck():
    rows = "".join(f'    | "C{i}" | {i % 7} | 3 |\n' for i in range(2000))
    text = (BASE + "decks from pool into deck:\n    exactly 60 C\n    at most 2 copies of each C\n"
            "    the cost of C cards adds up to at most 40\ncards C in pool:\n    | name | cost | copies |\n" + rows)
    game = load_text(text, "t.cards")
    names = random_deck(game, 1, 0)
    assert len(names) == 60 and max(Counter(names).values()) <= 2
    assert sum(int(n[1:]) % 7 for n in names) <= 40
