"""Entity kinds (docs/language.md, "entity"): things a player owns several of, each with its own
attributes and zones, created and destroyed during play.

    entity boat "Launch": per player, at most 3
        has:
            speed: number = 0, at least 0
    zone crew: per boat, unordered, public

Part of pass 1 (dsl/checks/declarations.py): `index_entity` files a declaration and checks it
alone; `check_entities` checks what needs every declaration (zones `per <kind>`, names that
would read two ways) and computes each kind's starting values.
"""
from __future__ import annotations

from collections import Counter

from .. import ast as A
from ..bounds import MAX_ENTITIES
from ..diagnostics import DiagnosticSink
from ..model import Declarations
from ..types import suggest

# what every entity has without declaring it: who owns it
ENTITY_PSEUDO = ("owner",)


def index_entity(decl: A.EntityDecl, d: Declarations, unique, sink: DiagnosticSink) -> None:
    unique("entity kind", decl.name, decl.span, d.entities, decl)
    example = f"entity {decl.name}: per player, at most 3"
    if not decl.per_player:
        sink.error("E0140", f"entity '{decl.name}' does not say who owns them", decl.span,
                   f"entities belong to players: {example}")
    if decl.most is None:
        sink.error("E0140", f"entity '{decl.name}' needs 'at most N': how many one player may own at once",
                   decl.span, f"write e.g. {example} (at most {MAX_ENTITIES}, MAX_ENTITIES)")
    elif not 1 <= decl.most <= MAX_ENTITIES:
        sink.error("E0140", f"at most {decl.most} {decl.plural_name} is not allowed: a player may own "
                   f"1 to {MAX_ENTITIES} of a kind (MAX_ENTITIES)", decl.span,
                   f"write a number from 1 to {MAX_ENTITIES}")
    names = Counter(f.name for f in decl.fields)
    for f in decl.fields:
        if names[f.name] > 1 or f.name in ENTITY_PSEUDO:
            sink.error("E0104", f"attribute '{f.name}' of '{decl.name}' is declared twice or is reserved", f.span,
                       "'owner' is built into every entity (the player who owns it); rename this one")


def check_entities(d: Declarations, sink: DiagnosticSink) -> None:
    from .cards import _default     # the same starting values as `player has:`
    kinds = list(d.entities)
    for z in d.zones.values():
        into = d.zones.get(z.discard_into) if z.discard_into is not None else None
        if into is not None and into.per_entity is not None:
            sink.error("E0141", f"'{z.name}' discards down into '{into.name}', a zone per {into.per_entity}: "
                       "whose would the cards go to?", z.span,
                       f"discard into a zone per player or a shared one, e.g. zone {z.name}_discard: shared, public")
        if z.per_entity is None:
            continue
        kind = d.entities.get(z.per_entity)
        if kind is None:
            sink.error("E0141", f"zone '{z.name}' is per '{z.per_entity}', which is not an entity kind",
                       z.per_span or z.span,
                       suggest(z.per_entity, kinds + ["player"])
                       or ("declare it: entity " + z.per_entity + ": per player, at most 3"
                           if not kinds else f"the entity kinds are {', '.join(kinds)}; or write per player"))
            continue
        if any(f.name == z.name for f in kind.fields):
            sink.error("E0104", f"'{z.name}' is both a zone per {kind.name} and an attribute of it", z.span,
                       "rename one: s's " + z.name + " must name one thing")
        if z.discard_into is not None:
            most = z.capacity
            sink.error("E0141", f"zone '{z.name}' per {kind.name} cannot 'discard down into' a zone: only a zone per "
                       f"player discards down (its owner chooses what goes)", z.per_span or z.span,
                       f"drop ', discard down into {z.discard_into}'"
                       + (f": 'at most {most}' alone stops the game at a move past it, so check first, e.g. "
                          f"if count(cards in c's {z.name}) < {most}: ..., c a {kind.name}" if most is not None else ""))
        if z.owner_knows:
            sink.error("E0141", f"zone '{z.name}' per {kind.name} cannot be 'face down known to its owner' "
                       "(a zone per player can)", z.per_span or z.span,
                       "drop it here, or make the zone per player")
    plurals: dict[str, str] = {}
    for e in d.entities.values():
        word = e.plural_name
        clash = ("a zone" if word in d.zones else "a player attribute" if word in d.player_fields
                 else f"the plural of '{plurals[word]}'" if word in plurals else None)
        if clash is not None or word == e.name:
            sink.error("E0140", f"'{word}', the plural of entity '{e.name}', is already {clash or 'its name'}",
                       e.span, f"name its plural apart: entity {e.name}: per player, at most {e.most or 3}, "
                       f"plural {e.name}_group")
        plurals[word] = e.name
        d.entity_defaults[e.name] = {f.name: _default(f, d, sink) for f in e.fields}


def zones_of(d: Declarations, kind: str) -> list[str]:
    """The zones declared `per <kind>`, in the file's order."""
    return [z.name for z in d.zones.values() if z.per_entity == kind]


# ---------------------------------------------------------------- the statements' checks
# BodyChecker methods (bound in dsl/checks/bodies.py)

def s_CreateStmt(self, s: A.CreateStmt, sc) -> None:
    from ..types import PLAYER, entity_of
    self.expr(s.player, sc, PLAYER)
    kind = self.d.entities.get(s.kind)
    if kind is None:
        word = self.d.entity_of_plural(s.kind)
        kinds = list(self.d.entities)
        self._report("E0250", f"unknown entity kind '{s.kind}'", s.kind_span or s.span,
                     f"write the kind's name, not its plural: create a {word} for p" if word else
                     suggest(s.kind, kinds) or (f"the entity kinds are {', '.join(kinds)}" if kinds else
                                                f"declare it first: entity {s.kind}: per player, at most 3"))
    if s.name is not None:
        self.bind(s.name, entity_of(s.kind) if kind is not None else ANY_T, s.span, sc)


def s_DestroyStmt(self, s: A.DestroyStmt, sc) -> None:
    from ..types import is_entity, show
    t = self.expr(s.target, sc)
    if not is_entity(t) and t not in (ANY_T, "none"):
        self._report("E0408", f"only an entity can be destroyed, but this is {show(t)}", s.target.span,
                     "e.g. destroy s, s one of your ships; to take a card out of play, move it to a zone")


ANY_T = "any"


def entity_unsettable(self, e, t, sc):
    """(message, hint) when `set` / `add` targets what an entity has that cannot be set (its
    owner, a zone per its kind) or a player's entities (`p's ships`); else None."""
    from ..types import is_entity, is_list
    if is_list(t) and is_entity(t[1]) and isinstance(e, (A.Possessive, A.Your)):
        return (f"a player's {e.name} cannot be set: they change as entities are created and destroyed",
                f"create a {t[1][1]} for p, or destroy one of them")
    owner = e.owner if isinstance(e, A.Possessive) else e.obj if isinstance(e, A.FieldAccess) else None
    if owner is None or not is_entity(self.typer.infer_quiet(owner, sc)):
        return None
    if e.name == "owner":
        return ("an entity's owner is who created it and cannot be set", "create a new one for the other player")
    zd = self.d.zones.get(e.name)
    if zd is not None and zd.per_entity is not None:
        return ("a zone cannot be set", "move cards into it instead")
    return None
