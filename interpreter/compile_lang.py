"""Closures of the expressions designers asked for in issue 10 (face up/down, keywords,
`if … then … else …`, joining and indexing lists, random picks, `sorted by`, the current step,
seat arithmetic, `mod`).

Each `x_<Node>` here is a method of `ExprCompiler` (interpreter/compile_expr.py binds them
there, so the registry finds them as `ExprCompiler.x_<Node>`): `self` is the compiler, and each
returns a closure `fn(m, env)` as the other compile handlers do. Kept apart only to keep that
file about the core expressions. Random picks draw from the one generator of the game
(interpreter/rng.py, state `m.st.rng`), so a game stays the same for the same seed.
"""
from __future__ import annotations

from cardsmith.dsl import ast as A
from cardsmith.dsl.bounds import MAX_COLLECTION
from cardsmith.dsl.types import ANY, CARD, is_list

from . import rng as R
from .errors import RuleError, charge
from .reads import _nodes
from .visibility import card_seers

def _none_number(span, what: str = "arithmetic") -> RuleError:
    return RuleError(f"{what} met 'none' where it needs a number", span)


# ---------------------------------------------------------------------- cards
def x_IsFace(self, e, sc):
    a, up = self.compile(e.operand, sc), e.up
    # a card that is not there (none) is neither face up nor face down
    return lambda m, env: (c := a(m, env)) is not None and m.st.face_up[c] == up


def x_HasSeen(self, e, sc):
    """`p has seen c` / `c is known to p`: p may see the card's face where it lies, or knows it
    from having seen it (the memory `remember seen cards` keeps: interpreter/visibility.py)."""
    p, c = self.compile(e.player, sc), self.compile(e.card, sc)

    def has_seen(m, env):
        card = c(m, env)
        return card is not None and p(m, env) in card_seers(m, card)
    return has_seen


def keyword_cards(compiler) -> dict[str, frozenset]:
    """keyword name -> the ids of the cards that carry it (their card type's or their own):
    fixed for a game, so `has keyword` is one set lookup (the program's `keyword_holders`).
    Which card ids these are depends on the cards dealt: the program notes that its code read
    them (`Program.holders_read`), so a prefix built with them is shared only with a deal
    that has the same (interpreter/program.py, `Program._prefix_key`)."""
    program = compiler.p
    program.holders_read = True
    return program.keyword_holders


def holders_of(program) -> dict[str, frozenset]:
    """`Program.keyword_holders`: keyword name -> the ids of the cards that carry it."""
    d = program.game.decls
    own = {cd.span: cd.keywords for cd in d.cards}          # a single card's own keywords
    own.update({row.span: row.keywords for t in d.tables for row in t.rows if row.keywords})   # a row's
    out: dict[str, set] = {name: set() for name in d.keywords}
    for card in program.game.cards:
        ct = d.card_types.get(card.type_name)
        uses = (ct.keywords if ct is not None else ()) + own.get(card.span, ())
        for use in uses:
            if use.name in out:
                out[use.name].add(card.id)
    return {k: frozenset(v) for k, v in out.items()}


def x_HasKeyword(self, e, sc):
    a, neg = self.compile(e.operand, sc), e.negated
    if self.p.dealt:
        # a dealt game's code may be shared with other deals of the same rules (Program's
        # prefix): the holders are this deal's, read from the machine's program as it runs
        kw = e.keyword
        return lambda m, env: (c := a(m, env)) is not None and (c in m.prog.keyword_holders[kw]) is not neg
    holders = keyword_cards(self).get(e.keyword, frozenset())
    return lambda m, env: (c := a(m, env)) is not None and (c in holders) is not neg


# ---------------------------------------------------------------------- values
def x_CondExpr(self, e, sc):
    cond, a, b = self.compile(e.cond, sc), self.compile(e.then, sc), self.compile(e.other, sc)
    return lambda m, env: a(m, env) if cond(m, env) else b(m, env)


def x_ItemOf(self, e, sc):
    k, coll, span = self.compile(e.index, sc), self.collection(e.coll, sc), e.index.span

    def item(m, env):
        i = k(m, env)
        if i is None:
            raise RuleError("'item ... of' met 'none' where it needs a number", span)
        xs = coll(m, env)
        return xs[i - 1] if 1 <= i <= len(xs) else None     # counted from 1; none past the end
    return item


def b_last(self, e, sc, a):
    """The built-in `last(C)`: the last element, none for an empty collection (as `first`)."""
    def last(m, env):
        xs = a(m, env)
        return xs[-1] if xs else None
    return last


def mod_values(x, y, span):
    """`x mod y` of two computed values (the closure and the generated code both call it)."""
    if x is None or y is None:
        raise _none_number(span)
    if y == 0:
        raise RuleError("division by zero", span,
                        "test the divisor first, e.g. if d > 0: ... (x mod 0 has no value)")
    return x % y            # Python's: 0 up to y - 1 for a positive y, whatever the sign of x


def x_Modulo(self, e, sc):
    a, b, span = self.compile(e.left, sc), self.compile(e.right, sc), e.span
    return lambda m, env: mod_values(a(m, env), b(m, env), span)


def join(self, e, sc):
    """`a + b` on lists (typed by the checker as a list): a new list, a's items then b's."""
    a, b, span = self.collection(e.left, sc), self.compile(e.right, sc), e.span

    def joined(m, env):
        xs, ys = a(m, env), b(m, env)
        if ys is None:
            from .compile_expr import no_collection
            raise no_collection(e.right.span)
        if len(xs) + len(ys) > MAX_COLLECTION:
            from .compile_expr import too_many
            raise too_many(span)
        return xs + ys
    return joined


# ---------------------------------------------------------------------- random picks
def _log_pick(m, span, what: str, where: str, value, t) -> None:
    """Logs what was picked: a card by name only for who may see it (interpreter/visibility.py)."""
    log = m.log
    if t == CARD:
        log.emit(m, "random", span, {"picked": m.card_label(value), "from": where},
                 [f"{what} from {where} is picked at random: ", log.card(m, value)])
    else:
        shown = log.typed(m, value, t)
        log.emit(m, "random", span, {"picked": shown, "from": where},
                 f"{what} from {where} is picked at random: {shown if not isinstance(shown, list) else value}")


def x_RandomPick(self, e, sc):
    coll, span = self.collection(e.coll, sc), e.span
    t = self.type_of(e, sc)
    noun = e.noun
    from cardsmith.interpreter.explain import written
    where = written(e.coll)

    def pick(m, env):
        xs = coll(m, env)
        if not xs:
            return None         # nothing to pick from: none, as first() of an empty list
        m.st.rng, i = R.below(m.st.rng, len(xs))
        if m.log.on:
            _log_pick(m, span, f"a {noun}", where, xs[i], t)
        return xs[i]
    return pick


def x_RandomNumber(self, e, sc):
    lo, hi, span = self.compile(e.low, sc), self.compile(e.high, sc), e.span

    def number(m, env):
        a, b = lo(m, env), hi(m, env)
        if a is None or b is None:
            raise _none_number(span, "'random number from ... to ...'")
        if b < a:
            raise RuleError(f"'random number from {a} to {b}': the second number is smaller than the first", span,
                            "write the smaller number first, e.g. random number from 1 to 6")
        if b - a >= 1 << 62:        # numbers are within MAX_RUNTIME_NUMBER; the generator draws below 2**64
            from .compile_expr import too_large
            raise too_large(b - a, span)
        m.st.rng, k = R.below(m.st.rng, b - a + 1)
        if m.log.on:
            _log_pick(m, span, "a number", f"{a} to {b}", a + k, "number")
        return a + k
    return number


# ---------------------------------------------------------------------- sorted by
def _sort_value(v):
    """A key that sorts numbers and texts, with none after every value in either direction."""
    return (1, 0) if v is None else (0, v)


def x_SortedExpr(self, e, sc):
    t = self.type_of(e.coll, sc)
    coll, span = self.collection(e.coll, sc), e.span
    inner = sc.child(it_type=t[1] if is_list(t) else ANY)
    keys = [(self.compile(k.expr, inner), k.highest_first, k.expr.span) for k in e.keys]

    def sort(m, env):
        xs = coll(m, env)
        charge(m, len(xs) * len(keys), span)
        saved = env.get("$it", _MISSING)
        rows = []
        try:
            for x in xs:
                env["$it"] = x
                row = []
                for fn, _high, kspan in keys:
                    v = fn(m, env)
                    if v is not None and v.__class__ not in (int, str):
                        raise RuleError("a sort key must be a number or a text", kspan)
                    row.append(v)
                rows.append((row, x))
        finally:
            if saved is _MISSING:
                env.pop("$it", None)
            else:
                env["$it"] = saved
        # stable sorts from the last key to the first: equal keys keep the collection's order
        order = list(range(len(rows)))
        for j in range(len(keys) - 1, -1, -1):
            high = keys[j][1]
            present = [i for i in order if rows[i][0][j] is not None]
            absent = [i for i in order if rows[i][0][j] is None]
            try:        # reverse=True keeps equal keys in their order too (Python's sort is stable)
                present.sort(key=lambda i: rows[i][0][j], reverse=high)
            except TypeError:
                raise RuleError("a sort key is a number for some and a text for others", keys[j][2]) from None
            order = present + absent
        return [rows[i][1] for i in order]
    return sort


_MISSING = object()


# ---------------------------------------------------------------------- the flow
def flow_names(compiler) -> dict[str, frozenset]:
    """"step" / "phase" -> the names written after `step` / `phase` anywhere in the game."""
    d = compiler.p.game.decls
    cached = d.__dict__.get("_flow_names")     # the declarations' alone: kept on them (every deal shares it)
    if cached is not None:
        return cached
    found: dict[str, set] = {"step": set(), "phase": set()}
    roots = [d.setup, d.rounds, list(d.procedures.values()), d.end_checks, list(d.card_types.values()),
             d.cards, list(d.keywords.values()), d.scenarios]
    for node in _nodes(roots):
        if isinstance(node, A.StepStmt):
            found[node.kind].add(node.name)
    d.__dict__["_flow_names"] = frozen = {k: frozenset(v) for k, v in found.items()}
    return frozen


def x_CurrentStep(self, e, sc):
    names = flow_names(self)[e.kind]

    def current(m, env):
        for name in reversed(m.st.step_path):     # the innermost step (or phase) under way
            if name in names:
                return name
        return None
    return current


# ---------------------------------------------------------------------- seats
def x_SeatOf(self, e, sc):
    p = self.compile(e.player, sc)
    return lambda m, env: None if (q := p(m, env)) is None else q + 1


def x_SeatExpr(self, e, sc):
    k, span = self.compile(e.seat, sc), e.span

    def seat(m, env):
        n = k(m, env)
        if n is None:
            raise RuleError("'seat (...)' met 'none' where it needs a number", span)
        if not 1 <= n <= m.n_players:
            raise RuleError(f"there is no player {n} in a {m.n_players}-player game", span,
                            "keep the seat between 1 and count(all players), e.g. with mod")
        return n - 1
    return seat


def x_SeatsFrom(self, e, sc):
    k, p, span = self.compile(e.count, sc), self.compile(e.player, sc), e.span
    sign = 1 if e.side == "left" else -1

    def around(m, env):
        n, q = k(m, env), p(m, env)
        if n is None:
            raise _none_number(span, "'the player ... seats to the ...'")
        if q is None:
            return None
        return (q + sign * n) % m.n_players     # every seat counts, whoever is out
    return around


def is_join(self, e, sc) -> bool:
    """Whether the Arith `e` joins lists (the checker typed it as a list)."""
    return e.op == "+" and is_list(self.type_of(e, sc))


__all__ = ["x_IsFace", "x_HasSeen", "x_HasKeyword", "x_CondExpr", "x_ItemOf", "x_Modulo", "x_RandomPick", "x_RandomNumber",
           "x_SortedExpr", "b_last", "x_CurrentStep", "x_SeatOf", "x_SeatExpr", "x_SeatsFrom", "join", "is_join",
           "keyword_cards", "holders_of", "flow_names"]
