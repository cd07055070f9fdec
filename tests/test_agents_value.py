"""`value for p as ...` through the front end: parsed, checked as a number for a player, said
in the rulebook; and the command line's agents (`play --agent/--agents`, `simulate --agents`)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardsmith.dsl import ast as A
from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import load_game
from cardsmith.dsl.publish import english as E
from cardsmith.dsl.publish.words import make_ctx
from cardsmith.interpreter.agents import AgentSpecError, parse_agent, parse_agents, seat_agents
from cardsmith.interpreter.cli import main
from cardsmith.interpreter.greedy import GreedyAgent
from cardsmith.interpreter.ismcts import ISMCTSAgent

ROOT = Path(__file__).resolve().parent.parent
DUEL = ROOT / "tests" / "games" / "high_card_duel.cards"

HEAD = '''game "V":
    players: 2 to 2
player has:
    score: number = 0
zone hand: per player, owner only
round "R":
    first(players) wins
'''


def codes(tmp_path, text: str) -> list[tuple[str, int]]:
    path = tmp_path / "v.cards"
    path.write_text(text)
    with pytest.raises(CardsmithError) as err:
        load_game(str(path))
    return [(d.code, d.span.line) for d in err.value.diagnostics]


def test_the_value_is_parsed_into_the_model():
    value = load_game(str(DUEL)).decls.value
    assert isinstance(value, A.ValueDecl) and value.player == "p"
    assert isinstance(value.expr, A.Arith)


def test_the_value_must_be_a_number(tmp_path):
    assert codes(tmp_path, HEAD + "value for p as p\n") == [("E0408", 8)]


def test_the_value_knows_its_player_and_no_other_name(tmp_path):
    found = codes(tmp_path, HEAD + "value for p as q's score\n")
    assert found and found[0][1] == 8


def test_you_is_the_player_in_the_value(tmp_path):
    path = tmp_path / "v.cards"
    path.write_text(HEAD + "value for p as your score - count(cards in p's hand)\n")
    assert load_game(str(path)).decls.value is not None


def test_a_game_has_one_value(tmp_path):
    assert ("E0102", 9) in codes(tmp_path, HEAD + "value for p as p's score\nvalue for p as 1\n")


def test_the_rulebook_says_what_the_computer_players_play_for():
    game = load_game(str(DUEL))
    text = E.describe_value(game.decls.value, make_ctx(game.decls))
    assert text.startswith("The computer players judge how well a player stands by ")
    assert "score" in text and "hand" in text and "not a rule" in text


# ---------------------------------------------------------------- agents by name


@pytest.mark.parametrize("spec, expected", [
    ("random", ("random", {})), ("greedy", ("greedy", {})), ("ISMCTS", ("ismcts", {})),
    ("ismcts:500", ("ismcts", {"iterations": 500})), ("ismcts:250ms", ("ismcts", {"milliseconds": 250})),
])
def test_agent_names(spec, expected):
    assert parse_agent(spec) == expected


@pytest.mark.parametrize("spec", ["psychic", "ismcts:0", "ismcts:fast", "greedy:10", "ismcts:-3", "ismcts:²"])
def test_unknown_agent_names_are_refused(spec):
    with pytest.raises(AgentSpecError):
        parse_agent(spec)


def test_one_agent_per_seat_or_one_for_all():
    assert parse_agents("ismcts,random", 2) == ["ismcts", "random"]
    assert parse_agents("greedy", 3) == ["greedy"] * 3
    with pytest.raises(AgentSpecError, match="3 seats"):
        parse_agents("greedy,random", 3)
    agents = seat_agents(["ismcts:7", "greedy"], 5)
    assert isinstance(agents[0], ISMCTSAgent) and agents[0].iterations == 7 and agents[0].seed == 5000
    assert isinstance(agents[1], GreedyAgent) and agents[1].seed == 5001


def test_play_with_agents_per_seat(capsys):
    assert main(["play", str(DUEL), "--agents", "ismcts:10,greedy", "--seed", "4", "--quiet"]) == 0
    first = capsys.readouterr().out
    assert main(["play", str(DUEL), "--agents", "ismcts:10,greedy", "--seed", "4", "--quiet"]) == 0
    assert capsys.readouterr().out == first         # the same seeds replay the same game
    assert main(["play", str(DUEL), "--agent", "greedy", "--seed", "4", "--quiet"]) == 0


@pytest.mark.parametrize("argv, says", [
    (["play", str(DUEL), "--agent", "psychic"], "unknown agent 'psychic'"),
    (["simulate", str(DUEL), "--agents", "ismcts:x"], "must be a whole number of iterations"),
])
def test_a_bad_agent_is_a_usage_error(argv, says, capsys):
    assert main(argv) == 2
    assert says in capsys.readouterr().err


def test_the_number_of_agents_must_match_the_seats(capsys):
    assert main(["simulate", str(DUEL), "--agents", "greedy,random,random", "-n", "2"]) == 1
    assert "3 agents for 2 seats" in capsys.readouterr().err


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_simulate_with_agents_per_seat(jobs, capsys):
    assert main(["simulate", str(DUEL), "--agents", "greedy,random", "-n", "6", "--jobs", jobs,
                 "--json", "--no-progress"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["agents"] == ["greedy", "random"] and stats["finished"] == 6
