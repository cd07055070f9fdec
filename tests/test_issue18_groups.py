"""Issue 18, part G: combination searches, a hand seen by everyone but its owner, and table
cells that hold lists (docs/language.md: "Combinations", "Hidden information and views",
"Cells that hold lists"). The test games are tests/games/melds.cards, facing_away.cards and
relic_market.cards; their scenarios run in tests/test_games_dir.py."""
from __future__ import annotations

import json
import random
from itertools import combinations
from pathlib import Path

import pytest

from cardsmith.dsl.bounds import MAX_COMBINATIONS
from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import load_game, load_text
from cardsmith.interpreter.compile_combos import _best_plan, groups_of, subset_positions
from cardsmith.interpreter.determinize import Determinizer, hidden_places
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.errors import RuleError
from cardsmith.interpreter.visibility import EVERYONE, seers, sees

GAMES = Path(__file__).resolve().parent / "games"
MELDS, FACING, RELICS = (str(GAMES / f) for f in ("melds.cards", "facing_away.cards", "relic_market.cards"))


def play(path: str, seed: int, players: int = 2) -> Engine:
    """A whole game with uniform random answers from a seeded generator."""
    eng = Engine(load_game(path), players, seed)
    pick = random.Random(seed)
    while eng.pending is not None:
        eng.decide(pick.randrange(len(eng.pending.options)))
    return eng


# ---------------------------------------------------------------- combinations

def test_groups_come_in_the_order_of_their_positions():
    assert groups_of(list("abcd"), 2, None) == [list(p) for p in ("ab", "ac", "ad", "bc", "bd", "cd")]
    assert groups_of([1, 2], 0, None) == [[]]
    assert groups_of([1, 2], 3, None) == [] and groups_of([1, 2], -1, None) == []


def test_subsets_come_smaller_first():
    assert subset_positions(3, None, "") == [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2)]


def test_a_search_past_the_bound_stops_before_it_builds_anything():
    with pytest.raises(RuleError) as err:
        subset_positions(17, None, "'the subsets of'")
    assert err.value.code == "E0820" and "MAX_COMBINATIONS" in err.value.message
    assert 2 ** 16 - 1 <= MAX_COMBINATIONS < 2 ** 17 - 1
    with pytest.raises(RuleError) as err:
        groups_of(list(range(40)), 8, None)        # C(40, 8) = 76,904,685
    assert err.value.code == "E0820" and "76,904,685" in err.value.message


def _brute_force(n: int, candidates: list[tuple[tuple, int]]) -> int:
    """The best total over every set of disjoint candidates, by trying every set."""
    best = 0
    for k in range(1, len(candidates) + 1):
        for chosen in combinations(candidates, k):
            used = [i for idx, _ in chosen for i in idx]
            if len(used) == len(set(used)):
                best = max(best, sum(s for _, s in chosen))
    return best


class _Work:
    class st:
        work = 0
    max_steps = 10 ** 9


@pytest.mark.parametrize("seed", range(40))
def test_the_arrangement_is_the_best_one(seed):
    rng = random.Random(seed)
    n = rng.randint(0, 7)
    positions = subset_positions(n, None, "")
    candidates = [(idx, rng.randint(-3, 9)) for idx in positions if rng.random() < 0.25][:9]
    firsts: dict = {}
    for idx, s in candidates:
        firsts.setdefault(idx[0], []).append((sum(1 << i for i in idx), s, idx))
    plan = _best_plan(n, firsts, None, _Work)
    used = [i for idx in plan for i in idx]
    assert len(used) == len(set(used))                            # no element in two groups
    assert plan == sorted(plan)                                   # in the order of their first elements
    score = dict(candidates)
    assert sum(score[idx] for idx in plan) == _brute_force(n, candidates)


def test_the_arrangement_search_counts_what_it_tries():
    # every pair of 16 elements passes: the search tries far more than the bound allows
    n = 16
    firsts: dict = {}
    for idx in subset_positions(n, None, ""):
        firsts.setdefault(idx[0], []).append((sum(1 << i for i in idx), len(idx), idx))
    with pytest.raises(RuleError) as err:
        _best_plan(n, firsts, None, _Work)
    assert err.value.code == "E0820"


def test_a_combination_search_past_its_bound_is_a_located_error():
    text = ('game "T":\n    players: 2 to 2\nzone box: shared\n'
            'setup:\n    let best be the best arrangement of numbers from 1 to 20 into groups where count(it) = 2 by 1\n')
    with pytest.raises(CardsmithError) as err:
        Engine(load_text(text, "t.cards"), 2, 0)
    d = err.value.diagnostics[0]
    assert (d.code, d.span.line) == ("E0820", 5) and "MAX_COMBINATIONS" in d.message and d.hint


def test_a_group_without_a_score_stops_the_game_with_the_rule():
    text = ('game "T":\n    players: 2 to 2\nzone box: shared\nplayer has:\n    n: number = 0\n'
            'setup:\n    let b be the best arrangement of [1, 2] into groups where yes by item 3 of it\n')
    with pytest.raises(CardsmithError) as err:
        Engine(load_text(text, "t.cards"), 2, 0)
    d = err.value.diagnostics[0]
    assert d.span.line == 7 and "score of a group must be a number" in d.message


@pytest.mark.parametrize("source, code, message", [
    ("let g be the groups of 2 players from cards in box", "E0408", "takes players, but these are cards"),
    ("let g be the groups of 2 gizmos from cards in box", "E0408", "say what is grouped"),
    ("let g be the groups of yes from cards in box", "E0408", "expected a number"),
    ("let g be the subsets of 3", "E0404", "needs a collection"),
    ("let g be the best arrangement of cards in box into groups where 1 by 2", "E0408", "expected yes/no"),
    ("let g be the best arrangement of cards in box into groups where yes by it", "E0408", "expected a number"),
])
def test_the_checker_types_the_searches(source, code, message):
    from cardsmith.dsl.loader import check_source
    from cardsmith.dsl.source import Source
    text = 'game "T":\n    players: 2 to 2\nzone box: shared\nsetup:\n    ' + source + "\n"
    _, diags, _ = check_source(Source("t.cards", text))
    assert [(d.code, d.span.line) for d in diags] == [(code, 5)], diags
    assert message in diags[0].message


def test_a_choice_among_groups_is_labelled_by_their_cards():
    eng = Engine(load_game(MELDS), 2, 0)
    while eng.pending is not None:
        labels = [o for o in eng.pending.options if o.startswith("Lay down: ")]
        if labels:
            assert all(o.startswith("Lay down: [") and o.endswith("]") and o.count(",") == 2 for o in labels)
            seen = len(eng.log)
            eng.decide(eng.pending.options.index(labels[0]))
            move = next(e for e in eng.log[seen:] if e["event"] == "move")
            assert len(move["cards"]) == 3 and move["to"].startswith("table:")
            assert f"[{', '.join(move['cards'])}]" == labels[0].removeprefix("Lay down: ")
            return
        eng.decide(0)
    pytest.fail("no meld was offered in this game")


def test_melds_is_deterministic_and_conserves_its_cards():
    for seed in range(6):
        a, b = play(MELDS, seed), play(MELDS, seed)
        assert json.dumps(a.log, sort_keys=True) == json.dumps(b.log, sort_keys=True)
        assert a.state.result is not None
        assert sorted(c for cards in a.state.zones.values() for c in cards) == list(range(18))


# ---------------------------------------------------------------- seen by the others

def test_the_rule_everyone_but_the_owner():
    assert sees("others", 0, False, 1) and sees("others", 0, True, 1)
    assert not sees("others", 0, True, 0)
    assert not sees("others", 0, True, -1)                 # no seat: no public information
    who = seers("others", 0, False)
    assert 1 in who and 2 in who and 0 not in who and -1 not in who
    assert (who | frozenset((0,))) is EVERYONE             # the owner looked: everyone knows it
    assert (frozenset((2,)) | who) == who
    assert seers("others", None, False) is EVERYONE


def _at_own_choice(seed: int = 1) -> Engine:
    eng = Engine(load_game(FACING), 2, seed)
    while eng.pending.prompt != "Play a card you cannot see":
        eng.decide(0)
    return eng


def test_the_owner_sees_only_how_many_the_others_see_the_names():
    eng = _at_own_choice()
    owner = eng.pending.player
    key = f"hand:{owner}"
    names = [eng.state.cards[c]["name"] for c in eng.state.zones[key]]
    assert eng.view(owner)["zones"][key]["cards"] == [None] * len(names)
    assert eng.view(1 - owner)["zones"][key]["cards"] == names
    assert eng.view(-1)["zones"][key]["cards"] == [None] * len(names)
    # the owner's decision names the cards by their place, never by their names
    assert eng.view(owner)["decision"]["options"] == [
        f"card {i} of Player {owner + 1}'s hand" for i in range(1, len(names) + 1)]
    options = eng.view(owner)["decision"]["options"]
    assert not any(name in option for name in names for option in options)


def test_the_log_a_player_reads_follows_the_same_rule():
    eng = _at_own_choice()
    owner = eng.pending.player
    drawn = [e for e in eng.log if e["event"] == "move" and e["to"] == f"hand:{owner}"]
    mine = {e["n"]: e["text"] for e in eng.log_seen_by(owner)}
    theirs = {e["n"]: e["text"] for e in eng.log_seen_by(1 - owner)}
    for e in drawn:
        assert mine[e["n"]].startswith("a card from") and theirs[e["n"]] == e["text"]
    eng.decide(0)
    played = [e for e in eng.log if e["event"] == "move" and e["from"] == [f"hand:{owner}"]][-1]
    # played face up to a public pile: now everyone, the owner too, reads its name
    assert {e["n"]: e["text"] for e in eng.log_seen_by(owner)}[played["n"]] == played["text"]


def test_the_owners_samples_deal_their_own_hand_again_the_others_keep_it():
    eng = _at_own_choice(3)
    owner = eng.pending.player
    game = eng.game
    saved = eng.save()["state"]
    places = {(k, c) for k, _, c in hidden_places(saved, eng.prog.decls, owner)}
    assert {c for k, c in places if k == f"hand:{owner}"} == set(eng.state.zones[f"hand:{owner}"])
    assert not any(k == f"hand:{1 - owner}" for k, _ in places)
    sampler, rng = Determinizer(game), random.Random(5)
    hands, true = set(), tuple(eng.state.zones[f"hand:{owner}"])
    for _ in range(15):
        sample = Engine.restore(game, sampler.sample(eng, owner, rng), log=False)
        assert sample.view(owner) == eng.view(owner)
        assert sample.state.zones[f"hand:{1 - owner}"] == eng.state.zones[f"hand:{1 - owner}"]
        hands.add(tuple(sample.state.zones[f"hand:{owner}"]))
    assert len(hands) > 1 and hands != {true}
    other = Engine.restore(game, sampler.sample(eng, 1 - owner, rng), log=False)
    assert other.state.zones[f"hand:{owner}"] == eng.state.zones[f"hand:{owner}"]


def test_the_observations_for_research_tools_are_the_view():
    pz = pytest.importorskip("pettingzoo")
    del pz
    from cardsmith.interpreter.integrations.pettingzoo import env
    e = env(FACING)
    e.reset(seed=4)
    agent = e.agent_selection
    seat = int(agent.split("_")[1])
    assert e.view(agent) == e.engine.view(seat)
    own = e.engine.view(seat)["zones"][f"hand:{seat}"]["cards"]
    assert own and all(name is None for name in own)


def test_the_table_picture_and_the_rulebook_say_who_sees_the_hand():
    from cardsmith.dsl.publish.layout import table_svg
    game = load_game(FACING)
    svg = table_svg(game.decls, ["Ann", "Ben"])
    assert "all but its owner see" in svg
    plain = table_svg(load_game(MELDS).decls, ["Ann", "Ben"])
    assert "all but its owner" not in plain


# ---------------------------------------------------------------- table cells that hold lists

def test_list_cells_become_lists_on_the_cards():
    game = load_game(RELICS)
    by_name = {c.name: c.values for c in game.cards}
    assert by_name["Star Chart"]["prices"] == [3, 5, 6]
    assert by_name["Star Chart"]["gems"] == ["Ruby", "Ruby", "Onyx"]
    assert by_name["Bone Flute"]["prices"] == [] and by_name["Bone Flute"]["gems"] == []
    assert by_name["Iron Crown"]["tags"] == ["old"] and by_name["Glass Eye"]["tags"] == ["fragile", "old"]
    a, b = play(RELICS, 3), play(RELICS, 3)
    assert a.log == b.log and a.state.result is not None


@pytest.mark.parametrize("field, cell, code, line_col", [
    ("costs: list of number, at least 0", "[1, -2]", "E0502", (8, 17)),
    ("costs: list of number", "3", "E0501", (8, 13)),
    ("costs: list of number", "[1, none]", "E0414", (8, 17)),
    ("costs: list of number", '[1, "two"]', "E0501", (8, 17)),
    ("costs: number", "[1]", "E0501", (8, 13)),
    ("escort: list of player", "[1]", "E0520", (8, 13)),
])
def test_list_cells_are_checked_value_by_value(field, cell, code, line_col):
    from cardsmith.dsl.loader import check_source
    from cardsmith.dsl.source import Source
    col = field.split(":")[0]
    text = (f'game "T":\n    players: 2 to 2\ncard type Unit:\n    {field}\nzone box: shared\n'
            f'cards Unit in box:\n    | name | {col} |\n    | "A" | {cell} |\n')
    _, diags, _ = check_source(Source("t.cards", text))
    assert [(d.code, (d.span.line, d.span.column)) for d in diags] == [(code, line_col)], diags


def test_the_rulebook_prints_a_list_cell_as_its_values():
    from cardsmith.dsl.publish.words import display_value
    game = load_game(RELICS)
    assert display_value(game.decls, [3, 5, 6]) == "3, 5, 6"
    assert display_value(game.decls, ["Ruby", "Onyx"]) == "ruby, onyx"      # display names
    assert display_value(game.decls, []) == "none"


def test_groups_of_unseen_cards_are_labelled_by_place_and_follow_their_places_in_samples():
    text = ('game "Pairs":\n    players: 2 to 2\nzone deck: shared, hidden\n'
            'zone hand: per player, unordered, seen by the others\nzone pile: shared, public\n'
            'card type T:\n    v: number\ncards T in deck:\n    | name | v | copies |\n'
            '    | "Low" | 1 | 6 |\n    | "High" | 9 | 6 |\n'
            'setup:\n    shuffle deck\n    for each p in players:\n        repeat 3 times:\n'
            '            move top card of deck to p\'s hand\n'
            'round "R":\n    seat 1 chooses g from the groups of 2 cards from cards in seat 1\'s hand\n'
            '    move g to pile face up\n    seat 1 wins\n')
    game = load_text(text, "pairs.cards")
    eng = Engine(game, 2, 7)
    assert eng.pending.options == ["[card 1 of Player 1's hand, card 2 of Player 1's hand]",
                                   "[card 1 of Player 1's hand, card 3 of Player 1's hand]",
                                   "[card 2 of Player 1's hand, card 3 of Player 1's hand]"]
    sampler, rng = Determinizer(game), random.Random(2)
    for _ in range(10):
        sample = Engine.restore(game, sampler.sample(eng, 0, rng), log=False)
        assert sample.pending == eng.pending
        hand = sample.state.zones["hand:0"]
        assert sample.state.pending["options"] == [[hand[0], hand[1]], [hand[0], hand[2]], [hand[1], hand[2]]]
