"""Closures of the combination searches of issue 18: `the groups of k from C`, `the subsets of C`
and `the best arrangement of C into groups where <test> by <score>` (docs/language.md,
"Combinations").

Each `x_<Node>` here is a method of `ExprCompiler` (interpreter/compile_expr.py binds them
there, so the registry finds them as `ExprCompiler.x_<Node>`): `self` is the compiler, and each
returns a closure `fn(m, env)`. None is on a hot path: the generated code calls these closures
(interpreter/gen_expr.py's fallback).

Bounded and deterministic: every search says beforehand how many groups it will examine and
stops with the located error E0820 when that is more than MAX_COMBINATIONS (dsl/bounds.py),
before it builds anything; the arrangement search also counts the groups it tries while it
searches. Groups keep the collection's order; they come in the order of their positions
(lexicographic), the smaller groups first for subsets. Nothing here iterates over a set or a
dict whose order depends on hashing.
"""
from __future__ import annotations

from itertools import combinations
from math import comb

from cardsmith.dsl.bounds import MAX_COMBINATIONS

from .errors import RuleError, charge

_MISSING = object()


def _too_many(what: str, count: int, span, hint: str) -> RuleError:
    return RuleError(f"{what} would examine {count:,} groups, more than {MAX_COMBINATIONS:,} "
                     "(the bound MAX_COMBINATIONS)", span, hint, code="E0820")


def groups_of(xs: list, k: int, span) -> list[list]:
    """Every group of `k` of `xs`, by positions in lexicographic order (`[a, b], [a, c], [b, c]`)."""
    n = len(xs)
    if k < 0 or k > n:
        return []
    count = comb(n, k)
    if count > MAX_COMBINATIONS:
        raise _too_many(f"'the groups of {k} from' {n} elements", count, span,
                        "group fewer elements: filter the collection first, e.g. the groups of 3 "
                        "from (cards in your hand where ...)")
    return [[xs[i] for i in idx] for idx in combinations(range(n), k)]


def subset_positions(n: int, span, what: str) -> list[tuple[int, ...]]:
    """The positions of every non-empty subset of n elements: the smaller first, then in
    lexicographic order; E0820 past MAX_COMBINATIONS."""
    count = 2 ** n - 1 if n < 64 else MAX_COMBINATIONS + 1
    if count > MAX_COMBINATIONS:
        raise _too_many(f"{what} {n} elements", count, span,
                        f"a search over every group of n elements examines 2^n - 1 of them: give it at most "
                        f"{MAX_COMBINATIONS.bit_length() - 1} elements (filter the collection first), or "
                        "use 'the groups of k from' for groups of one size")
    return [idx for k in range(1, n + 1) for idx in combinations(range(n), k)]


def x_GroupsOf(self, e, sc):
    size, coll, span = self.compile(e.size, sc), self.collection(e.coll, sc), e.span

    def groups(m, env):
        k = size(m, env)
        if k is None:
            raise RuleError("'the groups of ... from' met 'none' where it needs a number", e.size.span,
                            "give the size of a group, e.g. the groups of 3 cards from ...")
        xs = coll(m, env)
        out = groups_of(xs, k, span)
        charge(m, len(out) * max(k, 1), span)
        return out
    return groups


def x_SubsetsOf(self, e, sc):
    coll, span = self.collection(e.coll, sc), e.span

    def subsets(m, env):
        xs = coll(m, env)
        positions = subset_positions(len(xs), span, "'the subsets of'")
        charge(m, sum(map(len, positions)), span)
        return [[xs[i] for i in idx] for idx in positions]
    return subsets


def x_BestArrangement(self, e, sc):
    from cardsmith.dsl.types import ANY, elem, list_of
    t = self.type_of(e.coll, sc)
    inner = sc.child(it_type=list_of(elem(t)) if t != ANY else ANY)
    coll, span = self.collection(e.coll, sc), e.span
    test, score = self.compile(e.cond, inner), self.compile(e.score, inner)
    score_span = e.score.span

    def arrangement(m, env):
        xs = coll(m, env)
        positions = subset_positions(len(xs), span, "'the best arrangement of'")
        charge(m, len(positions), span)
        # the groups that pass the test, each with its score: (bits, score, positions)
        saved = env.get("$it", _MISSING)
        firsts: dict[int, list] = {}        # lowest position -> the candidate groups that start there
        try:
            for idx in positions:
                group = [xs[i] for i in idx]
                env["$it"] = group
                if test(m, env):
                    s = score(m, env)
                    if s is None or s.__class__ is not int:
                        raise RuleError("the score of a group must be a number, but it is "
                                        f"{'none' if s is None else repr(s)}", score_span,
                                        "score every group that passes the test, e.g. by sum(value of it)")
                    bits = 0
                    for i in idx:
                        bits |= 1 << i
                    firsts.setdefault(idx[0], []).append((bits, s, idx))
        finally:
            if saved is _MISSING:
                env.pop("$it", None)
            else:
                env["$it"] = saved
        plan = _best_plan(len(xs), firsts, span, m)
        return [[xs[i] for i in idx] for idx in plan]
    return arrangement


def _best_plan(n: int, firsts: dict, span, m) -> list[tuple]:
    """The disjoint candidate groups with the highest total score, as their positions in order.
    best(rest) over the positions not yet decided: the lowest one either starts a candidate
    group that fits in `rest` (tried in the order the candidates were found) or is left out
    (tried last); a tie keeps the first met. Memoised on `rest`; every candidate tried counts
    toward MAX_COMBINATIONS."""
    memo: dict[int, tuple] = {0: (0, None, 0)}    # rest -> (total, chosen group or None, rest after)
    tried = 0
    full = (1 << n) - 1
    stack = [full]
    while stack:                                   # depth-first without recursion (n may be 16)
        rest = stack[-1]
        if rest in memo:
            stack.pop()
            continue
        low = (rest & -rest).bit_length() - 1
        options = [(bits, s, idx) for bits, s, idx in firsts.get(low, ()) if bits & rest == bits]
        nexts = [rest & ~bits for bits, _, _ in options] + [rest & ~(1 << low)]
        missing = [r for r in nexts if r not in memo]
        if missing:
            stack.extend(missing)
            continue
        stack.pop()
        tried += len(options) + 1
        if tried > MAX_COMBINATIONS:
            raise _too_many("'the best arrangement of'", tried, span,
                            "make fewer groups pass the test, or arrange fewer elements")
        best = None
        for (bits, s, idx), after in zip(options, nexts):
            total = s + memo[after][0]
            if best is None or total > best[0]:
                best = (total, idx, after)
        skip = memo[nexts[-1]]
        if best is None or skip[0] > best[0]:
            best = (skip[0], None, nexts[-1])
        memo[rest] = best
    charge(m, tried, span)
    plan, rest = [], full
    while rest:
        _, idx, after = memo[rest]
        if idx is not None:
            plan.append(idx)
        rest = after
    return plan
