"""Scenarios: rules tests written in the language (brief item 11).

    scenario "A tie goes to War" with 2 players:
        give seat 1 the choice Dwarves      # script the next choices of a player
        play setup                           # the game's own setup
        put_on_top(seat 1, "Axe Pilot")      # stack the decks with ordinary rules
        play 1 round
        expect count(cards in seat 1's discard) = 8

A scenario fails when an `expect` is false, when a player must decide something the
scenario did not script (strict choice), or when a rule fails while running.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from cardsmith.dsl.model import Game

from .engine import Engine
from .errors import GameAborted
from .program import program_for


@dataclass
class ScenarioResult:
    name: str
    players: int
    ok: bool
    failures: list[str] = field(default_factory=list)     # "file:line:col: what went wrong"
    log: list[dict] = field(default_factory=list)


def run_scenario(game: Game, name: str, seed: int = 0) -> ScenarioResult:
    prog = program_for(game)
    decl = next(s for s in game.decls.scenarios if s.name == name)
    players = decl.players or game.min_players
    failures: list[str] = []
    eng = None
    try:
        eng = Engine(game, players, seed, _start=prog.scenarios[name], _scenario=True)
        if eng.pending is not None:
            p = eng.pending
            failures.append(f"{p.rule}: the scenario has no answer for {eng.player_names[p.player]}'s "
                            f"choice '{p.prompt}' (options: {', '.join(p.options)}); script it with give")
        failures.extend(f"{where}: expectation failed" for where in eng.state.failures)
    except GameAborted as err:
        d = err.diagnostics[0]
        failures.append(f"{d.span.short}: {d.message}")
    return ScenarioResult(name, players, not failures, failures, eng.log if eng is not None else [])


def run_scenarios(game: Game, seed: int = 0) -> list[ScenarioResult]:
    return [run_scenario(game, s.name, seed) for s in game.decls.scenarios]
