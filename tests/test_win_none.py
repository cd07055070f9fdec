"""`<player> wins` with no player there stops the game with E0802 at that rule (errors.md E0414),
instead of ending it as a draw nobody asked for."""
from __future__ import annotations

import pytest

from cardsmith.dsl.loader import load_text
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.errors import GameAborted

GAME = """game "Nobody Wins":
    players: 2 to 2

player has:
    score: number = 0

setup:
    add 1 to seat 1's score

as soon as any(players where it's score >= 1):
    first(players where it's score >= {need}) wins
"""


@pytest.mark.parametrize("fused", [True, False])
def test_a_winner_that_is_none_stops_the_game_at_its_rule(fused, monkeypatch):
    from cardsmith.interpreter.machine import Machine
    monkeypatch.setattr(Machine, "fused", fused)
    game = load_text(GAME.format(need=5), "nobody.cards")
    with pytest.raises(GameAborted) as err:
        Engine(game, 2, seed=0)
    d = err.value.diagnostics[0]
    assert d.code == "E0802" and "no player here to win" in d.message
    assert (d.span.line, d.span.column) == (11, 5)


def test_a_winner_that_is_there_still_wins():
    game = load_text(GAME.format(need=1), "somebody.cards")
    eng = Engine(game, 2, seed=0)
    assert eng.result["winners"] == [0] and not eng.result["draw"]
