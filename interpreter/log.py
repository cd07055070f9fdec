"""The explained event log: every event names the rule (file:line:col) that caused it.

Events are plain dicts with sorted keys when written, so the same file, seed and choices
give the same log byte for byte. Logging can be switched off for fast simulation.

The log is the referee's record: it names every card. An event's text may be built from
parts, where a card's name (or a secret pick) is a `Seen` part that says who may read it
(interpreter/visibility.py); `seen_by(player)` gives the log as that player may read it, with
"a card" where they may not see the name. The log is bounded: a text computed while playing
is at most MAX_RUNTIME_STRING characters, and one game's log at most MAX_LOG_BYTES.
"""
from __future__ import annotations

import json
import json.encoder
from typing import NamedTuple

from cardsmith.dsl.bounds import MAX_LOG_BYTES, MAX_RUNTIME_STRING

from .errors import RuleError
from .dice import die_label, is_die
from .parts import is_part, label as part_label
from .entities import is_entity, label as entity_label
from .visibility import EVERYONE, back_of, card_seers, known_to, rule_of, seers, unseen_label

# What an event costs the log besides its text: the keys `n`, `round`, `event`, `rule`,
# `step`, `text`, their values and JSON punctuation; then each further datum (a key and a short
# value). Fair floors, so the bound is reached by many small events too.
_EVENT_OVERHEAD = 100
_DATUM = 24
_KEPT = ("n", "round", "event", "rule", "step")      # what a redacted event keeps besides its text


class Seen(NamedTuple):
    """A piece of an event's text that only `seers` may read; the others read `instead`.
    (Immutable data like a frozen dataclass, but a tuple: made for nearly every event.)"""
    text: str
    seers: object            # visibility.EVERYONE or a frozenset of seats
    instead: str = "a card"


class TextTooLong(RuleError):
    """A text computed while playing went past MAX_RUNTIME_STRING."""

    def __init__(self, span):
        super().__init__(f"a text computed while playing is longer than {MAX_RUNTIME_STRING:,} characters "
                         "(the bound MAX_RUNTIME_STRING)", span,
                         "a rule names too many cards or values at once; choose or log fewer",
                         code="E0808")


def is_many(kind) -> bool:
    """Whether a decision's kind is one pick of `chooses ... of` / `orders`: ("many", element
    kind); its options are the elements left and, where the player may stop, None ("done")."""
    return isinstance(kind, (tuple, list)) and len(kind) == 2 and kind[0] == "many"


def is_list_kind(kind) -> bool:
    """Whether a decision's kind is a list type ("list", element kind): its options are lists
    (groups of cards from `the groups of`, `the subsets of`, ...), a list after a save."""
    return isinstance(kind, (tuple, list)) and len(kind) == 2 and kind[0] == "list"


def is_menu(kind) -> bool:
    """Whether a decision's kind is that of `chooses one`: ("menu", ((label, element kind), ...)),
    a list after a save; its options are [i] (a text option) or [i, element]."""
    return isinstance(kind, (tuple, list)) and len(kind) == 2 and kind[0] == "menu"


_MAX_WORDS = 4096      # declared events' words kept per program and names (`EventLog.announced`)
_SCALARS = frozenset((int, str))       # the values whose words `EventLog.announced` makes once
_MAX_SHARED = 8        # lists of player names whose words a program keeps (`EventLog._share`)
# what `EventLog._share` shares between the games of one program (the same for each game)
_SHARED = ("_rules", "_ruled", "_spans", "_plain", "_words", "_begins", "_tails", "_ways", "_groups", "_group_tails",
           "_zone_names", "_hidden", "_flips", "_sets",
           "_attribute_types")


class _Words(tuple):
    """A declared event's words made once (`EventLog.announced`): (data, text, size, pieces,
    cards). The log holds it in place of the event's data; `events` makes the data a dict."""
    __slots__ = ()


def _plain_types(types: dict) -> bool:
    """Whether a declared event's parameters read the same whenever their values are the same:
    numbers, texts, players and cards by name, lists of them (not of cards); not zones (an
    entity's zone is named by who holds it) or actions."""
    for t in types.values():
        if t is None:
            continue
        if t.__class__ is str:
            if t == "zone" or t == "action":
                return False
        elif not (t.__class__ is tuple and len(t) == 2 and t[0] == "list" and t[1].__class__ is str
                  and t[1] not in ("zone", "action", "card")):
            return False
    return True


def _key(event: str, params: dict):
    """`EventLog.announced`'s key of a declared event's words whose values hold lists: the
    event, the parameters' names, their values (each list a tuple); None when a value is not a
    number or a text or a list of them."""
    key = [event, *params]
    for v in params.values():
        cls = v.__class__
        if cls is int or cls is str:
            key.append(v)
        elif cls is list and _SCALARS.issuperset(map(type, v)):
            key.append(tuple(v))
        else:
            return None
    return tuple(key)


class _Budget:
    """Counts the characters of a text as it is built; past the bound, a located error."""
    __slots__ = ("left", "span")

    def __init__(self, span, limit: int = MAX_RUNTIME_STRING):
        self.left = limit
        self.span = span

    def take(self, text: str) -> str:
        self.left -= len(text)
        if self.left < 0:
            raise TextTooLong(self.span)
        return text


class EventLog:
    def __init__(self, on: bool = True, player_names: list[str] | None = None):
        self.on = on
        self._events: list[dict] = []          # the events as dicts, made when the log is read
        # the events recorded since: (n, round, kind, rule, step, text), and beside them (in
        # `_data`) their data, a dict or a declared event's words; a move's record holds its data
        # too (the cards, where from and to, ...). Plain tuples of numbers and texts, which the
        # garbage collector stops watching, so a long log does not make it scan the heap
        self._pending: list[tuple] = []
        self._data: list = []
        self._rules: dict[int, str] = {}       # id(span) → "file.cards:12:7" (the spans kept in `_ruled`)
        self._ruled: list = []
        self.names = player_names or []
        self._spans: dict = {}
        self._parts: dict[int, tuple] = {}     # event index → its text's parts, when some are Seen
        self._attribute_types: dict[tuple, object] = {}     # (kind, card type, name) → shown as
        self._zone_names: dict = {}            # zone key → its name in words
        self._hidden: dict = {}                # zone key → whether its zone is hidden
        self._tails: dict = {}                 # (from, to, place, face) → (" from A to B face up", hidden, size)
        self._ways: dict = {}                  # (from, face up, to, place, face) → words, who reads (`moved`)
        self._flips: dict = {}                 # (zone, was up, up) → words, face, who reads (`flipped`)
        self._sets: dict = {}                  # (kind, owner, name) → words before a value, what (`assigned`)
        self._card_names: list = []            # the program's (a move of several cards keeps numbers)
        self._name_lens: list | None = None    # the lengths of the program's card names (`move`)
        self._groups: dict = {}                # (to, place, face, *froms) → words of a move of cards (`move`)
        self._group_tails: dict = {}           # (froms, to, place, face) → the words after their count (`_group`)
        self._seers: dict = {}                 # (zone key, face up) → who may see a card there
        self._begins: dict = {}                # id(span) → a step's event: text, size, rule, kind, name, span
        self._plain: dict = {}                 # declared event → whether its words are made once
        self._words: dict = {}                 # (event, key, value, ...) → its words (`announced`)
        self._shared = False                   # whether `_share` has looked for the program's words
        self.bytes = 0                          # what the log holds so far, as MAX_LOG_BYTES counts it

    @property
    def events(self) -> list[dict]:
        """The events as dicts: n, round, event, rule, step, text, then the event's own data.
        Recorded as tuples while playing and made into dicts here, when the log is read (a game
        whose log nobody reads never pays for the dicts or for formatting its rules' places)."""
        if self._pending:
            self._materialize()
        return self._events

    def __len__(self) -> int:
        """How many events the log holds (without making them into dicts)."""
        return len(self._events) + len(self._pending)

    def _materialize(self) -> None:
        pending, self._pending = self._pending, []
        datas, self._data = self._data, []
        data_of = iter(datas).__next__
        out = self._events
        names = self._card_names
        for rec in pending:
            size = len(rec)
            if size == 8:                   # an event with one datum (`emit1`, `begins`)
                n, rnd, kind, rule, step, text, key, value = rec
                ev = {"n": n, "round": rnd, "event": kind, "rule": rule, "step": step, "text": text, key: value}
            elif size == 6:                 # an event, its data beside it in `_data`
                n, rnd, kind, rule, step, text = rec
                ev = {"n": n, "round": rnd, "event": kind, "rule": rule, "step": step, "text": text}
                data = data_of()
                if data.__class__ is _Words:     # a declared event's words, made once (`announced`)
                    for k, v in data[0].items():
                        ev[k] = v[:] if v.__class__ is list else v      # each event its own list
                elif data:
                    ev.update(data)
            elif rec[5] is None:            # a move of one card: its name, zone, and the words after the name
                n, rnd, kind, rule, step, _, name, src, key, face, hidden, tail = rec
                ev = {"n": n, "round": rnd, "event": kind, "rule": rule, "step": step, "text": name + tail,
                      "cards": [name], "from": [src], "to": key, "face": face or "", "hidden": hidden}
            else:                           # a move of several: their numbers, and their zones
                n, rnd, kind, rule, step, text, cards, srcs, key, face, hidden = rec
                ev = {"n": n, "round": rnd, "event": kind, "rule": rule, "step": step, "text": text,
                      "cards": [names[c] for c in cards], "from": list(srcs), "to": key, "face": face or "",
                      "hidden": hidden}
            out.append(ev)

    # ------------------------------------------------------------------ words
    def player_name(self, p) -> str:
        if p is None:
            return "nobody"
        return self.names[p] if p < len(self.names) else f"Player {p + 1}"

    def zone_name(self, m, key) -> str:
        if isinstance(key, list):
            return " and ".join(self.zone_name(m, k) for k in key)
        if "/" in key:          # an entity's zone, `Ann's Boat 2's crew`: its slot changes hands
            from .entities import zone_label
            return zone_label(m, key)
        shown = self._zone_names.get(key)
        if shown is None:
            name, _, seat = key.partition(":")
            shown = self._zone_names[key] = f"{self.player_name(int(seat))}'s {name}" if seat else name
        return shown

    def value(self, m, v):
        """A runtime value in words (cards by name, players by name); JSON-able."""
        cls = v.__class__
        if cls is int or cls is str:        # the usual value: as it is
            return v
        if isinstance(v, bool) or v is None:
            return "yes" if v is True else "no" if v is False else "none"
        if isinstance(v, list):
            return [self.value(m, x) for x in v]
        if v.__class__ is dict and is_die(v):      # a die of a pool: `White die 3 (Aim+Aim)`
            return die_label(v)
        if v.__class__ is dict and is_part(v):     # a part of a card: `Harbor's Mine 2`
            return part_label(m, v, m.prog.part_labels)
        if v.__class__ is dict and is_entity(v):   # an entity: `Ann's Boat 2` (interpreter/entities.py)
            return entity_label(m, v)
        return v

    def typed(self, m, v, t):
        """A value of static type `t` in words: cards and players by name; JSON-able."""
        if t.__class__ is str:          # the usual type: a word (the same tests as below, in order)
            if t == "card":
                if isinstance(v, int):
                    return m.card_label(v)
            elif t == "player":
                if isinstance(v, int):
                    return self.player_name(v)
            elif t == "zone":
                if isinstance(v, str):
                    return self.zone_name(m, v)
            elif t == "action":
                from .resolver import label
                return label(m, v)
            return self.value(m, v)
        if t is None:
            return self.value(m, v)
        if t.__class__ is tuple and t and t[0] == "list" and isinstance(v, list):     # as the list case below
            inner = t[1]
            return [self.typed(m, x, inner) for x in v]
        if is_menu(t):
            return self.option_label(m, v, t)
        if t.__class__ is not str and is_many(t):
            return "done" if v is None else self.typed(m, v, t[1])
        if t == "action":
            from .resolver import label
            return label(m, v)
        if isinstance(t, tuple) and t and t[0] == "list" and isinstance(v, list):
            return [self.typed(m, x, t[1]) for x in v]
        if t == "card" and isinstance(v, int):
            return m.card_label(v)
        if t == "player" and isinstance(v, int):
            return self.player_name(v)
        if t == "zone" and isinstance(v, str):
            return self.zone_name(m, v)
        return self.value(m, v)

    def card(self, m, c, before=None) -> Seen | str:
        """A card's name as a part of a text: read by whoever may see the card now (or `before`)."""
        if c is None:
            return "nothing"
        who = self.seers(m, c)
        if before is not None and before is not who:
            who = who | before
        if m.prog.backs:
            return Seen(m.card_label(c), who, self.back(m, c))
        return Seen(m.card_label(c), who)

    def seers(self, m, c: int):
        """Who may see card `c` where it lies now: visibility.card_seers, its zone's rule looked
        up once per zone and facing."""
        st = m.st
        where = (st.card_zone[c], st.face_up[c])
        who = self._seers.get(where)
        if who is None:
            decl, seat, _public = m.zone_info[where[0]]
            who = self._seers[where] = seers(rule_of(decl), seat, where[1])
        if m.looks:
            return who | known_to(st.cards[c])
        return who

    def back(self, m, c: int) -> str:
        """How a card reads to a player who may not see its face: "a card", or, when its back
        shows fields (`back shows: tier`) and it lies outside a hidden zone, "a System (tier 2)"."""
        if m.zone_info[m.st.card_zone[c]][0].visibility == "hidden":
            return "a card"
        back = back_of(m, c)
        if back is None:
            return "a card"
        shown = ", ".join(f"{k} {self.value(m, v)}" for k, v in back.items() if k != "type")
        return f"a {back['type']} ({shown})"

    def used(self, m, c: int, action: str) -> Seen:
        """"Bolt: Cast it" as a part of a text; who may not see the card reads where it is."""
        return Seen(f"{m.card_label(c)}: {action}", card_seers(m, c),
                    f"a card from {self.zone_name(m, m.st.card_zone[c])}")

    def attribute_type(self, m, kind: str, owner, name: str):
        """How a value of the attribute `name` reads in the log, from its declaration: "player"
        (by name, not the 0-based seat), "card" (by name, not its number), a list of them, or
        None (as it is). `kind` is "game", "player" or "card" (then `owner` is the card)."""
        d = m.prog.decls
        type_name = m.prog.card_type_names[owner] if kind == "card" and owner is not None else None
        key = (kind, type_name, name)
        if key not in self._attribute_types:
            if kind == "card":
                fields = d.card_types[type_name].fields if type_name in d.card_types else ()
            else:
                fields = (d.game_fields if kind == "game" else d.player_fields).values()
            ref = next((fd.type for fd in fields if fd.name == name), None)
            shown = None
            if ref is not None:
                shown = ("player" if ref.name == "player" else "zone" if ref.name == "zone"
                         else "card" if ref.name == "card" or ref.name in d.card_types else None)
                if ref.is_list and shown is not None:
                    shown = ("list", shown)
            self._attribute_types[key] = shown
        return self._attribute_types[key]

    def typed_parts(self, m, v, t, span, nested: bool = False, budget: _Budget | None = None) -> list:
        """Text parts of a value of static type `t`, as `str(typed(...))` writes it: a list in
        brackets with its items quoted; card names (and actions of cards) as `Seen` parts.
        Bounded by MAX_RUNTIME_STRING."""
        if budget is None:          # the usual cases, written as the general ones below write them
            if v.__class__ is int and t == "card":      # a card: its name, read by who may see it
                name = m.card_names[v]
                text = repr(name) if nested else name
                if len(text) > MAX_RUNTIME_STRING:
                    raise TextTooLong(span)
                return [Seen(text, self.seers(m, v))]
            if (v.__class__ is list and t.__class__ is tuple and len(t) == 2 and t[0] == "list"
                    and (inner := t[1]).__class__ is str and inner != "card" and inner != "action"):
                # a list of players, zones, numbers or texts: one text, as the items' parts join
                typed = self.typed
                items = []
                for x in v:
                    if x.__class__ is list:
                        break
                    items.append(repr(typed(m, x, inner)))
                else:
                    text = "[" + ", ".join(items) + "]"
                    if len(text) > MAX_RUNTIME_STRING:
                        raise TextTooLong(span)
                    return [text]
        if t.__class__ is not str and t is not None and is_many(t):     # one pick of several
            return ["done"] if v is None else self.typed_parts(m, v, t[1], span, nested, budget)
        if t.__class__ is not str and t is not None and is_menu(t):     # an option of `chooses one`
            label, kind = t[1][v[0]]
            if len(v) == 1:
                return self.typed_parts(m, label, None, span, nested, budget)
            item = self.typed_parts(m, v[1], kind, span, nested, budget)
            return [f"{label}: ", *item] if label is not None else item
        if v.__class__ is not list and t != "card" and t != "action":     # the usual case: one text
            shown = self.typed(m, v, t)
            text = repr(shown) if nested else str(shown)
            if budget is not None:
                return [budget.take(text)]
            if len(text) > MAX_RUNTIME_STRING:
                raise TextTooLong(span)
            return [text]
        budget = budget or _Budget(span)
        if isinstance(v, list) and not (t == "action"):
            inner = t[1] if isinstance(t, tuple) and t and t[0] == "list" else None
            out: list = [budget.take("[")]
            for i, x in enumerate(v):
                if i:
                    out.append(budget.take(", "))
                out.extend(self.typed_parts(m, x, inner, span, True, budget))
            out.append(budget.take("]"))
            return out
        if t == "card" and isinstance(v, int):
            name = m.card_label(v)
            return [Seen(budget.take(repr(name) if nested else name), self.seers(m, v))]
        if t == "action" and isinstance(v, str):
            from .resolver import label
            text = label(m, v)
            text = budget.take(repr(text) if nested else text)
            return [Seen(text, card_seers(m, int(v.partition(":")[2])), "an action")]
        shown = self.typed(m, v, t)
        return [budget.take(repr(shown) if nested else str(shown))]

    def option_label(self, m, v, kind, budget: _Budget | None = None, player=None, where: bool = False) -> str:
        """An option's label as `player` (the chooser) reads it: a card they may not see is
        named by its place ("card 2 of Ann's hand", interpreter/visibility.py). `where`: a card
        seen, or an action's card, is followed by its zone ("Salt (Ann's Caravan 1's cargo): Sell"),
        for options that would read the same (`option_labels`)."""
        if kind == "card":      # the usual option first (`seers`: its zone's rule looked up once)
            if player is not None and player not in self.seers(m, v):
                place = unseen_label(m, v, self.zone_name(m, m.st.card_zone[v]))
                back = self.back(m, v) if m.prog.backs else "a card"
                return place if back == "a card" else f"{place}: {back}"      # its back shows fields
            if where:
                return f"{m.card_label(v)} ({self.zone_name(m, m.st.card_zone[v])})"
            return m.card_label(v)
        if kind.__class__ is not str and kind is not None and is_many(kind):     # an element, or done
            return "done" if v is None else self.option_label(m, v, kind[1], budget, player, where)
        if kind.__class__ is not str and kind is not None and is_menu(kind):     # [i] or [i, element]
            label, inner = kind[1][v[0]]
            if len(v) == 1:
                return label
            item = self.option_label(m, v[1], inner, budget, player, where)
            return f"{label}: {item}" if label is not None else item
        if kind == "action":
            if where and v is not None:
                index, _, c = v.partition(":")
                c = int(c)
                return (f"{m.card_label(c)} ({self.zone_name(m, m.st.card_zone[c])}): "
                        f"{m.prog.actions[int(index)].label}")
            from .resolver import label
            return label(m, v)
        if kind.__class__ is not str and is_list_kind(kind) and isinstance(v, list):   # a group of them
            budget = budget or _Budget(None)
            return budget.take("[" + ", ".join(self.option_label(m, x, kind[1], budget, player) for x in v) + "]")
        if kind == "player":
            return self.player_name(v)
        if isinstance(v, bool):
            return "yes" if v else "no"
        if kind == "zone":
            return self.zone_name(m, v)
        if v.__class__ is dict and is_die(v):
            return die_label(v)
        if v.__class__ is dict and is_part(v):
            return part_label(m, v, m.prog.part_labels)
        if v.__class__ is dict and is_entity(v):
            return entity_label(m, v)
        if isinstance(v, list):      # a list built while playing: its label is bounded
            return "".join(p.text if isinstance(p, Seen) else p
                           for p in self.typed_parts(m, v, None, None, budget=budget))
        return str(v)

    def option_labels(self, m, options: list, kind, span, player=None) -> list[str]:
        """The labels of a decision's options as `player` reads them; the texts built for them
        share one bound."""
        budget = _Budget(span)
        if kind == "card" and not m.looks:
            # the usual question, cards: `option_label`'s first case written out, each card's
            # seers looked up in `seers`' table (a card its chooser may not see goes to it)
            st = m.st
            table, card_zone, face_up = self._seers, st.card_zone, st.face_up
            label = m.card_label
            if player is None:
                labels = [label(o) for o in options]
            else:
                labels = []
                for o in options:
                    who = table.get((card_zone[o], face_up[o]))
                    if who is None:
                        who = self.seers(m, o)
                    labels.append(label(o) if player in who else self.option_label(m, o, kind, budget, player))
        else:
            labels = [self.option_label(m, o, kind, budget, player) for o in options]
        if len(set(labels)) < len(labels):      # alike: each card's zone tells them apart, where it does
            alike: dict[str, list[int]] = {}
            for i, lab in enumerate(labels):
                alike.setdefault(lab, []).append(i)
            for same in alike.values():
                if len(same) > 1:
                    told = [self.option_label(m, options[i], kind, budget, player, True) for i in same]
                    if len(set(told)) > 1:      # copies of one card in one zone are one choice to a player
                        for i, lab in zip(same, told):
                            labels[i] = lab
        return labels

    # ------------------------------------------------------------------ events
    def emit(self, m, kind: str, span, data: dict, text, bounded: bool = True, weight: int | None = 0) -> None:
        """Add an event. `text` is a string, or a list of strings and `Seen` parts. `weight`:
        the characters of the texts in `data` beyond a few words (a caller whose data holds
        lists says how long they are; counting them here for every event would cost more than
        the rest of the event), or None when the data repeats the values the text shows. Only
        the event that says why a game was aborted is not `bounded`: it must get into the log.
        The event is kept as a tuple; `events` makes it a dict when the log is read."""
        parts = None
        if text.__class__ is not str:       # this runs for most events: one loop, no calls
            pieces = []
            for p in text:
                if p.__class__ is Seen:
                    pieces.append(p[0])
                    if p[1] is not EVERYONE:
                        parts = text
                else:
                    pieces.append(p)
            text = "".join(pieces)
        length = len(text)
        if length > MAX_RUNTIME_STRING:
            raise TextTooLong(span)
        size = self.bytes + _EVENT_OVERHEAD + length + _DATUM * len(data) + (length if weight is None else weight)
        if size > MAX_LOG_BYTES and bounded:
            raise RuleError(f"the game's log grew past {MAX_LOG_BYTES:,} bytes (the bound MAX_LOG_BYTES) "
                            f"after {len(self):,} events", span,
                            "a game that runs this long without ending may loop forever; play it with "
                            "the log off (`simulate` does), or stop it sooner with --max-steps",
                            code="E0809")
        self.bytes = size
        self._add(m, kind, span, text, data, None if parts is None else tuple(parts))

    def _add(self, m, kind: str, span, text: str, data, parts) -> None:
        """Record an event whose size was counted (`bytes`): numbered in the state, so a restored
        game goes on counting; its text's `parts` kept when some may not read all of it."""
        st = m.st
        n = st.event_n = st.event_n + 1
        if parts is not None:
            self._parts[len(self._events) + len(self._pending)] = parts
        rule = self._rules.get(id(span))
        if rule is None:
            rule = self._rule(m, span)
        path = st.step_path
        self._pending.append((n, st.round, kind, rule, path[-1] if path else "", text))
        self._data.append(data)

    def announced(self, m, event: str, params: dict, span) -> None:
        """A declared event raised by a rule: `battle_won (winner: Ann, card: Bolt)`, its data the
        parameters in words (cards and players by name), each card's name read by who may see it.
        Its words depend only on the values when they are numbers, texts, players, cards or lists
        of them (names do not change), so they are made once per event and values (`_words`) and
        only who may read each card's name is asked each time."""
        # the key of its words: the event, the parameters' names, then their values (a list as a
        # tuple), for numbers and texts (by class: True is not 1) and lists of them; else None.
        # One flat tuple (its length tells where the names end: as many values as names)
        values = params.values()
        if _SCALARS.issuperset(map(type, values)):      # numbers and texts (the usual)
            key = (event, *params, *values)
        elif len(params) == 1:      # one parameter, a list (`fighters: list of player`): no loop
            [v] = values
            key = (event, *params, tuple(v)) if v.__class__ is list and _SCALARS.issuperset(map(type, v)) else None
        else:               # lists of them too
            key = _key(event, params)
        if key is not None:
            made = self._words.get(key)
            if made is None:
                if not self._shared:
                    self._share(m)
                    made = self._words.get(key)
                if made is None:
                    plain = self._plain.get(event)
                    if plain is None:
                        plain = self._plain[event] = _plain_types(m.prog.event_types(event))
                    if plain:
                        made = self._word(m, event, params, span)
                        if made is not None and len(self._words) < _MAX_WORDS:
                            self._words[key] = made
            if made is not None and self.said(m, made, span):
                return
        shown, pieces, hidden, _cards = self._words_of(m, event, params, span)
        self.emit(m, "event", span, shown, "".join(pieces), weight=None)
        if hidden is not None:      # what `emit` keeps for a text with such parts (for `seen_by`)
            self._parts[len(self) - 1] = tuple([hidden.get(i, piece) for i, piece in enumerate(pieces)])

    def said(self, m, made: _Words, span) -> bool:
        """Record a declared event by its words made once (`announced`; `triggers._logged_one`
        finds them by the values themselves): who may read each card's name asked now. False,
        nothing recorded, past the log's bound (`announced` then stops the game as `emit` does)."""
        size = self.bytes + made[2]
        if size > MAX_LOG_BYTES:
            return False
        self.bytes = size
        st = m.st
        n = st.event_n = st.event_n + 1
        if made[4]:         # its cards: who may read each name now
            pieces = made[3]
            hidden = None
            for i, c in made[4]:
                who = None if m.looks else self._seers.get((st.card_zone[c], st.face_up[c]))
                if who is None:     # (`seers`, inlined)
                    who = self.seers(m, c)
                if who is not EVERYONE:
                    if hidden is None:
                        hidden = list(pieces)
                    hidden[i] = Seen(pieces[i], who)
            if hidden is not None:
                self._parts[len(self._events) + len(self._pending)] = tuple(hidden)
        rule = self._rules.get(id(span))
        if rule is None:
            rule = self._rule(m, span)
        path = st.step_path
        self._pending.append((n, st.round, "event", rule, path[-1] if path else "", made[1]))
        self._data.append(made)
        return True

    def _word(self, m, event: str, params: dict, span):
        """A declared event's words for `_words`: its data, text, what it adds to the log's size,
        the text's pieces and where in them each card's name is (its index in pieces, the card);
        None when a value names a card inside it (a list of cards: not made once)."""
        shown, pieces, _hidden, cards = self._words_of(m, event, params, span)
        if cards is None:
            return None
        text = "".join(pieces)
        if len(text) > MAX_RUNTIME_STRING:
            raise TextTooLong(span)
        return _Words((shown, text, _EVENT_OVERHEAD + 2 * len(text) + _DATUM * len(shown),
                       tuple(pieces), tuple(cards)))

    def _words_of(self, m, event: str, params: dict, span) -> tuple:
        """The data (the parameters in words), the text's pieces, and {index in pieces: Seen}
        for the names not everyone may read (None when there are none), as `typed_parts`
        writes each value, put together in one pass."""
        types = m.prog.event_types(event)
        shown = {"name": event}
        for k, v in params.items():
            t = types.get(k)
            if v.__class__ is int and (t == "player" or t == "card"):
                shown[k] = self.player_name(v) if t == "player" else m.card_names[v]
            else:
                shown[k] = self.typed(m, v, t)
        pieces = [event]            # the text's pieces as strings
        hidden = None               # index in pieces -> the Seen part, for names not everyone reads
        cards = []                  # (index in pieces, card) of each card named by a value
        sep = " ("
        for k, v in params.items():
            pieces.append(f"{sep}{k}: ")
            sep = ", "
            t = types.get(k)
            if v.__class__ is int and (t == "player" or t == "card"):     # as typed_parts writes one
                name = shown[k]
                if len(name) > MAX_RUNTIME_STRING:
                    raise TextTooLong(span)
                if t == "card":
                    cards.append((len(pieces), v))
                    who = self.seers(m, v)
                    if who is not EVERYONE:
                        if hidden is None:
                            hidden = {}
                        hidden[len(pieces)] = Seen(name, who)
                pieces.append(name)
                continue
            if (v.__class__ is list and t.__class__ is tuple and len(t) == 2 and t[0] == "list"
                    and (inner := t[1]).__class__ is str and inner != "card" and inner != "action"
                    and not any(x.__class__ is list for x in v)):
                # players, numbers, texts: their words are already in `shown`, written as typed_parts does
                text = "[" + ", ".join([repr(x) for x in shown[k]]) + "]"
                if len(text) > MAX_RUNTIME_STRING:
                    raise TextTooLong(span)
                pieces.append(text)
                continue
            for part in self.typed_parts(m, v, t, span):
                if part.__class__ is Seen:
                    cards = None            # a name inside a value: its words are not made once
                    if part[1] is not EVERYONE:
                        if hidden is None:
                            hidden = {}
                        hidden[len(pieces)] = part
                    pieces.append(part[0])
                else:
                    pieces.append(part)
        if params:
            pieces.append(")")
        return shown, pieces, hidden, cards

    def begins(self, m, kind: str, name: str, span) -> None:
        """`step Reveal begins` (or phase): its text, size and rule made once per step (by the
        id of its span, the span kept with them); recorded with its one datum, {"name": name}.
        Called with the step's name just put on `step_path` (its event's step is itself)."""
        made = self._begins.get(id(span))
        if made is None:        # (a step statement's span: its kind and name; kept in `made`, so its id is its own)
            if not self._shared:
                self._share(m)
            made = self._begins.get(id(span))
            if made is None or made[5] is not span or made[4] != name or made[3] != kind:
                text = f"{kind} {name} begins"
                if len(text) > MAX_RUNTIME_STRING:
                    raise TextTooLong(span)
                made = self._begins[id(span)] = (
                    text, _EVENT_OVERHEAD + len(text) + _DATUM, self._rule(m, span), kind, name, span)
        size = self.bytes + made[1]
        if size > MAX_LOG_BYTES:        # `emit` stops the game
            self.emit(m, kind, span, {"name": name}, made[0])
        self.bytes = size               # recorded here as `emit` records it
        st = m.st
        n = st.event_n = st.event_n + 1
        # its step is itself: both callers (Machine.begin_step and the generated step) put the
        # name on `step_path` just before
        self._pending.append((n, st.round, kind, made[2], name, made[0], "name", name))

    def emit1(self, m, kind: str, span, key: str, value, text: str) -> None:
        """`emit(m, kind, span, {key: value}, text)` for an event with one datum, a number, a
        text, a flag or None, and a plain text: recorded without a dict (made when read)."""
        length = len(text)
        if length > MAX_RUNTIME_STRING:
            raise TextTooLong(span)
        size = self.bytes + (_EVENT_OVERHEAD + _DATUM) + length
        if size > MAX_LOG_BYTES:        # `emit` stops the game
            self.emit(m, kind, span, {key: value}, text)
        self.bytes = size
        st = m.st
        n = st.event_n = st.event_n + 1
        rule = self._rules.get(id(span))
        if rule is None:
            rule = self._rule(m, span)
        path = st.step_path
        self._pending.append((n, st.round, kind, rule, path[-1] if path else "", text, key, value))

    def move(self, m, cards, sources, key, place, face, span, before=None) -> None:
        """`before`: who could see the one card moved before it moved (they may read its name)."""
        if len(cards) == 1:         # the usual move: recorded here, as `emit` would record it
            c = cards[0]
            src = sources[0]
            way = self._tails.get((src, key, place, face))
            if way is None and not self._shared:
                self._share(m)
                way = self._tails.get((src, key, place, face))
            if way is None:         # the words after the card's name, whether its new place is hidden,
                tail = self._move_tail(m, src, key, place, face)   # and what the event adds to the size
                # the data: cards, from, to, face, hidden (5 keys), its name and the rest (+ 20)
                way = (tail, self._hidden_dest(m, key, face), _EVENT_OVERHEAD + len(tail) + _DATUM * 5 + 20)
                if "/" not in src and "/" not in key:       # an entity's zone's name changes
                    self._tails[(src, key, place, face)] = way
            tail, hidden_dest, fixed = way
            name = m.card_names[c]
            if len(name) + len(tail) > MAX_RUNTIME_STRING:
                raise TextTooLong(span)
            size = self.bytes + fixed + 2 * len(name)
            if size > MAX_LOG_BYTES:
                self.emit(m, "move", span, {"cards": [name], "from": [src], "to": key, "face": face or "",
                                            "hidden": hidden_dest}, name + tail, weight=len(name) + 20)
                return              # (not reached: emit stops the game at the same bound)
            self.bytes = size
            st = m.st
            n = st.event_n = st.event_n + 1
            who = None if m.looks else self._seers.get((st.card_zone[c], st.face_up[c]))     # `seers`, inlined
            if who is None:
                who = self.seers(m, c)
            if before is not None and before is not who:
                who = who | before
            if who is not EVERYONE:     # some may not read the name: keep the text's parts
                self._parts[len(self._events) + len(self._pending)] = (
                    Seen(name, who, self.back(m, c)) if m.prog.backs else Seen(name, who), tail)
            path = st.step_path
            rule = self._rules.get(id(span))
            if rule is None:
                rule = self._rule(m, span)
            self._pending.append((n, st.round, "move", rule, path[-1] if path else "", None,     # with its data
                                  name, src, key, face, hidden_dest, tail))      # (its text: name + tail)
            return
        # a move of several cards: its words made once per (to, place, face, each card's zone),
        # which fixes the count too (`_groups`, bounded by _MAX_WORDS)
        way = self._groups.get((key, place, face, *sources))
        if way is None:
            if not self._shared:
                self._share(m)
                way = self._groups.get((key, place, face, *sources))
            if way is None:
                way = self._group(m, sources, key, place, face, span)
        text, uniq, hidden_dest, fixed = way
        names = m.card_names
        lens = self._name_lens      # the cards' names' lengths, a list per program (`_lengths`)
        if lens is None:
            lens = self._lengths(m)
        size = self.bytes + fixed
        for c in cards:             # (a loop: two `map`s and `sum` cost more for the usual few)
            size += lens[c]
        if size > MAX_LOG_BYTES:        # `emit` stops the game
            names = [m.card_label(c) for c in cards]
            self.emit(m, "move", span, {"cards": names, "from": list(uniq), "to": key, "face": face or "",
                                        "hidden": hidden_dest}, text,
                      weight=sum(map(len, names)) + 4 * len(names) + 16 * len(uniq))
        self.bytes = size               # recorded here as `emit` records it; the names when the log is read
        st = m.st
        n = st.event_n = st.event_n + 1
        rule = self._rules.get(id(span))
        if rule is None:
            rule = self._rule(m, span)
        path = st.step_path
        self._card_names = names
        self._pending.append((n, st.round, "move", rule, path[-1] if path else "", text,     # with its data
                              tuple(cards), uniq, key, face, hidden_dest))

    def _lengths(self, m) -> list:
        """The lengths of the program's card names (`move` adds those of the cards it moves to
        the log's size), made once per program and kept with it."""
        lens = m.prog.__dict__.get("_name_lengths")
        if lens is None:
            lens = m.prog.__dict__["_name_lengths"] = [len(name) for name in m.card_names]
        self._name_lens = lens
        return lens

    def _group(self, m, sources, key, place, face, span) -> tuple:
        """For `move` of several cards: its text ("3 cards from A to B face up"), the zones they
        came from (each once, in order), whether B is hidden, and what the event adds to the
        log's size besides the cards' names (the data's 5 keys, 4 a name and 16 a zone). The
        words after the count are kept per (froms, to, place, face) (`_group_tails`), for the
        moves whose cards' zones come in an order not met before once `_groups` is full."""
        uniq = tuple(dict.fromkeys(sources))
        base = self._group_tails.get((uniq, key, place, face))
        if base is None:
            src = self.zone_name(m, uniq[0]) if len(uniq) == 1 else f"{len(uniq)} zones"
            dest = self.zone_name(m, key)
            where = f"the bottom of {dest}" if place == "bottom" else dest
            facing = f" face {face}" if face else ""
            # an entity's zone's name changes: its words are not kept
            base = (f" cards from {src} to {where}{facing}", self._hidden_dest(m, key, face),
                    "/" not in key and not any("/" in z for z in uniq))
            if base[2] and len(self._group_tails) < _MAX_WORDS:
                self._group_tails[(uniq, key, place, face)] = base
        tail, hidden_dest, kept = base
        text = f"{len(sources)}{tail}"
        if len(text) > MAX_RUNTIME_STRING:
            raise TextTooLong(span)
        way = (text, uniq, hidden_dest, _EVENT_OVERHEAD + len(text) + _DATUM * 5 + 16 * len(uniq) + 4 * len(sources))
        if kept and len(self._groups) < _MAX_WORDS:
            self._groups[(key, place, face, *sources)] = way
        return way

    def moved(self, m, c: int, src: str, was_up: bool, key: str, place, face, span) -> None:
        """A move of one card that only the log watches (machine.move): `move` with the card's
        zone and facing before (`src`, `was_up`) instead of who could see it there. Its words,
        hidden-ness, size and who may read its name (before or after) are made once per (from,
        facing before, to, place, face) for the program's games (`_ways`)."""
        way = self._ways.get((src, was_up, key, place, face))
        if way is None:
            if not self._shared:
                self._share(m)
                way = self._ways.get((src, was_up, key, place, face))
            if way is None:
                way = self._way(m, src, was_up, key, place, face)
        tail, hidden_dest, fixed, who = way
        name = m.card_names[c]
        size = self.bytes + fixed + 2 * len(name)
        if size > MAX_LOG_BYTES:    # past the bound (or a text that may be too long): `move` says which
            self.move(m, [c], [src], key, place, face, span, who)
            return
        self.bytes = size
        st = m.st
        n = st.event_n = st.event_n + 1
        if who is not EVERYONE:     # some may not read the name: keep the text's parts
            self._parts[len(self._events) + len(self._pending)] = (
                Seen(name, who, self.back(m, c)) if m.prog.backs else Seen(name, who), tail)
        rule = self._rules.get(id(span))
        if rule is None:
            rule = self._rule(m, span)
        path = st.step_path
        self._pending.append((n, st.round, "move", rule, path[-1] if path else "", None,     # with its data
                              name, src, key, face, hidden_dest, tail))      # (its text: name + tail)

    def named(self, m, kind: str, span, data: dict, c: int, tail: str) -> None:
        """`emit(m, kind, span, data, [self.card(m, c), tail])`, an event whose text is a card's
        name and words after it (a trigger: "Bolt of Ann triggers on revealed"), recorded here
        without the general text's loop; the name read by who may see the card now."""
        if c is None or m.prog.backs:      # no card ("nothing"), or a name others read as its back
            self.emit(m, kind, span, data, [self.card(m, c), tail])
            return
        name = m.card_names[c]
        text = name + tail
        length = len(text)
        size = self.bytes + _EVENT_OVERHEAD + length + _DATUM * len(data)
        if length > MAX_RUNTIME_STRING or size > MAX_LOG_BYTES:     # `emit` says which
            self.emit(m, kind, span, data, [self.card(m, c), tail])
            return
        self.bytes = size
        who = self.seers(m, c)      # some may not read the name: the text's parts are kept
        self._add(m, kind, span, text, data, None if who is EVERYONE else (Seen(name, who), tail))

    def chose(self, m, player: int, prompt: str, value, span, how: str, secret: bool, kind) -> None:
        """A player's answer to a question: "Ann chooses Bolt (Which card?)", its data the
        player, the prompt, the pick in words, how it was made and whether it is secret (only
        the chooser may read a secret pick, until the rules reveal it). A pick of a card is
        recorded here, as `emit` would record the general text made below it."""
        if kind == "card" and value.__class__ is int:
            name = m.card_names[value]
            who = frozenset((player,)) if secret else self.seers(m, value)
            words = f" secretly chooses {name}" if secret else f" chooses {name}"
            pname = self.player_name(player)
            tail = f" ({prompt})"
            text = pname + words + tail
            length = len(text)
            size = self.bytes + _EVENT_OVERHEAD + 2 * length + 5 * _DATUM     # (the data repeat the text)
            if length <= MAX_RUNTIME_STRING and size <= MAX_LOG_BYTES:
                self.bytes = size
                # some may not read the pick: the text's parts are kept
                parts = None if who is EVERYONE else \
                    (pname, Seen(words, who, " makes a secret choice"), tail) if secret else \
                    (pname, " chooses ", Seen(name, who), tail)
                self._add(m, "choice", span, text,
                          {"player": player, "prompt": prompt, "choice": name, "how": how, "secret": secret}, parts)
                return
        shown = self.typed(m, value, kind)
        picked = self.typed_parts(m, value, kind, span)
        if secret:
            text = "".join(p.text if isinstance(p, Seen) else p for p in picked)
            picked = [Seen(f" secretly chooses {text}", frozenset((player,)), " makes a secret choice")]
        else:
            picked = [" chooses ", *picked]
        self.emit(m, "choice", span, {"player": player, "prompt": prompt, "choice": shown, "how": how,
                                      "secret": secret},
                  [self.player_name(player), *picked, f" ({prompt})"], weight=None)

    def assigned(self, m, kind: str, owner, name: str, value, span) -> None:
        """`Ann's gold becomes 3`: an attribute set (Machine.assign), its data what was set and
        the value in words. A number or a text set on a player or the game is recorded here, its
        words before the value made once per (kind, owner, name): `_sets`."""
        cls = value.__class__
        if (cls is int or cls is str) and (kind == "player" or kind == "game"):
            way = self._sets.get((kind, owner, name))
            if way is None:
                way = self._set_way(m, kind, owner, name)
            if way is not None:
                words, what = way
                shown = value if cls is str else str(value)
                text = words + shown
                length = len(text)
                size = self.bytes + _EVENT_OVERHEAD + length + 2 * _DATUM
                if length <= MAX_RUNTIME_STRING and size <= MAX_LOG_BYTES:
                    self.bytes = size
                    self._add(m, "set", span, text, {"what": what, "value": value}, None)
                    return
        whose = [] if kind == "game" else \
            [self.player_name(owner) if kind == "player" else self.card(m, owner), "'s "]
        what = name if kind == "game" else \
            f"{self.player_name(owner) if kind == 'player' else m.card_label(owner)}'s {name}"
        shown = self.attribute_type(m, kind, owner, name)    # players and cards by name
        self.emit(m, "set", span,
                  {"what": what, "value": value if shown is None else self.typed(m, value, shown)},
                  whose + [f"{name} becomes ", *self.typed_parts(m, value, shown, span)])

    def _set_way(self, m, kind: str, owner, name: str):
        """For `assigned`: the words before the value ("Ann's gold becomes ") and what was set
        ("Ann's gold"); None for an attribute whose values are shown otherwise (players, cards)."""
        if self.attribute_type(m, kind, owner, name) is not None:
            way = None
        else:
            what = name if kind == "game" else f"{self.player_name(owner)}'s {name}"
            way = (f"{what} becomes ", what)
        self._sets[(kind, owner, name)] = way
        return way

    def flipped(self, m, c: int, key: str, was_up: bool, up: bool, span, before=None) -> None:
        """Card `c`, lying in zone `key`, turned from `was_up` to `up` (machine.flip): "Bolt is
        flipped face up", its name read by who could see it before or may see it now. Where no
        card was looked at, its words and who reads the name are made once per (zone, facing
        before, facing after): `_flips`, recorded as `emit` records the general text; else
        `before` is who could see the card before it turned (`seers`, its `$seen_by` with it)."""
        way = self._flips.get((key, was_up, up))
        if way is None and not self._shared:
            self._share(m)
            way = self._flips.get((key, was_up, up))
        if way is None:
            way = self._flip_way(m, key, was_up, up)
        tail, face, who = way
        name = m.card_names[c]
        text = name + tail
        length = len(text)
        size = self.bytes + (_EVENT_OVERHEAD + 2 * _DATUM) + length
        if length > MAX_RUNTIME_STRING or size > MAX_LOG_BYTES or m.prog.backs or before is not None:
            # too long a text, past the bound, a name others read as its back, or a card looked
            # at: the general text (`emit` says which of the first two)
            if before is None:
                before = seers(rule_of(m.zone_info[key][0]), m.zone_info[key][1], was_up)
            self.emit(m, "flip", span, {"card": name, "face": face}, [self.card(m, c, before), tail])
            return
        self.bytes = size           # some may not read the name: the text's parts are kept
        self._add(m, "flip", span, text, {"card": name, "face": face}, None if who is EVERYONE else (Seen(name, who), tail))

    def _flip_way(self, m, key: str, was_up: bool, up: bool) -> tuple:
        """For `flipped`: the words after the card's name, the facing in words, and who may read
        the name (who could see the card there before or may see it now: `visibility.seers`)."""
        decl, seat, _public = m.zone_info[key]
        rule = rule_of(decl)
        before = seers(rule, seat, was_up)
        who = seers(rule, seat, up)
        if before is not who:
            who = who | before
        face = "up" if up else "down"
        way = (f" is flipped face {face}", face, who)
        if "/" not in key:          # an entity's zone's owner changes: worked out each time
            self._flips[(key, was_up, up)] = way
        return way

    def _way(self, m, src: str, was_up: bool, key: str, place, face) -> tuple:
        """For `moved`: the words after the card's name, whether its new place is hidden, what
        the event adds to the log's size besides the name, and who may read the name (who could
        see the card where it was or may see it where it is: `seers`, `visibility.seers`)."""
        tail = self._move_tail(m, src, key, place, face)
        info = m.zone_info
        decl, seat, _public = info[src]
        before = seers(rule_of(decl), seat, was_up)
        decl, seat, _public = info[key]
        who = seers(rule_of(decl), seat, was_up if face is None else face == "up")
        if before is not who:
            who = who | before
        # the data: cards, from, to, face, hidden (5 keys), the name and 20 more
        fixed = _EVENT_OVERHEAD + len(tail) + _DATUM * 5 + 20
        if max(map(len, m.card_names), default=0) + len(tail) > MAX_RUNTIME_STRING:
            fixed = MAX_LOG_BYTES + 1       # a name this long would be too long a text: `move` checks each
        way = (tail, self._hidden_dest(m, key, face), fixed, who)
        if "/" not in src and "/" not in key:       # an entity's zone's name and owner change
            self._ways[(src, was_up, key, place, face)] = way
        return way

    def _hidden_dest(self, m, key, face) -> bool:
        hidden = self._hidden.get(key)
        if hidden is None:
            hidden = self._hidden[key] = m.prog.decls.zones[key.partition(":")[0]].visibility == "hidden"
        return hidden or face == "down"

    def _move_tail(self, m, src, key, place, face) -> str:
        dest = self.zone_name(m, key)
        where = f"the bottom of {dest}" if place == "bottom" else dest
        facing = f" face {face}" if face else ""
        return f" from {self.zone_name(m, src)} to {where}{facing}"

    def seen_by(self, player: int, start: int = 0, events: list[dict] | None = None) -> list[dict]:
        """The events from `start` on as `player` may read them: a name they may not see is
        "a card", another player's secret pick is not named. An event with such a part keeps
        only its number, round, kind, rule, step and redacted text (its data would name the card)."""
        events = self.events if events is None else events
        out = []
        for i in range(start, len(events)):
            ev = events[i]
            parts = self._parts.get(i)
            if parts is None or all(not isinstance(p, Seen) or player in p.seers for p in parts):
                out.append(ev)
                continue
            text = "".join(p if not isinstance(p, Seen) else p.text if player in p.seers else p.instead
                           for p in parts)
            shown = {k: ev[k] for k in _KEPT if k in ev}
            shown["text"] = text
            if "player" in ev:
                shown["player"] = ev["player"]
            out.append(shown)
        return out

    def _share(self, m) -> None:
        """The words made once per game (`_SHARED`: rules' places, steps' texts, declared
        events' and moves' words, zones' names) are the same in every game of the program whose
        players have the same names: made once for them all, kept with the program (for at most
        _MAX_SHARED lists of names). Called at the first word the log looks up and does not have."""
        self._shared = True
        every = m.prog.__dict__.setdefault("_log_words", {})
        names = tuple(self.names)
        made = every.get(names)
        if made is None:
            if len(every) < _MAX_SHARED:
                every[names] = {attr: getattr(self, attr) for attr in _SHARED}
            return
        for attr, cache in made.items():
            setattr(self, attr, cache)

    def _rule(self, m, span) -> str:
        """`_where`, after looking in the words made by the program's other games."""
        if not self._shared:
            self._share(m)
            rule = self._rules.get(id(span))
            if rule is not None:
                return rule
        return self._where(span)

    def _where(self, span) -> str:
        """`file.cards:12:7`, formatted once per rule: the log names a rule for every event.
        Looked up by the span's id (a span's own hash costs a call), the span kept alive here."""
        text = self._rules.get(id(span))
        if text is None:
            text = "engine" if span is None else self._spans.get(span)
            if text is None:
                text = self._spans[span] = span.short
            self._rules[id(span)] = text
            self._ruled.append(span)
        return text

    def to_jsonl(self, start: int = 0) -> str:
        """The events from `start` on, one JSON object a line with sorted keys: those read already
        from their dicts, the others straight from their records (`_lines`), byte for byte what
        `json.dumps(event, sort_keys=True, ensure_ascii=False)` writes for the event read."""
        done = self._events
        if self._pending and start > len(done):     # a reader going on from where it stopped: the
            self._materialize()                     # events made dicts once, not the records walked each time
        lines = [_encode(done[i]) + "\n" for i in range(start, len(done))]
        if self._pending:
            lines += self._lines(start - len(done))
        return "".join(lines)

    def _lines(self, skip: int) -> list:
        """The JSON lines of the records not yet read, from the `skip`-th on, without making
        their dicts: a move's line and a one-datum event's are written by a template, in the
        sorted order of their keys, when every value is of the class the template writes (a
        number an int, a text a str); any other event is made a dict as `_materialize` makes it
        and encoded."""
        out = []
        append = out.append
        datas = iter(self._data).__next__
        names = self._card_names
        q = _quote
        made: dict = {}         # id of a declared event's words → its line's segments (`_segments`)
        i = -1
        for rec in self._pending:
            size = len(rec)
            data = datas() if size == 6 else None
            i += 1
            if i < skip:
                continue
            if size == 12:              # a move of one card
                n, rnd, kind, rule, step, _, name, src, key, face, hidden, tail = rec
                if (n.__class__ is int and rnd.__class__ is int and hidden.__class__ is bool
                        and (face is None or face.__class__ is str) and _STRS.issuperset(map(type, (kind, rule, step, name, src, key, tail)))):
                    append(f'{{"cards": [{q(name)}], "event": {q(kind)}, "face": {q(face or "")}, '
                           f'"from": [{q(src)}], "hidden": {"true" if hidden else "false"}, "n": {n}, '
                           f'"round": {rnd}, "rule": {q(rule)}, "step": {q(step)}, "text": {q(name + tail)}, '
                           f'"to": {q(key)}}}\n')
                    continue
                ev = {"n": n, "round": rnd, "event": kind, "rule": rule, "step": step, "text": name + tail,
                      "cards": [name], "from": [src], "to": key, "face": face or "", "hidden": hidden}
            elif size == 11:            # a move of several
                n, rnd, kind, rule, step, text, cards, srcs, key, face, hidden = rec
                shown = [names[c] for c in cards]
                if (n.__class__ is int and rnd.__class__ is int and hidden.__class__ is bool
                        and (face is None or face.__class__ is str) and _STRS.issuperset(map(type, (kind, rule, step, text, key)))
                        and _STRS.issuperset(map(type, shown)) and _STRS.issuperset(map(type, srcs))):
                    append(f'{{"cards": [{", ".join(map(q, shown))}], "event": {q(kind)}, "face": {q(face or "")}, '
                           f'"from": [{", ".join(map(q, srcs))}], "hidden": {"true" if hidden else "false"}, "n": {n}, '
                           f'"round": {rnd}, "rule": {q(rule)}, "step": {q(step)}, "text": {q(text)}, '
                           f'"to": {q(key)}}}\n')
                    continue
                ev = {"n": n, "round": rnd, "event": kind, "rule": rule, "step": step, "text": text,
                      "cards": shown, "from": list(srcs), "to": key, "face": face or "", "hidden": hidden}
            elif size == 8:             # one datum
                n, rnd, kind, rule, step, text, key, value = rec
                if (key == "name" and n.__class__ is int and rnd.__class__ is int
                        and _STRS.issuperset(map(type, (kind, rule, step, text, value)))):
                    append(f'{{"event": {q(kind)}, "n": {n}, "name": {q(value)}, "round": {rnd}, '
                           f'"rule": {q(rule)}, "step": {q(step)}, "text": {q(text)}}}\n')
                    continue
                ev = {"n": n, "round": rnd, "event": kind, "rule": rule, "step": step, "text": text, key: value}
            else:                       # data beside it: a dict, or a declared event's words
                n, rnd, kind, rule, step, text = rec
                if data.__class__ is _Words:    # its line but for the event's own fields, made once
                    seg = made.get(id(data))
                    if seg is None:
                        seg = made[id(data)] = _segments(data[0])
                    if (seg and n.__class__ is int and rnd.__class__ is int
                            and _STRS.issuperset(map(type, (kind, rule, step, text)))):
                        append(f"{seg[0]}{q(kind)}{seg[1]}{n}{seg[2]}{rnd}{seg[3]}{q(rule)}{seg[4]}{q(step)}"
                               f"{seg[5]}{q(text)}{seg[6]}")
                        continue
                ev = {"n": n, "round": rnd, "event": kind, "rule": rule, "step": step, "text": text}
                if data.__class__ is _Words:
                    ev.update(data[0])
                elif data:
                    ev.update(data)
            append(_encode(ev) + "\n")
        return out


_FIELDS = ("event", "n", "round", "rule", "step", "text")      # an event's own fields, in sorted order


def _segments(data: dict) -> tuple:
    """A declared event's JSON line cut around its own fields (`_FIELDS`): seven texts, the
    first before the event's kind, the last after its text, each holding the data's keys and
    values (encoded as the encoder does) that sort between; () when a datum has a field's name."""
    if any(k in data for k in _FIELDS) or not _STRS.issuperset(map(type, data)):
        return ()
    pairs = sorted([*data, *_FIELDS])
    out, piece, sep = [], "{", ""
    for k in pairs:
        piece += sep + _quote(k) + ": "
        sep = ", "
        if k in data:
            piece += _encode(data[k])
        else:
            out.append(piece)
            piece = ""
    out.append(piece + "}\n")
    return tuple(out)


# json.dumps(e, sort_keys=True, ensure_ascii=False) makes an encoder for every call (and
# JSONEncoder.encode a C encoder for every call); one does, made once
_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False)
_STRS = frozenset((str,))
_quote = json.encoder.encode_basestring       # a text as the encoder writes it (ensure_ascii off)
if json.encoder.c_make_encoder is not None:   # as JSONEncoder.iterencode makes it, without the circular check
    _chunks = json.encoder.c_make_encoder(None, _ENCODER.default, _quote, None, ": ", ", ", True, False, True)

    def _encode(ev: dict) -> str:
        return "".join(_chunks(ev, 0))
else:                                          # (a Python without the C encoder)
    _encode = _ENCODER.encode
