"""Expressions in English: noun phrases and clauses, one `describe_<ClassName>` per expression
class of dsl/ast.py (registered in the registry of words.py).

    fighters where strength(it) = best   → "*fighters* whose strength is *best*"
    cards in box where it is a Unit      → "the Units in the box"
    highest(strength(p) for each p in fighters) → "the highest strength among *fighters*"
"""
from __future__ import annotations

from dataclasses import replace

from .. import ast as A
from ..registry import BUILTIN_FUNCTIONS
from ..types import CARD, FLAG, PLAYER, ZONE, elem, is_list
from .words import (EM_CLOSE, Ctx, Ref, agree, article, define_noun, describer, flag_predicate, human, join_and,
                    np, plural, possessive, quote, var)


# ================================================================ expressions: helpers

OPS = {"=": "is", "!=": "is not", "<": "is less than", "<=": "is at most", ">": "is more than",
       ">=": "is at least"}
ARITH = {"+": "plus", "-": "minus", "*": "times", "/": "divided by"}
PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}


def be(subject: str, verb: str) -> str:
    """`is` agrees with `you`."""
    if subject == "you" and verb.startswith("is"):
        return "are" + verb[2:]
    return verb


def poss(e, ctx: Ctx) -> str:
    """The possessive of a player or card: "their", "your", "this card's", "*w*'s"."""
    if isinstance(e, A.You):
        return ctx.you.poss
    if isinstance(e, A.Name):
        kind = ctx.kind_of(e)
        if kind == "it":
            return ctx.refs.get("it", Ref("it", "its")).poss
        if kind == "local" and e.name in ctx.refs:
            return ctx.refs[e.name].poss
        if kind == "param":
            return possessive(f"the {human(e.name)}")
    if isinstance(e, A.This):
        return "this card's"
    if isinstance(e, A.SeatPlayer):
        return f"seat {e.seat}'s"
    return possessive(np(e, ctx))              # "your opponents'", "the Knights'", never "Knights's"


def _simple(e) -> bool:
    return isinstance(e, (A.Name, A.You, A.This, A.ActivePlayer, A.SeatPlayer))


def _drop_the(text: str) -> str:
    return text[4:] if text.startswith("the ") else text


def _is_flag(e, ctx: Ctx) -> bool:
    return isinstance(e, (A.Name, A.Possessive, A.Your, A.FieldAccess, A.FieldOf, A.Call)) \
        and not (isinstance(e, A.Call) and _gives_flag(e.name)) and ctx.type_of(e) == FLAG


def _gives_flag(name: str) -> bool:
    """A built-in that gives yes/no (`any`) reads as a clause already: no "is yes" after it."""
    b = BUILTIN_FUNCTIONS.get(name)
    return b is not None and b.gives == "flag"


def cond(e, ctx: Ctx) -> str:
    """An expression used as a condition: a yes/no value reads as a clause about its owner
    ("this card is a Race Leader", "peace has been declared"), never "... is yes"."""
    if _is_flag(e, ctx):
        return flag_clause(e, ctx)
    return np(e, ctx)


def _flag_owner(e, ctx: Ctx) -> tuple[str | None, str] | None:
    """(the noun the flag is said of, the flag's name) for a flag read from a field or an attribute;
    the noun is None for a game attribute."""
    if isinstance(e, A.Name):
        kind = ctx.kind_of(e)
        if kind == "game_attr":
            return None, e.name
        if kind == "it_field":
            return ctx.refs.get("it", Ref("it", "its")).noun, e.name
        if kind == "this_field":
            return "this card", e.name
        return None
    if isinstance(e, A.Your):
        return ctx.you.noun, e.name
    if isinstance(e, A.Possessive):
        return np(e.owner, ctx), e.name
    if isinstance(e, (A.FieldAccess, A.FieldOf)) and not is_list(ctx.type_of(e.obj)):
        return np(e.obj, ctx), e.name
    return None


def flag_clause(e, ctx: Ctx, negated: bool = False) -> str:
    """A yes/no value as a clause: a flag by its display name (words.flag_predicate), a value
    defined by `define` by its name when the name is a predicate ("the player can add")."""
    owner = _flag_owner(e, ctx)
    if owner is not None:
        subject, name = owner
        label = ctx.labels.fields.get(name)
        if subject is None:                     # a game attribute: its display name is a whole clause
            if label:
                from .words import _negate_clause
                return _negate_clause(label) if negated else label
            subject = "the game"
        yes, no = flag_predicate(label, name)
        return f"{subject} {agree(subject, no if negated else yes)}"
    if isinstance(e, A.Call) and e.name in ctx.decls.defines:
        words = human(e.name)
        subject = np(e.args[0], ctx) if len(e.args) == 1 else None
        if words.split(" ", 1)[0] in ("is", "are", "has", "have", "can", "may", "must", "was", "will"):
            from .words import _negate_clause
            pred = _negate_clause(words) if negated else words
            if subject is None:
                return f"it {pred}" if len(e.args) == 0 else f"{pred} holds for {join_and([np(a, ctx) for a in e.args])}"
            return f"{subject} {agree(subject, pred)}"
        holds = "does not hold" if negated else "holds"
        target = f" for {join_and([np(a, ctx) for a in e.args])}" if e.args else ""
        return f"{quote(words)} {holds}{target}"
    text = np(e, ctx)
    return f"{text} {'does not hold' if negated else 'holds'}"


def _with_it(ctx: Ctx, coll) -> Ctx:
    c = ctx.child()
    c.scope.it_type = elem(ctx.type_of(coll))
    c.refs["it"] = Ref("it", "its")
    return c


# ---------------------------------------------------------------- relative clauses


def _is_subj(e, subj: str) -> bool:
    return isinstance(e, A.Name) and e.name == subj


def _attr_of(e, subj: str, ctx: Ctx) -> str | None:
    """"strength" when `e` reads a property of the element `subj` (`strength(it)`, `it's score`,
    `it.size`, a bare card field inside a `where` over cards)."""
    if isinstance(e, A.Call) and len(e.args) == 1 and _is_subj(e.args[0], subj) and e.name in ctx.decls.defines:
        return human(e.name) if ctx.type_of(e) == FLAG else define_noun(e.name)
    if isinstance(e, A.Possessive) and _is_subj(e.owner, subj):
        return ctx.field(e.name)
    if isinstance(e, A.FieldAccess) and _is_subj(e.obj, subj):
        return ctx.field(e.name)
    if isinstance(e, A.FieldOf) and _is_subj(e.obj, subj):
        return ctx.field(e.name)
    if isinstance(e, A.Name) and subj == "it" and ctx.kind_of(e) == "it_field":
        return ctx.field(e.name)
    return None


def _same_as_this(e, attr_name: str) -> bool:
    """`this.race` / `race of this` / a bare field of this card: the same field of this card."""
    if isinstance(e, (A.FieldAccess, A.FieldOf)) and isinstance(e.obj, A.This):
        return True
    return isinstance(e, A.Possessive) and isinstance(e.owner, A.This)


def _field_name_of(e) -> str | None:
    if isinstance(e, (A.FieldAccess, A.FieldOf, A.Possessive, A.Your)):
        return e.name
    if isinstance(e, A.Name):
        return e.name
    return None


def _rel_one(c, subj: str, ctx: Ctx) -> str | None:
    if isinstance(c, A.IsFace) and _is_subj(c.operand, subj):      # issue 10's tests of the element
        return f"that are face {'up' if c.up else 'down'}"
    if isinstance(c, A.HasKeyword) and _is_subj(c.operand, subj):
        return f"that {'do not have' if c.negated else 'have'} the keyword {c.keyword}"
    if isinstance(c, A.Compare):
        attr = _attr_of(c.left, subj, ctx)
        if attr is not None:
            if isinstance(c.right, A.Nothing):
                return f"with no {attr}" if c.op == "=" else f"with {article(attr)}"
            if c.op == "=" and _same_as_this(c.right, attr) and _field_name_of(c.right) == _field_name_of(c.left):
                return f"with the same {attr} as this card"
            return f"whose {attr} {OPS[c.op]} {np(c.right, ctx)}"
        if _is_subj(c.left, subj):
            if c.op == "!=":
                return f"other than {np(c.right, ctx)}"
            return f"that {OPS[c.op]} {np(c.right, ctx)}"
        return None
    if isinstance(c, A.IsIn):
        inside = _in_phrase(c.coll, ctx)
        if _is_subj(c.item, subj):
            return ("not " if c.negated else "") + inside
        attr = _attr_of(c.item, subj, ctx)
        if attr is not None:
            return f"whose {attr} is {'not ' if c.negated else ''}{inside}"
        return None
    if isinstance(c, A.IsEmpty):
        attr = _attr_of(c.operand, subj, ctx)
        if attr is not None:
            return f"whose {attr} is {'not ' if c.negated else ''}empty"
        return None
    if isinstance(c, A.NotOp):
        name = _flag_of_subj(c.operand, subj, ctx)
        if name is not None:
            return "that " + flag_predicate(ctx.labels.fields.get(name), name)[1]
        return None
    name = _flag_of_subj(c, subj, ctx)
    if name is not None:
        return "that " + flag_predicate(ctx.labels.fields.get(name), name)[0]
    return None


def _flag_of_subj(e, subj: str, ctx: Ctx) -> str | None:
    """The name of the flag `e` reads from the element `subj`, if it does."""
    if _attr_of(e, subj, ctx) is None or ctx.type_of(e) != FLAG or isinstance(e, A.Call):
        return None
    return _field_name_of(e)


def relative(condition, subj: str, ctx: Ctx) -> tuple[str, list[str]] | None:
    """The condition on `subj` as a relative clause, and the card types it requires
    ("whose faction is *f*", ["Unit"]); None when it does not read as one. `it is not this`
    puts "other" before the card type ("the other Ships in ...")."""
    parts = condition.items if isinstance(condition, A.AndChain) else (condition,)
    kinds: list[str] = []
    clauses: list[str] = []
    for c in parts:
        if isinstance(c, A.IsA) and _is_subj(c.operand, subj):
            kinds.append(c.type_name)
            continue
        if isinstance(c, A.Compare) and c.op == "!=" and _is_subj(c.left, subj) and isinstance(c.right, A.This):
            kinds.append(OTHER)
            continue
        r = _rel_one(c, subj, ctx)
        if r is None:
            return None
        clauses.append(r)
    return join_and(clauses), kinds


OTHER = "\x00other"       # in relative()'s kinds: the element is not this card


def _filtered(coll, condition, subj: str, ctx: Ctx, inner: Ctx) -> str:
    """`coll where condition` (with `subj` the element) as a noun phrase."""
    base = np(coll, ctx)
    rel = relative(condition, subj, inner)
    if rel is None:
        return f"{base} where {cond(condition, inner)}"
    clause, kinds = rel
    other = OTHER in kinds
    kinds = [k for k in kinds if k != OTHER]
    if len(kinds) <= 1 and isinstance(coll, A.CardsIn):
        noun = plural(kinds[0]) if kinds else "cards"
        base = f"the {'other ' if other else ''}{noun} in {np(coll.zone, ctx)}"
    else:
        if other:
            clause = join_and(["other than this card"] + ([clause] if clause else []))
        if kinds:
            extra = "that are " + join_and([article(k) for k in kinds])
            clause = join_and([extra] + ([clause] if clause else []))
    return f"{base} {clause}" if clause else base


def _in_phrase(coll, ctx: Ctx) -> str:
    """"in your discard" (a zone, or the cards in a zone), "in *taken*"."""
    if isinstance(coll, A.CardsIn):
        return f"in {np(coll.zone, ctx)}"
    return f"in {np(coll, ctx)}"


def _map_parts(e: A.ExprMap, ctx: Ctx) -> tuple[str, str, Ctx] | None:
    """(attribute, collection) when a map reads one property of each element:
    `strength(p) for each p in fighters` → ("strength", "*fighters*")."""
    inner = ctx.child()
    t = ctx.type_of(e.coll)
    inner.bind(e.name, elem(t))
    attr = _attr_of(e.expr, e.name, inner)
    if attr is None:
        return None
    coll = np(e.coll, ctx)
    if e.cond is not None:
        rel = relative(e.cond, e.name, inner)
        coll += " " + (rel[0] if rel and not rel[1] else f"where {cond(e.cond, inner)}")
    return attr, coll, inner


def _over(e: A.ExprMap, ctx: Ctx) -> tuple[str, str]:
    """(the value, "each *face* in *roll*") of a map that is not one property of each element."""
    inner = ctx.child()
    inner.bind(e.name, elem(ctx.type_of(e.coll)))
    over = f"each {var(e.name)} in {np(e.coll, ctx)}"
    if e.cond is not None:
        over += f" where {cond(e.cond, inner)}"
    return np(e.expr, inner), over


def _of_each(arg, ctx: Ctx) -> tuple[str, str] | None:
    """(attribute, collection) for `name of C` and maps over C."""
    if isinstance(arg, A.ExprMap):
        parts = _map_parts(arg, ctx)
        return (parts[0], parts[1]) if parts else None
    if isinstance(arg, A.FieldOf) and is_list(ctx.type_of(arg.obj)):
        return _named(arg.name, ctx), np(arg.obj, ctx)         # by its display name
    return None


# ================================================================ expressions


@describer
def describe_Num(e: A.Num, ctx: Ctx) -> str:
    return str(e.value)


@describer
def describe_Text(e: A.Text, ctx: Ctx) -> str:
    return quote(e.value)


@describer
def describe_Bool(e: A.Bool, ctx: Ctx) -> str:
    return "yes" if e.value else "no"


@describer
def describe_Nothing(e: A.Nothing, ctx: Ctx) -> str:
    return "nothing"


@describer
def describe_Name(e: A.Name, ctx: Ctx) -> str:
    kind = ctx.kind_of(e)
    if kind == "local":
        return ctx.refs.get(e.name, Ref(var(e.name), "")).noun
    if kind == "it":
        return ctx.refs.get("it", Ref("it", "its")).noun
    if kind == "param":
        return f"the {human(e.name)}"
    if kind == "it_field":
        return f"{ctx.refs.get('it', Ref('it', 'its')).poss} {ctx.field(e.name)}"
    if kind == "this_field":
        return f"this card's {ctx.field(e.name)}"
    if kind == "zone":
        return f"the {ctx.zone(e.name)}"
    if kind == "enum":
        return f"the {plural(e.name)}"
    if kind == "member":
        return ctx.member(e.name)
    if kind == "game_attr":
        return f"the {ctx.field(e.name)}"
    if e.name in ctx.refs:
        return ctx.refs[e.name].noun
    return human(e.name)


@describer
def describe_Call(e: A.Call, ctx: Ctx) -> str:
    args = e.args
    b = BUILTIN_FUNCTIONS.get(e.name)
    if b is not None and len(args) == b.arity:
        return SAYINGS[b.english](e, ctx)
    if e.name in ctx.decls.defines or b is None or b.takes == "player":
        words = define_noun(e.name) if e.name in ctx.decls.defines else human(e.name)   # "their units"
        if not args:
            return f"the {words}"
        if len(args) == 1 and (_simple(args[0]) or isinstance(args[0], A.Opponents) or _is_one_player(args[0], ctx)):
            return f"{poss(args[0], ctx)} {words}"
        return f"the {words} of {join_and([np(a, ctx) for a in args])}"
    return f"{human(e.name)}({', '.join(np(a, ctx) for a in args)})"


# ---------------------------------------------------------------- built-in functions
# One saying per built-in function, named by its entry in dsl/registry.py (BUILTIN_FUNCTIONS).


def say_count(e: A.Call, ctx: Ctx) -> str:
    return "the number of " + _drop_the(np(e.args[0], ctx))


def say_sum(e: A.Call, ctx: Ctx) -> str:
    arg = e.args[0]
    parts = _of_each(arg, ctx)
    if parts:
        return f"the total {parts[0]} of {parts[1]}"
    if isinstance(arg, A.ExprMap):
        value, over = _over(arg, ctx)
        return f"the total, over {over}, of {value}"
    return "the total of " + np(arg, ctx)


def _extreme(e: A.Call, ctx: Ctx) -> str:
    arg = e.args[0]
    if isinstance(arg, A.ListExpr) and len(arg.items) == 2:
        word = "higher" if e.name == "highest" else "lower"
        return f"the {word} of {np(arg.items[0], ctx)} and {np(arg.items[1], ctx)}"
    parts = _of_each(arg, ctx)
    if parts:
        return f"the {e.name} {parts[0]} among {parts[1]}"
    if isinstance(arg, A.ExprMap):
        value, over = _over(arg, ctx)
        return f"the {e.name}, over {over}, of {value}"
    return f"the {e.name} of {np(arg, ctx)}"


say_highest = say_lowest = _extreme


def say_first(e: A.Call, ctx: Ctx) -> str:
    arg = e.args[0]
    if isinstance(arg, A.Opponents) and ctx.two_players():
        return np(arg, ctx)                     # "your opponent": there is one
    if isinstance(arg, A.PlayersExpr):
        return "the first player in seat order still in the game"
    if isinstance(arg, A.CardsIn):
        return f"the first card in {np(arg.zone, ctx)}"
    if isinstance(arg, A.StackExpr):
        return "the card on top of the stack"
    t = elem(ctx.type_of(arg))
    noun = "player" if t == PLAYER else "card" if t == CARD or t in ctx.decls.card_types else None
    if noun is not None:
        return f"the first {noun} in {np(arg, ctx)}"
    return "the first of " + np(arg, ctx)


def say_any(e: A.Call, ctx: Ctx) -> str:
    arg = e.args[0]
    if isinstance(arg, A.ExprMap) and _map_parts(arg, ctx) is None:
        value, over = _over(arg, ctx)
        return f"for at least one of {over}, {value}"
    return "there is at least one of " + np(arg, ctx)


def say_clockwise_from(e: A.Call, ctx: Ctx) -> str:
    return f"the players in clockwise order starting with {np(e.args[0], ctx)}"


SAYINGS = {name: fn for name, fn in globals().items() if name.startswith("say_")}


def _named(name: str, ctx: Ctx) -> str:
    """A field, attribute or per-player zone after a possessive: its display name."""
    if name in ctx.decls.zones:
        return ctx.zone(name)
    return ctx.field(name)


@describer
def describe_FieldAccess(e: A.FieldAccess, ctx: Ctx) -> str:
    if _simple(e.obj) or isinstance(e.obj, A.Opponents):
        return f"{poss(e.obj, ctx)} {_named(e.name, ctx)}"
    return f"the {_named(e.name, ctx)} of {np(e.obj, ctx)}"


@describer
def describe_Possessive(e: A.Possessive, ctx: Ctx) -> str:
    if _simple(e.owner) or isinstance(e.owner, A.Opponents) or _is_one_player(e.owner, ctx):
        return f"{poss(e.owner, ctx)} {_named(e.name, ctx)}"
    return f"the {_named(e.name, ctx)} of {np(e.owner, ctx)}"


def _is_one_player(e, ctx: Ctx) -> bool:
    """`first(opponents)` in a game for two: "your opponent"."""
    return isinstance(e, A.Call) and e.name == "first" and len(e.args) == 1 \
        and isinstance(e.args[0], A.Opponents) and ctx.two_players()


@describer
def describe_Your(e: A.Your, ctx: Ctx) -> str:
    return f"{ctx.you.poss} {_named(e.name, ctx)}"


@describer
def describe_FieldOf(e: A.FieldOf, ctx: Ctx) -> str:
    if is_list(ctx.type_of(e.obj)):
        return f"the {plural(_named(e.name, ctx))} of {np(e.obj, ctx)}"
    if _simple(e.obj) or _is_one_player(e.obj, ctx):
        return f"{poss(e.obj, ctx)} {_named(e.name, ctx)}"
    return f"the {_named(e.name, ctx)} of {np(e.obj, ctx)}"


@describer
def describe_CardsIn(e: A.CardsIn, ctx: Ctx) -> str:
    return f"the cards in {np(e.zone, ctx)}"


@describer
def describe_EveryZone(e: A.EveryZone, ctx: Ctx) -> str:
    zd = ctx.decls.zones.get(e.name)
    if zd is not None and zd.per_entity is not None:       # a zone per an entity: every one in play
        from .english_entities import kind_word
        return f"every {kind_word(ctx.decls, zd.per_entity)}'s {ctx.zone(e.name)}"
    return f"every player's {ctx.zone(e.name)}"


@describer
def describe_TopCard(e: A.TopCard, ctx: Ctx) -> str:
    return f"the {e.place} card of {np(e.zone, ctx)}"


@describer
def describe_TopCards(e: A.TopCards, ctx: Ctx) -> str:
    return f"the {e.place} {np(e.count, ctx)} cards of {np(e.zone, ctx)}"


@describer
def describe_ActivePlayer(e: A.ActivePlayer, ctx: Ctx) -> str:
    return "the active player"


@describer
def describe_This(e: A.This, ctx: Ctx) -> str:
    return "this card"


@describer
def describe_You(e: A.You, ctx: Ctx) -> str:
    return ctx.you.noun


@describer
def describe_SeatPlayer(e: A.SeatPlayer, ctx: Ctx) -> str:
    return f"the player in seat {e.seat}"


@describer
def describe_StackExpr(e: A.StackExpr, ctx: Ctx) -> str:
    return "the cards on the stack (the last one put there first)"


@describer
def describe_WinnersExpr(e: A.WinnersExpr, ctx: Ctx) -> str:
    return "the winners"


@describer
def describe_PlayersExpr(e: A.PlayersExpr, ctx: Ctx) -> str:
    return "the players"


@describer
def describe_AllPlayers(e: A.AllPlayers, ctx: Ctx) -> str:
    return "all players"


@describer
def describe_Opponents(e: A.Opponents, ctx: Ctx) -> str:
    return f"{ctx.you.poss} {'opponent' if ctx.two_players() else 'opponents'}"


def _owned(e):
    """(owner, zone or field name) of `p's left_column` / `your hand`; None otherwise."""
    if isinstance(e, A.Possessive):
        return e.owner, e.name
    if isinstance(e, A.Your):
        return A.You(e.span), e.name
    return None


@describer
def describe_ListExpr(e: A.ListExpr, ctx: Ctx) -> str:
    if not e.items:
        return "nothing"
    # aggregate: "their left column, centre column and right column" (one owner said once)
    groups: list[tuple[str | None, list]] = []
    for item in e.items:
        o = _owned(item)
        key = np(o[0], ctx) if o is not None else None
        if key is not None and groups and groups[-1][0] == key:
            groups[-1][1].append(item)
        else:
            groups.append((key, [item]))
    if len(groups) == len(e.items):
        return join_and([np(i, ctx) for i in e.items])
    parts = []
    for key, items in groups:
        if key is None or len(items) == 1:
            parts.extend(np(i, ctx) for i in items)
        else:
            who = poss(_owned(items[0])[0], ctx)
            parts.append(f"{who} {join_and([_named(_owned(i)[1], ctx) for i in items])}")
    return ", ".join(parts[:-1]) + ", and " + parts[-1] if len(parts) > 1 else parts[0]


@describer
def describe_WhereExpr(e: A.WhereExpr, ctx: Ctx) -> str:
    if isinstance(e.coll, (A.GroupsOf, A.SubsetsOf)):      # `it` is one group (a combination search)
        return f"{np(e.coll, ctx)}, keeping each group where {cond(e.cond, _group_ctx(ctx, e.coll))}"
    return _filtered(e.coll, e.cond, "it", ctx, _with_it(ctx, e.coll))


@describer
def describe_ExprMap(e: A.ExprMap, ctx: Ctx) -> str:
    parts = _map_parts(e, ctx)
    if parts:
        return f"the {parts[0]} of each of {parts[1]}"
    value, over = _over(e, ctx)
    return f"{value}, for {over}"


def _empties(items, word: str, ctx: Ctx) -> str | None:
    """"X is not empty or Y is not empty" said once: "X or Y is not empty" (zones only, all the
    same test), which means the same with "or" and with "and"."""
    def zone(i):
        if not isinstance(i, A.IsEmpty):
            return None
        if isinstance(i.operand, A.CardsIn) and not isinstance(i.operand.zone, A.EveryZone):
            return i.operand.zone
        if not isinstance(i.operand, A.EveryZone) and ctx.type_of(i.operand) == ZONE:
            return i.operand
        return None
    zones = [zone(i) for i in items]
    if len(items) < 2 or any(z is None for z in zones) or len({i.negated for i in items}) != 1:
        return None
    verb = ("is" if word == "or" else "are") + (" not" if items[0].negated else "")
    return f"{join_and([np(z, ctx) for z in zones], word)} {verb} empty"


@describer
def describe_OrChain(e: A.OrChain, ctx: Ctx) -> str:
    said = _empties(e.items, "or", ctx)
    if said is not None:
        return said
    return join_and([cond(i, ctx) for i in e.items], "or")


def _neither(items, ctx: Ctx) -> str | None:
    """`not can_add(seat 1) and not can_add(seat 2)` → "neither the player in seat 1 nor the
    player in seat 2 can add": two denials of one yes/no value of two things."""
    if len(items) != 2 or not all(isinstance(i, A.NotOp) and _is_flag(i.operand, ctx) for i in items):
        return None
    said = []
    for i in items:
        o = i.operand
        if isinstance(o, A.Call) and len(o.args) == 1:
            subject = np(o.args[0], ctx)
        elif isinstance(o, A.Possessive):
            subject = np(o.owner, ctx)
        else:
            return None
        clause = flag_clause(o, ctx)
        if not clause.startswith(subject + " ") or subject == "you":
            return None
        said.append((subject, clause[len(subject) + 1:]))
    (a, pred_a), (b, pred_b) = said
    if pred_a != pred_b or a == b:
        return None
    return f"neither {a} nor {b} {pred_a}"


@describer
def describe_AndChain(e: A.AndChain, ctx: Ctx) -> str:
    said = _empties(e.items, "and", ctx) or _neither(e.items, ctx)
    if said is not None:
        return said
    parts = [f"({cond(i, ctx)})" if isinstance(i, A.OrChain) else cond(i, ctx) for i in e.items]
    return join_and(elide_subjects(parts))


SUBJECTS = ("this card ", "you ", "the player ", "it ")


def elide_subjects(parts: list[str]) -> list[str]:
    """Clauses with one subject say it once: "this card has X and this card is in your line" →
    "this card has X and is in your line" (only a clause right after one of the same subject)."""
    out = list(parts)
    for i in range(1, len(parts)):
        for subj in SUBJECTS:
            if parts[i].startswith(subj) and parts[i - 1].startswith(subj):
                rest = parts[i][len(subj):]
                if rest.split(" ", 1)[0] in ("is", "are", "has", "have", "can", "cannot", "does", "do", "was"):
                    out[i] = rest
                break
    return out


@describer
def describe_NotOp(e: A.NotOp, ctx: Ctx) -> str:
    inner = e.operand
    if _is_flag(inner, ctx):
        return flag_clause(inner, ctx, negated=True)
    if isinstance(inner, A.IsIn):
        return describe_IsIn(replace(inner, negated=not inner.negated), ctx)
    if isinstance(inner, A.IsEmpty):
        return describe_IsEmpty(replace(inner, negated=not inner.negated), ctx)
    if isinstance(inner, A.Compare) and inner.op in ("=", "!="):
        return describe_Compare(replace(inner, op="!=" if inner.op == "=" else "="), ctx)
    return f"it is not so that {cond(inner, ctx)}"


@describer
def describe_Compare(e: A.Compare, ctx: Ctx) -> str:
    if isinstance(e.right, A.Bool) and e.op in ("=", "!=") and _is_flag(e.left, ctx):
        return flag_clause(e.left, ctx, negated=(e.op == "=") != e.right.value)
    if (isinstance(e.left, A.Call) and e.left.name == "count" and len(e.left.args) == 1
            and isinstance(e.left.args[0], A.PlayersExpr) and isinstance(e.right, A.Num) and e.op == "="):
        n = e.right.value
        return ("no player is left in the game" if n == 0 else "only one player is left in the game" if n == 1
                else f"exactly {n} players are left in the game")
    if (isinstance(e.left, A.Call) and e.left.name == "count" and len(e.left.args) == 1 and e.op == "="
            and isinstance(e.right, A.Num) and e.right.value >= 0
            and isinstance(e.left.args[0], A.Name) and ctx.kind_of(e.left.args[0]) in ("local", "param")):
        t = elem(ctx.type_of(e.left.args[0]))
        noun = "player" if t == PLAYER else "card" if t == CARD else None
        if noun is not None:            # "there is exactly one player in *tied*"
            n = e.right.value
            many = noun if n == 1 else plural(noun)
            return (f"there is no {noun} in {np(e.left.args[0], ctx)}" if n == 0 else
                    f"there {'is' if n == 1 else 'are'} exactly {'one' if n == 1 else n} {many} in {np(e.left.args[0], ctx)}")
    same = _same_property(e.left, e.right, ctx) if e.op in ("=", "!=") else None
    if same is not None:
        a, b, what = same             # "column a and column b have the same column total"
        return f"{a} and {b} have {'the same' if e.op == '=' else 'different'} {what}"
    left = np(e.left, ctx)
    if isinstance(e.right, A.Nothing):
        chosen = _chosen(e.left, ctx)
        if chosen is not None:
            return f"{'no' if e.op == '=' else article(chosen).split(' ')[0]} {chosen} was chosen"
        return f"{left} {be(left, 'has')} {'no value' if e.op == '=' else 'a value'}".replace("you has", "you have")
    return f"{left} {be(left, OPS[e.op])} {np(e.right, ctx)}"


def _same_property(left, right, ctx: Ctx):
    """(a, b, property) when both sides read one property of two things: `column_total(x) =
    column_total(y)`, `p's score = q's score`; None otherwise."""
    if (isinstance(left, A.Call) and isinstance(right, A.Call) and left.name == right.name
            and left.name in ctx.decls.defines and len(left.args) == 1 == len(right.args)):
        return np(left.args[0], ctx), np(right.args[0], ctx), define_noun(left.name)
    if isinstance(left, A.Possessive) and isinstance(right, A.Possessive) and left.name == right.name:
        return np(left.owner, ctx), np(right.owner, ctx), _named(left.name, ctx)
    if (isinstance(left, (A.FieldAccess, A.FieldOf)) and isinstance(right, (A.FieldAccess, A.FieldOf))
            and left.name == right.name and not is_list(ctx.type_of(left.obj))):
        return np(left.obj, ctx), np(right.obj, ctx), _named(left.name, ctx)
    return None


def _chosen(e, ctx: Ctx) -> str | None:
    """The kind of thing a `chooses` bound to `e` ("Ship"), when `e` names a choice."""
    if isinstance(e, A.Name) and e.name in ctx.refs and ctx.refs[e.name].noun.startswith("the chosen "):
        return ctx.refs[e.name].noun[len("the chosen "):]
    return None


@describer
def describe_IsEmpty(e: A.IsEmpty, ctx: Ctx) -> str:
    t = ctx.type_of(e.operand)
    if isinstance(e.operand, A.PlayersExpr):
        return "some players are still in the game" if e.negated else "no player is left in the game"
    if isinstance(e.operand, A.CardsIn) and isinstance(e.operand.zone, A.EveryZone):
        zone = ctx.zone(e.operand.zone.name)
        return f"some player's {zone} has cards" if e.negated else f"no player's {zone} has cards"
    if isinstance(e.operand, A.CardsIn):
        return f"{np(e.operand.zone, ctx)} is {'not ' if e.negated else ''}empty"
    if isinstance(e.operand, A.StackExpr):
        return f"the stack is {'not ' if e.negated else ''}empty"
    if is_list(t):
        what = _drop_the(np(e.operand, ctx))
        return f"there is at least one of {what}" if e.negated else f"there are no {what}"
    return f"{np(e.operand, ctx)} is {'not ' if e.negated else ''}empty"


@describer
def describe_IsIn(e: A.IsIn, ctx: Ctx) -> str:
    if isinstance(e.item, (A.FieldOf, A.FieldAccess)) and e.item.name == "zone" \
            and elem(ctx.type_of(e.coll)) == ZONE and not isinstance(e.coll, A.PlayersExpr):
        who = np(e.item.obj, ctx)                  # `zone of this is in line(you)`: "this card is in your line"
        return f"{who} {be(who, 'is')} {'not ' if e.negated else ''}in {np(e.coll, ctx)}"
    item = np(e.item, ctx)
    if isinstance(e.coll, A.StackExpr):
        return f"{item} {be(item, 'is')} {'not ' if e.negated else ''}on the stack"
    if isinstance(e.coll, A.PlayersExpr):
        return f"{item} {be(item, 'is')} {'out of' if e.negated else 'still in'} the game"
    return f"{item} {be(item, 'is')} {'not ' if e.negated else ''}{_in_phrase(e.coll, ctx)}"


@describer
def describe_IsA(e: A.IsA, ctx: Ctx) -> str:
    item = np(e.operand, ctx)
    return f"{item} {be(item, 'is')} {article(e.type_name)}"


def _terms(e) -> list:
    """The terms of a sum: `a + b + c` → [a, b, c]."""
    if isinstance(e, A.Arith) and e.op == "+":
        return _terms(e.left) + _terms(e.right)
    return [e]


def _counted_zone(e):
    """`count(cards in p's deck)` → (p, "deck"); None for anything else."""
    if isinstance(e, A.Call) and e.name == "count" and len(e.args) == 1 and isinstance(e.args[0], A.CardsIn):
        z = e.args[0].zone
        if isinstance(z, A.Possessive):
            return z.owner, z.name
        if isinstance(z, A.Your):
            return A.You(z.span), z.name
        if isinstance(z, A.EveryZone):
            return EVERY, z.name
    return None


EVERY = A.Name(None, "\x00every player")     # the owner of `every hand`, for _aggregate_count


def _aggregate_count(e: A.Arith, ctx: Ctx) -> str | None:
    """A sum of counts of one player's zones, said once: "the number of cards in their deck,
    their hand and their discard together"."""
    terms = _terms(e)
    counted = [_counted_zone(t) for t in terms]
    if len(terms) < 2 or any(c is None for c in counted):
        return None
    owners = {"every" if c[0] is EVERY else np(c[0], ctx) for c in counted}
    if len(owners) != 1:
        return None
    who = "every player's" if counted[0][0] is EVERY else poss(counted[0][0], ctx)
    return f"the number of cards in {who} {join_and([ctx.zone(c[1]) for c in counted])} together"


@describer
def describe_Arith(e: A.Arith, ctx: Ctx) -> str:
    if e.op == "+" and _joins(e, ctx):
        return describe_join(e, ctx)
    if e.op == "+":
        aggregated = _aggregate_count(e, ctx)
        if aggregated is not None:
            return aggregated

    def side(x, right: bool) -> str:
        text = np(x, ctx)
        if isinstance(x, A.Arith) and (PRECEDENCE[x.op] < PRECEDENCE[e.op]
                                       or (right and PRECEDENCE[x.op] == PRECEDENCE[e.op])):
            return f"({text})"
        return text
    text = f"{side(e.left, False)} {ARITH[e.op]} {side(e.right, True)}"
    return text + (", rounded down" if e.op == "/" else "")


@describer
def describe_Neg(e: A.Neg, ctx: Ctx) -> str:
    if isinstance(e.operand, A.Num):
        return f"-{e.operand.value}"
    return f"minus {np(e.operand, ctx)}"


# ---------------------------------------------------------------- the expressions of issue 10
# (face up / down, keywords, if-then-else, lists joined and indexed, random picks, sorted by,
# the current step, seats, mod)


def _joins(e: A.Arith, ctx: Ctx) -> bool:
    """Whether `a + b` joins lists: typed a list, or a side is one (a define's body is typed
    once per call signature, so its merged type may be 'a value')."""
    return any(isinstance(x, A.ListExpr) or is_list(ctx.type_of(x)) for x in (e, e.left, e.right))


def describe_join(e: A.Arith, ctx: Ctx) -> str:
    """`hand + [c]`: "the cards in your hand, then c"."""
    def part(x) -> str:
        if isinstance(x, A.ListExpr):
            return join_and([np(i, ctx) for i in x.items]) or "nothing"
        return np(x, ctx)
    return f"{part(e.left)}, followed by {part(e.right)}"


@describer
def describe_IsFace(e: A.IsFace, ctx: Ctx) -> str:
    item = np(e.operand, ctx)
    return f"{item} {be(item, 'is')} face {'up' if e.up else 'down'}"


@describer
def describe_HasSeen(e: A.HasSeen, ctx: Ctx) -> str:
    who, item = np(e.player, ctx), np(e.card, ctx)
    return f"{who} {'have' if who == 'you' else 'has'} seen {item}"


@describer
def describe_HasKeyword(e: A.HasKeyword, ctx: Ctx) -> str:
    item = np(e.operand, ctx)
    verb = "has" if item not in ("you", "they") else "have"
    return f"{item} {'does not have' if e.negated else verb} the keyword {e.keyword}"


@describer
def describe_CondExpr(e: A.CondExpr, ctx: Ctx) -> str:
    return f"{np(e.then, ctx)} if {cond(e.cond, ctx)}, otherwise {np(e.other, ctx)}"


_ORDINALS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh",
             8: "eighth", 9: "ninth", 10: "tenth"}


@describer
def describe_ItemOf(e: A.ItemOf, ctx: Ctx) -> str:
    if isinstance(e.index, A.Num) and e.index.value in _ORDINALS:
        return f"the {_ORDINALS[e.index.value]} of {np(e.coll, ctx)}"
    return f"item number {np(e.index, ctx)} of {np(e.coll, ctx)} (counting from 1)"


@describer
def describe_RandomPick(e: A.RandomPick, ctx: Ctx) -> str:
    noun = e.noun if e.noun not in ("item", "one", "member") else "one"
    if isinstance(e.coll, A.CardsIn) and noun == "card":
        return f"a card picked at random from {np(e.coll.zone, ctx)}"
    return f"{'one' if noun == 'one' else article(noun)} picked at random from {np(e.coll, ctx)}"


@describer
def describe_RandomNumber(e: A.RandomNumber, ctx: Ctx) -> str:
    return f"a number from {np(e.low, ctx)} to {np(e.high, ctx)} picked at random (each as likely)"


@describer
def describe_SortedExpr(e: A.SortedExpr, ctx: Ctx) -> str:
    inner = _with_it(ctx, e.coll)
    keys = []
    for k in e.keys:
        what = _attr_of(k.expr, "it", inner)
        what = f"their {what}" if what is not None else np(k.expr, inner)
        keys.append(f"{what}, {'highest' if k.highest_first else 'lowest'} first")
    then = "; then by ".join(keys)
    return f"{np(e.coll, ctx)} in order of {then}"


@describer
def describe_CurrentStep(e: A.CurrentStep, ctx: Ctx) -> str:
    return f"the name of the current {e.kind}"


@describer
def describe_SeatOf(e: A.SeatOf, ctx: Ctx) -> str:
    return f"{poss(e.player, ctx)} seat number"


@describer
def describe_SeatExpr(e: A.SeatExpr, ctx: Ctx) -> str:
    if isinstance(e.seat, (A.Num, A.Name)):
        return f"the player in seat {np(e.seat, ctx)}"
    return f"the player whose seat number is {np(e.seat, ctx)}"


@describer
def describe_SeatsFrom(e: A.SeatsFrom, ctx: Ctx) -> str:
    n = np(e.count, ctx)
    seats = "seat" if n == "1" else "seats"
    return f"the player {n} {seats} to the {e.side} of {np(e.player, ctx)} (around the table)"


@describer
def describe_Modulo(e: A.Modulo, ctx: Ctx) -> str:
    return f"the remainder of {np(e.left, ctx)} divided by {np(e.right, ctx)}"


# ---- issue 18's expressions: numbers as options, positions, defaults
@describer
def describe_NumberRange(e: A.NumberRange, ctx: Ctx) -> str:
    return f"the numbers from {np(e.low, ctx)} to {np(e.high, ctx)}"


@describer
def describe_PositionIn(e: A.PositionIn, ctx: Ctx) -> str:
    where = np(e.coll.zone, ctx) if isinstance(e.coll, A.CardsIn) else np(e.coll, ctx)
    return f"the position of {np(e.item, ctx)} in {where} (counting from 1)"


@describer
def describe_CardFrom(e: A.CardFrom, ctx: Ctx) -> str:
    if isinstance(e.index, A.Num) and e.index.value in _ORDINALS:
        return f"the {_ORDINALS[e.index.value]} card from the {e.place} of {np(e.zone, ctx)}"
    return f"card number {np(e.index, ctx)} from the {e.place} of {np(e.zone, ctx)} (counting from 1)"


@describer
def describe_Otherwise(e: A.Otherwise, ctx: Ctx) -> str:
    return f"{np(e.value, ctx)} (or {np(e.default, ctx)} when there is no such value)"


# ---- issue 18's combination searches
def _group_ctx(ctx: Ctx, coll) -> Ctx:
    """Inside a combination search `it` is one group: said "the group"."""
    inner = ctx.child()
    t = ctx.type_of(coll)
    inner.scope.it_type = elem(t) if isinstance(coll, (A.GroupsOf, A.SubsetsOf)) else ("list", elem(t))
    inner.refs["it"] = Ref("the group", "the group's")
    return inner


@describer
def describe_GroupsOf(e: A.GroupsOf, ctx: Ctx) -> str:
    noun = e.noun if e.noun not in (None, "items", "ones", "elements", "values", "things") else "of them"
    return f"every group of {np(e.size, ctx)} {noun} that can be taken from {np(e.coll, ctx)}"


@describer
def describe_SubsetsOf(e: A.SubsetsOf, ctx: Ctx) -> str:
    return f"every group of one or more that can be taken from {np(e.coll, ctx)}"


@describer
def describe_BestArrangement(e: A.BestArrangement, ctx: Ctx) -> str:
    inner = _group_ctx(ctx, e.coll)
    return (f"the groups to lay out from {np(e.coll, ctx)} (no two sharing anything, each group where "
            f"{cond(e.cond, inner)}) whose scores add up to the most, a group's score being "
            f"{np(e.score, inner)} (anything in no group is left over)")


def say_last(e: A.Call, ctx: Ctx) -> str:
    arg = e.args[0]
    if isinstance(arg, A.CardsIn):
        return f"the last card in {np(arg.zone, ctx)}"
    return f"the last of {np(arg, ctx)}"


SAYINGS["say_last"] = say_last
