"""Who has seen a card (issue 13 item 4; docs/language.md, "Who has seen a card"): the
engine's memory `remember seen cards`, the expression `p has seen c` / `c is known to p`, and
`revealed` raised once, for the players who learn the card (`learners`).

The test game is tests/games/seen_cards.cards; its scenarios are the rules questions. These
tests add what a scenario cannot see: views, logs, the determinizer, save and restore, the
checker's errors, the English, and a game without the memory playing as before."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from cardsmith.dsl import ast as A
from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import load_game, load_text
from cardsmith.dsl.publish import english as E
from cardsmith.interpreter.determinize import Determinizer
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.explain import written
from cardsmith.interpreter.scenario import run_scenario

GAMES = Path(__file__).resolve().parent / "games"
SOURCE = (GAMES / "seen_cards.cards").read_text(encoding="utf-8")
TAKE_BACK = "            if count(players where top card of p's table is known to it) = count(players):\n"


@pytest.fixture(scope="module")
def seen():
    return load_game(str(GAMES / "seen_cards.cards"))


def _scenarios():
    path = GAMES / "seen_cards.scenarios.cards"
    for s in load_game(str(path)).decls.scenarios:
        yield pytest.param(path, s.name, id=s.name)


@pytest.mark.parametrize("path, name", list(_scenarios()))
def test_the_scenarios_of_the_test_game(path, name):
    result = run_scenario(load_game(str(path)), name)
    assert result.ok, "\n".join(result.failures)


def _answer(eng: Engine, label: str) -> None:
    options = eng.pending.options
    assert label in options, f"{label!r} is not offered: {options}"
    eng.decide(options.index(label))


def _taken_back(game, seed: int = 1) -> tuple[Engine, int]:
    """Seat 1 plays its first sign face up (every player sees it), then takes it back."""
    eng = Engine(game, 2, seed=seed)
    card = eng.state.zones["table:0"][-1]
    _answer(eng, "yes")                     # "Take your table's top sign back?"
    assert eng.state.card_zone[card] == "hand:0"
    return eng, card


# ------------------------------------------------------------------ the memory

def test_a_card_played_face_up_is_remembered_by_every_player(seen):
    eng = Engine(seen, 2, seed=1)
    card = eng.state.zones["table:0"][-1]
    assert eng.state.cards[card]["$seen_by"] == [0, 1]
    assert eng.state.game["reveals"] == 1
    # seat 1 looked at it before playing it: only seat 2 learned it, and scored its worth
    assert eng.state.players[1]["points"] == eng.state.cards[card]["worth"]
    assert eng.state.players[0]["points"] == 0


def test_a_known_card_back_in_a_hand_is_named_in_the_other_players_view_and_log(seen):
    eng, card = _taken_back(seen)
    name = eng.state.cards[card]["name"]
    assert eng.view(1)["zones"]["hand:0"]["cards"] == [name]
    back = [e["text"] for e in eng.log_seen_by(1) if e["event"] == "move" and "table to" in e["text"]]
    assert back == [f"{name} from Player 1's table to Player 1's hand"]


def test_a_shuffle_forgets_and_the_view_hides_the_card_again(seen):
    eng, card = _taken_back(seen)
    eng.m.move([card], "deck:0", "top", "down", None)
    assert eng.view(1)["zones"]["deck:0"]["cards"][-1] == eng.state.cards[card]["name"]
    eng.m.shuffle("deck:0", None)
    assert "$seen_by" not in eng.state.cards[card]
    assert eng.view(1)["zones"]["deck:0"]["cards"] is None


def test_save_and_restore_keep_the_memory(seen):
    eng, _card = _taken_back(seen)
    other = Engine.restore(seen, eng.save_json())
    assert other.m.remembers and other.view(1) == eng.view(1) and other.view(0) == eng.view(0)


def test_the_determinizer_keeps_a_known_card_where_it_is(seen):
    sampler = Determinizer(seen)
    rng = random.Random(3)
    for seed in range(4):
        eng, card = _taken_back(seen, seed)
        for _ in range(4):
            sample = Engine.restore(seen, sampler.sample(eng, 1, rng), log=False)
            assert sample.view(1) == eng.view(1)
            assert sample.state.card_zone[card] == "hand:0"
            assert sample.state.cards[card]["name"] == eng.state.cards[card]["name"]


def test_the_same_seed_gives_the_same_log(seen):
    logs = []
    for _ in range(2):
        eng = Engine(seen, 3, seed=7)
        while eng.pending is not None and eng.state.result is None:
            eng.decide(0)
        logs.append([e["text"] for e in eng.log])
    assert logs[0] == logs[1] and any("triggers on revealed" in t for t in logs[0])


# ------------------------------------------------------------------ without the memory

def _variant(scenario: str, remember: bool) -> str:
    text = SOURCE.replace(TAKE_BACK, "            if yes:\n")
    assert text != SOURCE
    if not remember:
        text = text.replace("    remember seen cards\n", "")
    return text + "\n" + scenario


FLIP_TWICE = '''scenario "Flipped down and up twice" with 2 players:
    let moon be first(cards in box where name = "Moon")
    move moon to seat 1's table face up
    expect event revealed where card = moon and learners = [seat 1, seat 2] happened
    flip moon face down
    flip moon face up
    flip moon face down
    flip moon face up
    expect reveals = {n}
    expect seat 2's points = {points}
'''


@pytest.mark.parametrize("remember, n", [(True, 1), (False, 3)])
def test_revealed_again_only_without_the_memory(remember, n):
    game = load_text(_variant(FLIP_TWICE.format(n=n, points=n), remember), "seen_variant.cards")
    assert game.decls.remembers is remember
    result = run_scenario(game, "Flipped down and up twice")
    assert result.ok, "\n".join(result.failures)


def test_a_has_seen_turns_the_memory_on():
    text = SOURCE.replace("    remember seen cards\n", "")
    game = load_text(text, "seen_implicit.cards")
    assert not game.decls.game.remembers and game.decls.remembers
    assert Engine(game, 2, seed=1).m.remembers


def test_a_game_without_it_keeps_no_memory(seen):
    game = load_game(str(GAMES / "private_look.cards"))
    assert not game.decls.remembers and not Engine(game, 2, seed=1).m.remembers


# ------------------------------------------------------------------ checker, English, listing

@pytest.mark.parametrize("expr, column", [("seat 1 has seen 3", 24), ("3 is known to seat 1", 8),
                                          ("top card of seat 1's hand has seen seat 1", 8)])
def test_has_seen_wants_a_player_and_a_card(expr, column):
    text = ('game "G":\n    players: 2 to 2\n\nplayer has:\n    points: number = 0\n\n'
            "zone hand: per player, unordered, owner only\n\n"
            f"setup:\n    if {expr}:\n        add 1 to seat 1's points\n")
    with pytest.raises(CardsmithError) as err:
        load_text(text, "g.cards")
    d = err.value.diagnostics[0]
    assert (d.code, d.span.line, d.span.column) == ("E0408", 10, column) and d.hint


def _has_seen(game) -> A.HasSeen:
    found = []

    def walk(node):
        if isinstance(node, A.HasSeen):
            found.append(node)
        elif isinstance(node, (list, tuple)):
            for x in node:
                walk(x)
        elif hasattr(node, "__dataclass_fields__"):
            for f in node.__dataclass_fields__:
                if f != "span":
                    walk(getattr(node, f))
    walk(game.decls.rounds)
    assert len(found) == 1
    return found[0]


def test_the_english_and_the_listing(seen):
    from cardsmith.dsl.publish.phrases import describe_HasSeen
    e = _has_seen(seen)
    assert written(e) == "it has seen top card of p's table"
    ctx = E.make_ctx(seen.decls)
    assert describe_HasSeen(e, ctx).startswith("it has seen the top card of ")
    mine = A.HasSeen(e.span, A.You(e.span), A.This(e.span))
    assert describe_HasSeen(mine, ctx) == "you have seen this card"


def test_the_rulebook_says_that_players_remember(seen):
    from cardsmith.dsl.publish.rulebook import build_book, render
    assert E.REMEMBERED in render(build_book(seen, examples=False), "md")
    look = load_game(str(GAMES / "private_look.cards"))
    assert E.REMEMBERED not in render(build_book(look, examples=False), "md")


def test_instead_of_revealed_is_asked_only_for_a_card_someone_does_not_know(seen):
    eng, card = _taken_back(seen)
    assert eng.m.unaware(card) is None              # every player knows it: no reveal to replace
    hidden = eng.state.zones["deck:1"][0]
    assert eng.m.unaware(hidden) == [0, 1]
    look = Engine(load_game(str(GAMES / "private_look.cards")), 2, seed=1)
    top = look.state.zones["deck:0"][-1]
    assert look.m.unaware(top) == [0, 1]            # without the memory: who cannot see it now


REPLACED = '''scenario "A reveal to one player is replaced" with 2 players:
    let sun be first(cards in box where name = "Sun")
    move sun to seat 1's hand
    move sun to seat 1's table face up
    expect sun is face down
    expect reveals = 10
    let other be first(cards in box where name = "Sun")
    move other to seat 1's table face up
    expect other is face up
    expect reveals = 11
'''


def test_instead_of_revealed_reads_the_learners():
    text = _variant(REPLACED, True).replace(
        "card type Sign:\n    worth: number = 0\n",
        "card type Sign:\n    worth: number = 0\n"
        "    instead of revealed where card = this and count(learners) = 1:\n        add 10 to reveals\n")
    game = load_text(text, "seen_replaced.cards")
    result = run_scenario(game, "A reveal to one player is replaced")
    assert result.ok, "\n".join(result.failures)
