"""Scenarios: rules tests written in the language (brief item 11).

    scenario "A tie is played out" with 2 players:
        give seat 1 the choice Red          # script the next choices of a player
        play setup                           # the game's own setup
        put_on_top(seat 1, "Blue Flame")     # stack the decks with ordinary rules
        play 1 round
        expect count(cards in seat 1's discard) = 8

A scenario fails when an `expect` is false (the failure says the condition as written, the
values of its parts and the last lines of the log), when a player must decide something the
scenario did not script (strict choice), when an answer it scripted is never used, or when a
rule fails while running. A scenario declared `with seed N` runs with that seed.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.model import Game

from .engine import Engine
from .program import program_for


@dataclass
class ScenarioResult:
    name: str
    players: int
    ok: bool
    failures: list[str] = field(default_factory=list)     # "file:line:col: what went wrong"
    log: list[dict] = field(default_factory=list)


def run_scenario(game: Game, name: str, seed: int = 0, max_steps: int | None = None) -> ScenarioResult:
    """Run one scenario. Whatever goes wrong in it — an expectation, an unscripted choice, a
    rule failing, a player count the game does not allow — is a located failure of this
    scenario, never an error that stops the others."""
    prog = program_for(game)
    decl = next(s for s in game.decls.scenarios if s.name == name)
    players = decl.players or game.min_players
    seed = decl.seed if decl.seed is not None else seed
    failures: list[str] = []
    if not game.min_players <= players <= game.max_players:
        failures.append(f"{decl.span.short}: the scenario is played with {players} players, but "
                        f"{game.title} is for {game.min_players} to {game.max_players}")
        return ScenarioResult(name, players, False, failures, [])
    eng = None
    log: list[dict] = []
    options = {"max_steps": max_steps} if max_steps is not None else {}
    try:
        eng = Engine(game, players, seed, _start=prog.scenarios[name], _scenario=True, **options)
        log = eng.log
        if eng.pending is not None:
            p = eng.pending
            failures.append(f"{p.rule}: the scenario has no answer for {eng.player_names[p.player]}'s "
                            f"choice '{p.prompt}' (options: {', '.join(p.options)}); script it with give")
        failures.extend(_failure(f) for f in eng.state.failures)
        for seat, answers in sorted(eng.state.script.items(), key=lambda item: int(item[0])):
            for _, given, shown, *_ in answers:
                failures.append(f"{given}: the scenario gives {eng.player_names[int(seat)]} the choice "
                                f"{shown}, but no question used it (a question with one possible answer "
                                f"is not asked)")
    except CardsmithError as err:       # GameAborted, or the engine refusing to start
        d = err.diagnostics[0]
        event_log = getattr(err, "event_log", None)
        log = event_log.events if event_log is not None else []
        # the expectations that failed before the abort are failures too (their log lines say where)
        failures.extend(f"{e['rule']}: expectation failed (before the scenario stopped)"
                        for e in log if e["event"] == "expect" and not e["ok"])
        failures.append(f"{d.span.short}: {d.message}" + (f"\n    {d.hint}" if d.hint else ""))
    return ScenarioResult(name, players, not failures, failures, log)


def _failure(f: list) -> str:
    """One failure kept by the machine, its lines [where, what failed, why, ...]
    (interpreter/compile_scenario.py), as the report prints it: the reasons indented below."""
    where, what, *why = f
    return f"{where}: {what}" + "".join(f"\n    {line}" for line in why)


def run_scenarios(game: Game, seed: int = 0, max_steps: int | None = None) -> list[ScenarioResult]:
    return [run_scenario(game, s.name, seed, max_steps) for s in game.decls.scenarios]
