"""Events and statements the short ways (interpreter/triggers.py, interpreter/compile_stmt.py):

* a declared event announced where only triggers answer it and nothing keeps it is raised by a
  generated `announce` through its `one` (`Triggers.quiet_ones`: the values given, no dict made,
  no `announce_all` call), which finds what `over` finds for the same parameter set: the same
  entries, cards, seats and envs (key order included), in the same order, or the same error;
* `Triggers.quiet_cards` is the `get` of a dict kept beside `quiet_events` (no Python frame);
* every instruction of `each player ... secretly chooses` has a snippet (none is called as a
  closure from its block, none leaves it to jump back), and plays as its closures do.
"""
from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter import triggers
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import program_for

import both_ways

ROOT = Path(__file__).resolve().parents[1]
# games that announce declared events their cards' triggers answer
ANNOUNCING = ["games/space_war_in_space.cards", "games/space_race.cards", "tests/games/signal_fires.cards"]
SECRET = ["games/battlefield_space.cards", "games/the_space_war.cards", "tests/games/event_soup.cards",
          "tests/games/signal_fires.cards"]


def _outcome(fired):
    return [(entry, c, seat, env, list(env)) for entry, c, seat, env in fired]


@pytest.mark.parametrize("path", ANNOUNCING)
def test_one_finds_what_over_finds(path, monkeypatch):
    made = triggers._collector
    fire = triggers.Triggers._fire
    calls, seen = [0], []

    def checking(prog, entries):
        fn = made(prog, entries)
        one = getattr(getattr(fn, "over", None), "one", None)
        if one is None:
            return fn
        over, names = fn.over, list(prog.event_types(entries[0].ability.event))

        def checked(m, span, *values):
            work = m.st.work        # a condition may count work: each way counts it from the same start
            try:
                want = _outcome(over(m, [dict(zip(names, values))]))
            except Exception as exc:        # noqa: BLE001 -- compared, not swallowed
                want = ("error", type(exc).__name__, str(exc))
            m.st.work = work
            seen.clear()
            try:
                back = one(m, span, *values)
            except Exception as exc:        # noqa: BLE001 -- compared, then raised as the game would
                assert want == ("error", type(exc).__name__, str(exc)), (path, values)
                raise
            assert (_outcome(seen[0]) if seen else []) == want, (path, values)
            assert back is (True if want else None)
            calls[0] += 1
            return back
        fn.over = type(over)(over.__code__, over.__globals__, over.__name__, over.__defaults__, over.__closure__)
        fn.over.cards, fn.over.one = over.cards, checked
        return fn

    def noting(m, plan, event, fired, span):
        seen.append(list(fired))
        return fire(m, plan, event, fired, span)
    monkeypatch.setattr(triggers, "_collector", checking)
    monkeypatch.setattr(triggers.Triggers, "_fire", noting)
    game = load_game(str(ROOT / path))
    for players in sorted({game.min_players, min(game.max_players, 4)}):
        for seed in range(3):
            run_game(game, players, seed, log=False)
    assert calls[0], path


def test_a_declared_event_is_announced_through_one_where_nothing_keeps_it(monkeypatch):
    """Space War's `before_battle` and `battle_won`: `announce_all` raises each once (it makes the
    event's `quiet_events` entry, and its `one`); every later `announce` calls the `one`."""
    game = load_game(str(ROOT / "games/space_war_in_space.cards"))
    declared = set(program_for(game).decls.events)
    counted: dict = {}
    announce_all = triggers.Triggers.announce_all

    def counting(m, event, param_sets, span):
        if event in declared:
            counted[event] = counted.get(event, 0) + 1
        return announce_all(m, event, param_sets, span)
    monkeypatch.setattr(Machine, "announce_all", counting)
    eng = run_game(game, 2, 1, log=False)
    assert eng.m.st.round > 20
    assert {"before_battle", "battle_won"} <= set(eng.m.quiet_ones)
    assert all(n == 1 for n in counted.values()), counted
    counted.clear()
    # the log keeps them: each is announced by its logged `one` (the line, then the triggers)
    on = run_game(game, 2, 1, log=True)
    assert {"before_battle", "battle_won"} <= set(on.m.quiet_ones)
    assert all(n == 1 for n in counted.values()), counted
    lines = [e for e in on.event_log.events if e["event"] == "event" and e["name"] == "before_battle"]
    assert len(lines) >= on.m.st.round > 20


def test_quiet_cards_is_a_dict_lookup():
    game = load_game(str(ROOT / "games/battlefield_space.cards"))
    eng = run_game(game, 2, 1, log=False)
    m = eng.m
    assert inspect.isbuiltin(m.quiet_cards) and m.quiet_cards.__self__ is m._quiet_pins
    assert m.quiet_cards("revealed") == getattr(m.quiet_events["revealed"], "cards", None)
    assert m.quiet_cards("revealed") and m.quiet_cards("no such event") is None


def _play(game, players, seed, fused, log):
    return both_ways.play(game, players, seed, fused, log=log)


@pytest.mark.parametrize("path", SECRET)
def test_a_secret_choice_is_source_and_plays_as_its_closures(path):
    game = load_game(str(ROOT / path))
    prog = program_for(game)
    codes = [c for c in prog.codes if any(d and d[0] == "ask_secretly" for d in c.descs)]
    assert codes, path
    for code in codes:
        at = [pc for pc, d in enumerate(code.descs) if d and d[0] == "ask_secretly"]
        for pc in at:
            # from the `let` before the asks to the jump back after the body, every instruction
            end = next(p for p in range(pc, len(code.descs)) if code.descs[p][0] == "secret_next")
            back = next(p for p in range(end, len(code.descs)) if code.descs[p][0] == "jump"
                        and code.descs[p][1][0] == end)
            assert all(code.srcs[p] is not None for p in range(pc - 1, back + 1)), (path, code.name, pc)
    for players in sorted({game.min_players, min(game.max_players, 3)}):
        for seed in range(3):
            for log in (True, False):
                assert _play(game, players, seed, True, log) == _play(game, players, seed, False, log), \
                    (path, players, seed, log)


def test_a_written_out_move_tests_its_zone_before_the_machine_state():
    """`_quiet_move`: where the destination is not plain (public where `revealed` listens, capped)
    the move goes to `Machine.move` without reading `m.quiet` / `m.noted` first."""
    game = load_game(str(ROOT / "games/battlefield_space.cards"))
    prog = program_for(game)
    heads = [line.strip() for code in prog.codes for snip in code.srcs if snip is not None
             for line in snip.lines if isinstance(line, str) and "(_mq := m.quiet is m.st)" in line]
    assert heads
    assert all(h.startswith(("if _k in m.plain", "if (_mo := m.plain")) for h in heads), heads
