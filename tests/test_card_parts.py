"""Parts of a card (issue 14, item 4; docs/language.md, "Parts of a card"): `parts belts
"Asteroid Belt": 2` in a card type gives every card of the type its own belts, as many as its
table row says, each with its own values of the parts' fields. Played by tests/games/card_parts.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from cardsmith.dsl.loader import check_source, load_game
from cardsmith.dsl.source import Source
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.scenario import run_scenario

GAMES = Path(__file__).resolve().parent / "games"
PARTS = str(GAMES / "card_parts.cards")
HEAD = 'game "T":\n    players: 2 to 2\n'
TYPE = ("card type System:\n    tier: number = 1\n    parts belts \"Asteroid Belt\": 2\n"
        "        built: flag = no\n        discount: number = 0, at most 3\nzone map: shared, public\n")


def _scenarios():
    path = GAMES / "card_parts.scenarios.cards"
    for s in load_game(str(path)).decls.scenarios:
        yield pytest.param(path, s.name, id=s.name)


@pytest.mark.parametrize(("path", "name"), list(_scenarios()))
def test_scenarios_pass(path, name):
    result = run_scenario(load_game(str(path)), name)
    assert result.ok, "\n".join(result.failures)


@pytest.fixture(scope="module")
def game():
    return load_game(PARTS)


def _play(game, seed: int) -> Engine:
    eng = Engine(game, 2, seed)
    rng = random.Random(seed)
    while not eng.finished:
        eng.decide(rng.randrange(len(eng.pending.options)))
    return eng


def test_each_card_starts_with_its_own_count_of_parts(game):
    by_name = {cd.name: cd.values for cd in game.cards}
    assert by_name["Jita"]["belts"] == 3
    assert by_name["Amamake"]["belts"] == 2          # an empty cell: the declared number
    assert by_name["Vale"]["belts"] == 0
    assert by_name["Jita"]["belts.3.discount"] == 0 and by_name["Jita"]["belts.3.built"] is False
    assert "belts.3.built" not in by_name["Amamake"] and "belts.1.built" not in by_name["Vale"]


def test_a_part_is_chosen_by_its_label_and_set_in_the_log(game):
    eng = Engine(game, 2, 1)
    pending = eng.pending
    assert pending.player == 0 and pending.prompt == "Build on which belt?"
    # every belt of Jita was unlocked this turn, none built yet: all three are offered
    assert pending.options == ["Jita's Asteroid Belt 1", "Jita's Asteroid Belt 2", "Jita's Asteroid Belt 3"]
    eng.decide(1)
    texts = [ev["text"] for ev in eng.log]
    assert "Player 1 chooses Jita's Asteroid Belt 2 (Build on which belt?)" in texts
    assert "Jita's Asteroid Belt 2's built becomes yes" in texts
    jita = next(cd.id for cd in game.cards if cd.name == "Jita")
    assert eng.state.cards[jita]["belts.2.built"] is True
    assert eng.state.cards[jita]["belts.1.built"] is False
    # the next choice of the same player offers only the two belts still open
    while eng.pending.player != 0:
        eng.decide(0)
    assert eng.pending.options == ["Jita's Asteroid Belt 1", "Jita's Asteroid Belt 3"]


def test_games_are_deterministic_and_saves_keep_parts(game):
    a, b = _play(game, 7), _play(game, 7)
    assert a.log_jsonl() == b.log_jsonl()
    eng = Engine(game, 2, 3)
    eng.decide(0)
    saved = eng.save_json()
    back = Engine.restore(game, json.loads(saved))
    assert back.state.to_dict() == eng.state.to_dict()
    for e in (eng, back):
        while not e.finished:
            e.decide(len(e.pending.options) - 1)
    assert back.state.cards == eng.state.cards
    assert back.state.result == eng.state.result


@pytest.mark.parametrize("seed", range(20))
def test_random_games_end_with_parts_within_their_bounds(game, seed):
    eng = _play(game, seed)
    assert eng.finished
    for c in eng.state.cards:
        for i in range(1, c["belts"] + 1):
            assert 0 <= c[f"belts.{i}.discount"] <= 3
            assert not c[f"belts.{i}.built"] or c[f"belts.{i}.unlocked"]


def test_the_rulebook_lists_parts(game):
    from cardsmith.dsl.publish.rulebook import build_book, render
    text = render(build_book(game, examples=False), "md")
    assert "Every System has 2 belts unless its card says how many" in text
    assert "**Fields of each Asteroid Belt of a System**" in text
    assert "**Jita** — tier 1; 3 belts" in text
    assert "For each *b* in *s*'s belts that is not marked “unlocked”" in text


@pytest.mark.parametrize(("source", "code", "line"), [
    (TYPE.replace("parts belts", "parts tier"), "E0135", 5),
    (TYPE.replace("parts belts \"Asteroid Belt\": 2", "parts belts: 101"), "E0135", 5),
    (TYPE.replace("        discount", "        built: number = 0\n        discount"), "E0135", 7),
    (TYPE + "cards System in map:\n    | name | belts |\n    | Jita | 101 |\n", "E0530", 11),
    (TYPE + "cards System in map:\n    | name | belts |\n    | Jita | -1 |\n", "E0530", 11),
    (TYPE + 'card "Jita": System in map\n    belts = "x"\n', "E0530", 9),
    (TYPE + "setup:\n    for each s in cards in map:\n        set s's belts to 1\n", "E0410", 11),
    (TYPE + "setup:\n    for each s in cards in map:\n        for each b in belts of s:\n"
            "            set b's bilt to yes\n", "E0402", 12),
])
def test_bad_parts_are_located_errors(source, code, line):
    _, diags, _ = check_source(Source("game.cards", HEAD + source))
    assert [d.code for d in diags] == [code], [str(d) for d in diags]
    assert diags[0].span.line == line and diags[0].hint


def test_a_card_block_gives_its_own_count():
    text = HEAD + TYPE + 'card "Jita": System in map\n    belts = 4\n'
    g, diags, _ = check_source(Source("game.cards", text))
    assert diags == []
    assert g.cards[0].values["belts"] == 4 and g.cards[0].values["belts.4.discount"] == 0
