"""The engine's small surface: legal decisions, apply a decision, a player's view, save/restore.

    eng = Engine(game, players=4, seed=1)      # runs to the first decision (or the end)
    while not eng.finished:
        eng.decide(agent.choose(eng.view(eng.pending.player), eng.pending))
"""
from __future__ import annotations

import json
from typing import NamedTuple

from cardsmith.dsl.diagnostics import CardsmithError, Diagnostic
from cardsmith.dsl.model import Game

from . import rng as R
from .errors import GameAborted, IllegalDecision
from .log import EventLog
from .machine import DEFAULT_MAX_STEPS, Machine
from .program import program_for
from .state import GameState
from .entities import key_seat, view as entities_view, entity_of_zone
from .compile_boards import toward_key
from .visibility import back_of, card_seers, known_to, rule_of, sees

SAVE_FORMAT = "cardsmith-save/1"


def program_shape(prog) -> str:
    """What a save's frames depend on, as a short hash: every code's id, name, and instructions
    (each one's kind and jump targets). A frame names its code by id and its place by pc, and
    both are the compiler's: a save restored into a program of another shape (the rules edited,
    another cardsmith, another deal) would resume at the wrong instruction, so `restore` refuses
    it. Worked out once per program (it is cached on it)."""
    got = prog.__dict__.get("_shape")
    if got is None:
        import hashlib
        h = hashlib.sha256()
        for code in prog.codes:
            parts = [str(code.id), code.name, str(len(code.ops))]
            for desc in code.descs:
                if not desc:
                    parts.append("-")
                    continue
                parts.append(str(desc[0]))
                parts += [f"L{part[0]}" for part in desc[1:]
                          if isinstance(part, list) and len(part) == 1 and isinstance(part[0], int)]
            h.update("\x1f".join(parts).encode("utf-8") + b"\x1e")
        got = prog.__dict__["_shape"] = h.hexdigest()[:16]
    return got


class Decision(NamedTuple):
    player: int
    prompt: str
    options: list        # labels, in the order of the option indexes
    rule: str            # file:line:col of the rule asking


def initial_state(game: Game, n: int, seed: int) -> GameState:
    """The state before the game's first instruction: every card where its table puts it. What does
    not depend on the seed is worked out once per game and player count (`_start`), and each game
    starts from copies of it (the dicts and lists a game changes; their values are shared, as the
    card's printed values always were)."""
    start = game._cache.get(("start", n))
    if start is None:
        start = game._cache[("start", n)] = _start(game, n)
    zones, card_zone, face_up, cards, owner, players, game_values, n_checks = start
    return GameState(
        zones=dict(zip(zones, map(list.copy, zones.values()))), card_zone=card_zone.copy(),
        face_up=face_up.copy(), cards=list(map(dict.copy, cards)), owner=owner.copy(),
        players=list(map(dict.copy, players)), out=[False] * n,
        game=game_values.copy(), frames=[], pending=None, result=None,
        rng=R.seed_state(seed), steps=0, round=0, active=None, checks=[False] * n_checks,
        event_n=0, step_path=[], script={}, failures=[], stack=[], used={}, windows=0, turns=0, stack_n=0,
        skips=[], work=0, entities={"next": 1, "made": {}, "live": {}})


def _start(game: Game, n: int) -> tuple:
    """`initial_state`'s parts that are the same for every seed, to be copied."""
    d = game.decls
    prog = program_for(game)
    zones: dict[str, list[int]] = {}
    for name, zd in d.zones.items():
        if zd.per_entity is not None:       # the slots of the seats playing (interpreter/entities.py)
            keys = [k for k in prog.zone_keys[name] if int(k.partition(":")[2].partition("/")[0]) < n]
        else:
            keys = prog.zone_keys[name][:n] if zd.per_player else prog.zone_keys[name]
        for key in keys:
            zones[key] = []
    card_zone, face_up, cards, owner = [], [], [], []
    for c in game.cards:
        name, _, seat = c.zone.partition(":")      # a deck's card starts in its seat's zone (deck:0)
        zones[c.zone].append(c.id)
        card_zone.append(c.zone)
        face_up.append(d.zones[name].visibility == "public")
        cards.append({"name": c.name, "type": c.type_name, **c.values})
        owner.append(int(seat) if seat else None)
    players = [{**d.player_defaults, **{toward_key(name, q): v for name, v in d.toward_defaults.items()     # as the
                                        for q in range(n) if q != p}} for p in range(n)]                 # checker computed
    return zones, card_zone, face_up, cards, owner, players, dict(d.game_defaults), len(d.end_checks)


class Engine:
    def __init__(self, game: Game, players: int, seed: int = 0, log: bool = True,
                 max_steps: int = DEFAULT_MAX_STEPS, player_names: list[str] | None = None,
                 _state: GameState | None = None, _start: int | None = None, _scenario: bool = False,
                 tally=None, decks=None):
        if not game.min_players <= players <= game.max_players:
            span = game.decls.game.span
            raise CardsmithError([Diagnostic("E0701", f"{game.title} is for {game.min_players} to "
                                             f"{game.max_players} players, not {players}", span,
                                             f"choose --players between {game.min_players} and {game.max_players}")],
                                 game.sources)
        if game.decls.deck_rules is not None and not game.decks and not _scenario:
            # the players' decks (interpreter/decks.py): given, else random legal ones from the seed;
            # a scenario plays the declared game and sets up its own cards
            from .decks import game_with_decks
            game = game_with_decks(game, players, seed, decks)
        self.game = game
        self.prog = program_for(game)
        self.n = players
        self.seed = seed
        self.player_names = player_names or [f"Player {i + 1}" for i in range(players)]
        self._log = EventLog(log, self.player_names)
        state = _state if _state is not None else initial_state(game, players, seed)
        self.m = Machine(self.prog, state, players, self._log, max_steps)
        self.m.scenario = _scenario
        if _scenario:
            self.m.keep_history()
        if tally is not None:       # a simulation's counts (interpreter/report.py): from the first card
            self.m.tally = tally
            tally.begin(self.m)
        if _state is None:
            self.m.push(self.prog.main if _start is None else _start, {})
            self._run()

    def _run(self, decision: int | None = None) -> None:
        """Apply `decision` (if any), then run to the next decision or the end."""
        try:
            if decision is not None:
                self.m.decide(decision)
            self.m.run()
        except GameAborted as err:
            self._aborted(err)
            raise

    def _aborted(self, err: GameAborted) -> None:
        """A game stopped by `err` (from `_run`, or run_game's own loop): the error gets the game's
        sources and the log, and the log ends with why the game stopped."""
        err.sources = self.game.sources
        d = err.diagnostics[0]
        if self._log.on:
            self._log.emit(self.m, "aborted", d.span, {"code": d.code}, f"the game is aborted: {d.message}",
                           bounded=False)
        err.event_log = self._log       # for a caller that never got the engine (aborted while starting)

    # ------------------------------------------------------------------ decisions
    @property
    def state(self) -> GameState:
        return self.m.st

    @property
    def pending(self) -> Decision | None:
        p = self.m.st.pending
        if p is None:
            return None
        labels = p["labels"]
        if labels is None:          # made at the first read (Decisions.pending_labels)
            labels = self.m.pending_labels()
        return Decision(p["player"], p["prompt"], list(labels), p["rule"])

    def decide(self, index: int) -> None:
        p = self.m.st.pending
        if p is None:
            raise IllegalDecision("there is no decision to make: the game " +
                                  ("is over" if self.finished else "is not waiting for anyone"))
        if (index.__class__ is not int and (not isinstance(index, int) or isinstance(index, bool))) \
                or not 0 <= index < len(p["options"]):
            raise IllegalDecision(f"{self.player_names[p['player']]} must answer '{p['prompt']}' with an option "
                                  f"number from 0 to {len(p['options']) - 1}, not {index!r} "
                                  f"(options: {', '.join(self.m.pending_labels())})")
        self._run(index)

    @property
    def finished(self) -> bool:
        return self.m.st.result is not None

    @property
    def result(self) -> dict | None:
        return self.m.st.result

    @property
    def log(self) -> list[dict]:
        return self._log.events

    @property
    def event_log(self) -> EventLog:
        """The log itself: its events, and `seen_by(player)` for the log as a player may read it."""
        return self._log

    def log_seen_by(self, player: int, start: int = 0) -> list[dict]:
        """The log from event index `start` on, as `player` may read it: the names of cards they
        may not see (by the rule of `view`) are "a card", others' secret picks are not named."""
        return self._log.seen_by(player, start)

    def log_jsonl(self) -> str:
        return self._log.to_jsonl()

    # ------------------------------------------------------------------ views
    def view(self, player: int) -> dict:
        """What `player` can see: public cards, their own owner-only zones, counts of the rest.
        Which card faces a player sees is the rule of interpreter/visibility.py."""
        st, d = self.m.st, self.prog.decls
        zones = {}
        for key, cards in st.zones.items():
            name = key.partition(":")[0]
            owner = key_seat(key)           # an entity's zone (`crew:1/0`) is its owner's
            vis = rule_of(d.zones[name])
            shown = None                # a hidden zone shows only its count, and the cards the player looked at
            looked = self.m.looks and any(player in known_to(st.cards[c]) for c in cards)
            if vis != "hidden" or looked:
                face_up = st.face_up
                shown = [st.cards[c]["name"] if sees(vis, owner, face_up[c], player)
                         or (looked and player in known_to(st.cards[c])) else None for c in cards]
            zones[key] = {"zone": name, "owner": owner, "count": len(cards), "cards": shown}
            if "/" in key:                  # whose entity's zone it is now (interpreter/entities.py)
                zones[key]["entity"] = entity_of_zone(self.m, key)
            if shown is not None and vis != "hidden" and self.prog.backs:
                # the back of each card whose face is not shown: its type and the fields it shows
                zones[key]["backs"] = [back_of(self.m, c) if n is None else None for c, n in zip(cards, shown)]
        pend = st.pending
        decision = None
        if pend is not None and pend["player"] == player:
            decision = {"prompt": pend["prompt"], "options": list(self.m.pending_labels()), "rule": pend["rule"]}
        stack = [self._stack_item(item, player) for item in reversed(st.stack)]
        return {"you": player, "round": st.round, "stack": stack,
                "players": [{"name": self.player_names[i], "out": st.out[i], **self._attributes(i)} for i in range(self.n)],
                "game": self._attributes(None), "zones": zones, "decision": decision, "result": st.result,
                **({"entities": entities_view(self.m, player)} if d.entities else {})}

    def _attributes(self, seat: int | None) -> dict:
        """A player's attributes (seat None: the game's) as a read sees them: a `modify` counts.
        Looking changes nothing: the work a modifier's reads count is put back (a view taken or
        not, the game runs the same)."""
        m, prog = self.m, self.prog
        names = prog.modified_game_attrs if seat is None else prog.modified_player_attrs
        held = m.st.game if seat is None else m.st.players[seat]
        if not names:
            return dict(held)
        work = m.st.work
        try:
            return {k: (m.modified_game(k) if seat is None else m.modified_player(seat, k)) if k in names else v
                    for k, v in held.items()}
        finally:
            m.st.work = work

    def _stack_item(self, item: dict, player: int) -> dict:
        """A stack item as `player` sees it (docs/language.md, "The stack"): the card's name and
        the action's name only when the player may see the card where it lies; else who used
        it and from where ("a card from Player 2's hand"), and whether it is negated."""
        c = item["card"]
        seen = player in card_seers(self.m, c)
        where = self._log.zone_name(self.m, self.m.st.card_zone[c])
        return {"card": self.m.st.cards[c]["name"] if seen else None,
                "player": self.player_names[item["player"]],
                "action": item["label"] if seen else None,
                "from": where, "negated": item["negated"]}

    def groupings(self) -> dict[int, dict[str, str]]:
        """Per seat, the enum-valued player attributes (e.g. faction) — for grouping statistics."""
        d = self.prog.decls
        enum_fields = [n for n, fd in d.player_fields.items() if fd.type.name in d.enums]
        return {i: {f: self.m.st.players[i][f] for f in enum_fields if self.m.st.players[i][f] is not None}
                for i in range(self.n)}

    # ------------------------------------------------------------------ save / restore
    def save(self) -> dict:
        if self.m.st.pending is not None:
            self.m.pending_labels()         # a save holds the labels (`ask` may leave them to the first read)
        saved = {"format": SAVE_FORMAT, "game": self.game.title, "players": self.n, "seed": self.seed,
                 "names": self.player_names, "log_length": len(self.log), "state": self.m.st.to_dict(),
                 "program": program_shape(self.prog)}
        if self.game.decks:         # the players' decks: restored with the same cards
            saved["decks"] = [list(d) for d in self.game.decks]
        return saved

    def save_json(self) -> str:
        return json.dumps(self.save(), sort_keys=True)

    @classmethod
    def restore(cls, game: Game, data: dict | str, log: bool = True) -> "Engine":
        if isinstance(data, str):
            data = json.loads(data)
        if data.get("format") != SAVE_FORMAT or data.get("game") != game.title:
            raise ValueError(f"not a saved game of {game.title}")
        eng = cls(game, data["players"], data["seed"], log=log, player_names=data["names"],
                  _state=GameState.from_dict(data["state"]), decks=data.get("decks"))
        shape = data.get("program")
        if shape is not None and shape != program_shape(eng.prog):
            raise ValueError(f"this save of {game.title} was made from rules that compile differently (the "
                             "game file was changed, or another version of cardsmith saved it): its frames "
                             "would resume at the wrong instructions")
        return eng

    def clone(self) -> "Engine":
        return Engine.restore(self.game, self.save(), log=self._log.on)


__all__ = ["Engine", "Decision", "IllegalDecision", "GameAborted", "initial_state"]
