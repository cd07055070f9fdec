"""One entry per construct of the language, naming every handler it needs.

A construct is an AST statement, expression or ability class (dsl/ast.py), a built-in function
(`count(...)`, `clockwise_from(...)`) or a built-in event (`moved`, `step_started`, ...).
Which handlers a construct needs depends on its kind:

    kind           handlers it needs
    expression     type (Typer.t_X), compile (ExprCompiler.x_X), english (DESCRIBERS["X"]),
                   listing (explain.WRITERS["X"]: the operand as written, for `cardsmith explain`)
    statement      check (BodyChecker.s_X), compile (StmtCompiler.s_X), english (DESCRIBERS["X"]),
                   diagram (diagrams.WALKERS["X"])
    ability        english (DESCRIBERS["X"]); an ability is checked and compiled with the card
                   or declaration that holds it, not by a handler per class
    function       takes / gives (its type rule, data here), compile (ExprCompiler.<compile>),
                   english (phrases.<english>)
    event          params with types, when / would (its English, data here), announcer (the
                   engine function that raises it)

Expressions need no diagram (the phase diagram walks statements) and no separate check (typing
an expression is checking it); statements need no type rule (they have no value). A statement's
log phrase is written by the instructions its compile handler emits, so it is not a handler of
its own; declared events are logged by the machine, built-in events are not logged at all.

The handlers stay where the pipeline puts them (typer, checker, compiler, publisher) and are
found here by name: `HANDLERS` says, per handler kind, which module and which class or table
holds them and how a handler is named there. The registry never imports the interpreter at
import time: a handler is looked up when it is asked for (`handler`, `dispatch`), so dsl/ stays
below interpreter/. `missing()` walks every entry and `strays()` every table; the one test,
tests/test_registry.py, asserts both are empty, so a construct added without one of its
handlers, or a handler left behind by a construct taken away, fails the suite, not a game.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable, get_args

from . import ast as A

EXPRESSION, STATEMENT, ABILITY, FUNCTION, EVENT = "expression", "statement", "ability", "function", "event"


# ================================================================ where handlers live


@dataclass(frozen=True)
class HandlerKind:
    """Handlers of one kind for one kind of construct: `host` in `module`, named `prefix + key`
    (a class's method) or keyed by the construct's name (a dict)."""
    name: str               # "type", "check", "compile", "english", "diagram", "listing"
    construct: str          # EXPRESSION | STATEMENT | ABILITY | FUNCTION
    module: str
    host: str
    prefix: str = ""

    def host_object(self):
        return getattr(importlib.import_module(self.module), self.host)

    def find(self, key: str, host=None):
        """The handler for construct `key` (a class name, or a built-in's handler name), or None."""
        h = self.host_object() if host is None else host
        if isinstance(h, dict):
            return h.get(self.prefix + key)
        return getattr(h, self.prefix + key, None)


_PKG = __name__.rsplit(".", 2)[0]       # "cardsmith"

HANDLERS: tuple[HandlerKind, ...] = (
    HandlerKind("type", EXPRESSION, f"{_PKG}.dsl.types", "Typer", "t_"),
    HandlerKind("compile", EXPRESSION, f"{_PKG}.interpreter.compile_expr", "ExprCompiler", "x_"),
    HandlerKind("english", EXPRESSION, f"{_PKG}.dsl.publish.english", "DESCRIBERS"),
    HandlerKind("listing", EXPRESSION, f"{_PKG}.interpreter.explain", "WRITERS"),
    HandlerKind("check", STATEMENT, f"{_PKG}.dsl.checks.bodies", "BodyChecker", "s_"),
    HandlerKind("compile", STATEMENT, f"{_PKG}.interpreter.compile_stmt", "StmtCompiler", "s_"),
    HandlerKind("english", STATEMENT, f"{_PKG}.dsl.publish.english", "DESCRIBERS"),
    HandlerKind("diagram", STATEMENT, f"{_PKG}.dsl.publish.diagrams", "WALKERS"),
    HandlerKind("english", ABILITY, f"{_PKG}.dsl.publish.english", "DESCRIBERS"),
    # a built-in function's handlers are named by its entry (BuiltinFunction.compile / .english)
    HandlerKind("compile", FUNCTION, f"{_PKG}.interpreter.compile_expr", "ExprCompiler"),
    HandlerKind("english", FUNCTION, f"{_PKG}.dsl.publish.phrases", "SAYINGS"),
)


def handler_kind(name: str, construct: str) -> HandlerKind:
    for hk in HANDLERS:
        if hk.name == name and hk.construct == construct:
            return hk
    raise KeyError(f"no handler kind {name!r} for {construct}s")


# ================================================================ statements and expressions


@dataclass(frozen=True)
class Construct:
    """A statement, expression or ability class of dsl/ast.py and the handler kinds it needs."""
    cls: type
    kind: str               # EXPRESSION | STATEMENT | ABILITY

    @property
    def name(self) -> str:
        return self.cls.__name__

    @property
    def needs(self) -> tuple[str, ...]:
        return tuple(hk.name for hk in HANDLERS if hk.construct == self.kind)

    def handler(self, name: str, host=None):
        return handler_kind(name, self.kind).find(self.name, host)


CONSTRUCTS: dict[type, Construct] = {
    **{cls: Construct(cls, EXPRESSION) for cls in get_args(A.Expr)},
    **{cls: Construct(cls, STATEMENT) for cls in get_args(A.Stmt)},
    **{cls: Construct(cls, ABILITY) for cls in get_args(A.Ability)},
}


def dispatch(name: str, kind: str, host) -> dict[type, Callable]:
    """{AST class: handler} for handler kind `name` over the constructs of `kind`, read from
    `host` (the class or table that holds them). Built once by the module that dispatches, when
    it is imported; a construct without a handler is left out (tests/test_registry.py names it)."""
    hk = handler_kind(name, kind)
    out = {}
    for cls, c in CONSTRUCTS.items():
        if c.kind == kind:
            fn = hk.find(c.name, host)
            if fn is not None:
                out[cls] = fn
    return out


# ================================================================ built-in functions


@dataclass(frozen=True)
class BuiltinFunction:
    """`name(argument)`: one argument of kind `takes`, a value of kind `gives`.

    takes: "collection" (any list), "numbers" (a list of numbers), "player", "place" (a place of a
           board; `arity` of them)
    gives: "number", "flag", "element" (an element of the collection), "players" (a list),
           "places" (a list of places)
    compile: the ExprCompiler method that builds its closure, fn(compiler, call, sc, arg)
    english: the function in phrases.SAYINGS that says it, fn(call, ctx) -> noun phrase
    """
    name: str
    takes: str
    gives: str
    compile: str
    english: str
    example: str            # the hint when it is called with the wrong number of arguments
    arity: int = 1

    @property
    def on_collection(self) -> bool:
        return self.takes in ("collection", "numbers")

    @property
    def always_list(self) -> bool:
        """Its value is always a list (never none): readers need no check."""
        return self.gives in ("players", "places")


def _fn(name, takes, gives, example, arity: int = 1) -> BuiltinFunction:
    return BuiltinFunction(name, takes, gives, "b_" + name, "say_" + name, example, arity)


_COLL = "write {0}(cards in p's deck) or {0}(x for each x in C)"

BUILTIN_FUNCTIONS: dict[str, BuiltinFunction] = {f.name: f for f in (
    _fn("count", "collection", "number", _COLL.format("count")),
    _fn("sum", "numbers", "number", _COLL.format("sum")),
    _fn("highest", "numbers", "number", _COLL.format("highest")),
    _fn("lowest", "numbers", "number", _COLL.format("lowest")),
    _fn("first", "collection", "element", _COLL.format("first")),
    _fn("last", "collection", "element", _COLL.format("last")),
    _fn("any", "collection", "flag", _COLL.format("any")),
    _fn("clockwise_from", "player", "players", "write clockwise_from(the active player)"),
    # boards (docs/language.md, "Places on a board"): the same as `the places adjacent to s` and
    # `the distance from a to b` (interpreter/compile_boards.py)
    _fn("adjacent", "place", "places", "write adjacent(s), s a place of a board"),
    _fn("distance", "place", "number", "write distance(a, b), a and b places of a board", arity=2),
)}


# ================================================================ built-in events


@dataclass(frozen=True)
class BuiltinEvent:
    """An event the engine raises itself; abilities listen to it like a declared one.

    params: (name, type) pairs, the names an ability on it sees
    when:   "When <when>:" in the rulebook;  would: "If <would>, instead:"
    announcer: "module:Qualified.name" of the engine function that announces it
    """
    name: str
    params: tuple[tuple[str, str], ...]
    when: str
    would: str
    announcer: str


EVENTS: dict[str, BuiltinEvent] = {}


def _event(name: str, params, when: str, would: str, announcer: str) -> str:
    EVENTS[name] = BuiltinEvent(name, tuple(params), when, would, f"{_PKG}.interpreter.{announcer}")
    return name


# The engine announces these by the constants (`m.announce(MOVED, ...)`); the order is the
# rulebook's.
MOVED = _event("moved", (("card", "card"), ("from_zone", "zone"), ("to_zone", "zone")),
               "a card moves from one zone to another", "a card would move", "machine:Machine._moved")
# `learners`: the players who did not know the card before (docs/language.md, "Who has seen a card")
REVEALED = _event("revealed", (("card", "card"), ("learners", ("list", "player"))),
                  "a card is revealed", "a card would be revealed", "machine:Machine._moved")
FLIPPED = _event("flipped", (("card", "card"),),
                 "a card is turned over", "a card would be turned over", "machine:Machine.flip")
STEP_STARTED = _event("step_started", (("step", "text"),),
                      "a step begins", "a step would begin", "machine:Machine.begin_step")
STEP_ENDED = _event("step_ended", (("step", "text"),),
                    "a step ends", "a step would end", "machine:Machine.end_step")
ROUND_STARTED = _event("round_started", (),
                       "a round begins", "a round would begin", "machine:Machine.begin_round")
TURN_STARTED = _event("turn_started", (("player", "player"),),
                      "a turn begins", "a turn would begin", "machine:Machine.begin_turn")
ELIMINATED = _event("eliminated", (("player", "player"),),
                    "a player is eliminated", "a player would be eliminated", "machine:Machine.eliminate")
ACTION_USED = _event("action_used", (("card", "card"), ("player", "player")),
                     "a player uses an action", "a player would use an action", "resolver:use")
RESOLVED = _event("resolved", (("card", "card"), ("negated", "flag")),
                  "an effect has resolved", "an effect would resolve", "resolver:build_after_resolve")
# a triggered ability put on the stack as an item (`stack ...: holds triggered abilities`), so a
# response window that opens after it can answer it before it resolves
TRIGGERED = _event("triggered", (("card", "card"), ("player", "player")),
                   "a triggered ability goes on the stack", "a triggered ability would go on the stack",
                   "triggers:Triggers._stack_triggers")
COUNTERED = _event("countered", (("card", "card"),),
                   "an effect is countered", "an effect would be countered", "resolver:counter")
# `card` the card targeted, or `target` the player targeted (the other one none)
TARGETED = _event("targeted", (("card", "card"), ("source", "card"), ("player", "player"), ("ability", "text"),
                               ("target", "player")),
                  "a card or a player becomes the target of an action",
                  "a card or a player would become the target of an action",
                  "resolver:commit")

# entities (docs/language.md, "entity"): `when created where entity is a ship:`; `entity` is one of
# any kind, `player` its owner
CREATED = _event("created", (("entity", ("entity", None)), ("player", "player")),
                 "an entity is created", "an entity would be created", "entities:create")
DESTROYED = _event("destroyed", (("entity", ("entity", None)), ("player", "player")),
                   "an entity is destroyed", "an entity would be destroyed", "entities:destroy")


def announcer(ev: BuiltinEvent):
    """The engine function named as the announcer of `ev`, or None."""
    module, _, qual = ev.announcer.partition(":")
    obj = importlib.import_module(module)
    for part in qual.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


# ================================================================ completeness


def missing(constructs=None, functions=None, events=None, hosts=None) -> list[tuple[str, str]]:
    """Every (construct, handler) that the registry asks for and nobody provides. `hosts` may
    replace a handler kind's host ({(name, construct kind): host}), as the test of the test does."""
    constructs = CONSTRUCTS if constructs is None else constructs
    functions = BUILTIN_FUNCTIONS if functions is None else functions
    events = EVENTS if events is None else events
    hosts = hosts or {}

    def host(name, kind):
        hk = handler_kind(name, kind)
        return hosts.get((name, kind)) or hk.host_object()

    gaps: list[tuple[str, str]] = []
    for c in constructs.values():
        for need in c.needs:
            if c.handler(need, host(need, c.kind)) is None:
                gaps.append((c.name, need))
    for f in functions.values():
        if f.takes not in ("collection", "numbers", "player", "place"):
            gaps.append((f.name, "takes"))
        if f.gives not in ("number", "flag", "element", "players", "places"):
            gaps.append((f.name, "gives"))
        if handler_kind("compile", FUNCTION).find(f.compile, host("compile", FUNCTION)) is None:
            gaps.append((f.name, "compile"))
        if handler_kind("english", FUNCTION).find(f.english, host("english", FUNCTION)) is None:
            gaps.append((f.name, "english"))
    for ev in events.values():
        if not ev.when:
            gaps.append((ev.name, "when"))
        if not ev.would:
            gaps.append((ev.name, "would"))
        if announcer(ev) is None:
            gaps.append((ev.name, "announcer"))
    return gaps


def strays(constructs=None, functions=None, hosts=None) -> list[tuple[str, str]]:
    """Every (handler kind, key) that a table or class holds and no construct claims: a handler
    left behind when its construct was renamed or taken away. Handler kinds that share a host
    (DESCRIBERS: expressions, statements and abilities) are checked together; a class is read
    only by its handler kinds' prefixes (ExprCompiler's x_, not its helpers). `hosts` as in
    `missing`."""
    constructs = CONSTRUCTS if constructs is None else constructs
    functions = BUILTIN_FUNCTIONS if functions is None else functions
    hosts = hosts or {}
    groups: dict[tuple[str, str], list[HandlerKind]] = {}
    for hk in HANDLERS:
        groups.setdefault((hk.module, hk.host), []).append(hk)
    gaps: list[tuple[str, str]] = []
    for kinds in groups.values():
        given = [hosts[(hk.name, hk.construct)] for hk in kinds if (hk.name, hk.construct) in hosts]
        h = given[0] if given else kinds[0].host_object()
        claims: dict[str, str] = {}         # key -> the handler kind that claims it
        for hk in kinds:
            if hk.construct == FUNCTION:
                names = [getattr(f, hk.name) for f in functions.values()]
            else:
                names = [c.name for c in constructs.values() if c.kind == hk.construct]
            claims.update({hk.prefix + n: hk.name for n in names})
        if isinstance(h, dict):
            held = list(h)
        else:
            prefixes = tuple(hk.prefix for hk in kinds if hk.prefix)
            held = [a for a in vars(h) if prefixes and a.startswith(prefixes)]
        gaps += [(kinds[0].name, key) for key in held if key not in claims]
    return gaps
