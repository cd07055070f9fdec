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

from .. import ast as A
from ..model import BUILTIN_EVENTS
from ..registry import EVENTS
from ..types import CARD, PLAYER, elem, ref_type
from .phrases import OPS, be, cond, poss, relative
from .words import (DESCRIBERS, EM_CLOSE, EM_OPEN, Ctx, Line, Ref, article, cap, clean, describe,
                    describe_block, describer, end, flatten, human, join_and, make_ctx, np,
                    param_types, params_ctx, plain, plural, quote, title, var)

__all__ = ["DESCRIBERS", "EM_CLOSE", "EM_OPEN", "OPS", "Ctx", "Line", "Ref", "ability_ctx", "article",
           "be", "blocks_of", "cap", "clean", "cond", "describe", "describe_block", "describe_define",
           "describe_field", "describe_order_key", "describer", "end", "event_phrase", "flatten",
           "for_head", "human", "join_and", "make_ctx", "np", "param_types", "params_ctx", "plain",
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


@describer
def describe_ChooseStmt(s: A.ChooseStmt, ctx: Ctx) -> list[Line]:
    who = np(s.player, ctx)
    verb = "choose" if who == "you" else "chooses"
    options = np(s.options, ctx)
    ctx.bind(s.name, elem(ctx.type_of(s.options)))
    return _line(f"{cap(who)} {verb} {var(s.name)} from {options}{_prompt(s.prompt)}.")


def _event_phrase(name: str) -> str:
    return quote(human(name))


@describer
def describe_AnnounceStmt(s: A.AnnounceStmt, ctx: Ctx) -> list[Line]:
    ev = ctx.decls.events.get(s.event)
    names = [p.name for p in ev.params] if ev else [n for n, _ in BUILTIN_EVENTS.get(s.event, ())]
    if not s.args:
        return _line(f"Announce {_event_phrase(s.event)}.")
    if len(names) == len(s.args):
        parts = [f"{np(a, ctx)} as {human(n)}" for n, a in zip(names, s.args)]
    else:
        parts = [np(a, ctx) for a in s.args]
    return _line(f"Announce {_event_phrase(s.event)} with {join_and(parts)}.")


@describer
def describe_EliminateStmt(s: A.EliminateStmt, ctx: Ctx) -> list[Line]:
    return _line(f"Eliminate {np(s.player, ctx)}: they are out of the game.")


@describer
def describe_WinStmt(s: A.WinStmt, ctx: Ctx) -> list[Line]:
    who = np(s.player, ctx)
    return _line(f"{cap(who)} {'win' if who == 'you' else 'wins'} the game.")


@describer
def describe_DrawGameStmt(s: A.DrawGameStmt, ctx: Ctx) -> list[Line]:
    return _line("The game ends in a draw.")


@describer
def describe_StopStmt(s: A.StopStmt, ctx: Ctx) -> list[Line]:
    return _line("Stop going through the list." if ctx.loop == "for" else "Stop repeating.")


def _see(ref: str | None) -> str:
    return f" ({ref})" if ref else ""


@describer
def describe_CallStmt(s: A.CallStmt, ctx: Ctx) -> list[Line]:
    proc = ctx.decls.procedures.get(s.name)
    ref = _see(ctx.proc_refs.get(s.name))
    head = title(s.name)
    if not s.args:
        return _line(f"{head}{ref}.")
    if len(s.args) == 1:
        return _line(f"{head} for {np(s.args[0], ctx)}{ref}.")
    if proc is not None and len(proc.params) == len(s.args):
        parts = [np(a, ctx) if isinstance(a, A.Name) and a.name == p else f"{np(a, ctx)} as {var(p)}"
                 for p, a in zip(proc.params, s.args)]
    else:
        parts = [np(a, ctx) for a in s.args]
    return _line(f"{head}, with {join_and(parts)}{ref}.")


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
def describe_ExpectStmt(s: A.ExpectStmt, ctx: Ctx) -> list[Line]:
    return _line(f"Check that {cond(s.cond, ctx)}.")


@describer
def describe_GiveStmt(s: A.GiveStmt, ctx: Ctx) -> list[Line]:
    return _line(f"The next answer of {np(s.player, ctx)} is {np(s.choice, ctx)}.")


@describer
def describe_SayStmt(s: A.SayStmt, ctx: Ctx) -> list[Line]:
    return _line(end(f"Tell the players: {quote(s.text)}"))


@describer
def describe_PlayStmt(s: A.PlayStmt, ctx: Ctx) -> list[Line]:
    if s.kind == "setup":
        return _line("Play the setup.")
    if s.kind == "rounds":
        return _line(f"Play {s.count} {'round' if s.count == 1 else 'rounds'}.")
    if s.kind == "until" and s.cond is not None:
        return _line(f"Play rounds until {cond(s.cond, ctx)}.")
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
        if isinstance(s.coll, A.PlayersExpr):
            head = "For each player, in seat order"
        elif isinstance(s.coll, A.AllPlayers):
            head = "For each player, eliminated or not, in seat order"
        else:
            head = f"For each player in {np(s.coll, ctx)}"
        if s.cond is not None:
            rel = relative(s.cond, s.name, inner)
            head += f" {rel[0]}" if rel and not rel[1] and rel[0] else f", if {cond(s.cond, inner)}"
    else:
        noun = "card" if elem(t) == CARD else None
        head = f"For each {noun + ' ' if noun else ''}{var(s.name)} in {np(s.coll, ctx)}"
        if s.cond is not None:
            head += f" where {cond(s.cond, inner)}"
    return head, inner


@describer
def describe_ForStmt(s: A.ForStmt, ctx: Ctx) -> list[Line]:
    head, inner = for_head(s, ctx)
    return _line(head + ":", describe_block(s.body, inner))


@describer
def describe_RepeatStmt(s: A.RepeatStmt, ctx: Ctx) -> list[Line]:
    return _line("Repeat the following until told to stop:", describe_block(s.body, ctx.child(loop="repeat")))


@describer
def describe_WhileStmt(s: A.WhileStmt, ctx: Ctx) -> list[Line]:
    word = "until" if s.until else "while"
    return _line(f"Repeat the following {word} {cond(s.cond, ctx)} (checked before each time):",
                 describe_block(s.body, ctx.child(loop="repeat")))


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


def secret_head(s: A.SecretStmt, ctx: Ctx) -> tuple[str, Ctx]:
    """The sentence of a secret choice and the context of its block (`you` is the chooser)."""
    inner = ctx.child(you=Ref("the player", "their") if ctx.pronoun_free() else ctx.you)
    who = "Each player" if isinstance(s.players, A.PlayersExpr) else f"Each player in {np(s.players, ctx)}"
    options = np(s.options, inner)
    inner.bind(s.name, elem(inner.type_of(s.options)))
    return f"{who} secretly chooses {var(s.name)} from {options}{_prompt(s.prompt)}", inner


@describer
def describe_SecretStmt(s: A.SecretStmt, ctx: Ctx) -> list[Line]:
    head, inner = secret_head(s, ctx)
    head += (". When everyone has chosen, the choices are revealed together; then, for each player"
             " in turn:")
    return _line(head, describe_block(s.body, inner))


# ================================================================ abilities

# The English of the built-in events, from their one table (dsl/registry.py EVENTS):
# "When <phrase>:" and "If <would>, ..." (instead of).
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


@describer
def describe_Triggered(ab: A.Triggered, ctx: Ctx) -> Line:
    inner = ability_ctx(ctx, ctx.scope.this_type, ab.event)
    head = f"When {event_phrase(ab.event, ctx)}"
    if ab.cond is not None:
        head += f", if {cond(ab.cond, inner)}"
    docs, body = _docs_first(ab.body)
    return Line(head + ":", tuple(docs + describe_block(body, inner)))


ACTIVATION = {
    "any_time": lambda a, c: "at any time",
    "own_turn": lambda a, c: "in your turn",
    "from": lambda a, c: f"while it is in your {human(a.name)}",
    "if": lambda a, c: f"if {cond(a.expr, c)}",
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


@describer
def describe_StaticMod(ab: A.StaticMod, ctx: Ctx) -> Line:
    inner = ability_ctx(ctx, ctx.scope.this_type)
    target = np(ab.target, inner)
    text = f"The {human(ab.field)} of {target} is increased by {np(ab.amount, inner)}"
    if ab.cond is not None:
        text += f" while {cond(ab.cond, inner)}"
    return Line(text + ", as long as this card's text counts.")


@describer
def describe_Replacement(ab: A.Replacement, ctx: Ctx) -> Line:
    inner = ability_ctx(ctx, ctx.scope.this_type, ab.event)
    if ab.event not in ctx.decls.events and ab.event in BUILTIN_WOULD:
        head = f"If {BUILTIN_WOULD[ab.event]}"
    else:
        head = f"If {_event_phrase(ab.event)} would happen"
    if ab.cond is not None:
        head += f" and {cond(ab.cond, inner)}"
    docs, body = _docs_first(ab.body)
    return Line(head + ", it does not; instead:", tuple(docs + describe_block(body, inner)))


# ================================================================ declarations used by the book


def describe_define(d: A.DefineDecl, ctx: Ctx) -> str:
    """`define strength(p) as ...` → "A player's strength is ..."."""
    c = params_ctx(ctx, d.name, d.params)
    body = np(d.expr, c)
    types = ctx.param_types.get(d.name, {})
    if len(d.params) == 1 and c.refs[d.params[0]].noun == "the player":
        return f"A player's {human(d.name)} is {body}."
    if len(d.params) == 1 and types.get(d.params[0]) == CARD:
        c2 = params_ctx(ctx, d.name, ())
        c2.bind(d.params[0], CARD, Ref("the card", "its"))
        return f"A card's {human(d.name)} is {np(d.expr, c2)}."
    if not d.params:
        return f"The {human(d.name)} is {body}."
    return f"The {human(d.name)} of {join_and([var(p) for p in d.params])} is {body}."


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
    parts = [kind]
    if fd.at_least is not None:
        parts.append(f"at least {fd.at_least}")
    if fd.at_most is not None:
        parts.append(f"at most {fd.at_most}")
    text = ", ".join(parts)
    if fd.default is not None:
        text += f"; starts at {np(fd.default, ctx)}"
    return text


def blocks_of(st) -> list[tuple]:
    """The blocks nested in a statement, in the order they are written (if-branches, then else)."""
    if isinstance(st, A.IfStmt):
        out = [body for _, body in st.branches]
        if st.else_body is not None:
            out.append(st.else_body)
        return out
    body = getattr(st, "body", None)
    return [body] if body is not None else []
