"""The triggers of a moment, found and ordered the short ways (interpreter/triggers.py):

* an event's `over` (`_collector`: the loop over a moment's parameter sets written into the
  generated function) finds what its `collect` finds called for each set in turn: the same
  entries, cards, seats and envs (key order included), in the same order, or the same error;
* `_sorter` (the order keys written out) orders as `Triggers._order_by_keys` does;
* `_lean` leaves out only what cannot change a condition's truth;
* an event announced on a machine that keeps nothing of it (`quiet_events`) plays as before: a
  game with the log on, with a tally or a scenario's history is unchanged (tests/test_flow_start.py,
  test_log_equality.py); here, the same game with and without the log fires the same triggers.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter import triggers
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import program_for

ROOT = Path(__file__).resolve().parents[1]
GAMES = ["games/space_war_in_space.cards", "games/battlefield_space.cards", "games/the_space_war.cards",
         "games/space_race.cards", "games/eve_war_for_new_eden.cards", "tests/games/event_soup.cards",
         "tests/games/double_shield.cards", "tests/games/signal_fires.cards", "tests/games/waiting_triggers.cards",
         "tests/games/stubborn_spells.cards", "tests/games/warded_moves.cards",
         "tests/games/standing_bonuses.cards", "tests/games/windfalls.cards", "tests/games/relics.cards"]
# games where several triggers of a moment are ordered: by printed fields, a computed key (space_race), seats
ORDERED = ["games/battlefield_space.cards", "tests/games/event_soup.cards", "games/space_race.cards",
           "tests/games/signal_fires.cards", "tests/games/sharpshooters.cards", "tests/games/waiting_triggers.cards"]


def _outcome(fn, *args):
    try:
        fired = fn(*args)
    except Exception as exc:        # noqa: BLE001 -- compared, not swallowed
        return ("error", type(exc).__name__, str(exc))
    return [(entry, c, seat, env, list(env)) for entry, c, seat, env in fired]


@pytest.mark.parametrize("path", GAMES)
def test_over_finds_what_collect_finds_for_each_parameter_set(path, monkeypatch):
    made = triggers._collector
    calls = [0]

    def checking(prog, entries):
        fn = made(prog, entries)
        if fn is None:
            return None
        over = fn.over

        def loop(m, param_sets):
            fired: list = []
            for params in param_sets:
                fn(m, params, fired)
            return fired

        def both(m, param_sets):
            work = m.st.work            # a condition may count work: each way counts it from the same start
            want = _outcome(loop, m, param_sets)
            m.st.work = work
            got = _outcome(over, m, param_sets)
            assert got == want, (path, entries[0].ability.event, param_sets)
            calls[0] += 1
            return over(m, param_sets) if want and want[0] == "error" else [f[:4] for f in got]
        fn.over = both
        return fn

    monkeypatch.setattr(triggers, "_collector", checking)
    game = load_game(str(ROOT / path))
    for players in sorted({game.min_players, min(game.max_players, 4)}):
        for seed in range(2):
            run_game(game, players, seed, log=seed == 0)
    if program_for(game).triggers and "eve_war" not in path:
        assert calls[0], path


@pytest.mark.parametrize("path", ORDERED)
def test_the_written_out_order_is_the_keys_order(path, monkeypatch):
    order = triggers.Triggers._order
    calls = [0]

    def checking(m, fired):
        work = m.st.work
        want = triggers.Triggers._order_by_keys(m, fired)
        m.st.work = work
        got = order(m, fired)
        assert [f[:3] for f in got] == [f[:3] for f in want], path
        assert all(a[3] is b[3] for a, b in zip(got, want))
        calls[0] += 1
        return got
    monkeypatch.setattr(triggers.Triggers, "_order", checking)
    game = load_game(str(ROOT / path))
    for players in sorted({game.min_players, min(game.max_players, 4)}):
        for seed in range(3):
            run_game(game, players, seed, log=False)
    assert calls[0], path


def test_lean_leaves_out_only_what_cannot_change_the_test():
    lean = triggers._lean
    assert lean("(True if ((_p['card'] == _c)) and ((None if _c is None else m.cards[_c].get('x'))) else False)",
                "card") == "m.cards[_c].get('x')"
    assert lean("(True if ((_p['card'] == _c)) and (_seat == 1) else False)", None) == \
        "_p['card'] == _c and _seat == 1"                          # not pinned: kept
    assert lean("(_p['card'] == _c)", "card") == "True"
    assert lean("(_p['other'] == _c)", "card") == "_p['other'] == _c"
    # only `_c` and `_seat` are known never to be None; a value context keeps `True if ... else False`
    assert lean("(None if _t is None else _t + 1) == (None if _seat is None else _k1[_seat])") == \
        "(None if _t is None else _t + 1) == _k1[_seat]"
    assert lean("f(True if a else False)") == "f(True if a else False)"
    # a string that spells the pattern is a string
    assert lean("_c == '(None if _c is None else 1)'") == "_c == '(None if _c is None else 1)'"


@pytest.mark.parametrize("path", ["games/battlefield_space.cards", "games/space_war_in_space.cards",
                                  "tests/games/event_soup.cards"])
def test_the_same_triggers_fire_with_the_log_on_and_off(path, monkeypatch):
    fire = triggers.Triggers._fire
    seen: list = []

    def noting(m, plan, event, fired, span):
        seen.append((event, [(f[0].code_id, f[1], f[2]) for f in fired]))
        return fire(m, plan, event, fired, span)
    monkeypatch.setattr(triggers.Triggers, "_fire", noting)
    game = load_game(str(ROOT / path))
    for seed in range(3):
        on = run_game(game, 2, seed, log=True)
        with_log, seen[:] = list(seen), []
        off = run_game(game, 2, seed, log=False)
        assert seen == with_log and on.result == off.result
        assert off.m.quiet_events and not on.m.quiet_events.keys() & on.prog.decls.events.keys()
        seen.clear()
