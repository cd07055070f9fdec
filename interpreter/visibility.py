"""Who may see a card: the one rule behind a player's view and the log a player reads.

A card's face is seen by every player when it lies face up in a public zone, by its zone's
owner alone in an owner-only zone (face up or down), by every player but its zone's owner in
a zone `seen by the others` (face up or down: a hand held facing away), and by nobody in a
hidden zone or face down in a public one — except that the owner of a public zone declared
`face down known to its owner` sees its face-down cards, and a player who looked at it (`p looks at ...`) sees it
until it moves or its zone is shuffled — in a game that declares `remember seen cards`, every player
who has seen its face keeps seeing it until it is shuffled (the card's `$seen_by`, interpreter/machine.py
`_learn`; docs/language.md, "Who has seen a card"). `rule_of(zone declaration)` names the rule a zone's cards follow. `Engine.view(p)` shows a card's name exactly when `sees` says p may; the
explained log marks each card name it writes with `seers` (who may read it), so the log printed
for a person at the terminal (`EventLog.seen_by`) is derived from the same rule, never
re-derived from the log's words.
"""
from __future__ import annotations


class _Everyone:
    """The seers of a card every player may see: contains every seat."""

    def __contains__(self, seat) -> bool:
        return True

    def __or__(self, other):
        return self

    __ror__ = __or__

    def __repr__(self) -> str:
        return "EVERYONE"


EVERYONE = _Everyone()
NOBODY: frozenset = frozenset()


class _AllBut:
    """The seers of a card in a zone `seen by the others`: every seat but `seat` (its owner).
    A non-seat (the observer of public information, seat -1) is not among them: what one
    player does not see is no public information."""

    __slots__ = ("seat",)

    def __init__(self, seat) -> None:
        self.seat = seat

    def __contains__(self, seat) -> bool:
        return seat != self.seat and isinstance(seat, int) and seat >= 0

    def __or__(self, other):
        if other is EVERYONE or self.seat in other:
            return EVERYONE
        return self

    __ror__ = __or__

    def __eq__(self, other) -> bool:
        return isinstance(other, _AllBut) and other.seat == self.seat

    def __hash__(self) -> int:
        return hash(("all but", self.seat))

    def __repr__(self) -> str:
        return f"ALL_BUT({self.seat})"


def sees(visibility: str, zone_seat, face_up: bool, player) -> bool:
    """Whether `player` may see the face of a card in a zone of that visibility and seat."""
    if visibility == "public":
        return bool(face_up)
    if visibility == "owner":
        return zone_seat is not None and zone_seat == player
    if visibility == OWNER_KNOWS:
        return bool(face_up) or (zone_seat is not None and zone_seat == player)
    if visibility == "others":      # a shared zone has no owner: every player sees it
        return zone_seat is None or (player != zone_seat and isinstance(player, int) and player >= 0)
    return False


# the rule of a public zone declared `face down known to its owner`: its face-up cards are seen
# by every player, its face-down ones by the zone's owner alone (a station built face down)
OWNER_KNOWS = "public, face down known to its owner"


def rule_of(decl) -> str:
    """The visibility rule `sees` and `seers` apply to the cards of a zone declaration."""
    return OWNER_KNOWS if decl.owner_knows else decl.visibility


_OWNERS: dict = {}          # seat → frozenset((seat,)), made once: the log asks for every card it names
_OTHERS: dict = {}          # seat → _AllBut(seat), likewise


def seers(visibility: str, zone_seat, face_up: bool):
    """The seats that may see such a card: EVERYONE, one owner, all but the owner, or NOBODY
    (same rule as `sees`)."""
    if visibility == "public":
        return EVERYONE if face_up else NOBODY
    if visibility == OWNER_KNOWS and face_up:
        return EVERYONE
    if visibility in ("owner", OWNER_KNOWS) and zone_seat is not None:
        owner = _OWNERS.get(zone_seat)
        if owner is None:
            owner = _OWNERS[zone_seat] = frozenset((zone_seat,))
        return owner
    if visibility == "others":
        if zone_seat is None:           # a shared zone has no owner: every player sees it
            return EVERYONE
        others = _OTHERS.get(zone_seat)
        if others is None:
            others = _OTHERS[zone_seat] = _AllBut(zone_seat)
        return others
    return NOBODY


def card_seers(m, card: int):
    """Who may see `card` where it lies now in the machine `m`'s state: by the rule above, and
    the players who looked at it (`p looks at ...`) since it came there (`known_to`)."""
    decl, seat, _public = m.zone_info[m.st.card_zone[card]]
    who = seers(rule_of(decl), seat, m.st.face_up[card])
    if m.looks:
        return who | known_to(m.st.cards[card])
    return who


def known_to(card_fields: dict) -> frozenset:
    """The seats that looked at a card (`p looks at ...`) since it last moved or was shuffled:
    its `$seen_by` entry, which the machine keeps (interpreter/machine.py `look`, `_forget`)."""
    return frozenset(card_fields.get("$seen_by", ()))


def back_fields(prog, card: int) -> tuple:
    """The fields a card's back shows to everyone (`back shows: tier` in its card type), or ()."""
    ct = prog.decls.card_types.get(prog.card_type_names[card])
    return ct.back if ct is not None else ()


def back_of(m, card: int) -> dict | None:
    """What `card` shows to a player who may not see its face (docs/language.md, "Card backs"):
    its type and the fields its back shows, as they are now; None when its back shows nothing
    (every such card looks the same from behind). Every player sees the back of a card the
    view lists, face down or held, but no card of a hidden zone (only how many there are)."""
    fields = back_fields(m.prog, card)
    if not fields:
        return None
    values = m.st.cards[card]
    return {"type": m.prog.card_type_names[card], **{f: values.get(f) for f in fields}}


def back_key(type_name: str, fields: tuple, values: dict):
    """Cards with equal keys have the same back: the determinizer deals them only among
    themselves (interpreter/determinize.py)."""
    return (type_name, *(repr(values.get(f)) for f in fields)) if fields else ()


def unseen_label(m, card: int, zone_name: str) -> str:
    """How a decision's option names a card its chooser may not see: by its place, counted
    from 1 in its zone's order ("card 2 of Ann's hand"), never by its name."""
    return f"card {m.st.zones[m.st.card_zone[card]].index(card) + 1} of {zone_name}"
