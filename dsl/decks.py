"""Decks as input: the game's deck rules, a deck file, and every way a deck breaks the rules.

A game declares how a player builds a deck (docs/language.md, "Decks"):

    decks from collection into deck:
        exactly 10 Module
        names are unique except Action
        at most 2 copies of each Action
        the power of Hazard cards adds up to at most 10

The pool is every card the file declares in the shared zone `collection` (a table row's
`copies` is how many of that card one deck may take); a seat's deck is dealt into its own zone
`deck` (or per type: `Module into modules`) as the game begins (interpreter/decks.py).

A deck file is plain text, one entry a line (docs/language.md, "Deck files"):

    title: Red Rush          # the deck's name (optional)
    3 "Card Name"            # a count and a quoted name
    3x Card Name             # or a count, x, and the name as it is written
    Card Name                # one copy

This module holds the check pass of the deck rules (`deck_rules`, run by the loader after the card
checks), the deck file's reader (`parse_deck`), `check_deck` (every violation, each located in the
deck file: E06xx) and the rules in English for the rulebook (`describe_deck_rules`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from . import ast as A
from .bounds import MAX_CARD_COPIES, MAX_DECK_BYTES
from .diagnostics import Diagnostic, DiagnosticSink
from .source import Source, Span, normalise_line_ends
from .types import card_type_hint, suggest

# ================================================================ the check pass


def destinations(rules: A.DeckRulesDecl) -> dict[str | None, str]:
    """Card type -> the per-player zone its cards are dealt into (None: every other type)."""
    out: dict[str | None, str] = {None: rules.into} if rules.into is not None else {}
    for r in rules.rules:
        if r.kind == "into":
            out[r.type_name] = r.zone
    return out


def deck_rules(d, cards, sink: DiagnosticSink) -> None:
    """Check the deck rules (`decks from ...`): zones, card types and fields; that the counts agree.

        decks from hand into deck:       # E0601 'hand' is one per player: the pool is a shared zone
    """
    rules: A.DeckRulesDecl | None = d.deck_rules
    if rules is None:
        return

    def zone(name: str, span: Span, shared: bool) -> bool:
        zd = d.zones.get(name)
        if zd is None:
            sink.error("E0207", f"unknown zone '{name}'", span,
                       suggest(name, d.zones) or f"declare it with: zone {name}: {'shared' if shared else 'per player'}")
            return False
        if zd.per_player == shared or zd.per_entity is not None:      # (a zone per an entity is neither)
            if shared:
                sink.error("E0601", f"the pool of the deck rules is a shared zone, but '{name}' is one per "
                           f"{'player' if zd.per_player else zd.per_entity}",
                           span, "declare the cards in a shared zone (zone collection: shared, hidden) and "
                                 "write: decks from collection into deck:")
            else:
                sink.error("E0601", f"a deck is dealt into a zone per player, but '{name}' is shared", span,
                           f"declare it per player: zone {name}: per player, hidden")
            return False
        return True

    def card_type(name: str | None, span: Span | None) -> bool:
        if name is None or name in d.card_types:
            return True
        sink.error("E0209", f"unknown card type '{name}'", span or rules.span, card_type_hint(name, d.card_types))
        return False

    zone(rules.pool, rules.pool_span, True)
    if rules.into is not None:
        zone(rules.into, rules.into_span, False)
    bounds: dict[str | None, list] = {}          # type (None: every card) -> [low, high, span]
    for r in rules.rules:
        if r.kind == "into":
            if card_type(r.type_name, r.type_span):
                zone(r.zone, r.span, False)
        elif r.kind == "unique":
            for name, span in r.excepted:
                card_type(name, span)
        elif r.kind == "copies":
            card_type(r.type_name, r.type_span)
            if r.n < 1:
                sink.error("E0604", "at most 0 copies of each card leaves no deck to build", r.span,
                           "write at least 1; to keep a card type out of decks, leave it out of the pool")
        elif r.kind == "sum":
            if card_type(r.type_name, r.type_span):
                fd = next((f for f in d.card_types[r.type_name].fields if f.name == r.field), None)
                if fd is None:
                    sink.error("E0204", f"'{r.type_name}' has no field '{r.field}'", r.span,
                               suggest(r.field, [f.name for f in d.card_types[r.type_name].fields]))
                elif fd.type.name != "number" or fd.type.is_list:
                    sink.error("E0603", f"the deck rules add up '{r.field}' of {r.type_name}, which is not a number",
                               r.span, "a cap adds up a number field: the power of Hazard cards adds up to at most 10")
        elif r.kind == "count" and card_type(r.type_name, r.type_span):
            low, high, _ = bounds.setdefault(r.type_name, [0, None, r.span])
            if r.bound in ("exactly", "at least"):
                low = max(low, r.n)
            if r.bound in ("exactly", "at most"):
                high = r.n if high is None else min(high, r.n)
            bounds[r.type_name] = [low, high, r.span]
            if high is not None and low > high:
                what = "cards" if r.type_name is None else r.type_name
                sink.error("E0604", f"the deck rules ask for at least {low} and at most {high} {what}", r.span,
                           "make the counts of one card type agree: exactly N, or at least N and at most M")
    # every card of the pool goes somewhere when the game begins
    where = destinations(rules)
    missing = sorted({c.type_name for c in cards if c.zone == rules.pool and
                      c.type_name not in where and None not in where})
    for type_name in missing:
        sink.error("E0602", f"the deck rules say nowhere to deal the {type_name} cards of a deck", rules.span,
                   f"name a zone per player for them: 'decks from {rules.pool} into deck:', "
                   f"or a line '{type_name} into <zone>'")


# ================================================================ the pool


@dataclass(frozen=True)
class PoolCard:
    """One card name of the pool: its type, how many copies a deck may take, its values."""
    name: str
    type_name: str
    copies: int
    values: dict
    first: int              # the id of its first CardDef


def pool_of(game) -> dict[str, PoolCard]:
    """Name -> PoolCard, for the cards declared in the deck rules' pool zone (file order)."""
    rules = game.decls.deck_rules
    out: dict[str, PoolCard] = {}
    for c in game.cards:
        if c.zone != rules.pool:
            continue
        held = out.get(c.name)
        out[c.name] = PoolCard(c.name, c.type_name, (held.copies if held else 0) + 1, c.values,
                               held.first if held else c.id)
    return out


# ================================================================ deck files


@dataclass(frozen=True)
class DeckEntry:
    count: int
    name: str
    span: Span              # the name as written
    line: Span              # the whole entry


@dataclass(frozen=True)
class Deck:
    path: str
    title: str | None
    title_span: Span | None
    entries: tuple[DeckEntry, ...]
    source: Source

    def names(self) -> list[str]:
        """Every card of the deck, copies repeated, in the order the file lists them."""
        return [e.name for e in self.entries for _ in range(e.count)]


_COUNT = re.compile(r"(\d+)(\s*[x\u00d7X](?=\s))?\s+")


def parse_deck(text: str, path: str) -> tuple[Deck, list[Diagnostic]]:
    """The deck file `text` (reported as `path`) and the lines it could not read (E0610)."""
    text = normalise_line_ends(text)
    source = Source(path, text)
    problems: list[Diagnostic] = []
    if len(text.encode("utf-8", "surrogatepass")) > MAX_DECK_BYTES:
        problems.append(Diagnostic("E0610", f"this deck file is larger than {MAX_DECK_BYTES:,} bytes (MAX_DECK_BYTES)",
                                   Span(path, 1, 1, 1, 2), "a deck lists each card once, with its count"))
        return Deck(path, None, None, (), source), problems
    title, title_span, entries = None, None, []
    for number, raw in enumerate(text.split("\n"), 1):
        line = _without_comment(raw).rstrip()
        body = line.lstrip()
        if not body:
            continue
        col = len(line) - len(body) + 1
        whole = Span(path, number, col, number, len(line) + 1)
        if body.lower().startswith("title:"):
            if title is not None:
                problems.append(Diagnostic("E0610", "a deck file has one title line", whole,
                                           f"the first is at line {title_span.line}"))
            else:
                title, title_span = body[6:].strip().strip('"'), whole
            continue
        count, rest, rest_col = 1, body, col
        m = _COUNT.match(body)
        if m:
            count = int(m.group(1)) if len(m.group(1)) <= 6 else MAX_CARD_COPIES + 1
            rest, rest_col = body[m.end():], col + m.end()
            if not 1 <= count <= MAX_CARD_COPIES:
                problems.append(Diagnostic("E0610", f"a count of {m.group(1)} copies", Span(path, number, col, number,
                                                                                            col + len(m.group(1))),
                                           f"write a count from 1 to {MAX_CARD_COPIES:,}, then the card's name: 3 \"Card Name\""))
                continue
        elif body[:1].isdigit():
            problems.append(Diagnostic("E0610", "a count with no card name after it", whole,
                                       'write the count, a space and the name: 3 "Card Name" or 3x Card Name'))
            continue
        name_span = Span(path, number, rest_col, number, rest_col + len(rest))
        if rest.startswith('"'):
            close = rest.find('"', 1)
            if close < 0 or rest[close + 1:].strip():
                problems.append(Diagnostic("E0610", "a quoted name that is not closed at the end of its line"
                                           if close < 0 else "something after the quoted name", name_span,
                                           'one entry a line: 3 "Card Name"  # a comment may follow'))
                continue
            rest = rest[1:close]
        if not rest.strip():
            problems.append(Diagnostic("E0610", "an entry without a card name", whole, 'write: 3 "Card Name"'))
            continue
        entries.append(DeckEntry(count, rest.strip(), name_span, whole))
    return Deck(path, title, title_span, tuple(entries), source), problems


def _without_comment(line: str) -> str:
    """`line` up to a `#` that is not inside a quoted name."""
    quoted = False
    for i, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif ch == "#" and not quoted:
            return line[:i]
    return line


def read_deck(path: str) -> tuple[Deck | None, list[Diagnostic], dict]:
    """The deck file at `path`: (deck, diagnostics, sources). An unreadable file is E0901."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_DECK_BYTES + 1)
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, [Diagnostic("E0903", "this deck file is not UTF-8 text", Span(path, 1, 1, 1, 2),
                                 "save it as UTF-8")], {}
    except OSError as err:
        return None, [Diagnostic("E0901", f"cannot read the deck file: {err.strerror or err}", Span(path, 0, 0, 0, 0),
                                 "check the path")], {}
    deck, problems = parse_deck(text, path)
    return deck, problems, {path: deck.source}


# ================================================================ a deck against the rules


def _what(type_name: str | None, n: int = 2) -> str:
    return ("card" if n == 1 else "cards") if type_name is None else f"{type_name} card{'s' * (n != 1)}"


def check_deck(game, deck: Deck) -> list[Diagnostic]:
    """Every way `deck` breaks the deck rules of `game`, each at its place in the deck file."""
    rules: A.DeckRulesDecl = game.decls.deck_rules
    pool = pool_of(game)
    out: list[Diagnostic] = []
    rule_at = lambda r: f"the rule is at {r.span.path.rsplit('/', 1)[-1]}:{r.span.line}: {_rule_text(r)}"  # noqa: E731
    known: list[tuple[DeckEntry, PoolCard]] = []
    others = {c.name for c in game.cards if c.zone != rules.pool}
    for e in deck.entries:
        card = pool.get(e.name)
        if card is None:
            lower = [n for n in pool if n.lower() == e.name.lower()]
            hint = (f"did you mean '{lower[0]}'?" if lower else suggest(e.name, pool)
                    or "the pool is the cards of the game's zone " + rules.pool)
            why = (f"'{e.name}' is a card of the game but not of the pool the deck rules build from "
                   f"('{rules.pool}')" if e.name in others else f"no card of the pool is named '{e.name}'")
            out.append(Diagnostic("E0611", why, e.span, hint))
        else:
            known.append((e, card))
    # copies of a name: the game's, the rules'
    total: dict[str, int] = {}
    excepted = {t for r in rules.rules if r.kind == "unique" for t, _ in r.excepted}
    unique = any(r.kind == "unique" for r in rules.rules)
    for e, card in known:
        before = total.get(e.name, 0)
        total[e.name] = now = before + e.count
        if now > card.copies >= before:
            out.append(Diagnostic("E0616", f"this deck has {now} copies of '{e.name}'; the game has "
                                  f"{card.copies}", e.line, f"take at most {card.copies}"))
        if unique and card.type_name not in excepted and now > 1 >= before:
            r = next(r for r in rules.rules if r.kind == "unique")
            out.append(Diagnostic("E0614", f"'{e.name}' is in this deck {now} times; names in a deck are unique"
                                  + (f" except {', '.join(sorted(excepted))}" if excepted else ""),
                                  e.line, "keep one copy", (rule_at(r),)))
        for r in rules.rules:
            if r.kind == "copies" and r.type_name in (None, card.type_name) and now > r.n >= before:
                out.append(Diagnostic("E0615", f"this deck has {now} copies of '{e.name}'; at most {r.n} "
                                      f"{'copy' if r.n == 1 else 'copies'} of each {r.type_name or 'card'}", e.line,
                                      f"take at most {r.n}", (rule_at(r),)))
    # counts of a type, and of the whole deck
    end = deck.title_span or (deck.entries[0].line if deck.entries else Span(deck.path, 1, 1, 1, 2))
    for r in rules.rules:
        if r.kind == "count":
            mine = [(e, c) for e, c in known if r.type_name in (None, c.type_name)]
            have = sum(e.count for e, _ in mine)
            what = _what(r.type_name)
            if r.bound in ("exactly", "at most") and have > r.n:
                place, run = mine[-1][0].line, 0
                for e, _ in mine:          # the entry that goes past the count
                    run += e.count
                    if run > r.n:
                        place = e.line
                        break
                out.append(Diagnostic("E0613", f"this deck has {have} {what}; the deck rules ask for {r.bound} {r.n}",
                                      place, f"take out {have - r.n} {_what(r.type_name, have - r.n)}", (rule_at(r),)))
            elif r.bound in ("exactly", "at least") and have < r.n:
                out.append(Diagnostic("E0613", f"this deck has {have} {what}; the deck rules ask for {r.bound} {r.n}",
                                      end, f"add {r.n - have} {_what(r.type_name, r.n - have)}", (rule_at(r),)))
        elif r.kind == "sum":
            mine = [(e, c) for e, c in known if c.type_name == r.type_name]
            run, place = 0, None
            for e, c in mine:
                run += e.count * (c.values.get(r.field) or 0)
                if run > r.n and place is None:
                    place = e.line
            if place is not None:
                parts = ", ".join(f"{e.name} {c.values.get(r.field) or 0}" + (f" \u00d7{e.count}" if e.count > 1 else "")
                                  for e, c in mine)
                out.append(Diagnostic("E0617", f"the {r.field} of this deck's {r.type_name} cards adds up to {run}; "
                                      f"at most {r.n}", place, f"take out {run - r.n} {r.field} or more ({parts})",
                                      (rule_at(r),)))
    return sorted(out, key=lambda x: (x.span.line, x.span.column))


def deck_diagnostics(game, deck: Deck, problems: list[Diagnostic]) -> list[Diagnostic]:
    """Everything wrong with a deck file: its unreadable lines (`problems`, from parse_deck) and
    every rule its readable entries break; with an unreadable line, a count or a capped sum of
    the deck is not judged (the line may hold what is missing), the rest is, in line order."""
    found = check_deck(game, deck)
    if problems:
        found = [d for d in found if d.code not in ("E0613", "E0617")]
    return sorted([*problems, *found], key=lambda x: (x.span.line, x.span.column))


def deal_names(game, names: list[str]) -> dict[str, list[str]]:
    """A legal deck's cards by the zone each is dealt into (the rules' `into`), in deck order."""
    rules = game.decls.deck_rules
    where = destinations(rules)
    pool = pool_of(game)
    out: dict[str, list[str]] = {}
    for name in names:
        t = pool[name].type_name
        out.setdefault(where.get(t, where.get(None)), []).append(name)
    return out


# ================================================================ English


def _rule_text(r: A.DeckRule) -> str:
    """A deck rule as the file writes it (for notes)."""
    if r.kind == "count":
        return f"{r.bound} {r.n} {r.type_name or 'cards'}"
    if r.kind == "unique":
        return "names are unique" + (f" except {', '.join(t for t, _ in r.excepted)}" if r.excepted else "")
    if r.kind == "copies":
        return f"at most {r.n} copies of each {r.type_name or 'card'}"
    if r.kind == "sum":
        return f"the {r.field} of {r.type_name} cards adds up to at most {r.n}"
    return f"{r.type_name} into {r.zone}"


def describe_deck_rules(decls) -> list[str]:
    """The deck rules as the rulebook's sentences ("Building your deck")."""
    from .publish.words import display_name, join_and, plural

    rules: A.DeckRulesDecl = decls.deck_rules
    zone = lambda z: display_name(decls, "zone", z)     # noqa: E731
    out = [f"Each player brings a deck of their own, built from the cards of the {zone(rules.pool)} "
           f"(the card reference lists how many copies of each card a deck may take)."]
    counts = [r for r in rules.rules if r.kind == "count"]
    if counts:
        parts = [f"{r.bound} {r.n} {plural(r.type_name) if r.n != 1 else r.type_name}" if r.type_name
                 else f"{r.bound} {r.n} card{'s' * (r.n != 1)} in all" for r in counts]
        out.append(f"A deck holds {join_and(parts)}.")
    for r in rules.rules:
        if r.kind == "unique":
            ex = [plural(t) for t, _ in r.excepted]
            out.append("No two cards in a deck share a name" + (f", except {join_and(ex)}." if ex else "."))
        elif r.kind == "copies":
            out.append(f"A deck holds at most {r.n} {'copy' if r.n == 1 else 'copies'} of any one "
                       f"{r.type_name or 'card'}.")
        elif r.kind == "sum":
            out.append(f"The {display_name(decls, 'field', r.field)} of the {plural(r.type_name)} in a deck adds "
                       f"up to at most {r.n}.")
    where = destinations(rules)
    deals = [f"their {plural(t)} into their {zone(z)}" for t, z in where.items() if t is not None]
    if None in where:
        deals.append(f"{'the rest' if deals else 'their deck'} into their {zone(where[None])}")
    out.append(f"As the game begins, each player puts {join_and(deals)}, in the order the deck lists them.")
    return out
