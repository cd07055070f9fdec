"""The step machine: runs compiled Codes over a GameState until a decision or the end.

The loop follows the rulebook loop of docs/language.md ("How a game runs"):
run the next instruction → if the state changed, check every `as soon as` rule → repeat,
stopping at a decision (a player must choose), at the end of the game, or at the step bound.
Here are the loop, zones and cards, attributes, dice, flow and players; the rules of their own
live beside it, mixed into `Machine`: interpreter/triggers.py (what an event sets off and in
which order: last in, first out; replacements once per event) and interpreter/decisions.py
(where the machine stops for a choice); interpreter/resolver.py holds actions, windows and
the stack.
"""
from __future__ import annotations

from itertools import compress, repeat
from operator import ne

from cardsmith.dsl import bounds
from cardsmith.dsl.bounds import MAX_DICE_PER_ROLL, MAX_FRAMES, MAX_RUNTIME_NUMBER, MAX_RUNTIME_STRING, MAX_STEPS
from cardsmith.dsl.registry import (ELIMINATED, FLIPPED, MOVED, REVEALED, ROUND_STARTED, STEP_ENDED,
                                    STEP_STARTED, TURN_STARTED)
from cardsmith.dsl.types import CARD, PLAYER, ZONE

from . import caps
from . import entities as _entities
from . import parts as _parts
from .entities import key_seat
from . import rng as R
from .errors import GameAborted, RuleError, charge
from .compile_boards import assign_place, assign_toward
from .blocks import block
from .decisions import Decisions
from .log import EventLog, TextTooLong
from .memory import lift
from .program import Program
from .scenario_machine import Scenarios
from .reads import ATTRS, OUT, ZONES
from .state import Frame, GameState
from .triggers import REPLACED, REPLACED_WHERE_DONE, Triggers, replaceable
from .visibility import card_seers, rule_of, seers

DEFAULT_MAX_STEPS = MAX_STEPS
CALL_DEPTH = 32     # the most frames under which `Machine.call_in` runs a procedure inline (Python's stack)
_INLINE_DEPTH = min(CALL_DEPTH, MAX_FRAMES)     # `call_in`'s one test of the depth: below it, neither bound is near
GAME = "$game"      # what a game attribute's modifier applies to (`modify hand_limit by 1`): no card, no seat


def too_large(number, span) -> RuleError:
    """The error for a number computed while playing that is past MAX_RUNTIME_NUMBER."""
    return RuleError(f"a number computed while playing went past {MAX_RUNTIME_NUMBER:,} "
                     f"(the bound MAX_RUNTIME_NUMBER); it was {_digits(number)}", span,
                     "a rule may multiply or add without end: check the loops that change this number",
                     code="E0806")


def _digits(number) -> str:
    """The number, or how long it is (a huge int is not turned into text whole)."""
    if abs(number) < 10 ** 40:
        return f"{number:,}"
    return f"a number of about {int(abs(number).bit_length() * 0.30103) + 1:,} digits"


def turn_memory(game, n_players: int) -> dict:
    """Per period ("turn", "round"), the attributes declared `, reset each <period>` with the
    value each goes back to as such a period begins: [(kind, owner, name, value)], players' and
    the game's from the declared defaults, a card's from its own printed value."""
    d = game.decls
    out: dict = {"turn": [], "round": []}
    for name, fd in d.game_fields.items():
        if fd.reset:
            out[fd.reset].append(("game", None, name, d.game_defaults.get(name)))
    for name, fd in d.player_fields.items():
        if fd.reset:
            out[fd.reset].extend(("player", p, name, d.player_defaults.get(name)) for p in range(n_players))
    reset_card_fields = {(ct.name, f.name): f.reset for ct in d.card_types.values() for f in ct.fields if f.reset}
    if reset_card_fields:
        for c in game.cards:
            for name, value in c.values.items():
                period = reset_card_fields.get((c.type_name, name))
                if period is not None:
                    out[period].append(("card", c.id, name, value))
    return out


class Machine(Triggers, Decisions, Scenarios):
    # False runs every instruction as its closure, one at a time, as near the step bound: the
    # definition the fused blocks are tested against (tests/test_codegen.py)
    fused = True
    def __init__(self, program: Program, state: GameState, n_players: int, log: EventLog,
                 max_steps: int = DEFAULT_MAX_STEPS):
        self.prog = program
        self.codes = program.codes
        # per code id, (code, its blocks, their sizes, its length): what `run` reads of the code on
        # top each time it changes frames, read in one subscript. Made as codes first run (`_tab`)
        # and kept by the program for its games (its codes' lists of blocks are set once built:
        # Program._share_blocks, before any game)
        self.tabs = program.__dict__.setdefault("_run_tabs", [])
        self.card_types = program.card_type_names
        self.card_names = program.card_names
        self.n_players = n_players
        self.log = log
        self.max_steps = max_steps
        # `hand:1` is seat 1's; `crew:1/2` too, the zone of seat 1's entity in slot 2 (interpreter/entities.py);
        # per zone key, what `move` looks up for every card: the declaration, its seat, public or
        # not; and zone key -> public or not. Made once for the program's games with these zones
        # (no machine changes them: `zone_info` is set again, never changed, by a test's spy)
        made = program.__dict__.setdefault("_zone_tables", {})
        keys = tuple(state.zones)
        tables = made.get(keys)
        if tables is None:
            zone_seat = {key: key_seat(key) for key in keys}
            zone_info = {}
            for key, seat in zone_seat.items():
                decl = program.decls.zones[key.partition(":")[0]]
                zone_info[key] = (decl, seat, decl.visibility == "public")
            tables = made[keys] = (zone_seat, zone_info, {key: info[2] for key, info in zone_info.items()}, {})
        self.zone_seat, self.zone_info, self._public_of, self._uncapped_of = tables
        # who may see a card lying in a zone, face up or not (`_seeing`): filled as asked, the same
        # for the program's games with these zones and players
        self._seen_in = program.__dict__.setdefault("_seen_tables", {}).setdefault((n_players, keys), {})
        self.triggers = program.triggers
        # built-in events are raised only when something listens: a trigger, a window, a replacement
        self.listened = set(program.triggers) | set(program.windows_after) | set(program.replacements)
        if program.discards:        # a move may push a zone's discard code (interpreter/caps.py)
            self.listened.add(MOVED)
        self.move_triggers = MOVED in self.listened or REVEALED in self.listened
        # `instead of` the engine's events: which moves and flips it may touch, decided once
        # (None: none, and a move or flip costs nothing more); the rest are replaced when announced
        self.move_rep = replaceable(program, MOVED, REVEALED)
        self.flip_rep = replaceable(program, FLIPPED, REVEALED)
        self.replacing = False          # inside replace_move / replace_flip: the cards left move as asked
        if self.move_rep is not None:   # only then does a move ask first (interpreter/triggers.py)
            self.move = self.replaceable_move
        if self.flip_rep is not None:
            self.flip = self.replaceable_flip
        self.announce_replaced = frozenset(e for e in program.replacements if e not in REPLACED_WHERE_DONE)
        self.when_done = "no rule is left to run"
        self._modifying: set = set()
        # field -> (state version, card -> [(amount, ability)], work, span to charge it at): `_from_table`
        self._mod_tables: dict = {}
        self._stacked = (None, set())     # (card, field) being computed: a modifier cannot feed itself
        self.scenario = False      # a scenario goes on after the game ends, to check its expectations
        # the scenario registers (interpreter/scenario_machine.py), as the machine's own attributes:
        # the hot path reads them at every event and step, and an instance's are found first
        self.history = None
        self.stop_at = None
        # a step begins plainly (compile_stmt's step snippet: its name kept, and logged) while
        # no scenario waits for a step and no rule listens to or replaces `step_started`: kept
        # true to both wherever `stop_at` or `listened` change (scenario_machine, compile_scenario)
        self.plain_steps = STEP_STARTED not in self.listened
        self.tally = None          # a simulation's counts (interpreter/report.py Tally), set by Engine
        self.resets = turn_memory(program.game, n_players)
        # `remember seen cards` (or a `has seen` in the game): every seat that sees a card's face
        # is kept in its `$seen_by` until the card is shuffled, and `revealed` is raised only for
        # a card every player now knows that someone just learned (docs/language.md, "Who has
        # seen a card")
        self.remembers = program.decls.remembers
        self.attach(state)

    def attach(self, state: GameState) -> None:
        self.st = state
        self.zones = state.zones
        self.cards = state.cards
        self.players = state.players
        self.dirty = 0
        self.brk = False
        self.left = 0               # the steps the procedures a block runs inline may use (`call_in`)
        self._reset_refs = None     # {period: the resets' dicts of this state, names, values}: `reset_memory`
        self.ver = 0                # bumped by every change the dirty bits mark (see _from_table)
        self._mod_tables = {}
        self._stacked = (None, set())
        # whether some card is known to a player who looked at it (`looks at`): only then do
        # moves and shuffles have knowledge to forget
        self.looks = self.remembers or any(map(dict.__contains__, state.cards, repeat("$seen_by")))

    # ------------------------------------------------------------------ the loop
    def run(self) -> None:
        st = self.st
        frames = st.frames
        tabs = self.tabs
        checks = self.prog.end_checks
        mask = self.prog.check_mask if checks else 0
        limit = self.max_steps
        # the steps left before the bound: the game's `steps` is `limit - room`, kept as one number
        # that each block's size is measured against
        room = limit - st.steps
        code = None
        pc = 0
        prog = self.prog
        fused = self.fused
        self.at = None
        try:
            while frames and st.pending is None and (st.result is None or self.scenario):
                fr = frames[-1]
                try:
                    code, fast, sizes, n = tabs[fr.code_id]
                except IndexError:
                    code, fast, sizes, n = self._tab(fr.code_id)
                self.brk = False
                # run this frame until it ends, pushes another, asks, or changes what an end check
                # reads: a fused block at a time (interpreter/blocks.py), which returns how many
                # instructions it ran, negated when the last one watched (called a primitive that
                # set self.brk or dirtied what an end check reads): only then are those looked at
                while True:
                    pc = fr.pc
                    if pc >= n:
                        frames.pop()
                        if not frames:
                            break
                        # back in the caller; a pop changes no decision or result, so go on here
                        fr = frames[-1]
                        try:
                            code, fast, sizes, n = tabs[fr.code_id]
                        except IndexError:
                            code, fast, sizes, n = self._tab(fr.code_id)
                        continue
                    run = fast[pc]
                    if run is None:
                        run = fast[pc] = block(prog, code, pc)
                    size = sizes[pc]
                    if fused and size <= room:
                        # the steps left past the block's own most: what the procedures it runs
                        # inline may use (`call_in`)
                        self.left = room - size
                        k = run(self, fr)
                        if k > 0:
                            room -= k
                            continue
                        room += k
                    else:
                        # near the step bound: one instruction at a time, to stop on the one that passes it
                        fr.pc = pc + 1
                        watch = code.ops[pc](self, fr)
                        room -= 1
                        if room < 0:
                            span = self.where(code, pc)
                            raise GameAborted("E0801", f"the game did not end within {limit:,} steps (the bound "
                                              f"MAX_STEPS); it was running {code.name} at line {span.line}", span,
                                              "a rule may loop forever: check the 'repeat' loops and the end "
                                              "conditions; a long game may raise the bound with --max-steps N")
                        if not watch:
                            continue
                    if self.dirty & mask and st.result is None:
                        self.dirty = 0
                        self._check_end(checks)
                    if self.brk:
                        if not frames or st.pending is not None or (st.result is not None and not self.scenario):
                            break
                        # a frame was pushed (a call, a trigger): go on with the one on top, as the
                        # outer loop would, without leaving this one
                        self.brk = False
                        fr = frames[-1]
                        try:
                            code, fast, sizes, n = tabs[fr.code_id]
                        except IndexError:
                            code, fast, sizes, n = self._tab(fr.code_id)
        except RuleError as err:
            code, pc = self._failed_at(code, pc)
            raise GameAborted(err.code or "E0802", err.message, err.span or self.where(code, pc), err.hint) from None
        except RecursionError:
            code, pc = self._failed_at(code, pc)
            raise GameAborted("E0803", "rules nested too deeply while running", self.where(code, pc),
                              "a value or procedure that uses itself never stops here: give it an 'if' that "
                              "stops before it uses itself again, or use repeat / for each") from None
        except MemoryError:
            code, pc = self._failed_at(code, pc)
            # the backstop of interpreter/memory.py: the game outgrew MAX_GAME_MEMORY. Lift the
            # limit and drop the game's frames (their lists are what grew) before building the error.
            lift()
            frames.clear()
            raise GameAborted("E0810", f"the game took more memory than the bound MAX_GAME_MEMORY allows "
                              f"({bounds.MAX_GAME_MEMORY:,} bytes); it was running {code.name if code else 'the game'}",
                              self.where(code, pc), "look for a rule that builds ever larger lists or texts, "
                              "or a game that never ends") from None
        except (KeyError, IndexError, TypeError, ValueError, AttributeError, OverflowError) as exc:
            code, pc = self._failed_at(code, pc)
            # the checker should have caught this; still, the designer gets a located error, not a traceback
            raise GameAborted("E0804", f"this rule could not be carried out ({type(exc).__name__}: "
                              f"{str(exc)[:200]})", self.where(code, pc),
                              "please report it with the game file: the checker should have caught it") from None
        finally:
            st.steps = limit - room
            if st.result is not None:
                st.result["steps"] = limit - room
        if not frames and st.result is None and not self.scenario:
            self.win([], None, reason=self.when_done)

    def _tab(self, code_id: int) -> tuple:
        """`run`'s entry for code `code_id` in `self.tabs`, the table made longer to hold it: a
        code made since (a card's text, an action's targets) is complete by the time it runs."""
        tabs = self.tabs
        for c in self.codes[len(tabs):code_id + 1]:
            tabs.append((c, c.fast, c.sizes, len(c.fast)))
        return tabs[code_id]

    def _failed_at(self, code, pc: int) -> tuple:
        """The instruction an error came from: a block names it in `self.at` (it may have run
        several past the pc the loop called it at, or be a flat procedure's, below this frame)."""
        at, self.at = self.at, None
        if at is None:
            return code, pc
        return self.codes[at[0]], at[1]

    def _too_deep(self, code_id: int) -> RuleError:
        code = self.codes[code_id]
        return RuleError(f"rules called each other more than {MAX_FRAMES} deep ({code.name})",
                         code.spans[0] if code.spans else None,
                         "a procedure or trigger may be calling itself without end")

    def call_flat(self, code_id: int, env: dict) -> int:
        """Run a flat procedure (interpreter/blocks.py, `flat`) to its end at once, its frame on
        the stack as a pushed one would be (for the depth bound and for `where`); return the
        instructions it ran. It cannot push, ask, end the game or change what an end check reads."""
        frames = self.st.frames
        if len(frames) >= MAX_FRAMES:
            raise self._too_deep(code_id)
        fr = Frame(code_id, 0, env)
        frames.append(fr)
        code = self.codes[code_id]
        fast = code.fast
        n = len(fast)
        steps = 0
        pc = 0
        while pc < n:
            run = fast[pc]
            if run is None:
                run = fast[pc] = block(self.prog, code, pc)
            k = run(self, fr)
            steps += k if k > 0 else -k
            pc = fr.pc
        frames.pop()
        return steps

    def call_in(self, code_id: int, env: dict) -> int:
        """Call a procedure (or enter a round) from a block and run it right here: its frame
        pushed as `push` pushes it, then its blocks run as the run loop would run them, until it
        ends (its frame popped, as the run loop pops it; the caller's block goes on) or stops
        (a block that watched: a frame pushed above it, a decision, the end, a changed end check).
        Returns the instructions it ran when it ended, or ~(the instructions) when it stopped,
        with its frame left on the stack and `brk` set, so that the run loop picks up from the
        top frame where it would have (its end checks first). The steps stay bounded: a block
        runs only while its size fits in `self.left` (set by the run loop: the steps past the
        calling block's own most), which shrinks by what ran; a block that does not fit stops
        here, and the run loop, at the top frame, runs on to the bound one instruction at a time.
        Past CALL_DEPTH frames, the frame is left to the run loop at once (Python's own stack).
        `avail` is the steps still free (`self.left` less what ran): the one number each block
        is measured against, set as the next call's `self.left`, and what is given back."""
        frames = self.st.frames
        if len(frames) >= _INLINE_DEPTH:
            return self._call_deep(code_id, env)
        fr = Frame(code_id, 0, env)
        frames.append(fr)
        try:
            code, fast, sizes, n = self.tabs[code_id]       # (as `run` reads them)
        except IndexError:
            code, fast, sizes, n = self._tab(code_id)
        avail = left = self.left
        pc = 0
        while pc < n:
            run = fast[pc]
            if run is None:
                run = fast[pc] = block(self.prog, code, pc)
            size = sizes[pc]
            if size > avail:
                self.brk = True
                return ~(left - avail)
            self.left = avail - size
            k = run(self, fr)
            if k < 0:
                self.brk = True
                return ~(left - avail - k)
            avail -= k
            pc = fr.pc
        frames.pop()
        self.left = avail
        return left - avail

    def _call_deep(self, code_id: int, env: dict) -> int:
        """`call_in` from CALL_DEPTH frames on: the frame pushed and left to the run loop (stopped
        having run nothing), or the depth bound's error at MAX_FRAMES (_INLINE_DEPTH is the lower)."""
        frames = self.st.frames
        if len(frames) >= MAX_FRAMES:
            raise self._too_deep(code_id)
        frames.append(Frame(code_id, 0, env))
        self.brk = True
        return -1

    def where(self, code, pc: int):
        """The span of the instruction being run; for one the engine made without a source (the
        stack's "after an item resolves"), the nearest rule below it that has one, then the
        game's declaration: every abort is located."""
        if code is not None and 0 <= pc < len(code.spans) and code.spans[pc] is not None:
            return code.spans[pc]
        for fr in reversed(self.st.frames):
            at, spans = fr.pc, self.codes[fr.code_id].spans
            span = spans[min(max(at - 1, 0), len(spans) - 1)] if spans else None
            if span is not None:
                return span
        if code is not None:
            for span in code.spans:
                if span is not None:
                    return span
        return self.prog.game.decls.game.span

    def _check_end(self, checks) -> None:
        flags = self.st.checks
        for i, (cond, code_id, decl) in enumerate(checks):
            now = bool(cond(self, {}))
            if now and not flags[i]:
                flags[i] = True
                if self.log.on:
                    self.log.emit(self, "condition", decl.span, {}, "the end condition is met")
                self.push(code_id, {})
                return
            flags[i] = now

    # The primitives below that may change the frame stack, the pending decision, the result or
    # a part of the state an end check reads return True: an op hands that on to the run loop,
    # which looks at self.dirty and self.brk only then.
    def push(self, code_id: int, env: dict) -> bool:
        frames = self.st.frames
        if len(frames) >= MAX_FRAMES:
            raise self._too_deep(code_id)
        frames.append(Frame(code_id, 0, env))
        self.brk = True
        return True

    # ------------------------------------------------------------------ zones and cards
    def zone_owner(self, key: str):
        return self.zone_seat[key]

    def controller(self, card: int):
        """The player whose zone holds the card (None in a shared zone)."""
        return self.zone_owner(self.st.card_zone[card])

    # A move statement's generated code moves its cards itself (compile_stmt.py `_quiet_move`)
    # in the state `quiet` names, where nobody watches moves (no log, no `moved` / `revealed`
    # listener, no tally of cards, no memory, no look, no `instead of` a move), and in the state
    # `noted` names, where only the log and the tally's card tracking do (then it tells them:
    # `noted1`, `noted_all`); `plain`: the zones without a cap, by key, with their owner's seat;
    # `plain_down`: those for a move face down. In a game that listens to `revealed` alone, the
    # same states hold for the moves that cannot reveal a card: `plain` then holds the zones that
    # are not public, `plain_down` every zone without a cap (a card laid face down is revealed to
    # nobody). `move` sets them; a new state (`attach`) is another object, and `look` clears them
    # (the log, the tally and a scenario's history are set before a game runs).
    quiet = None
    noted = None
    plain: dict = {}
    plain_down: dict = {}

    def move(self, cards: list, key, place: str, face, span) -> bool | None:
        if not cards:
            return None
        st = self.st
        if self.quiet is st and key in self.plain_down:
            # nobody watches (`quiet`) and the zone has no cap (so it exists and has room): the
            # cards only change places, unless, in a game that listens to `revealed` only, the
            # move reveals a card: one lying face down or in a zone that is not public, moved face
            # up into a public zone, or lying face up in one that is not, moved as it lies (a card
            # face up in a public zone already, or laid face down, is not revealed: `_unaware`);
            # and where only triggers pinned to a card answer `revealed` (`quiet_cards`), revealing
            # a card none of them holds adds nothing to the moment: it counts as not revealed
            card_zone, face_up = st.card_zone, st.face_up
            learners = None     # the one card's, when it is revealed (`_unaware`)
            if face != "down" and self.move_triggers and self._public_of[key]:
                public_of = self._public_of
                for c in cards:
                    up = face_up[c]
                    if (up and not public_of[card_zone[c]]) if face is None else not (up and public_of[card_zone[c]]):
                        pins = self.quiet_cards(REVEALED)
                        if pins is None or c in pins:
                            if len(cards) > 1 or self.log.on or MOVED in self.listened:
                                learners = ()       # the general path below
                                break
                            # the one card, revealed (the watched path's, with no log, memory nor look)
                            seen = self._seen_in
                            got = seen.get((card_zone[c], up)) if seen is not None else None
                            learners = list(got[1] if got is not None else self._blind(card_zone[c], up))
            if learners != ():
                zones = self.zones
                dest = zones[key]
                owner_seat = self.plain_down[key]
                if len(cards) == 1:     # the usual move, one card
                    c = cards[0]
                    held = zones[card_zone[c]]
                    if held[-1] == c:
                        held.pop()
                    else:
                        held.remove(c)
                    if place == "bottom":
                        dest.insert(0, c)
                    else:
                        dest.append(c)
                    card_zone[c] = key
                    if face is not None:
                        face_up[c] = face == "up"
                    owner = st.owner
                    if owner_seat is not None and owner[c] is None:
                        owner[c] = owner_seat
                    self.dirty |= ZONES
                    self.ver += 1
                    if learners is not None:    # (the zone has no cap: nothing to discard down)
                        self.announce_all(REVEALED, [{"card": c, "learners": learners}], span)
                    return True
                self._put(cards, key, dest, place, face, owner_seat, None)
                return True
        info = self.zone_info.get(key)
        if info is None:
            raise RuleError(f"no such zone '{key}' in this game (is that player seated?)", span)
        decl, owner_seat, public = info
        zones = self.zones
        dest = zones[key]
        if decl.capacity is not None and len(dest) + len(cards) > decl.capacity and decl.discard_into is None:
            raise RuleError(f"'{decl.name}' can hold at most {decl.capacity} cards", span,
                            "check the zone's capacity or the rule that moves cards into it")
        card_zone, face_up, owner = st.card_zone, st.face_up, st.owner
        if self.quiet is st:
            # a move into a zone without a cap was settled above: plain, or one that reveals a
            # card; into one with a cap (not in `plain_down`), only where nothing listens to
            # `revealed` (the mode's tests are not made again)
            tally = None
            tallied = False
            plain = key not in self.plain_down and not (public and self.move_triggers)
        else:
            # where the cards came from matters only to the log, the tally's card tracking and to
            # `moved` / `revealed` triggers
            tally = self.tally
            tallied = tally is not None and tally.cards
            plain = not (self.log.on or self.move_triggers or tallied or self.remembers or self.looks)
            if plain and self.move_rep is None:
                self.quiet, self.noted = st, None
                self.plain = self.plain_down = self._uncapped(True)
        if plain:
            # nobody watches and nobody knows a card: the cards only change places (the loop below,
            # less what it keeps for the log, the triggers and the memory)
            self._put(cards, key, dest, place, face, owner_seat, None)
            return True
        remembers = self.remembers
        looks = self.looks
        if not (self.move_triggers or remembers or looks):
            # only the log and the tally watch: as below, less the memory and the events
            if self.noted is not st and self.move_rep is None:
                self.quiet, self.noted = None, st
                self.plain = self.plain_down = self._uncapped(True)
            if len(cards) == 1:     # one card: the log told where it lay and how (log.moved)
                c = cards[0]
                src = card_zone[c]
                was_up = face_up[c]
                held = zones[src]
                if held[-1] == c:
                    held.pop()
                else:
                    held.remove(c)
                if place == "bottom":
                    dest.insert(0, c)
                else:
                    dest.append(c)
                card_zone[c] = key
                if face is not None:
                    face_up[c] = face == "up"
                if owner_seat is not None and owner[c] is None:
                    owner[c] = owner_seat
                self.dirty |= ZONES
                self.ver += 1
                self.noted1(c, src, was_up, key, place, face, span)
                if self.prog.discards:      # past a zone's cap: its owner discards down (interpreter/caps.py)
                    caps.over(self, key)
                return True
            sources = []
            self._put(cards, key, dest, place, face, owner_seat, sources)
            self.noted_all(cards, sources, key, place, face, span)
            if self.prog.discards:
                caps.over(self, key)
            return True
        listened = self.listened
        if (self.quiet is not st and self.noted is not st and not (remembers or looks)
                and self.move_rep is None and MOVED not in listened):
            # only `revealed` listens, and it is never raised for a card moving into a zone that
            # is not public, nor for one laid face down: the generated code moves those itself,
            # as where nobody listens (`quiet`, or `noted` where the log or the tally watch)
            if self.log.on or tallied:
                self.quiet, self.noted = None, st
            else:
                self.quiet, self.noted = st, None
            self.plain = self._uncapped(False)
            # a card laid face down is revealed to nobody: `revealed` with nothing revealed does
            # nothing, unless a window opens after it
            self.plain_down = self.plain if self.prog.windows_after.get(REVEALED) else self._uncapped(True)
        if not remembers:
            # watched by what listens to `moved` / `revealed`, the log, the tally, a cap or a
            # look: as below and in `_moved`, without the lists only the memory needs
            reveal = public and REVEALED in listened
            log_on = self.log.on
            if len(cards) == 1:
                c = cards[0]
                src = card_zone[c]
                if log_on:
                    # who could see the card before it moved may read its name in the log: a
                    # card looked at by its `$seen_by` (`log.seers`, before `_forget`), else by
                    # the zones' rules alone, which `log.moved` keeps per (from, facing, to)
                    was_up = face_up[c]
                    before = self.log.seers(self, c) if looks else None
                learners = None     # who learns the card if it is revealed (`_unaware`)
                # where only triggers pinned to a card answer `revealed` (quiet_cards: no history,
                # tally nor window), a card none of them holds adds nothing to the moment
                pins = self.quiet_cards(REVEALED) if reveal else None
                if reveal and face != "down" and (pins is None or c in pins):   # face down: revealed to nobody
                    if looks:
                        learners = self._unaware(cards, face)[0]
                    else:
                        was_up = face_up[c]
                        if not (was_up and self.zone_info[src][2]) and (was_up if face is None else True):
                            got = self._seen_in.get((src, was_up)) if self._seen_in is not None else None
                            learners = list(got[1] if got is not None else self._blind(src, was_up))
                held = zones[src]
                if held[-1] == c:
                    held.pop()
                else:
                    held.remove(c)
                if place == "bottom":
                    dest.insert(0, c)
                else:
                    dest.append(c)
                card_zone[c] = key
                if face is not None:
                    face_up[c] = face == "up"
                if owner_seat is not None and owner[c] is None:
                    owner[c] = owner_seat
                self.dirty |= ZONES
                self.ver += 1
                if looks:
                    self._forget(cards)
                if tallied:
                    tally.moved1(c, src, key)
                if log_on:
                    if before is None:
                        self.log.moved(self, c, src, was_up, key, place, face, span)
                    else:
                        self.log.move(self, cards, [src], key, place, face, span, before)
                if MOVED in listened:
                    self.announce_all(MOVED, [{"card": c, "from_zone": src, "to_zone": key}], span)
                if reveal:
                    if learners is not None and face_up[c]:
                        self.announce_all(REVEALED, [{"card": c, "learners": learners}], span)
                    elif pins is None and (self.history is not None or self.prog.windows_after.get(REVEALED)):
                        # nothing is revealed, yet the moment is kept (a scenario) or opens a window
                        self.announce_all(REVEALED, [], span)
                if self.prog.discards:      # past a zone's cap: its owner discards down (interpreter/caps.py)
                    caps.over(self, key)
                return True
            # per card, who learns it if it is revealed, worked out before any moves (`_unaware`);
            # where only triggers pinned to a card answer `revealed` (quiet_cards), not when none
            # of the cards is pinned: revealing them adds nothing to the moment
            pins = self.quiet_cards(REVEALED) if reveal else None
            learners = self._unaware(cards, face) \
                if reveal and face != "down" and (pins is None or not pins.isdisjoint(cards)) else None
            sources = []
            self._put(cards, key, dest, place, face, owner_seat, sources)
            if looks:
                self._forget(cards)
            if tallied:
                tally.moved(self, cards, sources, key)
            if log_on:
                self.log.move(self, cards, sources, key, place, face, span)
            if MOVED in listened:
                self.announce_all(MOVED, [{"card": c, "from_zone": src, "to_zone": key}
                                          for c, src in zip(cards, sources)], span)
            if reveal:
                shown = [] if learners is None else \
                    [{"card": c, "learners": who} for c, who in zip(cards, learners) if who is not None and face_up[c]]
                if shown or self.history is not None or self.prog.windows_after.get(REVEALED):
                    self.announce_all(REVEALED, shown, span)
            if self.prog.discards:
                caps.over(self, key)
            return True
        watched = self.log.on or self.move_triggers or tallied     # else only the memory changes
        sources = []
        if remembers:               # who knew each card before (the memory and where it lay)
            knew, was_visible = [self.knowers(c) for c in cards], ()
        else:
            was_visible = self._unaware(cards, face) if REVEALED in listened and public else ()
        # who could see the one card before it moved may read its name in the log
        before = self.log.seers(self, cards[0]) if self.log.on and len(cards) == 1 else None
        self._put(cards, key, dest, place, face, owner_seat, sources if watched else None)
        learned = None
        if remembers:               # a remembered card stays known wherever it goes
            learned = self._learn(cards, knew)
        elif self.looks:            # a card looked at is known only where it was seen
            self._forget(cards)
        if watched:
            self._moved(cards, sources, was_visible, key, place, face, public, span, before, learned)
        return True

    def _uncapped(self, public: bool) -> dict:
        """The zones without a cap (with `public` false, only those that are not public), by key,
        with their owner's seat: `plain` / `plain_down`. Made once for the zone tables' games."""
        got = self._uncapped_of.get(public)
        if got is None:
            got = self._uncapped_of[public] = {k: seat for k, (d, seat, p) in self.zone_info.items()
                                               if d.capacity is None and (public or not p)}
        return got

    def _put(self, cards: list, key, dest: list, place: str, face, owner_seat, sources) -> None:
        """The one loop of every move of several cards (`move`'s paths differ in what they note
        around it): each card leaves its zone for `dest`, zone `key`, at its top or bottom, turned
        `face` (None: as it lay), given the zone's owner's seat if it has no owner; `sources`, a
        list or None, gets the zone each card left. When the cards are the top of one other zone,
        in its order (`move cards in Z ...`: each card lies in one zone, once), they leave it and
        join `dest` as one slice each, with the same lists after as one card at a time."""
        st = self.st
        card_zone, face_up, owner = st.card_zone, st.face_up, st.owner
        up = None if face is None else face == "up"
        src = card_zone[cards[0]]
        held = self.zones[src]
        n = len(cards)
        if held[-n:] == cards and src != key:
            del held[-n:]
            if sources is not None:
                sources += [src] * n
            if place == "bottom":
                dest[0:0] = cards[::-1]     # one at a time, each at the bottom: the last one lowest
            else:
                dest += cards
            for c in cards:
                card_zone[c] = key
                if up is not None:
                    face_up[c] = up
                if owner_seat is not None and owner[c] is None:
                    owner[c] = owner_seat
            self.dirty |= ZONES
            self.ver += 1
            return
        zones = self.zones
        bottom = place == "bottom"
        for c in cards:
            src = card_zone[c]
            held = zones[src]
            if held[-1] == c:       # a card is in its zone once; most moves take the top card
                held.pop()
            else:
                held.remove(c)
            if sources is not None:
                sources.append(src)
            if bottom:
                dest.insert(0, c)
            else:
                dest.append(c)
            card_zone[c] = key
            if up is not None:
                face_up[c] = up
            if owner_seat is not None and owner[c] is None:
                owner[c] = owner_seat
        self.dirty |= ZONES
        self.ver += 1

    def noted1(self, c: int, src, was_up: bool, key, place: str, face, span) -> None:
        """One card moved from zone `src`, where it lay face up or not (`was_up`), where only the log
        and the tally's card tracking watch (`noted`): what `_moved` tells them."""
        tally = self.tally
        if tally is not None and tally.cards:
            tally.moved1(c, src, key)
        if self.log.on:
            self.log.moved(self, c, src, was_up, key, place, face, span)

    def noted_all(self, cards, sources, key, place: str, face, span) -> None:
        """Several cards moved from `sources` where only the log and the tally watch."""
        tally = self.tally
        if tally is not None and tally.cards:
            tally.moved(self, cards, sources, key)
        if self.log.on:
            self.log.move(self, cards, sources, key, place, face, span)

    def _unaware(self, cards, face) -> list:
        """For each card moving into a public zone, the seats that would learn it if it is
        revealed there (the `learners` of `revealed`: those who could not see it where it is),
        or None when it cannot be revealed by this move: it lies face up in a public zone
        already ("revealed" means unknown → known), or it will lie face down. (Not inside
        `move`: a comprehension there would turn move's locals into slower closure cells.)"""
        st = self.st
        face_up, card_zone, info = st.face_up, st.card_zone, self.zone_info
        out = []
        for c in cards:
            up = face_up[c]
            if (up and info[card_zone[c]][2]) or not (up if face is None else face == "up"):
                out.append(None)
            else:
                out.append([s for s in range(self.n_players) if s not in self.knowers(c)]
                           if self.looks and "$seen_by" in st.cards[c] else list(self._blind(card_zone[c], up)))
        return out

    def knowers(self, card: int) -> list:
        """The seats that know `card` now: who may see it where it lies, and who remembers it
        (interpreter/visibility.py `card_seers`), in seat order."""
        st = self.st
        if self.looks and "$seen_by" in st.cards[card]:
            who = card_seers(self, card)
            return [s for s in range(self.n_players) if s in who]
        key = (st.card_zone[card], st.face_up[card])
        table = self._seen_in
        got = table.get(key) if table is not None else None
        return list(got[0] if got is not None else self._seeing(*key))

    # (zone key, face up) -> the seats that may see such a card there, in seat order, and those
    # that may not (`_seeing`, `_blind`): the same for every card there nobody looked at (and for
    # every game of the program with these zones and players: `__init__`)
    _seen_in: dict | None = None

    def _seeing(self, key, up) -> tuple:
        """The seats that may see a card lying in zone `key`, face up or not (`card_seers` of a
        card nobody looked at), in seat order; the pair with the others, worked out once."""
        table = self._seen_in
        if table is None:
            table = self._seen_in = {}
        got = table.get((key, up))
        if got is None:
            decl, seat, _public = self.zone_info[key]
            who = seers(rule_of(decl), seat, up)
            got = table[(key, up)] = (tuple(s for s in range(self.n_players) if s in who),
                                      tuple(s for s in range(self.n_players) if s not in who))
        return got[0]

    def _blind(self, key, up) -> tuple:
        """The seats that may not see a card lying in zone `key` (nobody looked at it)."""
        self._seeing(key, up)
        return self._seen_in[(key, up)][1]

    def _learn(self, cards, knew) -> list:
        """The memory (`remember seen cards`): each seat that knew a card before a change (`knew`)
        or sees it after is kept in its `$seen_by`. Gives the `revealed` parameters of the cards
        every seat now knows that some seat did not know before: {"card", "learners"}."""
        out = []
        n = self.n_players
        for c, was in zip(cards, knew):
            known = sorted(set(was).union(self.knowers(c)))
            held = self.cards[c]
            if known and held.get("$seen_by") != known:
                held["$seen_by"] = known
            if len(known) == n and len(was) < n:
                out.append({"card": c, "learners": [s for s in known if s not in was]})
        return out

    def _moved(self, cards, sources, was_visible, key, place, face, public, span, before=None,
               learned=None) -> None:
        if self.tally is not None:      # who had, drew and played which card (docs/simulate.md)
            self.tally.moved(self, cards, sources, key)
        if self.log.on:
            self.log.move(self, cards, sources, key, place, face, span, before)
        if MOVED in self.listened:
            self.announce_all(MOVED, [{"card": c, "from_zone": src, "to_zone": key}
                                        for c, src in zip(cards, sources)], span)
        if REVEALED in self.listened:
            if learned is not None:     # remembered: revealed once, to those who did not know it
                if learned:
                    self.announce_all(REVEALED, learned, span)
            elif public:
                face_up = self.st.face_up
                self.announce_all(REVEALED, [{"card": c, "learners": learners}
                                             for c, learners in zip(cards, was_visible)
                                             if face_up[c] and learners is not None], span)
        if self.prog.discards:      # past a zone's cap: its owner discards down (interpreter/caps.py)
            caps.over(self, key)

    def _public(self, key) -> bool:
        return self.prog.decls.zones[key.partition(":")[0]].visibility == "public"

    def look(self, player, cards: list, span) -> bool | None:
        """`p looks at ...`: each card is known to p (`$seen_by`, read by interpreter/visibility.py)
        until it moves or its zone is shuffled (with `remember seen cards`, until it is shuffled);
        the log names them to whoever may see them now."""
        cards = [c for c in cards if c is not None]
        if player is None or not cards:
            return
        knew = [self.knowers(c) for c in cards] if self.remembers else None
        for c in cards:
            held = self.cards[c]
            seen = held.get("$seen_by", [])
            if player not in seen:
                held["$seen_by"] = sorted(seen + [player])
        self.looks = True
        self.quiet = self.noted = None      # a card is known: a move has knowledge to forget (`move`)
        if self.log.on:
            parts: list = [f"{self.log.player_name(player)} looks at "]
            for i, c in enumerate(cards):
                if i:
                    parts.append(" and " if i == len(cards) - 1 else ", ")
                parts.append(self.log.card(self, c))
            self.log.emit(self, "look", span, {"player": player, "count": len(cards)}, parts)
        if knew is not None:        # remembered: the last player to look at a card reveals it
            learned = self._learn(cards, knew)
            if learned and REVEALED in self.listened:
                self.announce_all(REVEALED, learned, span)
                return True         # a trigger may be waiting: the loop looks (interpreter/blocks.py)
        return None

    def _forget(self, cards) -> None:
        """Cards that move or are shuffled are no longer known to those who looked at them."""
        for c in cards:
            self.cards[c].pop("$seen_by", None)

    def shuffle(self, key, span) -> bool | None:
        if self.looks:
            self._forget(self.zones[key])
        self.st.rng = R.shuffle(self.st.rng, self.zones[key])
        self.dirty |= ZONES
        self.ver += 1
        if self.log.on:
            self.log.emit1(self, "shuffle", span, "zone", key, f"{self.log.zone_name(self, key)} is shuffled")
        return True

    def flip(self, cards: list, up: bool, span) -> bool | None:
        flipped = []
        st = self.st
        face_up = st.face_up
        remembers = self.remembers
        log_on = self.log.on
        learns = remembers or (up and REVEALED in self.listened)     # someone may learn a card
        if not (learns or log_on):
            # nobody learns anything from it: the cards only turn (their versions counted as below)
            for c in cards:
                if face_up[c] != up:
                    face_up[c] = up
                    flipped.append(c)
            if flipped:
                self.dirty |= ZONES
                self.ver += len(flipped)
        elif learns and not (remembers or self.looks):
            # only `revealed` (so `up`) and the log listen: the cards turn, and each one that lies
            # in a public zone is revealed to the seats that could not see it lying face down there
            # (`_blind`, its zone's rule looked up once), the versions counted as below; the events
            # in the order of the general path's (the cards' lines, `flipped`, then `revealed`,
            # raised even with no card shown)
            public_of, card_zone = self._public_of, st.card_zone
            seen_in = self._seen_in or {}
            shown = []
            # where only pinned triggers answer `revealed` (quiet_cards), the parameters of the
            # cards none of them holds are not made: they add nothing to the moment
            pins = self.quiet_cards(REVEALED)
            for c in cards:
                if face_up[c] != up:
                    if (pins is None or c in pins) and public_of[z := card_zone[c]]:
                        got = seen_in.get((z, face_up[c]))
                        if got is None:
                            self._seeing(z, face_up[c])
                            seen_in = self._seen_in
                            got = seen_in[(z, face_up[c])]
                        shown.append({"card": c, "learners": list(got[1])})
                    face_up[c] = up
                    flipped.append(c)
            if not flipped:
                return True
            self.dirty |= ZONES
            self.ver += len(flipped)
            if log_on:      # each card's line, as the general path logs it (each turned from `not up`)
                flipped_log = self.log.flipped
                for c in flipped:
                    flipped_log(self, c, card_zone[c], not up, up, span)
            if FLIPPED in self.listened:
                self._flipped(flipped, span)
            if shown or pins is None:
                self.announce_all(REVEALED, shown, span)
            return True
        else:
            knew = [] if learns else None   # who knew each card turned (read below only where someone learns)
            zone_info, card_zone = self.zone_info, st.card_zone
            looks = self.looks
            seen_in = self._seen_in or {}
            for c in cards:
                if face_up[c] != up:
                    if knew is None:
                        pass
                    elif remembers or (looks and "$seen_by" in st.cards[c]):
                        knew.append(self.knowers(c) if remembers or zone_info[card_zone[c]][2] else ())
                    elif zone_info[card_zone[c]][2]:
                        # who knew it before it turned (`knowers`, its zone's rule looked up once):
                        # the learners are the others
                        got = seen_in.get((card_zone[c], face_up[c]))
                        knew.append(got[0] if got is not None else self._seeing(card_zone[c], face_up[c]))
                        seen_in = self._seen_in
                    else:
                        knew.append(())
                    # who could see it before may read its name in the log: a card looked at by
                    # its `$seen_by` (`log.seers`), else by its zone's rule (`log.flipped`)
                    was_up = face_up[c]
                    before = self.log.seers(self, c) if log_on and looks else None
                    face_up[c] = up
                    self.dirty |= ZONES
                    self.ver += 1
                    flipped.append(c)
                    if log_on:
                        self.log.flipped(self, c, card_zone[c], was_up, up, span, before)
        # one flip of several cards is one moment: their triggers are ordered together
        if flipped and FLIPPED in self.listened:
            self._flipped(flipped, span)
        if remembers:               # remembered: revealed once, to those who did not know it
            learned = self._learn(flipped, knew)
            if learned and REVEALED in self.listened:
                self.announce_all(REVEALED, learned, span)
        elif flipped and up and REVEALED in self.listened:
            n = self.n_players
            zone_info, card_zone = self.zone_info, st.card_zone
            self.announce_all(REVEALED, [{"card": c, "learners": [s for s in range(n) if s not in was]}
                                         for c, was in zip(flipped, knew) if zone_info[card_zone[c]][2]],
                              span)
        return True

    def _flipped(self, flipped: list, span) -> None:
        """Raise `flipped` for the cards turned, one moment. Where only triggers pinned to a card
        answer it (`quiet_cards`), the parameters of the cards none of them holds are not made:
        they add nothing to the moment (and with none left, there is no moment to raise)."""
        pins = self.quiet_cards(FLIPPED)
        if pins is None:
            self.announce_all(FLIPPED, [{"card": c} for c in flipped], span)
        elif not pins.isdisjoint(flipped):      # (most flips turn no pinned card: no list made)
            self.announce_all(FLIPPED, [{"card": c} for c in flipped if c in pins], span)

    def assign(self, kind: str, owner, name: str, value, span) -> bool:
        if value.__class__ is int and not -MAX_RUNTIME_NUMBER <= value <= MAX_RUNTIME_NUMBER:
            raise too_large(value, span)
        # the usual kinds first; a kind none of these names is a card's field
        if kind == "player":
            self.players[owner][name] = value
        elif kind == "game":
            self.st.game[name] = value
        elif kind in ("place", "mark"):     # a place's field, a player's mark on a place (compile_boards.py)
            return assign_place(self, kind, owner, name, value, span)
        elif kind == "toward":              # `player toward a player has:` (compile_boards.py)
            return assign_toward(self, owner, name, value, span)
        elif kind == "part":                # a part of a card's field (interpreter/parts.py)
            return _parts.assign(self, owner, name, value, span, ATTRS)
        elif kind == "entity":              # an entity's attribute (interpreter/entities.py)
            return _entities.assign(self, owner, name, value, span)
        else:
            if owner is None:
                raise RuleError(f"there is no card here to set '{name}' on", span)
            self.cards[owner][name] = value
        self.dirty |= ATTRS
        if name in self.prog.tabled_reads:  # only a name some tabled modifier reads (see _from_table)
            self.ver += 1
        if self.log.on:
            self.log.assigned(self, kind, owner, name, value, span)
        return True

    def roll(self, die: str, faces: list, n, span) -> list:
        if n is not None and n > MAX_DICE_PER_ROLL:
            raise RuleError(f"one roll may roll at most {MAX_DICE_PER_ROLL:,} dice (the bound MAX_DICE_PER_ROLL), "
                            f"not {_digits(n)}", span, "roll fewer dice, or roll in a loop and add up the results",
                            code="E0805")
        out = []
        state = self.st.rng
        for _ in range(max(0, n or 0)):
            state, k = R.below(state, len(faces))
            out.append(list(faces[k]))
        self.st.rng = state
        if self.log.on:
            # the faces' symbols are the file's, a face may hold many: measure before joining
            if sum(len(symbol) + 1 for face in out for symbol in face) > MAX_RUNTIME_STRING:
                raise TextTooLong(span)
            text = f"{n} {die} dice roll " + ", ".join("+".join(f) or "blank" for f in out)
            self.log.emit(self, "roll", span, {"die": die, "results": out}, text, weight=len(text))
        return out

    def stacked_cards(self) -> set:
        """The cards with an item on the stack; cached until the stack changes (every change
        either pushes, which numbers a new item, or shortens it)."""
        st = self.st
        version = (st.stack_n, len(st.stack))
        if self._stacked[0] != version:
            self._stacked = (version, {item["card"] for item in st.stack})
        return self._stacked[1]

    def seat_order(self) -> list[int]:
        """Players still in the game in seat order, from the active player (or seat 1)."""
        start = self.st.active if self.st.active is not None else 0
        n = self.n_players
        return [(start + k) % n for k in range(n) if not self.st.out[(start + k) % n]]

    def modified(self, c: int, name: str):
        """Field `name` of card `c` with every active `modify` ability applied, computed from
        the current state (so "+1 Force to every card in this column" follows cards as they move).
        A modifier counts while its card is in a player's zone and its text is not blank."""
        base = self.cards[c].get(name)
        table = self._mod_tables.get(name)
        if table is not None and table[0] == self.ver:
            # the hot read: this version's table is built (only a tabled field has one); what
            # `_from_table` does then, inline
            if table[2]:
                st = self.st
                st.work += table[2]         # `charge`, inlined; it raises past the bound
                if st.work > self.max_steps:
                    charge(self, 0, table[3])
            adds = table[1].get(c)
            return base if adds is None else self._plus(base, adds)
        if name in self.prog.tabled_mods:
            return self._from_table(c, name, base)
        return self._summed(c, name, base)

    def modified_all(self, cards: list, name: str) -> list:
        """`[self.modified(c, name) for c in cards]` (`the force of each card in ...`), the table
        looked up once: with this version's table built and its work for every read within the
        bound, the reads' work is charged at once, after their values (an error of one of them:
        the work of the reads up to it, as reading one by one stops there); else one by one.
        A tabled field whose table is not this version's has it built by the first card's read
        (`_from_table`, which charges the building), the others read as above."""
        table = self._mod_tables.get(name)
        if table is None or table[0] != self.ver:
            if not cards or name not in self.prog.tabled_mods:
                return [self.modified(c, name) for c in cards]
            first = self._from_table(cards[0], name, self.cards[cards[0]].get(name))
            return [first] + self.modified_all(cards[1:], name)     # this version's table now
        st = self.st
        k = table[2]
        work = k * len(cards)
        if work and st.work + work > self.max_steps:
            return [self.modified(c, name) for c in cards]
        records, parts, out = self.cards, table[1], []
        try:
            for c in cards:
                adds = parts.get(c)
                if adds is None:
                    out.append(records[c].get(name))
                else:       # `_plus`, inline
                    total = records[c].get(name)
                    for amount, ability in adds:
                        total = (total or 0) + (amount or 0)
                        if not -MAX_RUNTIME_NUMBER <= total <= MAX_RUNTIME_NUMBER:
                            raise too_large(total, ability.span)
                    out.append(total)
        except BaseException:
            st.work += k * (len(out) + 1)
            raise
        st.work += work
        return out

    def modified_player(self, p: int, name: str):
        """Player `p`'s attribute `name` with the active `modify <name> of <players>` abilities
        applied (`modify draws of you by 1`), by the rule of `modified`; the stored value is what
        `set`, `add` and `subtract` change."""
        key = ("player", name)
        if key in self.prog.tabled_mods:
            return self._from_table(p, key, self.players[p][name])
        return self._summed(p, key, self.players[p][name])

    def modified_game(self, name: str):
        """The game's attribute `name` with the active `modify <name> by ...` abilities applied."""
        key = ("game", name)
        if key in self.prog.tabled_mods:
            return self._from_table(GAME, key, self.st.game[name])
        return self._summed(GAME, key, self.st.game[name])

    def _summed(self, c, name, base):
        """`modified` worked out now: `c` a card, a seat or GAME; `name` a key of Program.modifiers."""
        key = (c, name)
        if key in self._modifying:          # a modifier reading the field it modifies sees the printed value
            return base
        self._modifying.add(key)
        try:
            total = base
            for entry, env in self._active_modifiers(name):
                targets = GAME if entry.target is None else entry.target(self, env)
                if targets == c if not isinstance(targets, list) else c in targets:
                    total = (total or 0) + (entry.amount(self, env) or 0)
                    if not -MAX_RUNTIME_NUMBER <= total <= MAX_RUNTIME_NUMBER:
                        raise too_large(total, entry.ability.span)
            return total
        finally:
            self._modifying.discard(key)

    def _from_table(self, c, name, base):
        """`modified` for a field whose modifiers read only versioned state and no modified
        field (Program.tabled_mods): every modifier of it is evaluated once per state version,
        into card -> [(amount, ability)] in the order `modified` adds them; a read sums its
        card's. Each read counts the work of building the table (`charge`: lists built), whether
        it built it or found it, so a game's work is the same whichever read came first and
        after a restore. The same for a player's attribute (its table keyed by seat) and the
        game's (keyed by GAME)."""
        table = self._mod_tables.get(name)
        if table is None or table[0] != self.ver:
            work = self.st.work
            table = self._mod_tables[name] = (self.ver, self._mod_table(name), self.st.work - work,
                                              self.prog.modifiers[name][0].ability.span)
        elif table[2]:
            charge(self, table[2], table[3])
        adds = table[1].get(c)
        if adds is None:            # most cards: no modifier applies to them now
            return base
        return self._plus(base, adds)

    @staticmethod
    def _plus(base, adds):
        """`base` plus the amounts of a card's entry in a modifier table, bounded as a sum is."""
        total = base
        for amount, ability in adds:
            total = (total or 0) + (amount or 0)
            if not -MAX_RUNTIME_NUMBER <= total <= MAX_RUNTIME_NUMBER:
                raise too_large(total, ability.span)
        return total

    def _live(self, cards, live_of: dict) -> list:
        """The (card, seat) of `cards` (a list the program shares between modifiers) in a
        player's zone, for a player still in: worked out once per list in one walk (`live_of`)."""
        live = live_of.get(id(cards))
        if live is None:
            card_zone, zone_seat, out = self.st.card_zone, self.zone_seat, self.st.out
            live = live_of[id(cards)] = [
                (src, seat) for src in cards
                if (seat := zone_seat[card_zone[src]]) is not None and not out[seat]]
        return live

    def _active_modifiers(self, name):
        """(entry, env) of every modify ability of `name` that counts now, in the program's order:
        its card in a player's zone, for a player still in, its text not blank, its `while` true."""
        live_of: dict = {}      # the cards of a list (shared by the program) in a player's zone, once
        for entry in self.prog.modifiers.get(name, ()):
            for src, seat in self._live(entry.cards, live_of):
                env = {"$this": src, "$you": seat, **entry.extra}
                if entry.blank is not None and not entry.blank(self, env):
                    continue
                if entry.cond is not None and not entry.cond(self, env):
                    continue
                yield entry, env

    _seats_out = None       # ([who is out], zone key -> seat, none for an out player's): `_mod_table`

    def _mod_table(self, name) -> dict:
        """The table of `_from_table`: `_active_modifiers` walked inline (no generator, no list
        of live cards, no env copied for a modifier without a keyword's arguments), each
        modifier's target, then its amount, in the same order, so the work charged and any error
        are the same. A modifier that lists the zones where its condition's first conjunct can
        hold (`ModifierEntry.zones`) skips its cards lying elsewhere and evaluates the rest of
        its condition (`ModifierEntry.rest`: that conjunct is true where it looks)."""
        parts: dict = {}
        st = self.st
        card_zone, zone_seat, out = st.card_zone, self.zone_seat, st.out
        if True in out:     # an out player's zones hold no live modifier (`_live`): seen as shared ones
            held = self._seats_out      # (made once for these players out)
            if held is None or held[0] != out:
                held = self._seats_out = (list(out), {k: None if s is None or out[s] else s
                                                      for k, s in zone_seat.items()})
            zone_seat = held[1]
        for entry in self.prog.modifiers.get(name, ()):
            where = entry.zones     # where the first conjunct can hold (Program._modifier_zones)
            if where is None:
                srcs = entry.cards
                cond = entry.cond
            else:
                # its cards lying there, found first in a loop of their own (a list comprehension
                # costs a call: more machine instructions over these short lists)
                srcs = []
                for src in entry.cards:
                    if card_zone[src] in where:
                        srcs.append(src)
                if not srcs:
                    continue
                cond = entry.rest
            blank, target, amount_of, extra = entry.blank, entry.target, entry.amount, entry.extra
            ability = entry.ability
            # the cards of `_live` (in a player's zone, for a player still in), looked at as found
            for src in srcs:
                seat = zone_seat[card_zone[src]]
                if seat is None:
                    continue
                env = {"$this": src, "$you": seat, **extra} if extra else {"$this": src, "$you": seat}
                if blank is not None and not blank(self, env):
                    continue
                if cond is not None and not cond(self, env):
                    continue
                targets = GAME if target is None else target(self, env)
                if targets is None:
                    continue
                if isinstance(targets, list):
                    if not targets:
                        continue
                    add = (amount_of(self, env), ability)     # one pair, whatever the targets
                    for t in (dict.fromkeys(targets) if len(targets) > 1 else targets):
                        got = parts.get(t)
                        if got is None:
                            parts[t] = [add]
                        else:
                            got.append(add)
                else:
                    add = (amount_of(self, env), ability)
                    got = parts.get(targets)
                    if got is None:
                        parts[targets] = [add]
                    else:
                        got.append(add)
        return parts

    def card_label(self, c) -> str:
        return self.card_names[c] if c is not None else "nothing"

    # ------------------------------------------------------------------ players and flow
    def eliminate(self, who, span) -> bool | None:
        for p in (who if isinstance(who, list) else [who]):
            if p is None or self.st.out[p]:
                continue
            if ELIMINATED in self.prog.replacements and self.replaced(ELIMINATED, {"player": p}):
                continue                # `instead of eliminated`: the player stays in the game
            self.st.out[p] = True
            self.dirty |= OUT
            self.ver += 1
            if self.log.on:
                self.log.emit1(self, "eliminate", span, "player", p, f"{self.log.player_name(p)} is eliminated")
            if ELIMINATED in self.listened:
                self.announce(ELIMINATED, {"player": p}, span)
        return True

    def scores(self) -> list | None:
        """Every seat's declared score (`score for p as ...`), eliminated players' too; None
        when the game declares no score. The compiled expression is kept on the program."""
        decl = self.prog.game.decls.score
        if decl is None:
            return None
        fn = self.prog.__dict__.get("_score_fn")
        if fn is None:
            from cardsmith.dsl.types import Scope
            fn = self.prog.__dict__["_score_fn"] = self.prog.exprs.compile(
                decl.expr, Scope({decl.player: PLAYER}, you=True))
        name = decl.player
        try:
            return [fn(self, {name: p, "$you": p}) for p in range(self.n_players)]
        except RuleError as err:        # located at the declaration, never a traceback
            raise GameAborted(err.code or "E0802", f"the players' score could not be worked out: {err.message}",
                              err.span or decl.span, err.hint) from None

    def highest_scores(self, span) -> list:
        """`the highest score wins`: the players still in the game with the highest score."""
        scores = self.scores()
        live = [p for p in range(self.n_players) if not self.st.out[p] and scores[p] is not None]
        if not live:
            return []
        best = max(scores[p] for p in live)
        return [p for p in live if scores[p] == best]

    def winner(self, p, span) -> list:
        """The one winner `<player> wins` names: `none` there is no player (errors.md E0414), never
        a draw by accident (`first(<empty list>) wins`)."""
        if p is None:
            raise RuleError("there is no player here to win: the player named is none", span,
                            "a rule that picks the winner from a list (first(...), highest ...) found nobody: "
                            "check its condition, or end the game with 'the game is a draw'")
        return [p]

    def win(self, winners: list, span, reason: str = "") -> bool | None:
        winners = [w for w in winners if w is not None]
        winners = sorted(set(winners)) if len(winners) > 1 else winners     # a shared victory, in seat order
        self.brk = True
        self.st.result = {"winners": winners, "draw": not winners, "rounds": self.st.round,
                          "steps": self.st.steps, "reason": reason}
        if len(winners) > 1:
            self.st.result["shared"] = True
        scores = self.scores()
        if scores is not None:
            n = self.n_players
            self.st.result["scores"] = scores
            # as the OpenSpiel game's returns: the winners share 1; a draw gives each player 1/n
            self.st.result["returns"] = [1 / len(winners) if p in winners else 0.0 for p in range(n)] \
                if winners else [1 / n] * n
        if self.scenario:
            del self.st.frames[1:]
        else:
            self.st.frames.clear()
        if self.log.on:
            text = (" and ".join(self.log.player_name(w) for w in winners) +
                    (" win the game together" if len(winners) > 1 else " wins the game")) if winners \
                else "the game ends in a draw" + (f": {reason}" if reason else "")
            data = {"winners": winners}
            if scores is not None:      # the declared scores, in the data and the words
                data["scores"] = scores
                text += " (scores: " + ", ".join(f"{self.log.player_name(p)} has {s}" for p, s in enumerate(scores)) + ")"
            self.log.emit(self, "game_over", span, data, text)
        return True

    def say(self, text: str, env: dict, span) -> None:
        if self.log.on:
            self.log.emit(self, "say", span, {}, text)

    def reset_memory(self, period: str, span) -> None:
        """A new turn (or round) begins: every attribute declared `, reset each <period>` goes
        back to its starting value; the log names those that change. Most periods nothing has
        changed: that is found first, in one C-level pass, by reading every such attribute from the
        dict that holds it (`_reset_refs`, per state: the dicts, the names, the starting values) and
        comparing the list read with the starting values (the same `==` per attribute as below)."""
        refs = self._reset_refs
        if refs is None:        # (cleared by `attach`: the dicts are the state's)
            refs = self._reset_refs = {"turn": self._reset_held("turn"), "round": self._reset_held("round")}
        held = refs[period]
        if held is None:
            return
        dicts, names, starts = held
        now = list(map(dict.get, dicts, names))
        if now == starts:
            return
        # the attributes that changed, in the declared order, found in C (`!=` as the check's `==`)
        resets = self.resets[period]
        changed = []
        for i in compress(range(len(now)), map(ne, now, starts)):
            kind, owner, name, value = resets[i]
            dicts[i][name] = list(value) if isinstance(value, list) else value
            changed.append((kind, owner, name))
        if not changed:
            return
        self.dirty |= ATTRS
        self.ver += 1
        if self.log.on:
            parts: list = [f"a new {period}: "]
            for i, (kind, owner, name) in enumerate(changed):
                if i:
                    parts.append(", ")
                if kind == "player":
                    parts.append(f"{self.log.player_name(owner)}'s ")
                elif kind == "card":
                    parts += [self.log.card(self, owner), "'s "]
                parts.append(name.replace("_", " "))     # as the rulebook's examples of play say it
            parts.append(" reset")
            self.log.emit(self, "reset", span, {"period": period, "count": len(changed)}, parts)

    def _reset_held(self, period: str) -> tuple | None:
        """([the dict that holds it], [name], [starting value]) of the attributes reset each `period`
        (None: there are none)."""
        st = self.st
        resets = self.resets[period]
        if not resets:
            return None
        return ([st.game if kind == "game" else self.players[owner] if kind == "player" else self.cards[owner]
                 for kind, owner, _name, _value in resets],
                [name for _kind, _owner, name, _value in resets], [value for *_rest, value in resets])

    def begin_round(self, name: str, span) -> bool | int | None:
        """REPLACED when an `instead of round_started` takes the round's place (it does not happen)."""
        if ROUND_STARTED in self.prog.replacements and self.replaced(ROUND_STARTED, {}):
            return REPLACED
        self.st.round += 1
        if self.log.on:
            self.log.emit1(self, "round", span, "round", self.st.round, f"round {self.st.round}: {name}")
        if self.resets["round"]:
            self.reset_memory("round", span)
        if ROUND_STARTED in self.listened:
            return self.announce(ROUND_STARTED, {}, span)

    def begin_step(self, kind: str, name: str, span) -> bool | int | None:
        """REPLACED when an `instead of step_started` takes the step's place (it does not happen)."""
        if self.stop_at is not None and self.stop_at[0] == name and self.park():
            return True             # a scenario's `play until step`: the round waits here
        if STEP_STARTED in self.prog.replacements and self.replaced(STEP_STARTED, {"step": name}):
            return REPLACED
        self.st.step_path.append(name)
        if self.log.on:
            self.log.begins(self, kind, name, span)
        if STEP_STARTED in self.listened:
            return self.announce(STEP_STARTED, {"step": name}, span)

    def end_step(self, span) -> bool | None:
        name = self.st.step_path.pop() if self.st.step_path else ""
        if STEP_ENDED in self.listened:
            return self.announce(STEP_ENDED, {"step": name}, span)

    def begin_turn(self, p, span) -> bool | int | None:
        """REPLACED when an `instead of turn_started` takes the turn's place (it does not happen)."""
        if TURN_STARTED in self.prog.replacements and self.replaced(TURN_STARTED, {"player": p}):
            return REPLACED
        self.st.active = p
        if self.log.on:
            self.log.emit1(self, "turn", span, "player", p, f"{self.log.player_name(p)}'s turn")
        if self.resets["turn"]:
            self.reset_memory("turn", span)
        if TURN_STARTED in self.listened:
            return self.announce(TURN_STARTED, {"player": p}, span)

    def end_turn(self, previous, span) -> None:
        self.st.active = previous



__all__ = ["Machine", "CARD", "PLAYER", "ZONE"]
