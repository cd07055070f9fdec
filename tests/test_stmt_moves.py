"""The shapes of move a statement's generated code knows from the model (compile_stmt.py
`_move_source`, `_quiet_move`): `top card of Z` / `bottom card of Z` popped from Z's list, `cards
in Z` and `cards in every Z` taken by emptying those zones (the destination one of them, at the
top or the bottom), a shared destination (no owner) or a player's (its seat), leave the game, the
log and the tally exactly as `Machine.move` does (the closures call it: `Machine.fused = False`).
"""
from __future__ import annotations

import json

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import program_for
from cardsmith.interpreter.report import Tally

SHAPES = '''
game "Move Shapes":
    players: 2 to 3
    summary: "Cards move in every shape a move statement's generated code knows."

game has:
    turns: number = 0

zone pile: shared, ordered, public
zone deck: per player, ordered, hidden
zone row: per player, ordered, public
zone hand: per player, unordered, owner only

card type Chip:
    rank: number

cards Chip in pile:
    | name    | rank | copies |
    | "One"   | 1    | 4      |
    | "Two"   | 2    | 4      |
    | "Three" | 3    | 4      |
    | "Four"  | 4    | 4      |

setup:
    shuffle pile
    for each p in players:
        repeat 3 times:
            move top card of pile to p's deck
            move bottom card of pile to p's row face up

round "Shuffle about":
    add 1 to turns
    for each p in players:
        move cards in p's deck to bottom of p's deck
        move cards in p's row to p's row face down
        move top card of p's deck to bottom of p's deck
        move bottom card of p's row to pile
        move cards in every row to bottom of p's row face up
        move top card of pile to p's hand
        move cards in every row to p's deck
        move bottom card of p's deck to top of p's row face up
        move top card of p's deck to p's row
        move cards in p's hand to bottom of pile face down
        move top card of pile to bottom of p's deck
        move cards in pile to pile
        move cards in p's deck to pile face up
        move top card of pile to p's deck face down
        move bottom card of pile to p's deck
        move top card of pile to p's deck
        move top card of pile to p's row
    if turns >= 5:
        seat 1 wins
'''


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    path = tmp_path_factory.mktemp("shapes") / "shapes.cards"
    path.write_text(SHAPES)
    return load_game(str(path))


def _end(game, players, seed, fused, log, tally=None):
    was = Machine.fused
    Machine.fused = fused
    try:
        eng = run_game(game, players, seed, log=log, tally=tally)
    finally:
        Machine.fused = was
    st = eng.m.st
    return json.dumps({"zones": st.zones, "card_zone": st.card_zone, "face_up": st.face_up, "owner": st.owner,
                       "cards": st.cards, "rng": st.rng, "steps": st.steps, "result": eng.result,
                       "log": eng.m.log.events, "tally": tally.record(eng.m) if tally is not None else None},
                      sort_keys=True, default=str)


@pytest.mark.parametrize("players", [2, 3])
def test_every_shape_moves_as_machine_move_does(game, players):
    for seed in range(3):
        for log in (False, True):
            assert _end(game, players, seed, True, log) == _end(game, players, seed, False, log), (players, seed, log)
        for cards, log in ((True, False), (False, False), (True, True)):
            assert _end(game, players, seed, True, log, Tally(cards=cards)) == \
                _end(game, players, seed, False, log, Tally(cards=cards)), (players, seed, cards, log)


def test_the_shapes_are_written(game):
    run_game(game, 2, 0, log=False)
    src = "\n".join(fn.source for code in program_for(game).codes for fn in code.fast
                    if fn is not None and getattr(fn, "source", None))
    assert "_mh.pop()" in src and "_mh.pop(0)" in src            # top / bottom card of a zone
    assert "_mh.clear()" in src                                 # cards in a zone
    assert "for _ms in _mzs: _mz[_ms].clear()" in src           # cards in every zone
    assert "_mz[_k][:0] = _c[::-1]" in src                      # ... to the bottom
    assert "isinstance(_c, list)" not in src                    # the types say card or list
    assert "_k in m.plain" in src and "_mo is not None" not in src      # the seat known
