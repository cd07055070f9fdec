"""GameState: everything that changes during a game, as plain JSON-able data.

Where the flow stands is data too: `frames` is the step machine's call stack of `Frame`s,
each naming compiled code in the Program, the next instruction, and the frame's local names;
saved as the list `[code_id, pc, env]`. Saving a game is `to_dict`; restoring is `from_dict`
with the same Game.
"""
from __future__ import annotations

import copy

class Frame:
    """One running rule: `code_id` (an index into Program.codes, stable for a game file), `pc`
    (the next instruction; the run loop moves it past an op before running the op, so a jump
    sets it) and `env`, the frame's names.

    `env` holds the designer's names (`let`, loop variables, choices, parameters) as plain
    values — players and cards as ints, zones as keys, enum members as strings — and, under
    names no designer can write (they start with `$`), the engine's registers: see REGISTERS.
    """
    __slots__ = ("code_id", "pc", "env")

    def __init__(self, code_id: int, pc: int, env: dict):
        self.code_id = code_id
        self.pc = pc
        self.env = env

    def __repr__(self) -> str:
        return f"Frame({self.code_id}, {self.pc}, {self.env!r})"


# The engine's names in a frame's env. None can clash with a designer's name: the grammar
# has no `$`. Each is set where the rule it serves is compiled or run (file in brackets).
REGISTERS = {
    "$you": "the player who controls the running ability, or the player a `secretly chooses` "
            "body runs for; passed on to called procedures (machine, compile_stmt)",
    "$this": "the card whose ability is running; passed on to called procedures (machine)",
    "$it": "the element a filter (`where`), a map or a bare card-field name is looking at (compile_expr)",
    "$of": "the thing a `field of things` reads the field of, one at a time (compile_expr)",
    "$replaced": "[[code id, card], ...]: the `instead of` abilities already applied to this event or "
                 "call, so each applies once (machine.replace)",
    "$card": "the card whose stack item just resolved, for the `resolved` event (resolver)",
    "$negated": "whether that item was negated (resolver)",
    "$passes": "response window: players who passed in a row (resolver.build_window)",
    "$i": "response window: whose turn to answer, counted from the first (resolver.build_window)",
    "$who": "response window: the player being asked (resolver.build_window)",
    "$resp": "response window: the answer, an action or None for a pass (resolver.build_window)",
    "$zone": "discarding down: the zone past its cap (caps)",
    "$discard": "discarding down: the card its owner chose to discard (caps)",
    # numbered per rule by Ctx.fresh in compile_stmt.py: `$may3`, `$list1`, ...
    "$may<n>": "a `may` statement's yes/no answer",
    "$list<n>": "a `for each` loop's items, fixed when the loop starts",
    "$i<n>": "a `for each` / `secretly chooses` loop's position",
    "$n<n>": "a `times` loop's count left",
    "$rounds<n>": "a scenario's `play N rounds`: rounds left",
    "$act<n>": "`may take actions`: the action chosen, or None for done",
    "$who<n>": "`may take actions` / `secretly chooses`: the player asked, or the players to ask",
    "$active<n>": "`turn of p`: the active player before the turn, restored after it",
    "$picks<n>": "`secretly chooses`: the picks so far, in the players' order; `chooses ... of` / `orders`: "
                 "the elements picked so far, in the order picked",
    "$menu<n>": "`chooses one`: the option chosen, [i] (a text option) or [i, element]",
    "$left<n>": "`chooses ... of` / `orders`: the elements not picked yet",
    "$most<n>": "`chooses ... of` / `orders`: how many may be picked",
    "$pick<n>": "`chooses ... of` / `orders`: the element just picked, or None for done",
    "$you<n>": "`secretly chooses`: `$you` before the statement ([player] or []), restored after it",
    "$k<n>": "`secretly chooses`: which player's body runs next",
    # not in a frame: a card's own entry in GameState.cards, beside its fields
    "$seen_by": "the seats that looked at the card (`looks at`) since it last moved or was shuffled; "
                "in a game that declares `remember seen cards`, every seat that has seen its face since it "
                "was last shuffled (machine.look, machine._learn; read by visibility.card_seers and Engine.view)",
    # not in a frame nor in the state: a key of the machine's own tables
    "$game": "the target of a modifier of a game attribute (`modify hand_limit by 2`), where a card or a "
             "seat would stand for a card's field or a player's attribute (machine.GAME, modified_game)",
}

FIELDS = ("zones", "card_zone", "face_up", "cards", "owner", "players", "out", "game", "frames",
          "pending", "result", "rng", "steps", "round", "active", "checks", "event_n", "step_path",
          "script", "failures", "stack", "used", "windows", "turns", "stack_n",
          "skips", "work", "entities")


class GameState:
    __slots__ = FIELDS

    # every field by its name, one assignment each (a loop of `setattr` cost a game's start ~300
    # bytecodes); tests/test_trigger_speed.py holds the names to FIELDS
    def __init__(self, *, zones, card_zone, face_up, cards, owner, players, out, game, frames,
                 pending, result, rng, steps, round, active, checks, event_n, step_path,
                 script, failures, stack, used, windows, turns, stack_n,
                 skips, work, entities):
        self.zones, self.card_zone, self.face_up, self.cards = zones, card_zone, face_up, cards
        self.owner, self.players, self.out, self.game, self.frames = owner, players, out, game, frames
        self.pending, self.result, self.rng, self.steps, self.round = pending, result, rng, steps, round
        self.active, self.checks, self.event_n, self.step_path = active, checks, event_n, step_path
        self.script, self.failures, self.stack, self.used = script, failures, stack, used
        self.windows, self.turns, self.stack_n = windows, turns, stack_n
        self.skips, self.work, self.entities = skips, work, entities

    def to_dict(self) -> dict:
        data = {f: copy.deepcopy(getattr(self, f)) for f in FIELDS if f != "frames"}
        data["frames"] = [[fr.code_id, fr.pc, copy.deepcopy(fr.env)] for fr in self.frames]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "GameState":
        fields = {f: copy.deepcopy(data[f]) for f in FIELDS if f not in ("frames", "work", "entities")}
        fields["work"] = data.get("work", 0)      # saves made before work was counted
        # saves made before entities (interpreter/entities.py) have none
        fields["entities"] = copy.deepcopy(data.get("entities") or {"next": 1, "made": {}, "live": {}})
        fields["frames"] = [Frame(code_id, pc, copy.deepcopy(env)) for code_id, pc, env in data["frames"]]
        return cls(**fields)

    def clone(self) -> "GameState":
        return GameState.from_dict(self.to_dict())
