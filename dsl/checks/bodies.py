"""Pass 3: resolve every name in every rule body and check types and arities.

    procedure refill(p):
        shuffle p's dek             # E0206 unknown zone or attribute 'dek' — did you mean 'deck'?
"""
from __future__ import annotations

from .. import ast as A
from ..diagnostics import DiagnosticSink
from ..model import BUILTIN_EVENTS, Declarations
from ..types import (ANY, CARD, CARD_PSEUDO_FIELDS, FLAG, NUMBER, PLAYER, TEXT, ZONE, Scope, Typer, compatible, elem,
                     is_list, list_of, show, suggest)


def event_params(d: Declarations, typer: Typer, name: str, procedures: bool = False) -> dict | None:
    """The parameters an ability on event `name` can name; with `procedures`, a procedure
    counts as an event too (`instead of damage where p = you:`)."""
    if procedures and name in d.procedures and name not in d.events:
        return {p: ANY for p in d.procedures[name].params}
    if name in d.events:
        return {p.name: typer.type_of_ref(p.type, report=False) for p in d.events[name].params}
    if name in BUILTIN_EVENTS:
        return {n: t for n, t in BUILTIN_EVENTS[name]}
    return None


class BodyChecker:
    def __init__(self, d: Declarations, sink: DiagnosticSink):
        self.d = d
        self.sink = sink
        self.seen: set = set()
        self.typer = Typer(d, self._report)
        self.proc_calls: list[tuple[str, tuple]] = []

    def _report(self, code, msg, span, hint) -> None:
        # a body checked once per call signature must not repeat the same error
        key = (code, msg, span)
        if key not in self.seen:
            self.seen.add(key)
            self.sink.error(code, msg, span, hint)

    def check_call_signatures(self) -> None:
        """Check procedure and define bodies again with the argument types of each call site,
        so `p's dek` in `procedure refill(p)` is caught when refill is called with a player."""
        done: set = set()
        for _ in range(50):                    # bodies calling bodies: bounded
            todo = [c for c in self.proc_calls + self.typer.calls if c not in done]
            if not todo:
                return
            for name, types in todo:
                done.add((name, types))
                if name in self.d.procedures:
                    proc = self.d.procedures[name]
                    self.block(proc.body, Scope(dict(zip(proc.params, types))))
                elif name in self.d.defines:
                    de = self.d.defines[name]
                    self.typer.infer(de.expr, Scope(dict(zip(de.params, types))))

    def block(self, body, sc: Scope) -> None:
        for st in body:
            self.stmt(st, sc)

    def stmt(self, s, sc: Scope) -> None:
        getattr(self, "s_" + type(s).__name__)(s, sc)

    def expr(self, e, sc, want=None):
        return self.typer.want(e, want, sc) if want is not None else self.typer.infer(e, sc)

    def _cards(self, e, sc) -> None:
        t = self.expr(e, sc)
        if not (t in (CARD, ANY) or t == list_of(CARD) or t == list_of(ANY)):
            self.sink.error("E0409", f"expected a card or cards here, but this is {show(t)}", e.span,
                            "e.g. top card of p's deck, or cards in p's hand where cost <= 2")

    def _zone(self, e, sc) -> None:
        t = self.expr(e, sc)
        if t not in (ZONE, ANY):
            self.sink.error("E0403", f"expected a zone here, but this is {show(t)}", e.span,
                            "a zone is e.g. p's deck, your discard, or a shared zone's name")

    def _assignable(self, e, sc):
        """The type of an attribute / field that `set`, `add` and `subtract` may change."""
        if isinstance(e, A.Name):
            kind, t = self.typer.resolve_name(e.name, sc)
            if kind in ("game_attr", "this_field", "it_field"):
                return t
            if kind == "local":
                self.sink.error("E0410", f"'{e.name}' is a name given with 'let'; give it a new value with 'let'",
                                e.span, f"write: let {e.name} be ...")
                return ANY
            self.typer.infer(e, sc)
            if kind is not None:
                self.sink.error("E0410", f"'{e.name}' cannot be changed", e.span,
                                "only attributes (player has / game has) and card fields can be set")
            return ANY
        if isinstance(e, (A.Possessive, A.Your, A.FieldAccess, A.FieldOf)):
            t = self.typer.infer(e, sc)
            if e.name in CARD_PSEUDO_FIELDS and e.name not in self.d.player_fields:
                self.sink.error("E0410", f"a card's {e.name} is kept by the engine and cannot be set", e.span,
                                "move the card instead")
                return ANY
            if t == ZONE:
                self.sink.error("E0410", "a zone cannot be set", e.span, "move cards into it instead")
            return t
        self.typer.infer(e, sc)
        self.sink.error("E0410", "only an attribute or a card field can be changed here", e.span,
                        "e.g. set p's bonus to 0, or set this.side to active")
        return ANY

    # ------------------------------------------------------------------ statements
    def s_DocItem(self, s, sc):
        pass

    def s_MoveStmt(self, s, sc):
        self._cards(s.what, sc)
        self._zone(s.to, sc)

    def s_ShuffleStmt(self, s, sc):
        self._zone(s.zone, sc)

    def s_FlipStmt(self, s, sc):
        self._cards(s.what, sc)

    def s_SetStmt(self, s, sc):
        t = self._assignable(s.target, sc)
        v = self.expr(s.value, sc)
        if not compatible(t, v):
            self.sink.error("E0408", f"cannot set {show(t)} to {show(v)}", s.value.span, None)

    def s_AddStmt(self, s, sc):
        t = self._assignable(s.target, sc)
        self.expr(s.amount, sc, NUMBER)
        if not compatible(t, NUMBER):
            self.sink.error("E0408", f"only numbers can be added to, but this is {show(t)}", s.target.span, None)

    s_SubtractStmt = s_AddStmt

    def s_LetStmt(self, s, sc):
        sc.locals[s.name] = self.expr(s.value, sc)

    def s_ChooseStmt(self, s, sc):
        self.expr(s.player, sc, PLAYER)
        t = self.expr(s.options, sc)
        if not is_list(t) and t != ANY:
            self.sink.error("E0404", f"a choice is made from a collection, but this is {show(t)}", s.options.span,
                            "e.g. cards in p's hand, or Faction where it is not in taken")
        sc.locals[s.name] = elem(t)

    def s_AnnounceStmt(self, s, sc):
        ev = self.d.events.get(s.event)
        if ev is None:
            self.sink.error("E0210", f"unknown event '{s.event}'", s.span,
                            suggest(s.event, self.d.events) or f"declare it with: event {s.event}(...)")
            for a in s.args:
                self.expr(a, sc)
            return
        if len(ev.params) != len(s.args):
            self.sink.error("E0301", f"event '{s.event}' has {len(ev.params)} parameter(s), got {len(s.args)}", s.span,
                            f"it is declared at line {ev.span.line}")
        for p, a in zip(ev.params, s.args):
            self.expr(a, sc, self.typer.type_of_ref(p.type, report=False))

    def s_EliminateStmt(self, s, sc):
        t = self.expr(s.player, sc)
        if not (compatible(t, PLAYER) or compatible(t, list_of(PLAYER))):
            self.sink.error("E0408", f"expected a player or players here, but this is {show(t)}", s.player.span, None)

    def s_WinStmt(self, s, sc):
        self.expr(s.player, sc, PLAYER)

    def s_DrawGameStmt(self, s, sc):
        pass

    def s_StopStmt(self, s, sc):
        if sc.loop_depth == 0:
            self.sink.error("E0411", "'stop' is only meaningful inside a repeat or for each", s.span,
                            "it leaves the innermost loop")

    def s_CallStmt(self, s, sc):
        p = self.d.procedures.get(s.name)
        if p is not None and len(p.params) == len(s.args):
            self.proc_calls.append((s.name, tuple(self.typer.infer_quiet(a, sc) for a in s.args)))
        if p is None:
            hint = (f"'{s.name}' is a value (define), not a procedure" if s.name in self.d.defines
                    else suggest(s.name, self.d.procedures) or f"declare it with: procedure {s.name}(...):")
            self.sink.error("E0211", f"unknown procedure '{s.name}'", s.span, hint)
        elif len(p.params) != len(s.args):
            self.sink.error("E0301", f"'{s.name}' takes {len(p.params)} argument(s), got {len(s.args)}", s.span,
                            f"it is declared as {s.name}({', '.join(p.params)}) at line {p.span.line}")
        for a in s.args:
            self.expr(a, sc)

    def s_RollStmt(self, s, sc):
        self.expr(s.count, sc, NUMBER)
        if s.die not in self.d.dice:
            self.sink.error("E0212", f"unknown die '{s.die}'", s.span, suggest(s.die, self.d.dice))
        sc.locals[s.name] = list_of(list_of(TEXT))

    def s_CounterStmt(self, s, sc):
        self.expr(s.target, sc)

    s_NegateStmt = s_CounterStmt

    def s_SkipStmt(self, s, sc):
        pass

    def s_ExpectStmt(self, s, sc):
        self.expr(s.cond, sc, FLAG)

    def s_GiveStmt(self, s, sc):
        self.expr(s.player, sc, PLAYER)
        self.expr(s.choice, sc)

    def s_SayStmt(self, s, sc):
        pass

    def s_PlayStmt(self, s, sc):
        if s.cond is not None:
            self.expr(s.cond, sc, FLAG)

    def s_IfStmt(self, s, sc):
        for cond, body in s.branches:
            self.expr(cond, sc, FLAG)
            self.block(body, sc)
        if s.else_body:
            self.block(s.else_body, sc)

    def s_ForStmt(self, s, sc):
        t = self.expr(s.coll, sc)
        if not is_list(t) and t != ANY:
            self.sink.error("E0404", f"'for each' needs a collection, but this is {show(t)}", s.coll.span, None)
        sc.locals[s.name] = elem(t)
        if s.cond is not None:
            self.expr(s.cond, sc, FLAG)
        self.block(s.body, sc.child(loop_depth=sc.loop_depth + 1, locals=sc.locals))

    def s_RepeatStmt(self, s, sc):
        self.block(s.body, sc.child(loop_depth=sc.loop_depth + 1, locals=sc.locals))

    def s_WhileStmt(self, s, sc):
        self.expr(s.cond, sc, FLAG)
        self.block(s.body, sc.child(loop_depth=sc.loop_depth + 1, locals=sc.locals))

    def s_TimesStmt(self, s, sc):
        self.expr(s.count, sc, NUMBER)
        self.block(s.body, sc.child(loop_depth=sc.loop_depth + 1, locals=sc.locals))

    def s_StepStmt(self, s, sc):
        self.block(s.body, sc)

    def s_TurnStmt(self, s, sc):
        self.expr(s.player, sc, PLAYER)
        self.block(s.body, sc)

    def s_MayStmt(self, s, sc):
        self.expr(s.player, sc, PLAYER)
        self.block(s.body, sc)

    def s_TakeActionsStmt(self, s, sc):
        self.expr(s.player, sc, PLAYER)

    def s_SecretStmt(self, s, sc):
        self.expr(s.players, sc, list_of(PLAYER))
        t = self.expr(s.options, sc)
        sc.locals[s.name] = elem(t)
        self.block(s.body, sc)

    # ------------------------------------------------------------------ abilities
    def ability(self, ab, this_type: str | None, sc_base: Scope) -> None:
        sc = sc_base.child(this_type=this_type, in_ability=True)
        if isinstance(ab, (A.Triggered, A.Replacement)):
            params = event_params(self.d, self.typer, ab.event, procedures=isinstance(ab, A.Replacement))
            if params is None:
                known = list(self.d.events) + list(BUILTIN_EVENTS)
                self.sink.error("E0210", f"unknown event '{ab.event}'", ab.span,
                                suggest(ab.event, known) or f"declare it with: event {ab.event}(...)")
                params = {}
            sc.event_params = dict(params)
            if ab.cond is not None:
                self.expr(ab.cond, sc, FLAG)
            self.block(ab.body, sc)
        elif isinstance(ab, A.Activated):
            for act in ab.activations:
                if act.expr is not None:
                    self.expr(act.expr, sc)
                if act.kind == "from" and act.name not in self.d.zones:
                    self.sink.error("E0207", f"unknown zone '{act.name}'", act.span, suggest(act.name, self.d.zones))
            self.block(ab.body, sc)
        elif isinstance(ab, A.StaticMod):
            self._cards(ab.target, sc)
            ft = self.typer.card_field(ab.field, None)
            if ft is None:
                self.sink.error("E0204", f"cards have no field '{ab.field}'", ab.span,
                                suggest(ab.field, self.typer.all_card_fields()))
            elif ft != NUMBER:
                self.sink.error("E0408", f"only number fields can be modified, but '{ab.field}' is {show(ft)}",
                                ab.span, None)
            self.expr(ab.amount, sc, NUMBER)
            if ab.cond is not None:
                self.expr(ab.cond, sc, FLAG)


def bodies(d: Declarations, sink: DiagnosticSink) -> None:
    bc = BodyChecker(d, sink)
    for de in d.defines.values():
        bc.expr(de.expr, Scope({p: ANY for p in de.params}))
    for pr in d.procedures.values():
        bc.block(pr.body, Scope({p: ANY for p in pr.params}))
    if d.setup:
        bc.block(d.setup.body, Scope())
    for r in d.rounds:
        bc.block(r.body, Scope())
    for ec in d.end_checks:
        bc.expr(ec.cond, Scope(), FLAG)
        bc.block(ec.body, Scope())
    for ct in d.card_types.values():
        if ct.blank_unless is not None:
            bc.expr(ct.blank_unless, Scope(this_type=ct.name, in_ability=True), FLAG)
        for ab in ct.abilities:
            bc.ability(ab, ct.name, Scope())
    for cd in d.cards:
        for ab in cd.abilities:
            bc.ability(ab, cd.type_name if cd.type_name in d.card_types else None, Scope())
    for kw in d.keywords.values():
        params = {p.name: bc.typer.type_of_ref(p.type) for p in kw.params}
        for ab in kw.abilities:
            bc.ability(ab, None, Scope(dict(params)))
    if d.trigger_order:
        for key in d.trigger_order.keys:
            if key.expr is not None:
                bc.expr(key.expr, Scope(it_type=CARD, in_ability=True), NUMBER)
    for sc_decl in d.scenarios:
        bc.block(sc_decl.body, Scope())
    bc.check_call_signatures()
    for w in d.windows:
        for ev in w.after:
            if ev not in d.events and ev not in BUILTIN_EVENTS:
                bc.sink.error("E0210", f"unknown event '{ev}'", w.span, suggest(ev, list(d.events) + list(BUILTIN_EVENTS)))
