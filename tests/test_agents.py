"""Agents: seeded random choice, strict scripted choice, a person at a terminal."""
from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass

import pytest

from cardsmith.interpreter.agents import (AgentError, HumanAgent, PlayerQuit, RandomAgent,
                                          ScriptedAgent, ScriptError, format_view, view_lines)


@dataclass
class Decision:
    """Stands in for the engine's Decision: the agents read only these four fields."""

    player: int
    prompt: str
    options: list[str]
    rule: str = "test.cards:1:1"


FACTION = Decision(0, "Choose your Faction", ["Dwarves", "Elves", "Goblins"])
TRIGGER = Decision(0, "Trigger Peace: call this Contest off?", ["yes", "no"])
VIEW = {
    "name": "Player 1",
    "faction": "Elves",
    "zones": {"deck": {"count": 18}, "powers": [{"name": "Peace", "side": "inactive"}]},
    "others": {"Player 2": {"deck": 20, "discard": ["Axe Pilot", "Scrap Rat"]}},
}


# ---------------------------------------------------------------- RandomAgent


def test_random_agent_is_reproducible_from_its_seed():
    first = [RandomAgent(42).choose(VIEW, FACTION) for _ in range(1)]
    a, b = RandomAgent(42), RandomAgent(42)
    assert [a.choose(VIEW, FACTION) for _ in range(50)] == [b.choose(VIEW, FACTION) for _ in range(50)]
    assert first == [RandomAgent(42).choose(VIEW, FACTION)]


def test_random_agent_seeds_differ():
    a, b = RandomAgent(1), RandomAgent(2)
    assert [a.choose(VIEW, FACTION) for _ in range(50)] != [b.choose(VIEW, FACTION) for _ in range(50)]


def test_random_agent_picks_every_option_about_equally():
    agent = RandomAgent(0)
    counts = Counter(agent.choose(VIEW, FACTION) for _ in range(3000))
    assert set(counts) == {0, 1, 2}
    assert all(900 <= n <= 1100 for n in counts.values()), counts


def test_random_agent_does_not_depend_on_the_view():
    a, b = RandomAgent(5), RandomAgent(5)
    assert [a.choose(VIEW, FACTION) for _ in range(20)] == [b.choose({}, FACTION) for _ in range(20)]


def test_random_agent_refuses_a_decision_without_options():
    with pytest.raises(AgentError, match="no options"):
        RandomAgent(0).choose(VIEW, Decision(0, "Pick", []))


# ---------------------------------------------------------------- ScriptedAgent


def test_scripted_agent_answers_by_index():
    agent = ScriptedAgent([2, 0])
    assert agent.choose(VIEW, FACTION) == 2
    assert agent.choose(VIEW, TRIGGER) == 0
    assert agent.answered == [("Choose your Faction", "Goblins"), ("Trigger Peace: call this Contest off?", "yes")]


def test_scripted_agent_answers_by_label():
    agent = ScriptedAgent(["Elves", "no"])
    assert agent.choose(VIEW, FACTION) == 1
    assert agent.choose(VIEW, TRIGGER) == 1
    assert agent.remaining == []


def test_scripted_agent_mixes_indices_and_labels_in_order():
    agent = ScriptedAgent(["Dwarves", 1])
    assert [agent.choose(VIEW, FACTION), agent.choose(VIEW, TRIGGER)] == [0, 1]


def test_scripted_agent_fails_when_the_script_runs_out():
    agent = ScriptedAgent(["Elves"])
    agent.choose(VIEW, FACTION)
    with pytest.raises(ScriptError) as caught:
        agent.choose(VIEW, TRIGGER)
    assert str(caught.value) == "the script has no answer for: Trigger Peace: call this Contest off?"


def test_scripted_agent_with_an_empty_script_fails_at_the_first_decision():
    with pytest.raises(ScriptError, match="the script has no answer for: Choose your Faction"):
        ScriptedAgent([]).choose(VIEW, FACTION)


def test_scripted_agent_rejects_a_label_that_is_not_an_option():
    with pytest.raises(ScriptError) as caught:
        ScriptedAgent(["Trolls"]).choose(VIEW, FACTION)
    message = str(caught.value)
    assert "'Trolls' is not an option for: Choose your Faction" in message
    assert "'Dwarves', 'Elves', 'Goblins'" in message


@pytest.mark.parametrize("answer", [3, -1])
def test_scripted_agent_rejects_an_index_out_of_range(answer):
    with pytest.raises(ScriptError, match="out of range for: Choose your Faction"):
        ScriptedAgent([answer]).choose(VIEW, FACTION)


@pytest.mark.parametrize("answer", [True, 1.0, None])
def test_scripted_agent_rejects_answers_that_are_neither_index_nor_label(answer):
    with pytest.raises(ScriptError, match="neither an option number nor a label"):
        ScriptedAgent([answer]).choose(VIEW, FACTION)


def test_script_errors_are_agent_errors():
    assert issubclass(ScriptError, AgentError)


# ---------------------------------------------------------------- HumanAgent


def _human(answers: str) -> tuple[HumanAgent, io.StringIO]:
    out = io.StringIO()
    return HumanAgent(input=io.StringIO(answers), output=out), out


def test_human_agent_shows_the_view_prompt_and_numbered_options():
    agent, out = _human("2\n")
    assert agent.choose(VIEW, FACTION) == 1
    text = out.getvalue()
    assert "Player 1: what you see" in text
    assert "faction: Elves" in text
    assert "Peace (side inactive)" in text
    assert "discard: Axe Pilot, Scrap Rat" in text
    assert "Player 1: Choose your Faction" in text
    assert "  1. Dwarves\n  2. Elves\n  3. Goblins\n" in text


def test_human_agent_asks_again_after_bad_answers():
    agent, out = _human("seven\n0\n4\n\n3\n")
    assert agent.choose(VIEW, FACTION) == 2
    assert out.getvalue().count("Please answer with a number from 1 to 3.") == 4


def test_human_agent_accepts_an_option_label_ignoring_case():
    agent, _ = _human("  goblins \n")
    assert agent.choose(VIEW, FACTION) == 2


def test_human_agent_quits_on_q():
    agent, _ = _human("q\n")
    with pytest.raises(PlayerQuit, match="Player 1 left the game"):
        agent.choose(VIEW, FACTION)


def test_human_agent_fails_clearly_when_the_input_ends():
    agent, _ = _human("9\n")
    with pytest.raises(AgentError, match="the input ended before an answer to: Choose your Faction"):
        agent.choose(VIEW, FACTION)


def test_human_agent_shows_only_what_it_is_given():
    """The agent has no engine: what it prints comes from the view and the decision alone."""
    agent, out = _human("1\n")
    agent.choose({"name": "Player 2", "hand": ["Moss Hulk"]}, Decision(1, "Pick a card", ["Moss Hulk"]))
    text = out.getvalue()
    assert "Moss Hulk" in text
    assert "Player 1" not in text and "Elves" not in text


def test_human_agent_names_the_seat_when_the_view_has_no_name():
    agent, out = _human("1\n")
    agent.choose({}, Decision(2, "Go on?", ["yes"]))
    assert "Player 3: Go on?" in out.getvalue()


def test_human_agent_uses_rich_on_a_terminal():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    out = Terminal()
    agent = HumanAgent(input=io.StringIO("1\n"), output=out)
    assert agent.choose(VIEW, Decision(0, "Play [bold]this[/bold]?", ["[x] yes", "no"])) == 0
    text = out.getvalue()
    assert "╭" in text                       # a rich panel around the view
    assert "[bold]this[/bold]" in text       # prompt and labels are escaped, not markup
    assert "[x] yes" in text


# ---------------------------------------------------------------- the view as text


def test_view_lines_reads_like_a_list():
    assert view_lines(VIEW) == [
        "name: Player 1",
        "faction: Elves",
        "zones:",
        "  deck: count 18",
        "  powers:",
        "    - Peace (side inactive)",
        "others:",
        "  Player 2:",
        "    deck: 20",
        "    discard: Axe Pilot, Scrap Rat",
    ]


def test_view_lines_of_empty_and_nested_values():
    assert view_lines({"hand": [], "bonus": 0, "leader": True, "target": None}) == [
        "hand: (none)", "bonus: 0", "leader: yes", "target: none"]
    assert view_lines({"a": {"b": {"c": [1, 2]}}}) == ["a:", "  b:", "    c: 1, 2"]
    assert view_lines({"counts": {"deck": 3, "discard": 0}}) == ["counts: deck 3, discard 0"]


ENGINE_VIEW = {
    "you": 1, "round": 3,
    "players": [{"name": "Player 1", "out": False, "colour": "red", "score": 4},
                {"name": "Player 2", "out": False, "colour": "blue", "score": 2},
                {"name": "Player 3", "out": True, "colour": "green", "score": 0}],
    "game": {"first_flare": 9},
    "zones": {
        "box": {"zone": "box", "owner": None, "count": 2, "cards": None},
        "hand:0": {"zone": "hand", "owner": 0, "count": 2, "cards": [None, None]},
        "hand:1": {"zone": "hand", "owner": 1, "count": 2, "cards": ["Blue Spark", "Blue Blaze"]},
        "hand:2": {"zone": "hand", "owner": 2, "count": 0, "cards": []},
        "fire:1": {"zone": "fire", "owner": 1, "count": 3, "cards": ["Blue Flame", None, None]},
        "ash": {"zone": "ash", "owner": None, "count": 1, "cards": ["Red Spark"]},
    },
    "decision": {"prompt": "Pick a signal", "options": ["Blue Spark", "Blue Blaze"], "rule": "x:1:1"},
    "result": None,
}


def test_format_view_lays_out_the_engines_view_for_a_person():
    assert format_view(ENGINE_VIEW) == [
        "Round 3. You are Player 2.",
        "Players:",
        "  Player 1: colour red, score 4",
        "  Player 2 (you): colour blue, score 2",
        "  Player 3 (out): colour green, score 0",
        "Game: first flare 9",
        "Your zones:",
        "  hand: Blue Spark, Blue Blaze",
        "  fire: Blue Flame (and 2 hidden)",
        "Player 1's zones:",
        "  hand: 2 cards, hidden",
        "Player 3's zones:",
        "  hand: empty",
        "Shared zones:",
        "  box: 2 cards, hidden",
        "  ash: Red Spark",
    ]


def test_human_agent_names_the_seat_from_the_engines_view():
    agent, out = _human("2\n")
    decision = Decision(1, "Pick a signal", ["Blue Spark", "Blue Blaze"])
    assert agent.choose(ENGINE_VIEW, decision) == 1
    assert "Player 2: Pick a signal" in out.getvalue()
    assert "You are Player 2." in out.getvalue()
