"""Expressions → Python source text, for the generated code of interpreter/blocks.py.

The source is built from the checked model only, never from a file's text: a designer's names
reach it as `repr()` string literals (env keys like `env['best']`), and every other object it
needs — a span, a zone's keys, a prompt, a compiled closure — is bound in the program's
namespace under a generated name (`Pool.ref`). So a stranger's game file cannot put code into
what is compiled, whatever its names and strings hold (tests/test_codegen.py tries).

Each `g_<Node>` method mirrors `ExprCompiler.x_<Node>` of interpreter/compile_expr.py value for
value and error for error (the same checks, in the same order, with the same spans): the
closure compiler stays the definition of what an expression means, this is its fast form, and
`tests/test_log_equality.py` holds the two to the same logs. A node without a `g_` method (or
a case one does not handle) falls back to calling its closure, so every expression has a source.

A check that cannot fire is not written: what the model settles says which values are never none
(`ExprGen.nn`: a literal, a count, arithmetic, a test, a list, a seat, an attribute no statement
may set to none: `attr_nn`; `elems_nn`: a loop's variable over players or cards) and which sums stay
within MAX_RUNTIME_NUMBER (`rng`); after `x is a T` in an `and`, x's fields of T are keys of its
record (`narrow`). Every other check
is written in place, its helper (`_add`, `_charged_coll`, ...) called only on the way to its error
(tests/test_gen_expr_checks.py plays each error both ways).

Inside a generated function the names are: `m` the Machine, `env` the frame's names. `it`
and the element of a `for each` map are Python variables of the comprehension that binds them
(`Gen.it`, `Gen.names`); a closure called from inside one gets them put in `env` for the call.
"""
from __future__ import annotations

import re
from dataclasses import fields, is_dataclass
from itertools import compress
from operator import not_

from cardsmith.dsl import ast as A
from cardsmith.dsl.bounds import MAX_PLAYERS, MAX_RUNTIME_NUMBER
from cardsmith.dsl.registry import BUILTIN_FUNCTIONS
from cardsmith.dsl.types import ANY, CARD, PLAYER, ZONE, Scope, is_list

from cardsmith.dsl.bounds import MAX_COLLECTION

from .compile_expr import (_ALWAYS_LISTS, _LIST_BUILTINS, _may_hold_lists, cards_of_zones, no_collection, no_seat, no_zone, too_large,
                           too_many)
from .compile_positions import NONE_NUMBER_HINT
from .errors import RuleError, charge
from .reads import _field_names, _nodes

_BIG = MAX_RUNTIME_NUMBER
_LEN = 2 ** 50          # more than any list's length can be (2**50 items is 8 PiB of pointers)
_MISSING = object()
# Expressions nested deeper than this are not written out: each level may open a few brackets,
# and Python's parser refuses more than 200 open at once (a file may nest `not (...)` 300 deep)
MAX_DEPTH = 40
# A define's body is written in place of its call (`ExprGen.define_call`) when it is at most this
# long, reads nothing of the caller's frame but its arguments, and every argument is a variable
MAX_INLINE = 600
_YOU_PASSED = "'$you': env.get('$you')"
_THIS, _YOU = "env['$this']", "env['$you']"
# a join of lists written out of names bound to constants (`ExprGen.fixed_keys`)
_KEY_NAME = re.compile(r"_k[0-9]+")
_FIXED_KEYS = re.compile(r"\(*\[_k[0-9]+(?:, _k[0-9]+)*\]\)*(?: \+ \(*\[_k[0-9]+(?:, _k[0-9]+)*\]\)*)*")
_SIMPLE_ARG = re.compile(r"_[a-z]+[0-9]+|env\['[A-Za-z0-9_$]+'\]")
# a source whose value is the same however often it is read, and whose reading raises nothing
_PURE = re.compile(r"_[a-z]+[0-9]+|env\['[A-Za-z0-9_$]+'\]|-?[0-9]+")
# the same of a player's or the game's attribute read plainly (`possessive` of a player never
# none, `g_Name` of a game attribute): the seat is there, and every seat's record holds every
# declared attribute (engine._start), so the read raises nothing
_PLAIN_ATTR = re.compile(r"m\.players\[(?:_[a-z]+[0-9]+|env\['[A-Za-z0-9_$]+'\])\]\['[A-Za-z0-9_]+'\]"
                         r"|m\.st\.game\['[A-Za-z0-9_]+'\]")
# expressions whose value is never none whatever they read (`ExprGen.nn`'s first cases)
_NEVER_NONE = (A.Num, A.Text, A.Bool, A.Compare, A.IsEmpty, A.IsIn, A.IsA, A.NotOp, A.AndChain, A.OrChain,
               A.IsFace, A.HasKeyword, A.Neg, A.Modulo, A.Arith, A.SeatPlayer) + _ALWAYS_LISTS
# nodes that name an attribute only to read it (or, for add / subtract, to change a number into
# a number: none there raises), and its declaration
_READS_ATTR = (A.Name, A.Possessive, A.Your, A.FieldAccess, A.FieldOf, A.FieldDecl, A.AddStmt, A.SubtractStmt)


def _every_call(decls, more=()):
    """Every procedure call statement anywhere in the declarations (rules, abilities, texts,
    scenarios: dicts, lists and nodes opened; the checker's typing record is not) and in `more`
    (every card's abilities, as it plays them), each once: those of `more` first, then the
    declarations' in their walk's order. The declarations' walk is kept on them: a game dealt
    random decks builds its program once per deal, over the same declarations. (What the cards'
    walk met is all below it, so leaving it out of the declarations' walk leaves the rest of
    that walk in the same order: the calls are those of one walk over both, as they were.)"""
    calls, met = _calls_in([list(more)])
    kept = decls.__dict__.get("_every_call")
    if kept is None:
        kept = decls.__dict__["_every_call"] = _calls_in(
            [getattr(decls, f.name) for f in fields(decls) if f.name != "typing"])[0]
    calls.extend(call for call in kept if id(call) not in met)
    return calls


def _calls_in(stack: list) -> tuple[list, set]:
    """(the call statements below the nodes of `stack`, depth first, each once; the ids of the
    nodes met)."""
    seen: set = set()
    calls = [x for x in _nodes(stack, seen) if isinstance(x, A.CallStmt)]
    return calls, seen




class _Every(frozenset):
    """Every name (a `set` whose target names none of them plainly: nothing is known)."""
    def __contains__(self, name) -> bool:
        return True


_EVERY_NAME = _Every()


# ---------------------------------------------------------------------- helpers the code calls
# Each raises exactly what the closure compiler's code raises at the same point.
def _raise_no_zone(span):
    raise no_zone(span)


def _in_zones(m, x, key, span):
    """`x is in cards in <zone or zones>` (compile_expr.x_IsIn's in_zone): every key looked up."""
    if key is None:
        raise no_zone(span)
    if isinstance(key, list):
        return any([x in m.zones[k] for k in key])
    return x in m.zones[key]


def _raise_none_cmp(span):
    raise RuleError("a comparison met 'none' where it needs a number", span)


def _charged(m, xs, span):
    """A collection about to be walked: none stops the game (E0802), its length is charged."""
    if xs is None:
        raise no_collection(span)
    st = m.st
    st.work += len(xs)          # `charge`, inlined (on the hot path); it raises past the bound
    if st.work > m.max_steps:
        charge(m, 0, span)
    return xs


def _charged_list(m, xs, span):
    st = m.st
    st.work += len(xs)
    if st.work > m.max_steps:
        charge(m, 0, span)
    return xs


def _charged_zones(m, zs, span):
    """`_charged_list` of the cards in the zones `zs` (keys), the list of them not built: the
    sum of the zones' lengths charged (ExprGen.loop). (A plain loop: over a few zones it is
    quicker than map and sum, and than building the list.)"""
    zones = m.zones
    n = 0
    for z in zs:
        n += len(zones[z])
    st = m.st
    st.work += n
    if st.work > m.max_steps:
        charge(m, 0, span)
    return zs


def _coll(xs, span):
    if xs is None:
        raise no_collection(span)
    return xs


def _charged_coll(m, xs, cspan, span):
    """`_charged_list(m, _coll(xs, cspan), span)` in one call: a collection that may be none."""
    if xs is None:
        raise no_collection(cspan)
    st = m.st
    st.work += len(xs)
    if st.work > m.max_steps:
        charge(m, 0, span)
    return xs


def _raise_no_coll(span):
    raise no_collection(span)


def _too_large(r, span):
    raise too_large(r, span)


def _no_seat(m, seat, span):
    raise no_seat(m, seat, span)


def _join(xs, ys, rspan, span):
    """`a + b` of lists (compile_lang.join): `b` none stops the game, as does a list too long."""
    if ys is None:
        raise no_collection(rspan)
    if len(xs) + len(ys) > MAX_COLLECTION:
        raise too_many(span)
    return xs + ys


_cards_in = cards_of_zones     # `cards in <zones>`: the closure's own definition (compile_expr)


def _none_arith(span):
    return RuleError("arithmetic met 'none' where it needs a number", span, NONE_NUMBER_HINT)


def _add(x, y, span):
    if x is None or y is None:
        raise _none_arith(span)
    r = x + y
    if -_BIG <= r <= _BIG:
        return r
    raise too_large(r, span)


def _sub(x, y, span):
    if x is None or y is None:
        raise _none_arith(span)
    r = x - y
    if -_BIG <= r <= _BIG:
        return r
    raise too_large(r, span)


def _mul(x, y, span):
    if x is None or y is None:
        raise _none_arith(span)
    r = x * y
    if -_BIG <= r <= _BIG:
        return r
    raise too_large(r, span)


def _div(x, y, span):
    if x is None or y is None:
        raise _none_arith(span)
    if y == 0:
        raise RuleError("division by zero", span,
                        "test the divisor before dividing, e.g. if d > 0: ... "
                        "(or divide by a number that is never 0)")
    return x // y


def _neg(x, span):
    if x is None:
        raise _none_arith(span)
    return -x


def _sum(xs, span):
    try:
        s = sum(xs)             # the numbers alone, at C speed; a none among them raises
    except TypeError:
        s = sum([x for x in xs if x is not None])
    if -_BIG <= s <= _BIG:
        return s
    raise too_large(s, span)


def _highest(xs):
    best = None
    for x in xs:
        if x is not None and (best is None or x > best):
            best = x
    return best


def _lowest(xs):
    best = None
    for x in xs:
        if x is not None and (best is None or x < best):
            best = x
    return best


def _bound(m, env, pairs, fn):
    """Call closure `fn` with the comprehension variables `pairs` ((env key, value), ...) put in
    env for the call, as the closure compiler's loops keep them there, then restored."""
    saved = [(k, env.get(k, _MISSING)) for k, _ in pairs]
    for k, v in pairs:
        env[k] = v
    try:
        return fn(m, env)
    finally:
        for k, v in reversed(saved):
            if v is _MISSING:
                del env[k]
            else:
                env[k] = v


HELPERS = {name: fn for name, fn in globals().items()
           if name.startswith("_") and callable(fn) and name not in ("_MISSING",)}
HELPERS.update({"RuleError": RuleError, "_BIG": _BIG})


# Code objects by (source, label): a code object is a pure function of its text and file name,
# and each Pool still runs it in its own namespace. A game dealt anew from decks (simulate with
# random decks) builds a Program per deal from the same sources: compiled once. Bounded.
_COMPILED: dict = {}
MAX_COMPILED = 20_000


class Pool:
    """The namespace generated code runs in: the helpers above, and every object the code
    refers to, bound under a generated name (`_k12`). One per Program."""

    def __init__(self):
        self.ns: dict = {"__builtins__": {"len": len, "list": list, "range": range, "enumerate": enumerate,
                                          "isinstance": isinstance, "sum": sum, "any": any, "bool": bool,
                                          "dict": dict, "reversed": reversed, "min": min, "max": max,
                                          "KeyError": KeyError, "BaseException": BaseException}}
        self.ns.update(HELPERS)
        self._by_id: dict = {}
        self._n = 0
        self.sources: list[str] = []        # what was compiled, for tests/test_codegen.py and debugging

    def fresh_name(self, stem: str) -> str:
        self._n += 1
        return f"_{stem}{self._n}"

    def ref(self, obj, stem: str = "k") -> str:
        key = id(obj)
        hit = self._by_id.get(key)
        if hit is not None and hit[1] is obj:
            return hit[0]
        self._n += 1
        name = f"_{stem}{self._n}"
        self.ns[name] = obj
        self._by_id[key] = (name, obj)      # keeps obj alive, so its id is not reused
        return name

    def compile(self, source: str, name: str, label: str):
        """Compile generated `source` (built only from the checked model) and return `name`."""
        self.sources.append(source)
        key = (source, label)
        code = _COMPILED.get(key)
        if code is None:
            if len(_COMPILED) >= MAX_COMPILED:
                _COMPILED.clear()
            code = _COMPILED[key] = compile(source, f"<cardsmith {label}>", "exec")
        exec(code, self.ns)         # noqa: S102 -- generated from the checked model, see the module docstring
        return self.ns[name]


class Gen:
    """Where an expression is generated: the comprehension variables in force."""
    __slots__ = ("it", "names", "tmp", "depth", "nn", "hoist", "types")

    def __init__(self, tmp=None):
        self.it = None              # Python variable holding `it`, or None: env['$it']
        self.names = {}             # designer's name → Python variable (a map's element)
        self.tmp = tmp if tmp is not None else [0]
        self.depth = 0              # how deep in the expression the source being written is
        self.nn = frozenset()       # the Python variables above that are never none (`ExprGen.nn`)
        self.hoist = {}             # id(node) → variable: a read worked out once, before the comprehension
        self.types = {}             # variable → the card type its card is known to be of (`ExprGen.narrow`)

    def var(self, stem: str = "t") -> str:
        self.tmp[0] += 1
        return f"_{stem}{self.tmp[0]}"

    def inner(self) -> "Gen":
        g = Gen(self.tmp)
        g.it, g.names, g.depth, g.nn, g.hoist, g.types = self.it, dict(self.names), self.depth, self.nn, self.hoist, self.types
        return g

    def bound_pairs(self) -> list:
        pairs = [(k, v) for k, v in self.names.items()]
        if self.it is not None:
            pairs.append(("$it", self.it))
        return pairs


class ExprGen:
    def __init__(self, program, pool: Pool):
        self.p = program
        self.x = program.exprs          # the closure compiler: types, kinds, and the fallbacks
        self.d = program.game.decls
        self.pool = pool
        self._defines: dict = {}
        self._inlining: set = set()     # the defines being written in place now (never one in itself)

    # ------------------------------------------------------------------ entry points
    def src(self, e, sc: Scope, g: Gen) -> str:
        if g.hoist:
            h = g.hoist.get(id(e))
            if h is not None:
                return h
        if sc.this_type is not None and _THIS not in g.nn:
            self.in_ability(sc, g)
        method = getattr(self, "g_" + type(e).__name__, None)
        if method is not None and g.depth < MAX_DEPTH:
            g.depth += 1
            try:
                out = method(e, sc, g)
            finally:
                g.depth -= 1
            if out is not None:
                return out
        # deeper than Python's parser nests brackets (200), the closure evaluates the rest
        return self.fallback(e, sc, g)

    @staticmethod
    def in_ability(sc, g: Gen) -> None:
        """In a card type's ability (its scope names the type: Program.ability_scope, blank_of),
        `this` is a card of that type and `you` a seat, never none: every env such code runs in
        is made with them so (a trigger's and an `instead of`'s by the collector, from a card in
        a player's zone and that player's seat, triggers._collector; an action's, its card and
        the player using it, resolver; a text's, its card and the player resolving it, raising
        where there is none, card_text; a modifier's, Machine._mod_table), and the abilities of
        a type are those of its cards only (Program.ability_groups). A keyword's abilities, whose
        scope names no type, are not known so. (`this`'s fields stay `.get`: the trigger collector
        looks for that shape, triggers._card_first.)"""
        g.nn = g.nn | {_THIS, _YOU}

    def fallback(self, e, sc, g: Gen) -> str:
        fn = self.pool.ref(self.x.compile(e, sc), "x")
        pairs = g.bound_pairs()
        if not pairs:
            return f"{fn}(m, env)"
        inner = ", ".join(f"({k!r}, {v})" for k, v in pairs)
        return f"_bound(m, env, ({inner},), {fn})"

    def always_list(self, e) -> bool:
        return isinstance(e, _ALWAYS_LISTS) or (isinstance(e, A.Call) and e.name in _LIST_BUILTINS)

    def collection(self, e, sc, g: Gen) -> str:
        """The list `e` is; none stops the game (E0802), tested in place (`_coll`'s meaning)."""
        s = self.src(e, sc, g)
        if self.always_list(e) or self.nn(e, sc, g):
            return s
        if _SIMPLE_ARG.fullmatch(s):
            return f"({s} if {s} is not None else _raise_no_coll({self.span(e.span)}))"
        t = g.var()
        return f"({t} if ({t} := {s}) is not None else _raise_no_coll({self.span(e.span)}))"

    def function(self, e, sc: Scope, label: str, known=frozenset()):
        """A compiled `fn(m, env)` with the closure's meaning: for the rules the machine calls
        by themselves (trigger conditions, end checks, modifiers, trigger order keys). `known`:
        the sources the caller's env always holds a value for, never none (a modifier's
        `env['$this']` and `env['$you']`: Machine._mod_table sets them from a live card)."""
        g = Gen()
        g.nn = frozenset(known)
        body = self.src(e, sc, g)
        name = self.pool.fresh_name("f")
        return self.pool.compile(f"def {name}(m, env):\n    return {body}\n", name, label)

    def conjunction(self, items, sc: Scope, label: str, known=frozenset()):
        """`function` of `items` joined by `and` (an AndChain's meaning; one item alone: its own
        value, which `and` would test the same), for a condition whose leading conjuncts are
        known true (Program._index_modifiers)."""
        g = Gen()
        g.nn = frozenset(known)
        body = "(" + " and ".join(f"({t})" for t in self.chain(items, sc, g, self.test)) + ")"
        name = self.pool.fresh_name("f")
        return self.pool.compile(f"def {name}(m, env):\n    return {body}\n", name, label)

    def collection_function(self, e, sc: Scope, label: str):
        """`function` for a collection: fn(m, env) -> the list `e` is, with the meaning of
        `ExprCompiler.collection` (a value that turns out to be none stops the game, E0802)."""
        body = self.collection(e, sc, Gen())
        name = self.pool.fresh_name("f")
        return self.pool.compile(f"def {name}(m, env):\n    return {body}\n", name, label)

    def span(self, span) -> str:
        return self.pool.ref(span, "s")

    def const(self, obj) -> str:
        return self.pool.ref(obj, "k")

    @staticmethod
    def lit(v) -> str:
        """A literal of the model's plain values: ints, bools, none and strings (repr quotes and
        escapes any text, so a string is always data)."""
        if v is None or v.__class__ in (int, bool, str):
            return repr(v)
        raise TypeError(f"not a literal: {type(v).__name__}")

    def iterable(self, e, sc, g: Gen) -> str:
        """`collection(e)` as a comprehension's iterable, which Python forbids to hold `:=`: such
        a one becomes a function of its own (or, when it reads a comprehension's variable, which
        that function could not see, the closure)."""
        s = self.iterable_value(e, sc, g)
        if self.always_list(e) or self.nn(e, sc, g):
            return s
        return f"_coll({s}, {self.span(e.span)})"

    def iterable_value(self, e, sc, g: Gen) -> str:
        """The value of `e` (none not tested) as a comprehension's iterable (see `iterable`).
        `cards in <a zone>` is the zone's own list, not a copy: an expression moves no card, so
        the list cannot change while it is walked."""
        s = None
        if isinstance(e, A.CardsIn) and self.x.type_of(e.zone, sc) == ZONE:
            s = self.local_held(e.zone, sc, g) or self.held(e.zone, sc, g)
            if ":=" in s:
                s = None
        if s is None:
            s = self.src(e, sc, g)
        if ":=" not in s:
            return s
        if g.it is None and not g.names:
            name = self.pool.fresh_name("i")
            self.pool.compile(f"def {name}(m, env):\n    return {s}\n", name, "a collection")
            return f"{name}(m, env)"
        return self.fallback(e, sc, g)

    def charged(self, e, sc, g: Gen, span) -> str:
        """The collection `e` as the iterable of a `where` or a map: none stops the game (E0802,
        at `e`), then its length is charged as work (at the whole expression's span)."""
        s = self.iterable_value(e, sc, g)
        if self.always_list(e) or self.nn(e, sc, g):
            return f"_charged_list(m, {s}, {self.span(span)})"
        return f"_charged_coll(m, {s}, {self.span(e.span)}, {self.span(span)})"

    # ------------------------------------------------------------------ literals and names
    def g_Num(self, e, sc, g):
        return self.lit(e.value) if e.value.__class__ is int else None

    def g_Text(self, e, sc, g):
        return self.lit(e.value)

    def g_Bool(self, e, sc, g):
        return self.lit(e.value)

    def g_Nothing(self, e, sc, g):
        return "None"

    def local(self, name: str, g: Gen) -> str:
        v = g.names.get(name)
        return v if v is not None else f"env[{name!r}]"

    def it(self, g: Gen) -> str:
        return g.it if g.it is not None else "env['$it']"

    def g_Name(self, e, sc, g):
        kind = self.x.kind_of(e, sc)
        n = e.name
        if kind in ("local", "param"):
            src = self.local(n, g)
            if n not in g.names and src not in g.nn and self.local_facts(e, sc)[0]:
                g.nn = g.nn | {src}     # never none in this rule: what reads it next tests nothing
            return src
        if kind == "it":
            return self.it(g)
        if kind in ("it_field", "this_field") and n in self.p.part_labels:
            return None             # a card's parts: the closure reads them (interpreter/parts.py)
        if kind == "it_field":
            return self.card_field(self.it(g), n, g)
        if kind == "this_field":
            return self.card_field("env['$this']", n, g)
        if kind == "game_attr":
            if n in self.p.modified_game_attrs:
                return f"m.modified_game({n!r})"
            return f"m.st.game[{n!r}]"
        if kind in ("zone", "member"):
            return self.lit(n)
        return None

    def g_This(self, e, sc, g):
        return "env['$this']"

    def g_You(self, e, sc, g):
        return "env['$you']"

    def g_ActivePlayer(self, e, sc, g):
        return "m.st.active"

    def key(self, e, sc, g) -> str | None:
        """The source of `e` when it is a plain read (a name, `this`, `you`): safe to repeat."""
        if isinstance(e, A.Name) and self.x.kind_of(e, sc) in ("local", "param", "it"):
            return self.src(e, sc, g)
        if isinstance(e, (A.This, A.You)):
            return self.src(e, sc, g)
        return None

    # ------------------------------------------------------------------ what cannot be none
    # A check that cannot fire is not written: `nn` says an expression's value is never none
    # (its meaning, not its type: the types do not say none), `elems_nn` that no element of a
    # collection is, `rng` the smallest and largest number an expression can be. Each answers
    # False / None when unsure, and then the check stays, the same as the closure's.
    def nn(self, e, sc, g: Gen) -> bool:
        if isinstance(e, _NEVER_NONE):
            return True             # literals, lists, yes/no tests, arithmetic (none raises there;
                                    # a seat that is not there raises)
        if isinstance(e, A.Your):
            return ("env['$you']" in g.nn or sc.this_type is not None) and self.attr_nn("player", e.name)
        if isinstance(e, (A.FieldOf, A.FieldAccess, A.Possessive)):
            obj = e.owner if isinstance(e, A.Possessive) else e.obj
            t = self.x.type_of(obj, sc)
            if isinstance(e, A.FieldOf) and is_list(t):
                return True         # a list of the field of each
            if t == PLAYER and not isinstance(e, A.FieldAccess):
                # a player's attribute that never holds none (`attr_nn`) or zone (its key: the
                # player's, `possessive`), of a player never none
                return ((self.attr_nn("player", e.name) or (e.name in self.d.zones and self.d.entity_of_plural(e.name) is None
                                                            and self.d.zones[e.name].per_entity is None))
                        and self.nn(obj, sc, g))
            # the zone a card lies in: every card lies in one (engine._start, and a move's
            # destination is never none), so of a card that is not none it is not none
            return (e.name == "zone" and t == CARD and not isinstance(obj, A.TopCard)
                    and e.name not in self.p.part_labels and self.nn(obj, sc, g))
        if isinstance(e, A.Name):
            kind = self.x.kind_of(e, sc)
            if kind in ("local", "param"):
                if e.name not in g.names:
                    return self.local_facts(e, sc)[0]
                return g.names.get(e.name) in g.nn
            if kind == "it":
                return g.it is not None and g.it in g.nn
            if kind == "game_attr":
                return self.attr_nn("game", e.name)
            return kind in ("zone", "member")       # written as a literal (g_Name)
        if isinstance(e, A.This):
            return "env['$this']" in g.nn or sc.this_type is not None       # (`in_ability`)
        if isinstance(e, A.You):
            return "env['$you']" in g.nn or sc.this_type is not None
        if isinstance(e, A.Call):       # a built-in as g_Call picks it: by name and arity
            b = BUILTIN_FUNCTIONS.get(e.name)
            if b is not None and len(e.args) == b.arity:
                if e.name in ("highest", "lowest") and isinstance(e.args[0], A.ListExpr):
                    # of a list written out, none of whose items is none: one of them
                    return bool(e.args[0].items) and all(self.nn(i, sc, g) for i in e.args[0].items)
                return e.name in ("count", "sum", "any") or e.name in _LIST_BUILTINS
            body = self.define_body(e, sc)
            return body is not None and self.nn(body[0], body[1], Gen())
        if isinstance(e, A.CondExpr):
            return self.nn(e.then, sc, g) and self.nn(e.other, sc, g)
        return False

    def attr_nn(self, kind: str, name: str) -> bool:
        """Whether the player (`kind` "player") or game attribute `name` never holds none where
        it is read plainly (`m.players[p][name]`, `m.st.game[name]`): declared with a default
        that is not none (each game starts with it; `reset each` puts it back), not changed by a
        `modify` (read through the machine's `modified_*` then), and every statement anywhere in
        the game (rules, abilities, scenarios: the declarations, every card's abilities) that
        names a field so named, whatever its owner, either only reads it, adds to it or
        subtracts from it (a number, or an error), or is a `set` to a value never none whatever
        it reads (`_NEVER_NONE`, or `count`, `sum`, `any`). Anything else naming it (a choice,
        a cost, a supply, `give out`, a local so named) leaves it unknown."""
        memo = self.__dict__.setdefault("_attr_nn", {})
        key = (kind, name)
        if key not in memo:
            fields, defaults, modified = ((self.d.player_fields, self.d.player_defaults, self.p.modified_player_attrs)
                                          if kind == "player" else
                                          (self.d.game_fields, self.d.game_defaults, self.p.modified_game_attrs))
            memo[key] = (name in fields and defaults.get(name) is not None and name not in modified
                         and name not in self.d.zones and self.d.entity_of_plural(name) is None
                         and name not in self._attrs_set_maybe_none())
        return memo[key]

    def _attrs_set_maybe_none(self) -> frozenset:
        """Every name a statement of the game may store none in, or names otherwise than
        `attr_nn` allows: a walk of the declarations and the cards' abilities, once."""
        out = self.__dict__.get("_maybe_none")
        if out is not None:
            return out
        found: set = set()
        stack: list = [getattr(self.d, f.name) for f in fields(self.d) if f.name != "typing"]
        stack.append([card.bound for card in self.p.game.cards])
        for x in _nodes(stack, set()):
            if isinstance(x, A.SetStmt):
                name = getattr(x.target, "name", None)
                if not isinstance(name, str) or not self._set_nn(x.value):
                    found.add(name)
            elif not isinstance(x, _READS_ATTR):
                for f in _field_names(type(x)):
                    v = getattr(x, f)
                    if isinstance(v, str):
                        found.add(v)
                    elif isinstance(v, (list, tuple)):
                        found.update(i for i in v if isinstance(i, str))
        out = self._maybe_none = frozenset(n for n in found if isinstance(n, str))
        if any(not isinstance(n, str) for n in found):
            out = self._maybe_none = _EVERY_NAME
        return out

    def _set_nn(self, e) -> bool:
        """Whether a value `set` stores is never none, whatever it reads (no scope needed)."""
        if isinstance(e, _NEVER_NONE):
            return True
        if isinstance(e, A.Call):
            b = BUILTIN_FUNCTIONS.get(e.name)
            return b is not None and len(e.args) == b.arity and e.name in ("count", "sum", "any")
        if isinstance(e, A.CondExpr):
            return self._set_nn(e.then) and self._set_nn(e.other)
        return False

    def elems_nn(self, e, sc, g: Gen) -> bool:
        """Whether no element of collection `e` can be none."""
        if isinstance(e, (A.PlayersExpr, A.AllPlayers, A.Opponents, A.CardsIn, A.EveryZone)):
            return True             # seats, card ids, zone keys
        if isinstance(e, A.WhereExpr):
            return self.elems_nn(e.coll, sc, g)
        if isinstance(e, A.Name) and e.name not in g.names and self.x.kind_of(e, sc) in ("local", "param"):
            return self.local_facts(e, sc)[1]
        if isinstance(e, A.ListExpr):
            return all(self.nn(i, sc, g) for i in e.items)
        if isinstance(e, A.ExprMap):
            t = self.x.type_of(e.coll, sc)
            inner_sc = sc.child()
            inner_sc.locals[e.name] = t[1] if is_list(t) else ANY
            inner = g.inner()
            inner.names[e.name] = v = "_elem"
            if self.elems_nn(e.coll, sc, g):
                inner.nn = inner.nn | {v}
            return self.nn(e.expr, inner_sc, inner)
        return False

    # A rule's local (`let fighters be players`) is known as its every binding is: the rule
    # (setup, a round, a procedure: each runs in an env of its own, which only its statements
    # and, for a procedure, its calls write) is looked through for every way the name gets a
    # value: a `let` (its value), `for each` (an element of its list), a procedure's parameter
    # (the argument of every call of it in the game, each known where the call is: in setup or
    # a round). When each is never none (and holds no none), so is the name, wherever the rule
    # reads it. Any other way (a choice's name, `set`/`add` of it, a pool; any text field
    # spelling it; a call from an ability or a procedure) leaves it unknown.
    def local_facts(self, e, sc) -> tuple[bool, bool]:
        """(never none, no element none) of the local or parameter `e` reads, by its rule's bindings."""
        rules = self.__dict__.get("_rules")
        if rules is None:
            rules = self._rules = self._index_rules()
        root = rules[0].get(id(e))
        if root is None or root < 0:
            return False, False
        return self._local_facts(root, e.name, sc.instance)

    def _local_facts(self, root, name, instance) -> tuple[bool, bool]:
        memo, busy = self._rules[2], self._rules[3]
        key = (root, name, instance)
        if key in memo:
            return memo[key]
        if key in busy:
            return True, True       # a binding from itself: as the others are (the greatest answer)
        binds, unsafe = self._rules[1][root]
        facts = (False, False)
        if name not in unsafe and binds.get(name):
            busy.add(key)
            try:
                nn = elems = True
                for how, value, where in binds[name]:
                    if not (nn or elems):
                        break
                    if how == "arg" and (where is None or value is None):
                        nn = elems = False      # a call whose names this cannot know
                        break
                    if how == "arg" and where in self._rules[4]:
                        # a call in a procedure: a name of its own, in each instance it was typed in
                        kinds = self._rules[5].get(id(value), ()) if isinstance(value, A.Name) else ()
                        if not kinds or any(k not in ("local", "param") for _i, k in kinds):
                            nn = elems = False
                            break
                        for inst, _k in kinds:
                            a, b = self._local_facts(where, value.name, inst)
                            nn, elems = nn and a, elems and b
                        continue
                    sc = Scope(instance=instance if how != "arg" else None)
                    if how == "elem":           # `for each <name> in <value>`: an element
                        nn, elems = nn and self.elems_nn(value, sc, Gen()), False
                    else:
                        nn = nn and self.nn(value, sc, Gen())
                        elems = elems and self.elems_nn(value, sc, Gen())
                facts = (nn, nn and elems)
            finally:
                busy.discard(key)
        if not busy:                # not an answer that assumed one being worked out
            memo[key] = facts
        return facts

    def _index_rules(self):
        """(node id → rule, [(bindings by name, names bound otherwise)] by rule, memo, busy)."""
        d = self.d
        roots = ([d.setup] if d.setup is not None else []) + list(d.rounds) + list(d.procedures.values())
        procs = {id(r): i for i, r in enumerate(roots) if isinstance(r, A.ProcedureDecl)}
        where: dict = {}
        facts = []
        for i, root in enumerate(roots):
            binds: dict = {}
            unsafe: set = set()
            for node in _nodes(root):
                where[id(node)] = i if where.get(id(node), i) == i else -1      # shared: unknown
                if isinstance(node, A.LetStmt):
                    binds.setdefault(node.name, []).append(("let", node.value, i))
                    continue
                if isinstance(node, A.Name):
                    continue
                if isinstance(node, (A.ForStmt, A.ExprMap)):    # (a map's name: while it is worked out)
                    binds.setdefault(node.name, []).append(("elem", node.coll, i))
                if isinstance(node, (A.SetStmt, A.AddStmt, A.SubtractStmt)) and isinstance(node.target, A.Name):
                    unsafe.add(node.target.name)
                for f in _field_names(type(node)):
                    v = getattr(node, f)
                    if node is root and f == "params" or isinstance(node, (A.ForStmt, A.ExprMap)) and f == "name":
                        continue
                    if isinstance(v, str):
                        unsafe.add(v)
                    elif isinstance(v, (list, tuple)):
                        unsafe.update(x for x in v if isinstance(x, str))
            facts.append((binds, unsafe))
        # every call of a procedure, wherever it is in the game: its arguments bind the parameters
        for call in _every_call(d, [card.bound for card in self.p.game.cards]):
            i = procs.get(id(d.procedures.get(call.name)))
            if i is None:
                continue
            at = where.get(id(call))
            known = at is not None and at >= 0
            for n, p in enumerate(roots[i].params):
                arg = call.args[n] if n < len(call.args) else None
                facts[i][0].setdefault(p, []).append(("arg", arg, at if known else None))
        for i, root in enumerate(roots):       # a parameter no call binds: unknown
            if isinstance(root, A.ProcedureDecl):
                for p in root.params:
                    if not facts[i][0].get(p):
                        facts[i][0][p] = [("arg", None, None)]
        kinds: dict = {}        # node id → [(instance, kind)]: a name in a procedure, each instance
        for (inst, nid), kind in d.typing.kinds.items():
            kinds.setdefault(nid, []).append((inst, kind))
        return where, facts, {}, set(), frozenset(procs.values()), kinds

    def define_body(self, e, sc):
        """(body, scope) of the define `e` calls, its parameters unknown (never none unsure);
        None for a built-in, a recursive define or one being looked into."""
        b = BUILTIN_FUNCTIONS.get(e.name)
        if (b is not None and len(e.args) == b.arity) or e.name not in self.d.defines or self.recursive(e.name):
            return None
        d = self.d.defines[e.name]
        types = tuple(self.x.type_of(a, sc) for a in e.args)
        return d.expr, Scope(dict(zip(d.params, types)), instance=("define", e.name, types))

    def static_len(self, e, sc) -> int | None:
        """How many items the list `e` has whatever it reads, or None: a list written out, a join
        of two such, a define whose body is one (`line(seat 1) + line(seat 2)`)."""
        if isinstance(e, A.ListExpr):
            return len(e.items)
        if isinstance(e, A.Arith) and e.op == "+" and is_list(self.x.type_of(e, sc)):
            a, b = self.static_len(e.left, sc), self.static_len(e.right, sc)
            return None if a is None or b is None else a + b
        if isinstance(e, A.Call):
            body = self.define_body(e, sc)
            return None if body is None else self.static_len(*body)
        return None

    def rng(self, e, sc) -> tuple | None:
        """(lo, hi) bounding the number `e` is, or None."""
        if isinstance(e, A.Num) and e.value.__class__ is int:
            return e.value, e.value
        if isinstance(e, A.Call) and e.name == "count" and len(e.args) == BUILTIN_FUNCTIONS["count"].arity:
            return 0, _LEN             # a length: no list can hold 2**50 items (memory)
        if isinstance(e, A.Call):
            body = self.define_body(e, sc)
            return None if body is None else self.rng(*body)
        if isinstance(e, A.Arith) and e.op in ("+", "-", "*") and not is_list(self.x.type_of(e, sc)):
            a, b = self.rng(e.left, sc), self.rng(e.right, sc)
            if a is None or b is None:
                return None
            if e.op == "+":
                lo, hi = a[0] + b[0], a[1] + b[1]
            elif e.op == "-":
                lo, hi = a[0] - b[1], a[1] - b[0]
            else:
                ends = [x * y for x in a for y in b]
                lo, hi = min(ends), max(ends)
            return (lo, hi) if -_BIG <= lo and hi <= _BIG else None
        return None

    # ------------------------------------------------------------------ fields and zones
    def bind(self, src: str, g: Gen) -> tuple[str, str]:
        """(what reads the value, what evaluates it first): a variable (a comprehension's, a local
        read from env) is read where it is needed; anything else is evaluated once, into a
        temporary."""
        if _SIMPLE_ARG.fullmatch(src):
            return src, src
        t = g.var()
        return t, f"({t} := {src})"

    def card_field(self, card: str, name: str, g: Gen) -> str:
        if card in g.nn:            # a variable that holds a card, never none: no test
            return self.card_field_of(card, name, g.types.get(card))
        t, first = self.bind(card, g)
        if name == "zone":
            return f"(None if {first} is None else m.st.card_zone[{t}])"
        if name == "owner":
            return f"(None if {first} is None else m.st.owner[{t}])"
        if name == "controller":
            return f"(None if {first} is None else m.zone_seat[m.st.card_zone[{t}]])"
        if name in self.p.modified_fields:
            return f"(None if {first} is None else m.modified({t}, {name!r}))"
        return f"(None if {first} is None else m.cards[{t}]{self.read_field(name)})"

    def card_field_of(self, t: str, name: str, type_name: str | None = None) -> str:
        """`card_field` of a card that is not none (of card type `type_name`, where known)."""
        if name == "zone":
            return f"m.st.card_zone[{t}]"
        if name == "owner":
            return f"m.st.owner[{t}]"
        if name == "controller":
            return f"m.zone_seat[m.st.card_zone[{t}]]"
        if name in self.p.modified_fields:
            return f"m.modified({t}, {name!r})"
        return f"m.cards[{t}]{self.read_field(name, type_name)}"

    def read_field(self, name: str, type_name: str | None = None) -> str:
        """`[name]` when every card's record holds the field (each starts with its values, and a
        set only adds one), else `.get(name)`: none for a card without it. A card known to be of
        type `type_name` holds every field its type declares (dsl/checks/cards.py starts each
        card's values with all of them, whatever the deal): a fact of the declarations alone."""
        if type_name is not None:
            declared = self.__dict__.setdefault("_type_fields", {}).get(type_name)
            if declared is None:
                ct = self.d.card_types.get(type_name)
                declared = self._type_fields[type_name] = frozenset(f.name for f in ct.fields) if ct else frozenset()
            if name in declared:
                return f"[{name!r}]"
        held = self.__dict__.get("_held_fields")
        if held is None:
            cards = self.p.game.cards
            held = self._held_fields = set.intersection(*(set(c.values) for c in cards)) if cards else set()
        return f"[{name!r}]" if name in held else f".get({name!r})"

    def possessive(self, owner: str, owner_t, name: str, g: Gen, zones: bool = True,
                   who: str | None = None, span=None) -> str:
        """`owner's name` (`owner` its source), as the closure compiler's `_possessive` reads
        it. `who`: the env key the closure would read the owner by (its name in an error's
        hint), `span`: the expression's (an entity's reads need both, else the closure reads)."""
        if owner_t.__class__ is tuple and owner_t[0] == "entity":
            # an entity's attribute or zone (interpreter/entities.py): the closure's reader, called
            if span is None:
                return None
            from . import entities
            fn = entities.zone_key if name in self.d.zones else entities.read
            return f"{self.const(fn)}(m, {owner}, {name!r}, {self.span(span)}, {who!r})"
        if owner_t == PLAYER and (kind := self.d.entity_of_plural(name)) is not None:
            from . import entities      # `p's ships`: the player's live entities
            return f"{self.const(entities.of_player)}(m, {kind!r}, {owner})"
        if owner_t == PLAYER and (owner in g.nn or self.seat_const(owner) is not None):
            # a variable that holds a player, never none (or a seat every game has)
            if zones and name in self.d.zones:
                seat = self.seat_const(owner)
                if seat is not None:        # `seat 1's hand`: the key itself, looked up now (by a
                    # name, as the seat is: a statement may test it `is None`)
                    return self.const(self.p.zone_keys[name][seat])
                return f"{self.const(self.p.zone_keys[name])}[{owner}]"
            if name in self.p.modified_player_attrs:
                return f"m.modified_player({owner}, {name!r})"
            return f"m.players[{owner}][{name!r}]"
        if owner_t == PLAYER:
            t, first = self.bind(owner, g)
            if zones and name in self.d.zones:
                keys = self.const(self.p.zone_keys[name])
                return f"(None if {first} is None else {keys}[{t}])"
            if name in self.p.modified_player_attrs:
                return f"(None if {first} is None else m.modified_player({t}, {name!r}))"
            return f"(None if {first} is None else m.players[{t}][{name!r}])"
        if owner_t == "die":        # a die of a pool: a plain record (interpreter/dice.py)
            t = g.var()
            return f"(None if ({t} := {owner}) is None else {t}[{name!r}])"
        if owner_t == ZONE:         # a place's field (interpreter/compile_boards.py)
            # read in place from {place: (its attribute, its starting value)} of the places that
            # have the field; anything else (none aside) is read_field's, which stops the game
            from . import compile_boards
            fields = compile_boards._field_table(self.x)
            of = self.__dict__.setdefault("_place_fields", {})
            if name not in of:
                of[name] = self.const({z: held[1][name] for z, held in fields.items() if name in held[1]})
            t, first = self.bind(owner, g)
            got, v = g.var(), g.var()
            unset = self.const(compile_boards._UNSET)
            return (f"(None if {first} is None else ({v} if ({v} := m.st.game.get(({got} := {of[name]}[{t}])[0], "
                    f"{unset})) is not {unset} else {got}[1]) if {t} in {of[name]} else "
                    f"{self.const(compile_boards.read_field)}(m, {t}, {name!r}, {self.const(fields)}))")
        if owner_t.__class__ is tuple and owner_t[0] == "part":     # a part's field (interpreter/parts.py)
            from . import parts
            return f"{self.const(parts.read)}(m, {owner}, {name!r})"
        if owner_t == CARD and name in self.p.part_labels:         # `belts of c`: the card's parts
            from . import parts
            return f"{self.const(parts.parts_of)}(m, {owner}, {name!r})"
        return self.card_field(owner, name, g)

    def top_field(self, top, name: str, sc, g: Gen) -> str | None:
        """`(top card of Z).name`: the field read straight from the card on top, none when Z is
        empty (the card itself is never none there): one test, not two."""
        if not isinstance(top, A.TopCard) or name in self.p.part_labels or self.x.type_of(top, sc) != CARD:
            return None
        h = self.local_held(top.zone, sc, g) or self.held(top.zone, sc, g)
        t = g.var()
        card = f"{t}[{-1 if top.place == 'top' else 0}]"
        return f"({self.card_field_of(card, name)} if ({t} := {h}) else None)"

    def g_FieldAccess(self, e, sc, g):
        return (self.top_field(e.obj, e.name, sc, g)
                or self.possessive(self.src(e.obj, sc, g), self.x.type_of(e.obj, sc), e.name, g, zones=False,
                                   who=self.x.env_key(e.obj, sc), span=e.span))

    def g_Possessive(self, e, sc, g):
        return (self.top_field(e.owner, e.name, sc, g)
                or self.possessive(self.src(e.owner, sc, g), self.x.type_of(e.owner, sc), e.name, g,
                                   who=self.x.env_key(e.owner, sc), span=e.span))

    # Entities and boards (interpreter/entities.py, compile_boards.py): the closures' own functions
    # and constants, called from the expression instead of the closure (through `_bound` inside a
    # comprehension)
    def g_AllEntities(self, e, sc, g):
        from . import entities
        return f"{self.const(entities.all_of)}(m, {self.d.entity_of_plural(e.name)!r})"

    def g_IsInPlay(self, e, sc, g):
        from . import entities
        return f"({self.const(entities.in_play)}(m, {self.src(e.item, sc, g)}) != {e.negated!r})"

    def g_EntityHolding(self, e, sc, g):
        from . import entities
        return f"{self.const(entities.holding)}(m, {e.kind!r}, {self.src(e.card, sc, g)})"

    def g_PlacesOf(self, e, sc, g):
        """`the places of map`: a new list of its places, as the closure gives."""
        return f"list({self.const(tuple(self.d.boards[e.board].places))})"

    def g_Otherwise(self, e, sc, g):
        """`x otherwise d`: x, or d (worked out only then) when x is none (compile_positions)."""
        t = g.var()
        return f"({t} if ({t} := {self.src(e.value, sc, g)}) is not None else {self.src(e.default, sc, g)})"

    def g_Your(self, e, sc, g):
        return self.possessive("env['$you']", PLAYER, e.name, g)

    def g_FieldOf(self, e, sc, g):
        t = self.x.type_of(e.obj, sc)
        if not is_list(t):
            return self.possessive(self.src(e.obj, sc, g), t, e.name, g, who=self.x.env_key(e.obj, sc), span=e.span)
        coll = self.iterable(e.obj, sc, g)
        v = g.var("x")
        inner = g.inner()
        if self.elems_nn(e.obj, sc, g):
            inner.nn = inner.nn | {v}
        one = self.possessive(v, t[1], e.name, inner, who="$of", span=e.span)
        if one is None:
            return None
        if one == f"m.modified({v}, {e.name!r})":     # a modified field of cards: the table looked up once
            return f"m.modified_all({coll}, {e.name!r})"
        return f"[{one} for {v} in {coll}]"

    def held(self, e, sc, g) -> str:
        """The state's own list of the cards in zone `e` (not a copy); none stops the game."""
        z = self.src(e, sc, g)
        if self.nn(e, sc, g):       # a zone's name, a zone of a player never none
            return f"m.zones[{z}]"
        t, first = self.bind(z, g)
        return f"(m.zones[{t}] if {first} is not None else _raise_no_zone({self.span(e.span)}))"

    def local_held(self, e, sc, g) -> str | None:
        """`p's deck` / `your discard` with p a plain read: one index, no zone key built."""
        local = self.x.local_zone(e, sc)
        if local is None:
            return None
        keys, key = local
        owner = "env['$you']" if key == "$you" else self.key(e.owner, sc, g)
        if owner is None:
            return None
        if owner in g.nn:
            seat = self.seat_const(owner)
            if seat is not None:
                return f"m.zones[{self.const(keys[seat])}]"
            return f"m.zones[{self.const(keys)}[{owner}]]"
        t, first = self.bind(owner, g)
        return (f"(m.zones[{self.const(keys)}[{t}]] if {first} is not None "
                f"else _raise_no_zone({self.span(e.span)}))")

    def g_CardsIn(self, e, sc, g):
        if self.x.type_of(e.zone, sc) == ZONE:
            h = self.local_held(e.zone, sc, g) or self.held(e.zone, sc, g)
            return f"list({h})"
        if not is_list(self.x.type_of(e.zone, sc)):
            return None
        if self.nn(e.zone, sc, g):          # `cards in every battlefield`: the zones in order
            k, c = g.var("z"), g.var("c")
            return f"[{c} for {k} in {self.fixed_keys(self.iterable_value(e.zone, sc, g))} for {c} in m.zones[{k}]]"
        return f"_cards_in(m, {self.src(e.zone, sc, g)}, {self.span(e.zone.span)})"

    def g_EveryZone(self, e, sc, g):
        if getattr(self.d.zones.get(e.name), "per_entity", None) is not None:
            return None             # every entity's zone: the closure (compile_expr.x_EveryZone)
        return f"{self.const(list(self.p.zone_keys[e.name]))}[: m.n_players]"

    def g_TopCard(self, e, sc, g):
        idx = -1 if e.place == "top" else 0
        h = self.local_held(e.zone, sc, g) or self.held(e.zone, sc, g)
        t = g.var()
        return f"({t}[{idx}] if ({t} := {h}) else None)"

    # ------------------------------------------------------------------ players
    def g_PlayersExpr(self, e, sc, g):
        # while nobody is out (most of a game), every seat: a slice of the seats' constant list
        # (`m.st.out` has a flag per seat, `m.n_players` of them; MAX_PLAYERS bounds every game);
        # else the seats whose flag is not set, picked in C (itertools.compress: no comprehension)
        seats = self.seats()
        return (f"({seats}[: m.n_players] if True not in m.st.out "
                f"else list({self.const(compress)}({seats}, {self.const(map)}({self.const(not_)}, m.st.out))))")

    def fixed_keys(self, src: str) -> str:
        """A list of zones only walked (`loop`, `g_CardsIn`) that is a join of lists written out of
        zone keys bound by names (`seat_const`'s: `line(seat 1) + line(seat 2)`): one tuple of
        them, bound by a name, made now (a tuple: nothing can change it), else `src` itself."""
        if not _FIXED_KEYS.fullmatch(src):
            return src
        keys = tuple(self.pool.ns.get(n) for n in _KEY_NAME.findall(src))
        if not all(k.__class__ is str for k in keys):
            return src
        return self.const(self.__dict__.setdefault("_fixed", {}).setdefault(keys, keys))

    def seat_const(self, src: str) -> int | None:
        """The seat a player's source is, where it is a constant (`seat 1` of a seat every game
        has, g_SeatPlayer: a name bound to the number), else None."""
        v = self.pool.ns.get(src) if src.startswith("_k") else None
        return v if v.__class__ is int else None

    def seats(self) -> str:
        """The constant list of every seat a game may have (0 .. MAX_PLAYERS - 1), sliced to the
        game's players where every seat is meant: a new list, built without a call."""
        seats = self.__dict__.get("_seats")
        if seats is None:
            seats = self._seats = list(range(max(self.p.game.max_players, MAX_PLAYERS, 1)))
        return self.const(seats)

    def g_AllPlayers(self, e, sc, g):
        return "list(range(m.n_players))"

    def g_Opponents(self, e, sc, g):
        p, gone = g.var("p"), g.var("g")
        return f"[{p} for {p}, {gone} in enumerate(m.st.out) if not {gone} and {p} != env['$you']]"

    def g_ListExpr(self, e, sc, g):
        if any(_may_hold_lists(self.x.type_of(i, sc)) for i in e.items):
            return None
        return "[" + ", ".join(self.src(i, sc, g) for i in e.items) + "]"

    # ------------------------------------------------------------------ calls
    def g_Call(self, e, sc, g):
        b = BUILTIN_FUNCTIONS.get(e.name)
        if b is not None and len(e.args) == b.arity:
            arg = e.args[0]
            if e.name == "count":
                if isinstance(arg, A.CardsIn):
                    if self.x.type_of(arg.zone, sc) != ZONE:
                        return None
                    h = self.local_held(arg.zone, sc, g) or self.held(arg.zone, sc, g)
                    return f"len({h})"
                if isinstance(arg, A.PlayersExpr):     # the players still in: no list built
                    return "m.st.out.count(False)"
                return f"len({self.collection(arg, sc, g)})"
            if e.name in ("sum", "highest", "lowest", "first", "any"):
                if e.name == "first":
                    t, v = g.var(), self.src(arg, sc, g)
                    if self.always_list(arg) or self.nn(arg, sc, g):
                        return f"({t}[0] if ({t} := {v}) else None)"
                    return (f"(({t}[0] if {t} else None) if ({t} := {v}) is not None "
                            f"else _raise_no_coll({self.span(arg.span)}))")
                a = self.collection(arg, sc, g)
                if e.name == "sum":
                    return f"_sum({a}, {self.span(e.span)})"
                if e.name in ("highest", "lowest") and self.elems_nn(arg, sc, g):
                    # no none to skip: max()/min() keep the first of equals, as _highest does
                    return f"{'max' if e.name == 'highest' else 'min'}({a}, default=None)"
                if e.name == "any":
                    return f"any([x is not None and x is not False for x in {self.iterable(arg, sc, g)}])"
                return f"_{e.name}({a})"
            return None
        if e.name in self.d.defines:
            return self.define_call(e, sc, g)
        return None

    def define_call(self, e, sc, g):
        d = self.d.defines[e.name]
        types = tuple(self.x.type_of(a, sc) for a in e.args)
        key = (e.name, types)
        fn = self._defines.get(key)
        if fn is None:
            fn = self._defines[key] = self.pool.fresh_name("d")     # the name first: a define may call itself
            inner = Scope(dict(zip(d.params, types)), instance=("define", e.name, types))
            body = self.src(d.expr, inner, Gen())
            self.pool.compile(f"def {fn}(m, env):\n    return {body}\n", fn, f"define {e.name}")
        args = [self.src(a, sc, g) for a in e.args]
        inline = self.inline_define(e.name, d, types, args, g, [self.nn(a, sc, g) for a in e.args])
        if inline is not None:
            return inline
        items = [f"{p!r}: {a}" for p, a in zip(d.params, args)] + ["'$you': env.get('$you')"]
        return f"{fn}(m, {{{', '.join(items)}}})"

    def recursive(self, name: str) -> bool:
        """Whether the define `name` calls itself, directly or through other defines."""
        memo = self.__dict__.setdefault("_recursive", {})
        if name not in memo:
            seen, stack, found = set(), [name], False
            while stack and not found:
                for node in _nodes(self.d.defines[stack.pop()].expr):
                    if isinstance(node, A.Call) and node.name in self.d.defines:
                        found = found or node.name == name
                        if node.name not in seen:
                            seen.add(node.name)
                            stack.append(node.name)
            memo[name] = found
        return memo[name]

    def inline_define(self, name, d, types, args, g, nns=None) -> str | None:
        """The define's body written in place of the call, its parameters replaced by the
        arguments, when that means the same as the call: an argument that is a variable (a
        comprehension's, or a local read from env) is read where the body reads it (once, many
        times or never: the same); any other is evaluated first, in order, once, into a variable
        of its own (`(body if ((_a1 := arg),) else None)`), as the call evaluates its arguments
        (its errors, its random draws, the work it charges: the same); the body reads nothing of
        the frame besides (no `env` in it but the arguments: no `you`, no `it` outside its own
        comprehensions, no closure's fallback); it is not a define inside itself; and it is short
        (MAX_INLINE). What is known never none of an argument is known of the parameter."""
        if name in self._inlining or self.recursive(name):
            return None
        nns = nns or [False] * len(args)
        names, binds, nn = [], [], set(g.nn)
        for a, known in zip(args, nns):
            if _SIMPLE_ARG.fullmatch(a):
                names.append(a)
                if known:
                    nn.add(a)
                continue
            v = g.var("a")
            binds.append(f"({v} := {a})")
            names.append(v)
            if known:
                nn.add(v)
        self._inlining.add(name)
        try:
            ig = Gen(g.tmp)
            ig.names, ig.depth, ig.nn, ig.types = dict(zip(d.params, names)), g.depth, frozenset(nn), g.types
            body = self.src(d.expr, Scope(dict(zip(d.params, types)), instance=("define", name, types)), ig)
        finally:
            self._inlining.discard(name)
        rest = body.replace(_YOU_PASSED, "")   # a call in it passes on `you`: the caller's, inlined or not
        for a in names:
            rest = rest.replace(a, "")
        if "env" in rest or len(body) > MAX_INLINE:
            return None
        if binds:
            return f"({body} if ({', '.join(binds)},) else None)"
        return f"({body})"

    # ------------------------------------------------------------------ collections
    def hoisted(self, parts, sc, g: Gen, inner: Gen, bound: str | None = None) -> str:
        """What each element of a comprehension reads the same, worked out once before it: a
        field of `this` (not modified, not a part's) where `this` is never none (`known`); a
        player's attribute (of a name or `you` never none) or the game's, read plainly
        (`_PLAIN_ATTR`: not modified), its owner not the comprehension's own (`it`, or `bound`, the
        name a map binds; nor any name a comprehension inside binds: those are not looked into).
        Each a read that cannot raise, charge work or change between elements (an expression
        changes no state). Returns the clause `for _h1, ... in ((...),) ` that binds them, first,
        and sets `inner.hoist`; '' for none."""
        found: dict = {}        # source → the nodes it is the value of
        if "env['$this']" in g.nn:
            for part in parts:
                for node in _nodes(part):
                    if isinstance(node, A.FieldAccess) and isinstance(node.obj, A.This):
                        name = node.name
                    elif isinstance(node, A.Possessive) and isinstance(node.owner, A.This):
                        name = node.name
                    else:
                        continue
                    if (id(node) in g.hoist or name in self.p.modified_fields or name in self.p.part_labels
                            or self.x.type_of(node.obj if isinstance(node, A.FieldAccess) else node.owner, sc) != CARD):
                        continue
                    found.setdefault(self.card_field_of("env['$this']", name), []).append(node)
        stack = list(parts)
        while stack:
            node = stack.pop()
            if isinstance(node, (list, tuple)):
                stack.extend(node)
                continue
            if not is_dataclass(node) or isinstance(node, (A.WhereExpr, A.ExprMap)):
                continue        # (a comprehension inside may bind a name of its own)
            if id(node) not in g.hoist and self.invariant_attr(node, sc, bound):
                src = self.src(node, sc, g)
                if _PLAIN_ATTR.fullmatch(src):
                    found.setdefault(src, []).append(node)
                    continue
            stack.extend(getattr(node, f) for f in _field_names(type(node)))
        if not found:
            return ""
        hoist = dict(g.hoist)
        names, srcs = [], []
        for src, nodes in found.items():
            h = g.var("h")
            names.append(h)
            srcs.append(src)
            for node in nodes:
                hoist[id(node)] = h
        inner.hoist = hoist
        if len(names) == 1:
            return f"for {names[0]} in ({srcs[0]},) "
        return f"for {', '.join(names)} in (({', '.join(srcs)}),) "

    def invariant_attr(self, node, sc, bound) -> bool:
        """Whether `node` reads a player's or the game's attribute of an owner a comprehension
        binding `it` and `bound` does not change: `p's x` (p a rule's name or a parameter, not
        `bound`), `your x`, the game's `x` (what `hoisted` may work out once)."""
        if isinstance(node, A.Your):
            return True
        if isinstance(node, A.Possessive) and isinstance(node.owner, A.Name) and node.owner.name != bound:
            return (self.x.kind_of(node.owner, sc) in ("local", "param")
                    and self.x.type_of(node.owner, sc) == PLAYER)
        if isinstance(node, A.Name):
            return self.x.kind_of(node, sc) == "game_attr"
        return False

    def loop(self, v: str, e, sc, g: Gen, span) -> str:
        """The `for` clause that walks collection `e` with `v`, charged as `charged` charges it.
        `cards in <zones>` (a list of zones never none: `cards in every battlefield`) walks each
        zone's own list in turn: the list of all their cards is not built, its length (the sum
        of theirs) charged first (`_charged_zones`), before any element is looked at, as when
        it was built (an expression moves no card: the zones stay as they were)."""
        if (isinstance(e, A.CardsIn) and self.x.type_of(e.zone, sc) != ZONE and is_list(self.x.type_of(e.zone, sc))
                and self.nn(e.zone, sc, g)):
            z = g.var("z")
            zs = self.fixed_keys(self.iterable_value(e.zone, sc, g))
            return f"for {z} in _charged_zones(m, {zs}, {self.span(span)}) for {v} in m.zones[{z}]"
        return f"for {v} in {self.charged(e, sc, g, span)}"

    def g_WhereExpr(self, e, sc, g):
        t = self.x.type_of(e.coll, sc)
        v = g.var("x")
        walk = self.loop(v, e.coll, sc, g, e.span)
        inner = g.inner()
        inner.it = v
        if self.elems_nn(e.coll, sc, g):
            inner.nn = inner.nn | {v}
        first = self.hoisted((e.cond,), sc, g, inner)
        cond = self.test(e.cond, sc.child(it_type=t[1] if is_list(t) else ANY), inner)
        return f"[{v} {first}{walk} if {cond}]"

    def g_ExprMap(self, e, sc, g):
        t = self.x.type_of(e.coll, sc)
        inner_sc = sc.child()
        inner_sc.locals[e.name] = t[1] if is_list(t) else ANY
        if _may_hold_lists(self.x.type_of(e.expr, inner_sc)):
            return None         # a list of lists counts its items as it is built: the closure does
        v = g.var("x")
        walk = self.loop(v, e.coll, sc, g, e.span)
        inner = g.inner()
        inner.names[e.name] = v
        if self.elems_nn(e.coll, sc, g):
            inner.nn = inner.nn | {v}
        first = self.hoisted((e.expr, e.cond), inner_sc, g, inner, e.name)
        fn = self.src(e.expr, inner_sc, inner)
        cond = f" if {self.test(e.cond, inner_sc, inner)}" if e.cond is not None else ""
        return f"[{fn} {first}{walk}{cond}]"

    # ------------------------------------------------------------------ logic and arithmetic
    def g_OrChain(self, e, sc, g):
        return "(True if " + " or ".join(f"({self.src(i, sc, g)})" for i in e.items) + " else False)"

    def test(self, e, sc, g: Gen) -> str:
        """`e` where only its truth is asked (a comprehension's `if`, a modifier's `while`): an
        `and` / `or` / `not` of tests written bare, without the chain's `True if ... else False`
        (the closures' `and` and `any()` ask each item's truth, as Python's `and` / `or` do)."""
        if g.depth < MAX_DEPTH and not (g.hoist and id(e) in g.hoist):
            if isinstance(e, A.AndChain):
                return "(" + " and ".join(f"({t})" for t in self.chain(e.items, sc, g, self.test)) + ")"
            if isinstance(e, A.OrChain):
                return "(" + " or ".join(f"({self.test(i, sc, g)})" for i in e.items) + ")"
        return self.src(e, sc, g)

    def g_AndChain(self, e, sc, g):
        return "(True if " + " and ".join(f"({t})" for t in self.chain(e.items, sc, g, self.src)) + " else False)"

    def chain(self, items, sc, g: Gen, write) -> list:
        """The items of an `and`, each written (`write`: `src` or `test`) knowing what the items
        before it tell when they hold (`narrow`): Python's `and` reaches an item only when every
        one before it was true. What they tell holds for that chain only."""
        saved = g.nn, g.types
        out = []
        try:
            for n, item in enumerate(items):
                out.append(write(item, sc, g))
                if n + 1 < len(items):
                    self.narrow(item, sc, g)
        finally:
            g.nn, g.types = saved
        return out

    def narrow(self, e, sc, g: Gen) -> None:
        """What `e` being true tells of a plain read (`it`, a name, `this`): `x is a T`, T a card
        type, that x is a card of type T (`m.card_types[x] == T`, none is no card): not none, and
        its record holds every field T declares (`read_field`)."""
        if isinstance(e, A.IsA) and e.type_name in self.d.card_types and e.type_name not in self.d.entities:
            v = self.key(e.operand, sc, g)
            if v is not None and _SIMPLE_ARG.fullmatch(v):
                g.nn = g.nn | {v}
                g.types = {**g.types, v: e.type_name}

    def g_NotOp(self, e, sc, g):
        return f"(not {self.src(e.operand, sc, g)})"

    def g_Compare(self, e, sc, g):
        a, b = self.src(e.left, sc, g), self.src(e.right, sc, g)
        op = e.op
        if op == "=":
            return f"({a} == {b})"
        if op == "!=":
            return f"({a} != {b})"
        span = self.span(e.span)
        # each side tested in turn (left, then right), unless it cannot be none
        sides = []
        for side, src in ((e.left, a), (e.right, b)):
            if self.nn(side, sc, g):
                sides.append(src)
            else:
                x = g.var()
                sides.append(f"({x} if ({x} := {src}) is not None else _raise_none_cmp({span}))")
        return f"({sides[0]} {op} {sides[1]})"

    def g_IsEmpty(self, e, sc, g):
        neg = e.negated
        if isinstance(e.operand, A.PlayersExpr):   # `players is empty`: nobody is still in
            return f"((False in m.st.out) == {neg!r})"
        if self.x.type_of(e.operand, sc) == ZONE:
            h = self.local_held(e.operand, sc, g) or self.held(e.operand, sc, g)
        else:
            h = self.src(e.operand, sc, g)
        return f"bool({h})" if neg else f"(not ({h}))"

    def g_IsIn(self, e, sc, g):
        if isinstance(e.coll, A.StackExpr):
            return f"(({self.src(e.item, sc, g)} in m.stacked_cards()) != {e.negated!r})"
        t = self.x.type_of(e.coll, sc)
        item = self.src(e.item, sc, g)
        neg = e.negated
        if t == ZONE or isinstance(e.coll, A.CardsIn) and self.x.type_of(e.coll.zone, sc) == ZONE:
            z = e.coll if t == ZONE else e.coll.zone
            h = self.local_held(z, sc, g) or self.held(z, sc, g)
            return f"({item} {'not in' if neg else 'in'} {h})"
        if isinstance(e.coll, A.CardsIn):
            z = self.src(e.coll.zone, sc, g)
            return f"(_in_zones(m, {item}, {z}, {self.span(e.coll.zone.span)}) != {neg!r})"
        return f"({item} {'not in' if neg else 'in'} {self.collection(e.coll, sc, g)})"

    def g_IsA(self, e, sc, g):
        if e.type_name in self.d.entities:
            return None             # an entity's kind: the closure (compile_expr.x_IsA)
        a = self.src(e.operand, sc, g)
        if self.nn(e.operand, sc, g):
            return f"(m.card_types[{a}] == {e.type_name!r})"
        t = g.var()
        return f"(({t} := {a}) is not None and m.card_types[{t}] == {e.type_name!r})"

    def g_Arith(self, e, sc, g):
        if e.op == "+" and is_list(self.x.type_of(e, sc)):     # lists joined (compile_lang.join)
            a, b = self.static_len(e.left, sc), self.static_len(e.right, sc)
            if a is not None and b is not None and a + b <= MAX_COLLECTION and self.nn(e.right, sc, g):
                # neither none nor too long, whatever they hold: `+` (the left evaluated first, as there)
                return f"({self.collection(e.left, sc, g)} + {self.src(e.right, sc, g)})"
            return (f"_join({self.collection(e.left, sc, g)}, {self.src(e.right, sc, g)}, "
                    f"{self.span(e.right.span)}, {self.span(e.span)})")
        fn = {"+": "_add", "-": "_sub", "*": "_mul"}.get(e.op, "_div")
        a, b = self.src(e.left, sc, g), self.src(e.right, sc, g)
        if fn == "_div":
            return f"_div({a}, {b}, {self.span(e.span)})"
        op = e.op
        if self.rng(e, sc) is not None:         # within MAX_RUNTIME_NUMBER whatever the operands
            return f"({a} {op} {b})"
        span, r = self.span(e.span), g.var("r")
        a_nn, b_nn = self.nn(e.left, sc, g), self.nn(e.right, sc, g)
        # (the bound as two tests of the variable, not a chained comparison: a constant and two
        # stack shuffles fewer, the same outcome)
        bounded = f"({r} := {{}} {op} {{}}) <= {_BIG} and {r} >= {-_BIG}"
        if a_nn and b_nn:
            return f"({r} if {bounded.format(a, b)} else _too_large({r}, {span}))"
        # Written out as `_add` does it: both operands evaluated, in order; then none and the
        # bound tested; the call itself only on the way to the error it raises
        xa = a if _PURE.fullmatch(a) or (a_nn and _PLAIN_ATTR.fullmatch(a)) else g.var()
        xb = b if _PURE.fullmatch(b) or (b_nn and _PLAIN_ATTR.fullmatch(b)) else g.var()
        tests = []
        for src, x, known in ((a, xa, a_nn), (b, xb, b_nn)):
            if x != src:
                tests.append(f"(({x} := {src}) is not None)")
            elif not known:
                tests.append(f"({x} is not None)")
        # `&` evaluates both (the right one may assign, or raise its own error first); a pure
        # right operand may be skipped: the fallback reads it again
        both = " & ".join(tests) if xb != b and len(tests) == 2 else " and ".join(tests)
        return f"({r} if {both} and {bounded.format(xa, xb)} else {fn}({xa}, {xb}, {span}))"

    # ------------------------------------------------------------------ issue 10 (interpreter/compile_lang.py)
    def g_IsFace(self, e, sc, g):
        t = g.var()
        return f"(({t} := {self.src(e.operand, sc, g)}) is not None and m.st.face_up[{t}] == {e.up!r})"

    def g_HasKeyword(self, e, sc, g):
        from .compile_lang import keyword_cards
        t = g.var()
        if self.p.dealt:
            # as compile_lang.x_HasKeyword: a dealt game's code may be shared by deals of the same
            # rules (Program's prefix), so the holders are this deal's, read as it runs
            return (f"(({t} := {self.src(e.operand, sc, g)}) is not None "
                    f"and ({t} in m.prog.keyword_holders[{e.keyword!r}]) is not {e.negated!r})")
        holders = self.const(keyword_cards(self.x).get(e.keyword, frozenset()))
        return (f"(({t} := {self.src(e.operand, sc, g)}) is not None "
                f"and ({t} in {holders}) is not {e.negated!r})")

    def g_CondExpr(self, e, sc, g):
        return f"(({self.src(e.then, sc, g)}) if ({self.src(e.cond, sc, g)}) else ({self.src(e.other, sc, g)}))"

    def g_SeatPlayer(self, e, sc, g):
        seat = e.seat - 1
        if seat < 0:
            return None
        if seat < self.p.game.min_players:
            # every game has that seat (Engine and a scenario refuse fewer players): the number,
            # by a name (a statement may test its owner `is None`, which Python warns of for a literal)
            return self.const(seat)
        return f"({seat} if {seat} < m.n_players else _no_seat(m, {seat}, {self.span(e.span)}))"

    def g_SeatOf(self, e, sc, g):
        t = g.var()
        return f"(None if ({t} := {self.src(e.player, sc, g)}) is None else {t} + 1)"

    def g_Modulo(self, e, sc, g):
        from .compile_lang import mod_values
        return f"{self.const(mod_values)}({self.src(e.left, sc, g)}, {self.src(e.right, sc, g)}, {self.span(e.span)})"

    def g_Neg(self, e, sc, g):
        return f"_neg({self.src(e.operand, sc, g)}, {self.span(e.span)})"
