"""`Machine.modified_all` (the generated `force of cards in z`) reads what `Machine.modified` reads
one card at a time: the same values, the same work charged, and near the work bound the same
error at the same read (H3, issue 9)."""
from __future__ import annotations

from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.errors import RuleError
from cardsmith.interpreter.play import run_game

BATTLEFIELD = Path(__file__).resolve().parent.parent / "games" / "battlefield_space.cards"


def _one_by_one(m, cards, name):
    return [m.modified(c, name) for c in cards]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_modified_all_reads_as_one_by_one(seed):
    eng = run_game(load_game(str(BATTLEFIELD)), 2, seed, log=False)
    m = eng.m
    cards = [c for zone in m.zones.values() for c in zone]
    assert "force" in m.prog.tabled_mods
    m.modified(cards[0], "force")             # this version's table built
    k = m._mod_tables["force"][2]
    start = m.st.work
    want = _one_by_one(m, cards, "force")
    spent = m.st.work - start
    m.st.work = start
    assert m.modified_all(cards, "force") == want and m.st.work - start == spent == k * len(cards)
    if not k:
        return
    # the bound crossed at the fifth read: the same error, the same work, both ways
    saved = m.max_steps
    try:
        for fn in (_one_by_one, m.modified_all.__func__):
            m.max_steps = start + k * 4
            m.st.work = start
            with pytest.raises(RuleError) as err:
                fn(m, cards, "force")
            assert m.st.work == start + k * 5 and "items of work" in str(err.value)
    finally:
        m.max_steps = saved
        m.st.work = start


def test_the_force_of_cards_in_a_zone_is_read_at_once():
    eng = run_game(load_game(str(BATTLEFIELD)), 2, 1, log=False)
    assert any("m.modified_all(" in s for s in eng.m.prog.pool.sources)
