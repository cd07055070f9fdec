"""The event log kept cheaply (issue 9: log on costs at most 2x log off; bench/bench_log.py).

While a game runs, each event is recorded as a tuple of numbers and texts (its data beside it)
and becomes a dict only when the log is read (`EventLog.events`); a move of one card is
recorded without building its dict or text parts at all. These tests hold the lazy log equal
to what a reader sees whenever it reads, the one-card move's record equal to the general one,
and the records out of the garbage collector's way. That the bytes written are those of the
runtime before is tests/test_log_equality.py's (and bench/log_equality.py's) proof.
"""
from __future__ import annotations

import gc
import json
from pathlib import Path

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.agents import RandomAgent
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.log import EventLog
from cardsmith.interpreter.play import run_game

ROOT = Path(__file__).resolve().parents[1]
SPACE_WAR = ROOT / "games" / "space_war_in_space.cards"
PRIVATE_LOOK = ROOT / "tests" / "games" / "private_look.cards"


def _game(path=SPACE_WAR):
    return load_game(str(path))


def test_reading_as_the_game_goes_gives_the_log_read_at_the_end():
    game = _game()
    whole = run_game(game, 2, 11, log=True).event_log
    eng = Engine(game, players=2, seed=11, log=True)
    agents = [RandomAgent(11 * 1000 + s) for s in range(2)]
    seen: list = []
    reads = 0
    while not eng.finished:
        seen.extend(eng.log[len(seen):])          # what a printer reads after each decision
        reads += 1
        d = eng.pending
        eng.decide(agents[d.player].choose(eng.view(d.player), d))
    seen.extend(eng.log[len(seen):])
    assert reads > 5
    assert seen == whole.events
    assert [e["n"] for e in seen] == list(range(1, len(seen) + 1))


def test_the_log_counts_its_events_without_making_them_dicts():
    log = run_game(_game(), 2, 3, log=True).event_log
    assert log._pending and not log._events         # nothing read yet
    n = len(log)
    assert n == log._pending.__len__() and n > 100
    assert len(log.events) == n and not log._pending


def test_jsonl_is_json_dumps_of_each_event_with_sorted_keys():
    log = run_game(_game(), 2, 5, log=True).event_log
    lines = [json.dumps(e, sort_keys=True, ensure_ascii=False) + "\n" for e in log.events]
    assert log.to_jsonl() == "".join(lines)
    assert log.to_jsonl(len(lines) - 3) == "".join(lines[-3:])
    assert log.to_jsonl(len(lines)) == ""


def test_a_one_card_move_records_what_the_general_move_writes():
    """EventLog.move records a one-card move itself; the event it makes is the one `emit` makes
    from the same data and text."""
    game = _game()
    eng = Engine(game, players=2, seed=1, log=True)
    m = eng.m
    log = m.log
    key = next(k for k, held in m.zones.items() if held)        # the box, before the decks are dealt
    card = m.zones[key][-1]
    dest = next(k for k in m.zone_info if k.startswith("discard:"))
    assert m.zone_info[dest][0].visibility == "public"
    span = next(iter(game.decls.procedures.values())).span
    start = len(log)
    log.move(m, [card], [key], dest, "top", "up", span)
    fast = log.events[start]
    general = EventLog(True, eng.player_names)
    m.log = general
    try:
        name = m.card_names[card]
        general.emit(m, "move", span, {"cards": [name], "from": [key], "to": dest, "face": "up", "hidden": False},
                     [log.card(m, card), f" from {log.zone_name(m, key)} to {log.zone_name(m, dest)} face up"],
                     weight=len(name) + 20)
    finally:
        m.log = log
    slow = general.events[0]
    assert {k: v for k, v in fast.items() if k != "n"} == {k: v for k, v in slow.items() if k != "n"}
    assert list(fast) == list(slow)                 # the same keys in the same order


def test_a_card_moved_where_only_its_owner_sees_it_is_named_to_them_alone():
    game = _game(PRIVATE_LOOK)
    for seed in range(6):
        log = run_game(game, 2, seed, log=True).event_log
        moves = [i for i, e in enumerate(log.events) if e["event"] == "move" and len(e["cards"]) == 1
                 and e["hidden"]]
        if not moves:
            continue
        hidden = [i for i in moves if i in log._parts]
        assert hidden, "a move into a hidden zone keeps its text's parts"
        i = hidden[0]
        name = log.events[i]["cards"][0]
        seers = log._parts[i][0].seers
        for p in range(2):
            mine = {e["n"]: e for e in log.seen_by(p)}[log.events[i]["n"]]
            assert (name in mine["text"]) == (p in seers)
        return
    raise AssertionError("no game of private_look moved one card into a hidden zone")


def test_the_records_are_not_watched_by_the_garbage_collector():
    """A long log must not make every collection scan it: its records hold only numbers and
    texts, which the collector stops tracking."""
    log = run_game(_game(), 2, 7, log=True).event_log
    gc.collect()
    tracked = sum(map(gc.is_tracked, log._pending))
    assert len(log._pending) > 300 and tracked == 0
