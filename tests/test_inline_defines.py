"""A define's body written in place of its call in generated code (ExprGen.inline_define): when
every argument is a variable and the body reads nothing of the caller's frame. Which calls are
written in place, which stay calls, and that games play the same, log for log, either way."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.gen_expr import ExprGen
from cardsmith.interpreter.play import run_game

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
    assert _calls(eng, "ahead") > 0             # `seat 1` is not a variable


def _log(path, seed, players, inline, monkeypatch):
    with monkeypatch.context() as mp:
        if not inline:
            mp.setattr(ExprGen, "inline_define", lambda self, name, d, types, args, g: None)
        eng = run_game(load_game(str(path)), players, seed, log=True)   # a fresh Game, a new program
    return json.dumps(eng.m.log.events, sort_keys=True, default=str), eng.result


def test_without_inlining_every_call_stays(inlined, monkeypatch):
    with monkeypatch.context() as mp:
        mp.setattr(ExprGen, "inline_define", lambda self, name, d, types, args, g: None)
        eng = run_game(load_game(str(inlined)), 2, 1, log=False)
        assert _calls(eng, "strength") > 0


@pytest.mark.parametrize("which", ["inlined", "space_war", "battlefield"])
def test_a_game_plays_the_same_with_defines_inlined_as_called(which, inlined, monkeypatch):
    path = {"inlined": inlined, "space_war": SPACE_WAR, "battlefield": BATTLEFIELD}[which]
    for players in ((2, 3) if which == "inlined" else (2,)):
        for seed in range(4 if which == "battlefield" else 10):
            assert _log(path, seed, players, True, monkeypatch) == _log(path, seed, players, False, monkeypatch), \
                (which, players, seed)
