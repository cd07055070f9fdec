"""How well a player stands, and the greedy agent that plays to raise it.

`Standing` reads the game's `value for p as ...` declaration (docs/language.md); a game
without one falls back to the game's score (`score for p as ...`), then to a number
attribute of the players called `score`, and a game with none of them to winning alone. A finished game outranks any value: a win is worth more
than every value, a loss less.

`GreedyAgent` looks one decision ahead: for each option it answers the decision in a
sample of the game as its player may believe it is (`interpreter/determinize.py`: the
cards it cannot see dealt again, the random generator reseeded), runs to the next
decision, and reads its player's standing there. It keeps the option with the best mean
over its samples; ties go to its own seeded generator.
"""
from __future__ import annotations

import random
from typing import TYPE_CHECKING

from .determinize import determinizer_for
from .errors import GameAborted, RuleError

if TYPE_CHECKING:
    from .engine import Decision, Engine

WIN, LOSS = 1e9, -1e9           # a finished game's standing: beyond any value a rule computes
SCORE_ATTRIBUTE = "score"       # the fallback the issue names: "the game's score"


class Standing:
    """`standing(eng, p)`: the declared value of player `p` in the engine's state (a number),
    or None for a game that declares none; `outcome(eng, p)`: WIN / LOSS / 0 once finished."""

    def __init__(self, game):
        from cardsmith.dsl.types import PLAYER, Scope

        from .program import program_for
        d = game.decls
        self.fn = None
        self.name = None
        self.source = "winning"
        declared = d.value if d.value is not None else getattr(d, "score", None)
        if declared is not None:
            # the scope the checker typed it in (dsl/checks/bodies.py): p is a player, so is `you`
            self.fn = program_for(game).exprs.compile(declared.expr, Scope({declared.player: PLAYER}, you=True))
            self.name = declared.player
            self.source = "value" if declared is d.value else "score"
        else:
            fd = d.player_fields.get(SCORE_ATTRIBUTE)
            if fd is not None and fd.type.name == "number" and not fd.type.is_list:
                self.source = "score attribute"

    def value(self, eng: "Engine", player: int) -> float | None:
        """The player's value now, or None when the game gives none (or its rule fails here)."""
        if self.fn is not None:
            try:
                v = self.fn(eng.m, {self.name: player, "$you": player})
            except (RuleError, GameAborted, ZeroDivisionError):
                return None
            return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None
        if self.source == "score attribute":
            v = eng.state.players[player].get(SCORE_ATTRIBUTE)
            return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None
        return None

    def of(self, eng: "Engine", player: int) -> float:
        """One number to compare: WIN / LOSS for a finished game, else the value (0 without one)."""
        result = eng.result
        if result is not None:
            if player in result["winners"]:
                return WIN / max(1, len(result["winners"]))
            return 0.0 if result.get("draw") else LOSS
        v = self.value(eng, player)
        return 0.0 if v is None else v


def standing_for(game) -> Standing:
    found = game._cache.get("standing")
    if found is None:
        found = game._cache["standing"] = Standing(game)
    return found


class GreedyAgent:
    """One-step lookahead on the game's value, over `samples` samples of what it cannot see."""

    searches = True         # run_game hands it the engine (it reads it only through determinize)

    def __init__(self, seed: int | None = None, samples: int = 3):
        if samples < 1:
            raise ValueError(f"the greedy agent needs at least 1 sample, got {samples}")
        self.seed = seed
        self.samples = samples
        self.rng = random.Random(seed)

    def choose(self, view: dict, decision: "Decision") -> int:
        raise TypeError("the greedy agent looks ahead: it needs the game (choose_in), not only a view")

    def choose_in(self, eng: "Engine") -> int:
        from .engine import Engine
        decision = eng.pending
        player, n = decision.player, len(decision.options)
        if n == 1:
            return 0
        game = eng.game
        standing, sampler = standing_for(game), determinizer_for(game)
        base = eng.save()
        totals = [0.0] * n
        for _ in range(self.samples):
            data = sampler.sample(eng, player, self.rng, base)
            for i in range(n):
                trial = Engine.restore(game, data, log=False)
                try:
                    trial.decide(i)
                except GameAborted:
                    totals[i] += LOSS / self.samples      # an option that breaks the game is the worst
                    continue
                totals[i] += standing.of(trial, player) / self.samples
        best = max(totals)
        tied = [i for i, t in enumerate(totals) if t == best]
        return tied[0] if len(tied) == 1 else tied[self.rng.randrange(len(tied))]

    def __repr__(self) -> str:
        return f"GreedyAgent(seed={self.seed!r}, samples={self.samples})"
