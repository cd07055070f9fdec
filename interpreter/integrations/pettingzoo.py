"""Any .cards game as a PettingZoo AEC environment (needs the `pettingzoo` extra).

    from cardsmith.interpreter.integrations.pettingzoo import env
    e = env("games/my_game.cards")                     # players: the game's minimum
    e.reset(seed=1)
    for agent in e.agent_iter():
        observation, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else e.action_space(agent).sample(observation["action_mask"])
        e.step(action)

(The issue names the module `cardsmith.integrations.pettingzoo`; cardsmith's import packages
are `cardsmith.dsl` and `cardsmith.interpreter`, so it lives here.)

- agents are `player_0`, `player_1`, ... in seat order; the agent to act is the player the
  game's pending decision asks;
- an observation is a dict: `observation`, the player's view as a fixed-length float32
  vector (`table.py`), and `action_mask`, 1 for each option of the decision the player
  faces now (all 0 when it is not their decision);
- an action is the index of an option (`Discrete(n)`, n as `table.py` sizes it);
- rewards come at the end, from the result: the winners share 1 (a draw gives each 1/n);
  a game a rule aborts is truncated for every player, with no reward;
- `reset(seed=s)` starts the game with cardsmith's seed s (the same seed and actions give
  the same game); `env.view(agent)` is the engine's view itself, and `render()` shows it
  (through the terminal sanitiser: the game's names are a stranger's text).
"""
from __future__ import annotations

import random

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from cardsmith.dsl.terminal import for_terminal

from ..agents import format_view
from ..engine import Engine
from ..errors import GameAborted
from .table import Table, load_file, table_for


def env(path: str, players: int | None = None, render_mode: str | None = None, **sizes) -> "CardsmithEnv":
    """The game in `path` as an AEC environment (`sizes`: max_actions, max_length, see table.py)."""
    return CardsmithEnv(path, players, render_mode, **sizes)


class CardsmithEnv(AECEnv):
    metadata = {"render_modes": ["ansi", "human"], "name": "cardsmith_v0", "is_parallelizable": False}

    def __init__(self, path: str, players: int | None = None, render_mode: str | None = None,
                 max_actions: int = 0, max_length: int = 0):
        super().__init__()
        game = load_file(path)
        n = players if players is not None else game.min_players
        if not game.min_players <= n <= game.max_players:
            raise ValueError(f"{game.title} is for {game.min_players} to {game.max_players} players, not {n}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.render_mode = render_mode
        self.table: Table = table_for(game, n, max_actions, max_length)
        self.possible_agents = [f"player_{seat}" for seat in range(n)]
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        size, actions = self.table.view_size, self.table.actions
        self.observation_spaces = {
            agent: spaces.Dict({
                "observation": spaces.Box(-np.inf, np.inf, (size,), np.float32),
                "action_mask": spaces.Box(0, 1, (actions,), np.int8),
            }) for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(actions) for agent in self.possible_agents}
        self.engine: Engine | None = None
        self.metadata = dict(self.metadata, name=f"cardsmith_{game.title}")

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ---------------------------------------------------------------- the game

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is None:
            seed = random.SystemRandom().randrange(2 ** 31)
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: {} for agent in self.agents}
        try:
            self.engine = Engine(self.table.game, len(self.possible_agents), int(seed), log=False)
        except GameAborted as err:
            self._stop_aborted(err)
            return
        self._after_move()

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        eng = self.engine
        options = len(eng.pending.options)
        if action is None or not 0 <= int(action) < options:
            raise ValueError(f"{agent} must answer '{eng.pending.prompt}' with an action from 0 to "
                             f"{options - 1} (see observation['action_mask']), not {action!r}")
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        try:
            eng.decide(int(action))
        except GameAborted as err:
            self._stop_aborted(err)
            return
        self._after_move()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _after_move(self) -> None:
        eng = self.engine
        if eng.finished:
            n = len(self.possible_agents)
            winners = eng.result["winners"]
            for agent in self.agents:
                seat = self._seat[agent]
                self.rewards[agent] = (1.0 / len(winners) if seat in winners else 0.0) if winners else 1.0 / n
                self.terminations[agent] = True
            if self.agent_selection_missing():
                self.agent_selection = self.agents[0]
            return
        self.table.check_options(eng)
        self.agent_selection = self.possible_agents[eng.pending.player]

    def agent_selection_missing(self) -> bool:
        return getattr(self, "agent_selection", None) not in self.agents

    def _stop_aborted(self, err: GameAborted) -> None:
        """A rule stopped the game (a bound, a rule that cannot go on): truncated for everyone."""
        for agent in self.agents:
            self.truncations[agent] = True
            self.infos[agent] = {"aborted": str(err).splitlines()[0] if str(err) else "aborted"}
        if self.agent_selection_missing():
            self.agent_selection = self.agents[0]

    # ---------------------------------------------------------------- what an agent sees

    def observe(self, agent):
        seat = self._seat[agent]
        mask = np.zeros(self.table.actions, np.int8)
        if self.engine is None:
            return {"observation": np.zeros(self.table.view_size, np.float32), "action_mask": mask}
        view = self.engine.view(seat)
        pending = self.engine.pending
        if pending is not None and pending.player == seat and not self.truncations.get(agent, False):
            mask[:len(pending.options)] = 1
        return {"observation": self.table.encode(view), "action_mask": mask}

    def view(self, agent: str) -> dict:
        """The engine's own view for the agent (names, zones, the decision's prompt and labels)."""
        return self.engine.view(self._seat[agent])

    def render(self):
        if self.render_mode is None or self.engine is None:
            return None
        text = "\n".join(format_view(self.engine.view(self._seat[self.agent_selection])))
        pending = self.engine.pending
        if pending is not None:
            text += f"\n{pending.prompt}: " + ", ".join(f"{i}. {o}" for i, o in enumerate(pending.options))
        if self.render_mode == "human":
            print(for_terminal(text))
            return None
        return text

    def close(self) -> None:
        self.engine = None


__all__ = ["CardsmithEnv", "env"]
