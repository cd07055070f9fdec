"""Who may see a card: the one rule behind a player's view and the log a player reads.

A card's face is seen by every player when it lies face up in a public zone, by its zone's
owner alone in an owner-only zone (face up or down), and by nobody in a hidden zone or face
down in a public one — except that a player who looked at it (`p looks at ...`) sees it
until it moves or its zone is shuffled. `Engine.view(p)` shows a card's name exactly when `sees` says p may; the
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


def sees(visibility: str, zone_seat, face_up: bool, player) -> bool:
    """Whether `player` may see the face of a card in a zone of that visibility and seat."""
    if visibility == "public":
        return bool(face_up)
    if visibility == "owner":
        return zone_seat is not None and zone_seat == player
    return False


_OWNERS: dict = {}          # seat → frozenset((seat,)), made once: the log asks for every card it names


def seers(visibility: str, zone_seat, face_up: bool):
    """The seats that may see such a card: EVERYONE, one owner, or NOBODY (same rule as `sees`)."""
    if visibility == "public":
        return EVERYONE if face_up else NOBODY
    if visibility == "owner" and zone_seat is not None:
        owner = _OWNERS.get(zone_seat)
        if owner is None:
            owner = _OWNERS[zone_seat] = frozenset((zone_seat,))
        return owner
    return NOBODY


def card_seers(m, card: int):
    """Who may see `card` where it lies now in the machine `m`'s state: by the rule above, and
    the players who looked at it (`p looks at ...`) since it came there (`known_to`)."""
    decl, seat, _public = m.zone_info[m.st.card_zone[card]]
    who = seers(decl.visibility, seat, m.st.face_up[card])
    if m.looks:
        return who | known_to(m.st.cards[card])
    return who


def known_to(card_fields: dict) -> frozenset:
    """The seats that looked at a card (`p looks at ...`) since it last moved or was shuffled:
    its `$seen_by` entry, which the machine keeps (interpreter/machine.py `look`, `_forget`)."""
    return frozenset(card_fields.get("$seen_by", ()))
