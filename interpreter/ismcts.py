"""ISMCTS: information-set Monte Carlo tree search (Cowling, Powley & Whitehouse 2012, SO-ISMCTS).

Each iteration deals a fresh sample of the game as the searching player may believe it is
(`interpreter/determinize.py`: only what that player's view allows; never the true hidden
cards nor the true random generator), then walks one tree shared by all samples:

1. selection: at each decision, among the options this sample offers, pick the child with
   the best UCB1 score, where a child's "tries" count the times it was available (options
   differ between samples, so a rarely offered option is not starved);
2. expansion: the first option of a decision not yet in the tree is added;
3. playout: random choices to the end of the game, or to `playout_limit` decisions, where
   the game's value (`value for p as ...`, else its score) ranks the players;
4. back-propagation: each node counts the result for the player who made that choice
   (1 for a win, shared among winners; 1/n each for a draw or an unranked cut-off).

Options are told apart by their labels (what a player reads), so a choice means the same in
every sample. The budget is `iterations` (the same every run: a game with ISMCTS players
replays identically from its seeds) or `milliseconds` (a wall-clock budget: stronger on a
fast machine, and not replayable). The agent draws everything from its own `random.Random(seed)`.
"""
from __future__ import annotations

import math
import random
import time
from typing import TYPE_CHECKING

from .determinize import determinizer_for
from .errors import GameAborted
from .greedy import standing_for

if TYPE_CHECKING:
    from .engine import Decision, Engine

EXPLORATION = 0.7       # UCB1's constant for rewards in [0, 1]; sqrt(2)/2 as in the SO-ISMCTS paper


class _Node:
    __slots__ = ("children", "visits", "avail", "reward")

    def __init__(self):
        self.children: dict[tuple[int, str], _Node] = {}    # (player, option label) -> node after it
        self.visits = 0
        self.avail = 0
        self.reward = 0.0


def _labelled(decision: "Decision") -> dict[tuple[int, str], int]:
    """(player, label) -> the first option index with that label (equal labels are one choice)."""
    out: dict[tuple[int, str], int] = {}
    for i, label in enumerate(decision.options):
        out.setdefault((decision.player, label), i)
    return out


class ISMCTSAgent:
    """Search over samples of the hidden cards; `iterations` or `milliseconds` per decision."""

    searches = True         # run_game hands it the engine (it reads it only through determinize)

    def __init__(self, seed: int | None = None, iterations: int | None = 200,
                 milliseconds: float | None = None, playout_limit: int = 200,
                 exploration: float = EXPLORATION, sampler=None):
        if milliseconds is None and (iterations is None or iterations < 1):
            raise ValueError("ISMCTS needs a budget: at least 1 iteration, or some milliseconds")
        if milliseconds is not None and milliseconds <= 0:
            raise ValueError(f"ISMCTS needs a positive number of milliseconds, got {milliseconds}")
        self.seed = seed
        self.iterations = None if milliseconds is not None else iterations
        self.milliseconds = milliseconds
        self.playout_limit = playout_limit
        self.exploration = exploration
        self.rng = random.Random(seed)
        # what it believes the game is: determinize.Determinizer (a test hands it one that peeks)
        self.sampler = sampler
        self.last_iterations = 0        # how many the last decision ran (for the docs' costs)

    def choose(self, view: dict, decision: "Decision") -> int:
        raise TypeError("the ISMCTS agent searches: it needs the game (choose_in), not only a view")

    def choose_in(self, eng: "Engine") -> int:
        decision = eng.pending
        if len(decision.options) == 1:
            return 0
        player = decision.player
        sampler = self.sampler or determinizer_for(eng.game)
        base = eng.save()
        root = _Node()
        deadline = None if self.milliseconds is None else time.perf_counter() + self.milliseconds / 1000
        done = 0
        while True:
            if deadline is None:
                if done >= self.iterations:
                    break
            elif done > 0 and time.perf_counter() >= deadline:
                break
            self._iterate(eng, root, sampler.sample(eng, player, self.rng, base))
            done += 1
        self.last_iterations = done
        labelled = _labelled(decision)
        best = max(labelled, key=lambda key: (root.children[key].visits if key in root.children else -1,
                                              -labelled[key]))
        return labelled[best]

    # ---------------------------------------------------------------- one iteration

    def _iterate(self, eng: "Engine", root: _Node, data: dict) -> None:
        from .engine import Engine
        sim = Engine.restore(eng.game, data, log=False)
        node, path = root, []       # [(node, player who chose it)]
        try:
            while not sim.finished:                 # selection, then one expansion
                decision = sim.pending
                labelled = _labelled(decision)
                untried = [key for key in labelled if key not in node.children]
                for key in labelled:
                    child = node.children.get(key)
                    if child is not None:
                        child.avail += 1
                if untried:
                    key = untried[self.rng.randrange(len(untried))]
                    child = node.children[key] = _Node()
                    child.avail = 1
                    path.append((child, decision.player))
                    sim.decide(labelled[key])
                    break
                key = self._select(node, labelled)
                node = node.children[key]
                path.append((node, decision.player))
                sim.decide(labelled[key])
            rewards = self._playout(sim)
        except GameAborted:             # a sample the rules cannot go on from: nobody gains
            rewards = [1.0 / sim.n] * sim.n
        for child, who in path:
            child.visits += 1
            child.reward += rewards[who]

    def _select(self, node: _Node, labelled: dict) -> tuple[int, str]:
        c = self.exploration
        best, best_score = None, -math.inf
        for key in labelled:
            child = node.children[key]
            score = child.reward / child.visits + c * math.sqrt(math.log(child.avail) / child.visits) \
                if child.visits else math.inf
            if score > best_score:
                best, best_score = key, score
        return best

    def _playout(self, sim: "Engine") -> list[float]:
        """Random choices to the end (or the limit); each player's reward in [0, 1]."""
        rng = self.rng
        for _ in range(self.playout_limit):
            if sim.finished:
                break
            sim.decide(rng.randrange(len(sim.pending.options)))
        return rewards_of(sim)

    def __repr__(self) -> str:
        budget = f"milliseconds={self.milliseconds}" if self.milliseconds is not None else f"iterations={self.iterations}"
        return f"ISMCTSAgent(seed={self.seed!r}, {budget})"


def rewards_of(sim: "Engine") -> list[float]:
    """Each player's reward: a finished game's winners share 1; a game cut short ranks the
    players by the game's value (the best share 1); without one, everyone gets 1/n."""
    n = sim.n
    result = sim.result
    if result is not None:
        winners = result["winners"]
        if not winners:
            return [1.0 / n] * n
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(n)]
    standing = standing_for(sim.game)
    values = [standing.value(sim, p) for p in range(n)]
    if any(v is None for v in values):
        return [1.0 / n] * n
    top = max(values)
    best = [p for p in range(n) if values[p] == top]
    if len(best) == n:
        return [1.0 / n] * n
    return [1.0 / len(best) if p in best else 0.0 for p in range(n)]
