"""The rules in English: one describer per AST node, for the rulebook and the diagrams.

    move top card of p's deck to p's battlefield face up
      → "Move the top card of their deck to their battlefield, face up."

Every statement, expression and ability class of dsl/ast.py has a function named
`describe_<ClassName>` — statements and abilities here, expressions in phrases.py — collected
in DESCRIBERS (tests/test_registry.py fails when a node has none, so a new node cannot reach
the language without its rulebook sentence). Expressions give noun phrases or clauses (`str`);
statements and abilities give `Line`s, a sentence with the lines nested under it (a block).
This module is the public face: the helpers of words.py and phrases.py are reachable from it.

Names the rules give (parameters, `let`, `chooses`, `for each`) are wrapped in the markers
EM_OPEN / EM_CLOSE; the renderers turn them into emphasis (`*best*`, `<em>best</em>`) or drop
them (`plain`). Text from the file (names of cards, prompts, doc strings) never carries them.
A player bound by `for each p in players` or a procedure's one player parameter is called
"the player" and "their"; the card of an ability is "this card"; `you` is "you".
"""
from __future__ import annotations

from dataclasses import replace

from .. import ast as A
from ..model import BUILTIN_EVENTS
from ..registry import EVENTS
from ..types import CARD, FLAG, PLAYER, ZONE, elem, is_list, ref_type
from .phrases import OPS, OTHER, be, cond, elide_subjects, flag_clause, poss, relative
from .words import (AUXILIARIES, DESCRIBERS, EM_CLOSE, EM_OPEN, Ctx, Labels, Line, Ref, article, cap, clean, describe,
                    define_noun, describe_block, describer, display_name, display_value, end, flatten, human, join_and,
                    labels_of, make_ctx, np, param_types, params_ctx, plain, plural, quote, title, var)
from . import english_dice as _dice  # noqa: F401  (its describers join DESCRIBERS: dice pools, supplies)
from . import english_entities as _entities  # noqa: F401  (its describers join DESCRIBERS: entities)
from . import english_boards as _boards  # noqa: F401  (its describers join DESCRIBERS: boards)

__all__ = ["DESCRIBERS", "EM_CLOSE", "EM_OPEN", "OPS", "Ctx", "Labels", "Line", "Ref", "ability_ctx", "article",
           "be", "blank_unless", "blocks_of", "cap", "card_effect", "card_effect_text", "clean", "cond",
           "describe", "describe_block", "describe_define", "describe_field", "describe_order_key",
           "describer", "display_name", "display_value", "end", "event_phrase", "flatten", "for_head",
           "human", "join_and", "labels_of", "make_ctx", "np", "param_types", "params_ctx", "plain",
           "plural", "poss", "quote", "secret_head", "title", "var"]


# ================================================================ statements


def _line(text: str, children=()) -> list[Line]:
    return [Line(text, tuple(children))]


def _subject(e, ctx: Ctx) -> str:
    return cap(np(e, ctx))


@describer
def describe_DocItem(s: A.DocItem, ctx: Ctx) -> list[Line]:
    return [Line(clean(s.text), (), "doc")]


@describer
def describe_MoveStmt(s: A.MoveStmt, ctx: Ctx) -> list[Line]:
    where = f"the {s.place} of {np(s.to, ctx)}" if s.place else np(s.to, ctx)
    face = f", face {s.face}" if s.face else ""
    return _line(f"Move {np(s.what, ctx)} to {where}{face}.")


@describer
def describe_ShuffleStmt(s: A.ShuffleStmt, ctx: Ctx) -> list[Line]:
    return _line(f"Shuffle {np(s.zone, ctx)}.")


@describer
def describe_FlipStmt(s: A.FlipStmt, ctx: Ctx) -> list[Line]:
    return _line(f"Turn {np(s.what, ctx)} face {s.face}.")


@describer
def describe_SetStmt(s: A.SetStmt, ctx: Ctx) -> list[Line]:
    if isinstance(s.value, A.Bool) and ctx.type_of(s.target) == FLAG:
        return _line(f"Now {flag_clause(s.target, ctx, negated=not s.value.value)}.")
    if isinstance(s.value, A.Nothing):
        return _line(f"Clear {np(s.target, ctx)}.")
    return _line(f"Set {np(s.target, ctx)} to {np(s.value, ctx)}.")


@describer
def describe_AddStmt(s: A.AddStmt, ctx: Ctx) -> list[Line]:
    return _line(f"Add {np(s.amount, ctx)} to {np(s.target, ctx)}.")


@describer
def describe_SubtractStmt(s: A.SubtractStmt, ctx: Ctx) -> list[Line]:
    return _line(f"Subtract {np(s.amount, ctx)} from {np(s.target, ctx)}.")


@describer
def describe_LetStmt(s: A.LetStmt, ctx: Ctx) -> list[Line]:
    value = np(s.value, ctx)
    ctx.bind(s.name, ctx.type_of(s.value))
    return _line(f"Let {var(s.name)} be {value}.")


def _prompt(prompt: str | None) -> str:
    return f" ({quote(prompt)})" if prompt else ""


def _kind_chosen(options, ctx: Ctx) -> str | None:
    """What a choice picks, to call it "the chosen Ship" afterwards: the one card type its
    options are filtered by, else the kind of its elements (a card, a player, an enum's member)."""
    if isinstance(options, A.WhereExpr):
        parts = options.cond.items if isinstance(options.cond, A.AndChain) else (options.cond,)
        kinds = [c.type_name for c in parts if isinstance(c, A.IsA) and isinstance(c.operand, A.Name)
                 and c.operand.name == "it"]
        if len(kinds) == 1:
            return kinds[0]
    t = elem(ctx.type_of(options))
    if t == CARD:
        return "card"
    if t == PLAYER:
        return "player"
    if isinstance(t, tuple) and len(t) == 2 and t[0] == "enum":
        return t[1]
    return None


def _bind_chosen(name: str, options, ctx: Ctx, into: Ctx) -> str:
    """Bind a chosen value by what it is ("the chosen Ship") and give the noun phrase of the choice
    ("one of the Ships in your line"); a name chosen twice in the block keeps its own name."""
    kind = _kind_chosen(options, ctx)
    t = elem(ctx.type_of(options))
    taken = any(r.noun == f"the chosen {kind}" for r in into.refs.values())
    if kind is None or taken:
        into.bind(name, t)
        return f"{var(name)} from {np(options, ctx)}"
    into.bind(name, t, Ref(f"the chosen {kind}", f"the chosen {kind}'s"))
    return f"one of {np(options, ctx)}"


@describer
def describe_ChooseStmt(s: A.ChooseStmt, ctx: Ctx) -> list[Line]:
    who = np(s.player, ctx)
    verb = "choose" if who == "you" else "chooses"
    what = _bind_chosen(s.name, s.options, ctx, ctx)
    return _line(f"{cap(who)} {verb} {what}{_prompt(s.prompt)}.")


def _event_phrase(name: str) -> str:
    return quote(human(name))


@describer
def describe_AnnounceStmt(s: A.AnnounceStmt, ctx: Ctx) -> list[Line]:
    ev = ctx.decls.events.get(s.event)
    names = [p.name for p in ev.params] if ev else [n for n, _ in BUILTIN_EVENTS.get(s.event, ())]
    if not s.args:
        return _line(f"Announce {_event_phrase(s.event)}.")
    if len(names) == len(s.args):
        parts = [f"its {human(n)} {'are' if is_list(ctx.type_of(a)) else 'is'} {np(a, ctx)}"
                 for n, a in zip(names, s.args)]
        return _line(f"Announce {_event_phrase(s.event)}: {join_and(parts)}.")
    return _line(f"Announce {_event_phrase(s.event)} for {join_and([np(a, ctx) for a in s.args])}.")


@describer
def describe_EliminateStmt(s: A.EliminateStmt, ctx: Ctx) -> list[Line]:
    return _line(f"Eliminate {np(s.player, ctx)}: they are out of the game.")


@describer
def describe_WinStmt(s: A.WinStmt, ctx: Ctx) -> list[Line]:
    who = np(s.player, ctx)
    if is_list(ctx.type_of(s.player)):      # a shared victory
        return _line(f"{cap(who)} win the game together; they share the victory.")
    return _line(f"{cap(who)} {'win' if who == 'you' else 'wins'} the game.")


@describer
def describe_LookStmt(s: A.LookStmt, ctx: Ctx) -> list[Line]:
    who = np(s.player, ctx)
    verb = "look" if who == "you" else "looks"
    return _line(f"{cap(who)} {verb} at {np(s.cards, ctx)} without showing them to anyone else.")


@describer
def describe_ScoreWinStmt(s: A.ScoreWinStmt, ctx: Ctx) -> list[Line]:
    return _line("The game ends: the player with the highest score wins; players tied for it share the victory.")


def describe_score(v: A.ScoreDecl, ctx: Ctx) -> str:
    """`score for p as p's points` → the rulebook's sentence about the players' score."""
    c = ctx.child()
    c.bind(v.player, PLAYER, Ref("the player", "the player's"))
    c.you = Ref("the player", "the player's")
    return f"A player's score is {plain(np(v.expr, c))}. Every player's score is told when the game ends."


def describe_measure(m: A.MeasureDecl, ctx: Ctx) -> str:
    """`measure "Big plays" counts event Big` → what `cardsmith simulate` reports for it, in words."""
    if m.event is not None:
        return f"{quote(m.name)}: how many times {_event_phrase(m.event)} is announced in a game."
    c = ctx.child()
    if m.player is not None:
        c.bind(m.player, PLAYER, Ref("the player", "the player's"))
        c.you = Ref("the player", "the player's")
        return f"{quote(m.name)}: for each player, {plain(np(m.expr, c))} when the game ends."
    return f"{quote(m.name)}: {plain(np(m.expr, c))} when the game ends."


def describe_group(g: A.GroupDecl, ctx: Ctx) -> str:
    """`group "Side" for p as p's side` → how `cardsmith simulate` groups the players, in words."""
    c = ctx.child()
    c.bind(g.player, PLAYER, Ref("the player", "the player's"))
    c.you = Ref("the player", "the player's")
    return f"{quote(g.name)}: the players grouped by {plain(np(g.expr, c))} when the game ends."


@describer
def describe_DrawGameStmt(s: A.DrawGameStmt, ctx: Ctx) -> list[Line]:
    return _line("The game ends in a draw.")


@describer
def describe_StopStmt(s: A.StopStmt, ctx: Ctx) -> list[Line]:
    return _line("Stop going through the list." if ctx.loop == "for" else "Stop repeating.")


def _see(ref: str | None) -> str:
    return f" ({ref})" if ref else ""


INLINE_STATEMENTS = 2      # a procedure of at most this many plain statements is read where it is called
INLINE_DEPTH = 4           # procedures read in place inside each other, at most (a chain of them stays calls)


_CALLS: dict[int, tuple[object, dict]] = {}


def call_counts(decls) -> dict[str, int]:
    """How many calls of each procedure the rules write (scenarios aside)."""
    hit = _CALLS.get(id(decls))
    if hit is not None and hit[0] is decls:
        return hit[1]
    counts: dict[str, int] = {}
    seen: set[int] = set()

    def walk(node):
        if id(node) in seen:
            return
        seen.add(id(node))
        if isinstance(node, A.CallStmt):
            counts[node.name] = counts.get(node.name, 0) + 1
        if isinstance(node, (list, tuple)):
            for x in node:
                walk(x)
        elif hasattr(node, "__dataclass_fields__"):
            for f in node.__dataclass_fields__:
                if f != "span":
                    walk(getattr(node, f))
    walk([list(decls.card_types.values()), decls.cards, list(decls.procedures.values()), decls.setup,
          decls.rounds, decls.end_checks, list(decls.keywords.values()), decls.windows])
    if len(_CALLS) > 16:
        _CALLS.clear()
    _CALLS[id(decls)] = (decls, counts)
    return counts


def _inline(s: A.CallStmt, proc, ctx: Ctx) -> list[Line] | None:
    """A procedure that only gives lines of the file a name reads at its call as the rule it is:
    a small one (`flip_to(this, active)`) with its parameters said as the arguments ("Set this
    card's side to active (§9.1)"), and one without parameters called from one place only (a
    step's `form_columns()`) as its whole body. Where it takes more than one sentence, they come
    under the procedure's name ("Play upon (§9.3):"), which a diagram's box shows."""
    if proc is None or len(proc.params) != len(s.args) or s.name in ctx.inlining or len(ctx.inlining) >= INLINE_DEPTH:
        return None
    ref = ctx.proc_refs.get(s.name)
    head = title(s.name) + _see(ref) + ":"
    if not proc.params:
        if call_counts(ctx.decls).get(s.name, 0) != 1 or any(isinstance(st, A.StopStmt) for st in proc.body):
            return None
        body = describe_block([st for st in proc.body if not isinstance(st, A.DocItem)],
                              ctx.child(inlining=ctx.inlining + (s.name,)))
        return [Line(head, tuple(body))]
    body = [st for st in proc.body if not isinstance(st, A.DocItem)]
    if not body or len(body) > INLINE_STATEMENTS or any(blocks_of(st) for st in body):
        return None
    if any(isinstance(st, (A.LetStmt, A.ChooseStmt, A.RollStmt, A.StopStmt)) for st in body):
        return None
    owners = _owner_names(body)
    if any(p in owners and not _says_simply(a) for p, a in zip(proc.params, s.args)):
        return None                             # "the first card in ...'s side": keep the call
    inner = ctx.child(inlining=ctx.inlining + (s.name,))
    for p, a in zip(proc.params, s.args):
        inner.bind(p, ctx.type_of(a), Ref(np(a, ctx), poss(a, ctx)))
    lines = describe_block(body, inner)
    if len(lines) == 1 and not lines[0].children and lines[0].text.endswith("."):
        # one sentence says it all: "Set this card's side to active (§9.1)."
        return [Line(lines[0].text[:-1] + _see(ref) + ".", (), lines[0].kind)]
    return [Line(head, tuple(lines))]     # the procedure's name, then what it does here


def _says_simply(e) -> bool:
    return isinstance(e, (A.Name, A.You, A.This, A.ActivePlayer, A.SeatPlayer))


def _owner_names(node) -> set[str]:
    """Names used as the owner of a field, attribute or zone anywhere in `node` (`p's deck`)."""
    out: set[str] = set()
    if isinstance(node, (list, tuple)):
        for x in node:
            out |= _owner_names(x)
        return out
    if isinstance(node, A.Possessive) and isinstance(node.owner, A.Name):
        out.add(node.owner.name)
    if isinstance(node, (A.FieldAccess, A.FieldOf)) and isinstance(node.obj, A.Name):
        out.add(node.obj.name)
    if hasattr(node, "__dataclass_fields__"):
        for f in node.__dataclass_fields__:
            if f != "span":
                out |= _owner_names(getattr(node, f))
    return out


@describer
def describe_CallStmt(s: A.CallStmt, ctx: Ctx) -> list[Line]:
    proc = ctx.decls.procedures.get(s.name)
    inlined = _inline(s, proc, ctx)
    if inlined is not None:
        return inlined
    ref = _see(ctx.proc_refs.get(s.name))
    head = title(s.name)
    if not s.args:
        return _line(f"{head}{ref}.")
    if len(s.args) == 1:
        return _line(f"{head} for {np(s.args[0], ctx)}{ref}.")
    if proc is not None and len(proc.params) == len(s.args):
        # each argument with the part it plays in the procedure, where its words do not say it already
        callee = params_ctx(ctx, s.name, proc.params)
        parts = [np(a, ctx) if (isinstance(a, A.Name) and a.name == p) or callee.refs[p].noun == "the player"
                 else f"{np(a, ctx)} (the {var(p)})" for p, a in zip(proc.params, s.args)]
    else:
        parts = [np(a, ctx) for a in s.args]
    return _line(f"{head}{ref} for {join_and(parts)}.")


@describer
def describe_RollStmt(s: A.RollStmt, ctx: Ctx) -> list[Line]:
    count = np(s.count, ctx)
    ctx.bind(s.name, ("list", ("list", "text")))
    return _line(f"Roll {count} {s.die} {'die' if count == '1' else 'dice'}; "
                 f"call the faces rolled {var(s.name)}.")


@describer
def describe_CounterStmt(s: A.CounterStmt, ctx: Ctx) -> list[Line]:
    return _line(f"Counter {np(s.target, ctx)}: it leaves the stack and never happens.")


@describer
def describe_NegateStmt(s: A.NegateStmt, ctx: Ctx) -> list[Line]:
    return _line(f"Negate {np(s.target, ctx)}: it resolves without effect.")


@describer
def describe_SkipStmt(s: A.SkipStmt, ctx: Ctx) -> list[Line]:
    return _line(f"Skip the next step {quote(s.step)} of this round.")


@describer
def describe_ResolveStmt(s: A.ResolveStmt, ctx: Ctx) -> list[Line]:
    if s.player is None:
        return _line(f"Resolve the text of {np(s.card, ctx)}: do what it says.")
    who = np(s.player, ctx)
    return _line(f"{cap(who)} {'resolve' if who == 'you' else 'resolves'} the text of {np(s.card, ctx)}: "
                 f"{'you do' if who == 'you' else 'they do'} what it says.")


@describer
def describe_ExpectStmt(s: A.ExpectStmt, ctx: Ctx) -> list[Line]:
    return _line(f"Check that {cond(s.cond, ctx)}.")


@describer
def describe_GiveStmt(s: A.GiveStmt, ctx: Ctx) -> list[Line]:
    return _line(f"The next answer of {np(s.player, ctx)} is {np(s.choice, ctx)}.")


@describer
def describe_SayStmt(s: A.SayStmt, ctx: Ctx) -> list[Line]:
    if s.values:
        return _line(end(f"Tell the players: {quote(s.text)}, with {join_and([np(v, ctx) for v in s.values])}"))
    return _line(end(f"Tell the players: {quote(s.text)}"))


def _event_said(event: str, where, ctx: Ctx) -> str:
    """`event moved where to_zone = discard` in words; the condition names the event's parameters."""
    inner = ctx.child()
    if event in ctx.decls.events:
        inner.scope.event_params = {p.name: ref_type(ctx.decls, p.type) for p in ctx.decls.events[event].params}
    else:
        inner.scope.event_params = dict(BUILTIN_EVENTS.get(event, ()))
    return f"a {event.replace('_', ' ')} event" + (f" where {cond(where, inner)}" if where is not None else "")


@describer
def describe_ExpectEventStmt(s: A.ExpectEventStmt, ctx: Ctx) -> list[Line]:
    said = _event_said(s.event, s.cond, ctx)
    if s.how == "not":
        return _line(f"Check that no {said[2:]} has happened.")
    if s.how == "before":
        return _line(f"Check that {said} happened before {_event_said(s.before_event, s.before_cond, ctx)}.")
    return _line(f"Check that {said} has happened.")


@describer
def describe_StackDeckStmt(s: A.StackDeckStmt, ctx: Ctx) -> list[Line]:
    names = [np(n, ctx) for n in s.names]
    order = f", {names[0]} {'on top' if s.place == 'top' else 'highest'}" if len(names) > 1 else ""
    return _line(f"Put {join_and(names)} from {np(s.zone, ctx)} on its {s.place}{order}.")


@describer
def describe_PlayStmt(s: A.PlayStmt, ctx: Ctx) -> list[Line]:
    if s.kind == "setup":
        return _line("Play the setup.")
    if s.kind == "rounds":
        return _line(f"Play {s.count} {'round' if s.count == 1 else 'rounds'}.")
    if s.kind == "until" and s.cond is not None:
        return _line(f"Play rounds until {cond(s.cond, ctx)}.")
    if s.kind == "until_step":
        return _line(f"Play until the step {quote(s.step)} would begin.")
    return _line("Play until the game ends.")


@describer
def describe_IfStmt(s: A.IfStmt, ctx: Ctx) -> list[Line]:
    out = []
    for i, (c, body) in enumerate(s.branches):
        head = "If" if i == 0 else "Otherwise, if"
        out.append(Line(f"{head} {cond(c, ctx)}:", tuple(describe_block(body, ctx.child()))))
    if s.else_body is not None:
        out.append(Line("Otherwise:", tuple(describe_block(s.else_body, ctx.child()))))
    return out


def _loop_player(name: str, ctx: Ctx, t) -> Ref | None:
    if elem(t) == PLAYER and ctx.pronoun_free():
        return Ref("the player", "their")
    return None


def for_head(s: A.ForStmt, ctx: Ctx) -> tuple[str, Ctx]:
    """"For each player, in seat order" and the context of the loop's body."""
    t = ctx.type_of(s.coll)
    inner = ctx.child(loop="for")
    ref = _loop_player(s.name, ctx, t)
    inner.bind(s.name, elem(t), ref)
    if ref is not None:
        order = ""
        if isinstance(s.coll, A.PlayersExpr):
            head, order = "For each player", ", in seat order"
        elif isinstance(s.coll, A.AllPlayers):
            head, order = "For each player", ", eliminated or not, in seat order"
        elif isinstance(s.coll, A.Opponents) and ctx.two_players():
            head = f"For {np(s.coll, ctx)}"
        else:
            head = f"For each player in {np(s.coll, ctx)}"
        if s.cond is not None:
            rel = relative(s.cond, s.name, inner)
            if rel and not rel[1] and rel[0]:
                head += f" {rel[0]}{order}"
            else:
                head += f"{order}, if {cond(s.cond, inner)}"
        else:
            head += order
    else:
        e = elem(t)
        noun = "card" if e == CARD or e in ctx.decls.card_types else "zone" if e == ZONE else None
        coll = s.coll
        rest = s.cond
        if isinstance(coll, A.WhereExpr) and rest is None:
            coll, rest = coll.coll, coll.cond
            name_it = "it"
        else:
            name_it = s.name
        where = ""
        if rest is not None:
            rel = relative(rest, name_it, _it_ctx(inner, coll) if name_it == "it" else inner)
            if rel is not None:
                clause, kinds = rel
                other = OTHER in kinds
                kinds = [k for k in kinds if k != OTHER]
                if len(kinds) == 1:
                    noun = kinds[0]
                elif kinds:
                    clause = join_and(["that is " + " and ".join(article(k) for k in kinds)] + ([clause] if clause else []))
                if other:
                    noun = f"other {noun or 'card'}"
                where = f" {clause}" if clause else ""
            else:
                where = f" where {cond(rest, _it_ctx(inner, coll) if name_it == 'it' else inner)}"
        place = np(coll.zone, ctx) if isinstance(coll, A.CardsIn) else np(coll, ctx)
        head = f"For each {noun + ' ' if noun else ''}{var(s.name)} in {place}{where}"
    return head, inner


def _it_ctx(ctx: Ctx, coll) -> Ctx:
    c = ctx.child()
    c.scope.it_type = elem(ctx.type_of(coll))
    c.refs["it"] = Ref("it", "its")
    return c


@describer
def describe_ForStmt(s: A.ForStmt, ctx: Ctx) -> list[Line]:
    head, inner = for_head(s, ctx)
    return _line(head + ":", describe_block(s.body, inner))


@describer
def describe_RepeatStmt(s: A.RepeatStmt, ctx: Ctx) -> list[Line]:
    return _line("Repeat the following until told to stop:", describe_block(s.body, ctx.child(loop="repeat")))


@describer
def describe_WhileStmt(s: A.WhileStmt, ctx: Ctx) -> list[Line]:
    # the condition is checked before each time round: "As long as ..., repeat" says so
    head = f"Until {cond(s.cond, ctx)}, repeat:" if s.until else f"As long as {cond(s.cond, ctx)}, repeat:"
    return _line(head, describe_block(s.body, ctx.child(loop="repeat")))


@describer
def describe_TimesStmt(s: A.TimesStmt, ctx: Ctx) -> list[Line]:
    n = np(s.count, ctx)
    times = "once" if n == "1" else f"{n} times"
    return _line(f"Do the following {times}:", describe_block(s.body, ctx.child(loop="repeat")))


@describer
def describe_StepStmt(s: A.StepStmt, ctx: Ctx) -> list[Line]:
    ref = ctx.step_refs.get(id(s))
    if ref is not None and ctx.on_step is not None:
        ctx.on_step(s, ctx)
        return _line(f"Play the {s.kind} {quote(s.name)} ({ref}).")
    return _line(f"{cap(s.kind)} {quote(s.name)}:", describe_block(s.body, ctx.child()))


@describer
def describe_TurnStmt(s: A.TurnStmt, ctx: Ctx) -> list[Line]:
    who = np(s.player, ctx)
    verb = "take" if who == "you" else "takes"
    return _line(f"{cap(who)} {verb} a turn: while it lasts, {who} {be(who, 'is')} the active player.",
                 describe_block(s.body, ctx.child()))


@describer
def describe_TakeActionsStmt(s: A.TakeActionsStmt, ctx: Ctx) -> list[Line]:
    who = np(s.player, ctx)
    return _line(f"{cap(who)} may use the actions of their cards, one after another, until they stop.")


@describer
def describe_MayStmt(s: A.MayStmt, ctx: Ctx) -> list[Line]:
    who = np(s.player, ctx)
    return _line(f"{cap(who)} may choose to do this ({quote(s.prompt)}); if so:",
                 describe_block(s.body, ctx.child()))


@describer
def describe_ChooseManyStmt(s: A.ChooseManyStmt, ctx: Ctx) -> list[Line]:
    """`p chooses up to 2 of C as kept` → "The player chooses up to 2 of the cards in their hand,
    one at a time (*kept*)."; `p orders C as order` → "... puts ... in the order of their choice"."""
    who = np(s.player, ctx)
    plain_you = who == "you"
    coll = np(s.options, ctx)
    t = ctx.type_of(s.options)
    ctx.bind(s.name, t)
    named = f" ({var(s.name)})"
    if s.mode == "order":
        verb = "put" if plain_you else "puts"
        return _line(f"{cap(who)} {verb} {coll} in the order of {'your' if plain_you else 'their'} choice, "
                     f"one at a time{named}{_prompt(s.prompt)}.")
    verb = "choose" if plain_you else "chooses"
    how = "any number" if s.count is None else f"up to {np(s.count, ctx)}" if s.mode == "up to" else np(s.count, ctx)
    stop = "; they may stop at any time" if s.mode == "any" and not plain_you else \
        "; you may stop at any time" if s.mode == "any" else ""
    return _line(f"{cap(who)} {verb} {how} of {coll}, one at a time{named}{_prompt(s.prompt)}{stop}.")


def option_head(o: A.MenuOption, ctx: Ctx, inner: Ctx) -> str:
    """An option of `chooses one` as its line: '"Draw a card", if your deck is not empty' or
    '"Play" with one of the cards in your hand' (the element bound in `inner`, its block's context)."""
    if o.name is None:
        return quote(o.label) + (f", if {cond(o.cond, ctx)}" if o.cond is not None else "")
    what = _bind_chosen(o.name, o.options, ctx, inner)
    return f"{quote(o.label)} with {what}" if o.label is not None else what


@describer
def describe_ChooseOneStmt(s: A.ChooseOneStmt, ctx: Ctx) -> list[Line]:
    who = np(s.player, ctx)
    verb = "choose" if who == "you" else "chooses"
    options = []
    for o in s.choices:
        inner = ctx.child()
        head = option_head(o, ctx, inner)
        options.append(Line(head + ":", tuple(describe_block(o.body, inner))))
    return _line(f"{cap(who)} {verb} one of these options{_prompt(s.prompt)}:", options)


def secret_head(s: A.SecretStmt, ctx: Ctx) -> tuple[str, Ctx]:
    """The sentence of a secret choice and the context of its block (`you` is the chooser)."""
    inner = ctx.child(you=Ref("the player", "their") if ctx.pronoun_free() else ctx.you)
    who = "Each player" if isinstance(s.players, A.PlayersExpr) else f"Each player in {np(s.players, ctx)}"
    what = _bind_chosen(s.name, s.options, inner, inner)
    return f"{who} secretly chooses {what}{_prompt(s.prompt)}", inner


@describer
def describe_SecretStmt(s: A.SecretStmt, ctx: Ctx) -> list[Line]:
    head, inner = secret_head(s, ctx)
    head += (". When everyone has chosen, the choices are revealed together; then, for each player"
             " in turn:")
    return _line(head, describe_block(s.body, inner))


# ================================================================ abilities

# The English of the built-in events, from their one table (dsl/registry.py EVENTS):
# "When <phrase>:" and "If <would>, ..." (instead of).
# the rulebook's sentence for a game that remembers who has seen each card (`remember seen cards`)
REMEMBERED = ("Players remember the cards they have seen: a card a player saw (face up, in their own hand, "
              "or by looking at it) stays known to them wherever it goes, until it is shuffled. A card is "
              "revealed when every player comes to know it and some player did not know it before: a card "
              "everyone already knows is not revealed again, even turned face down and face up.")

BUILTIN_PHRASES = {name: ev.when for name, ev in EVENTS.items()}
BUILTIN_WOULD = {name: ev.would for name, ev in EVENTS.items()}


def event_phrase(name: str, ctx: Ctx) -> str:
    if name not in ctx.decls.events and name in BUILTIN_PHRASES:
        return BUILTIN_PHRASES[name]
    return f"{_event_phrase(name)} happens"


def ability_ctx(ctx: Ctx, this_type: str | None, event: str | None = None) -> Ctx:
    """Inside an ability: `this` is its card, the event's parameters are names."""
    c = ctx.child()
    c.scope.this_type = this_type
    c.scope.in_ability = True
    if event is not None:
        if event in ctx.decls.events:
            params = {p.name: ref_type(ctx.decls, p.type) for p in ctx.decls.events[event].params}
        else:
            params = dict(BUILTIN_EVENTS.get(event, ()))
        c.scope.event_params = params
    return c


def _docs_first(body) -> tuple[list[Line], list]:
    docs = [Line(clean(s.text), (), "doc") for s in body if isinstance(s, A.DocItem)]
    return docs, [s for s in body if not isinstance(s, A.DocItem)]


def _pinned(ab, inner: Ctx) -> tuple[dict, list]:
    """The event's parameters the condition pins to this card or to you (`where card = this`),
    and the rest of the condition."""
    parts = list(ab.cond.items) if isinstance(ab.cond, A.AndChain) else ([ab.cond] if ab.cond is not None else [])
    params = inner.scope.event_params or {}
    pinned: dict = {}
    rest = []
    for c in parts:
        if (isinstance(c, A.Compare) and c.op == "=" and isinstance(c.left, A.Name) and c.left.name in params
                and c.left.name not in pinned and isinstance(c.right, (A.This, A.You))):
            pinned[c.left.name] = "this card" if isinstance(c.right, A.This) else inner.you.noun
        else:
            rest.append(c)
    return pinned, rest


def _when(event: str, pinned: dict, ctx: Ctx) -> tuple[str, dict]:
    """"this card is revealed", "“leader victory” happens to you": the event with the parameter
    the ability is pinned to said in its place; the parameters not said are returned."""
    left = dict(pinned)
    if event not in ctx.decls.events and event in BUILTIN_PHRASES:
        phrase = BUILTIN_PHRASES[event]
        # `targeted`: "a card or a player becomes ...", pinned by its card or by its target player
        for param, noun in (("card", "a card or a player"), ("target", "a card or a player"), ("card", "a card"),
                            ("player", "a player")):
            if param in left and phrase.startswith(noun + " "):
                who = left.pop(param)
                verb = be(who, phrase[len(noun) + 1:].split(" ", 1)[0])
                if who == "you" and verb.endswith("s") and verb not in ("is", "has"):
                    verb = verb[:-1]        # "you become the target", "you use an action"
                phrase = who + " " + verb + \
                    (" " + phrase[len(noun) + 1:].split(" ", 1)[1] if " " in phrase[len(noun) + 1:] else "")
                break
        return phrase, left
    phrase = f"{_event_phrase(event)} happens"
    if len(left) == 1:
        (param, who), = left.items()
        return f"{phrase} to {who}", {}
    return phrase, left


@describer
def describe_Triggered(ab: A.Triggered, ctx: Ctx) -> Line:
    inner = ability_ctx(ctx, ctx.scope.this_type, ab.event)
    pinned, rest = _pinned(ab, inner)
    phrase, unsaid = _when(ab.event, pinned, ctx)
    conds = [f"its {human(p)} is {who}" for p, who in unsaid.items()]
    conds += [f"({cond(c, inner)})" if isinstance(c, A.OrChain) else cond(c, inner) for c in rest]
    conds = elide_subjects(conds)
    head = f"When {phrase}"
    if conds:
        said = join_and(conds)
        if "this card" in phrase and said.startswith("this card "):
            said = "it " + said[len("this card "):]          # "When this card is revealed, if it has ..."
        head += f", if {said}"
    if ab.at_once:              # `, at once`: never waits on the stack (docs/language.md, "stack")
        head += " (at once: it cannot be answered)"
    docs, body = _docs_first(ab.body)
    return Line(head + ":", tuple(docs + describe_block(body, inner)))


ACTIVATION = {
    "any_time": lambda a, c: "at any time",
    "own_turn": lambda a, c: "in your turn",
    "from": lambda a, c: f"while it is in your {join_and([human(n) for n in (a.names or (a.name,))], 'or')}",
    "if": lambda a, c: f"if {cond(a.expr, c)}",
    # chosen as it is used, before its costs; answered by "when a card becomes the target"
    "target": lambda a, c: f"target {var(a.name)}: one of {np(a.expr, c)}, chosen as you use it",
    "cost_exhaust": lambda a, c: "cost: exhaust it (turn it sideways)",
    "cost_tap": lambda a, c: f"cost: tap it, once per {a.name}",
    "cost_pay": lambda a, c: f"cost: pay {np(a.expr, c)} {human(a.name)}",
}


@describer
def describe_Activated(ab: A.Activated, ctx: Ctx) -> Line:
    inner = ability_ctx(ctx, ctx.scope.this_type)
    conds = [ACTIVATION[a.kind](a, inner) for a in ab.activations if a.kind in ACTIVATION]
    head = f"Action {quote(ab.name)}"
    if conds:
        head += " (" + "; ".join(conds) + ")"
    docs, body = _docs_first(ab.body)
    return Line(head + ":", tuple(docs + describe_block(body, inner)))


def _text_may_blank(ctx: Ctx) -> bool:
    """Whether this card's type says when its text is blank (then a lasting bonus says it too)."""
    ct = ctx.decls.card_types.get(ctx.scope.this_type) if ctx.scope.this_type else None
    return ct is not None and ct.blank_unless is not None


@describer
def describe_StaticMod(ab: A.StaticMod, ctx: Ctx) -> Line:
    inner = ability_ctx(ctx, ctx.scope.this_type)
    if ab.target is None or _of_players(ctx.type_of(ab.target)):
        return _number_mod(ab, inner)
    target = np(ab.target, inner)
    many = is_list(ctx.type_of(ab.target))
    field = ctx.field(ab.field)
    if isinstance(ab.amount, A.Num):
        n = ab.amount.value
        gain = f"{'get' if many else 'gets'} {'+' if n >= 0 else ''}{n} {field}"
    elif isinstance(ab.amount, A.Neg) and isinstance(ab.amount.operand, A.Num):
        gain = f"{'get' if many else 'gets'} -{ab.amount.operand.value} {field}"
    else:
        gain = f"{'get' if many else 'gets'} extra {field} equal to {np(ab.amount, inner)}"
    text = f"{cap(target)} {gain}"
    if ab.cond is not None:
        text = f"While {cond(ab.cond, inner)}, {target} {gain}"
    if _text_may_blank(inner):
        text += " (only while this card's text counts)"
    return Line(text + ".")


def _of_players(t) -> bool:
    return t == PLAYER or (is_list(t) and elem(t) == PLAYER)


def _number_mod(ab: A.StaticMod, inner: Ctx) -> Line:
    """A player's or the game's number changed (`modify draws of you by 1`, `modify hand_limit
    by 2`), said as a card prints a bonus: "Your draws: +1.", "Your opponent's draws: -1.",
    "The hand limit: +2." — one form for one player, several and the game."""
    whose = "the" if ab.target is None else poss(ab.target, inner)
    if isinstance(ab.amount, A.Num):
        amount = f"{'+' if ab.amount.value >= 0 else ''}{ab.amount.value}"
    elif isinstance(ab.amount, A.Neg) and isinstance(ab.amount.operand, A.Num):
        amount = f"-{ab.amount.operand.value}"
    else:
        amount = f"plus {np(ab.amount, inner)}"
    text = f"{cap(whose)} {inner.field(ab.field)}: {amount}"
    if ab.cond is not None:
        text += f", while {cond(ab.cond, inner)}"
    if _text_may_blank(inner):
        text += " (only while this card's text counts)"
    return Line(text + ".")


@describer
def describe_Replacement(ab: A.Replacement, ctx: Ctx) -> Line:
    inner = ability_ctx(ctx, ctx.scope.this_type, ab.event)
    if ab.event not in ctx.decls.events and ab.event in BUILTIN_WOULD:
        head = f"If {BUILTIN_WOULD[ab.event]}"
    else:
        head = f"If {_event_phrase(ab.event)} would happen"
    if ab.event == "step_ended" and ab.event not in ctx.decls.events:
        head = "When a step ends"       # its end cannot be undone: what the end would set off is replaced
    if ab.cond is not None:
        head += f" and {cond(ab.cond, inner)}"
    docs, body = _docs_first(ab.body)
    if head.startswith("When a step ends"):
        return Line(head + ", nothing waiting for that end happens; instead:", tuple(docs + describe_block(body, inner)))
    return Line(head + ", it does not; instead:", tuple(docs + describe_block(body, inner)))


@describer
def describe_CardText(ab: A.CardText, ctx: Ctx) -> Line:
    inner = ability_ctx(ctx, ctx.scope.this_type)
    docs, body = _docs_first(ab.body)
    return Line("Text (what the card does when it is resolved):", tuple(docs + describe_block(body, inner)))


# ================================================================ declarations used by the book


def describe_define(d: A.DefineDecl, ctx: Ctx) -> str:
    """`define strength(p) as ...` → "A player's strength is ..."."""
    c = params_ctx(ctx, d.name, d.params)
    body = np(d.expr, c)
    types = ctx.param_types.get(d.name, {})
    if len(d.params) == 1 and c.refs[d.params[0]].noun == "the player":
        if ctx.decls.typing.merged(d.expr) == FLAG:
            words = human(d.name)
            pred = words if words.split(" ", 1)[0] in AUXILIARIES else f"meets {quote(words)}"
            return f"A player {pred} when {cond(d.expr, c)}."
        return f"A player's {define_noun(d.name)} is {body}."
    if len(d.params) == 1 and types.get(d.params[0]) == CARD:
        c2 = params_ctx(ctx, d.name, ())
        c2.bind(d.params[0], CARD, Ref("the card", "its"))
        if ctx.decls.typing.merged(d.expr) == FLAG:     # "can attack": a predicate, not a noun
            words = human(d.name)
            pred = words if words.split(" ", 1)[0] in AUXILIARIES else f"meets {quote(words)}"
            return f"A card {pred} when {cond(d.expr, c2)}."
        return f"A card's {define_noun(d.name)} is {np(d.expr, c2)}."
    if len(d.params) == 1 and types.get(d.params[0]) == ZONE:
        c2 = params_ctx(ctx, d.name, ())
        c2.bind(d.params[0], ZONE, Ref("the zone", "the zone's"))
        return f"The {define_noun(d.name)} of a zone is {np(d.expr, c2)}."
    if isinstance(d.expr, A.Bool):
        return f"{quote(human(d.name))} {'always' if d.expr.value else 'never'} holds."
    if not d.params:
        if ctx.decls.typing.merged(d.expr) == FLAG:
            return f"{quote(human(d.name))} holds when {cond(d.expr, c)}."
        return f"The {define_noun(d.name)} is {body}."
    return f"The {define_noun(d.name)} of {join_and([var(p) for p in d.params])} is {body}."


def describe_order_key(k: A.OrderKey, ctx: Ctx) -> str:
    if k.expr is None:
        return "seat order, starting from the active player"
    c = ability_ctx(ctx, None)
    c.scope.it_type = CARD
    c.refs["it"] = Ref("the card", "the card's")
    c.you = Ref("the card's controller", "the card's controller's")
    return f"{np(k.expr, c)} ({'highest' if k.highest_first else 'lowest'} first)"


def describe_value(v: A.ValueDecl, ctx: Ctx) -> str:
    """`value for p as p's score` → the sentence the rulebook prints about the computer players."""
    c = ctx.child()
    c.bind(v.player, PLAYER, Ref("the player", "the player's"))
    c.you = Ref("the player", "the player's")
    return ("The computer players judge how well a player stands by "
            f"{plain(np(v.expr, c))}, and play to raise it. This is advice, not a rule.")


def describe_field(fd: A.FieldDecl, ctx: Ctx) -> str:
    """`bonus: number = 0, at least 0` → "a number, at least 0; starts at 0"."""
    t = fd.type
    kind = f"a list of {plural(t.name)}" if t.is_list else {
        "number": "a number", "flag": "yes or no", "text": "a text", "player": "a player",
        "card": "a card", "zone": "a zone"}.get(t.name, f"{article(t.name)}")
    if t.name in ctx.decls.enums and not t.is_list:
        kind = f"one of the {plural(t.name)}"
    parts = [kind]
    if fd.at_least is not None:
        parts.append(f"at least {fd.at_least}")
    if fd.at_most is not None:
        parts.append(f"at most {fd.at_most}")
    text = ", ".join(parts)
    if isinstance(fd.default, A.Nothing):
        text += "; starts empty"
    elif fd.default is not None:
        text += f"; starts at {np(fd.default, ctx)}"
    if fd.reset:
        text += reset_phrase(fd.reset)
    return text


def reset_phrase(period: str) -> str:
    """`, reset each turn` → "; back to where it started as each turn begins" ("this turn" memory)."""
    return f"; back to where it started as each {period} begins"


def blocks_of(st) -> list[tuple]:
    """The blocks nested in a statement, in the order they are written (if-branches, then else)."""
    if isinstance(st, A.ChooseOneStmt):
        return [o.body for o in st.choices]
    if isinstance(st, A.IfStmt):
        out = [body for _, body in st.branches]
        if st.else_body is not None:
            out.append(st.else_body)
        return out
    body = getattr(st, "body", None)
    return [body] if body is not None else []


# ================================================================ a card type's text rule; one card's own effect


def blank_unless(ct: A.CardTypeDecl, ctx: Ctx) -> str:
    """The sentence of `text is blank unless <condition>`, saying who "you" is: the player whose
    zone holds the card now (its controller), which for a captured card is its captor, never
    the player it came from (a reader takes "its owner" for the latter)."""
    c = ability_ctx(ctx, ct.name)
    c.you = Ref("its holder", "its holder's")
    said = cond(ct.blank_unless, c).replace("this card's", "the card's").replace("this card", "the card")
    return (f"A {ct.name}'s text counts only while {said}. Its holder is the player "
            f"in whose zone it lies now: for a card taken from another player, the player who took it, not "
            f"the player it came from. At any other time the card is blank: its abilities do nothing.")


def _mutated_fields(decls) -> frozenset:
    """Names of the fields any rule changes (`set`, `add`, `subtract`, `modify`): the others keep
    the values printed on each card, so a condition on them is known card by card."""
    out: set = set()
    seen: set = set()

    def target_name(t):
        if isinstance(t, (A.FieldAccess, A.FieldOf, A.Possessive, A.Your, A.Name)):
            return t.name
        return None

    def walk(node):
        if id(node) in seen:
            return
        seen.add(id(node))
        if isinstance(node, (A.SetStmt, A.AddStmt, A.SubtractStmt)):
            name = target_name(node.target)
            if name:
                out.add(name)
        if isinstance(node, A.StaticMod):
            out.add(node.field)
        if isinstance(node, (list, tuple)):
            for x in node:
                walk(x)
        elif hasattr(node, "__dataclass_fields__"):
            for f in node.__dataclass_fields__:
                walk(getattr(node, f))
    roots = [list(decls.card_types.values()), decls.cards, list(decls.procedures.values()), decls.setup,
             decls.rounds, decls.end_checks, list(decls.keywords.values()), decls.windows]
    walk(roots)
    return frozenset(out)


def _this_field(e, ctx: Ctx) -> str | None:
    """The field of this card `e` reads (`name`, `this.race`, `race of this`, a bare field)."""
    if isinstance(e, A.Name) and ctx.kind_of(e) == "this_field":
        return e.name
    if isinstance(e, (A.FieldAccess, A.FieldOf)) and isinstance(e.obj, A.This):
        return e.name
    if isinstance(e, A.Possessive) and isinstance(e.owner, A.This):
        return e.name
    return None


def _literal(e, ctx: Ctx):
    if isinstance(e, (A.Num, A.Text, A.Bool)):
        return e.value
    if isinstance(e, A.Name) and ctx.kind_of(e) == "member":
        return e.name
    return _UNKNOWN


_UNKNOWN = object()


def _known(c, values: dict, fixed: frozenset, ctx: Ctx):
    """True / False when the condition `c` is decided by this card's printed values, else None."""
    negate = False
    if isinstance(c, A.NotOp):
        c, negate = c.operand, True
    f = _this_field(c, ctx)
    if f is not None and f in fixed and isinstance(values.get(f), bool):
        return values[f] != negate
    if isinstance(c, A.Compare) and c.op in ("=", "!="):
        f = _this_field(c.left, ctx)
        v = _literal(c.right, ctx)
        if f is not None and f in fixed and v is not _UNKNOWN and f in values:
            return ((values[f] == v) == (c.op == "=")) != negate
    return None


def _specialised(ab, values: dict, fixed: frozenset, ctx: Ctx):
    """(the ability with the parts of its condition this card's values decide left out, whether it
    depends on those values); None when they rule it out for this card."""
    c = getattr(ab, "cond", None)
    if c is None:
        return ab, False
    parts = list(c.items) if isinstance(c, A.AndChain) else [c]
    rest, decided = [], False
    for part in parts:
        k = _known(part, values, fixed, ctx)
        if k is False:
            return None
        if k is True:
            decided = True
        else:
            rest.append(part)
    if not decided:
        return ab, False
    new = None if not rest else rest[0] if len(rest) == 1 else A.AndChain(c.span, tuple(rest))
    return replace(ab, cond=new), True


def card_effect(game, cd, ctx: Ctx | None = None) -> list[Line]:
    """One card's own effect in English, for the card reference and the card sheets: the card's
    own abilities, and those of its type that its printed values select (an ability of the type
    written `where ... name = "Storm Front"`, or `while play_another`, is this card's effect when
    the card is that one or has that flag), with those conditions left out. The abilities every
    card of the type has alike are the type's text, not the card's: they are not repeated.
    An empty list when the card has nothing of its own. `game` is a loaded Game (or its
    Declarations); `cd` one of its CardDefs."""
    decls = getattr(game, "decls", game)
    base = ctx or make_ctx(decls, param_types=param_types(decls))
    c = ability_ctx(base, cd.type_name)
    ct = decls.card_types.get(cd.type_name)
    type_abilities = {id(ab) for ab in (ct.abilities if ct else ())}
    fixed = frozenset({"name"} | ({f.name for f in ct.fields} if ct else set())) - _mutated_fields(decls)
    values = dict(cd.values)
    values["name"] = cd.name
    out: list[Line] = []
    for ab in cd.abilities:
        if id(ab) not in type_abilities:
            out.append(describe(ab, c))
            continue
        got = _specialised(ab, values, fixed, c)
        if got is not None and got[1]:
            out.append(describe(got[0], c))
    return out


def card_effect_text(game, cd, ctx: Ctx | None = None) -> str:
    """card_effect as one paragraph of plain text ("" for a card with nothing of its own)."""
    return plain(flatten(card_effect(game, cd, ctx)))
