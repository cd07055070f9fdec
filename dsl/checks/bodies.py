"""Pass 3: resolve every name in every rule body and check types and arities.

    procedure refill(p):
        shuffle p's dek             # E0206 unknown zone or attribute 'dek' — did you mean 'deck'?
"""
from __future__ import annotations

from .. import ast as A
from . import dice as _dice
from . import entities as _entities
from .entities import entity_unsettable
from ..bounds import MAX_PLAYERS
from ..diagnostics import DiagnosticSink
from ..model import BUILTIN_EVENTS, Declarations
from ..registry import STATEMENT, dispatch
from ..types import (ANY, CARD, CARD_PSEUDO_FIELDS, FLAG, NONE, NUMBER, PLAYER, TEXT, ZONE, Scope, Typer, card_type_hint,
                     compatible, elem, example, is_list, is_part, list_of, show, suggest)

MAX_SETTLE_ROUNDS = 10      # replacement parameter types feeding calls feeding types: bounded


def event_params(d: Declarations, typer: Typer, name: str, procedures: bool = False) -> dict | None:
    """The parameters an ability on event `name` can name; with `procedures`, a procedure
    counts as an event too (`instead of damage where p = you:`), its parameters typed as the
    game's calls of it type them (`Declarations.param_types`, settled by this pass)."""
    if procedures and name in d.procedures and name not in d.events:
        params = d.procedures[name].params
        return dict(zip(params, d.param_types.get(name, (ANY,) * len(params))))
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
        self.typer = Typer(d, self._report, d.typing)     # records every expression's type in the model
        self.proc_calls: list[tuple[str, tuple]] = []
        self.call_spans: dict[tuple, object] = {}        # (procedure, argument types) -> first call's span
        self.replacements: list[tuple] = []             # `instead of <procedure>`: checked once types settle

    def _report(self, code, msg, span, hint) -> None:
        # a body checked once per call signature (and a replacement once per settled signature)
        # must not repeat the same error
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
                if (name, types) in done:
                    continue            # listed again (a body checked twice lists its calls twice)
                done.add((name, types))
                if name in self.d.procedures:
                    proc = self.d.procedures[name]
                    self.block(proc.body, Scope(dict(zip(proc.params, types)), rule=("procedure", name),
                                                instance=("procedure", name, types)))
                elif name in self.d.defines:
                    de = self.d.defines[name]
                    self.typer.infer(de.expr, Scope(dict(zip(de.params, types)), rule=("define", name),
                                                    instance=("define", name, types)))

    # ------------------------------------------------------------------ procedure signatures
    def settle_param_types(self) -> None:
        """One type per procedure parameter, from every call of it in the game, whatever order
        the rules are compiled in: an `instead of <procedure>` ability names the parameters of
        every call it may replace. Its body calls procedures too, so repeat until nothing changes."""
        checked = None
        for _ in range(MAX_SETTLE_ROUNDS):
            types = self._joined_param_types()
            if types == checked:
                break
            self.d.param_types = checked = types
            for ab, this_type, sc_base in self.replacements:
                self._check_ability(ab, this_type, sc_base)
            self.check_call_signatures()
        for ab, _t, _sc in self.replacements:
            self._report_conflicts(ab)

    def _joined_param_types(self) -> dict:
        out = {}
        by_name: dict = {}              # the calls of each procedure, in the order made
        for call in self.proc_calls:
            by_name.setdefault(call[0], []).append(call)
        for name, proc in self.d.procedures.items():
            seen: list[dict] = [{} for _ in proc.params]
            for (n, types) in by_name.get(name, ()):
                if len(types) == len(proc.params):
                    for i, t in enumerate(types):
                        if _concrete(t):
                            seen[i].setdefault(t, self.call_spans.get((n, types)))
            out[name] = tuple(next(iter(s)) if len(s) == 1 else ANY for s in seen)
        return out

    def _report_conflicts(self, ab) -> None:
        proc = self.d.procedures.get(ab.event)
        if proc is None or ab.event in self.d.events:
            return
        for i, param in enumerate(proc.params):
            seen: dict = {}
            for (n, types) in self.proc_calls:
                if n == ab.event and len(types) == len(proc.params) and _concrete(types[i]):
                    seen.setdefault(types[i], self.call_spans.get((n, types)))
            if len(seen) > 1:
                (t1, s1), (t2, s2) = list(seen.items())[:2]
                self._report("E0408", f"'instead of {ab.event}' cannot know what '{param}' is: {ab.event} is called "
                             f"with {show(t1)} at line {s1.line} and with {show(t2)} at line {s2.line}", ab.span,
                             f"give each kind its own procedure, e.g. {ab.event}_player and {ab.event}_card")

    def agreed_call_types(self) -> dict[str, dict[str, object]]:
        """procedure / define -> {parameter: the one type every call that knows it gives it};
        the rulebook says "the player" for such a parameter (`procedure capture(w)` called with
        players only). A parameter some calls give none and others a player has no entry."""
        seen: dict[str, dict[str, set]] = {}
        for name, types in self.proc_calls + self.typer.calls:
            decl = self.d.procedures.get(name) or self.d.defines.get(name)
            if decl is None:
                continue
            for p, t in zip(decl.params, types):
                seen.setdefault(name, {}).setdefault(p, set()).add(t)
        out: dict[str, dict[str, object]] = {}
        for name, params in seen.items():
            for p, found in params.items():
                known = {t for t in found if t != ANY}
                if len(known) == 1:
                    out.setdefault(name, {})[p] = known.pop()
        return out

    # ------------------------------------------------------------------ what procedures need of their callers
    def check_needs(self) -> None:
        """A procedure or define that reads `you` (or `opponents`, `your ...`) uses its caller's;
        one that plays the game (`play setup`) runs only in a scenario. A call from where that
        is not given is reported at the call, naming the rule and the line of the use."""
        for need, code, what in (("you", "E0214", "no player is 'you' here"),
                                 ("scenario", "E0413", "only a scenario may play the game")):
            uses = {rule: use for (n, rule), use in self.typer.needs.items() if n == need}
            calls = [(caller, callee, span) for caller, you, scenario, callee, span in self.typer.rule_calls
                     if not (you if need == "you" else scenario)]
            changed = True
            while changed:                      # through procedures calling procedures
                changed = False
                for caller, callee, _span in calls:
                    if caller is not None and callee in uses and caller not in uses:
                        uses[caller] = uses[callee]
                        changed = True
            for caller, callee, span in calls:
                if caller is None and callee in uses:
                    word, at = uses[callee]
                    self._report(code, f"{callee[0]} '{callee[1]}' uses '{word}' (line {at.line}), but {what}",
                                 span, NEED_HINTS[need].format(name=callee[1]))

    # ------------------------------------------------------------------ blocks and names
    def block(self, body, sc: Scope) -> None:
        for st in body:
            self.stmt(st, sc)

    def nested(self, body, sc: Scope, span, **changes) -> Scope:
        """Check a block inside a rule (opened by the statement at `span`): the names it gives
        are not known after it."""
        inner = sc.nested(span.line, **changes)
        self.block(body, inner)
        return inner

    def bind(self, name: str, t, span, sc: Scope) -> None:
        """`let`, `chooses` and `roll` give a name a value. Inside a block, a name from an
        enclosing block is the same variable (one set of names per rule while running): its
        new value must be of its kind, and its type stays known after the block."""
        outer_param = sc.parent is not None and name not in sc.locals and name in sc.event_params
        if name not in sc.outer and not outer_param:
            sc.locals[name] = t
            if sc.parent is not None:
                sc.gone.setdefault(name, sc.block_line)
            return
        old = sc.locals[name] if not outer_param else sc.event_params[name]
        if not compatible(old, t):
            self._report("E0408", f"'{name}' is {show(old)} (given before this block); here it would become {show(t)}",
                         span, f"give this value a new name, e.g. let {name}_2 be ...")
            return
        if outer_param or _concrete(old) or not _concrete(t):
            return
        scope = sc
        while scope is not None and name in scope.locals:       # `let best be none` ... `let best be c`
            scope.locals[name] = t
            if name not in scope.outer:
                break
            scope = scope.parent

    def bind_block_name(self, name: str, t, span, sc: Scope) -> None:
        """The name a `for each` or a secret choice gives to each item, in its body only. A name
        already in use would be overwritten while running, so it is refused."""
        if name in sc.locals or name in sc.event_params:
            self._report("E0215", f"'{name}' already names a value here", span,
                         f"choose another name for each item, e.g. 'for each {name}_2 in ...'")
        sc.gone.setdefault(name, span.line)

    def stmt(self, s, sc: Scope) -> None:
        _CHECK[type(s)](self, s, sc)

    def expr(self, e, sc, want=None):
        return self.typer.want(e, want, sc) if want is not None else self.typer.infer(e, sc)

    def _cards(self, e, sc) -> None:
        t = self.expr(e, sc)
        if not (t in (CARD, ANY) or t == list_of(CARD) or t == list_of(ANY)):
            self._report("E0409", f"expected a card or cards here, but this is {show(t)}", e.span,
                            "e.g. top card of p's deck, or cards in p's hand where cost <= 2")

    def _zone(self, e, sc) -> None:
        t = self.expr(e, sc)
        if t not in (ZONE, ANY):
            self._report("E0403", f"expected a zone here, but this is {show(t)}", e.span,
                            "a zone is e.g. p's deck, your discard, or a shared zone's name")

    def _assignable(self, e, sc):
        """The type of an attribute / field that `set`, `add` and `subtract` may change."""
        if isinstance(e, A.Name):
            kind, t = self.typer.resolve_name(e.name, sc)
            if kind in ("game_attr", "this_field", "it_field"):
                return self.typer.infer(e, sc)          # recorded: the compiler reads what it is
            if kind == "local":
                self._report("E0410", f"'{e.name}' is a name given with 'let'; give it a new value with 'let'",
                                e.span, f"write: let {e.name} be ...")
                return ANY
            self.typer.infer(e, sc)
            if kind is not None:
                self._report("E0410", f"'{e.name}' cannot be changed", e.span,
                                "only attributes (player has / game has) and card fields can be set")
            return ANY
        if isinstance(e, A.FieldOf):        # `holder of c` reads a field, of one thing or of many
            self.typer.infer(e, sc)
            self._report("E0410", f"'{e.name} of ...' cannot be changed", e.span,
                         f"name the one thing whose {e.name} changes with 's: set c's {e.name} to ...")
            return ANY
        if isinstance(e, A.PlaceMark):      # `the influence of p on s`: a player's mark on a place
            return self.typer.infer(e, sc)
        if isinstance(e, (A.Possessive, A.Your, A.FieldAccess)):
            t = self.typer.infer(e, sc)
            if (msg := entity_unsettable(self, e, t, sc)) is not None:     # dsl/checks/entities.py
                self._report("E0410", msg[0], e.span, msg[1])
                return ANY
            if e.name in CARD_PSEUDO_FIELDS and e.name not in self.d.player_fields:
                self._report("E0410", f"a card's {e.name} is kept by the engine and cannot be set", e.span,
                                "move the card instead")
                return ANY
            if is_list(t) and is_part(t[1]):       # `set c's belts to ...`: a card's parts are declared
                self._report("E0410", f"the {e.name} of a card cannot be set: how many it has is its own", e.span,
                             f"set a field of one of them: set (item 1 of c's {e.name})'s ... to ...")
                return ANY
            if t == ZONE and self._names_a_zone(e, sc):     # `p's deck`; a field of zone type may be set
                self._report("E0410", "a zone cannot be set", e.span, "move cards into it instead")
            return t
        self.typer.infer(e, sc)
        self._report("E0410", "only an attribute or a card field can be changed here", e.span,
                        "e.g. set p's bonus to 0, or set this.side to active")
        return ANY

    def _names_a_zone(self, e, sc) -> bool:
        """Is `p's deck` / `your deck` a player's zone (which cannot be set), not a field or an
        attribute whose value is a zone (`set c's home to p's deck`, which can)?"""
        if isinstance(e, A.FieldAccess) or e.name not in self.d.zones:
            return False
        if isinstance(e, A.Your):
            return True
        return self.typer.infer_quiet(e.owner, sc) in (PLAYER, ANY)

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
            self._report("E0408", f"cannot set {show(t)} to {show(v)}", s.value.span,
                         f"a value keeps its kind: set it to {example(t)}")

    def s_AddStmt(self, s, sc):
        t = self._assignable(s.target, sc)
        self.expr(s.amount, sc, NUMBER)
        if not compatible(t, NUMBER):
            self._report("E0408", f"only numbers can be added to, but this is {show(t)}", s.target.span,
                         "add to a number, e.g. add 1 to your score; to put a card somewhere, use move")

    s_SubtractStmt = s_AddStmt

    s_CreateStmt, s_DestroyStmt = _entities.s_CreateStmt, _entities.s_DestroyStmt

    def s_LetStmt(self, s, sc):
        self.bind(s.name, self.expr(s.value, sc), s.span, sc)

    def s_ChooseStmt(self, s, sc):
        self.expr(s.player, sc, PLAYER)
        t = self.expr(s.options, sc)
        if not is_list(t) and t != ANY:
            self._report("E0404", f"a choice is made from a collection, but this is {show(t)}", s.options.span,
                            "e.g. cards in p's hand, or Faction where it is not in taken")
        self.bind(s.name, elem(t), s.span, sc)

    def s_AnnounceStmt(self, s, sc):
        ev = self.d.events.get(s.event)
        if ev is None:
            self._report("E0210", f"unknown event '{s.event}'", s.span,
                            suggest(s.event, self.d.events) or f"declare it with: event {s.event}(...)")
            for a in s.args:
                self.expr(a, sc)
            return
        if len(ev.params) != len(s.args):
            self._report("E0301", f"event '{s.event}' has {len(ev.params)} parameter(s), got {len(s.args)}", s.span,
                            f"it is declared at line {ev.span.line}")
        for p, a in zip(ev.params, s.args):
            self.expr(a, sc, self.typer.type_of_ref(p.type, report=False))

    def s_EliminateStmt(self, s, sc):
        t = self.expr(s.player, sc)
        if t == NONE:
            self.typer.none_here(s.player, PLAYER)
        elif not (compatible(t, PLAYER) or compatible(t, list_of(PLAYER))):
            self._report("E0408", f"expected a player or players here, but this is {show(t)}", s.player.span,
                         f"give {example(PLAYER)}, or players where ...")

    def s_WinStmt(self, s, sc):
        t = self.expr(s.player, sc)
        if t == NONE:
            self.typer.none_here(s.player, PLAYER)
        elif not (compatible(t, PLAYER) or compatible(t, list_of(PLAYER))):
            self._report("E0408", f"expected a player or players here, but this is {show(t)}", s.player.span,
                         f"give {example(PLAYER)}, or players where ... (they share the victory)")

    def s_ResolveStmt(self, s, sc):
        """`resolve the text of c [for p]`: one card; refused where no card it may be has a text."""
        if s.player is not None:
            self.expr(s.player, sc, PLAYER)
        t = self.expr(s.card, sc)
        if t == NONE:
            self.typer.none_here(s.card, CARD)
            return
        if t not in (CARD, ANY):
            self._report("E0409", f"a text is resolved for one card, but this is {show(t)}", s.card.span,
                         "e.g. resolve the text of c, where c is a card chosen or moved before"
                         + ("; for several: for each c in ...: resolve the text of c" if is_list(t) else ""))
            return
        have = texts_by_type(self.d)
        this_type = sc.this_type if isinstance(s.card, A.This) else None
        if not any(have.values()) or (this_type is not None and not have.get(this_type, True)):
            which = f"no {this_type} card" if this_type is not None else "no card of this game"
            self._report("E0440", f"{which} has a text to resolve", s.card.span,
                         "give the cards a text: a 'text:' block, which runs when it is resolved, "
                         "in the card type, a card block or indented under a table row")

    def s_LookStmt(self, s, sc):
        self.expr(s.player, sc, PLAYER)
        t = self.expr(s.cards, sc)
        if t == NONE:
            self.typer.none_here(s.cards, CARD)
        elif not (compatible(t, CARD) or compatible(t, list_of(CARD))):
            self._report("E0408", f"a player looks at a card or cards, but this is {show(t)}", s.cards.span,
                         "e.g. p looks at top 3 cards of p's deck, or p looks at cards in q's hand")

    def s_ScoreWinStmt(self, s, sc):
        if self.d.score is None:
            self._report("E0431", "'the highest score wins' needs the players' score, and this game declares none",
                         s.span, "declare it at the top level, e.g. score for p as p's points")

    def s_DrawGameStmt(self, s, sc):
        pass

    def s_StopStmt(self, s, sc):
        if sc.loop_depth == 0:
            self._report("E0411", "'stop' is only meaningful inside a repeat or for each", s.span,
                            "it leaves the innermost loop")

    def s_CallStmt(self, s, sc):
        p = self.d.procedures.get(s.name)
        if p is not None and len(p.params) == len(s.args):
            call = (s.name, tuple(self.typer.infer_quiet(a, sc) for a in s.args))
            self.proc_calls.append(call)
            self.call_spans.setdefault(call, s.span)
            self.typer.note_call(sc, ("procedure", s.name), s.span)
        if p is None:
            hint = (f"'{s.name}' is a value (define), not a procedure" if s.name in self.d.defines
                    else suggest(s.name, self.d.procedures) or f"declare it with: procedure {s.name}(...):")
            self._report("E0211", f"unknown procedure '{s.name}'", s.span, hint)
        elif len(p.params) != len(s.args):
            self._report("E0301", f"'{s.name}' takes {len(p.params)} argument(s), got {len(s.args)}", s.span,
                            f"it is declared as {s.name}({', '.join(p.params)}) at line {p.span.line}")
        for a in s.args:
            self.expr(a, sc)

    def s_RollStmt(self, s, sc):
        self.expr(s.count, sc, NUMBER)
        if s.die not in self.d.dice:
            self._report("E0212", f"unknown die '{s.die}'", s.span, suggest(s.die, self.d.dice) or (
                f"declare it first with its faces, e.g. die {s.die}: [hit], [miss], [hit, hit]"))
        self.bind(s.name, list_of(list_of(TEXT)), s.span, sc)

    # dice pools and limited supplies (dsl/checks/dice.py)
    s_RollPoolStmt, s_RollIntoStmt, s_RerollStmt = _dice.s_RollPoolStmt, _dice.s_RollIntoStmt, _dice.s_RerollStmt
    s_TurnDieStmt, s_RemoveDiceStmt, s_HandOutStmt = _dice.s_TurnDieStmt, _dice.s_RemoveDiceStmt, _dice.s_HandOutStmt
    s_HandOutCardsStmt = _dice.s_HandOutCardsStmt

    def s_CounterStmt(self, s, sc):
        self._cards(s.target, sc)       # a stack item is found by its card

    s_NegateStmt = s_CounterStmt

    def s_SkipStmt(self, s, sc):
        pass

    def s_ExpectStmt(self, s, sc):
        self.expr(s.cond, sc, FLAG)

    def s_GiveStmt(self, s, sc):
        self.expr(s.player, sc, PLAYER)
        self.expr(s.choice, sc)

    def s_SayStmt(self, s, sc):
        for v in s.values:
            self.expr(v, sc)

    def s_ExpectEventStmt(self, s, sc):
        """`expect event E [where c] happened [before event F [where d]]` / `... did not happen`:
        a scenario's question about the events so far; each condition reads its event's parameters."""
        self._scenario_only("expect event ...", s.span, sc)
        for event, cond in ((s.event, s.cond), (s.before_event, s.before_cond)):
            if not event:
                continue
            params = event_params(self.d, self.typer, event)
            if params is None:
                self._report("E0210", f"unknown event '{event}'", s.span,
                             suggest(event, list(self.d.events) + list(BUILTIN_EVENTS))
                             or f"declare it with: event {event}(...)")
                params = {}
            if cond is not None:
                inner = sc.child()
                inner.event_params = dict(params)
                self.expr(cond, inner, FLAG)

    def s_StackDeckStmt(self, s, sc):
        """`stack p's deck with "A", "B" on top`: a zone, then card names (texts, or lists of them)."""
        self._scenario_only("stack ...", s.span, sc)
        self._zone(s.zone, sc)
        for n in s.names:
            t = self.expr(n, sc)
            if t not in (TEXT, ANY) and t != list_of(TEXT) and t != list_of(ANY):
                self._report("E0408", f"'stack ... with' takes the names of cards, but this is {show(t)}", n.span,
                             'write the names as texts: stack seat 1\'s deck with "Axe Pilot", "Moss Hulk" on top')

    def _scenario_only(self, what: str, span, sc) -> None:
        self.typer.need("scenario", what, span, sc, "E0413", f"'{what}' is only meaningful in a scenario",
                        "a scenario sets up and asks about a game; the game's own rules cannot")

    def s_PlayStmt(self, s, sc):
        # a scenario runs the game's own setup and round: only a scenario may (setup playing setup,
        # or a round playing a round, would never end); a procedure may, if only scenarios call it
        what = {"setup": "play setup", "rounds": f"play {s.count} round" + ("s" if s.count != 1 else ""),
                "until": "play until ...", "until_step": f"play until step \"{s.step}\"",
                "end": "play to the end"}[s.kind]
        self.typer.need("scenario", what, s.span, sc, "E0413", f"'{what}' is only meaningful in a scenario",
                        "a scenario plays the game's own setup and rounds; a rule calls the rules it "
                        "runs (a procedure) instead")
        if s.kind != "setup" and not self.d.rounds:
            self._report("E0413", f"'{what}': this game has no round to play", s.span,
                         'declare one with: round "Name":')
        if s.cond is not None:
            self.expr(s.cond, sc, FLAG)
        if s.kind == "until_step" and s.step not in self._step_names():
            names = self._step_names()
            self._report("E0218", f"no step or phase of this game is named \"{s.step}\"", s.span,
                         suggest(s.step, names) or ("its steps are: " + ", ".join(f'"{n}"' for n in names)
                                                    if names else "this game declares no step"))

    def _step_names(self) -> list[str]:
        """Every `step "..."` and `phase "..."` name of the game, in the order written (once)."""
        if not hasattr(self, "_steps"):
            found: dict[str, None] = {}

            def walk(node):
                if isinstance(node, A.StepStmt):
                    found.setdefault(node.name)
                if isinstance(node, (tuple, list)):
                    for x in node:
                        walk(x)
                elif hasattr(node, "__dataclass_fields__") and not isinstance(node, A.ScenarioDecl):
                    for f in node.__dataclass_fields__:
                        walk(getattr(node, f))
            walk([self.d.setup, self.d.rounds, list(self.d.procedures.values()), list(self.d.card_types.values()),
                  list(self.d.keywords.values())])
            self._steps = list(found)
        return self._steps

    # Every block has its own names: a `let` inside an if's branch or a loop's body may not have
    # run (a false condition, an empty collection, a skipped step), so its name is not known after.
    def s_IfStmt(self, s, sc):
        for cond, body in s.branches:
            self.expr(cond, sc, FLAG)
            self.nested(body, sc, s.span)
        if s.else_body:
            self.nested(s.else_body, sc, s.span)

    def s_ForStmt(self, s, sc):
        t = self.expr(s.coll, sc)
        if not is_list(t) and t != ANY:
            self._report("E0404", f"'for each' needs a collection, but this is {show(t)}", s.coll.span,
                         "loop over a collection, e.g. for each p in players; to do something N times, "
                         "write repeat N times:")
        self.bind_block_name(s.name, elem(t), s.span, sc)
        inner = sc.nested(s.span.line, loop_depth=sc.loop_depth + 1)
        inner.locals[s.name] = elem(t)
        if s.cond is not None:
            self.expr(s.cond, inner.child(named_element=(s.name, elem(t))), FLAG)
        self.block(s.body, inner)

    def s_RepeatStmt(self, s, sc):
        self.nested(s.body, sc, s.span, loop_depth=sc.loop_depth + 1)

    def s_WhileStmt(self, s, sc):
        self.expr(s.cond, sc, FLAG)
        self.nested(s.body, sc, s.span, loop_depth=sc.loop_depth + 1)

    def s_TimesStmt(self, s, sc):
        self.expr(s.count, sc, NUMBER)
        self.nested(s.body, sc, s.span, loop_depth=sc.loop_depth + 1)

    def s_StepStmt(self, s, sc):
        self.nested(s.body, sc, s.span)

    def s_TurnStmt(self, s, sc):
        self.expr(s.player, sc, PLAYER)
        self.nested(s.body, sc, s.span)

    def s_MayStmt(self, s, sc):
        self.expr(s.player, sc, PLAYER)
        self.nested(s.body, sc, s.span)

    def s_TakeActionsStmt(self, s, sc):
        self.expr(s.player, sc, PLAYER)

    def s_SecretStmt(self, s, sc):
        # each player in turn is `you` while choosing (the options are theirs) and in the body;
        # after the statement `you` is again what it was before
        self.expr(s.players, sc, list_of(PLAYER))
        t = self.expr(s.options, sc.child(you=True))
        self.bind_block_name(s.name, elem(t), s.span, sc)
        inner = sc.nested(s.span.line, you=True)
        inner.locals[s.name] = elem(t)
        self.block(s.body, inner)

    def s_ChooseManyStmt(self, s, sc):
        """`p chooses up to N of C as x` / `p orders C as x`: x is a list of C's elements."""
        self.expr(s.player, sc, PLAYER)
        if s.count is not None:
            self.expr(s.count, sc, NUMBER)
        t = self.expr(s.options, sc)
        if not is_list(t) and t != ANY:
            self._report("E0404", f"a choice is made from a collection, but this is {show(t)}", s.options.span,
                         "e.g. cards in your hand, or top 3 cards of your deck")
        self.bind(s.name, list_of(elem(t)), s.span, sc)

    def s_ChooseOneStmt(self, s, sc):
        """`p chooses one:` — text options (with an optional `if`) and element options (`"Play" c
        from C:`, c known in its block only); two options that would read the same are refused."""
        self.expr(s.player, sc, PLAYER)
        seen: dict = {}
        for o in s.choices:
            key = ("text" if o.name is None else "each", o.label)
            if key in seen:
                said = f'"{o.label}"' if o.label is not None else "without a label"
                self._report("E0430", f"two options of this choice read the same ({said}); the first is at "
                             f"line {seen[key].line}", o.span,
                             "give each option its own label, e.g. \"Play\" c from ... and \"Discard\" c from ...")
            seen.setdefault(key, o.span)
            if o.name is None:
                if o.cond is not None:
                    self.expr(o.cond, sc, FLAG)
                self.nested(o.body, sc, o.span)
                continue
            t = self.expr(o.options, sc)
            if not is_list(t) and t != ANY:
                self._report("E0404", f"an option of a choice is made from a collection, but this is {show(t)}",
                             o.options.span, "e.g. \"Play\" c from cards in your hand")
            self.bind_block_name(o.name, elem(t), o.span, sc)
            inner = sc.nested(o.span.line)
            inner.locals[o.name] = elem(t)
            self.block(o.body, inner)

    # ------------------------------------------------------------------ abilities
    def ability(self, ab, this_type: str | None, sc_base: Scope) -> None:
        if isinstance(ab, A.Replacement) and ab.event in self.d.procedures and ab.event not in self.d.events:
            self.replacements.append((ab, this_type, sc_base))     # once the procedure's types are known
            return
        self._check_ability(ab, this_type, sc_base)

    def _check_ability(self, ab, this_type: str | None, sc_base: Scope) -> None:
        sc = sc_base.child(this_type=this_type, in_ability=True)
        if isinstance(ab, (A.Triggered, A.Replacement)):
            params = event_params(self.d, self.typer, ab.event, procedures=isinstance(ab, A.Replacement))
            if params is None:
                known = list(self.d.events) + list(BUILTIN_EVENTS)
                self._report("E0210", f"unknown event '{ab.event}'", ab.span,
                                suggest(ab.event, known) or f"declare it with: event {ab.event}(...)")
                params = {}
            sc.event_params = dict(params)
            if ab.cond is not None:
                self.expr(ab.cond, sc, FLAG)
            self.block(ab.body, sc)
        elif isinstance(ab, A.CardText):        # run by `resolve the text of c`, c as this
            self.block(ab.body, sc)
        elif isinstance(ab, A.Activated):
            for act in ab.activations:
                if act.expr is not None and act.kind != "target":
                    self.expr(act.expr, sc)
                for name in (act.names or (act.name,)) if act.kind == "from" else ():
                    if name not in self.d.zones:
                        self._report("E0207", f"unknown zone '{name}'", act.span, suggest(name, self.d.zones))
            sc = self._targets(ab, sc)
            self.block(ab.body, sc)
        elif isinstance(ab, A.StaticMod):
            self._static_mod(ab, sc)
            self.expr(ab.amount, sc, NUMBER)
            if ab.cond is not None:
                self.expr(ab.cond, sc, FLAG)

    def _targets(self, ab: A.Activated, sc: Scope) -> Scope:
        """`target t from <collection>`: chosen when the action is used, in the order written (a
        later target's collection may name an earlier one); the body reads each by its name."""
        targets = [act for act in ab.activations if act.kind == "target"]
        if not targets:
            return sc
        sc = sc.child()
        for act in targets:
            if act.name in sc.locals or act.name in sc.event_params:
                self._report("E0451", f"'{act.name}' already names a value in this action", act.span,
                             f"give each target its own name, e.g. target {act.name}_2 from ...")
            t = self.expr(act.expr, sc)
            if not (t == ANY or t == list_of(ANY) or t == list_of(CARD) or t == list_of(PLAYER)):
                self._report("E0450", f"a target is chosen from a collection of cards or players, but this "
                             f"is {show(t)}", act.expr.span,
                             "e.g. target t from cards in every line where controller of it is not you")
                t = list_of(ANY)
            sc.locals[act.name] = elem(t) if is_list(t) else ANY
        return sc

    def _static_mod(self, ab: A.StaticMod, sc: Scope) -> None:
        """What `modify` changes: a number field of cards (`modify power of cards in your line by 1`),
        a number attribute of a player or players (`modify draws of you by 1`), or one of the
        game's (`modify hand_limit by 1`, no `of`). The target's recorded type says which."""
        ft, hint = None, "modify a number field of the card type (declared as: power: number)"
        if ab.target is None:
            fd = self.d.game_fields.get(ab.field)
            if fd is not None:
                ft, hint = self.typer.field_type(fd), "modify a number attribute (game has: limit: number = 3)"
            else:
                whose = ("players" if ab.field in self.d.player_fields
                         else "cards" if self.typer.card_field(ab.field, None) is not None else None)
                self._report("E0201", f"the game has no attribute '{ab.field}'", ab.span,
                             f"'{ab.field}' belongs to {whose}: say whose, e.g. modify {ab.field} of "
                             f"{'you' if whose == 'players' else 'this'} by 1" if whose is not None
                             else suggest(ab.field, self.d.game_fields) or "declare it under: game has:")
                return
        else:
            t = self.expr(ab.target, sc)
            if t == PLAYER or t == list_of(PLAYER):
                fd = self.d.player_fields.get(ab.field)
                if fd is None:
                    self._report("E0203", f"players have no attribute '{ab.field}'", ab.span,
                                 suggest(ab.field, self.d.player_fields) or "declare it under: player has:")
                    return
                ft, hint = self.typer.field_type(fd), "modify a number attribute (player has: draws: number = 1)"
            elif t in (CARD, ANY) or t == list_of(CARD) or t == list_of(ANY):
                ft = self.typer.card_field(ab.field, None)
                if ft is None:
                    self._report("E0204", f"cards have no field '{ab.field}'", ab.span,
                                 suggest(ab.field, self.typer.all_card_fields()))
                    return
            else:
                self._report("E0409", f"modify changes cards or players, but this is {show(t)}", ab.target.span,
                             "e.g. modify power of cards in your line by 1, or modify draws of you by 1")
                return
        if ft != NUMBER:
            self._report("E0408", f"only numbers can be modified, but '{ab.field}' is {show(ft)}", ab.span, hint)


# One check per statement class, read from the registry (dsl/registry.py) once
_CHECK = dispatch("check", STATEMENT, BodyChecker)


NEED_HINTS = {
    "you": ("give {name} the player as a parameter, or call it from a card's ability "
            "or inside 'each player in ... secretly chooses ...:'"),
    "scenario": "call {name} from a scenario only; a rule of the game runs its own steps instead",
}


def texts_by_type(d: Declarations) -> dict[str, bool]:
    """card type -> whether some card of it has a text (`text:` in the type, a card block, a
    table row, or a keyword one of them carries): what `resolve the text of` may find."""
    def has(abilities, uses) -> bool:
        return (any(isinstance(ab, A.CardText) for ab in abilities)
                or any(isinstance(ab, A.CardText) for u in uses if u.name in d.keywords
                       for ab in d.keywords[u.name].abilities))
    out = {name: has(ct.abilities, ct.keywords) for name, ct in d.card_types.items()}
    for cd in d.cards:
        if cd.type_name in out and has(cd.abilities, cd.keywords):
            out[cd.type_name] = True
    for table in d.tables:
        if table.type_name in out and any(has(row.abilities, row.keywords) for row in table.rows):
            out[table.type_name] = True
    return out


def _concrete(t) -> bool:
    """A type that says what a value is (not 'a value', not none, not a list of those)."""
    return t not in (ANY, NONE) and (not is_list(t) or _concrete(t[1]))


def bodies(d: Declarations, sink: DiagnosticSink) -> None:
    bc = BodyChecker(d, sink)
    for name, de in d.defines.items():
        bc.expr(de.expr, Scope({p: ANY for p in de.params}, rule=("define", name),
                               instance=("define", name, (ANY,) * len(de.params))))
    for name, pr in d.procedures.items():
        bc.block(pr.body, Scope({p: ANY for p in pr.params}, rule=("procedure", name),
                                instance=("procedure", name, (ANY,) * len(pr.params))))
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
    for table in d.tables:          # abilities indented under a table's rows
        for row in table.rows:
            for ab in row.abilities:
                bc.ability(ab, table.type_name if table.type_name in d.card_types else None, Scope())
    for kw in d.keywords.values():
        params = {p.name: bc.typer.type_of_ref(p.type, report=False) for p in kw.params}   # E0101: declarations
        for ab in kw.abilities:
            bc.ability(ab, None, Scope(dict(params)))
    if d.trigger_order:
        for key in d.trigger_order.keys:
            if key.expr is not None:
                bc.expr(key.expr, Scope(it_type=CARD, in_ability=True), NUMBER)
    if d.score is not None:     # `score for p as ...`: a number for the player p (and `you`)
        bc.expr(d.score.expr, Scope({d.score.player: PLAYER}, you=True), NUMBER)
    if d.value is not None:     # `value for p as ...`: a number for the player p (and `you`)
        bc.expr(d.value.expr, Scope({d.value.player: PLAYER}, you=True), NUMBER)
    for m in d.measures:        # `measure "X" [for p] as ...` (a number) or `measure "X" counts event E`
        if m.event is not None:
            if m.event in BUILTIN_EVENTS and m.event not in d.events:
                bc.sink.error("E0210", f"a measure counts an event the game declares, and '{m.event}' is built in",
                              m.span, "declare an event of the game and announce it where it happens "
                              "(a built-in event is raised only when something listens to it)")
            elif m.event not in d.events:
                bc.sink.error("E0210", f"unknown event '{m.event}'", m.span,
                              suggest(m.event, d.events) or "a measure counts an event the game declares "
                              f"and announces: event {m.event}")
        elif m.player is not None:
            bc.expr(m.expr, Scope({m.player: PLAYER}, you=True), NUMBER)
        else:
            bc.expr(m.expr, Scope(), NUMBER)
    for g in d.groups:          # `group "X" for p as ...`: an enum member, a text, a number or a flag
        t = bc.expr(g.expr, Scope({g.player: PLAYER}, you=True))
        if not (t in (NUMBER, TEXT, FLAG, ANY, NONE) or (isinstance(t, tuple) and t[0] == "enum")):
            bc.sink.error("E0408", f"a group's value is an enum member, a text, a number or a flag, but this is {show(t)}",
                          g.expr.span, f"e.g. group \"Faction\" for {g.player} as {g.player}'s faction")
    scenarios(d, bc)
    for st in d.stacks:         # `holds triggered abilities of T, ...`: card types the game declares
        for name in st.holds or ():
            if name not in d.card_types:
                bc.sink.error("E0209", f"unknown card type '{name}'", st.holds_span, card_type_hint(name, d.card_types))
    for w in d.windows:
        for ev in w.after:
            if ev not in d.events and ev not in BUILTIN_EVENTS:
                bc.sink.error("E0210", f"unknown event '{ev}'", w.span, suggest(ev, list(d.events) + list(BUILTIN_EVENTS)))
        if w.order is not None:         # `players answer in <players>`: who answers, in order
            t = bc.typer.infer(w.order, Scope())
            if t == NONE:
                bc.typer.none_here(w.order, list_of(PLAYER))
            elif not compatible(t, list_of(PLAYER)):
                bc.sink.error("E0408", f"the players who answer are a list of players, but this is {show(t)}",
                              w.order.span, "e.g. players answer in clockwise_from(the active player)")
    bc.check_call_signatures()
    bc.settle_param_types()
    bc.check_needs()
    d.call_types = bc.agreed_call_types()


def scenarios(d: Declarations, bc: BodyChecker) -> None:
    """Scenario bodies, with `play ...` allowed; each scenario's name once, its players the game's."""
    first: dict = {}
    for sc_decl in d.scenarios:
        bc.block(sc_decl.body, Scope(in_scenario=True))
        if sc_decl.name in first:
            bc.sink.error("E0102", f"scenario \"{sc_decl.name}\" is declared twice", sc_decl.span,
                          f"give each scenario its own name; the first is at line {first[sc_decl.name].line}")
        first.setdefault(sc_decl.name, sc_decl.span)
        g = d.game
        if (sc_decl.players is not None and g is not None and sc_decl.players <= MAX_PLAYERS   # more: E0110
                and not g.min_players <= sc_decl.players <= g.max_players):
            bc.sink.error("E0701", f"{g.title} is for {g.min_players} to {g.max_players} players, "
                          f"not {sc_decl.players}", sc_decl.span,
                          f"write 'with {g.min_players} players'" + (f" (up to {g.max_players})"
                                                                     if g.max_players > g.min_players else ""))
