"""Entities in English (docs/language.md, "entity"); the describers join DESCRIBERS when
english.py imports this module.

    create a boat for p as b      → "Create a new Boat for p (call it *b*); its attributes start at their defaults."
    destroy b                     → "Destroy *b*: it leaves play (nothing may be left in its zones)."
"""
from __future__ import annotations

from .. import ast as A
from ..types import entity_of
from .words import Ctx, Line, cap, describer, human, np, var


def kind_word(decls, kind: str) -> str:
    """The kind's display name: `entity boat "Boat"` → Boat; `entity fleet` → fleet."""
    e = decls.entities.get(kind)
    return (e.label if e is not None and e.label else human(kind))


def kind_plural(decls, kind: str) -> str:
    e = decls.entities.get(kind)
    if e is not None and e.plural and not e.label:
        return human(e.plural)
    word = kind_word(decls, kind)
    return word + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s")


def _an(word: str) -> str:
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


@describer
def describe_CreateStmt(s: A.CreateStmt, ctx: Ctx) -> list[Line]:
    word = kind_word(ctx.decls, s.kind)
    who = np(s.player, ctx)
    named = ""
    if s.name is not None:
        ctx.bind(s.name, entity_of(s.kind))
        named = f" (call it {var(s.name)})"
    e = ctx.decls.entities.get(s.kind)
    most = f" A player may own at most {e.most} {kind_plural(ctx.decls, s.kind)} at a time." if e and e.most else ""
    return [Line(f"Create {_an(word)} for {who}{named}; it starts with its attributes at their starting "
                 f"values and its zones empty.{most}", ())]


@describer
def describe_DestroyStmt(s: A.DestroyStmt, ctx: Ctx) -> list[Line]:
    return [Line(f"{cap(np(s.target, ctx))} is destroyed: it leaves play. (Any cards in its zones must have been "
                 "moved out first.)", ())]


@describer
def describe_AllEntities(e: A.AllEntities, ctx: Ctx) -> str:
    kind = ctx.decls.entity_of_plural(e.name)
    return f"all {kind_plural(ctx.decls, kind) if kind else human(e.name)} in play"


@describer
def describe_EntityHolding(e: A.EntityHolding, ctx: Ctx) -> str:
    return f"the {kind_word(ctx.decls, e.kind)} whose zones hold {np(e.card, ctx)}"


@describer
def describe_IsInPlay(e: A.IsInPlay, ctx: Ctx) -> str:
    item = np(e.item, ctx)
    return f"{item} is {'no longer' if e.negated else 'still'} in play"


def whose(decls, z) -> str:
    """Whose a zone is, as the rulebook's tables say it: "each player", "each Boat", "shared"."""
    if z.per_player:
        return "each player"
    if getattr(z, "per_entity", None) is not None:
        return f"each {kind_word(decls, z.per_entity)}"
    return "shared"


def entity_texts(decls, e) -> list[str]:
    """The rulebook's sentences about a kind: how many a player may have, and its zones."""
    from .layout import zone_label
    word, words = kind_word(decls, e.name), kind_plural(decls, e.name)
    texts = [f"Each player may have up to {e.most} {words if e.most != 1 else word} at a time. "
             f"{words[:1].upper() + words[1:]} are created and destroyed during play; a {word} destroyed "
             f"is gone for good, and the next one created is a new {word}."]
    zones = [z for z in decls.zones.values() if getattr(z, "per_entity", None) == e.name]
    if zones:
        texts.append(f"Each {word} has its own " + ", ".join(zone_label(decls, z.name) for z in zones)
                     + f" (a zone of the {word}'s owner); a {word} is destroyed only once they are empty.")
    return texts
