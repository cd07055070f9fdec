"""Every scenario in tests/games/*.cards (small games written for the tests alone) passes."""
import json
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.scenario import run_scenarios

GAMES = sorted((Path(__file__).parent / "games").glob("*.cards"))


def _cases():
    for path in GAMES:
        game = load_game(str(path))
        for decl in game.decls.scenarios:
            yield pytest.param(game, decl.name, id=f"{path.stem}: {decl.name}")


@pytest.mark.parametrize("game, name", list(_cases()))
def test_scenario(game, name):
    from cardsmith.interpreter.scenario import run_scenario
    result = run_scenario(game, name)
    assert result.ok, "\n".join(result.failures)


def test_every_test_game_has_scenarios():
    """In the game's own file, or in its `<name>.scenarios.cards` beside it (which extends it)."""
    assert GAMES
    for path in GAMES:
        beside = path.with_name(path.name.replace(".cards", ".scenarios.cards"))
        has = load_game(str(path)).decls.scenarios or (
            not path.name.endswith(".scenarios.cards") and beside.exists() and load_game(str(beside)).decls.scenarios)
        assert has, f"{path.name} has no scenario"


def test_all_scenarios_run_in_one_call():
    for path in GAMES:
        results = run_scenarios(load_game(str(path)))
        assert all(r.ok for r in results)


def test_every_view_shows_the_stack_top_first():
    """At a response window, both players see that a spell waits on the stack; only its owner,
    who may see the card in their hand, sees which (docs/language.md, "The stack")."""
    from cardsmith.interpreter.engine import Engine
    game = load_game(str(Path(__file__).parent / "games" / "counterspell_duel.cards"))
    eng = Engine(game, 2, 0)
    assert eng.pending.prompt == "Take an action?"
    eng.decide(eng.pending.options.index("Bolt: Cast it"))
    assert eng.pending.prompt == "Respond in Responses?"
    assert eng.state.card_zone[eng.state.stack[0]["card"]] == "hand:0"      # Bolt is still in a hidden hand
    assert eng.view(0)["stack"] == [{"card": "Bolt", "player": "Player 1", "action": "Cast it",
                                     "from": "Player 1's hand", "negated": False}]
    assert eng.view(1)["stack"] == [{"card": None, "player": "Player 1", "action": None,
                                     "from": "Player 1's hand", "negated": False}]
    assert "Bolt" not in json.dumps(eng.view(1))
