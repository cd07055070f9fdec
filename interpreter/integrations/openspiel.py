"""Any .cards game as an OpenSpiel Python game (needs the `openspiel` extra: open-spiel).

    from cardsmith.interpreter.integrations import openspiel as cs_openspiel
    name = cs_openspiel.register("games/my_game.cards")             # "cardsmith_my_game"
    game = pyspiel.load_game(name)                                  # or load_game(name, {"players": 2})
    # or, without registering a name per file:
    game = pyspiel.load_game("cardsmith", {"file": "games/my_game.cards"})

The game (issue 17 names the module `cardsmith.integrations.openspiel`; cardsmith's import
packages are `cardsmith.dsl` and `cardsmith.interpreter`, so it lives here):

- is sequential, with chance, imperfect information, terminal rewards, constant-sum;
- starts at a chance node: its outcome picks the seed of cardsmith's own random generator
  among `seeds` equally likely ones (every shuffle, die and draw follows from it);
- a player's legal actions are the indexes of the options of the decision they face, in
  order (`table.py` says how many actions there are); an action's string is the option's label;
- the information state of a player is their view (`Engine.view`) and the decisions they
  made so far (prompt and label); the observation is the view alone; both as strings
  (JSON) and tensors (`Table.encode`, from the view);
- returns: the winners share 1 (a draw gives each player 1/n); a game a rule aborts ends
  as a draw;
- `resample_from_infostate` deals the hidden cards again as `interpreter/determinize.py`
  does, so OpenSpiel's ISMCTS bot samples only what the player may believe.
"""
from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
import pyspiel

from ..determinize import determinizer_for
from ..engine import Engine
from ..errors import GameAborted
from .table import Table, describe, load_file, table_for

GENERIC_NAME = "cardsmith"
DEFAULT_SEEDS = 100
_PARAMETERS = {"file": "", "players": 0, "seeds": DEFAULT_SEEDS, "max_actions": 0, "max_length": 0}
_MAX_PLAYERS = 100
def _game_type(short_name: str, long_name: str, min_players: int, max_players: int,
               file: str = "") -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.CONSTANT_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max_players,
        min_num_players=min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(_PARAMETERS, file=file))


class CardsmithGame(pyspiel.Game):
    """One .cards file at one player count, as OpenSpiel sees it."""

    game_type = _game_type(GENERIC_NAME, "cardsmith game (file=...)", 1, _MAX_PLAYERS)

    def __init__(self, params=None):
        params = dict(params or {})
        spec = {**self.game_type.parameter_specification, **params}
        self.card_game = load_file(str(spec["file"]))
        players = int(spec["players"]) or self.card_game.min_players
        if not self.card_game.min_players <= players <= self.card_game.max_players:
            raise ValueError(f"{self.card_game.title} is for {self.card_game.min_players} to "
                             f"{self.card_game.max_players} players, not {players}")
        self.seeds = max(1, int(spec["seeds"]))
        self.table: Table = table_for(self.card_game, players, int(spec["max_actions"]), int(spec["max_length"]))
        info = pyspiel.GameInfo(
            num_distinct_actions=self.table.actions,
            max_chance_outcomes=self.seeds,
            num_players=players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=self.table.max_length)
        super().__init__(self.game_type, info, params)

    def new_initial_state(self):
        return CardsmithState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return CardsmithObserver(self.table, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False),
                                 params)


class _Live:
    """The engine inside a state. OpenSpiel clones states with deepcopy; a clone of the engine
    is a save and a restore (the game's rules, compiled once, are shared, never copied)."""

    __slots__ = ("eng",)

    def __init__(self, eng: Engine | None):
        self.eng = eng

    def __deepcopy__(self, memo):
        if self.eng is None:
            return _Live(None)
        return _Live(Engine.restore(self.eng.game, self.eng.save(), log=False))

    def __reduce__(self):   # pickled (OpenSpiel serializes states) as the file and the saved game
        if self.eng is None:
            return (_Live, (None,))
        # not save_json: it sorts keys, and the order of the zones is part of the game
        return (_live_from, (self.eng.game.path, json.dumps(self.eng.save())))


def _live_from(path: str, saved: str) -> _Live:
    return _Live(Engine.restore(load_file(path), saved, log=False))


class CardsmithState(pyspiel.State):
    def __init__(self, game: CardsmithGame):
        super().__init__(game)
        self._table = game.table
        self._seeds = game.seeds
        self._live = _Live(None)
        self._made: list[list[str]] = [[] for _ in range(game.table.players)]   # per player: own choices
        self._aborted = False

    # -- whose turn

    def current_player(self):
        eng = self._live.eng
        if eng is None:
            return pyspiel.PlayerId.CHANCE
        if self._aborted or eng.finished:
            return pyspiel.PlayerId.TERMINAL
        return eng.pending.player

    def is_terminal(self):
        eng = self._live.eng
        return eng is not None and (self._aborted or eng.finished)

    def chance_outcomes(self):
        p = 1.0 / self._seeds
        return [(seed, p) for seed in range(self._seeds)]

    def _legal_actions(self, player):
        eng = self._live.eng
        if eng is None or eng.pending is None or eng.pending.player != player:
            return []
        return list(range(len(eng.pending.options)))

    # -- moves

    def _apply_action(self, action):
        eng = self._live.eng
        try:
            if eng is None:
                self._live.eng = Engine(self._table.game, self._table.players, int(action), log=False)
            else:
                decision = eng.pending
                self._made[decision.player].append(f"{decision.prompt}: {decision.options[action]}")
                eng.decide(int(action))
        except GameAborted:
            self._aborted = True
            if self._live.eng is None:          # aborted while setting up: nobody could play it
                raise
            return
        self._table.check_options(self._live.eng)

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed {action}"
        eng = self._live.eng
        if eng is not None and eng.pending is not None and eng.pending.player == player \
                and 0 <= action < len(eng.pending.options):
            options = eng.pending.options
            label = options[action]
            # OpenSpiel wants one string per action: two options read the same (two copies of
            # a card), so each is told by its number
            return f"{label} [{action + 1}]" if options.count(label) > 1 else label
        return f"option {action + 1}"

    def returns(self):
        n = self._table.players
        eng = self._live.eng
        if eng is None or not self.is_terminal():
            return [0.0] * n
        winners = [] if self._aborted else eng.result["winners"]
        if not winners:
            return [1.0 / n] * n
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(n)]

    # -- what a player knows

    def view(self, player: int) -> dict:
        """The engine's view for `player` (an empty one before the chance node)."""
        eng = self._live.eng
        return eng.view(player) if eng is not None else {}

    def resample_from_infostate(self, player_id, probability_sampler=None):
        """A state `player_id` cannot tell from this one: the hidden cards dealt again and the
        random generator reseeded (interpreter/determinize.py)."""
        eng = self._live.eng
        clone = self.clone()
        if eng is None or self.is_terminal():
            return clone
        draw = probability_sampler() if probability_sampler is not None else random.random()
        rng = random.Random(int(draw * 2 ** 52))
        data = determinizer_for(eng.game).sample(eng, player_id, rng)
        clone._live = _Live(Engine.restore(eng.game, data, log=False))
        return clone

    def __str__(self):
        eng = self._live.eng
        if eng is None:
            return "(before the deal)"
        st = eng.state
        zones = " ".join(f"{key}={[st.cards[c]['name'] for c in cards]}" for key, cards in st.zones.items())
        return f"round {st.round}; {zones}; result {st.result}"


class CardsmithObserver:
    """OpenSpiel's observer: the view as a tensor (`Table.encode`) and as a JSON string; with
    perfect recall, the player's own past choices too (in the string)."""

    def __init__(self, table: Table, iig_obs_type, params):
        if params:
            raise ValueError(f"a cardsmith observer takes no parameters, got {params}")
        self.table = table
        self.recall = bool(iig_obs_type.perfect_recall)
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.tensor = np.zeros(table.view_size, np.float32)
        self.dict = {"view": self.tensor}

    def _view(self, state: CardsmithState, player: int) -> dict:
        if state._live.eng is None:
            return {}
        # without private information: what a seat that holds nothing sees (public cards only)
        return state.view(player if self.private else -1)

    def set_from(self, state: CardsmithState, player: int) -> None:
        view = self._view(state, player)
        if not view:
            self.tensor.fill(0)
            return
        self.table.encode(view, self.tensor)

    def string_from(self, state: CardsmithState, player: int) -> str:
        view = self._view(state, player)
        if not view:
            return f"player {player}: before the deal"
        text = describe(view)
        if self.recall:
            text += " | chose: " + describe(state._made[player])
        return text


pyspiel.register_game(CardsmithGame.game_type, CardsmithGame)
_registered: dict[str, str] = {}    # file path -> short name


def short_name_for(path: str) -> str:
    """`games/my_game.cards` → `cardsmith_my_game`."""
    stem = re.sub(r"[^a-z0-9]+", "_", Path(path).stem.lower()).strip("_") or "game"
    return f"cardsmith_{stem}"


def register(path: str, short_name: str | None = None) -> str:
    """Register the game in `path` under its own name (default `short_name_for(path)`), so that
    `pyspiel.load_game(name)` loads it; returns the name. Registering a file twice is harmless."""
    key = str(Path(path).resolve())
    if key in _registered:
        return _registered[key]
    card_game = load_file(key)
    name = short_name or short_name_for(key)
    game_type = _game_type(name, f"cardsmith: {card_game.title}", card_game.min_players,
                           card_game.max_players, file=key)
    cls = type(f"CardsmithGame_{name}", (CardsmithGame,), {"game_type": game_type})
    pyspiel.register_game(game_type, cls)
    _registered[key] = name
    return name


def load(path: str, players: int | None = None, **params) -> CardsmithGame:
    """`pyspiel.load_game` on the file, registered first; `players` defaults to the game's minimum."""
    name = register(path)
    if players is not None:
        params["players"] = players
    return pyspiel.load_game(name, params)


__all__ = ["CardsmithGame", "CardsmithState", "CardsmithObserver", "register", "load", "short_name_for",
           "GENERIC_NAME"]
