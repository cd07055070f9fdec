"""A readable excerpt of one game's log, chosen by the game's structure (``cardsmith demo``).

A whole game may log thousands of events; the excerpt shows what a reader needs to see how
the game goes, chosen from the log's structure alone, never from a game's names:

* the setup (the events before the first round);
* the first ``first`` rounds;
* up to ``notable`` rounds that show something the first rounds did not: the first round
  holding a *rare feature*, one found in at most half the rounds: a step the flow enters only
  sometimes (a nested step), an event of a kind the game declares (``event name(...)``,
  announced by its rules), or a player's elimination. One of each kind, in that order, the
  rarest of its kind; a feature already seen in a part shown is not shown again;
* the last round, which holds the end of the game.

A "round" is the span of events from one ``round`` event to the next; a game without rounds
is cut at its ``turn`` events instead, and a game with neither shows its first and last events.
Each part shows at most ``lines`` events (the first ones, the last ones of the last round, or
those around a notable round's feature); what is left out is counted, so the reader knows how
much there is. Pure data in, data out: ``cli.cmd_demo`` prints it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

FIRST_ROUNDS = 3          # rounds shown from the start
NOTABLE_ROUNDS = 3        # rounds shown for a rare feature (one of each kind of feature)
LINES = 40                # the most events shown of one part
_RARE = 0.5               # a feature found in at most this share of the rounds is rare


@dataclass(frozen=True, slots=True)
class Part:
    """One part of the excerpt: its heading, why it is shown, its events as shown.

    ``skipped_before``: units (rounds or turns) left out between the previous part and this
    one, and ``events_before``: how many events they hold. ``shown`` holds the events shown,
    in order, with ``None`` where some of its events are left out (``cut`` in all)."""
    heading: str
    reason: str
    shown: tuple
    cut: int = 0
    skipped_before: int = 0
    events_before: int = 0


@dataclass(frozen=True, slots=True)
class Excerpt:
    unit: str                       # "round", "turn" or "event"
    parts: tuple
    total_events: int
    total_units: int
    skipped_after: int = 0          # events after the last part (only when there are no units)
    notes: tuple = field(default=())


def feature_of(event: dict):
    """The structural feature an event shows, or None: ("step", name), ("event", name) for an
    event the game declares, ("eliminate",) for a player's elimination."""
    kind = event.get("event")
    if kind == "step":
        return ("step", event.get("name") or event.get("text", ""))
    if kind == "event" and event.get("name"):
        return ("event", event["name"])
    if kind == "eliminate":
        return ("eliminate",)
    return None


_KINDS = ("step", "event", "eliminate")     # the order in which rare features are shown


def describe_feature(feature) -> str:
    if feature[0] == "step":
        return f'the first with step "{feature[1]}"'
    if feature[0] == "event":
        return f"the first {feature[1]} event"
    return "the first elimination"


def split_units(events: list[dict]) -> tuple[str, list[dict], list[list[dict]]]:
    """(unit, setup events, [events of each unit]): cut at ``round`` events, else ``turn``."""
    for unit in ("round", "turn"):
        starts = [i for i, e in enumerate(events) if e.get("event") == unit]
        if starts:
            bounds = starts + [len(events)]
            return unit, events[:starts[0]], [events[a:b] for a, b in zip(bounds, bounds[1:])]
    return "event", events, []


def choose(events: list[dict], *, first: int = FIRST_ROUNDS, notable: int = NOTABLE_ROUNDS,
           lines: int = LINES) -> Excerpt:
    """The excerpt of the log ``events`` (an EventLog's events, in order)."""
    unit, setup, units = split_units(events)
    if not units:
        head = tuple(events[:lines])
        tail_from = max(len(head), len(events) - lines // 2)
        parts = [Part("The game", "its first events", head)]
        rest = len(events) - len(head)
        if rest > 0:
            parts.append(Part("The end", "its last events", tuple(events[tail_from:]),
                              events_before=tail_from - len(head)))
        return Excerpt(unit, tuple(parts), len(events), 0)

    picks: dict[int, tuple[str, int | None]] = {}       # unit index → (reason, index of the feature's event)
    for i in range(min(first, len(units))):
        picks[i] = (f"{unit} {i + 1} of {len(units):,}" if i else f"the first {unit}", None)
    last = len(units) - 1
    for index, reason, at in _notable_units(units, set(picks) | {last}, notable):
        picks[index] = (reason, at)
    picks[last] = ("the last, with the end of the game", None)

    parts = []
    if setup:
        shown, cut = _trim(setup, lines, "head")
        parts.append(Part("Setup", "before the first " + unit, shown, cut))
    previous = -1
    for index in sorted(picks):
        reason, at = picks[index]
        events_of = units[index]
        how = "tail" if index == last else ("around" if at is not None else "head")
        shown, cut = _trim(events_of, lines, how, at)
        skipped = range(previous + 1, index)
        parts.append(Part(_heading(unit, index, events_of), reason, shown, cut,
                          len(skipped), sum(len(units[k]) for k in skipped)))
        previous = index
    return Excerpt(unit, tuple(parts), len(events), len(units))


def _heading(unit: str, index: int, events_of: list[dict]) -> str:
    text = events_of[0].get("text") if events_of else None
    return text or f"{unit} {index + 1}"


def _notable_units(units: list[list[dict]], shown: set[int], most: int):
    """Up to ``most`` (unit index, reason, event index) for the rarest features not already seen
    in the units ``shown``: the first unit holding each, in order of rarity then of first use."""
    where: dict = {}                    # feature → [unit indexes holding it]
    first_at: dict = {}                 # (feature, unit index) → index of its first event there
    for u, events_of in enumerate(units):
        for e_index, event in enumerate(events_of):
            feature = feature_of(event)
            if feature is None:
                continue
            holders = where.setdefault(feature, [])
            if not holders or holders[-1] != u:
                holders.append(u)
                first_at[(feature, u)] = e_index
    limit = max(1, int(len(units) * _RARE))
    rare = sorted((f for f, holders in where.items() if len(holders) <= limit),
                  key=lambda f: (_KINDS.index(f[0]), len(where[f]), where[f][0], repr(f)))
    chosen: list = []
    taken = set(shown)
    kinds_shown: set = set()
    for feature in rare:
        if len(chosen) >= most:
            break
        if feature[0] in kinds_shown:   # one of each kind first: a branch, an event, an elimination
            continue
        holders = where[feature]
        u = holders[0]
        if u in taken:                  # the reader sees it already (first rounds, the end, or
            continue                    # a round chosen for a rarer feature)
        taken.add(u)
        kinds_shown.add(feature[0])
        chosen.append((u, describe_feature(feature), first_at[(feature, u)]))
    return chosen


def _trim(events_of: list[dict], lines: int, how: str, at: int | None = None) -> tuple[tuple, int]:
    """At most ``lines`` events of a part, with one ``None`` where the others are left out:
    the first ones (``head``), the last ones (``tail``), or the first few and those around
    event ``at`` (``around``)."""
    if len(events_of) <= lines:
        return tuple(events_of), 0
    if how == "tail":
        keep = lines - 3
        return (events_of[0], None, *events_of[len(events_of) - keep + 1:]), len(events_of) - keep
    if how == "around" and at is not None and at >= lines // 2:
        head = 3
        start = max(head, at - lines // 4)
        end = min(len(events_of), start + lines - head)
        shown = (*events_of[:head], None, *events_of[start:end])
        cut = start - head
        if end < len(events_of):
            return (*shown, None), cut + len(events_of) - end
        return shown, cut
    return (*events_of[:lines - 1], None), len(events_of) - lines + 1
