"""Play one game to the end: the engine presents decisions, the agents answer.

    eng = run_game(load_game("games/space_war_in_space.cards"), players=4, seed=1)
    eng.result   # {"winners": [2], "draw": False, "rounds": 57, "steps": 1234}
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from .agents import Agent, RandomAgent, random_bits
from .decisions import drawing_ask
from .errors import GameAborted

if TYPE_CHECKING:
    from .engine import Engine


def default_agents(players: int, seed: int) -> list[Agent]:
    """One ``RandomAgent`` per seat, seeded ``seed * 1000 + seat``."""
    return [RandomAgent(seed * 1000 + seat) for seat in range(players)]


def run_game(game, players: int, seed: int, agents: Sequence[Agent] | None = None,
             log: bool = True, max_steps: int | None = None, *,
             observe: Callable[["Engine"], None] | None = None, tally=None, decks=None) -> "Engine":
    """Create the engine and ask the agents until the game is finished; return the engine.

    ``agents`` holds one agent per seat (default: ``default_agents(players, seed)``).
    ``max_steps`` is handed to the engine as its step bound when given. ``observe``, if
    given, is called with the engine once it is created and after every decision (the
    CLI uses it to print the log as the game goes). ``tally`` (interpreter/report.py) counts
    decisions, announced events and who had, drew and played which card. ``decks``: card names by
    seat for a game with deck rules (a seat left out gets a random legal deck). Raises the engine's ``GameAborted``
    when the game runs past its bound and ``IllegalDecision`` on a bad answer.
    """
    from .engine import Engine   # here, so that the CLI starts without loading the engine
    if agents is None:
        agents = default_agents(players, seed)
    elif len(agents) != players:
        raise ValueError(f"run_game needs one agent per seat: {players} seats, {len(agents)} agents")
    options = {"max_steps": max_steps} if max_steps is not None else {}
    if tally is not None:       # what a simulation counts (interpreter/report.py Tally)
        options["tally"] = tally
    if decks:                   # the players' decks by seat (interpreter/decks.py); else random legal ones
        options["decks"] = decks
    eng = Engine(game, players=players, seed=seed, log=log, **options)
    if observe is not None:
        observe(eng)
    # what each seat's agent needs, read once (class attributes): greedy and ISMCTS search (they
    # sample what the player may believe from the engine), most others read the view, a random
    # agent neither, nor the labels: its index is drawn from the number of options alone
    searches = [getattr(agent, "searches", False) for agent in agents]
    views = [getattr(agent, "needs_view", True) for agent in agents]
    bits = [random_bits(agent) for agent in agents]
    st = eng.m.st
    decide, run = eng.m.decide, eng.m.run
    if observe is None and any(draw is not None for draw in bits):
        # nobody reads a decision between two answers: the random seats answer as the machine
        # asks (decisions.drawing_ask, the machine's `ask` while this game plays), each drawing
        # what it would have drawn here, logged as `decide` logs it
        eng.m.drawn = bits
        eng.m.ask = drawing_ask(eng.m, bits)
    try:
        _loop(eng, agents, observe, st, searches, views, bits, decide, run)
    finally:
        eng.m.drawn = None
        eng.m.__dict__.pop("ask", None)
    return eng


def _loop(eng, agents, observe, st, searches, views, bits, decide, run) -> None:
    """run_game's loop: each decision the machine stops at answered by its seat's agent."""
    while st.result is None:        # eng.finished
        p = st.pending
        if p is None:
            raise RuntimeError("the engine is neither finished nor waiting for a decision")
        seat = p["player"]
        draw = bits[seat]
        n = len(p["options"])
        if draw is not None and n:
            # RandomAgent.choose: randrange(n), as Random._randbelow_with_getrandbits draws it;
            # an index so drawn is an option's (Engine.decide's checks hold)
            k = n.bit_length()
            index = draw(k)
            while index >= n:
                index = draw(k)
            try:                    # Engine._run
                decide(index)
                run()
            except GameAborted as err:
                eng._aborted(err)
                raise
        else:
            decision = eng.pending
            if searches[seat]:
                index = agents[seat].choose_in(eng)
            else:
                index = agents[seat].choose(eng.view(seat) if views[seat] else {}, decision)
            eng.decide(index)
        if observe is not None:
            observe(eng)


class PlayerCountError(ValueError):
    """The game is not for that many players."""


def check_player_count(game, players: int) -> None:
    """Raise ``PlayerCountError`` unless ``game`` is for ``players`` players."""
    if not game.min_players <= players <= game.max_players:
        span = (f"{game.min_players}" if game.min_players == game.max_players
                else f"{game.min_players} to {game.max_players}")
        raise PlayerCountError(f"{game.title} is for {span} players, not {players}")
