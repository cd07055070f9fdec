"""Which parts of the state an expression reads, so `as soon as` conditions are re-checked
only after a change that could alter them (a move cannot end a game that ends on eliminations).

Parts are bits: ZONES (where cards are, face up or down), ATTRS (player, game and card
fields), OUT (who is still in the game), ALL when unsure.
"""
from __future__ import annotations

from dataclasses import fields, is_dataclass

from cardsmith.dsl import ast as A

ZONES, ATTRS, OUT = 1, 2, 4
ALL = ZONES | ATTRS | OUT

_DIRECT = {
    A.CardsIn: ZONES, A.TopCard: ZONES, A.TopCards: ZONES, A.EveryZone: 0,
    A.PlayersExpr: OUT, A.AllPlayers: 0, A.Opponents: OUT, A.WinnersExpr: OUT,
    A.Possessive: ATTRS | ZONES, A.Your: ATTRS | ZONES, A.FieldAccess: ATTRS, A.FieldOf: ATTRS | ZONES,
    A.IsA: 0, A.ActivePlayer: ALL,
    # face up or down is part of ZONES (a flip marks it); a step begins without marking anything,
    # and a random pick may change at every look: be safe
    A.IsFace: ZONES, A.HasKeyword: 0, A.CurrentStep: ALL, A.RandomPick: ALL, A.RandomNumber: ALL,
    A.PositionIn: ZONES, A.CardFrom: ZONES, A.NumberRange: 0, A.Otherwise: 0,
    A.HasSeen: ALL,         # the memory of who saw a card changes on a look too, which marks nothing
    A.PlaceMark: ATTRS,     # boards: a player's mark on a place (a place's field is a Possessive)
    A.AllEntities: ATTRS | ZONES, A.IsInPlay: ATTRS | ZONES,    # created / destroyed mark both
    A.EntityHolding: ATTRS | ZONES,
}


_FIELDS: dict = {}


def _field_names(cls) -> tuple:
    """A node class's field names but its span, once per class."""
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls) if f.name != "span")
    return names


_NODE_FIELDS: dict = {}    # class -> `_field_names` of an AST node's class, False for any other


def _node_fields(cls):
    """`_field_names` of a dataclass (an AST node's class), False for any other class, once per
    class (`is_dataclass` for every value met was most of a walk)."""
    names = _NODE_FIELDS[cls] = _field_names(cls) if is_dataclass(cls) else False
    return names


def _nodes(expr, seen: set | None = None):
    """Every AST node inside `expr` (lists, tuples and dicts' values opened), `expr` first, depth
    first; spans are not entered. `seen`: the ids of the nodes met, filled as it goes, each node
    then given once (a model's declarations share nodes)."""
    stack = [expr]
    pop, extend = stack.pop, stack.extend
    while stack:
        e = pop()
        if isinstance(e, (list, tuple)):
            extend(e)
        elif isinstance(e, dict):
            extend(e.values())
        else:
            names = _NODE_FIELDS.get(e.__class__)
            if names is None:
                names = _node_fields(e.__class__)
            if names is False:
                continue
            if seen is not None:
                if id(e) in seen:
                    continue
                seen.add(id(e))
            yield e
            extend([getattr(e, f) for f in names])


def reads(expr, decls, _seen: frozenset = frozenset()) -> int:
    """The state parts `expr` may read (defines are followed; names of attributes count as ATTRS)."""
    bits = 0
    for e in _nodes(expr):
        bits |= _DIRECT.get(type(e), 0)
        if isinstance(e, A.Name):
            if e.name in decls.game_fields:
                bits |= ATTRS
            elif e.name in decls.zones:
                bits |= ZONES
            elif e.name not in decls.zones and decls.member_enum(e.name) is None and e.name not in decls.enums:
                bits |= ATTRS        # a card field of `it`, or a local: be safe
        elif isinstance(e, A.Call) and e.name in decls.defines:
            if e.name in _seen:
                bits |= ALL
            else:
                bits |= reads(decls.defines[e.name].expr, decls, _seen | {e.name})
    return bits


# Expressions whose value follows from the parts above alone: where cards are and how they
# face, the attributes, who is out. Any other kind (the flow, the stack, the result, a random
# pick, a construct added later and not listed here) makes `versioned` say no.
_VERSIONED = frozenset({
    A.Num, A.Text, A.Bool, A.Nothing, A.Name, A.Call, A.FieldAccess, A.Possessive, A.Your, A.FieldOf,
    A.CardsIn, A.EveryZone, A.TopCard, A.TopCards, A.This, A.You, A.SeatPlayer, A.PlayersExpr,
    A.AllPlayers, A.Opponents, A.ListExpr, A.WhereExpr, A.ExprMap, A.OrChain, A.AndChain, A.NotOp,
    A.Compare, A.IsEmpty, A.IsIn, A.IsA, A.Arith, A.Neg, A.IsFace, A.HasKeyword, A.CondExpr, A.ItemOf,
    A.SortKey, A.SortedExpr, A.SeatOf, A.SeatExpr, A.SeatsFrom, A.Modulo,
})


def versioned(expr, decls, _seen: frozenset = frozenset()) -> bool:
    """Whether `expr` reads only what the machine's state version (`Machine.ver`) follows, so a
    value computed from it stays right until the version moves (defines are followed)."""
    for e in _nodes(expr):
        if type(e) not in _VERSIONED:
            return False
        if isinstance(e, A.Call) and e.name in decls.defines:
            if e.name in _seen or not versioned(decls.defines[e.name].expr, decls, _seen | {e.name}):
                return False
    return True


def names_in(expr, decls, _seen: frozenset = frozenset()) -> set:
    """Every name, field and word `expr` holds (defines followed): a superset of the fields it
    may read."""
    out: set = set()
    for e in _nodes(expr):
        for f in fields(e):
            v = getattr(e, f.name)
            out.update((v,) if isinstance(v, str) else (x for x in v if isinstance(x, str))
                       if isinstance(v, (list, tuple)) else ())
        if isinstance(e, A.Call) and e.name in decls.defines and e.name not in _seen:
            out |= names_in(decls.defines[e.name].expr, decls, _seen | {e.name})
    return out


# Statements that never change a card's, a player's or the game's field: every other statement
# (`set`, `add`, `subtract`, a roll into an attribute, one added later and not listed here) may.
_NOT_WRITING = frozenset({
    "MoveStmt", "ShuffleStmt", "FlipStmt", "LetStmt", "ChooseStmt", "AnnounceStmt", "EliminateStmt",
    "WinStmt", "LookStmt", "ScoreWinStmt", "DrawGameStmt", "StopStmt", "CallStmt", "CounterStmt",
    "NegateStmt", "SkipStmt", "ResolveStmt", "ExpectStmt", "SayStmt", "PlayStmt", "ExpectEventStmt",
    "StackDeckStmt", "IfStmt", "ForStmt", "RepeatStmt", "WhileStmt", "TimesStmt", "StepStmt", "TurnStmt",
    "MayStmt", "TakeActionsStmt", "SecretStmt", "ChooseManyStmt", "ChooseOneStmt", "DestroyStmt",
})


# Statements that write only their `target` (their other expression is read).
_TARGET_ONLY = frozenset({"SetStmt", "AddStmt", "SubtractStmt"})


def written_names(decls, cards) -> frozenset:
    """Every name a statement that may change a field holds anywhere in the game's declarations
    `decls` and its `cards`' abilities (dataclasses, dicts, lists and tuples are opened): a
    superset of the fields a rule can write. A card field not in it keeps its printed value all
    game. The declarations' part is kept on them (a game dealt from decks shares them, and its
    cards share their abilities with the declared ones: only what the walk has not seen is walked)."""
    memo = decls.__dict__.get("_written_names")
    if memo is None:
        seen: set = set()
        out: set = set()
        _walk_writes([decls], seen, out)
        memo = decls.__dict__["_written_names"] = (seen, out)
    seen, out = memo
    extra: set = set()
    mine = set()
    for card in cards:
        for ab in (*card.abilities, *(ab for ab, _ in card.bound)):
            if id(ab) not in seen:
                _walk_writes([ab], mine, extra)
    return frozenset(out | extra)


def _walk_writes(stack: list, seen: set, out: set) -> None:
    while stack:
        e = stack.pop()
        if isinstance(e, (str, int, float, bool)) or e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, dict):
            stack.extend(e.values())
        elif isinstance(e, (list, tuple)):
            stack.extend(e)
        elif is_dataclass(e):
            name = type(e).__name__
            if name.endswith("Stmt") and name not in _NOT_WRITING:
                # `set` / `add` / `subtract` write their target; the value or amount is only read
                for node in _nodes(e.target if name in _TARGET_ONLY else e):
                    for f in fields(node):
                        v = getattr(node, f.name)
                        out.update((v,) if isinstance(v, str) else (x for x in v if isinstance(x, str))
                                   if isinstance(v, (list, tuple)) else ())
            stack.extend(getattr(e, f) for f in _field_names(type(e)))


# The expressions a fixed condition may hold (Program._fixed_prefix): constants, comparisons,
# `and` / `or` / `not`, `this` and names (each name then checked by what it resolves to).
FIXED_NODES = frozenset({A.Num, A.Text, A.Bool, A.Nothing, A.Compare, A.NotOp, A.AndChain, A.OrChain,
                         A.This, A.Name, A.FieldAccess})
