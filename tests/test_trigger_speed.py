"""The short ways from an event to its triggers running, and from a question to a random seat's
answer, play the games the long ways play (interpreter/triggers.py, decisions.py, play.py):

* with the log off, an event only triggers answer is announced by its collector's `quick`
  (`Triggers._fire` written out for one trigger: its frame pushed), a declared one by its `one`'s;
  the same end states (steps, work, generator) as with `_fire` called for every moment;
* with nobody observing, `run_game`'s random seats are answered by `decisions.drawing_ask`
  (`Decisions.ask` written for them): the same end states, results, tallies and logs as when
  every question goes to `Decisions.ask`, and the machine's own `ask` after.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter import decisions, play, triggers
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.report import Tally
from cardsmith.interpreter.simulate import counted_events

ROOT = Path(__file__).resolve().parents[1]
GAMES = [("games/battlefield_space.cards", 2), ("games/space_war_in_space.cards", 2),
         ("games/space_war_in_space.cards", 4), ("tests/games/event_soup.cards", 2),
         ("tests/games/signal_fires.cards", 2), ("tests/games/waiting_triggers.cards", 2),
         ("games/space_race.cards", 2)]


def _end(eng) -> tuple:
    return eng.result, eng.state.to_dict()


@pytest.mark.parametrize("path,players", GAMES)
def test_quick_fire_plays_as_fire_called(path, players, monkeypatch):
    game = load_game(str(ROOT / path))
    quick = []
    for seed in range(3):
        eng = run_game(game, players, seed, log=False)
        quick.append(_end(eng))
        plans = eng.m.event_plans
        for event, fire in eng.m.quiet_events.items():
            over = plans[event].over
            if over is not None and over.quick is not None:
                assert fire is over.quick, (path, event)
        for event, one in eng.m.quiet_ones.items():
            if getattr(one, "quick", None) is not None:
                raise AssertionError(f"{path}: {event}'s `one` kept where its quick one would do")
    fire = triggers.Triggers._fire
    monkeypatch.setattr(triggers.Triggers, "_fire", lambda m, plan, event, fired, span: fire(m, plan, event, fired, span))
    for seed in range(3):
        eng = run_game(game, players, seed, log=False)
        assert _end(eng) == quick[seed], (path, seed)
        plans = eng.m.event_plans
        assert all(getattr(f, "__name__", "") in ("fire", "_no_fire") or f is plans[e].over.fire
                   for e, f in eng.m.quiet_events.items())


def test_the_seed_games_take_the_quick_ways():
    """Battlefield's `revealed` and Space War's declared events are announced the quick way."""
    bf = run_game(load_game(str(ROOT / "games/battlefield_space.cards")), 2, 1, log=False).m
    assert bf.quiet_events["revealed"] is bf.event_plans["revealed"].over.quick
    sw = run_game(load_game(str(ROOT / "games/space_war_in_space.cards")), 2, 1, log=False).m
    for event in ("before_battle", "battle_won"):
        assert sw.quiet_ones[event] is sw.event_plans[event].over.one.quick
    on = run_game(load_game(str(ROOT / "games/battlefield_space.cards")), 2, 1, log=True).m
    assert on.quiet_events["revealed"] is on.event_plans["revealed"].over.fire      # triggers logged by _fire


class _Asking(play.RandomAgent):
    """RandomAgent's choice, asked the usual way (a subclass: `run_game` hands it the decision)."""


@pytest.mark.parametrize("log", [False, True], ids=["no_log", "log"])
@pytest.mark.parametrize("path,players", GAMES)
def test_drawing_ask_answers_as_ask_does(path, players, log, monkeypatch):
    game = load_game(str(ROOT / path))
    made = decisions.drawing_ask
    answered = [0]

    def counting(m, draws):
        ask = made(m, draws)

        def asked(player, prompt, options, var, kind, span, secret=False):
            got = ask(player, prompt, options, var, kind, span, secret)
            answered[0] += got is None and player is not None and len(options) > 1
            return got
        return asked
    monkeypatch.setattr(play, "drawing_ask", counting)
    for seed in range(2):
        for tallied in (False, True):
            def run(agents):
                tally = Tally(counted_events(game)) if tallied else None
                eng = run_game(game, players, seed, agents=agents, log=log, tally=tally)
                assert "ask" not in eng.m.__dict__
                return _end(eng), tally and (tally.real, tally.forced, tally.events), \
                    log and (eng.log_jsonl(), [eng.log_seen_by(p) for p in range(players)])
            want = run([_Asking(seed * 1000 + s) for s in range(players)])
            assert run(None) == want, (path, seed, tallied)
    if not log or path.startswith("games/"):    # (with the log on, a question of actions stops)
        assert answered[0] > 0, path


def test_one_card_entries_test_the_card_by_its_number_first():
    """An entry of one card whose leading conjuncts read only the card's own fields tests them on
    the card's number, and names the card `_c` only for a card they let by (Space War's Powers:
    most moments, every Power is inactive); its triggers are those `collect` finds
    (tests/test_triggers_collect.py, test_events_speed_triggers.py)."""
    import re
    eng = run_game(load_game(str(ROOT / "games/space_war_in_space.cards")), 2, 1, log=False)
    one = eng.m.event_plans["before_battle"].over.one
    src = next(s for s in eng.m.prog.pool.sources if f"def {one.__name__}(" in s)
    body = src.split(f"def {one.__name__}(", 1)[1].split("\ndef ", 1)[0].splitlines()
    tests = [i for i, line in enumerate(body) if re.fullmatch(r"    if m\.cards\[\d+\]\.get\('side'\) == 'active':", line)]
    assert len(tests) == 3
    for i in tests:
        card = re.search(r"\[(\d+)\]", body[i]).group(1)
        assert body[i + 1] == f"        _c = {card}"
    assert not any(line == f"    _c = {card}" for line in body for card in range(200))


def test_the_seat_is_a_key_once():
    """`order simultaneous triggers by ... then seat order`: the seat counted from the active player
    is compared once (a second time it would always compare equal), then the card."""
    eng = run_game(load_game(str(ROOT / "games/battlefield_space.cards")), 2, 1, log=False)
    sort = eng.m._sort_triggers
    src = next(s for s in eng.m.prog.pool.sources if f"def {sort.__name__}(" in s)
    [ret] = [line.strip() for line in src.splitlines() if line.strip().startswith("return (")]
    assert ret.endswith(", _s, _c)") and ret.count("_s") == 1


def test_several_triggers_of_a_moment_are_ordered_and_pushed_in_place():
    """Battlefield with the log off: moments that set off several triggers are ordered by the
    program's sorter from the quick `fire` itself, and `Triggers._fire` is never called (its end
    states are `_fire`'s: test_quick_fire_plays_as_fire_called)."""
    import sys
    calls = {"fire": 0, "sort": 0}
    fire_code = triggers.Triggers._fire.__code__

    def profile(frame, event, arg):
        if event == "call":
            if frame.f_code is fire_code:
                calls["fire"] += 1
            elif frame.f_code.co_filename == "<cardsmith trigger order>" and frame.f_code.co_name != "_key":
                calls["sort"] += 1
    game = load_game(str(ROOT / "games/battlefield_space.cards"))
    sys.setprofile(profile)
    try:
        for seed in range(3):
            run_game(game, 2, seed, log=False)
    finally:
        sys.setprofile(None)
    assert calls["sort"] > 5 and calls["fire"] == 0, calls


def test_a_triggers_log_line_is_its_card_and_the_words_made_once():
    """With the log on, a trigger's line is its card's name and the words after it made once per
    seat and event (`Triggers._trigger_tails`): "<card> of <player> triggers on <event>"."""
    eng = run_game(load_game(str(ROOT / "games/battlefield_space.cards")), 2, 1, log=True)
    tails = eng.m._trigger_tails
    assert tails and all(tail == f" of {eng.m.log.player_name(seat)} triggers on {event}"
                         for (seat, event), tail in tails.items())
    lines = [e for e in eng.event_log.events if e["event"] == "trigger"]
    assert len(lines) > 20
    for e in lines:
        assert e["text"] == f"{e['card']} of {eng.m.log.player_name(e['player'])} triggers on {e['on']}"


def test_a_game_state_is_made_of_its_fields_by_name():
    """`GameState.__init__` names every field once (no loop of `setattr`), the fields of FIELDS
    (what a save holds), and a made state holds each as given."""
    import inspect
    from cardsmith.interpreter.state import FIELDS, GameState
    params = inspect.signature(GameState.__init__).parameters
    assert [n for n, p in params.items() if p.kind is p.KEYWORD_ONLY] == list(FIELDS)
    assert not any(p.kind is p.VAR_KEYWORD for p in params.values())
    values = {f: [f] for f in FIELDS}
    st = GameState(**values)
    assert all(getattr(st, f) is values[f] for f in FIELDS)
    eng = run_game(load_game(str(ROOT / "games/space_war_in_space.cards")), 2, 1, log=False)
    assert GameState.from_dict(eng.state.to_dict()).to_dict() == eng.state.to_dict()


def test_the_cards_of_actions_used_anywhere_are_one_list():
    """`resolver.usable` walks the cards of the actions used wherever their cards lie in one loop:
    its plan holds (card, row) for each, by row, then in the action's order of its cards (what it
    offers is the plain walk's: tests/test_resolver_usable.py)."""
    eng = run_game(load_game(str(ROOT / "games/space_race.cards")), 2, 1, log=False)
    plans = [p for k, p in eng.m.prog.action_keys.items() if isinstance(k, tuple) and k[0] == "plan"]
    assert plans and any(p.anywhere for p in plans)
    for plan in plans:
        rows = sorted({i for _c, i in plan.anywhere})
        assert all(not plan.rows[i][0].from_zones for i in rows)
        assert plan.anywhere == [(c, i) for i in rows for c in plan.rows[i][0].cards]


@pytest.mark.parametrize("path", ["games/space_race.cards", "games/the_space_war.cards",
                                  "games/eve_war_for_new_eden.cards", "tests/games/sharpshooters.cards"])
def test_an_actions_candidates_from_its_seats_own_zones_are_not_looked_at_again(path):
    """A row of `usable`'s plan is `mine` where every candidate `usable` finds for it is in the
    seat's own zones: an action used anywhere (its cards found there), or one used from zones
    per player, whose keys are the seat's all game; a shared zone or an entity's is not."""
    game = load_game(str(ROOT / path))
    eng = run_game(game, 2, 1, log=False)
    m = eng.m
    plans = [(k[2], p) for k, p in m.prog.action_keys.items() if isinstance(k, tuple) and k[0] == "plan"]
    assert plans and any(row[5] for _seat, p in plans for row in p.rows), path          # (its `mine`)
    for seat, plan in plans:
        for i, row in enumerate(plan.rows):
            entry, mine = row[0], row[5]
            if not entry.from_zones:
                assert mine and all(j != i for keys, by_card in plan.by_zones for rows in by_card.values()
                                    for j in rows)
                continue
            per_player = all(m.prog.decls.zones[name].per_player for name in entry.from_zones)
            assert mine == per_player
            if mine:
                keys = m.prog.action_keys[(entry.index, seat)]
                assert keys and all(m.zone_seat[k] == seat for k in keys)


def test_an_events_replacements_are_found_by_a_generated_collect():
    """`instead of moved` (Space Race) is asked about through `_collector`'s `collect` of its
    abilities, made once per program (`Triggers._replacing`); what it finds is `_collect`'s
    (tests/test_triggers_collect.py checks both for every replacement asked about)."""
    eng = run_game(load_game(str(ROOT / "games/space_race.cards")), 2, 1, log=False)
    made = eng.m._replacing
    assert "moved" in made and made is eng.m.prog.__dict__["_replacement_collects"]
    assert getattr(made["moved"], "__code__").co_filename == "<cardsmith triggers of an event>"


def test_a_rows_costs_targets_and_key_are_read_only_for_a_candidate_let_by():
    """`usable`'s row keeps what only a candidate its checks let by needs (costs, targets, the
    key's prefix) in one tuple, read there (what it offers: tests/test_resolver_usable.py)."""
    eng = run_game(load_game(str(ROOT / "games/space_race.cards")), 2, 1, log=False)
    plans = [p for k, p in eng.m.prog.action_keys.items() if isinstance(k, tuple) and k[0] == "plan"]
    assert plans
    for plan in plans:
        for entry, blank, conds, extra, fixed, mine, last in plan.rows:
            assert last == (tuple(entry.costs), entry.targets, f"{entry.index}:")
            assert conds == tuple(entry.conds) and extra is entry.extra and fixed is entry.fixed
