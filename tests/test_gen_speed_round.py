"""The generated code's cuts of issue 9's last round (interpreter/compile_stmt.py, blocks.py,
gen_expr.py): each is written as the test says, and the fused run plays, counts its steps, stops
at the step bound and locates its errors as the one-closure-at-a-time run does."""
from __future__ import annotations

import json

import pytest

from cardsmith.dsl.loader import check_source
from cardsmith.dsl.source import Source
from cardsmith.interpreter.errors import GameAborted
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import program_for

GAME = '''game "Round cuts":
    players: 2 to 3

player has:
    points: number = 0
    rounds: number = 0

event gained(p: player)

zone box: shared, ordered, hidden
zone deck: per player, ordered, hidden
zone pile: per player, ordered, public

card type Chip:
    value: number
    when gained where p = you and this is in cards in your pile:
        bump(you, value)
        tally(value)
        maybe_gain(you)

cards Chip in box:
    | name   | value | copies |
    | "Chip" | 1     | 9      |
    | "Coin" | 2     | 3      |

procedure bump(p, d):
    "Flat: pasted with its parameters as variables."
    add d to p's points

procedure tally(d):
    "Flat, pasted with its env: it reads you (`$you` passed on)."
    add d to your rounds

procedure maybe_gain(p):
    "Not flat (it announces what a trigger answers); its body under one if that reads only p (peeled)."
    if p's points < LIMIT:
        add 1 to your points
        announce gained(p)

define side(p) as [p's deck, p's pile]
define sides() as side(seat 1) + side(seat 2)

setup:
    shuffle box
    repeat 19 times:
        add 1 to seat 2's points
    for each c in cards in box:
        add value of c to seat 1's points
    for each p in players:
        repeat 4 times:
            move top card of box to p's deck face down

round "Round":
    step "Draw":
        for each p in players:
            repeat 2 times:
                if p's deck is not empty:
                    move top card of p's deck to p's pile face up
    step "Gain":
        for each p in players:
            announce gained(p)
    step "Keep":
        for each p in players:
            if p's pile is not empty:
                p chooses c from cards in p's pile, prompt "Back to the deck?"
                move c to p's deck face down
    if count(cards in seat 1's pile) + count(cards in seat 2's deck) > 30 or count(cards in sides() where it is a Chip) > 30:
        seat 2 wins
    if first(players)'s points > 60 or first(players)'s rounds > 60:
        first(players) wins
'''


LISTENER = """
    when step_ended where step = "Gain" and this is in cards in your pile:
        add 1 to your rounds
"""


def _game(limit="20", listen=False):
    text = GAME.replace("LIMIT", limit)
    if listen:      # a rule answers a step's end: it is announced (`Machine.end_step`), its pc set first
        text = text.replace("\ncards Chip in box:", LISTENER + "\ncards Chip in box:")
    game, diags, _ = check_source(Source("cuts.cards", text))
    assert game is not None, [d.message for d in diags]
    return game


def _play(game, fused: bool, players=2, seed=0, max_steps=None, log=True):
    was = Machine.fused
    Machine.fused = fused
    try:
        eng = run_game(game, players, seed, log=log, max_steps=max_steps)
        st = eng.m.st
        return json.dumps({"log": eng.m.log.events if log else None, "zones": st.zones, "players": st.players,
                           "steps": st.steps, "result": eng.result}, sort_keys=True, default=str)
    except GameAborted as err:
        return f"aborted: {err}"
    finally:
        Machine.fused = was


def _sources(game, code_name: str) -> str:
    run_game(game, 2, 0, log=False)
    return "\n".join(fn.source for code in program_for(game).codes if code.name.startswith(code_name)
                     for fn in code.fast if fn is not None and getattr(fn, "source", None))


@pytest.mark.parametrize("listen", [False, True])
@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("log", [True, False])
def test_fused_plays_as_one_at_a_time(players, log, listen):
    game = _game(listen=listen)
    for seed in range(3):
        assert _play(game, True, players, seed, log=log) == _play(game, False, players, seed, log=log)


@pytest.mark.parametrize("listen", [False, True])
def test_the_step_bound_stops_on_the_same_instruction(listen):
    game = _game(listen=listen)
    full = json.loads(_play(game, False))["steps"]
    for bound in (full // 3, full // 2 + 1, full - 2):
        fused, one = _play(game, True, max_steps=bound), _play(game, False, max_steps=bound)
        assert fused == one and fused.startswith("aborted")


def test_an_ability_passes_you_and_this_in_the_display():
    """A card type's ability always has `$you` and `$this` (ExprGen.in_ability): its calls put them
    in the callee's env as the display is built, not by a test of each."""
    game = _game()
    src = _sources(game, "Chip")
    assert "'$you' in env" not in src and "'$this' in env" not in src
    # a call run by `call_in` / pushed, and the peeled guard's rebuilt env
    assert "'$you': env['$you'], '$this': env['$this']}" in src
    assert "'p': _pv100, '$you': env['$you'], '$this': env['$this']}" in src


def _pick(n, k):
    return (n * 7 + 3) % k


@pytest.mark.parametrize("listen", [False, True])
def test_a_save_at_any_decision_goes_on_as_the_game_did(listen):
    """Saved at decisions inside the "Keep" step (after steps whose start and end set no pc on
    their plain paths), restored, and played on: the same end as the game played through."""
    from cardsmith.interpreter.engine import Engine
    game = _game(listen=listen)
    whole = Engine(game, 2, 4)
    total = 0
    while whole.pending is not None:
        whole.decide(_pick(total, len(whole.pending.options)))
        total += 1
    assert total > 3
    for stop in range(0, total, max(1, total // 6)):
        eng = Engine(game, 2, 4)
        for n in range(stop):
            eng.decide(_pick(n, len(eng.pending.options)))
        again = Engine.restore(game, eng.save_json())
        n = stop
        while again.pending is not None:
            again.decide(_pick(n, len(again.pending.options)))
            n += 1
        assert again.result == whole.result
        assert again.m.st.to_dict() == whole.m.st.to_dict()


def test_a_plain_step_start_and_end_set_no_pc():
    """`Snippet.lazy`: `fr.pc` is set only where `begin_step` / `end_step` is called (a rule
    listens, a scenario waits); the plain ways run without it, and the jump into a step's start
    sets none either (blocks._writes_pc_first reads through it)."""
    src = _sources(_game(), "round")
    assert src.count("if m.plain_steps:") >= 3          # (a block pasted where it is reached)
    for name in ("Draw", "Gain", "Keep"):
        before = src.split(f"if m.st.skips and {name!r} in m.st.skips:")[0].rstrip().splitlines()[-1]
        assert not before.lstrip().startswith("fr.pc ="), before
    begins = src.split("if m.plain_steps:")
    for after in begins[1:]:
        lines = after.splitlines()
        assert lines[3].strip() == "else:" and lines[4].strip().startswith("fr.pc = ")
        assert lines[5].strip().startswith("_w = m.begin_step(")
    ends = src.split("if 'step_ended' not in m.listened:")
    assert len(ends) >= 4
    for after in ends[1:]:
        lines = after.splitlines()
        assert lines[1].strip() == "_t = m.st.step_path" and lines[3].strip() == "else:"
        assert lines[4].strip().startswith("fr.pc = ") and lines[5].strip().startswith("_w = m.end_step(")
        assert not lines[6].strip().startswith("fr.pc =")      # the next step's start sets none


# `a + b`'s bound written as two tests of its variable (gen_expr.g_Arith), not a chained comparison
ARITH = {
    "too large, below": ("    set note to (0 - big) * big", "MAX_RUNTIME_NUMBER"),
    "too large, below, maybe none": ("    set note to held(seat 2) - big * big", "MAX_RUNTIME_NUMBER"),
    "too large, above, maybe none": ("    set note to held(seat 2) + big * big", "MAX_RUNTIME_NUMBER"),
    "at the bound": ("    set note to big * 1000 - 1 + 1", "note becomes 1000000000000000000"),
    "at the bound below": ("    set note to 0 - big * 1000", "note becomes -1000000000000000000"),
    "none": ("    set note to held(seat 3) - 1", "arithmetic met 'none'"),
}


@pytest.mark.parametrize("case", sorted(ARITH))
def test_the_bound_of_a_sum_is_tested_as_before(case, monkeypatch):
    """Both ways alike, as test_gen_expr_checks plays its cases, and written as two tests."""
    import test_gen_expr_checks as checks
    monkeypatch.setitem(checks.CASES, case, ARITH[case])
    checks.test_generated_checks_raise_what_the_closures_raise(case)
    game, _, _ = check_source(Source("checks.cards", checks.GAME.replace("BODY", ARITH[case][0])))
    checks._play(game, 2, 1, True)
    src = "\n".join(program_for(game).pool.sources)
    assert " <= 1000000000000000000 and _r" in src and "-1000000000000000000 <= (" not in src


def test_a_loop_counts_its_passes_down():
    """A block whose last jump goes back to its start goes round at most LOOPS passes in one call,
    counted down to 0 (`_l<pc> -= 1`, `if _l<pc>:`), and leaves for the run loop after them."""
    from cardsmith.interpreter.blocks import LOOPS
    import re
    src = _sources(_game(), "setup")
    heads = re.findall(r"(_l[0-9]+) = ([0-9]+)\n( +)while True:", src)
    assert heads and all(int(n) == LOOPS for _, n, _ in heads)
    for name, _, _ in heads:
        assert f"{name} -= 1\n" in src and f"if {name}:\n" in src
        assert f"{name} += 1" not in src
    eng = run_game(_game(), 2, 0, log=False)
    assert eng.m.players[1]["points"] >= 19      # 19 passes: three calls of the block


def test_a_for_each_keeps_its_index_and_list_in_variables():
    """`Snippet.carried`: a `for each` reads its index and list from the env once, before the
    `while True:` of a block that goes round it, and writes the index back at each pass."""
    import re
    src = _sources(_game(), "setup")
    found = re.findall(r"(_fi[0-9]+) = env\['(\$i[0-9]+)'\]\n +(_fl[0-9]+) = env\['\$list[0-9]+'\]\n +_l[0-9]+ = [0-9]+\n +while True:\n"
                       r" +if (_fi[0-9]+) < len\((_fl[0-9]+)\):", src)
    assert found, src
    for fi, idx, fl, fi2, fl2 in found:
        assert (fi, fl) == (fi2, fl2)
        assert f"env['{idx}'] = {fi} = {fi} + 1" in src
    eng = run_game(_game(), 2, 0, log=True)
    # the box's 12 cards, 9 worth 1 and 3 worth 2, each added once (the block called twice)
    assert "Player 1's points becomes 15" in [e["text"] for e in eng.m.log.events]


def test_a_zone_of_a_seat_every_game_has_is_its_key():
    """`seat 1's pile` (and a define's `p's deck` given `seat 2`): the key bound by a name, not
    the seat's list of keys indexed at run time (ExprGen.seat_const)."""
    game = _game()
    src = _sources(game, "round")
    ns = program_for(game).pool.ns
    keys = {ns[n]: n for n in ns if n.startswith("_k") and ns[n].__class__ is str}
    for key in ("pile:0", "deck:1", "deck:0", "pile:1"):
        assert key in keys, key
    assert f"m.zones[{keys['pile:0']}]" in src and f"m.zones[{keys['deck:1']}]" in src
    # (the define's lists of them, walked, are one tuple: the next test)


def test_a_join_of_seats_zones_walked_is_one_tuple():
    """`cards in sides() where ...` (`side(seat 1) + side(seat 2)`, each a list of a seat's zones):
    the zones walked are one tuple made as the code is built (ExprGen.fixed_keys), not two lists
    and their join made at every walk."""
    game = _game()
    src = _sources(game, "round")
    ns = program_for(game).pool.ns
    walked = [n for n in ns if n.startswith("_k") and ns[n] == ("deck:0", "pile:0", "deck:1", "pile:1")]
    assert len(walked) == 1 and f"_charged_zones(m, {walked[0]}, " in src
