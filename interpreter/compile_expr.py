"""Expressions → Python closures `fn(m, env) -> value`.

`m` is the running Machine (its state is plain data), `env` the frame's local names.
Runtime values: players and cards are ints (seat, card id), zones are keys like "deck:0"
or "box", enum members and texts are strings, flags bools, lists Python lists, `none` None.
Types are the checker's (`Declarations.typing`, recorded per rule instance by the body checks),
so `x.faction` knows at compile time whether x is a card or a player; nothing here infers one. Each `x_<Node>` method names the AST node (and so the grammar rule) it handles.
"""
from __future__ import annotations

import operator

from cardsmith.dsl import ast as A
from cardsmith.dsl.bounds import MAX_COLLECTION, MAX_RUNTIME_NUMBER
from cardsmith.dsl.registry import BUILTIN_FUNCTIONS, EXPRESSION, dispatch
from cardsmith.dsl.types import ANY, CARD, PLAYER, ZONE, Scope, is_list, list_of

from . import compile_lang as _lang
from . import compile_positions as _positions
from . import compile_combos as _combos
from . import compile_boards as _boards
from . import parts as _parts
from . import entities as _entities
from .errors import RuleError, charge

_MISSING = object()
_BIG = MAX_RUNTIME_NUMBER


def too_large(number, span) -> RuleError:
    """A number computed while playing past MAX_RUNTIME_NUMBER: without the bound, `let x be
    x * x` in a loop would build integers of millions of digits and hang the machine."""
    from .machine import too_large as error      # one message for the machine and the compiler
    return error(number, span)


def too_many(span) -> RuleError:
    return RuleError(f"a list computed while playing holds more than {MAX_COLLECTION:,} items "
                     "(the bound MAX_COLLECTION)", span,
                     "a rule builds a list of lists, or a long list of copies: build a smaller one",
                     code="E0807")


def _items(value) -> int:
    """How many items a value holds, counting into lists of lists (a card or a number is one)."""
    if value.__class__ is not list:
        return 1
    total = len(value)
    for x in value:
        if x.__class__ is list:
            total += _items(x) - 1
    return total


def _may_hold_lists(t) -> bool:
    """Whether values of static type `t` may be lists (whose items then count too)."""
    return is_list(t) or t == ANY


def no_zone(span) -> RuleError:
    """A zone that is none (a zone of a player who is none, a zone attribute not set) was to be
    looked into, shuffled or moved to: the game stops here, as arithmetic on none does."""
    return RuleError("there is no zone here: this is none", span,
                     "a zone of a player who is none, or a zone attribute never set; "
                     "check it first: if ... is not none:")


def cards_of_zones(m, key, span) -> list:
    """`cards in <zones>`: the cards of the zone `key`, or of each zone of a list of keys in turn
    (a new list: an expression may keep it while cards move). Generated code calls it too (gen_expr)."""
    if key is None:
        raise no_zone(span)
    if isinstance(key, list):
        out = []
        for k in key:
            out.extend(m.zones[k])
        return out
    return list(m.zones[key])


def no_seat(m, seat: int, span) -> RuleError:
    """`seat 3` in a game of fewer players (the closure and the generated code both raise it)."""
    return RuleError(f"there is no player {seat + 1} in a {m.n_players}-player game", span)


def no_collection(span) -> RuleError:
    return RuleError("there is no collection here: this is none", span,
                     "a list attribute never set, or first/highest of an empty collection; "
                     "check it first: if ... is not none:")


# Expressions whose value is always a list (never none): their readers need no check
_ALWAYS_LISTS = (A.CardsIn, A.WhereExpr, A.ExprMap, A.PlayersExpr, A.AllPlayers, A.WinnersExpr,
                 A.StackExpr, A.Opponents, A.ListExpr, A.EveryZone, A.TopCards)


# Built-in functions whose value is always a list (clockwise_from)
_LIST_BUILTINS = frozenset(b.name for b in BUILTIN_FUNCTIONS.values() if b.always_list)


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
        self.typing = self.d.typing     # the checker's types and names: read here, never inferred again
        self._defines: dict = {}

    def type_of(self, e, sc: Scope):
        """The type the checker recorded for `e` in the rule instance `sc` compiles."""
        return self.typing.type_of(e, sc.instance)

    def kind_of(self, e: A.Name, sc: Scope):
        """What the bare name `e` resolves to there (a local, a parameter, a field, a zone, ...)."""
        return self.typing.kind_of(e, sc.instance)

    def compile(self, e, sc: Scope):
        return _COMPILE[type(e)](self, e, sc)

    def collection(self, e, sc: Scope):
        """fn(m, env) -> the list `e` is; a value that turns out to be none (a list attribute
        never set, `first` of a list of lists that is empty) stops the game with E0802."""
        fn = self.compile(e, sc)
        if isinstance(e, _ALWAYS_LISTS) or (isinstance(e, A.Call) and e.name in _LIST_BUILTINS):
            return fn
        span = e.span

        def checked(m, env):
            xs = fn(m, env)
            if xs is None:
                raise no_collection(span)
            return xs
        return checked

    # Most operands are a local name or a literal. Parents read those straight from env or
    # as a constant instead of calling a closure for them: a call is most of an op's cost.
    def env_key(self, e, sc: Scope):
        """The env key `e` reads when it is a local, a parameter, `it`, `this` or `you`; else None."""
        if isinstance(e, A.Name):
            kind = self.kind_of(e, sc)
            return e.name if kind in ("local", "param") else "$it" if kind == "it" else None
        if isinstance(e, A.This):
            return "$this"
        if isinstance(e, A.You):
            return "$you"
        return None

    def constant(self, e, sc: Scope) -> tuple:
        """(value,) when `e` is a literal or an enum member, else ()."""
        if isinstance(e, (A.Num, A.Text, A.Bool)):
            return (e.value,)
        if isinstance(e, A.Nothing):
            return (None,)
        if isinstance(e, A.Name) and self.kind_of(e, sc) in ("member", "zone"):
            return (e.name,)
        return ()

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
        kind = self.kind_of(e, sc)
        n = e.name
        if kind in ("local", "param"):
            return lambda m, env: env[n]
        if kind == "it":
            return lambda m, env: env["$it"]
        if kind in ("it_field", "this_field") and n in self.p.part_labels:     # `belts`: the card's parts
            return self._possessive(None, CARD, n, "$it" if kind == "it_field" else "$this")
        if kind == "it_field":
            return self._card_field(None, n, "$it")
        if kind == "this_field":
            return self._card_field(None, n, "$this")
        if kind == "game_attr":
            if n in self.p.modified_game_attrs:     # `modify <game attribute> by ...`
                return lambda m, env: m.modified_game(n)
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
        b = BUILTIN_FUNCTIONS.get(e.name)
        if b is not None and len(e.args) == b.arity:
            arg = self.collection(e.args[0], sc) if b.on_collection else self.compile(e.args[0], sc)
            return getattr(self, b.compile)(e, sc, arg)
        return self._define_call(e, sc, [self.compile(a, sc) for a in e.args])

    # The built-in functions, one method each, named by their entries in dsl/registry.py
    # (BUILTIN_FUNCTIONS); `a` is the compiled argument (a collection is never none).
    def b_count(self, e, sc, a):
        if isinstance(e.args[0], A.CardsIn):        # count the zone without copying it
            zone = e.args[0].zone
            local = self.local_zone(zone, sc)
            if local is not None:               # `count(cards in p's deck)`: one call
                keys, key = local
                span = zone.span

                def count_local(m, env):
                    p = env[key]
                    if p is None:
                        raise no_zone(span)
                    return len(m.zones[keys[p]])
                return count_local
            z = self.compile(zone, sc)
            span = zone.span

            def count_in(m, env):
                key = z(m, env)
                if key is None:
                    raise no_zone(span)
                if isinstance(key, list):
                    return sum(len(m.zones[k]) for k in key)
                return len(m.zones[key])
            return count_in
        return lambda m, env: len(a(m, env))

    def b_sum(self, e, sc, a):
        span = e.span

        def total(m, env):
            s = sum(x for x in a(m, env) if x is not None)
            if -_BIG <= s <= _BIG:
                return s
            raise too_large(s, span)
        return total

    def b_highest(self, e, sc, a):
        def highest(m, env):        # max() of the numbers, the first of equals; no list built
            best = None
            for x in a(m, env):
                if x is not None and (best is None or x > best):
                    best = x
            return best
        return highest

    def b_lowest(self, e, sc, a):
        def lowest(m, env):
            best = None
            for x in a(m, env):
                if x is not None and (best is None or x < best):
                    best = x
            return best
        return lowest

    def b_first(self, e, sc, a):
        def first(m, env):
            xs = a(m, env)
            return xs[0] if xs else None
        return first

    def b_any(self, e, sc, a):
        # yes when some element is there and is not `no`/none: works for lists of flags
        # (`any(x > 0 for each x in C)`) and for lists of cards or players alike
        return lambda m, env: any(x is not None and x is not False for x in a(m, env))

    def b_clockwise_from(self, e, sc, a):
        def clockwise(m, env):
            """Players still in the game in seat order, starting with p (seat 1 when p is none)."""
            p = a(m, env)
            start = p if p is not None else 0
            n = m.n_players
            return [(start + k) % n for k in range(n) if not m.st.out[(start + k) % n]]
        return clockwise

    def _define_call(self, e, sc, args):
        d = self.d.defines[e.name]
        types = tuple(self.type_of(a, sc) for a in e.args)
        key = (e.name, types)
        body = self._defines.get(key)
        if body is None:
            cell: list = []
            self._defines[key] = lambda m, env: cell[0](m, env)   # recursion resolves at run time
            inner = Scope(dict(zip(d.params, types)), instance=("define", e.name, types))
            cell.append(self.compile(d.expr, inner))
            body = self._defines[key] = cell[0]
        params = d.params
        if len(params) == 1:
            p0, a0, k0 = params[0], args[0], self.env_key(e.args[0], sc)
            if k0 is not None:
                return lambda m, env: body(m, {p0: env[k0], "$you": env.get("$you")})
            return lambda m, env: body(m, {p0: a0(m, env), "$you": env.get("$you")})
        pairs = list(zip(params, args))

        def call(m, env):
            inner = {p: a(m, env) for p, a in pairs}
            inner["$you"] = env.get("$you")
            return body(m, inner)
        return call

    # ------------------------------------------------------------------ fields and zones
    def _card_reader(self, name):
        """fn(m, card) for a field that is not simply stored: the engine's pseudo-fields, and
        fields that `modify` abilities change (computed from the current state at each read)."""
        if name == "zone":
            return lambda m, c: m.st.card_zone[c]
        if name == "owner":
            return lambda m, c: m.st.owner[c]
        if name == "controller":
            return lambda m, c: m.zone_seat[m.st.card_zone[c]]
        if name in self.p.modified_fields:
            return lambda m, c: m.modified(c, name)
        return None

    def _card_field(self, obj_fn, name, key=None):
        read = self._card_reader(name)
        if read is not None:
            if key is not None:
                return lambda m, env: None if (c := env[key]) is None else read(m, c)
            return lambda m, env: None if (c := obj_fn(m, env)) is None else read(m, c)
        if key is not None:
            def get_local(m, env):
                c = env[key]
                return None if c is None else m.cards[c].get(name)
            return get_local

        def get(m, env):
            c = obj_fn(m, env)
            return None if c is None else m.cards[c].get(name)
        return get

    def x_FieldAccess(self, e, sc):
        return self._possessive(self.compile(e.obj, sc), self.type_of(e.obj, sc), e.name,
                                self.env_key(e.obj, sc), zones=False, span=e.span)

    def _possessive(self, owner_fn, owner_t, name, key=None, zones=True, span=None):
        """`owner's name`: a zone of a player, a player's or a card's field. With `key`, the
        owner is a local read straight from env, and `owner_fn` is not called. Read from a
        player who is none, it is none, as a card's field read from none is."""
        if owner_t == PLAYER and (kind := self.d.entity_of_plural(name)) is not None:
            if key is not None:         # `p's ships`: the player's live entities (interpreter/entities.py)
                return lambda m, env: _entities.of_player(m, kind, env[key])
            return lambda m, env: _entities.of_player(m, kind, owner_fn(m, env))
        if owner_t.__class__ is tuple and owner_t[0] == "entity":
            if name in self.d.zones:    # `s's crew`: its zone's key
                return _entities.zone_reader(owner_fn, name, span, key)
            return _entities.reader(owner_fn, name, span, key)
        if owner_t == PLAYER:
            if zones and name in self.d.zones:
                keys = self.p.zone_keys[name]
                if key is not None:
                    return lambda m, env: None if (p := env[key]) is None else keys[p]
                return lambda m, env: None if (p := owner_fn(m, env)) is None else keys[p]
            if name in self.p.modified_player_attrs:     # `modify <attribute> of <players> by ...`
                if key is not None:
                    return lambda m, env: None if (p := env[key]) is None else m.modified_player(p, name)
                return lambda m, env: None if (p := owner_fn(m, env)) is None else m.modified_player(p, name)
            if key is not None:
                return lambda m, env: None if (p := env[key]) is None else m.players[p][name]
            return lambda m, env: None if (p := owner_fn(m, env)) is None else m.players[p][name]
        if owner_t == "die":        # a die of a pool: a plain record (interpreter/dice.py)
            if key is not None:
                return lambda m, env: None if (d := env[key]) is None else d[name]
            return lambda m, env: None if (d := owner_fn(m, env)) is None else d[name]
        if owner_t == ZONE:             # a place's field (`place has:` of a board)
            return _boards.place_field(self, owner_fn, name, key)
        if owner_t.__class__ is tuple and owner_t[0] == "part":     # a part's field (interpreter/parts.py)
            return _parts.reader(owner_fn, name, key)
        if owner_t == CARD and name in self.p.part_labels:          # `belts of c`: the card's parts
            if key is not None:
                return lambda m, env: _parts.parts_of(m, env[key], name)
            return lambda m, env: _parts.parts_of(m, owner_fn(m, env), name)
        return self._card_field(owner_fn, name, key)

    def x_Possessive(self, e, sc):
        return self._possessive(self.compile(e.owner, sc), self.type_of(e.owner, sc), e.name,
                                self.env_key(e.owner, sc), span=e.span)

    def x_Your(self, e, sc):
        return self._possessive(None, PLAYER, e.name, "$you")

    def x_FieldOf(self, e, sc):
        t = self.type_of(e.obj, sc)
        obj = self.collection(e.obj, sc) if is_list(t) else self.compile(e.obj, sc)
        if is_list(t):
            one = self._possessive(None, t[1], e.name, "$of", span=e.span)

            def each(m, env):
                out = []
                for x in obj(m, env):
                    out.append(_with_it(env, "$of", x, one, m))
                return out
            return each
        return self._possessive(obj, t, e.name, self.env_key(e.obj, sc), span=e.span)

    def local_zone(self, e, sc):
        """(zone keys by seat, env key of the player) for `p's deck` or `your discard`, else None."""
        if isinstance(e, (A.Possessive, A.Your)) and e.name in self.d.zones:
            if isinstance(e, A.Your):       # the zone of `you`, a player
                return self.p.zone_keys[e.name], "$you"
            key = self.env_key(e.owner, sc) if self.type_of(e.owner, sc) == PLAYER else None
            if key is not None:
                return self.p.zone_keys[e.name], key
        return None

    def held(self, e, sc):
        """fn(m, env) -> the state's own list of the cards in zone `e` (not a copy)."""
        local = self.local_zone(e, sc)
        span = e.span
        if local is not None:           # one call, not three
            keys, key = local

            def held_local(m, env):
                p = env[key]
                if p is None:
                    raise no_zone(span)
                return m.zones[keys[p]]
            return held_local
        z = self.compile(e, sc)

        def held_zone(m, env):
            key = z(m, env)
            if key is None:
                raise no_zone(span)
            return m.zones[key]
        return held_zone

    def x_CardsIn(self, e, sc):
        if self.type_of(e.zone, sc) == ZONE:
            h = self.held(e.zone, sc)
            return lambda m, env: list(h(m, env))
        z = self.compile(e.zone, sc)
        span = e.zone.span

        def cards_in(m, env):
            return cards_of_zones(m, z(m, env), span)
        return cards_in

    def x_AllEntities(self, e, sc):
        kind = self.d.entity_of_plural(e.name)
        return lambda m, env: _entities.all_of(m, kind)

    def x_EntityHolding(self, e, sc):
        card, kind = self.compile(e.card, sc), e.kind
        return lambda m, env: _entities.holding(m, kind, card(m, env))

    def x_IsInPlay(self, e, sc):
        item, neg = self.compile(e.item, sc), e.negated
        return lambda m, env: _entities.in_play(m, item(m, env)) != neg

    def x_EveryZone(self, e, sc):
        zd = self.d.zones.get(e.name)
        if zd is not None and zd.per_entity is not None:    # that zone of every entity in play (entities.py)
            name, kind = e.name, zd.per_entity
            return lambda m, env: [_entities.zone_key(m, x, name, None) for x in _entities.all_of(m, kind)]
        keys = list(self.p.zone_keys[e.name])
        return lambda m, env: keys[: m.n_players]

    def x_TopCard(self, e, sc):
        idx = -1 if e.place == "top" else 0
        local = self.local_zone(e.zone, sc)
        if local is not None:           # `top card of p's deck`: one call
            keys, key = local
            span = e.zone.span

            def top_local(m, env):
                p = env[key]
                if p is None:
                    raise no_zone(span)
                cards = m.zones[keys[p]]
                return cards[idx] if cards else None
            return top_local
        h = self.held(e.zone, sc)

        def top(m, env):
            cards = h(m, env)
            return cards[idx] if cards else None
        return top

    def x_TopCards(self, e, sc):
        h, n = self.held(e.zone, sc), self.compile(e.count, sc)
        top = e.place == "top"

        def tops(m, env):
            cards, k = h(m, env), max(0, n(m, env) or 0)
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
                raise no_seat(m, seat, span)
            return seat
        return seat_player

    def x_You(self, e, sc):
        return lambda m, env: env["$you"]

    def x_PlayersExpr(self, e, sc):
        def players(m, env):
            out = []                    # a loop: for a few players cheaper than a comprehension's frame
            for p, gone in enumerate(m.st.out):
                if not gone:
                    out.append(p)
            return out
        return players

    def x_WinnersExpr(self, e, sc):
        return lambda m, env: list(m.st.result["winners"]) if m.st.result else []

    def x_StackExpr(self, e, sc):
        return lambda m, env: [item["card"] for item in reversed(m.st.stack)]

    def x_AllPlayers(self, e, sc):
        return lambda m, env: list(range(m.n_players))

    def x_Opponents(self, e, sc):
        return lambda m, env: [p for p, gone in enumerate(m.st.out) if not gone and p != env["$you"]]

    def x_ListExpr(self, e, sc):
        items = [self.compile(i, sc) for i in e.items]
        if not any(_may_hold_lists(self.type_of(i, sc)) for i in e.items):
            return lambda m, env: [i(m, env) for i in items]     # as long as the file wrote it
        span = e.span

        def list_of_lists(m, env):      # `[cards in box, cards in box, ...]`: its items count
            out = [i(m, env) for i in items]
            if _items(out) > MAX_COLLECTION:
                raise too_many(span)
            return out
        return list_of_lists

    # ------------------------------------------------------------------ collections
    def x_WhereExpr(self, e, sc):
        t = self.type_of(e.coll, sc)
        coll = self.collection(e.coll, sc)
        cond = self.compile(e.cond, sc.child(it_type=t[1] if is_list(t) else ANY))

        span = e.span

        def where(m, env):
            saved = env.get("$it", _MISSING)
            out = []
            xs = coll(m, env)
            charge(m, len(xs), span)
            for x in xs:
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
        coll = self.collection(e.coll, sc)
        inner = sc.child()
        inner.locals[e.name] = t[1] if is_list(t) else ANY
        fn = self.compile(e.expr, inner)
        cond = self.compile(e.cond, inner) if e.cond is not None else None
        name = e.name
        nested = _may_hold_lists(self.type_of(e.expr, inner))
        span = e.span

        def mapped(m, env):
            saved = env.get(name, _MISSING)
            out = []
            held = 0            # items of the lists it holds so far, when it holds lists
            xs = coll(m, env)
            charge(m, len(xs), span)
            for x in xs:
                env[name] = x
                if cond is None or cond(m, env):
                    v = fn(m, env)
                    out.append(v)
                    if nested:  # `[cards in box for each c in cards in box]` would copy a deck per card
                        held += _items(v)
                        if held > MAX_COLLECTION:
                            raise too_many(span)
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
            return lambda m, env: True if a(m, env) and b(m, env) else False

        def every(m, env):              # all() without a generator's frame
            for i in items:
                if not i(m, env):
                    return False
            return True
        return every

    def x_NotOp(self, e, sc):
        a = self.compile(e.operand, sc)
        return lambda m, env: not a(m, env)

    def x_Compare(self, e, sc):
        a, b = self.compile(e.left, sc), self.compile(e.right, sc)
        op = e.op
        if op in ("=", "!="):
            const, ka, kb = self.constant(e.right, sc), self.env_key(e.left, sc), self.env_key(e.right, sc)
            eq = op == "="
            if const:               # `x = 0`, `side = active`: no call for the constant
                v = const[0]
                if ka is not None:
                    return (lambda m, env: env[ka] == v) if eq else (lambda m, env: env[ka] != v)
                return (lambda m, env: a(m, env) == v) if eq else (lambda m, env: a(m, env) != v)
            if ka is not None and kb is not None:       # `card = this`
                return (lambda m, env: env[ka] == env[kb]) if eq else (lambda m, env: env[ka] != env[kb])
            if kb is not None:                          # `strength(it) = best`
                return (lambda m, env: a(m, env) == env[kb]) if eq else (lambda m, env: a(m, env) != env[kb])
        if op == "=":
            return lambda m, env: a(m, env) == b(m, env)
        if op == "!=":
            return lambda m, env: a(m, env) != b(m, env)
        span = e.span
        cmp = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}[op]

        def ordered(m, env):
            x = a(m, env)
            if x is None:
                raise RuleError("a comparison met 'none' where it needs a number", span)
            y = b(m, env)
            if y is None:
                raise RuleError("a comparison met 'none' where it needs a number", span)
            return cmp(x, y)
        return ordered

    def x_IsEmpty(self, e, sc):
        neg = e.negated
        if self.type_of(e.operand, sc) == ZONE:
            h = self.held(e.operand, sc)
            return lambda m, env: bool(h(m, env)) == neg
        a = self.compile(e.operand, sc)
        return lambda m, env: bool(a(m, env)) == neg

    def x_IsIn(self, e, sc):
        if isinstance(e.coll, A.StackExpr):
            item, neg = self.compile(e.item, sc), e.negated
            return lambda m, env: (item(m, env) in m.stacked_cards()) != neg
        t = self.type_of(e.coll, sc)
        item = self.compile(e.item, sc)
        coll = self.compile(e.coll, sc) if t == ZONE else self.collection(e.coll, sc)
        neg = e.negated
        if t == ZONE or isinstance(e.coll, A.CardsIn) and self.type_of(e.coll.zone, sc) == ZONE:
            h = self.held(e.coll if t == ZONE else e.coll.zone, sc)   # look in the zone without copying it
            return lambda m, env: (item(m, env) in h(m, env)) != neg
        if isinstance(e.coll, A.CardsIn):
            z = self.compile(e.coll.zone, sc)
            span = e.coll.zone.span

            def in_zone(m, env):
                x, key = item(m, env), z(m, env)
                if key is None:
                    raise no_zone(span)
                if isinstance(key, list):
                    return any([x in m.zones[k] for k in key]) != neg   # every key looked up, as a copy would
                return (x in m.zones[key]) != neg
            return in_zone
        key = self.env_key(e.item, sc)
        if key is not None:
            return lambda m, env: (env[key] in coll(m, env)) != neg
        return lambda m, env: (item(m, env) in coll(m, env)) != neg

    def x_IsA(self, e, sc):
        a, key = self.compile(e.operand, sc), self.env_key(e.operand, sc)
        name = e.type_name
        if name in self.d.entities:     # `entity is a ship`: an entity of that kind (interpreter/entities.py)
            return lambda m, env: (x := a(m, env)) is not None and x["entity"] == name
        if key is not None:         # `it is a Unit`
            return lambda m, env: (c := env[key]) is not None and m.card_types[c] == name
        return lambda m, env: (c := a(m, env)) is not None and m.card_types[c] == name

    def x_Arith(self, e, sc):
        if _lang.is_join(self, e, sc):      # `hand + [c]`: lists joined (interpreter/compile_lang.py)
            return _lang.join(self, e, sc)
        a, b = self.compile(e.left, sc), self.compile(e.right, sc)
        span = e.span
        op = e.op

        def none_error():
            return RuleError("arithmetic met 'none' where it needs a number", span, _positions.NONE_NUMBER_HINT)
        # every result is checked against MAX_RUNTIME_NUMBER: one chained comparison with the
        # bounds held in closure cells (cheaper than globals; `+` is among the hottest ops)
        lo, hi = -_BIG, _BIG
        if op == "+":
            def add(m, env):
                x, y = a(m, env), b(m, env)
                if x is None or y is None:
                    raise none_error()
                r = x + y
                if lo <= r <= hi:
                    return r
                raise too_large(r, span)
            return add
        if op == "-":
            def sub(m, env):
                x, y = a(m, env), b(m, env)
                if x is None or y is None:
                    raise none_error()
                r = x - y
                if lo <= r <= hi:
                    return r
                raise too_large(r, span)
            return sub
        if op == "*":
            def mul(m, env):
                x, y = a(m, env), b(m, env)
                if x is None or y is None:
                    raise none_error()
                r = x * y
                if lo <= r <= hi:
                    return r
                raise too_large(r, span)
            return mul

        def div(m, env):
            x, y = a(m, env), b(m, env)
            if x is None or y is None:
                raise none_error()
            if y == 0:
                raise RuleError("division by zero", span,
                                "test the divisor before dividing, e.g. if d > 0: ... "
                                "(or divide by a number that is never 0)")
            return x // y
        return div

    def x_Neg(self, e, sc):
        a = self.compile(e.operand, sc)
        span = e.span

        def neg(m, env):
            x = a(m, env)
            if x is None:       # `-(top card of pile).power` on an empty pile, as `0 - ...` would
                raise RuleError("arithmetic met 'none' where it needs a number", span, _positions.NONE_NUMBER_HINT)
            return -x
        return neg

    # The expressions of issue 10, written in interpreter/compile_lang.py
    x_IsFace, x_HasKeyword, x_CondExpr, x_ItemOf = _lang.x_IsFace, _lang.x_HasKeyword, _lang.x_CondExpr, _lang.x_ItemOf
    x_RandomPick, x_RandomNumber, x_SortedExpr = _lang.x_RandomPick, _lang.x_RandomNumber, _lang.x_SortedExpr
    x_CurrentStep, x_SeatOf, x_SeatExpr, x_SeatsFrom = _lang.x_CurrentStep, _lang.x_SeatOf, _lang.x_SeatExpr, _lang.x_SeatsFrom
    x_Modulo, b_last = _lang.x_Modulo, _lang.b_last
    x_HasSeen = _lang.x_HasSeen
    # issue 18's: numbers as options, positions, defaults (interpreter/compile_positions.py)
    x_NumberRange, x_PositionIn = _positions.x_NumberRange, _positions.x_PositionIn
    x_CardFrom, x_Otherwise = _positions.x_CardFrom, _positions.x_Otherwise
    # issue 18's combination searches (interpreter/compile_combos.py)
    x_GroupsOf, x_SubsetsOf, x_BestArrangement = _combos.x_GroupsOf, _combos.x_SubsetsOf, _combos.x_BestArrangement
    # boards: places, links, distances, paths, marks (interpreter/compile_boards.py)
    x_PlacesAdjacent, x_PlacesWithin, x_PlacesOf = _boards.x_PlacesAdjacent, _boards.x_PlacesWithin, _boards.x_PlacesOf
    x_DistanceBetween, x_ShortestPath, x_PlaceMark = _boards.x_DistanceBetween, _boards.x_ShortestPath, _boards.x_PlaceMark
    b_adjacent, b_distance = _boards.b_adjacent, _boards.b_distance


# One compile handler per expression class, read from the registry (dsl/registry.py) once
_COMPILE = dispatch("compile", EXPRESSION, ExprCompiler)


def zone_keys(decls, max_players: int) -> dict[str, list[str]]:
    """Runtime keys of every zone: per-player zones `name:seat`, shared ones their name."""
    keys: dict[str, list[str]] = {}
    for name, zd in decls.zones.items():
        keys[name] = [f"{name}:{p}" for p in range(max_players)] if zd.per_player else [name]
        if zd.per_entity is not None and zd.per_entity in decls.entities:
            # one per slot of the kind at each seat: `crew:1/2` (interpreter/entities.py)
            most = decls.entities[zd.per_entity].most or 1
            keys[name] = [f"{name}:{p}/{k}" for p in range(max_players) for k in range(most)]
    return keys


__all__ = ["ExprCompiler", "zone_keys", "CARD", "list_of"]
