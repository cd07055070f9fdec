"""The step machine's shortcuts (interpreter/machine.py) against the general way they stand for:

* `Machine._put`: cards that are the top of one other zone, in its order, move as one slice each;
  the lists, places, faces, owners and sources must be those of moving them one at a time;
* `Machine._mod_table`: each modifier's cards walked as found, a player who is out mapped away
  once per table; the table must be the one `_active_modifiers` (the per-read definition) gives;
* `Machine.flip` and `Machine.move` where only `revealed` listens (log off): the events raised,
  with their parameters, in order, must be those of the general path (log on).
"""
from __future__ import annotations

import random
from pathlib import Path

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.machine import GAME, Machine
from cardsmith.interpreter.play import run_game

ROOT = Path(__file__).resolve().parent.parent
BATTLEFIELD = ROOT / "games" / "battlefield_space.cards"
SPACE_WAR = ROOT / "games" / "space_war_in_space.cards"


def _one_at_a_time(st, zones, cards, key, place, face, owner_seat, sources) -> None:
    """`_put` as it was written before its slice path: the definition."""
    up = None if face is None else face == "up"
    for c in cards:
        src = st.card_zone[c]
        held = zones[src]
        held.remove(c)
        if sources is not None:
            sources.append(src)
        if place == "bottom":
            zones[key].insert(0, c)
        else:
            zones[key].append(c)
        st.card_zone[c] = key
        if up is not None:
            st.face_up[c] = up
        if owner_seat is not None and st.owner[c] is None:
            st.owner[c] = owner_seat


def _snapshot(st) -> tuple:
    return ({k: list(v) for k, v in st.zones.items()}, list(st.card_zone), list(st.face_up), list(st.owner))


def test_put_moves_as_one_card_at_a_time():
    game = load_game(str(BATTLEFIELD))
    rng = random.Random(7)
    tried = sliced = 0
    for seed in range(3):
        eng = Engine(game, players=2, seed=seed, log=False)
        m = eng.m
        for _ in range(150):
            st = m.st
            full = [k for k, held in st.zones.items() if held]
            src = rng.choice(full)
            held = st.zones[src]
            n = rng.randint(1, len(held))
            pick = rng.random()
            if pick < 0.5:
                cards = held[-n:]                       # the top, in order: the slice path
            elif pick < 0.7:
                cards = held[-n:][::-1]                 # the top, reversed
            else:                                       # any cards of any zones
                pool = [c for k in full for c in st.zones[k]]
                cards = rng.sample(pool, min(n, len(pool)))
            key = rng.choice(list(st.zones))
            place = rng.choice(["top", "bottom"])
            face = rng.choice([None, "up", "down"])
            seat = m.zone_info[key][1]
            if rng.random() < 0.3:                      # cards without an owner get the zone's
                for c in cards:
                    st.owner[c] = None
            expect = st.clone()
            want_sources: list = []
            _one_at_a_time(expect, expect.zones, list(cards), key, place, face, seat, want_sources)
            got_sources: list = []
            sliced += held[-len(cards):] == cards and src != key
            m._put(list(cards), key, st.zones[key], place, face, seat, got_sources)
            assert _snapshot(st) == _snapshot(expect), (seed, src, key, cards, place, face)
            assert got_sources == want_sources
            tried += 1
    assert tried == 450 and sliced > 100


def _reference_table(m: Machine, name) -> dict:
    """The table of `_mod_table` from `_active_modifiers`, the per-read definition."""
    parts: dict = {}
    for entry, env in m._active_modifiers(name):
        targets = GAME if entry.target is None else entry.target(m, env)
        if targets is None or targets == []:
            continue
        amount = entry.amount(m, env)
        for t in (dict.fromkeys(targets) if isinstance(targets, list) else [targets]):
            parts.setdefault(t, []).append((amount, entry.ability))
    return parts


def test_mod_table_is_the_active_modifiers_table_with_and_without_a_player_out():
    game = load_game(str(BATTLEFIELD))
    checked = 0
    for seed in range(4):
        eng = Engine(game, players=2, seed=seed, log=False)
        rng = random.Random(seed)
        while not eng.finished:
            m = eng.m
            assert m._mod_table("force") == _reference_table(m, "force")
            st = m.st
            for p in range(2):                  # as if a player were out (then put back)
                st.out[p] = True
                assert m._mod_table("force") == _reference_table(m, "force")
                st.out[p] = False
            checked += 1
            eng.decide(rng.randrange(len(eng.pending.options)))
    assert checked > 50


def _announced(path: Path, seed: int, log: bool) -> tuple:
    events: list = []
    original = Machine.announce_all

    def spy(self, event, param_sets, span):
        # where only triggers pinned to the card answer (`Triggers.quiet_cards`), the log-off path
        # leaves out the sets naming a card none of them holds: compared on the others
        plan = self.event_plans.get(event)
        pins = getattr(plan.over, "cards", None) if plan is not None and plan.plain else None
        kept = [dict(p) for p in param_sets if pins is None or p.get("card") in pins]
        if kept:          # the general path also raises a moment with nothing in it (no window opens)
            events.append((event, kept))
        return original(self, event, param_sets, span)
    Machine.announce_all = spy
    # a generated `announce` of a declared event calls its `one` where nothing keeps the event
    # (Triggers.quiet_ones): here every announcement goes to `announce_all`, for the spy to see
    Machine.quiet_ones = property(lambda self: {})
    try:
        eng = run_game(load_game(str(path)), 2, seed, log=log)
    finally:
        del Machine.announce_all, Machine.quiet_ones
    return events, eng.result, eng.m.st.work


def test_flips_and_moves_raise_the_same_events_with_the_log_off_as_on():
    # log on: flip's and move's general paths; log off: where only `revealed` listens
    for seed in range(6):
        off = _announced(BATTLEFIELD, seed, False)
        on = _announced(BATTLEFIELD, seed, True)
        assert any(event == "revealed" and params for event, params in off[0])
        assert off == on, seed
    for seed in range(3):
        assert _announced(SPACE_WAR, seed, False) == _announced(SPACE_WAR, seed, True), seed
