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

import pytest

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
    texts, which the collector stops tracking (a move of several cards holds tuples of them: the
    collection after the one that stops tracking those stops tracking it)."""
    log = run_game(_game(), 2, 7, log=True).event_log
    assert any(len(r) == 11 for r in log._pending)      # (such a move)
    gc.collect()
    gc.collect()
    tracked = sum(map(gc.is_tracked, log._pending))
    assert len(log._pending) > 300 and tracked == 0


TILES = ROOT / "tests" / "games" / "tiered_tiles.cards"
CARAVANS = ROOT / "tests" / "games" / "caravans.cards"


def _written(eng) -> tuple:
    """What a game's log gives its readers: the whole log as written, and each player's."""
    return eng.log_jsonl(), [eng.log_seen_by(p) for p in range(eng.m.n_players)]


def _played(game, players, seed, before=None, **options):
    """A game played by the random bots, `before(engine)` applied first."""
    eng = Engine(game, players=players, seed=seed, log=True, **options)
    if before is not None:
        before(eng)
    agents = [RandomAgent(seed * 1000 + s) for s in range(players)]
    while not eng.finished:
        d = eng.pending
        eng.decide(agents[d.player].choose(eng.view(d.player), d))
    return eng


def _watched(eng) -> None:
    """Make the machine take its general move (as if a rule listened to cards moving): the one-card
    move only the log watches (`EventLog.moved`) is then recorded by `EventLog.move`."""
    eng.m.move_triggers = True


@pytest.mark.parametrize("path", [SPACE_WAR, PRIVATE_LOOK, TILES], ids=lambda p: p.stem)
def test_a_move_only_the_log_watches_is_written_as_the_general_move_writes_it(path):
    game = _game(path)
    moved = 0
    for seed in range(4):
        fast = _played(game, 2, seed)
        moved += sum(1 for e in fast.log if e["event"] == "move" and len(e["cards"]) == 1)
        assert _written(fast) == _written(_played(game, 2, seed, _watched)), seed
    assert moved > 10


def test_the_log_only_move_is_taken_and_names_hidden_cards_to_their_seers_only(monkeypatch):
    calls = []
    moved = EventLog.moved

    def counted(self, *args):
        calls.append(args[1])
        return moved(self, *args)

    monkeypatch.setattr(EventLog, "moved", counted)
    eng = _played(_game(), 2, 3)
    assert len(calls) > 100            # the machine's one-card move that only the log watches
    log = eng.event_log
    hidden = [i for i, e in enumerate(log.events) if e["event"] == "move" and e["hidden"] and i in log._parts]
    assert hidden                      # face down to the battlefield: nobody may read the name
    e = log.events[hidden[0]]
    for p in range(2):
        mine = {x["n"]: x for x in log.seen_by(p)}[e["n"]]
        assert e["cards"][0] not in mine["text"] and mine["text"].startswith("a card from ")


def test_a_move_of_several_cards_records_what_emit_writes():
    """A move of several cards keeps their numbers and zones; the event read is the one `emit`
    makes from the data and text written out."""
    game = _game()
    eng = Engine(game, players=2, seed=1, log=True)
    m = eng.m
    log = m.log
    key = next(k for k, held in m.zones.items() if len(held) > 3)
    cards = m.zones[key][-3:]
    dest = next(k for k in m.zone_info if k.startswith("discard:"))
    span = next(iter(game.decls.procedures.values())).span
    start = len(log)
    size = log.bytes
    log.move(m, cards, [key] * 3, dest, "bottom", "up", span)
    fast = log.events[start]
    general = EventLog(True, eng.player_names)
    names = [m.card_names[c] for c in cards]
    general.emit(m, "move", span, {"cards": names, "from": [key], "to": dest, "face": "up", "hidden": False},
                 f"3 cards from {log.zone_name(m, key)} to the bottom of {log.zone_name(m, dest)} face up",
                 weight=sum(map(len, names)) + 4 * 3 + 16)
    slow = general.events[0]
    assert fast["text"] == f"3 cards from {key} to the bottom of {eng.player_names[0]}'s discard face up"
    assert {k: v for k, v in fast.items() if k != "n"} == {k: v for k, v in slow.items() if k != "n"}
    assert list(fast) == list(slow)
    assert log.bytes - size == general.bytes        # the same count toward MAX_LOG_BYTES


@pytest.mark.parametrize("path", [SPACE_WAR, CARAVANS], ids=lambda p: p.stem)
def test_a_declared_events_words_made_once_are_those_made_each_time(path, monkeypatch):
    """`announced` makes an event's words once per values (`_words`); with none kept (each made
    anew) the log and each player's log are the same, the hidden names included."""
    game = _game(path)
    made = [_written(_played(game, 2, seed)) for seed in range(3)]
    monkeypatch.setattr("cardsmith.interpreter.log._MAX_WORDS", 0)
    fresh = _game(path)             # another program: nothing made for it yet
    for seed in range(3):
        assert _written(_played(fresh, 2, seed)) == made[seed], seed
    assert fresh.decls.events       # (the game declares events)


def test_words_shared_by_the_games_of_a_program_follow_the_players_names():
    """The words made once are kept with the program for each list of player names: a game of
    other names writes its own, and a game played after others writes what a first game writes."""
    game = _game()
    first = _written(_played(_game(), 2, 5))
    for seed in range(3):
        _played(game, 2, seed)
    named = _played(game, 2, 5, player_names=["Ann", "Bob"])
    assert "Ann" in named.log_jsonl() and "Player 1" not in named.log_jsonl()
    assert _written(_played(game, 2, 5)) == first
    renamed = named.log_jsonl().replace("Ann", "Player 1").replace("Bob", "Player 2")
    assert renamed == first[0]
