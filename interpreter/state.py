"""GameState: everything that changes during a game, as plain JSON-able data.

Where the flow stands is data too: `frames` is the step machine's call stack, each frame
`[code_id, pc, env]` naming compiled code in the Program, the next instruction, and the
frame's local names. Saving a game is `to_dict`; restoring is `from_dict` with the same Game.
"""
from __future__ import annotations

import copy

FIELDS = ("zones", "card_zone", "face_up", "cards", "owner", "players", "out", "game", "frames",
          "pending", "result", "rng", "steps", "round", "active", "checks", "event_n", "step_path",
          "script", "failures", "stack", "used", "windows", "turns", "stack_n",
          "skips")


class GameState:
    __slots__ = FIELDS

    def __init__(self, **kw):
        for f in FIELDS:
            setattr(self, f, kw[f])

    def to_dict(self) -> dict:
        return {f: copy.deepcopy(getattr(self, f)) for f in FIELDS}

    @classmethod
    def from_dict(cls, data: dict) -> "GameState":
        return cls(**{f: copy.deepcopy(data[f]) for f in FIELDS})

    def clone(self) -> "GameState":
        return GameState.from_dict(self.to_dict())
