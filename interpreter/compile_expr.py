"""Expressions → Python closures `fn(m, env) -> value`.

`m` is the running Machine (its state is plain data), `env` the frame's local names.
Runtime values: players and cards are ints (seat, card id), zones are keys like "deck:0"
or "box", enum members and texts are strings, flags bools, lists Python lists, `none` None.
Types come from dsl/types.py, so `x.faction` knows at compile time whether x is a card or a
player. Each `x_<Node>` method names the AST node (and so the grammar rule) it handles.
"""
from __future__ import annotations

from cardsmith.dsl import ast as A
from cardsmith.dsl.types import ANY, CARD, PLAYER, ZONE, Scope, Typer, is_list, list_of

from .errors import RuleError

_MISSING = object()


def _with_it(env, key, value, fn, m):
    saved = env.get(key, _MISSING)
    env[key] = value
    try:
        return fn(m, env)
    finally:
        if saved is _MISSING:
            del env[key]
        else:
            env[key] = saved


class ExprCompiler:
    def __init__(self, program):
        self.p = program
        self.d = program.game.decls
        self.typer = Typer(self.d, lambda *a: None)
        self._defines: dict = {}

    def type_of(self, e, sc: Scope):
        return self.typer.infer(e, sc)

    def compile(self, e, sc: Scope):
        return getattr(self, "x_" + type(e).__name__)(e, sc)

    # ------------------------------------------------------------------ literals and names
    def x_Num(self, e, sc):
        v = e.value
        return lambda m, env: v

    def x_Text(self, e, sc):
        v = e.value
        return lambda m, env: v

    def x_Bool(self, e, sc):
        v = e.value
        return lambda m, env: v

    def x_Nothing(self, e, sc):
        return lambda m, env: None

    def x_Name(self, e, sc):
        kind, _t = self.typer.resolve_name(e.name, sc)
        n = e.name
        if kind in ("local", "param"):
            return lambda m, env: env[n]
        if kind == "it":
            return lambda m, env: env["$it"]
        if kind == "it_field":
            return lambda m, env: m.cards[env["$it"]].get(n)
        if kind == "this_field":
            return lambda m, env: m.cards[env["$this"]].get(n)
        if kind == "game_attr":
            return lambda m, env: m.st.game[n]
        if kind == "zone":
            return lambda m, env: n
        if kind == "member":
            return lambda m, env: n
        if kind == "enum":
            members = list(self.d.enums[n].members)
            return lambda m, env: list(members)
        raise RuleError(f"unknown name '{n}'", e.span)

    # ------------------------------------------------------------------ calls
    def x_Call(self, e, sc):
        args = [self.compile(a, sc) for a in e.args]
        name = e.name
        if name == "count":
            a = args[0]
            return lambda m, env: len(a(m, env))
        if name == "sum":
            a = args[0]
            return lambda m, env: sum(x for x in a(m, env) if x is not None)
        if name in ("highest", "lowest"):
            a, f = args[0], (max if name == "highest" else min)

            def agg(m, env):
                xs = [x for x in a(m, env) if x is not None]
                return f(xs) if xs else None
            return agg
        if name == "first":
            a = args[0]

            def first(m, env):
                xs = a(m, env)
                return xs[0] if xs else None
            return first
        if name == "any":
            # yes when some element is there and is not `no`/none: works for lists of flags
            # (`any(x > 0 for each x in C)`) and for lists of cards or players alike
            a = args[0]
            return lambda m, env: any(x is not None and x is not False for x in a(m, env))
        return self._define_call(e, sc, args)

    def _define_call(self, e, sc, args):
        d = self.d.defines[e.name]
        types = tuple(self.type_of(a, sc) for a in e.args)
        key = (e.name, types)
        body = self._defines.get(key)
        if body is None:
            cell: list = []
            self._defines[key] = lambda m, env: cell[0](m, env)   # recursion resolves at run time
            inner = Scope(dict(zip(d.params, types)))
            cell.append(self.compile(d.expr, inner))
            body = self._defines[key] = cell[0]
        params = d.params
        if len(params) == 1:
            p0, a0 = params[0], args[0]
            return lambda m, env: body(m, {p0: a0(m, env), "$you": env.get("$you")})
        pairs = list(zip(params, args))

        def call(m, env):
            inner = {p: a(m, env) for p, a in pairs}
            inner["$you"] = env.get("$you")
            return body(m, inner)
        return call

    # ------------------------------------------------------------------ fields and zones
    def _field(self, obj_fn, obj_t, name):
        if obj_t == PLAYER:
            return lambda m, env: m.players[obj_fn(m, env)][name]
        return self._card_field(obj_fn, name)

    @staticmethod
    def _card_field(obj_fn, name):
        def get(m, env):
            c = obj_fn(m, env)
            return None if c is None else m.cards[c].get(name)
        return get

    def x_FieldAccess(self, e, sc):
        t = self.type_of(e.obj, sc)
        return self._field(self.compile(e.obj, sc), t, e.name)

    def _possessive(self, owner_fn, owner_t, name, span):
        if owner_t == PLAYER:
            zd = self.d.zones.get(name)
            if zd is not None:
                keys = self.p.zone_keys[name]
                return lambda m, env: keys[owner_fn(m, env)]
            return lambda m, env: m.players[owner_fn(m, env)][name]
        return self._card_field(owner_fn, name)

    def x_Possessive(self, e, sc):
        return self._possessive(self.compile(e.owner, sc), self.type_of(e.owner, sc), e.name, e.span)

    def x_Your(self, e, sc):
        return self._possessive(lambda m, env: env["$you"], PLAYER, e.name, e.span)

    def x_FieldOf(self, e, sc):
        t = self.type_of(e.obj, sc)
        obj = self.compile(e.obj, sc)
        if is_list(t):
            one = self._possessive(lambda m, env: env["$of"], t[1], e.name, e.span)

            def each(m, env):
                out = []
                for x in obj(m, env):
                    out.append(_with_it(env, "$of", x, one, m))
                return out
            return each
        return self._possessive(obj, t, e.name, e.span)

    def x_CardsIn(self, e, sc):
        z = self.compile(e.zone, sc)

        def cards_in(m, env):
            key = z(m, env)
            if isinstance(key, list):
                out = []
                for k in key:
                    out.extend(m.zones[k])
                return out
            return list(m.zones[key])
        return cards_in

    def x_EveryZone(self, e, sc):
        keys = list(self.p.zone_keys[e.name])
        return lambda m, env: keys[: m.n_players]

    def x_TopCard(self, e, sc):
        z = self.compile(e.zone, sc)
        idx = -1 if e.place == "top" else 0

        def top(m, env):
            cards = m.zones[z(m, env)]
            return cards[idx] if cards else None
        return top

    def x_TopCards(self, e, sc):
        z, n = self.compile(e.zone, sc), self.compile(e.count, sc)
        top = e.place == "top"

        def tops(m, env):
            cards, k = m.zones[z(m, env)], max(0, n(m, env) or 0)
            if top:
                return cards[::-1][:k]
            return cards[:k]
        return tops

    # ------------------------------------------------------------------ players and context
    def x_ActivePlayer(self, e, sc):
        return lambda m, env: m.st.active

    def x_This(self, e, sc):
        return lambda m, env: env["$this"]

    def x_SeatPlayer(self, e, sc):
        seat, span = e.seat - 1, e.span

        def seat_player(m, env):
            if not 0 <= seat < m.n_players:
                raise RuleError(f"there is no player {seat + 1} in a {m.n_players}-player game", span)
            return seat
        return seat_player

    def x_You(self, e, sc):
        return lambda m, env: env["$you"]

    def x_PlayersExpr(self, e, sc):
        return lambda m, env: [p for p, gone in enumerate(m.st.out) if not gone]

    def x_WinnersExpr(self, e, sc):
        return lambda m, env: list(m.st.result["winners"]) if m.st.result else []

    def x_AllPlayers(self, e, sc):
        return lambda m, env: list(range(m.n_players))

    def x_Opponents(self, e, sc):
        return lambda m, env: [p for p, gone in enumerate(m.st.out) if not gone and p != env["$you"]]

    def x_ListExpr(self, e, sc):
        items = [self.compile(i, sc) for i in e.items]
        return lambda m, env: [i(m, env) for i in items]

    # ------------------------------------------------------------------ collections
    def x_WhereExpr(self, e, sc):
        t = self.type_of(e.coll, sc)
        coll = self.compile(e.coll, sc)
        cond = self.compile(e.cond, sc.child(it_type=t[1] if is_list(t) else ANY))

        def where(m, env):
            saved = env.get("$it", _MISSING)
            out = []
            for x in coll(m, env):
                env["$it"] = x
                if cond(m, env):
                    out.append(x)
            if saved is _MISSING:
                env.pop("$it", None)
            else:
                env["$it"] = saved
            return out
        return where

    def x_ExprMap(self, e, sc):
        t = self.type_of(e.coll, sc)
        coll = self.compile(e.coll, sc)
        inner = sc.child()
        inner.locals[e.name] = t[1] if is_list(t) else ANY
        fn = self.compile(e.expr, inner)
        cond = self.compile(e.cond, inner) if e.cond is not None else None
        name = e.name

        def mapped(m, env):
            saved = env.get(name, _MISSING)
            out = []
            for x in coll(m, env):
                env[name] = x
                if cond is None or cond(m, env):
                    out.append(fn(m, env))
            if saved is _MISSING:
                env.pop(name, None)
            else:
                env[name] = saved
            return out
        return mapped

    # ------------------------------------------------------------------ logic and arithmetic
    def x_OrChain(self, e, sc):
        items = [self.compile(i, sc) for i in e.items]
        return lambda m, env: any(i(m, env) for i in items)

    def x_AndChain(self, e, sc):
        items = [self.compile(i, sc) for i in e.items]
        if len(items) == 2:
            a, b = items
            return lambda m, env: bool(a(m, env) and b(m, env))
        return lambda m, env: all(i(m, env) for i in items)

    def x_NotOp(self, e, sc):
        a = self.compile(e.operand, sc)
        return lambda m, env: not a(m, env)

    def x_Compare(self, e, sc):
        a, b = self.compile(e.left, sc), self.compile(e.right, sc)
        op = e.op
        if op == "=":
            return lambda m, env: a(m, env) == b(m, env)
        if op == "!=":
            return lambda m, env: a(m, env) != b(m, env)
        span = e.span

        def num(v):
            if v is None:
                raise RuleError("a comparison met 'none' where it needs a number", span)
            return v
        if op == "<":
            return lambda m, env: num(a(m, env)) < num(b(m, env))
        if op == "<=":
            return lambda m, env: num(a(m, env)) <= num(b(m, env))
        if op == ">":
            return lambda m, env: num(a(m, env)) > num(b(m, env))
        return lambda m, env: num(a(m, env)) >= num(b(m, env))

    def x_IsEmpty(self, e, sc):
        t = self.type_of(e.operand, sc)
        a = self.compile(e.operand, sc)
        neg = e.negated
        if t == ZONE:
            return lambda m, env: bool(m.zones[a(m, env)]) == neg
        return lambda m, env: bool(a(m, env)) == neg

    def x_IsIn(self, e, sc):
        t = self.type_of(e.coll, sc)
        item, coll = self.compile(e.item, sc), self.compile(e.coll, sc)
        neg = e.negated
        if t == ZONE:
            return lambda m, env: (item(m, env) in m.zones[coll(m, env)]) != neg
        return lambda m, env: (item(m, env) in coll(m, env)) != neg

    def x_IsA(self, e, sc):
        a = self.compile(e.operand, sc)
        name = e.type_name
        return lambda m, env: (c := a(m, env)) is not None and m.card_types[c] == name

    def x_Arith(self, e, sc):
        a, b = self.compile(e.left, sc), self.compile(e.right, sc)
        span = e.span
        op = e.op

        def none_error():
            return RuleError("arithmetic met 'none' where it needs a number", span)
        if op == "+":
            def add(m, env):
                x, y = a(m, env), b(m, env)
                if x is None or y is None:
                    raise none_error()
                return x + y
            return add
        if op == "-":
            def sub(m, env):
                x, y = a(m, env), b(m, env)
                if x is None or y is None:
                    raise none_error()
                return x - y
            return sub
        if op == "*":
            def mul(m, env):
                x, y = a(m, env), b(m, env)
                if x is None or y is None:
                    raise none_error()
                return x * y
            return mul

        def div(m, env):
            x, y = a(m, env), b(m, env)
            if x is None or y is None:
                raise none_error()
            if y == 0:
                raise RuleError("division by zero", span)
            return x // y
        return div

    def x_Neg(self, e, sc):
        a = self.compile(e.operand, sc)
        return lambda m, env: -a(m, env)


def zone_keys(decls, max_players: int) -> dict[str, list[str]]:
    """Runtime keys of every zone: per-player zones `name:seat`, shared ones their name."""
    keys: dict[str, list[str]] = {}
    for name, zd in decls.zones.items():
        keys[name] = [f"{name}:{p}" for p in range(max_players)] if zd.per_player else [name]
    return keys


__all__ = ["ExprCompiler", "zone_keys", "CARD", "list_of"]
