"""A define's body written in place of its call in generated code (ExprGen.inline_define): when
the body reads nothing of the caller's frame; an argument that is not a variable is evaluated
first, in order and once, into a variable of its own, as the call evaluates it. Which calls are
written in place, which stay calls, and that games play the same, log for log, either way."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.gen_expr import ExprGen
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import program_for

ROOT = Path(__file__).resolve().parent.parent
SPACE_WAR = ROOT / "games" / "space_war_in_space.cards"
BATTLEFIELD = ROOT / "games" / "battlefield_space.cards"

GAME = '''
game "Inlined":
    players: 2 to 3
    summary: "Draw cards; the strongest hand scores."

player has:
    score: number = 0
    bonus: number = 0

zone deck: shared, ordered, hidden
zone hand: per player, unordered, owner only

card type Number:
    rank: number

cards Number in deck:
    | name    | rank | copies |
    | "One"   | 1    | 4      |
    | "Two"   | 2    | 4      |
    | "Three" | 3    | 4      |

define held(p) as sum(rank of cards in p's hand)
define strength(p) as held(p) + p's bonus
define luck(p) as count(cards in p's hand) + random number from 0 to 1
define ahead(p, q) as strength(p) > strength(q)

setup:
    shuffle deck

round "Draw":
    for each p in players:
        move top card of deck to p's hand
        if luck(p) > 2:
            add 1 to p's bonus
    let best be highest(strength(p) for each p in players)
    let leaders be players where strength(it) = best
    for each w in leaders:
        add 1 to w's score
    if ahead(seat 1, seat 2):
        add 1 to seat 1's bonus

as soon as count(cards in deck) < 3:
    first(players where it's score = highest(score of players)) wins
'''


@pytest.fixture
def inlined(tmp_path):
    path = tmp_path / "inlined.cards"
    path.write_text(GAME)
    return path


def _calls(eng, define: str) -> int:
    """How many generated sources call the define's own function (its own `def` not counted)."""
    gen = eng.m.prog.gen
    names = [fn for (name, _), fn in gen._defines.items() if name == define]
    assert names, define
    return sum(len(re.findall(rf"\b{fn}\(m, \{{", src)) for fn in names for src in eng.m.prog.pool.sources)


def test_a_define_on_variables_is_written_in_place_and_others_are_called(inlined):
    eng = run_game(load_game(str(inlined)), 2, 1, log=False)
    assert _calls(eng, "strength") == 0         # `strength(p) for each p`, `strength(it)`: variables
    assert _calls(eng, "held") == 0             # inside strength, written in place too
    assert _calls(eng, "luck") > 0              # a random number: the closure's part reads the frame
    # `seat 1` is not a variable: evaluated first, in order, into a variable, then the body in place
    assert _calls(eng, "ahead") == 0


def _log(path, seed, players, inline, monkeypatch):
    with monkeypatch.context() as mp:
        if not inline:
            mp.setattr(ExprGen, "inline_define", lambda self, name, d, types, args, g, nns=None: None)
        eng = run_game(load_game(str(path)), players, seed, log=True)   # a fresh Game, a new program
    return json.dumps(eng.m.log.events, sort_keys=True, default=str), eng.result


def test_without_inlining_every_call_stays(inlined, monkeypatch):
    with monkeypatch.context() as mp:
        mp.setattr(ExprGen, "inline_define", lambda self, name, d, types, args, g, nns=None: None)
        eng = run_game(load_game(str(inlined)), 2, 1, log=False)
        assert _calls(eng, "strength") > 0


@pytest.mark.parametrize("which", ["inlined", "space_war", "battlefield"])
def test_a_game_plays_the_same_with_defines_inlined_as_called(which, inlined, monkeypatch):
    path = {"inlined": inlined, "space_war": SPACE_WAR, "battlefield": BATTLEFIELD}[which]
    for players in ((2, 3) if which == "inlined" else (2,)):
        for seed in range(4 if which == "battlefield" else 10):
            assert _log(path, seed, players, True, monkeypatch) == _log(path, seed, players, False, monkeypatch), \
                (which, players, seed)


BOUND = '''
game "Bound":
    players: 2 to 2

player has:
    points: number = 0

zone deck: shared, ordered, hidden
zone hand: per player, ordered, public

card type Number:
    rank: number

cards Number in deck:
    | name  | rank | copies |
    | "One" | 1    | 3      |
    | "Two" | 2    | 3      |

define twice(x) as x + x
define both(a, b) as a * 10 + b
define size(xs) as count(xs) + count(xs)

setup:
    shuffle deck
    set seat 1's points to twice(random number from 1 to 100)
    set seat 2's points to both(random number from 1 to 9, random number from 1 to 9)
    set seat 1's points to size(players where it's points > 0) + size(cards in deck where rank > 1)
    set seat 2's points to twice(LAST)
'''


def _bound_game(last):
    from cardsmith.dsl.loader import check_source
    from cardsmith.dsl.source import Source
    game, diags, _ = check_source(Source("bound.cards", BOUND.replace("LAST", last)))
    assert game is not None, [d.message for d in diags]
    return game


def _play_bound(game, inline, monkeypatch):
    from cardsmith.interpreter.errors import GameAborted
    with monkeypatch.context() as mp:
        if not inline:
            mp.setattr(ExprGen, "inline_define", lambda self, name, d, types, args, g, nns=None: None)
        try:
            eng = run_game(game, 2, 3, log=True)
        except GameAborted as err:
            return "aborted", str(err), None
    return json.dumps(eng.m.log.events, sort_keys=True, default=str), eng.result, eng.m.st.work


@pytest.mark.parametrize("last, where", [("1", None), ("seat 3's points", "bound.cards:28:34: there is no player 3"),
                                         ("(top card of seat 2's hand).rank", "bound.cards:19:")])
def test_an_argument_that_is_not_a_variable_is_evaluated_once_in_order(last, where, monkeypatch):
    """Random draws (the generator's state), the work a list charges, an argument's error (seat 3
    of 2) and the body's (none + none): the same written in place as called; and the calls with
    such arguments are written in place."""
    game = _bound_game(last)
    inlined = _play_bound(game, True, monkeypatch)
    assert inlined == _play_bound(_bound_game(last), False, monkeypatch)
    if last == "1":
        assert inlined[0] != "aborted" and "points becomes" in inlined[0]
        src = "\n".join(program_for(game).pool.sources)
        assert "twice" not in src and not re.search(r"_d\d+\(m, \{", src), src
    else:
        assert inlined[0] == "aborted" and where in inlined[1], inlined
