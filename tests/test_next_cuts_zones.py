"""A modifier whose first remaining conjunct is `zone of this is in <zones of you>` or `this is in
your Z` lists the zone keys where it can hold (ModifierEntry.zones, Program._modifier_zones), and
Machine._mod_table skips a card lying elsewhere before building its env: the table, the work
charged and any error stay those of the unfiltered walk."""
from __future__ import annotations

from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import program_for

ROOT = Path(__file__).resolve().parent.parent
BATTLEFIELD = ROOT / "games" / "battlefield_space.cards"
BONUSES = ROOT / "tests" / "games" / "standing_bonuses.cards"


def test_battlefield_modifiers_know_the_zones_where_their_condition_can_hold():
    prog = program_for(load_game(str(BATTLEFIELD)))
    line = frozenset(f"{z}:{s}" for z in ("left_column", "centre_column", "right_column") for s in (0, 1))
    beside = frozenset({"beside:0", "beside:1"})
    assert [e.zones for e in prog.modifiers["force"]] == [line] * 4 + [beside] * 4


@pytest.mark.parametrize("path", [BATTLEFIELD, BONUSES], ids=lambda p: p.stem)
def test_the_filtered_table_equals_the_unfiltered_one_in_every_state(path, monkeypatch):
    orig = Machine._mod_table
    seen = []

    def both(self, name):
        w0 = self.st.work
        got = orig(self, name)
        w1 = self.st.work
        entries = self.prog.modifiers.get(name, ())
        kept = [e.zones for e in entries]
        self.st.work = w0
        try:
            for e in entries:
                e.zones = None
            plain = orig(self, name)
        finally:
            for e, z in zip(entries, kept):
                e.zones = z
        assert plain == got and self.st.work == w1
        seen.append(any(z is not None for z in kept))
        return got

    monkeypatch.setattr(Machine, "_mod_table", both)
    game = load_game(str(path))
    for seed in range(4):
        run_game(game, 2, seed, log=False)
    assert seen
    if path == BATTLEFIELD:
        assert all(seen)
