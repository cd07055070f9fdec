"""The step machine's shortcuts measured on Battlefield: Space (interpreter/machine.py), each
against the general way it stands for:

* `Machine.move` in the quiet state (nobody watches moves), into a zone without a cap: the plain
  move, or the one card revealed where only `revealed` listens, settled before the zone's
  declaration is looked up; the state after it (zones, faces, owners, the frames its triggers
  pushed, the version) must be the general path's.
* `Machine.flip` where only triggers pinned to a card answer `revealed`: the zone of a card none of
  them holds is not looked up.
* `Machine._flipped` where only triggers pinned to a card answer `flipped`: a flip that turned
  none of their cards looks for none of them one by one.
* `Machine._mod_table`: a modifier listing its zones has its cards lying there found first, and
  one with none there is passed over before its parts are read; the table is the whole walk's;
  with a player out, the zones' seats are mapped once for those players out.
* `Machine.__init__`: the zone tables made once per program and zones, shared by its games, and
  who may see a card in a zone (`_seen_in`) once per program, zones and players; `plain` and
  `plain_down` once per program and zones.
* `Machine.reset_memory`: the dicts it reads are kept per state until `attach` clears them; a
  period with nothing to reset does not ask which state it is.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game

ROOT = Path(__file__).resolve().parent.parent
BATTLEFIELD = ROOT / "games" / "battlefield_space.cards"


class _Unread(dict):
    """`Machine.zone_info` that fails when the zone moved into is looked up: the quiet moves into a
    zone without a cap do not (a source zone's rule may be, once, for `_seeing`'s table)."""
    key = None

    def get(self, key, *default):
        assert key != self.key, "the zone's declaration was looked up"
        return dict.get(self, key, *default)

    __getitem__ = get


def _frames(st) -> list:
    return [(fr.code_id, fr.pc, dict(fr.env)) for fr in st.frames]


def test_a_quiet_move_is_the_general_paths_and_reads_no_zone_declaration(monkeypatch):
    """Every move made in the quiet state into a zone without a cap, made again from a copy of the
    state by the general path (`quiet` cleared: it works the mode out afresh): the same zones,
    faces, owners, frames pushed (the `revealed` triggers) and version; and the quiet move read
    no zone declaration (`zone_info`)."""
    orig = Machine.move
    seen = {"single": 0, "several": 0, "revealed": 0}

    def both(self, cards, key, place, face, span):
        st = self.st
        if not (cards and self.quiet is st and key in self.plain_down):
            return orig(self, cards, key, place, face, span)
        before = st.clone()
        ver, info, pushed = self.ver, self.zone_info, len(st.frames)
        self.zone_info = _Unread(info)
        self.zone_info.key = key
        try:
            got = orig(self, cards, key, place, face, span)
        finally:
            self.zone_info = info
        after = (st.to_dict(), _frames(st), self.ver - ver)
        seen["single" if len(cards) == 1 else "several"] += 1
        seen["revealed"] += len(st.frames) > pushed
        # the general path, from the copy
        self.attach(before)
        self.quiet = None
        self.ver = ver
        want = orig(self, list(cards), key, place, face, span)
        assert (before.to_dict(), _frames(before), self.ver - ver) == after and want == got, (cards, key, face)
        self.attach(st)
        return got

    monkeypatch.setattr(Machine, "move", both)
    game = load_game(str(BATTLEFIELD))
    for seed in range(4):
        plain = run_game(game, 2, seed, log=False)
        assert plain.result
    assert seen["single"] > 50 and seen["several"] > 50 and seen["revealed"] > 20, seen


class _Counted(Machine):
    """A machine counting its reads of `st` (the instance's own value kept as `_st`)."""
    reads = 0

    @property
    def st(self):
        type(self).reads += 1
        return self._st

    @st.setter
    def st(self, value):
        self._st = value


def test_reset_memory_finds_its_dicts_without_asking_for_the_state_and_a_new_state_gets_its_own():
    """`Machine.reset_memory` keeps the dicts it reads per state (`_reset_refs`, cleared by
    `attach`): a period with nothing to reset reads no `st`; after `attach` the new state's
    attributes are the ones reset, the old state's left alone."""
    eng = run_game(load_game(str(ROOT / "games" / "space_war_in_space.cards")), 2, 0, log=False)
    m = eng.m
    m.reset_memory("round", None)       # the refs of this state made
    m.__dict__["_st"] = m.__dict__.pop("st")
    m.__class__ = _Counted
    _Counted.reads = 0
    ver = m.ver
    m.reset_memory("round", None)
    assert _Counted.reads == 0 and m.ver == ver
    old = m.st
    new = old.clone()
    m.attach(new)
    new.players[0]["bonus"] = 3
    old.players[1]["bonus"] = 4
    m.reset_memory("round", None)
    assert new.players[0]["bonus"] == 0 and old.players[1]["bonus"] == 4 and m.ver == 1


class _ReadList(list):
    """`GameState.card_zone` counting the cards whose zone is read."""

    def __init__(self, items):
        super().__init__(items)
        self.read = []

    def __getitem__(self, i):
        self.read.append(i)
        return list.__getitem__(self, i)


def test_a_flip_where_only_pinned_triggers_answer_revealed_looks_up_only_pinned_cards_zones():
    """`Machine.flip` where only `revealed` listens (log off) and only triggers pinned to a card
    answer it: a card none of them holds turns without its zone being looked up (no `revealed`
    parameters are made for it), a pinned one is revealed to the seats that could not see it."""
    from cardsmith.dsl.registry import FLIPPED, REVEALED
    eng = run_game(load_game(str(BATTLEFIELD)), 2, 1, log=False)
    m = eng.m
    pins = m.quiet_cards(REVEALED)
    flips = m.quiet_cards(FLIPPED) or frozenset()
    cards = range(len(m.st.card_zone))
    unpinned = next(c for c in cards if c not in pins and c not in flips)
    pinned = next(c for c in sorted(pins) if c not in flips)
    fired = []
    orig = Machine.announce_all
    m.announce_all = lambda event, sets, span: fired.append((event, sets)) or orig(m, event, sets, span)
    for c in (unpinned, pinned):
        m.move([c], "left_column:0", "top", "down", None)
        st = m.st
        st.card_zone = _ReadList(st.card_zone)
        ver = m.ver
        m.flip([c], True, None)
        assert st.face_up[c] and m.ver == ver + 1
        if c == unpinned:
            assert st.card_zone.read == [] and fired == []
        else:
            assert fired == [(REVEALED, [{"card": c, "learners": [0, 1]}])]   # face down: nobody saw it
        st.card_zone = list(st.card_zone)


def test_modified_all_adds_the_modifiers_itself_and_fails_where_one_by_one_does(monkeypatch):
    """`Machine.modified_all` with this version's table adds a card's modifiers itself (`_plus`
    inline, not called): the values and the work of one `modified` read a card; a sum past
    MAX_RUNTIME_NUMBER fails at the same card, with the same work charged."""
    from cardsmith.dsl.bounds import MAX_RUNTIME_NUMBER
    from cardsmith.interpreter.errors import RuleError
    from cardsmith.interpreter.engine import Engine
    eng = Engine(load_game(str(BATTLEFIELD)), players=2, seed=2, log=False)
    m = eng.m
    cards = [c for zone in m.zones.values() for c in zone]
    for _ in range(200):        # on to a decision where some card's force is modified
        m.modified(cards[0], "force")         # this version's table built
        ver, parts, k, span = m._mod_tables["force"]
        added = [c for c in cards if c in parts]
        if added and k:
            break
        eng.decide(0)
    assert added and k
    start = m.st.work
    want = [m.modified(c, "force") for c in cards]
    spent = m.st.work - start
    m.st.work = start

    def unused(*args):
        raise AssertionError("_plus called")

    monkeypatch.setattr(Machine, "_plus", staticmethod(unused))
    assert m.modified_all(cards, "force") == want and m.st.work - start == spent
    monkeypatch.undo()
    # a sum past the bound at the card `added[0]`: the same error and work both ways
    amount, ability = parts[added[0]][0]
    parts[added[0]] = [(MAX_RUNTIME_NUMBER, ability), (1, ability)]
    got = []
    for read in (lambda: [m.modified(c, "force") for c in cards], lambda: m.modified_all(cards, "force")):
        m.st.work = start
        with pytest.raises(RuleError) as err:
            read()
        got.append((err.value.message, err.value.span, m.st.work - start))
    assert got[0] == got[1] and got[0][2] == k * (cards.index(added[0]) + 1)


class _Pins(frozenset):
    """A `quiet_cards` answer counting the cards looked for one at a time."""
    asked = 0

    def __contains__(self, c):
        type(self).asked += 1
        return frozenset.__contains__(self, c)


def test_flipped_looks_for_the_pinned_cards_one_by_one_only_when_one_is_turned():
    """`Machine._flipped` where only triggers pinned to a card answer `flipped`: a flip that turned
    none of their cards raises nothing and makes no parameters (one C-level test); one that
    turned some raises `flipped` for those alone."""
    from cardsmith.dsl.registry import FLIPPED
    eng = run_game(load_game(str(BATTLEFIELD)), 2, 1, log=False)
    m = eng.m
    pins = _Pins(m.quiet_cards(FLIPPED))
    assert pins
    m.quiet_cards = {FLIPPED: pins}.get
    raised = []
    m.announce_all = lambda event, sets, span: raised.append((event, sets))
    others = [c for c in range(len(m.st.card_zone)) if c not in pins][:3]
    _Pins.asked = 0
    m._flipped(others, None)
    assert raised == [] and _Pins.asked == 0
    pinned = min(pins)
    m._flipped(others + [pinned], None)
    assert raised == [(FLIPPED, [{"card": pinned}])]


def test_a_modifier_with_no_card_in_its_zones_is_passed_over_before_its_parts_are_read():
    """`_mod_table` finds a zoned modifier's cards lying in its zones first: one with none there
    is passed over before its target, amount, condition and keyword arguments are looked at; the
    table is the one of every card of every list walked with the whole condition (zones None)."""
    from cardsmith.interpreter.engine import Engine
    from cardsmith.interpreter.program import ModifierEntry
    reads = []

    class Watched(ModifierEntry):
        @property
        def target(self):
            reads.append(self)
            return self.__dict__["target"]

    eng = Engine(load_game(str(BATTLEFIELD)), players=2, seed=3, log=False)
    m = eng.m
    entries = m.prog.modifiers["force"]
    assert all(e.zones is not None for e in entries)
    built = passed = 0
    for _ in range(60):
        if eng.finished:
            break
        lying = [e for e in entries if any(m.st.card_zone[c] in e.zones for c in e.cards)]
        reads.clear()
        for e in entries:
            e.__class__ = Watched
        try:
            got = m._mod_table("force")
        finally:
            for e in entries:
                e.__class__ = ModifierEntry
        assert reads == lying
        zones = [e.zones for e in entries]
        work = m.st.work
        for e in entries:
            e.zones = None
        try:
            want = m._mod_table("force")
        finally:
            for e, z in zip(entries, zones):
                e.zones = z
        m.st.work = work
        assert got == want
        built += bool(got)
        passed += len(entries) - len(lying)
        eng.decide(0)
    assert built > 10 and passed > 100


def test_the_seats_of_a_table_with_players_out_are_made_once_for_those_players():
    """`_mod_table` with a player out maps that player's zones to none once for those players out
    (`_seats_out`), made again when who is out changes: each table the per-read definition's
    (`_active_modifiers`), in which an entry with empty targets adds nothing."""
    from cardsmith.interpreter.engine import Engine
    from test_machine_speed_paths import _reference_table
    eng = Engine(load_game(str(BATTLEFIELD)), players=2, seed=1, log=False)
    m = eng.m
    compared = 0
    for _ in range(40):
        if eng.finished:
            break
        for outs in ([True, False], [False, True], [True, False]):
            m.st.out[:] = outs
            got = m._mod_table("force")
            held = m._seats_out
            assert held[0] == outs and m._mod_table("force") == got == _reference_table(m, "force")
            assert m._seats_out is held         # the same players out: not made again
            compared += bool(got)
        m.st.out[:] = [False, False]
        eng.decide(0)
    assert compared > 5


def test_the_zone_tables_are_made_once_per_program_and_zones():
    """A machine's zone tables (`zone_seat`, `zone_info`, `_public_of`) are the same objects for
    every game of a program with the same zones, other ones for another player count, and what
    each zone's declaration says."""
    from cardsmith.interpreter.entities import key_seat
    game = load_game(str(ROOT / "games" / "space_war_in_space.cards"))
    two, again, four = (run_game(game, n, seed, log=False).m for n, seed in ((2, 1), (2, 2), (4, 1)))
    assert two.zone_info is again.zone_info and two.zone_seat is again.zone_seat
    assert two._public_of is again._public_of
    assert four.zone_info is not two.zone_info
    for m in (two, four):
        decls = m.prog.decls.zones
        assert list(m.zone_info) == list(m.st.zones) == list(m.zone_seat) == list(m._public_of)
        for key, (decl, seat, public) in m.zone_info.items():
            assert decl is decls[key.partition(":")[0]] and seat == key_seat(key) == m.zone_seat[key]
            assert public == (decl.visibility == "public") == m._public_of[key]


def test_who_may_see_a_card_in_a_zone_is_worked_out_once_for_the_programs_games():
    """`Machine._seen_in` (who may see a card lying in a zone, face up or not) is one table for
    every game of a program with the same zones and players, filled as asked; its entries are
    what the zone's rule says (`visibility.seers`)."""
    from cardsmith.interpreter.visibility import rule_of, seers
    game = load_game(str(BATTLEFIELD))
    first, second = (run_game(game, 2, seed, log=False).m for seed in (1, 2))
    assert first._seen_in is second._seen_in and first._seen_in
    for (key, up), (see, blind) in first._seen_in.items():
        decl, seat, _public = first.zone_info[key]
        who = seers(rule_of(decl), seat, up)
        assert see == tuple(s for s in range(2) if s in who) and blind == tuple(s for s in range(2) if s not in who)
    other = run_game(load_game(str(ROOT / "games" / "space_war_in_space.cards")), 2, 1, log=False).m
    assert other._seen_in is not first._seen_in


def test_the_zones_a_quiet_move_takes_itself_are_made_once_for_the_programs_games():
    """`Machine.plain` / `plain_down` (the zones without a cap, with their seats; `plain` only those
    that are not public where `revealed` listens) are made once for a program's games with the
    same zones (`_uncapped`), and hold what the zone declarations say."""
    game = load_game(str(BATTLEFIELD))
    first, second = (run_game(game, 2, seed, log=False).m for seed in (1, 2))
    assert first.quiet is first.st and second.quiet is second.st
    assert first.plain is second.plain and first.plain_down is second.plain_down
    info = first.zone_info
    assert first.plain == {k: seat for k, (d, seat, p) in info.items() if d.capacity is None and not p}
    assert first.plain_down == {k: seat for k, (d, seat, p) in info.items() if d.capacity is None}
