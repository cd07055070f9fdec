"""What gen_expr knows of a rule's locals and of a modifier's registers (H3, issue 9).

A local bound only by `let`s whose values are never none and hold no none (`let fighters be
players`, `let fighters be fighters where ...`) is read without those tests (`ExprGen.local_facts`);
a local with any other binding, or one `let` that may be none or hold none, keeps every test.
A modifier's `$this` / `$you` are never none (Machine._mod_table), so its functions test neither,
and a field of `this` read by each element of a comprehension is read once before it
(`ExprGen.hoisted`). Each game plays the same fused and as closures (`Machine.fused = False`).
"""
from __future__ import annotations

import json
import re

import pytest

from cardsmith.dsl.loader import check_source
from cardsmith.dsl.source import Source
from cardsmith.interpreter.errors import GameAborted
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import program_for

GAME = '''game "Locals":
    players: 2 to 3

player has:
    bonus: number = 0

game has:
    zero: number = 0
    note: number = 0

zone deck: shared, ordered, hidden
zone hand: per player, ordered, public
zone table: per player, ordered, public

card type Unit:
    rank: number
    kin: number = 0

cards Unit in deck:
    | name    | rank | kin | copies |
    | "One"   | 1    | 1   | 3      |
    | "Two"   | 2    | 1   | 2      |
    | "Three" | 3    | 0   | 2      |

define power(p) as (top card of p's hand).rank + p's bonus

procedure judge(fighters):
    set note to highest(power(p) for each p in fighters)

procedure show(p):
    set note to count(cards in p's hand) + (top card of p's table).rank + power(p)

setup:
    shuffle deck
    for each p in players:
        move top card of deck to p's hand
        move top card of deck to p's hand
        move top card of deck to p's table

round "Play":
BODY
'''

CASES = {
    # every binding a list of players: no test of none on the list or its elements
    "players": ("    let fighters be players\n"
                "    let best be highest(power(p) for each p in fighters)\n"
                "    let fighters be fighters where power(it) = best\n"
                "    set note to count(fighters)\n"
                "    end the game\n", True),
    # a `let` that may hold none: the tests stay, and the error is the closure's
    "a none inside": ("    let fighters be players\n"
                      "    let fighters be [first(players where zero > 1)]\n"
                      "    set note to highest(power(p) for each p in fighters)\n"
                      "    end the game\n", False),
    # a procedure's parameter: unknown (its caller's list may hold none), the closure's error
    "a parameter": ("    judge([first(players where zero > 1)])\n"
                    "    end the game\n", False),
    # a parameter every call of which passes a loop's player: known, in the procedure too
    "a parameter from a loop": ("    for each p in players:\n"
                                "        show(p)\n"
                                "    end the game\n", "p"),
}


def _play(game, players, seed, fused):
    was = Machine.fused
    Machine.fused = fused
    try:
        eng = run_game(game, players, seed, log=True)
        return json.dumps(eng.m.log.events, sort_keys=True, default=str), eng.result
    except GameAborted as err:
        return "aborted", str(err)
    finally:
        Machine.fused = was


def _game(body):
    src = GAME.replace("BODY", body)
    if "end the game" in body:
        src = src.replace("    end the game\n", "    set zero to 0\n") + "\nas soon as note > 0:\n    seat 1 wins\n"
    game, diags, _ = check_source(Source("locals.cards", src))
    assert game is not None, [d.message for d in diags]
    return game


@pytest.mark.parametrize("case", sorted(CASES))
def test_locals_play_the_same_both_ways(case):
    body, known = CASES[case]
    game = _game(body)
    for players in (2, 3):
        for seed in range(3):
            assert _play(game, players, seed, True) == _play(game, players, seed, False), (case, players, seed)
    sources = "\n".join(program_for(game).pool.sources)
    elements_tested = re.search(r"_x\d+ is not None", sources) is not None
    if known == "p":        # (a define compiled alone, `_d..`, has a `p` of its own: unknown)
        rules = "\n".join(s for s in program_for(game).pool.sources if not s.startswith("def _d"))
        assert "env['p'] is not None" not in rules and "env['p'] is None" not in rules
    elif known:
        assert "_charged_list(m, env['fighters']" in sources and not elements_tested
    else:
        assert elements_tested
        assert _play(game, 2, 0, True)[0] == "aborted"


MODS = GAME.replace("    kin: number = 0\n", "    kin: number = 0\n\n"
                    "    modify rank of cards in zone of this where kin = this.kin and it is not this by 1"
                    " while kin = 1 and this is in your table\n"
                    "    modify bonus of you by count(cards in your hand where kin < this.kin) while this is in your table\n")


def test_modifiers_read_this_once_and_untested():
    src = MODS.replace("BODY", "    for each p in players:\n        move top card of deck to p's table\n"
                               "        set note to power(p) + (top card of p's table).rank\n"
                               "    set zero to zero + 1\n") + "\nas soon as zero > 3:\n    seat 1 wins\n"
    game, diags, _ = check_source(Source("mods.cards", src))
    assert game is not None, [d.message for d in diags]
    for players in (2, 3):
        for seed in range(4):
            assert _play(game, players, seed, True) == _play(game, players, seed, False), (players, seed)
    prog = program_for(game)
    mods = [e for entries in prog.modifiers.values() for e in entries]
    text = "\n".join(prog.pool.sources)
    assert "env['$this'] is None" not in text and "env['$you'] is None" not in text
    # `this.kin` once per comprehension, not per element
    assert "for _h" in text
    # `kin = 1` is fixed: the cards without it are left out, and the condition left is the rest
    assert len(mods) == 2 and mods[0].cond is not None


def test_a_field_of_the_top_card_reads_the_card_once():
    """`(top card of Z).field` is one test of Z's emptiness, none when it is empty, as before."""
    game = _game("    move cards in seat 1's table to seat 2's table\n"
                 "    set note to (top card of seat 2's table).rank + (bottom card of seat 2's table).kin\n"
                 "    set note to (top card of seat 1's table).rank\n"
                 "    end the game\n")
    for players in (2, 3):
        for seed in range(3):
            assert _play(game, players, seed, True) == _play(game, players, seed, False), (players, seed)
    sources = "\n".join(program_for(game).pool.sources)
    assert re.search(r"m\.cards\[_t\d+\[-1\]\]\['rank'\] if \(_t\d+ := ", sources)
    assert re.search(r"m\.cards\[_t\d+\[0\]\]\['kin'\] if \(_t\d+ := ", sources)
