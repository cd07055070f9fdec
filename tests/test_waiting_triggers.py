"""Triggered abilities held on the stack (docs/language.md, "`stack`", "Triggered abilities on
the stack"): `holds triggered abilities [of T, ...]` puts them on the stack as items and raises
`triggered`, so a window after it lets the players answer them before they resolve. The
scenarios of tests/games/waiting_triggers.scenarios.cards prove the answer resolves first and
can negate or counter; here, what scenarios cannot see: the log's order, the checker's error,
and a game with no window after `triggered` playing as without the line."""
from __future__ import annotations

from pathlib import Path

import pytest

from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import load_game, load_text
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.scenario import run_scenario

GAMES = Path(__file__).resolve().parent / "games"
SOURCE = (GAMES / "waiting_triggers.cards").read_text()


@pytest.mark.parametrize("name", [s.name for s in load_game(str(GAMES / "waiting_triggers.scenarios.cards")).decls.scenarios])
def test_the_scenarios(name):
    result = run_scenario(load_game(str(GAMES / "waiting_triggers.scenarios.cards")), name)
    assert result.ok, "\n".join(result.failures)


def test_the_log_shows_the_beacon_waiting_and_the_lamp_resolving_first():
    result = run_scenario(load_game(str(GAMES / "waiting_triggers.scenarios.cards")),
                          "An answer to a waiting Beacon resolves before it")
    texts = [e["text"] for e in result.log]
    waits = texts.index("Beacon: triggered ability waits on the stack (1 deep)")
    assert texts[waits + 1] == "Player 1's lamps becomes 1"         # not held: at once
    assert texts[waits + 2] == "response window Answers opens"
    peek = texts.index("Peek: Peek resolves")
    assert peek < texts.index("Beacon: triggered ability resolves") < texts.index("Player 1's score becomes 3")


def test_without_a_window_after_triggered_the_line_changes_nothing():
    # the same lines, so the log's rule locations agree: the line becomes a sentence
    plain = SOURCE.replace("    holds triggered abilities of Beacon\n", '    "Nothing waits here."\n')
    assert plain != SOURCE
    logs = []
    for text in (SOURCE, plain):
        text = text.replace("opens after triggered, action_used", "opens after action_used")
        logs.append(run_game(load_text(text), 2, 5, log=True).m.log.events)
    assert logs[0] == logs[1]
    assert not any("waits on the stack" in str(e.get("text")) for e in logs[0])


def test_an_unknown_type_is_named_where_it_stands_with_a_fix():
    with pytest.raises(CardsmithError) as err:
        load_text(SOURCE.replace("holds triggered abilities of Beacon", "holds triggered abilities of Beacons"))
    (d,) = err.value.diagnostics
    assert (d.code, d.message, d.hint) == ("E0209", "unknown card type 'Beacons'", "did you mean 'Beacon'?")
    assert (d.span.line, d.span.column) == (23, 5)


def test_all_triggered_abilities_can_be_held():
    text = SOURCE.replace("holds triggered abilities of Beacon", "holds triggered abilities")
    log = run_game(load_text(text), 2, 5, log=True).m.log.events
    texts = [str(e.get("text")) for e in log]
    assert any(t.startswith("Lamp: triggered ability waits on the stack") for t in texts)
    assert any(t.startswith("Beacon: triggered ability waits on the stack") for t in texts)


def test_a_when_at_once_is_never_held():
    text = SOURCE.replace("holds triggered abilities of Beacon", "holds triggered abilities").replace(
        'card type Lamp:\n    when step_started where step = "Shine":',
        'card type Lamp:\n    when step_started where step = "Shine", at once:')
    assert "at once" in text
    texts = [str(e.get("text")) for e in run_game(load_text(text), 2, 5, log=True).m.log.events]
    assert any(t.startswith("Beacon: triggered ability waits on the stack") for t in texts)
    assert not any(t.startswith("Lamp: triggered ability") for t in texts)
    assert "Player 1's lamps becomes 1" in texts
