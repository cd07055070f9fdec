"""Parts of a card (docs/language.md, "Parts of a card"): what `belts of c`, `b's built` and
`set b's built to yes` do while a game runs.

A card's parts are stored flat beside its fields in `GameState.cards` (dsl/checks/cards.py
`part_values` builds them): `belts` is how many the card has, `belts.2.built` the second belt's
`built`. A part as a value is a plain record naming its card, its kind and its number (1, 2, ...),
JSON-able and saved with the frame's env like any value:

    {"card": 4, "part": "belts", "n": 2}

Reading a part's field reads the card's stored value; setting it sets that value and logs it
(`Harbor's mine 2's built becomes yes`), so two records of the same part always agree.
"""
from __future__ import annotations

from .errors import RuleError

PART_KEYS = frozenset({"card", "part", "n"})


def is_part(v) -> bool:
    return v.__class__ is dict and v.keys() == PART_KEYS


def parts_of(m, c, part: str) -> list:
    """The parts `part` of card `c`, in their order; none for a card without them (none for none)."""
    if c is None:
        return []
    n = m.cards[c].get(part)
    return [{"card": c, "part": part, "n": i} for i in range(1, (n or 0) + 1)]


def key(ref, name: str) -> str:
    return f"{ref['part']}.{ref['n']}.{name}"


def read(m, ref, name: str):
    """`b's built`: the value stored on the part's card (none of none)."""
    if ref is None:
        return None
    return m.cards[ref["card"]].get(key(ref, name))


def reader(owner_fn, name: str, env_key=None):
    """fn(m, env) reading field `name` of the part `owner_fn` gives (or env[env_key] holds)."""
    if env_key is not None:
        return lambda m, env: read(m, env[env_key], name)
    return lambda m, env: read(m, owner_fn(m, env), name)


def label(m, ref, labels: dict | None = None) -> str:
    """`Harbor's mine 2`: the card's name, then the part's label (or name) and its number."""
    if not is_part(ref):
        return "none" if ref is None else str(ref)
    word = (labels or {}).get(ref["part"]) or ref["part"]
    return f"{m.card_label(ref['card'])}'s {word} {ref['n']}"


def assign(m, ref, name: str, value, span, dirty: int) -> bool:
    """`set b's built to yes`: the part's value on its card, one event of the log."""
    if not is_part(ref):
        raise RuleError(f"there is no part here to set '{name}' on", span, "check it first: if ... is not none:")
    m.cards[ref["card"]][key(ref, name)] = value
    m.dirty |= dirty
    if m.log.on:
        what = label(m, ref, m.prog.part_labels)
        m.log.emit(m, "set", span, {"what": f"{what}'s {name}", "value": m.log.value(m, value)},
                   [f"{what}'s {name} becomes ", *m.log.typed_parts(m, value, None, span)])
    return True
