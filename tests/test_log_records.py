"""The log's records written without dicts (issue 9: log on costs at most 2x log off).

`EventLog.to_jsonl` writes the records not yet read straight to JSON lines (a move's line and a
one-datum event's by a template); `emit1` and `begins` record an event with one datum without
a dict; a move of several cards finds its words by where each card came from. Each must write
what the general way writes: the dicts `events` makes, encoded by `json.dumps(sort_keys=True,
ensure_ascii=False)`, and, for a record, the event `emit` makes from the same data and text.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.log import EventLog
from cardsmith.interpreter.play import run_game

ROOT = Path(__file__).resolve().parents[1]
GAMES = [ROOT / "games" / "space_war_in_space.cards", ROOT / "games" / "battlefield_space.cards",
         ROOT / "tests" / "games" / "private_look.cards", ROOT / "tests" / "games" / "tiered_tiles.cards",
         ROOT / "tests" / "games" / "caravans.cards", ROOT / "tests" / "games" / "seen_cards.cards",
         ROOT / "tests" / "games" / "event_soup.cards"]


def _dumped(events) -> str:
    return "".join(json.dumps(e, sort_keys=True, ensure_ascii=False) + "\n" for e in events)


@pytest.mark.parametrize("path", [p for p in GAMES if p.exists()], ids=lambda p: p.stem)
def test_lines_written_from_the_records_are_those_of_the_events_read(path):
    game = load_game(str(path))
    for seed in range(3):
        log = run_game(game, 2, seed, log=True).event_log
        assert log._pending and not log._events
        half = len(log) // 2
        direct = log.to_jsonl()             # from the records: nothing read yet
        assert log._pending and not log._events
        whole = _dumped(log.events)
        assert direct == whole, seed
        assert log.to_jsonl() == whole      # from the dicts
        assert log.to_jsonl(half) == "".join(whole.splitlines(True)[half:])
        assert log.to_jsonl(len(log)) == ""


def test_a_reader_going_on_from_where_it_stopped_gets_each_line_once():
    """`to_jsonl(start)` past the events read makes the rest dicts (once), so a reader that goes
    on from where it stopped does not walk every record again; the lines are those of the whole."""
    game = load_game(str(GAMES[0]))
    whole = run_game(game, 2, 4, log=True).log_jsonl()
    eng = Engine(game, players=2, seed=4, log=True)
    from cardsmith.interpreter.agents import RandomAgent
    agents = [RandomAgent(4 * 1000 + s) for s in range(2)]
    lines, seen = [], 0
    while not eng.finished:
        lines.append(eng.event_log.to_jsonl(seen))
        seen = len(eng.event_log)
        d = eng.pending
        eng.decide(agents[d.player].choose(eng.view(d.player), d))
    lines.append(eng.event_log.to_jsonl(seen))
    assert "".join(lines) == whole


def test_a_record_of_an_unexpected_class_is_written_as_its_dict():
    """A template writes only the classes it knows; a value of another class (a flag where a
    number was, a name that is not a str) goes through the encoder, as its dict would."""
    log = run_game(load_game(str(GAMES[0])), 2, 1, log=True).event_log
    recs = log._pending
    i = next(i for i, r in enumerate(recs) if len(r) == 12)
    recs[i] = (recs[i][0], True) + recs[i][2:]              # round True: "true", not "1"
    j = next(j for j, r in enumerate(recs) if len(r) == 8)
    recs[j] = recs[j][:7] + (7,)                            # a number where a name was
    k = next(k for k, r in enumerate(recs) if len(r) == 11)
    recs[k] = recs[k][:9] + (None, recs[k][10])             # no facing: ""
    direct = log.to_jsonl()
    assert direct == _dumped(log.events)
    assert '"round": true' in direct


def _machine():
    game = load_game(str(GAMES[0]))
    eng = Engine(game, players=2, seed=1, log=True)
    return eng, eng.m, next(iter(game.decls.procedures.values())).span


def test_a_one_datum_event_records_what_emit_writes():
    eng, m, span = _machine()
    fast, general = EventLog(True, eng.player_names), EventLog(True, eng.player_names)
    for key, value, text in (("round", 3, "round 3: Contest"), ("zone", "deck:0", "Player 1's deck is shuffled"),
                             ("player", None, "nobody's turn"), ("text", "x", "a datum named as a field")):
        m.log = fast
        fast.emit1(m, "said", span, key, value, text)
        m.log = general
        general.emit(m, "said", span, {key: value}, text)
    a, b = fast.events, general.events
    assert [{k: v for k, v in e.items() if k != "n"} for e in a] == [{k: v for k, v in e.items() if k != "n"} for e in b]
    assert [list(e) for e in a] == [list(e) for e in b]     # the same keys in the same order
    assert fast.bytes == general.bytes                      # the same count toward MAX_LOG_BYTES


def test_a_step_begins_records_what_emit_writes():
    eng, m, span = _machine()
    fast, general = EventLog(True, eng.player_names), EventLog(True, eng.player_names)
    m.st.step_path.append("Reveal")     # as `begins`' callers do, just before (Machine.begin_step)
    m.log = fast
    fast.begins(m, "step", "Reveal", span)
    fast.begins(m, "step", "Reveal", span)
    m.log = general
    for _ in range(2):
        general.emit(m, "step", span, {"name": "Reveal"}, "step Reveal begins")
    assert [{k: v for k, v in e.items() if k != "n"} for e in fast.events] == \
        [{k: v for k, v in e.items() if k != "n"} for e in general.events]
    assert fast.bytes == general.bytes


def test_moves_of_several_cards_from_several_zones_write_their_counts_and_zones():
    """The words of a move of several cards are found by where each card came from: another
    count or another order of zones is another text and another list of zones."""
    eng, m, span = _machine()
    log = m.log
    a = next(k for k, held in m.zones.items() if len(held) > 4)        # (the log does not move them)
    dest = next(k for k in m.zone_info if k.startswith("discard:"))
    b = next(k for k in m.zone_info if k not in (a, dest))
    cards_a, cards_b = m.zones[a][-3:], m.zones[a][-5:-3]
    cases = [(cards_a[:2], [a, a]), (cards_a, [a, a, a]), (cards_a[:1] + cards_b[:1], [a, b]),
             (cards_b[:1] + cards_a[:1], [b, a]), (cards_a[:2], [a, a])]
    start, size = len(log), log.bytes
    for cards, sources in cases:
        log.move(m, cards, sources, dest, "top", None, span)
    got = log.events[start:]
    general = EventLog(True, eng.player_names)
    for cards, sources in cases:
        names = [m.card_names[c] for c in cards]
        uniq = list(dict.fromkeys(sources))
        src = log.zone_name(m, uniq[0]) if len(uniq) == 1 else f"{len(uniq)} zones"
        general.emit(m, "move", span, {"cards": names, "from": uniq, "to": dest, "face": "", "hidden": False},
                     f"{len(cards)} cards from {src} to {log.zone_name(m, dest)}",
                     weight=sum(map(len, names)) + 4 * len(names) + 16 * len(uniq))
    want = general.events
    assert [{k: v for k, v in e.items() if k != "n"} for e in got] == \
        [{k: v for k, v in e.items() if k != "n"} for e in want]
    assert log.bytes - size == general.bytes                # the same count toward MAX_LOG_BYTES
    assert got[2]["text"].startswith("2 cards from 2 zones") and got[3]["from"] == [b, a]


def test_a_declared_events_line_is_cut_around_its_own_fields():
    """A declared event's line is made once per words, cut around the event's own fields (which
    change from event to event); a parameter with a field's name (`text`, `round`) or a list
    value is written as its dict would be."""
    from cardsmith.interpreter.log import _Words, _segments
    eng, m, span = _machine()
    log = EventLog(True, eng.player_names)
    m.log = log
    for data in ({"name": "won", "winner": "Player 1", "card": "Bolt \"the\" \\ one"},
                 {"name": "said", "text": "over the field's", "zz": [1, "a"]},
                 {"name": "at", "round": 4}, {"name": "e", "aa": [], "zz": None, "mid": True}):
        words = _Words((data, "the text", 10, ("the text",), ()))
        log._pending.append((len(log) + 1, 2, "event", "x.cards:1:1", "Reveal", "the text"))
        log._data.append(words)
    assert _segments({"name": "said", "text": "x"}) == () and len(_segments({"name": "e"})) == 7
    direct = log.to_jsonl()
    assert direct == _dumped(log.events)
    assert '"text": "over the field\'s"' in direct


def test_moves_of_several_cards_write_the_same_once_their_words_are_full(monkeypatch):
    """`_groups` (words by each card's zone) and `_group_tails` (by the zones met) are bounded by
    _MAX_WORDS; past it a move makes its words each time, the same words."""
    path = GAMES[0]
    made = [run_game(load_game(str(path)), 2, seed, log=True).event_log.to_jsonl() for seed in range(3)]
    monkeypatch.setattr("cardsmith.interpreter.log._MAX_WORDS", 1)
    fresh = load_game(str(path))          # another program: nothing made for it yet
    for seed in range(3):
        log = run_game(fresh, 2, seed, log=True).event_log
        assert len(log._groups) <= 1 and len(log._group_tails) <= 1
        assert log.to_jsonl() == made[seed], seed
