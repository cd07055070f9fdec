"""Examples of play, taken from a seeded game: the rulebook's "how a round goes" told from the
event log, with the table drawn at that moment.

    found = examples(game)        # Examples(moments=[Moment...], seed, players, note)

The sample game is played by seeded random players (`interpreter/agents.RandomAgent`), bounded
by EXAMPLE_STEPS and, as `play` is, by MAX_GAME_MEMORY; the engine's other bounds hold as ever. Moments are picked from the log alone, never by a game's names:

* a typical round: the first whole round that runs only rules most rounds run;
* a rule at work: the round that runs the most rule lines that are rare in this game (a tie
  and what breaks it, a step that most rounds skip), named by the rare steps it plays;
* responses: the round where the most abilities trigger, or the stack holds the most;
* the end: the last round, up to the end of the game.

Each moment is narrated event by event (what moved where, who chose what, which ability
triggered), with the table as it stood just before the moment's last move. The zones are
replayed from the log's moves, so the picture is the log's own account.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..bounds import EXAMPLE_STEPS
from . import english as E
from . import layout as L
from . import words as W
from .layout import field_label, value_label, zone_label

SEEDS = (1, 2, 3, 4)         # the sample games tried, in order: the first with the most kinds of moment wins
NAMES = ("Ann", "Ben", "Cleo", "Dev", "Eve", "Finn", "Gus", "Hana")
MAX_LINES = 36               # narrated events in one example; the rest is summed up in a line
RARE = 0.34                  # a rule line run in at most this share of the rounds is rare
WORDS = "no one two three four five six seven eight nine ten eleven twelve".split()
RESPONSES = ("trigger", "counter", "negate", "fizzle", "use")


@dataclass
class Moment:
    kind: str                # typical, rule, responses, end
    title: str
    intro: str
    round: int
    lines: list              # narration, one text per event (a step's start is a heading line)
    table: dict              # zone key -> [(name, face_up)], the top card last
    table_note: str


@dataclass
class Examples:
    moments: list = field(default_factory=list)
    seed: int = 0
    players: int = 0
    seats: list = field(default_factory=list)
    note: str = ""           # why there are none, when there are none


def _players(game) -> int:
    return max(game.min_players, min(2, game.max_players))


class Stopped(Exception):
    """The sample game stopped at a bound before its end; what it logged so far is `log`."""

    def __init__(self, why: str, log: list):
        super().__init__(why)
        self.why, self.log = why, log


def play(game, seed: int, players: int, max_steps: int | None = None):
    """The seeded sample game, played to its end: (engine, player names). Raises Stopped (with
    the log so far) when it runs past EXAMPLE_STEPS, or past another bound of the engine."""
    from cardsmith.dsl.diagnostics import CardsmithError
    from cardsmith.interpreter.agents import RandomAgent     # publishing needs the engine only here
    from cardsmith.interpreter.engine import Engine
    from cardsmith.interpreter.memory import memory_bound

    names = [NAMES[i] if i < len(NAMES) else f"Player {i + 1}" for i in range(players)]
    eng = None
    try:
        with memory_bound():        # MAX_GAME_MEMORY, as for `play`: a stranger's game may not grow without end
            eng = Engine(game, players=players, seed=seed, max_steps=max_steps or EXAMPLE_STEPS,
                         player_names=names)
            agents = [RandomAgent(seed * 1000 + seat) for seat in range(players)]
            while not eng.finished:
                decision = eng.pending
                if decision is None:
                    break
                eng.decide(agents[decision.player].choose({}, decision))
    except (CardsmithError, RecursionError, MemoryError) as err:
        diags = getattr(err, "diagnostics", None)
        why = (f"{diags[0].code}: {diags[0].message}" if diags else str(err).splitlines()[0] if str(err)
               else type(err).__name__)
        # a game stopped while starting has no engine: the error carries its log
        held = eng.event_log if eng is not None else getattr(err, "event_log", None)
        raise Stopped(why, list(held.events) if held is not None else []) from None
    return eng, names


# ---------------------------------------------------------------- the table, replayed


class Table:
    """Zone contents replayed from the log's moves and flips: zone key -> [card ids], top last."""

    def __init__(self, game, players: int):
        d = game.decls
        self.names = [c.name for c in game.cards]
        self.up = [d.zones[c.zone].visibility == "public" for c in game.cards]
        self.zones: dict[str, list[int]] = {}
        for name, z in d.zones.items():
            if z.per_entity is not None:        # each slot of each seat, `crew:0/1` (interpreter/entities.py)
                most = d.entities[z.per_entity].most if z.per_entity in d.entities else 0
                keys = [f"{name}:{s}/{k}" for s in range(players) for k in range(most)]
            else:
                keys = [f"{name}:{s}" for s in range(players)] if z.per_player else [name]
            for key in keys:
                self.zones[key] = []
        self.entities: dict[str, tuple[str, str]] = {}     # label of each in play -> (kind, "seat/slot")
        for c in game.cards:
            self.zones.setdefault(c.zone, []).append(c.id)
        self.public = {key: d.zones[key.partition(":")[0]].visibility == "public" for key in self.zones}

    def _take(self, name: str, sources: list) -> int | None:
        for src in sources:
            held = self.zones.get(src, [])
            for i in range(len(held) - 1, -1, -1):
                if self.names[held[i]] == name:
                    return held.pop(i)
        return None

    def apply(self, ev: dict) -> None:
        kind = ev.get("event")
        if kind == "created" and "slot" in ev:
            self.entities[ev.get("entity")] = (ev.get("kind"), f"{ev.get('player')}/{ev.get('slot')}")
        elif kind == "destroyed":
            self.entities.pop(ev.get("entity"), None)
        elif kind == "move" and ev.get("to") in self.zones:
            bottom = " to the bottom of " in ev.get("text", "")
            face = ev.get("face", "")
            moved = []
            for name in ev.get("cards", []):
                c = self._take(name, ev.get("from", []))
                if c is None:
                    continue
                if face:
                    self.up[c] = face == "up"
                moved.append(c)
            dest = self.zones[ev["to"]]
            if bottom:
                dest[:0] = list(reversed(moved))
            else:
                dest.extend(moved)
        elif kind == "flip":
            name, up = ev.get("card"), ev.get("face") == "up"
            for key in sorted(self.zones, key=lambda k: not self.public[k]):
                hit = [c for c in self.zones[key] if self.names[c] == name and self.up[c] != up]
                if hit:
                    self.up[hit[-1]] = up
                    return

    def snapshot(self) -> dict:
        """Zone key -> [(name, face up)]; under ENTITIES, each entity in play as (label, kind,
        "seat/slot"), oldest first, for layout.table_svg to draw one area each."""
        out: dict = {key: [(self.names[c], self.up[c]) for c in cards] for key, cards in self.zones.items()}
        out[L.ENTITIES] = [(label, kind, where) for label, (kind, where) in self.entities.items()]
        return out


# ---------------------------------------------------------------- telling the events


def _clause(doc: str) -> str:
    """An event's doc string up to its first colon, without a closing full stop."""
    return E.clean(doc.split(":")[0]).strip().rstrip(".")


class Teller:
    """One line of English per event, from the event's data (the log's own text where it has none)."""

    def __init__(self, game, seats: list[str]):
        self.d = game.decls
        self.seats = seats
        self.values: dict[str, object] = {}

    def zone(self, key: str) -> str:
        name, _, seat = str(key).partition(":")
        z = self.d.zones.get(name)
        word = zone_label(self.d, name)
        if "/" in seat and z is not None and z.per_entity is not None:     # an entity's zone: `crew:0/1`
            from .english_entities import kind_word
            held = getattr(self, "entity_labels", {}).get((z.per_entity, seat))
            if held is not None:        # the entity in that slot now, as its `created` event named it
                return f"{held}'s {word}"
            seat = seat.partition("/")[0]
            word = f"{kind_word(self.d, z.per_entity)}'s {word}"
        if seat:
            return f"{W.possessive(self.seats[int(seat)])} {word}" if int(seat) < len(self.seats) else word
        return f"the {word}" if z is not None else word

    def cards(self, names: list) -> str:
        counted = Counter(names)
        if len(names) > 4:
            return f"{len(names)} cards"
        return E.join_and([n if k == 1 else f"{k} \u00d7 {n}" for n, k in counted.items()])

    def tell(self, ev: dict) -> str | None:
        kind = ev.get("event")
        if kind == "created" and "slot" in ev:      # whose zones `crew:0/1` are now (interpreter/entities.py)
            self.entity_labels = getattr(self, "entity_labels", {})
            self.entity_labels[(ev.get("kind"), f"{ev.get('player')}/{ev.get('slot')}")] = ev.get("entity")
        if kind == "move":
            face = {"up": ", face up", "down": ", face down"}.get(ev.get("face", ""), "")
            src = E.join_and([self.zone(k) for k in ev.get("from", [])])
            where = "the bottom of " if " to the bottom of " in ev.get("text", "") else ""
            n = len(ev.get("cards", []))
            # a card going where nobody may see it is told as the players at the table see it
            what = (("a card" if n == 1 else f"{n} cards") if ev.get("hidden") else self.cards(ev.get("cards", [])))
            return f"{E.cap(what)} {'goes' if len(ev.get('cards', [])) == 1 else 'go'} from {src} to {where}" \
                   f"{self.zone(ev.get('to', ''))}{face}."
        if kind == "set":
            what, value = ev.get("what", ""), ev.get("value")
            if self.values.get(what, object()) == value:
                return None
            first = what not in self.values
            self.values[what] = value
            if first and value in (0, False, None, "none"):
                return None
            owner, _, name = str(what).rpartition("'s ")
            label = W.labels_of(self.d).fields.get(name)
            if label and isinstance(value, bool) and name in W.labels_of(self.d).flags:
                # a flag with a display name is said as the rules say it: "Ann is ready to fight"
                if not owner:           # a game attribute's display name is a whole clause
                    return E.cap(E.clean(label if value else W._negate_clause(label))) + "."
                yes, no = W.flag_predicate(E.clean(label), name)
                return f"{E.cap(owner)} {W.agree(owner, yes if value else no)}."
            said = f"{W.possessive(owner)} {field_label(self.d, name)}" if owner else field_label(self.d, name)
            return f"{E.cap(said)} becomes {value_label(self.d, value) or 'nothing'}."
        if kind == "choice":
            who = self.seats[ev["player"]] if isinstance(ev.get("player"), int) and ev["player"] < len(self.seats) else "A player"
            how = "secretly chooses" if ev.get("secret") else "chooses"
            notes = [f"\u201c{E.clean(ev['prompt'])}\u201d"] if ev.get("prompt") else []
            if ev.get("how") == "forced":
                notes.append("the only choice")
            said = f" ({'; '.join(notes)})" if notes else ""
            return f"{who} {how} {E.clean(str(ev.get('choice', '')))}{said}."
        if kind == "trigger":
            who = self.seats[ev["player"]] if isinstance(ev.get("player"), int) and ev["player"] < len(self.seats) else ""
            whose = f"{W.possessive(who)} " if who else ""
            on = ev.get("on", "")
            decl = self.d.events.get(on)
            if decl is not None and decl.doc:
                when = _clause(decl.doc)
            else:               # a built-in event, said as the rulebook says it ("it is turned over")
                when = E.BUILTIN_PHRASES.get(on, E.human(on)).replace("a card ", "it ", 1)
            return f"{whose}{E.clean(str(ev.get('card', 'a card')))} triggers ({when[:1].lower() + when[1:]})."
        if kind == "instead":         # `instead of ...`: what would have happened, said as the rulebook says it
            on = str(ev.get("replaces", ""))
            decl = self.d.events.get(on)
            if decl is not None:
                would = f"{_clause(decl.doc) if decl.doc else E.human(on)} would happen"
            elif on in E.BUILTIN_WOULD:
                would = E.BUILTIN_WOULD[on]
            else:                   # a procedure replaced
                would = f"{E.human(on)} would be carried out"
            who = self.seats[ev["player"]] if isinstance(ev.get("player"), int) and ev["player"] < len(self.seats) else ""
            whose = f"{W.possessive(who)} " if who else ""
            return f"{E.cap(would)}; instead, {whose}{E.clean(str(ev.get('card', 'card')))} applies its rule."
        if kind == "event":
            decl = self.d.events.get(ev.get("name", ""))
            if decl is not None and decl.doc:
                return E.cap(_clause(decl.doc)) + "."
            return None
        if kind == "shuffle":
            return f"{E.cap(self.zone(ev.get('zone', '')))} is shuffled."
        if kind == "flip":
            return f"{E.clean(str(ev.get('card', 'A card')))} is turned face {ev.get('face', 'up')}."
        if kind in ("step", "round"):
            return None
        if kind == "give out" and ev.get("attribute"):      # a number handed out from a supply: both by their names
            attr = str(ev["attribute"])
            supply, sep, tail = str(ev.get("text", "")).partition(
                f"{attr} handed out one at a time from ")[2].partition(": ")
            if sep:
                return (f"{E.cap(field_label(self.d, attr))} handed out one at a time from "
                        f"{field_label(self.d, supply)}: {E.clean(tail)}.")
        text = E.clean(str(ev.get("text", "")))
        for name in self.d.zones:
            text = text.replace(f"'s {name}", f"'s {zone_label(self.d, name)}")
        return E.cap(text) + ("" if text.endswith((".", "!", "?")) else ".") if text else None


# ---------------------------------------------------------------- choosing moments


def _rounds(log: list) -> list[tuple[int, int, int]]:
    """(round number, first event index, end index) of every round played, setup excluded."""
    out, start, current = [], None, None
    for i, ev in enumerate(log):
        if ev.get("event") == "round":
            if start is not None:
                out.append((current, start, i))
            start, current = i, ev.get("round")
    if start is not None:
        out.append((current, start, len(log)))
    return out


def pick(log: list) -> list[tuple[str, int, int, int, list]]:
    """The moments worth telling: (kind, round, start, end, steps to name, rare rule lines)."""
    rounds = _rounds(log)
    if not rounds:
        return []
    seen_in = Counter()
    lines_of = []
    for _, a, b in rounds:
        lines = {ev.get("rule") for ev in log[a:b]}
        lines_of.append(lines)
        seen_in.update(lines)
    steps_in = Counter()
    for _, a, b in rounds:
        steps_in.update({ev.get("name") for ev in log[a:b] if ev.get("event") == "step"})
    n = len(rounds)
    rare = {line for line, k in seen_in.items() if k <= max(1, RARE * n)}
    whole = rounds[:-1] or rounds
    chosen: list = []
    used: set[int] = set()

    def add(kind: str, i: int, steps: list) -> None:
        used.add(i)
        r, a, b = rounds[i]
        chosen.append((kind, r, a, b, steps, rare))

    typical = next((i for i, _ in enumerate(whole) if not (lines_of[i] & rare)), None)
    if typical is not None:
        add("typical", typical, [])
    rare_steps = {name for name, k in steps_in.items() if k <= max(1, RARE * n)}
    scored = []
    for i, (_, a, b) in enumerate(whole):
        steps = [ev.get("name") for ev in log[a:b] if ev.get("event") == "step" and ev.get("name") in rare_steps]
        scored.append((len(set(steps)), len(lines_of[i] & rare), -i))
    best = max(range(len(whole)), key=lambda i: scored[i])
    if scored[best][1] > 0 and best not in used and n >= 3:
        r, a, b = rounds[best]
        steps = [ev.get("name") for ev in log[a:b] if ev.get("event") == "step" and ev.get("name") in rare_steps]
        add("rule", best, list(dict.fromkeys(steps)))    # no rare step: the rare rules are told by an event
    busy = [(sum(1 for ev in log[a:b] if ev.get("event") in RESPONSES), -i)
            for i, (_, a, b) in enumerate(rounds)]
    most = max(range(len(rounds)), key=lambda i: busy[i])
    if busy[most][0] >= 2 and most not in used:
        add("responses", most, [])
    if any(ev.get("event") == "game_over" for ev in log) and (n - 1) not in used:
        add("end", n - 1, [])
    return chosen


# ---------------------------------------------------------------- the examples


def _window(log: list, a: int, b: int, kind: str, steps: list, rare: set) -> tuple[int, int]:
    """The events told: the whole round, or for a long one from the step where the rule shows."""
    if b - a <= MAX_LINES or kind in ("typical",):
        return a, b
    if kind == "end":
        return max(a, b - MAX_LINES), b
    marks = {"rule": lambda ev: ev.get("rule") in rare or (ev.get("event") == "step" and ev.get("name") in steps),
             "responses": lambda ev: ev.get("event") in RESPONSES}[kind]
    first = next((i for i in range(a, b) if marks(log[i])), a)
    start = next((i for i in range(first, a - 1, -1) if log[i].get("event") == "step"), a)
    return start, b


def _fullest(game, log: list, start: int, stop: int, table: "Table") -> tuple[dict, int]:
    """The table where it holds the most cards outside the zones the cards started in and
    outside the piles they were in when the window opened: the moment the most is in play."""
    before = {key: len(cards) for key, cards in table.zones.items()}
    best, best_at, best_n = table.snapshot(), start, -1
    for i in range(start, stop):
        table.apply(log[i])
        n = sum(max(0, len(cards) - before[key]) for key, cards in table.zones.items())
        if n > best_n:
            best, best_at, best_n = table.snapshot(), i, n
    return best, best_at


def _tell(teller: Teller, log: list, a: int, b: int) -> tuple[list, int]:
    """The narration of events a..b (at most MAX_LINES told), and where it stopped."""
    lines, told = [], 0
    for i in range(a, b):
        ev = log[i]
        if ev.get("event") == "step":
            lines.append({"heading": f"Step \u201c{E.clean(str(ev.get('name', '')))}\u201d"})
            continue
        said = teller.tell(ev)
        if said is None:
            continue
        last = lines[-1] if lines else {}
        if last.get("said") == said:            # the same thing again: told once, counted
            last["times"] += 1
            last["text"] = _again(said, last["times"])
            continue
        if told == MAX_LINES:
            lines.append({"text": "\u2026 and so on, until the round ends."})
            return _plain(lines), i
        told += 1
        lines.append({"text": said, "said": said, "times": 1})
    return _plain(lines), b


def _again(said: str, times: int) -> str:
    """An event told `times` times in a row, as one line."""
    if said.startswith("A card goes "):
        return f"{times} cards go, one at a time, {said[len('A card goes '):]}"
    return f"{said[:-1]} ({times} times)." if said.endswith(".") else f"{said} ({times} times)"


def _plain(lines: list) -> list:
    """The lines as the templates get them: a heading or a text, nothing else. A step in which
    nothing was told (its events all unseen or unchanged) has no heading: nothing would be under it."""
    out = []
    for i, ln in enumerate(lines):
        if "heading" not in ln:
            out.append({"text": ln["text"]})
        elif i + 1 < len(lines) and "heading" not in lines[i + 1]:
            out.append({"heading": ln["heading"]})
    return out


INTROS = {
    "typical": ("A typical round", "Round {r} of the sample game, event by event: nothing out of the ordinary happens."),
    "rule": ("A rule at work: {what}", "Round {r} is one most rounds are not: {why}. Here it is, event by event."),
    "responses": ("Abilities and responses", "In round {r}, {k} abilities trigger or answer one another; this "
                  "is the order in which they resolve."),
    "end": ("How the game ended", "The last round of the sample game, up to its end."),
}


_MADE: list = []         # [(game, seeds, max_steps, Examples)]: the last few, for a book written as md and html


def examples(game, seeds=SEEDS, max_steps: int | None = None) -> Examples:
    """The examples of play of `game` (see the module). A sample game that stops at a bound
    still gives the rounds it finished (without "how the game ended"). The same game asked
    again gets the same examples without playing again."""
    for made in _MADE:
        if made[0] is game and made[1] == tuple(seeds) and made[2] == max_steps:
            return made[3]
    found = _examples(game, tuple(seeds), max_steps)
    _MADE[:] = _MADE[-3:] + [(game, tuple(seeds), max_steps, found)]
    return found


def _examples(game, seeds: tuple, max_steps: int | None) -> Examples:
    players = _players(game)
    seats = [NAMES[i] if i < len(NAMES) else f"Player {i + 1}" for i in range(players)]
    best: tuple | None = None
    problem = ""
    for seed in seeds:
        try:
            eng, _ = play(game, seed, players, max_steps)
            log = eng.log
        except Stopped as stop:
            problem, log = stop.why, stop.log
            stopped = True
        else:
            stopped = False
        found = pick(log)
        kinds = len({k for k, *_ in found})
        if best is None or kinds > best[0]:
            best = (kinds, seed, seats, log, found)
        if kinds >= 4 or stopped:      # a game that ran to a bound would take as long again
            break
    _, seed, seats, log, found = best
    if not found:
        why = (f"the sample game stopped before a whole round was played ({E.clean(problem)})" if problem
               else "the sample game ended before a whole round was played")
        return Examples(players=players, note=why)
    out = Examples(seed=seed, players=players, seats=seats)
    for kind, r, a, b, steps, rare in sorted(found, key=lambda m: m[2]):
        start, end = _window(log, a, b, kind, steps, rare)
        teller = Teller(game, seats)
        table = Table(game, players)
        for ev in log[:start]:
            if ev.get("event") == "set":
                teller.tell(ev)
            table.apply(ev)
        lines, stop = _tell(teller, log, start, end)
        picture, _ = _fullest(game, log, start, stop, table)
        k = sum(1 for ev in log[a:b] if ev.get("event") in RESPONSES)
        title, intro = INTROS[kind]
        what = why = ""
        if kind == "rule" and steps:
            what = E.join_and([f"\u201c{E.clean(str(s))}\u201d" for s in steps])
            why = f"it plays the step{'s' if len(steps) > 1 else ''} {what}, which few rounds need"
        elif kind == "rule":        # every step is played every round: the rare rule is shown by what it did
            first = next((ev for ev in log[a:b] if ev.get("rule") in rare and ev.get("event") not in ("set", "step")
                          and Teller(game, seats).tell(ev)), None)
            where = E.clean(str(first.get("step", ""))) if first else ""
            title = "A rule at work in \u201c{what}\u201d" if where else "A rule at work"
            what = where
            said = Teller(game, seats).tell(first) if first else ""
            if said.startswith(("A ", "An ", "The ")):     # mid-sentence now; names keep their capital
                said = said[0].lower() + said[1:]
            why = ("it runs a rule few rounds need" + (f", in the step \u201c{where}\u201d" if where else "")
                   + (f"; it begins when {said.rstrip('.')}" if said else ""))
        count = WORDS[k] if k < len(WORDS) else str(k)
        out.moments.append(Moment(kind, title.format(what=what), intro.format(r=r, why=why, k=count), r, lines,
                                  picture, "The table at the busiest moment of this example."))
    return out
