"""An event's generated `collect` (interpreter/triggers.py `_collector`) finds the triggers the
plain loop (`Triggers._collect`) finds: the same entries, cards, seats and envs (the same dict, key
order included), in the same order, or the same error. Also: the cards a trigger's printed fields
rule out are left out of what is looked at, not out of the index; one trigger alone is pushed
without evaluating plain order keys."""
from __future__ import annotations

from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter import triggers
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import program_for

ROOT = Path(__file__).resolve().parents[1]
# games whose triggers matter: keyed (`where card = this`), several per event, keyword
# arguments, stacked, ordered by keys, replacements beside them
GAMES = ["games/space_war_in_space.cards", "games/battlefield_space.cards", "games/the_space_war.cards",
         "games/space_race.cards", "games/eve_war_for_new_eden.cards", "tests/games/event_soup.cards",
         "tests/games/double_shield.cards", "tests/games/signal_fires.cards", "tests/games/waiting_triggers.cards",
         "tests/games/stubborn_spells.cards", "tests/games/warded_moves.cards",
         "tests/games/standing_bonuses.cards", "tests/games/windfalls.cards", "tests/games/relics.cards"]


def _outcome(fn, *args):
    fired: list = []
    try:
        fn(*args, fired)
    except Exception as exc:        # noqa: BLE001 -- compared, not swallowed
        return ("error", type(exc).__name__, str(exc))
    return [(entry, c, seat, env, list(env)) for entry, c, seat, env in fired]


@pytest.mark.parametrize("path", GAMES)
def test_the_generated_collect_finds_what_the_loop_finds(path, monkeypatch):
    made = triggers._collector
    calls = [0]

    def checking(prog, entries):
        fn = made(prog, entries)

        def both(m, params, fired):
            want = _outcome(m._collect, entries, params)
            got = _outcome(fn, m, params) if fn is not None else []
            assert got == want, (path, entries[0].ability.event, params)
            calls[0] += 1
            if want and want[0] == "error":
                fn(m, params, fired)        # raise it, as the game would
            fired.extend(f[:4] for f in got)
        return both

    monkeypatch.setattr(triggers, "_collector", checking)
    game = load_game(str(ROOT / path))
    for players in sorted({game.min_players, min(game.max_players, 4)}):
        for seed in range(2):
            run_game(game, players, seed, log=seed == 0)
    if program_for(game).triggers and "eve_war" not in path:   # EVE's `ship_destroyed`: rare with bots
        assert calls[0], path


def test_a_keyed_trigger_looks_only_at_the_cards_its_printed_flag_allows():
    """`when battle_won where card = this and leader`: `leader` is printed and never set, so only
    the leaders are looked at when a battle is won; the index still lists every Unit."""
    game = load_game(str(ROOT / "games/space_war_in_space.cards"))
    prog = program_for(game)
    (entry,) = prog.triggers["battle_won"]
    live = triggers._live_cards(prog, entry)
    assert live and len(live) < len(entry.cards)
    assert all(game.cards[c].values.get("leader") for c in live)
    assert {c for c in entry.cards if game.cards[c].values.get("leader")} == set(live)
    assert len(entry.card_set) == len(entry.cards)      # `cardsmith explain` finds any Unit's ability


def test_a_condition_read_as_the_game_goes_keeps_every_card():
    """`side = active` is set by the rules (`flip_to`): no card is left out for it."""
    prog = program_for(load_game(str(ROOT / "games/space_war_in_space.cards")))
    for entry in prog.triggers["before_battle"]:
        assert triggers._live_cards(prog, entry) == entry.cards


def test_one_trigger_skips_only_plain_order_keys():
    """`by number highest first`: a printed field, read without running a rule; ordering one
    trigger alone reads nothing. `the position of you in clockwise_from(initiative)` is computed:
    it is evaluated for one trigger too, as before (it could fail, or count work)."""
    for path, plain in (("games/battlefield_space.cards", True), ("tests/games/event_soup.cards", True),
                        ("games/space_war_in_space.cards", True), ("games/space_race.cards", False)):
        prog = program_for(load_game(str(ROOT / path)))
        assert triggers.plan_of(prog, "flipped").one_unordered is plain, path


def test_a_condition_is_written_in_only_where_it_reads_the_env_by_known_keys():
    """`_direct` rewrites the name tokens `env[...]` of a generated condition (never the text of a
    string literal that spells them), and refuses any other read of the env."""
    from cardsmith.interpreter.gen_expr import Pool
    pool = Pool()

    def made(body):
        name = pool.fresh_name("f")
        return pool.compile(f"def {name}(m, env):\n    return {body}\n", name, "a condition")
    direct = triggers._direct
    assert direct(pool, made("(env['$this'] == \"env['$this']\")"), {}) == "(_c == \"env['$this']\")"
    assert direct(pool, made("(env['card'] == env['$this']) and env['$you'] == 1"), {"card": "card"}) == \
        "(_p['card'] == _c) and _seat == 1"
    assert direct(pool, made("env['other'] == 1"), {"card": "card"}) is None            # not a parameter
    assert direct(pool, made("env.get('$you') is None"), {}) is None                    # another read
    assert direct(pool, made("_coll(m, env)"), {}) is None                              # the env given away
    assert direct(pool, made("_c == 1"), {}) is None                                    # a name it writes
    assert direct(pool, lambda m, env: True, {}) is None                               # not generated
