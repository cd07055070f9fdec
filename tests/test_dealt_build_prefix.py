"""A game dealt decks builds its program per deal (interpreter/decks.py `dealt_game`); the part of
it that does not depend on the deal, the prefix (setup, the round, the end checks and the
procedures they call: interpreter/program.py `Program._prefix_key`), is built once per rules and
what it reads of the deal, and copied into the program of every deal that reads the same.

These tests hold that sharing to what it must be: the prefix a deal gets is the one it would
build itself (every code's instructions, words and snippets, the namespace's names), each deal
plays its own game (the same log as a program built for it alone), and a saved game restores.
"""
from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game, load_text
from cardsmith.interpreter.blocks import block
from cardsmith.interpreter.decks import game_with_decks
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import program_for

ROOT = Path(__file__).resolve().parent.parent

# keywords (whose holders are the deal's card ids), a modifier only some decks hold (so deals
# differ in what the prefix reads: `modified_player_attrs`), a procedure the round calls and a
# keyword's ability calls too (the ability opens it: compile_stmt `_open_code`)
BRAVE = '''
game "Brave Duel":
    players: 2 to 3

player has:
    points: number = 0

zone collection "Collection": shared, hidden
zone deck: per player, ordered, hidden
zone front: per player, ordered, public
zone discard: shared, unordered, public

keyword Brave:
    when moved where card = this and to_zone is in every front:
        score(you, 1)

card type Unit:
    strength: number

decks from collection into deck:
    exactly 3 Unit
    names are unique

cards Unit in collection:
    | name      | strength |
    | "Scout"   | 1        |
        keyword Brave
    | "Pikeman" | 2        |
    | "Archer"  | 3        |
        modify points of you by 1 while this is in cards in your front
    | "Knight"  | 4        |
        keyword Brave
    | "Giant"   | 6        |
    | "Squire"  | 1        |

define brave(p) as count(cards in p's front where it has keyword Brave)

procedure score(p, n):
    add n to p's points

setup:
    for each p in players:
        shuffle p's deck

round "Clash":
    for each p in players:
        if p's deck is not empty:
            move top card of p's deck to p's front face up
    for each p in players:
        if brave(p) > 0 or any(cards in p's front where it has no keyword Brave and strength > 3):
            score(p, 1)
    for each p in players:
        move cards in p's front to discard face up

as soon as any(players where it's points >= 4):
    first(players where it's points >= 4) wins

as soon as count(players where it's deck is not empty) = 0:
    the game is a draw
'''


# the same without `has keyword` in the rules: its prefix reads no card ids whatever the
# generated code of `has keyword` is, so its deals share the rules' abilities' codes too
PLAIN = BRAVE.replace('game "Brave Duel"', 'game "Plain Duel"').replace(
    "if brave(p) > 0 or any(cards in p's front where it has no keyword Brave and strength > 3):",
    "if any(cards in p's front where strength > 3):")


@pytest.fixture(scope="module")
def plain():
    return load_text(PLAIN, "plain_duel.cards")


@pytest.fixture(scope="module")
def duel():
    return load_game(str(ROOT / "tests" / "games" / "deck_duel.cards"))


@pytest.fixture(scope="module")
def brave():
    return load_text(BRAVE, "brave_duel.cards")


@pytest.fixture(scope="module")
def race():
    return load_game(str(ROOT / "games" / "space_race.cards"))


def _alone(dealt):
    """The same deal, its program built as it is for a deal, but without the shared prefixes."""
    return replace(dealt, _cache={"rules_cards": dealt._cache["rules_cards"],
                                  "holders_read": dealt._cache["holders_read"]})


def _own(dealt):
    """The same deal, its program built from its own cards alone (no rules' abilities, nothing
    shared): as every deal's was built before the prefixes."""
    return replace(dealt, _cache={})


def _same_program(a, b) -> None:
    assert [c.name for c in a.codes] == [c.name for c in b.codes]
    for ca, cb in zip(a.codes, b.codes):
        assert ca.id == cb.id
        assert ca.srcs == cb.srcs, ca.name
        assert ca.spans == cb.spans, ca.name
        assert repr(ca.descs) == repr(cb.descs), ca.name
    assert sorted(a.pool.ns) == sorted(b.pool.ns)
    assert a.pool.sources == b.pool.sources
    assert [(ec[1], ec[2]) for ec in a.end_checks] == [(ec[1], ec[2]) for ec in b.end_checks]
    assert (a.main, a.setup_code, a.round_code) == (b.main, b.setup_code, b.round_code)


def test_deals_of_the_same_rules_share_the_prefix(duel):
    first = program_for(game_with_decks(duel, 2, 1))
    second = program_for(game_with_decks(duel, 2, 2))
    assert first.game.decks != second.game.decks
    # the second deal's setup and round are the first's instructions (the closures built once),
    # in codes of its own (its blocks are built as it plays)
    for code in (first.setup_code, first.round_code, first.main):
        assert second.codes[code] is not first.codes[code]
        assert second.codes[code].ops == first.codes[code].ops
        assert all(a is b for a, b in zip(second.codes[code].ops, first.codes[code].ops))
    # and its other parts (the triggers, the card lists) are its own
    assert second.game is not first.game and second.keyword_holders is not first.keyword_holders


@pytest.mark.parametrize("which", ["duel", "brave", "plain", "race"])
def test_a_shared_prefix_is_the_one_the_deal_builds(which, request):
    game = request.getfixturevalue(which)
    for seed in range(1, 7 if which != "race" else 4):
        dealt = game_with_decks(game, 2, seed)
        _same_program(program_for(dealt), program_for(_alone(dealt)))


@pytest.mark.parametrize("which", ["duel", "brave", "plain"])
def test_each_deal_plays_its_own_game(which, request):
    game = request.getfixturevalue(which)
    for seed in range(1, 9):
        shared = run_game(game, 2, seed)
        alone = run_game(_alone(shared.game), 2, seed)
        assert shared.prog is not alone.prog
        assert shared.log_jsonl() == alone.log_jsonl()
        assert json.dumps(shared.save(), sort_keys=True) == json.dumps(alone.save(), sort_keys=True)
        own = run_game(_own(shared.game), 2, seed)
        assert own.prog.prefix_n == 0 and shared.log_jsonl() == own.log_jsonl()


def test_space_race_deals_play_as_alone(race):
    for seed in (1, 2):
        shared = run_game(race, 2, seed)
        alone = run_game(_alone(shared.game), 2, seed)
        own = run_game(_own(shared.game), 2, seed)
        assert shared.log_jsonl() == alone.log_jsonl() == own.log_jsonl()


def test_a_saved_dealt_game_restores_with_a_shared_prefix(duel):
    for seed in (3, 5, 8):
        want = Engine(duel, 2, seed)
        while not want.finished:
            want.decide(0)
        eng = Engine(duel, 2, seed)
        assert not eng.finished
        eng.decide(0)
        # restored from the declared game and the save: its deal dealt again, its program built
        # with the shared prefix; the save names the frames by code id
        data = json.loads(eng.save_json())
        back = Engine.restore(duel, data)
        assert back.game.decks == eng.game.decks
        assert [f[0] for f in json.loads(back.save_json())["state"]["frames"]] == \
            [f[0] for f in data["state"]["frames"]]
        while not back.finished:
            back.decide(0)
        assert back.result == want.result


_NAME = re.compile(r"\b_[a-z]+[0-9][0-9_]*\b")


def _shape(source: str) -> str:
    """A generated source with its generated names numbered by first appearance (two programs
    name the same objects differently)."""
    names: dict = {}
    return _NAME.sub(lambda mo: names.setdefault(mo.group(0), f"_n{len(names)}"), source)


@pytest.mark.parametrize("which", ["duel", "brave", "plain", "race"])
def test_shared_blocks_are_the_ones_the_deal_builds(which, request):
    """The prefix's fused blocks, built by whichever deal first ran them, are those the deal
    would build itself (the same source, its names aside)."""
    game = request.getfixturevalue(which)
    seeds = range(1, 9) if which != "race" else range(1, 4)
    for seed in seeds:
        run_game(game, 2, seed, log=False)
    for seed in seeds:
        prog = program_for(game_with_decks(game, 2, seed))
        alone = program_for(_alone(prog.game))
        n = prog.prefix_n
        assert n and alone.prefix_n == 0
        for code, mine in zip(prog.codes[:n], alone.codes[:n]):
            for pc, fn in enumerate(code.fast):
                if fn is not None:
                    assert _shape(fn.source) == _shape(block(alone, mine, pc).source), (code.name, pc)
                    assert code.sizes[pc] == mine.sizes[pc]


@pytest.mark.parametrize("which", ["brave", "plain", "race"])
def test_the_rules_abilities_are_built_once(which, request):
    """A dealt game's program builds the codes of the abilities of every card of the rules (the
    pool's included) with its prefix, unless its prefix reads the keywords' holders (then those of
    its own cards, as before): the same way for every deal with the same `_prefix_key`, and, where
    the rules' are built, an ability's code is the same in every deal, built once."""
    game = request.getfixturevalue(which)
    progs = [program_for(game_with_decks(game, 2, seed)) for seed in range(1, 9 if which != "race" else 5)]
    by_key: dict = {}
    for prog in progs:
        by_key.setdefault(prog._prefix_key(), []).append(prog)
    for same in by_key.values():
        assert len({prog.rules_cards is not None for prog in same}) == 1
        if same[0].rules_cards is None:
            continue
        first = same[0]
        codes = {(e.ability.span, tuple(e.extra.items()), first.card_type_names[e.cards[0]]): e.code_id
                 for es in list(first.triggers.values()) + list(first.replacements.values()) for e in es}
        for prog in same[1:]:
            for es in list(prog.triggers.values()) + list(prog.replacements.values()):
                for e in es:
                    cid = codes.get((e.ability.span, tuple(e.extra.items()), prog.card_type_names[e.cards[0]]))
                    if cid is not None:
                        assert e.code_id == cid
                        assert all(a is b for a, b in zip(prog.codes[cid].ops, first.codes[cid].ops))
    if which == "plain":        # nothing in it reads the holders: every deal builds the rules'
        assert all(prog.rules_cards is not None and prog.prefix_n > 0 for prog in progs)
