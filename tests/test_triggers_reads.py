"""interpreter/reads.py `written_names`: the names a rule may write. `set` / `add` / `subtract`
write their target only: the value or amount they read is not written (The Space War's
`subtract cost of k from p's actions` writes `actions`, not `cost`), so a fixed filter may use
`cost` (Program._fixed_filter, resolver's, triggers' `_live_cards`)."""
from __future__ import annotations

from pathlib import Path

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.reads import written_names

ROOT = Path(__file__).resolve().parents[1]


def test_a_subtracted_amount_is_read_not_written():
    game = load_game(str(ROOT / "games/the_space_war.cards"))
    written = written_names(game.decls, game.cards)
    assert "actions" in written and "cost" not in written


def test_what_is_set_added_or_subtracted_is_written():
    game = load_game(str(ROOT / "games/space_war_in_space.cards"))
    written = written_names(game.decls, game.cards)
    assert {"side", "bonus", "faction", "peace_declared"} <= written      # set / add targets
    assert "leader" not in written and "strength" not in written          # printed, never set
