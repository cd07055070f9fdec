"""Closures of the expressions of issue 18's first rows: numbers as options (`numbers from a
to b`), positions (`the position of x in C`, `the card k from the top of Z`) and a default for
a value that may be none (`highest(bids) otherwise 0`).

Each `x_<Node>` here is a method of `ExprCompiler` (interpreter/compile_expr.py binds them
there, so the registry finds them as `ExprCompiler.x_<Node>`): `self` is the compiler, and each
returns a closure `fn(m, env)` as the other compile handlers do. None of them is on a hot path,
so the generated code calls these closures (interpreter/gen_expr.py's fallback).
"""
from __future__ import annotations

from cardsmith.dsl.bounds import MAX_NUMBER_RANGE
from cardsmith.dsl.types import ZONE

from .errors import RuleError, charge

# The hint of every "arithmetic met 'none'": the value that was none may well be none by the rules
NONE_NUMBER_HINT = ("a value here may be none (the highest of an empty list, the top card of an empty "
                    "zone, an attribute not set): give it a default, e.g. highest(bids) otherwise 0")


def x_NumberRange(self, e, sc):
    """`numbers from a to b`: [a, a + 1, ..., b]; empty when b < a (nothing to choose from)."""
    lo, hi, span = self.compile(e.low, sc), self.compile(e.high, sc), e.span

    def numbers(m, env):
        a, b = lo(m, env), hi(m, env)
        if a is None or b is None:
            raise RuleError("'numbers from ... to ...' met 'none' where it needs a number", span,
                            "give both ends a value, e.g. numbers from 0 to count(cards in your hand)")
        if b - a + 1 > MAX_NUMBER_RANGE:
            raise RuleError(f"'numbers from {a} to {b}' holds {b - a + 1:,} numbers, more than "
                            f"{MAX_NUMBER_RANGE:,} (the bound MAX_NUMBER_RANGE)", span,
                            "offer a smaller range, e.g. in steps: first the tens, then the units",
                            code="E0811")
        if b < a:
            return []
        charge(m, b - a + 1, span)
        return list(range(a, b + 1))
    return numbers


def x_PositionIn(self, e, sc):
    """`the position of x in C`: 1 for the first element (a zone's bottom card), none if absent."""
    item = self.compile(e.item, sc)
    span = e.span
    if self.type_of(e.coll, sc) == ZONE:
        coll = self.held(e.coll, sc)            # the zone's own list, not a copy
    else:
        coll = self.collection(e.coll, sc)

    def position(m, env):
        x, xs = item(m, env), coll(m, env)
        charge(m, len(xs), span)
        for i, y in enumerate(xs):
            if y == x and y.__class__ is x.__class__:   # yes is not 1: a flag is not a number
                return i + 1
        return None
    return position


def x_CardFrom(self, e, sc):
    """`the card k from the top of Z` (or the bottom): k = 1 is that end's card; none when
    the zone holds fewer than k cards or k is below 1."""
    k, cards, span = self.compile(e.index, sc), self.held(e.zone, sc), e.index.span
    top = e.place == "top"

    def card_from(m, env):
        i = k(m, env)
        if i is None:
            raise RuleError("'the card ... from the ... of' met 'none' where it needs a number", span,
                            "count from 1: the card 1 from the top is the top card")
        xs = cards(m, env)
        if not 1 <= i <= len(xs):
            return None
        return xs[-i] if top else xs[i - 1]
    return card_from


def x_Otherwise(self, e, sc):
    """`x otherwise d`: x, or d (worked out only then) when x is none."""
    a, b = self.compile(e.value, sc), self.compile(e.default, sc)

    def otherwise(m, env):
        x = a(m, env)
        return b(m, env) if x is None else x
    return otherwise


__all__ = ["x_NumberRange", "x_PositionIn", "x_CardFrom", "x_Otherwise"]
