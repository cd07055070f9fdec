"""The statements of dice pools and limited supplies compiled (bound as StmtCompiler methods):
each is one instruction, a closure over interpreter/dice.py. None of them is on a hot path, so
they have no generated source form (the closure fallback of interpreter/blocks.py).

`roll ... as pool P`, `roll ... into P`, `reroll d in P`, `turn d in P to [face]`,
`remove d from P`, `give out n attr from supply to each player [p] starting with x`,
`give out n cards from Z to each player [p]'s Y starting with x`.
"""
from __future__ import annotations

from cardsmith.dsl import ast as A
from cardsmith.dsl.types import DIE, list_of

from . import dice as D
from .compile_positions import NONE_NUMBER_HINT
from .errors import RuleError

POOL_T = list_of(DIE)


def _faces(self) -> dict:
    return {name: [list(f) for f in decl.faces] for name, decl in self.d.dice.items()}


def s_RollPoolStmt(self, s, ctx):
    groups = [(self.cx(n, ctx), die, [list(f) for f in self.d.dice[die].faces]) for n, die in s.groups]
    cap = self.cx(s.cap, ctx) if s.cap is not None else None
    name, span = s.name, s.span
    ctx.sc.locals[name] = POOL_T

    def roll_pool(m, fr):
        env = fr.env
        most = None
        if cap is not None and (most := cap(m, env)) is None:
            raise RuleError("the most dice to roll is none here: it needs a number", s.cap.span, NONE_NUMBER_HINT)
        env[name] = D.roll_pool(m, [(die, faces, n(m, env)) for n, die, faces in groups], most, span)
    ctx.code.emit(roll_pool, span, ("roll pool", tuple(n for n, _ in s.groups), f" → {name}"))


def s_RollIntoStmt(self, s, ctx):
    n = self.cx(s.count, ctx)
    faces = [list(f) for f in self.d.dice[s.die].faces]
    die, pool, span = s.die, s.pool, s.span

    def roll_into(m, fr):
        env = fr.env
        env[pool] = D.roll_into(m, env.get(pool), die, faces, n(m, env), span)
    ctx.code.emit(roll_into, span, ("roll into", s.count, f" {die} dice → {pool}"))


def _rebind(s) -> str | None:
    """The name to bind again to the die as it is now: `reroll d in attack` keeps `d` current."""
    return s.dice.name if isinstance(s.dice, A.Name) and s.dice.name != "it" else None


def s_RerollStmt(self, s, ctx):
    dice, faces = self.cx(s.dice, ctx), _faces(self)
    pool, span, again = s.pool, s.span, _rebind(s)

    def reroll(m, fr):
        env = fr.env
        env[pool], now = D.reroll(m, env.get(pool), dice(m, env), faces, span)
        if again is not None and again in env:
            env[again] = now
    ctx.code.emit(reroll, span, ("reroll", s.dice, f" in {pool}"))


def s_TurnDieStmt(self, s, ctx):
    dice, faces = self.cx(s.dice, ctx), _faces(self)
    pool, span, again, face = s.pool, s.span, _rebind(s), list(s.face)

    def turn(m, fr):
        env = fr.env
        env[pool], now = D.turn(m, env.get(pool), dice(m, env), face, faces, span)
        if again is not None and again in env:
            env[again] = now
    ctx.code.emit(turn, span, ("turn", s.dice, f" in {pool} to [{', '.join(s.face)}]"))


def s_RemoveDiceStmt(self, s, ctx):
    dice = self.cx(s.dice, ctx)
    pool, span = s.pool, s.span

    def remove(m, fr):
        env = fr.env
        env[pool] = D.remove(m, env.get(pool), dice(m, env), span)
    ctx.code.emit(remove, span, ("remove", s.dice, f" from {pool}"))


def _wants(self, s, ctx):
    """fn(m, env) -> [(seat, amount)] of a `give out`: each player in turn from `starting with`,
    the amount worked out for that player (the `each` name is theirs, in the amount only)."""
    each = s.each if s.each is not None and s.each not in ctx.sc.locals else None
    start = self.cx(s.start, ctx)
    if each is not None:
        ctx.sc.locals[each] = "player"
    amount = self.cx(s.amount, ctx)
    if each is not None:
        ctx.sc.locals.pop(each, None)

    def wants(m, env):
        out = []
        for p in _from(m, start(m, env)):
            if each is not None:
                env[each] = p
            out.append((p, amount(m, env)))
        return out
    return wants


def s_HandOutStmt(self, s, ctx):
    wants = _wants(self, s, ctx)
    attr, supply, span = s.attr, s.supply, s.span
    fd = self.d.player_fields.get(attr)
    hi = fd.at_most if fd is not None else None

    def hand_out(m, fr):
        D.hand_out(m, wants(m, fr.env), attr, hi, supply, span)
    ctx.code.emit(hand_out, span, ("give out", s.amount, f" {attr} from {supply}"))


def s_HandOutCardsStmt(self, s, ctx):
    source = self.cx(s.source, ctx)
    wants = _wants(self, s, ctx)
    keys, span, face = self.p.zone_keys[s.zone], s.span, s.face

    def hand_out_cards(m, fr):
        env = fr.env
        given = wants(m, env)           # the amounts first, then the pile, as they are written
        return D.hand_out_cards(m, source(m, env), given, keys, face, span)
    ctx.code.emit(hand_out_cards, span, ("give out", s.amount, " cards from ", s.source, f" to each player's {s.zone}"
                                                                                          + (f" face {face}" if face else "")))


def _from(m, first) -> list:
    """The players still in the game in seat order, from `first` (from the active player when
    `first` is none or out)."""
    seats = m.seat_order()
    if first in seats:
        k = seats.index(first)
        seats = seats[k:] + seats[:k]
    return seats
