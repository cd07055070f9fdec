"""Dice pools and limited supplies in English (their describers join DESCRIBERS when
english.py imports this module).

    roll 7 White dice and 5 Black dice as pool attack, at most 10
      → "Roll 7 White dice and 5 Black dice as one pool, *attack*, but no more than 10 dice in
         all (the dice past 10 are not rolled, the last listed first); each die keeps its own face."
"""
from __future__ import annotations

from .. import ast as A
from ..types import DIE, PLAYER, list_of
from .words import Ctx, Line, describer, human, join_and, np, var


def _line(text: str) -> list[Line]:
    return [Line(text, ())]


def _dice(count: str, die: str) -> str:
    """`3 White dice`, `1 White die`; a count that is not a number: `as many White dice as their attack`."""
    if count.isdigit():
        return f"{count} {die} {'die' if count == '1' else 'dice'}"
    return f"as many {die} dice as {count}"


def face_words(face) -> str:
    """`[Aim, Aim]` → "Aim + Aim"; `[]` → "blank"."""
    return " + ".join(face) or "blank"


@describer
def describe_RollPoolStmt(s: A.RollPoolStmt, ctx: Ctx) -> list[Line]:
    groups = join_and([_dice(np(n, ctx), die) for n, die in s.groups])
    ctx.bind(s.name, list_of(DIE))
    cap = ""
    if s.cap is not None:
        most = np(s.cap, ctx)
        cap = (f", but no more than {most} dice in all (the dice past {most} are not rolled, "
               "the last listed first; dice added later may go past it)")
    return _line(f"Roll {groups} as one pool, {var(s.name)}{cap}. Each die keeps its own face, "
                 "and whether it was re-rolled, until it is re-rolled, turned or taken out.")


@describer
def describe_RollIntoStmt(s: A.RollIntoStmt, ctx: Ctx) -> list[Line]:
    count = np(s.count, ctx)
    return _line(f"Roll {_dice(count, s.die)} more and add {'it' if count == '1' else 'them'} to {var(s.pool)}, "
                 "even past the most it was rolled with.")


@describer
def describe_RerollStmt(s: A.RerollStmt, ctx: Ctx) -> list[Line]:
    return _line(f"Re-roll {np(s.dice, ctx)} in {var(s.pool)}: each die is re-rolled once at most, "
                 "and a die re-rolled before stays as it is.")


@describer
def describe_TurnDieStmt(s: A.TurnDieStmt, ctx: Ctx) -> list[Line]:
    return _line(f"Turn {np(s.dice, ctx)} in {var(s.pool)} to its face {face_words(s.face)}.")


@describer
def describe_RemoveDiceStmt(s: A.RemoveDiceStmt, ctx: Ctx) -> list[Line]:
    return _line(f"Take {np(s.dice, ctx)} out of {var(s.pool)}.")


@describer
def describe_HandOutStmt(s: A.HandOutStmt, ctx: Ctx) -> list[Line]:
    first = np(s.start, ctx)
    if s.each is not None:
        ctx.bind(s.each, PLAYER)
    amount = np(s.amount, ctx)
    what = human(s.attr)
    return _line(f"Give out {amount} {what} to each player from the {human(s.supply)}, one at a time: "
                 f"starting with {first} and going around the table, each player in turn takes one, "
                 f"until everyone has had their {what} or the {human(s.supply)} runs out "
                 "(a player already at the most they may have takes no more).")


@describer
def describe_HandOutCardsStmt(s: A.HandOutCardsStmt, ctx: Ctx) -> list[Line]:
    first, source = np(s.start, ctx), np(s.source, ctx)
    if s.each is not None:
        ctx.bind(s.each, PLAYER)
    amount = np(s.amount, ctx)
    facing = f", face {s.face}" if s.face else ""
    cards = "card" if amount == "1" else "cards"
    return _line(f"Give out {amount} {cards} from {source} into each player's {human(s.zone)}{facing}, one at a time: "
                 f"starting with {first} and going around the table, each player in turn takes the top card, "
                 f"until everyone has had their cards or {source} is empty "
                 "(a player whose zone is full takes no more).")
