"""Properties of EVE: War for New Eden played at random, 2, 3 and 4 players.

The rulebook caps what a player holds: at most 49 Z (the tens and units counters) and at most
12 Minerals ("past 12 you discard the ones you choose"). Here random games are walked one
decision at a time, as tests/test_properties.py walks Space War, and before every decision and
at the end each player's Z and Minerals are read from the engine's public view. The Minerals
zone is declared `at most 12, discard down into spent`: right after a move past 12 its owner is
asked "Discard down to 12", one card at a time, so while (and only while) such questions are
asked may a zone hold more than 12 (the Upkeep gives every player Minerals in one move, and
they discard one after the other); any other decision finds everyone at 12 or fewer. Every game must end, within the rounds the game
file allows (its 60-Round limit) and a bound on decisions.

A few small games run in CI; the bigger run is marked slow, like tests/test_properties.py.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.play import default_agents

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "games" / "eve_war_for_new_eden.cards"

MAX_ISK = 49
MAX_MINERALS = 12
MAX_ROUNDS = 60
MAX_DECISIONS = 20_000


@pytest.fixture(scope="module")
def eve():
    return load_game(str(GAME))


def minerals_rule() -> str:
    """The rule a "Discard down to 12" decision names: the Minerals zone's declaration."""
    for n, line in enumerate(GAME.read_text().splitlines(), start=1):
        if re.match(r"zone minerals\b", line):
            return f"{GAME.name}:{n}:"
    raise AssertionError("the game declares no zone minerals")


def cap_breaches(view: dict, n: int, discard_rule: str) -> list[str]:
    """What in a view (any player's: Z and Minerals are public) breaks the caps.

    Nobody may hold more than 12 Minerals when any other decision is asked: a move past the cap
    is followed at once by "Discard down to 12" (one move may give several players Minerals,
    the Upkeep's `give out`: then they discard one after the other). The player asked to
    discard down must hold more than 12."""
    bad = []
    decision = view.get("decision") or {}
    discarding = (decision.get("prompt") == f"Discard down to {MAX_MINERALS}"
                  and str(decision.get("rule", "")).startswith(discard_rule))
    for p in range(n):
        isk = view["players"][p]["isk"]
        if not 0 <= isk <= MAX_ISK:
            bad.append(f"seat {p + 1} has {isk} Z")
        held = view["zones"][f"minerals:{p}"]["count"]
        if held > MAX_MINERALS and not discarding:
            bad.append(f"seat {p + 1} holds {held} Minerals")
        if discarding and view["players"][p]["name"] == decision.get("player_name") and held <= MAX_MINERALS:
            bad.append(f"seat {p + 1} is asked to discard down holding {held} Minerals")
    return bad


def observed(eng: Engine) -> dict:
    """Player 1's view, with the name of the player the pending decision belongs to."""
    view = eng.view(0)
    d = eng.pending
    if d is not None:
        view["decision"] = {"player_name": view["players"][d.player]["name"],
                            "prompt": d.prompt, "rule": d.rule}
    return view


def play_checked(game, players: int, seed: int) -> dict:
    """Play one random game, checking the caps before every decision and at the end."""
    eng = Engine(game, players, seed, log=False)
    agents = default_agents(players, seed)
    rule = minerals_rule()
    decisions, discards, most_minerals, most_isk = 0, 0, 0, 0
    while not eng.finished:
        view = observed(eng)
        bad = cap_breaches(view, players, rule)
        assert not bad, f"{players} players, seed {seed}, decision {decisions}: {bad}"
        d = eng.pending
        assert d is not None, "the engine is neither finished nor waiting for a decision"
        if d.prompt == f"Discard down to {MAX_MINERALS}":
            discards += 1
        most_isk = max([most_isk] + [q["isk"] for q in view["players"]])
        most_minerals = max([most_minerals] + [view["zones"][f"minerals:{p}"]["count"] for p in range(players)])
        assert decisions < MAX_DECISIONS, f"{players} players, seed {seed}: no end after {decisions} decisions"
        eng.decide(agents[d.player].choose(eng.view(d.player), d))
        decisions += 1
    final = observed(eng)
    assert not cap_breaches(final, players, rule), f"{players} players, seed {seed}: at the end"
    assert eng.result is not None and eng.result.get("winners"), eng.result
    assert final["game"]["rounds_played"] <= MAX_ROUNDS
    return {"decisions": decisions, "discards": discards, "most_isk": most_isk, "most_minerals": most_minerals}


# Small: one or two games per player count, in CI.
@pytest.mark.parametrize("players,seed", [(2, 1), (2, 2), (3, 1), (3, 2), (4, 1), (4, 3)])
def test_random_games_keep_z_and_minerals_within_their_caps_and_end(eve, players, seed):
    play_checked(eve, players, seed)


def test_the_caps_are_reached_so_the_check_is_not_vacuous(eve):
    """Random play does hit 49 Z and does go past 12 Minerals (then discards down), within a few
    2-player games (the first seeds that show both are played; a change to the game that
    makes random play stop reaching the caps fails here)."""
    seen = []
    for seed in range(1, 9):
        seen.append(play_checked(eve, 2, seed))
        if max(s["most_isk"] for s in seen) == MAX_ISK and max(s["most_minerals"] for s in seen) > MAX_MINERALS:
            break
    assert max(s["most_isk"] for s in seen) == MAX_ISK
    assert max(s["most_minerals"] for s in seen) > MAX_MINERALS
    assert sum(s["discards"] for s in seen) > 0


def test_the_cap_check_catches_too_much_z_and_too_many_minerals(eve):
    """The checker can fail: doctor a view and watch it object."""
    eng = Engine(eve, 2, 1, log=False)
    rule = minerals_rule()
    view = observed(eng)
    assert cap_breaches(view, 2, rule) == []
    view["players"][1]["isk"] = MAX_ISK + 1
    view["zones"]["minerals:0"]["count"] = MAX_MINERALS + 1
    assert cap_breaches(view, 2, rule) == ["seat 1 holds 13 Minerals", "seat 2 has 50 Z"]
    # while a "Discard down to 12" is asked (of its owner, who holds more than 12), nobody is
    # held to 12 yet: one move may have taken several players past it
    view["players"][1]["isk"] = 0
    view["decision"] = {"player_name": view["players"][0]["name"], "prompt": "Discard down to 12",
                        "rule": rule + "1"}
    view["zones"]["minerals:1"]["count"] = MAX_MINERALS + 2
    assert cap_breaches(view, 2, rule) == []
    view["decision"]["player_name"] = view["players"][1]["name"]
    view["zones"]["minerals:1"]["count"] = MAX_MINERALS
    assert cap_breaches(view, 2, rule) == ["seat 2 is asked to discard down holding 12 Minerals"]
    view["decision"] = {"player_name": view["players"][1]["name"], "prompt": "Choose an action", "rule": "x"}
    assert cap_breaches(view, 2, rule) == ["seat 1 holds 13 Minerals"]


@pytest.mark.slow
@settings(max_examples=12, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(players=st.integers(min_value=2, max_value=4), seed=st.integers(min_value=0, max_value=10**6))
def test_more_random_games_keep_the_caps_and_end(eve, players, seed):
    play_checked(eve, players, seed)


# ---------------------------------------------------------------- Combat cards in random games

COMBAT_ACTIONS = ("Play in combat", "Use in combat")


def combat_card_uses(game, players: int, seed: int) -> tuple[list[tuple[str, str]], list[str]]:
    """Play one random game with its log; return the Combat cards played (Events with the
    Combat keyword, Developments with Use in combat), and what is wrong with them: each must be
    used during a battle (between a combat round's start and the battle's end) by one of its two
    players, after an attack's dice were rolled, and a Development at most once per round."""
    eng = Engine(game, players, seed, log=True)
    agents = default_agents(players, seed)
    while not eng.finished:
        d = eng.pending
        eng.decide(agents[d.player].choose(eng.view(d.player), d))
    names = eng.player_names
    used, bad = [], []
    fighters: tuple[str, str] | None = None
    rolled = False
    tapped_this_round: set[tuple[int, str]] = set()
    for e in eng.log:
        kind = e["event"]
        if kind == "round":
            tapped_this_round.clear()
        elif kind == "event" and e.get("name") == "combat_round_started":
            fighters = (e["attacker"], e["defender"])
        elif kind == "event" and e.get("name") == "attack_dice_rolled":
            rolled = True
        elif kind == "event" and e.get("name") == "attack_rolled":
            rolled = False
        elif kind == "event" and e.get("name") == "battle_ended":
            fighters = None
        elif kind == "stack" and e.get("action") in COMBAT_ACTIONS:
            who = names[e["player"]]
            used.append((e["action"], e["card"]))
            if fighters is None or who not in fighters:
                bad.append(f"seed {seed}: {who} used {e['card']} outside a battle they fight")
            if not rolled:
                bad.append(f"seed {seed}: {e['card']} used before an attack's dice were rolled")
            if e["action"] == "Use in combat":
                key = (e["player"], e["card"])
                if key in tapped_this_round:
                    bad.append(f"seed {seed}: {who} used {e['card']} twice in a round")
                tapped_this_round.add(key)
    return used, bad


def test_combat_cards_are_played_in_random_battles_and_only_there(eve):
    """Random 4-player games do fight battles in which Combat Events are played and Developments
    with Use in combat are tapped (the first seeds that show both are played, so a change that
    makes them unplayable fails here), and each was used inside a battle its player fights,
    after an attack's dice were rolled, a Development at most once per round."""
    used, bad = [], []
    for seed in range(1, 13):
        u, b = combat_card_uses(eve, 4, seed)
        used += u
        bad += b
        if {a for a, _ in used} == set(COMBAT_ACTIONS):
            break
    assert not bad, bad
    assert {a for a, _ in used} == set(COMBAT_ACTIONS), f"in 12 random 4-player games, only {used}"
