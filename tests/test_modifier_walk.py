"""The modifier table's shortcuts and the flip's pinned parameters (H1, issue 9).

* `Machine._mod_table`: a modifier listing the zones where its condition's first conjunct can
  hold (`ModifierEntry.zones`) evaluates only the rest of its condition (`ModifierEntry.rest`)
  for its cards lying there: the table and the work charged must be those of evaluating the
  whole condition for every card of its list (zones None).
* `Machine.modified_all` with no table of this version: the first card's read builds it, the
  others are read from it, as one read at a time would (values, work).
* `Machine.flip` where only triggers pinned to a card answer `flipped` (`quiet_cards`): the
  parameters of the other cards are not made.
* `Machine.move` in the quiet state, where only such triggers answer `revealed`: a move that could
  reveal only cards none of them holds takes the plain path.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from cardsmith.dsl.loader import check_source, load_game
from cardsmith.dsl.registry import FLIPPED
from cardsmith.dsl.source import Source
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import program_for

ROOT = Path(__file__).resolve().parent.parent
BATTLEFIELD = ROOT / "games" / "battlefield_space.cards"

# a modifier whose condition goes on after its zone conjunct (`rest`), over a long list
GAME = '''game "Walks":
    players: 2 to 3

player has:
    bonus: number = 0

game has:
    turns_left: number = 6

zone deck: shared, ordered, hidden
zone hand: per player, ordered, public
zone table: per player, ordered, public

card type Unit:
    rank: number
    kin: number = 0

    modify rank of cards in zone of this where it is not this by 1 while this is in your table and you's bonus > 0
    modify rank of this by count(cards in your hand) while zone of this is in [your hand, your table] and kin = 1

cards Unit in deck:
    | name    | rank | kin | copies |
    | "One"   | 1    | 1   | 4      |
    | "Two"   | 2    | 1   | 3      |
    | "Three" | 3    | 0   | 3      |

setup:
    shuffle deck

round "Play":
    for each p in players:
        move top card of deck to p's hand
        move top card of deck to p's table
        set p's bonus to sum(rank of cards in p's table) - 4
        move top card of p's hand to p's table
    subtract 1 from turns_left

as soon as turns_left = 0:
    seat 1 wins
'''


def _walks_game():
    game, diags, _ = check_source(Source("walks.cards", GAME))
    assert game is not None, [d.message for d in diags]
    return game


def test_the_entries_know_their_zones_and_the_rest_of_their_condition():
    prog = program_for(_walks_game())
    first, second = prog.modifiers["rank"]
    assert first.zones == frozenset({"table:0", "table:1", "table:2"}) and first.rest is not None
    assert second.zones == frozenset(f"{z}:{s}" for z in ("hand", "table") for s in range(3))
    assert second.rest is not None      # `kin = 1` is not fixed: kin is read, never written...
    bf = program_for(load_game(str(BATTLEFIELD)))
    assert all(e.zones is not None and e.rest is None for e in bf.modifiers["force"])


def _checked_tables(monkeypatch, seen: list):
    """Every table `_mod_table` builds, checked against the one built with every card of every
    list looked at and the whole condition evaluated (zones None): same table, same work."""
    orig = Machine._mod_table

    def both(self, name):
        w0 = self.st.work
        entries = self.prog.modifiers.get(name, ())
        whole = [e.cond for e in entries]
        called: list = []
        for e in entries:       # where an entry lists its zones, its whole condition is not evaluated
            if e.zones is not None and e.cond is not None:
                e.cond = (lambda f: lambda m, env: called.append(f) or f(m, env))(e.cond)
        try:
            got = orig(self, name)
        finally:
            for e, cond in zip(entries, whole):
                e.cond = cond
        assert not called
        w1 = self.st.work
        kept = [e.zones for e in entries]
        seen.append(sum(z is not None for z in kept))
        self.st.work = w0
        try:
            for e in entries:
                e.zones = None
            plain = orig(self, name)
        finally:
            for e, z in zip(entries, kept):
                e.zones = z
        assert plain == got and self.st.work == w1
        return got

    monkeypatch.setattr(Machine, "_mod_table", both)


@pytest.mark.parametrize("which", ["battlefield", "walks"])
def test_the_table_with_the_rest_of_the_condition_is_the_whole_conditions(which, monkeypatch):
    seen: list = []
    _checked_tables(monkeypatch, seen)
    game = load_game(str(BATTLEFIELD)) if which == "battlefield" else _walks_game()
    for players in ((2,) if which == "battlefield" else (2, 3)):
        for seed in range(3):
            run_game(game, players, seed, log=False)
    assert seen and all(n > 0 for n in seen)      # some entry listed its zones every time


def test_the_table_with_a_player_out_is_the_same_either_way(monkeypatch):
    seen: list = []
    _checked_tables(monkeypatch, seen)
    eng = Engine(load_game(str(BATTLEFIELD)), players=2, seed=1, log=False)
    m = eng.m
    for _ in range(40):
        if eng.finished:
            break
        for p in range(2):
            m.st.out[p] = True
            m._mod_table("force")
            m.st.out[p] = False
        m._mod_table("force")
        eng.decide(0)
    assert len(seen) > 40


def test_modified_all_builds_the_table_once_and_reads_as_one_by_one(monkeypatch):
    eng = run_game(load_game(str(BATTLEFIELD)), 2, 2, log=False)
    m = eng.m
    cards = [c for zone in m.zones.values() for c in zone]
    m.ver += 1                      # no table of this version
    start = m.st.work
    want = [m.modified(c, "force") for c in cards]
    spent = m.st.work - start
    m.ver += 1
    m.st.work = start
    calls = []
    orig = Machine.modified
    monkeypatch.setattr(Machine, "modified", lambda self, c, name: calls.append(c) or orig(self, c, name))
    assert m.modified_all(cards, "force") == want and m.st.work - start == spent
    assert calls == []              # one by one before: a `modified` per card


def test_flipped_is_raised_for_the_pinned_cards_only(monkeypatch):
    raised: list = []
    orig = Machine.announce_all

    def spy(self, event, param_sets, span):
        if event == FLIPPED:
            raised.append((self.quiet_cards(FLIPPED), [p["card"] for p in param_sets]))
        return orig(self, event, param_sets, span)

    monkeypatch.setattr(Machine, "announce_all", spy)
    game = load_game(str(BATTLEFIELD))
    for seed in range(3):
        run_game(game, 2, seed, log=False)
    pinned = [(pins, cards) for pins, cards in raised if pins is not None]
    assert pinned and all(cards and set(cards) <= pins for pins, cards in pinned)
    # log on: the same triggers fire (tests/test_machine_speed_paths.py compares the events)
    assert run_game(game, 2, 1, log=True).result == run_game(game, 2, 1, log=False).result


class _Counted(set):
    """`Machine.listened` counting its look-ups: the watched paths of `move` read it, the plain
    one-card path does not."""
    n = 0

    def __contains__(self, item):
        self.n += 1
        return set.__contains__(self, item)


def test_a_quiet_move_revealing_only_unpinned_cards_is_plain():
    from cardsmith.dsl.registry import REVEALED
    eng = run_game(load_game(str(BATTLEFIELD)), 2, 1, log=False)
    m = eng.m
    assert m.quiet is m.st
    pins = m.quiet_cards(REVEALED)
    assert pins
    unpinned = next(c for c in range(len(m.st.card_zone)) if c not in pins)
    pinned = min(pins)
    for c, watched in ((unpinned, False), (pinned, True)):
        m.move([c], "deck:0", "top", "down", None)      # face down in a hidden zone: plain
        assert m.quiet is m.st and not m.st.face_up[c]
        counted = m.listened = _Counted(m.listened)
        ver = m.ver
        m.move([c], "left_column:0", "top", "up", None)
        assert m.st.card_zone[c] == "left_column:0" and m.st.face_up[c] and m.ver == ver + 1
        assert m.st.zones["left_column:0"][-1] == c and c not in m.st.zones["deck:0"]
        assert (counted.n > 0) == watched, (c, counted.n)
