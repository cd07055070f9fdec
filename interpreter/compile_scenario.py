"""The statements of scenarios, compiled (docs/language.md, "Scenarios"), bound as StmtCompiler methods.

* `expect <condition>`: a false one is a failure that says what went wrong — the condition as
  written, the values of its parts (both sides of a comparison), and the last lines of the log.
* `expect event moved where to_zone = discard happened` / `did not happen` /
  `happened before event ...`: questions about the events so far (interpreter/scenario_machine.py
  keeps them).
* `stack seat 1's deck with "A", "B" on top`: the cards named, found in that zone, go on its
  top or bottom; a name that is not there stops the scenario at that line (E0830).
* `say "text", value, ...`: a line of the log with values in words.
* `play setup`, `play N rounds`, `play until <condition>`, `play until step "X"`, `play to the end`.

A failure is kept in the state as a list of lines: where (file:line:col), what failed, then why.
"""
from __future__ import annotations

import json

from cardsmith.dsl import ast as A
from cardsmith.dsl.registry import STEP_STARTED
from cardsmith.dsl.types import CARD, TEXT, ZONE, elem, is_list

from .blocks import Snippet
from .errors import RuleError
from .reads import ZONES

LAST_LOG_LINES = 5      # the lines of the log a failed expectation shows


# ---------------------------------------------------------------- values in words

def _words(m, v, t, quoted: bool = True, holding: bool = True) -> str:
    """A value as a designer writes it: texts and card names quoted (when `quoted`), lists in
    brackets, yes / no / none; a zone by its name and (when `holding`) the cards it holds now."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if t == ZONE and holding and isinstance(v, str) and v in m.zones:
        held = [m.card_label(c) for c in m.zones[v]]
        return f"{m.log.zone_name(m, v)} (holding {_list(held, quoted)})"
    if isinstance(v, list):
        inner = elem(t) if is_list(t) else None
        return "[" + ", ".join(_words(m, x, inner, quoted, holding) for x in v) + "]"
    shown = m.log.typed(m, v, t)
    if isinstance(shown, str) and quoted and t in (TEXT, CARD):
        return json.dumps(shown, ensure_ascii=False)
    return str(shown)


def _list(names, quoted: bool) -> str:
    return "[" + ", ".join(json.dumps(n, ensure_ascii=False) if quoted else n for n in names) + "]"


def _log_tail(m, upto: int | None = None) -> list[str]:
    """The last lines of the log (before event `upto`), without the scenario's own checks."""
    events = m.log.events if upto is None else m.log.events[:upto]
    out = []
    for e in reversed(events):
        if len(out) == LAST_LOG_LINES:
            break
        if e["event"] != "expect":
            out.append(f"#{e['n']} round {e['round']}" + (f", {e['step']}" if e.get("step") else "") + f": {e['text']}")
    return out[::-1]


def _failure(m, span, what: str, why: list[str], tail: list[str] | None = None) -> list[str]:
    """A failure of the scenario as the lines it is reported with: where, what, why, the log before it."""
    lines = [span.short, what, *why]
    tail = _log_tail(m) if tail is None else tail
    if tail:
        lines.append("the last lines of the log before it:")
        lines.extend(f"  {t}" for t in tail)
    return lines


def _literal(self, e, sc) -> bool:
    """Whether `e` is written out as a value (`3`, `"Axe"`, `["A", "B"]`, `yes`, `none`, `red`)."""
    return isinstance(e, (A.Num, A.Text, A.Bool, A.Nothing)) or (
        isinstance(e, A.Name) and self.x.kind_of(e, sc) == "member") or (
        isinstance(e, A.ListExpr) and all(_literal(self, x, sc) for x in e.items))


# ---------------------------------------------------------------- expect

def _explainer(self, e, ctx):
    """fn(m, env) -> the lines that say why `e` is false (its parts' values)."""
    from .explain import written
    sc = ctx.sc

    def value_of(x):
        fn, t = self.cx(x, ctx), self.x.type_of(x, sc)
        return lambda m, env: _words(m, fn(m, env), t)

    if isinstance(e, A.Compare):
        left, right = value_of(e.left), value_of(e.right)
        lw, rw = written(e.left), written(e.right)
        if e.op == "=" and _literal(self, e.right, sc):
            return lambda m, env: [f"{lw} is {left(m, env)}", f"expected {right(m, env)}"]
        if e.op == "!=" and _literal(self, e.right, sc):
            return lambda m, env: [f"{lw} is {left(m, env)}, which it should not be"]
        return lambda m, env: [f"{lw} is {left(m, env)}", f"{rw} is {right(m, env)}"]
    if isinstance(e, A.AndChain):
        parts = [(self.cx(x, ctx), written(x), _explainer(self, x, ctx)) for x in e.items]

        def first_false(m, env):
            for fn, text, why in parts:
                if not fn(m, env):
                    return [f"this part is false: {text}", *why(m, env)]
            return []
        return first_false
    if isinstance(e, A.OrChain):
        parts = [(written(x), _explainer(self, x, ctx)) for x in e.items]
        return lambda m, env: ["every part is false"] + [line for text, why in parts for line in why(m, env)]
    if isinstance(e, A.NotOp):
        inner = value_of(e.operand)
        text = written(e.operand)
        return lambda m, env: [f"{text} is {inner(m, env)}"]
    if isinstance(e, A.IsEmpty):
        inner = value_of(e.operand)
        text = written(e.operand)
        return lambda m, env: [f"{text} is {inner(m, env)}"]
    if isinstance(e, A.IsIn):
        item, coll = value_of(e.item), value_of(e.coll)
        iw, cw = written(e.item), written(e.coll)
        return lambda m, env: [f"{iw} is {item(m, env)}", f"{cw} is {coll(m, env)}"]
    if isinstance(e, A.IsFace):
        fn = self.cx(e.operand, ctx)
        text = written(e.operand)

        def face(m, env):
            v = fn(m, env)
            cards = v if isinstance(v, list) else [v]
            return [f"{text}: " + ", ".join(
                "none" if c is None else f"{json.dumps(m.card_label(c), ensure_ascii=False)} is face "
                f"{'up' if m.st.face_up[c] else 'down'}" for c in cards)]
        return face
    whole = value_of(e)
    text = written(e)
    return lambda m, env: [f"{text} is {whole(m, env)}"]


def s_ExpectStmt(self, s, ctx):
    """`expect <condition>`: the log says whether it held; a false one is a failure with its reasons."""
    from .explain import written
    cond, span = self.cx(s.cond, ctx), s.span
    why = _explainer(self, s.cond, ctx)
    what = f"expectation failed: expect {written(s.cond)}"

    def expect(m, fr):
        env = fr.env
        ok = bool(cond(m, env))
        failure = None
        if not ok:
            tail = _log_tail(m)
            rng, work = m.st.rng, m.st.work
            try:
                reasons = why(m, env)
            except RuleError as err:        # a part that cannot be worked out is said, not raised
                reasons = [f"(its parts could not be shown: {err.message})"]
            finally:    # explaining draws nothing from the generator and counts no work: the
                m.st.rng, m.st.work = rng, work     # rest of the scenario runs as if it had not
            failure = _failure(m, span, what, reasons, tail)
        m.expect(ok, span, failure)
    ctx.code.emit(expect, span, ("expect", s.cond))


# ---------------------------------------------------------------- expect event

def _pattern(self, event: str, cond, ctx):
    """fn(m, env, (event, params, at)) -> whether a kept event matches `event where cond`."""
    if cond is None:
        return lambda m, env, kept: kept[0] == event
    sc = ctx.sc.child()
    sc.event_params = dict(self.p.event_types(event))
    fn = self.x.compile(cond, sc)

    def match(m, env, kept):
        if kept[0] != event:
            return False
        inner = dict(env)
        inner.update(kept[1])
        return bool(fn(m, inner))
    return match


def _described(m, kept) -> str:
    event, params, at = kept
    types = m.prog.event_types(event)
    shown = ", ".join(f"{k}: {_words(m, v, types.get(k), holding=False)}" for k, v in params.items())
    return f"{event}({shown})" + (f" after log line #{m.log.events[at - 1]['n']}" if at else " before the first log line")


def s_ExpectEventStmt(self, s, ctx):
    """`expect event E [where c] happened [before event F [where d]]`, `... did not happen`."""
    from .explain import written
    span = s.span
    first = _pattern(self, s.event, s.cond, ctx)
    later = _pattern(self, s.before_event, s.before_cond, ctx) if s.how == "before" else None
    a_text = f"event {s.event}" + (f" where {written(s.cond)}" if s.cond is not None else "")
    b_text = f"event {s.before_event}" + (f" where {written(s.before_cond)}" if s.before_cond is not None else "")
    what = {"happened": f"expectation failed: expect {a_text} happened",
            "not": f"expectation failed: expect {a_text} did not happen",
            "before": f"expectation failed: expect {a_text} happened before {b_text}"}[s.how]

    def find(m, env, match):
        for i, kept in enumerate(m.history or ()):
            if match(m, env, kept):
                return i
        return None

    def expect(m, fr):
        env = fr.env
        kept = m.history or []
        i = find(m, env, first)
        reasons = []
        if s.how == "happened" and i is None:
            same = [k for k in kept if k[0] == s.event]
            reasons = [f"no such event so far ({len(same)} {s.event} event{'s' if len(same) != 1 else ''} in all)"]
            reasons += [f"  {_described(m, k)}" for k in same[-LAST_LOG_LINES:]]
        elif s.how == "not" and i is not None:
            reasons = [f"it happened: {_described(m, kept[i])}"]
        elif s.how == "before":
            j = find(m, env, later)
            if i is None:
                reasons.append(f"{a_text} never happened")
            if j is None:
                reasons.append(f"{b_text} never happened")
            if i is not None and j is not None and i > j:
                reasons = [f"{b_text} happened first: {_described(m, kept[j])}",
                           f"{a_text} only after it: {_described(m, kept[i])}"]
        ok = not reasons
        m.expect(ok, span, _failure(m, span, what, reasons) if not ok else None)
    desc = ("expect_event", f"{a_text} " + {"happened": "happened", "not": "did not happen",
                                              "before": f"happened before {b_text}"}[s.how])
    ctx.code.emit(expect, span, desc)


# ---------------------------------------------------------------- stack a deck

def s_StackDeckStmt(self, s, ctx):
    """`stack Z with "A", "B" on top`: the cards named, found in Z, put on its top (or bottom) in
    the order written from the top down; a name not in Z stops the scenario there (E0830)."""
    zone, span, place = self.cx(s.zone, ctx), s.span, s.place
    names = [self.cx(n, ctx) for n in s.names]

    def stack(m, fr):
        env = fr.env
        key = zone(m, env)
        if key is None or key not in m.zones:
            raise RuleError("there is no zone here to stack", span, code="E0830")
        wanted = []
        for n in names:
            v = n(m, env)
            wanted.extend(v if isinstance(v, list) else [v])
        held = m.zones[key]
        picked: list[int] = []
        for name in wanted:
            # the copy nearest the bottom: one stacked on top by an earlier line is taken last
            c = next((c for c in held if c not in picked and m.card_label(c) == name), None)
            if c is None:
                raise RuleError(f"no card named {json.dumps(name, ensure_ascii=False)} is in "
                                f"{m.log.zone_name(m, key)} to stack", span, _where_else(m, name, key, wanted),
                                code="E0830")
            picked.append(c)
        for c in picked:
            held.remove(c)
        if place == "top":
            held.extend(reversed(picked))       # the first named ends on top
        else:
            held[0:0] = reversed(picked)        # ... and the last named at the very bottom
        m.dirty |= ZONES
        if m.log.on:
            m.log.emit(m, "stacked", span, {"zone": key, "cards": [m.card_label(c) for c in picked],
                                            "place": place},
                       f"{m.log.zone_name(m, key)} is stacked: {', '.join(m.card_label(c) for c in picked)} "
                       f"on {place}", weight=None)
        return True
    ctx.code.emit(stack, span, ("stack", s.zone, " with ", tuple(s.names), f" on {place}"))


def _where_else(m, name, key, wanted) -> str:
    """The hint for a card not found: where cards of that name are, or that none is so named."""
    zones = sorted({m.st.card_zone[c] for c in range(len(m.st.card_zone)) if m.card_label(c) == name})
    if zones:
        count = sum(1 for w in wanted if w == name)
        more = f" ({count} asked for)" if count > 1 else ""
        return (f"cards of that name are in {', '.join(m.log.zone_name(m, z) for z in zones)}{more}: "
                f"move one to {m.log.zone_name(m, key)} first, or stack the zone it is in")
    from cardsmith.dsl.types import suggest
    close = suggest(name, sorted(set(m.card_names)))
    return f"no card of this game is named {json.dumps(name, ensure_ascii=False)}" + (f"; {close}" if close else "")


# ---------------------------------------------------------------- say

def s_SayStmt(self, s, ctx):
    """`say "text"` (a snippet: games say things), `say "text", v, ...` (the values in words)."""
    text, span = s.text, s.span
    if not s.values:
        ctx.code.emit(lambda m, fr: m.say(text, fr.env, span), span, ("say", f'"{text}"'),
                      Snippet((f"m.say({self.k(text)}, env, {self.k(span)})",), pc=False, effect=(0, ())))
        return
    values = [(self.cx(v, ctx), self.x.type_of(v, ctx.sc)) for v in s.values]

    def say(m, fr):
        if not m.log.on:
            return
        env = fr.env
        parts: list = [text]
        for fn, t in values:
            parts.append(" ")
            parts.extend(said(m, fn(m, env), t, span))
        m.log.emit(m, "say", span, {}, parts)
    ctx.code.emit(say, span, ("say", f'"{text}", ', tuple(s.values)))


def said(m, v, t, span, budget=None) -> list:
    """A value as `say` writes it, in words: a list as "Axe, Bolt and Axe" (none when empty; a
    list inside a list in brackets), anything else as the log writes it; card names stay `Seen`
    parts (read only by who may see them). Bounded by MAX_RUNTIME_STRING."""
    if v.__class__ is not list or t == "action" or (t.__class__ is tuple and t and t[0] != "list"):
        return m.log.typed_parts(m, v, t, span, budget=budget)
    from .log import _Budget
    budget = budget or _Budget(span)
    if not v:
        return [budget.take("none")]
    inner = t[1] if t.__class__ is tuple and len(t) == 2 else None
    out: list = []
    for i, x in enumerate(v):
        if i:
            out.append(budget.take(" and " if i == len(v) - 1 else ", "))
        if x.__class__ is list:
            out.append(budget.take("["))
            out.extend(said(m, x, inner, span, budget))
            out.append(budget.take("]"))
        else:
            out.extend(m.log.typed_parts(m, x, inner, span, budget=budget))
    return out


# ---------------------------------------------------------------- play

def s_PlayStmt(self, s, ctx):
    """Scenarios run the game's own setup and rounds: `play setup`, `play 2 rounds`, `play until
    <cond>` (checked between rounds), `play until step "X"`, `play to the end`. After `play until
    step`, the next `play` first finishes the round in progress, which counts as one of its rounds."""
    from .compile_stmt import _jump
    span = s.span
    if s.kind == "setup":
        setup = self.p.setup_code

        def play_setup(m, fr):
            if m.resume():
                fr.pc -= 1              # the round in progress first; then the setup
                return True
            return m.push(setup, {}) if setup is not None else None
        ctx.code.emit(play_setup, span,
                      ("push", "setup" if setup is not None else "setup (this game has none: nothing)"))
        return
    rnd = self.p.round_code
    if rnd is None:
        raise RuleError("this game has no round to play", span, "declare one with: round \"Name\":")
    var = ctx.fresh("rounds")
    count, step = s.count, s.step
    cond = self.cx(s.cond, ctx) if s.cond is not None else None

    def start(m, fr):
        fr.env[var] = count
        if step:        # stopped at this very step, the next time it would begin is meant
            m.stop_at = (step, len(m.st.frames), bool(m.parked) and m.parked_at == step)
            m.plain_steps = False       # a step waited for: each begins by `begin_step`
        if m.resume():                  # the round stopped at a step goes on first, as one of them
            fr.env[var] = count - 1
            return True
    ctx.code.emit(start, span, ("let", var, f" ← {count}; a round stopped at a step goes on first"))
    head = ctx.code.here()
    end = [0]

    def next_round(m, fr):
        env = fr.env
        if m.st.result is not None or (step and m.parked):
            if step and m.stop_at is not None:
                m.stop_at = None
                m.plain_steps = STEP_STARTED not in m.listened      # Machine.plain_steps
                m.st.failures.append(_failure(m, span, f"play until step \"{step}\" failed", [
                    f"the game ended before {step} began ({m.st.result.get('reason') or 'game over'})"
                    if m.st.result is not None else f"{step} never began"]))
            fr.pc = end[0]
            return
        if s.kind == "rounds":
            if env[var] <= 0:
                fr.pc = end[0]
                return
            env[var] -= 1
        elif cond is not None and cond(m, env):
            fr.pc = end[0]
            return
        return m.push(rnd, {})
    played = ((f"while {var} > 0 (counted down)",) if s.kind == "rounds" else
              ("until ", s.cond) if cond is not None else
              (f"until step \"{step}\" would begin",) if step else ("to the end",))
    ctx.code.emit(next_round, span, ("push_round", "round ", *played, "; game over or done → ", end))
    ctx.code.emit(_jump([head]), span, ("jump", [head]))
    end[0] = ctx.code.here()


__all__ = ["s_ExpectStmt", "s_ExpectEventStmt", "s_StackDeckStmt", "s_SayStmt", "s_PlayStmt"]
