"""resolver.usable, the hot loop of a game whose window opens at any moment: its plan per seat,
the cards of a set of zones gathered once per call, and the cards an action's fixed `if`
conjuncts leave out (`_fixed_cards`) must offer the very same actions, in the same order, and
charge the same work as the straightforward walk it replaced (`_usable_as_before`, below)."""
from __future__ import annotations

from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter import resolver
from cardsmith.interpreter.errors import charge
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import program_for

ROOT = Path(__file__).resolve().parent.parent
GAMES = [ROOT / "games" / "the_space_war.cards", ROOT / "games" / "eve_war_for_new_eden.cards",
         ROOT / "games" / "space_race.cards", ROOT / "tests" / "games" / "sharpshooters.cards",
         ROOT / "tests" / "games" / "standing_bonuses.cards"]


def _usable_as_before(m, player, any_time_only):
    """resolver.usable as it was (commit cdec6af): every action, every candidate evaluated."""
    st = m.st
    out = []
    zone_seat, card_zone = m.zone_seat, st.card_zone
    for entry in m.prog.actions:
        if any_time_only and not entry.any_time:
            continue
        if entry.own_turn and st.active != player:
            continue
        if entry.from_zones:
            keys = tuple(key for name in entry.from_zones for key in resolver._from_keys(m, name, player))
            candidates = sorted(c for key in keys for c in m.zones.get(key, ()) if c in entry.card_set)
        else:
            candidates = [c for c in entry.cards if zone_seat[card_zone[c]] == player]
        charge(m, len(candidates), None)
        for c in candidates:
            if zone_seat[card_zone[c]] != player:
                continue
            env = {"$this": c, "$you": player, **entry.extra}
            if entry.blank is not None and not entry.blank(m, env):
                continue
            if not all(cond(m, env) for cond in entry.conds):
                continue
            if not resolver._can_pay(m, entry, c, player, env):
                continue
            if entry.targets and not resolver._has_targets(m, entry, env):
                continue
            out.append(f"{entry.index}:{c}")
    return out


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_usable_offers_and_charges_what_the_plain_walk_does(path, monkeypatch):
    game = load_game(str(path))
    fast = resolver.usable
    seen = [0]

    def both(m, player, any_time_only):
        work = m.st.work
        before = _usable_as_before(m, player, any_time_only)
        charged = m.st.work - work
        m.st.work = work
        now = fast(m, player, any_time_only)
        assert now == before
        assert m.st.work - work == charged
        seen[0] += 1
        return now

    monkeypatch.setattr(resolver, "usable", both)
    for seed in range(3):
        run_game(game, game.min_players, seed, log=False)
    assert seen[0] > 0


def test_fixed_conjuncts_leave_cards_out_only_where_the_if_is_false():
    prog = program_for(load_game(str(GAMES[1])))
    filtered = [e for e in prog.actions if e.fixed is not None]
    assert filtered and all(e.fixed < e.card_set for e in filtered)
    # The Space War's `Play at once` reads `cost`, which rules only read (`subtract cost of k from
    # p's actions` writes `actions`: interpreter/reads.py counts a statement's target alone), so
    # the cards whose printed cost is not 0 are left out of its candidates
    prog = program_for(load_game(str(GAMES[0])))
    at_once = [e for e in prog.actions if e.ability.name == "Play at once"]
    assert at_once and all(e.fixed is not None and e.fixed < e.card_set for e in at_once)


def test_quiet_conjuncts_are_those_that_cannot_fail_charge_or_read_a_card():
    from cardsmith.dsl import ast as A
    prog = program_for(load_game(str(GAMES[0])))
    for ab, _args, type_name, _cards in prog.ability_groups(A.Activated):
        if ab.name != "Play at once":
            continue
        sc = prog.ability_scope(ab, type_name)
        cond = next(act.expr for act in ab.activations if act.kind == "if")
        quiet = [resolver._quiet(prog, item, sc) for item in cond.items]
        assert quiet[0] and not any(quiet[1:])    # `begun` (a game flag); `cost = 0` reads the card
        break
    else:
        raise AssertionError("no 'Play at once' action")
