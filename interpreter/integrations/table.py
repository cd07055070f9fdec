"""What the research tools need fixed in advance: the size of the action space, a bound on
a game's length, and a fixed-length encoding of a player's view.

cardsmith's decisions have as many options as the rule that asks offers; OpenSpiel and
PettingZoo want a fixed set of actions. An action is an option's index, and the number of
actions is the most options a decision may have: the number of cards (most choices are of
cards), or more if seeded random games of the file show a larger decision. A decision with
more options than that stops the game with a ValueError that says which number to pass.

The encoding reads only `Engine.view(player)` (what that player may see):

- per zone (in the game's zone order, each player's zone apart): how many cards lie there,
  then how many of each card name the player sees there, then — in a game whose card types
  show fields on their backs (`back shows: tier`) — how many of each back the player sees
  there (the backs the card pool starts with, sorted);
- per player, counted from the viewer (the viewer first): out of the game or not, then the
  number and yes/no attributes in the order they are declared;
- the game's number and yes/no attributes; the round; whether a decision is the viewer's.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cardsmith.dsl.loader import load_game

from ..engine import Engine, initial_state
from ..errors import GameAborted

PROBE_GAMES = 8             # seeded random games played to size the action space and the length


_games: dict[str, object] = {}      # file path -> loaded Game: a file is checked once per process


def load_file(path: str):
    """The game in `path`, loaded once per process (clones and unpickled states share it)."""
    if not path:
        raise ValueError("a cardsmith game needs its file: load_game(name, {'file': 'game.cards'})")
    key = str(Path(path).resolve())
    if key not in _games:
        _games[key] = load_game(key)
    return _games[key]


def _numeric_fields(fields: dict) -> list[str]:
    return [name for name, fd in fields.items()
            if not fd.type.is_list and fd.type.name in ("number", "flag")]


@dataclass(frozen=True)
class Table:
    """One game at one player count, with everything sized: built once by `table_for`."""

    game: object
    players: int
    actions: int                # the number of distinct actions (most options of a decision)
    max_length: int             # a bound on the decisions of one game
    zone_keys: tuple[str, ...]
    names: tuple[str, ...]      # distinct card names, sorted
    player_fields: tuple[str, ...]
    game_fields: tuple[str, ...]
    backs: tuple[str, ...] = ()     # distinct backs (`back shows`) as sorted-key JSON, sorted

    def __deepcopy__(self, memo):
        return self         # immutable, and it holds the compiled game: clones of a state share it

    def __reduce__(self):   # pickled (OpenSpiel serializes states) as the file and the sizes
        return (_table_from, (self.game.path, self.players, self.actions, self.max_length))

    @property
    def view_size(self) -> int:
        return (len(self.zone_keys) * (1 + len(self.names) + len(self.backs))
                + self.players * (1 + len(self.player_fields))
                + len(self.game_fields) + 2)

    def encode(self, view: dict, out: np.ndarray | None = None) -> np.ndarray:
        """The view as a flat float32 vector of `view_size` numbers (see the module's docstring)."""
        vec = out if out is not None else np.zeros(self.view_size, np.float32)
        vec.fill(0)
        width = 1 + len(self.names) + len(self.backs)
        index = {name: i for i, name in enumerate(self.names)}
        back_index = {b: 1 + len(self.names) + i for i, b in enumerate(self.backs)}
        zones = view["zones"]
        for z, key in enumerate(self.zone_keys):
            zone = zones.get(key)
            if zone is None:
                continue
            base = z * width
            vec[base] = zone["count"]
            for name in zone["cards"] or ():
                if name is not None and name in index:
                    vec[base + 1 + index[name]] += 1
            for back in zone.get("backs") or ():
                at_back = back_index.get(json.dumps(back, sort_keys=True)) if back is not None else None
                if at_back is not None:
                    vec[base + at_back] += 1
        at = len(self.zone_keys) * width
        you, players = view["you"], view["players"]
        for k in range(self.players):
            seat = (you + k) % self.players if 0 <= you < self.players else k
            p = players[seat]
            vec[at] = 1.0 if p.get("out") else 0.0
            for j, name in enumerate(self.player_fields):
                vec[at + 1 + j] = _number(p.get(name))
            at += 1 + len(self.player_fields)
        for name in self.game_fields:
            vec[at] = _number(view["game"].get(name))
            at += 1
        vec[at] = view.get("round", 0)
        vec[at + 1] = 1.0 if view.get("decision") else 0.0
        return vec

    def check_options(self, eng: Engine) -> None:
        """A decision with more options than the action space: a ValueError that says what to do."""
        pending = eng.pending
        if pending is not None and len(pending.options) > self.actions:
            raise ValueError(
                f"{self.game.title}: the decision '{pending.prompt}' ({pending.rule}) has "
                f"{len(pending.options)} options, more than the {self.actions} actions this game was "
                f"sized for; load it again with max_actions={len(pending.options)} or more")


def _number(value) -> float:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    return 0.0


def describe(view: dict) -> str:
    """A view as one line of JSON (sorted keys): the strings the research tools key on."""
    return json.dumps(view, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _probe(game, players: int) -> tuple[int, int]:
    """The most options of a decision and the most decisions in a few seeded random games."""
    most_options, most_decisions = 1, 1
    for seed in range(PROBE_GAMES):
        rng = random.Random(seed)
        try:
            eng = Engine(game, players, seed, log=False)
            decisions = 0
            while not eng.finished:
                n = len(eng.pending.options)
                most_options = max(most_options, n)
                eng.decide(rng.randrange(n))
                decisions += 1
        except GameAborted:
            continue
        most_decisions = max(most_decisions, decisions)
    return most_options, most_decisions


def _backs(game) -> tuple[str, ...]:
    """The backs the card pool starts with (`back shows: tier`), each as the view writes it
    (interpreter/visibility.py `back_of`) in sorted-key JSON; () when no card type shows fields."""
    out = set()
    for c in game.cards:
        fields = game.decls.card_types[c.type_name].back
        if fields:
            out.add(json.dumps({"type": c.type_name, **{f: c.values.get(f) for f in fields}}, sort_keys=True))
    return tuple(sorted(out))


def _table_from(path: str, players: int, actions: int, max_length: int) -> "Table":
    return table_for(load_file(path), players, actions, max_length)


def table_for(game, players: int, max_actions: int = 0, max_length: int = 0) -> Table:
    """The game's Table for `players` players (cached on the game). `max_actions` and
    `max_length`, when positive, replace the sizes found by probing."""
    key = ("integration-table", players, max_actions, max_length)
    found = game._cache.get(key)
    if found is not None:
        return found
    most_options, most_decisions = _probe(game, players)
    state = initial_state(game, players, 0)
    d = game.decls
    table = Table(
        game=game, players=players,
        actions=max_actions if max_actions > 0 else max(len(game.cards), most_options, 2),
        max_length=max_length if max_length > 0 else most_decisions * 4 + 100,
        zone_keys=tuple(state.zones),
        names=tuple(sorted({c.name for c in game.cards})),
        player_fields=tuple(_numeric_fields(d.player_fields)),
        game_fields=tuple(_numeric_fields(d.game_fields)),
        backs=_backs(game))
    game._cache[key] = table
    return table
