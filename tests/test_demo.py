"""`cardsmith demo`: an excerpt of one game chosen by its structure, and how to see the whole log.

The excerpt (interpreter/excerpt.py) is tested on made-up logs whose names mean nothing to
cardsmith (the choice is by structure alone: rounds, turns, steps, declared events,
eliminations), then on the bundled demo game through the command.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from cardsmith.interpreter.cli import format_event, main
from cardsmith.interpreter.excerpt import choose, split_units

ROOT = Path(__file__).resolve().parent.parent
SPACE_WAR = ROOT / "games" / "space_war_in_space.cards"
DUEL = ROOT / "tests" / "games" / "high_card_duel.cards"


def _log(rounds: int, *, extra: dict[int, list[dict]] | None = None, per_round: int = 4,
         unit: str = "round") -> list[dict]:
    """A made-up log: a setup event, then `rounds` units of `per_round` plain events, with the
    events `extra` names appended to some units; numbered as a real log is."""
    events = [{"event": "set", "text": "the table is laid"}]
    for r in range(1, rounds + 1):
        events.append({"event": unit, "round": r, "text": f"{unit} {r}: Bout"})
        events.append({"event": "step", "name": "Draw", "text": "step Draw begins"})
        for k in range(per_round - 2):
            events.append({"event": "move", "text": f"a card moves ({r}.{k})"})
        events.extend((extra or {}).get(r, []))
    events.append({"event": "game_over", "text": "Player 1 wins the game"})
    for n, event in enumerate(events, 1):
        event["n"] = n
    return events


def _heads(excerpt) -> list[tuple[str, str]]:
    return [(part.heading, part.reason) for part in excerpt.parts]


def test_setup_first_rounds_and_the_end():
    excerpt = choose(_log(50), first=3)
    assert _heads(excerpt) == [
        ("Setup", "before the first round"),
        ("round 1: Bout", "the first round"),
        ("round 2: Bout", "round 2 of 50"),
        ("round 3: Bout", "round 3 of 50"),
        ("round 50: Bout", "the last, with the end of the game")]
    last = excerpt.parts[-1]
    assert last.skipped_before == 46 and last.events_before == 46 * 4
    assert last.shown[-1]["event"] == "game_over"
    assert excerpt.total_units == 50 and excerpt.total_events == 1 + 50 * 4 + 1


def test_rare_features_pick_rounds_one_of_each_kind():
    """A nested step entered in rounds 12 and 30, a declared event in round 20, an elimination in
    round 40, and a step in every round (never rare): each rare kind's first round is shown."""
    side = {"event": "step", "name": "Sidetrack", "text": "step Sidetrack begins"}
    omen = {"event": "event", "name": "omen_seen", "text": "omen_seen (who: Player 2)"}
    out = {"event": "eliminate", "player": 1, "text": "Player 2 is eliminated"}
    excerpt = choose(_log(60, extra={12: [side], 30: [side], 20: [omen], 40: [out]}))
    assert _heads(excerpt)[4:7] == [
        ("round 12: Bout", 'the first with step "Sidetrack"'),
        ("round 20: Bout", "the first omen_seen event"),
        ("round 40: Bout", "the first elimination")]
    twelve = excerpt.parts[4]
    assert twelve.skipped_before == 8 and any(e and e["text"] == side["text"] for e in twelve.shown)


def test_a_feature_seen_in_the_first_rounds_is_not_shown_again():
    side = {"event": "step", "name": "Sidetrack", "text": "step Sidetrack begins"}
    excerpt = choose(_log(40, extra={2: [side], 25: [side]}))
    assert [h for h, _ in _heads(excerpt)] == ["Setup", "round 1: Bout", "round 2: Bout",
                                               "round 3: Bout", "round 40: Bout"]


def test_a_feature_in_most_rounds_is_not_rare():
    omen = {"event": "event", "name": "omen_seen", "text": "omen_seen"}
    excerpt = choose(_log(20, extra={r: [omen] for r in range(5, 21)}))
    assert len(excerpt.parts) == 5          # setup, three rounds, the last


def test_long_parts_are_cut_and_counted():
    """A round of 500 events shows at most `lines` of them, with the count of the others; the
    last round keeps its end; a notable round keeps its feature in view."""
    side = {"event": "step", "name": "Sidetrack", "text": "step Sidetrack begins"}
    filler = [{"event": "move", "text": f"filler {k}"} for k in range(300)]
    events = _log(30, per_round=500, extra={15: filler + [side] + filler})
    excerpt = choose(events, lines=40)
    for part in excerpt.parts:
        shown = [e for e in part.shown if e is not None]
        assert len(shown) <= 40
        assert len(shown) + part.cut == len(_unit_events(events, part))
    notable = next(p for p in excerpt.parts if p.reason.startswith("the first with step"))
    assert any(e is not None and e["text"] == side["text"] for e in notable.shown)
    assert excerpt.parts[-1].shown[-1]["event"] == "game_over"


def _unit_events(events, part):
    _, setup, units = split_units(events)
    if part.heading == "Setup":
        return setup
    return next(u for u in units if u[0]["text"] == part.heading)


def test_turns_when_there_are_no_rounds():
    excerpt = choose(_log(10, unit="turn"), first=2)
    assert excerpt.unit == "turn"
    assert [h for h, _ in _heads(excerpt)] == ["Setup", "turn 1: Bout", "turn 2: Bout", "turn 10: Bout"]


def test_a_log_without_rounds_or_turns_shows_its_ends():
    events = [{"n": i, "event": "move", "text": f"move {i}"} for i in range(1, 201)]
    excerpt = choose(events, lines=40)
    assert excerpt.unit == "event"
    first, last = excerpt.parts
    assert [e["n"] for e in first.shown] == list(range(1, 41))
    assert [e["n"] for e in last.shown] == list(range(181, 201))
    assert last.events_before == 140


def test_the_same_log_gives_the_same_excerpt():
    events = _log(80, extra={33: [{"event": "eliminate", "text": "Player 3 is eliminated"}]})
    assert choose(events) == choose([dict(e) for e in events])


# ---------------------------------------------------------------- the command


@pytest.fixture(scope="module")
def demo_output():
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["demo", "--file", str(SPACE_WAR), "-n", "4", "--jobs", "1"])
    return code, out.getvalue()


@pytest.fixture(scope="module")
def full_log():
    """The whole game as `cardsmith play` prints it, one line per event."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["play", str(SPACE_WAR), "--players", "4", "--seed", "1"]) == 0
    return [line for line in out.getvalue().splitlines() if re.match(r"^\s*\d+  ", line)]


def test_demo_is_an_excerpt_not_the_whole_log(demo_output, full_log):
    code, out = demo_output
    assert code == 0
    lines = out.splitlines()
    events_shown = [line for line in lines if re.match(r"^\s*\d+  ", line)]
    assert len(full_log) > 5000
    assert 60 <= len(events_shown) <= 400
    # every line shown is the whole log's line, in the same order
    at = 0
    for line in events_shown:
        at = full_log.index(line, at) + 1
    assert f"An excerpt of the game ({len(full_log):,} events" in out


def test_demo_shows_setup_first_rounds_a_nested_step_and_the_end(demo_output, full_log):
    _, out = demo_output
    assert "-- Setup  (before the first round)" in out
    assert "-- round 1: Contest  (the first round)" in out
    assert '(the first with step "War")' in out
    assert "step War begins" in out
    assert "rounds," in out and "events left out ..." in out
    assert "(the last, with the end of the game)" in out
    assert full_log[-1] in out                  # the game's last event: who won
    assert "wins after" in out


def test_demo_says_how_to_see_the_whole_log(demo_output, full_log):
    _, out = demo_output
    assert (f"The whole game ({len(full_log):,} events): cardsmith play {SPACE_WAR} "
            "--players 4 --seed 1") in out
    assert "--log game.jsonl" in out and "cardsmith demo --full" in out
    assert "4 games, 4 players" in out          # then the simulation, as before


def test_demo_full_prints_every_event(full_log, capsys):
    assert main(["demo", "--file", str(DUEL), "--players", "2", "-n", "2", "--jobs", "1", "--full"]) == 0
    whole = capsys.readouterr().out
    assert main(["play", str(DUEL), "--players", "2", "--seed", "1"]) == 0
    played = [line for line in capsys.readouterr().out.splitlines() if re.match(r"^\s*\d+  ", line)]
    shown = [line for line in whole.splitlines() if re.match(r"^\s*\d+  ", line)]
    assert shown == played and "An excerpt" not in whole


def test_demo_is_deterministic(demo_output, capsys):
    assert main(["demo", "--file", str(SPACE_WAR), "-n", "4", "--jobs", "1"]) == 0
    again = capsys.readouterr().out
    strip = lambda text: re.sub(r"\d+ games in [\d.]+ s: .*", "", text)   # noqa: E731 - timings differ
    assert strip(again) == strip(demo_output[1])


def test_format_of_a_cut_part():
    from cardsmith.interpreter.cli import print_excerpt
    import io

    filler = [{"event": "move", "text": f"filler {k}"} for k in range(100)]
    events = _log(5, extra={5: filler})
    out = io.StringIO()
    print_excerpt(events, out)
    text = out.getvalue()
    assert "events of this part left out ..." in text
    assert format_event(events[-1]) in text
