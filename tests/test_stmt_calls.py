"""A procedure called from code the engine starts with an empty env (the setup, a round, an end
check, a scenario), or from a procedure only such code calls, passes no `$you` / `$this` on:
nothing there sets them, so the tests that would copy them are left out (compile_stmt.py
`s_CallStmt`, `_closable`, `_open_code`); a code that sets `$you` (a secret choice) or is called
from an ability keeps them at every call, those written before it included."""
from __future__ import annotations

import json

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import program_for

HEAD = '''
game "Calls":
    players: 2 to 3
    summary: "Procedures called from a round, before and inside a secret choice."

player has:
    score: number = 0

game has:
    turns: number = 0

zone pile: shared, ordered, public
zone hand: per player, unordered, owner only

card type Chip:
    rank: number
    when moved where card = this and to_zone = your hand:
        if count(cards in your hand) < 3:
            pass_on(you)

cards Chip in pile:
    | name    | rank | copies |
    | "One"   | 1    | 6      |
    | "Two"   | 2    | 6      |

procedure deal(p):
    move top card of pile to p's hand

procedure credit(n):
    add n to your score

procedure pass_on(p):
    deal(p)

procedure relay(p):
    deal(p)

setup:
    shuffle pile
    for each p in players:
        pass_on(p)

'''
SECRET = HEAD + '''
round "Pick":
    add 1 to turns
    for each p in players:
        deal(p)
    each player in players secretly chooses c from cards in your hand, prompt "Pick":
        credit(rank of c)
        move c to pile
    if turns >= 4:
        first(players sorted by it's score highest first) wins
'''
PLAIN = HEAD + '''
round "Deal":
    add 1 to turns
    for each p in players:
        deal(p)
        relay(p)
    if turns >= 4:
        seat 1 wins
'''


def _game(tmp_path, text):
    path = tmp_path / "calls.cards"
    path.write_text(text)
    return load_game(str(path))


def _end(game, players, seed, fused, log):
    was = Machine.fused
    Machine.fused = fused
    try:
        eng = run_game(game, players, seed, log=log)
    finally:
        Machine.fused = was
    st = eng.m.st
    return json.dumps({"zones": st.zones, "players": st.players, "steps": st.steps, "result": eng.result,
                       "log": eng.m.log.events}, sort_keys=True, default=str)


def _sources(game, code_name: str) -> str:
    run_game(game, 2, 0, log=False)
    return "\n".join(fn.source for code in program_for(game).codes if code.name == code_name
                     for fn in code.fast if fn is not None and getattr(fn, "source", None))


@pytest.mark.parametrize("text", [SECRET, PLAIN], ids=["secret", "plain"])
def test_calls_run_as_the_closures_do(tmp_path, text):
    game = _game(tmp_path, text)
    for players in (2, 3):
        for seed in range(3):
            for log in (False, True):
                assert _end(game, players, seed, True, log) == _end(game, players, seed, False, log)


def test_a_secret_choice_credits_the_chooser(tmp_path):
    eng = run_game(_game(tmp_path, SECRET), 2, 0, log=False)
    assert sum(p["score"] for p in eng.m.players) > 0


def _passes_on(game, code_name: str) -> list:
    """For each call in the code, whether it passes `$you` on: tested (`if '$you' in env`), or, in
    a card type's ability, where it is always there, put in the display itself."""
    code = next(c for c in program_for(game).codes if c.name == code_name)
    return ["if '$you' in env: _i['$you'] = env['$you']" in snip.lines
            or snip.lines[0].startswith("_i = {") and snip.lines[0].endswith("'$you': env['$you'], '$this': env['$this']}")
            for snip in code.srcs
            if snip is not None and any(not isinstance(line, str) and line[0] == "call" for line in snip.lines)]


def test_a_round_passes_nothing_on(tmp_path):
    game = _game(tmp_path, PLAIN)
    assert "_i = {'p': " in _sources(game, "round Deal")
    assert "'$you' in env" not in _sources(game, "round Deal")
    assert _passes_on(game, "round Deal") == [False, False]
    assert _passes_on(game, "setup") == [False]
    assert _passes_on(game, "procedure relay") == [False]       # called only from the round
    # called from an ability (and from the setup): it passes them on
    assert _passes_on(game, "procedure pass_on") == [True]
    ability = next(c.name for c in program_for(game).codes if c.name.startswith("Chip"))
    assert _passes_on(game, ability) == [True]


def test_a_round_with_a_secret_choice_passes_you_on(tmp_path):
    game = _game(tmp_path, SECRET)
    code = next(c for c in program_for(game).codes if c.name == "round Pick")
    calls = [snip.lines for snip in code.srcs if snip is not None and any(
        not isinstance(line, str) and line[0] == "call" for line in snip.lines)]
    assert len(calls) == 2          # deal(p) before the secret choice, credit(...) inside it
    assert all("if '$you' in env: _i['$you'] = env['$you']" in lines for lines in calls)
