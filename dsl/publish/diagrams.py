"""The phase diagram and the zone diagram of a game, as Graphviz DOT (and SVG when `dot` runs).

Phases: setup, each round, and inside them the phases and steps as nested clusters, in the
order they are played; loops (`repeat`, `repeat until ...`, `repeat N times`, `for each`
around flow) as a head node with the way back and the way out; branches (`if` / `else`,
`may`) as a diamond whose edges carry their conditions; secret choices; response windows
(hexagons) where a window opens, and a window that opens at any moment once, beside the
flow (not before every step); `as soon as` end checks beside the flow. Statements that do
not shape the flow are summarised, in English, in small notes.

    round "Contest":                       ┌ Round “Contest” ────────────────┐
        step "Reveal": ...                 │ Step “Reveal” → Step “Battle…”  │
        step "Battle or War": ...          └──────────── next round ←────────┘

Zones: every zone is a node; every `move` is an edge from the zones its cards come from
(`cards in X`, `top card of X`, a name chosen from those) to the zone it goes to, labelled
with the rule that moves them.

Every statement class has a walker in WALKERS (tests/test_registry.py checks it), so a new
statement cannot be forgotten by the phase diagram.
"""
from __future__ import annotations

import shutil
import subprocess
import textwrap
from dataclasses import dataclass, field

import graphviz

from .. import ast as A
from ..bounds import GRAPHVIZ_SECONDS, MAX_DIAGRAM_NODES
from . import apart
from . import english as E
from . import errors as X
from .layout import zone_label

FONT = "DejaVu Sans"
GRAPH_ATTR = {"fontname": FONT, "fontsize": "11", "rankdir": "TB", "compound": "true",
              "nodesep": "0.3", "ranksep": "0.35", "newrank": "true"}
NODE_ATTR = {"fontname": FONT, "fontsize": "10", "shape": "box", "style": "rounded"}
EDGE_ATTR = {"fontname": FONT, "fontsize": "9"}
WRAP = 30
# A procedure is drawn inline (a dashed box holding its flow) where the round calls it; a
# procedure called from inside that drawing is one box, its call's sentence (the rulebook's
# section on it tells the rest): nested procedures (a turn calling an action calling a battle)
# would otherwise make a diagram too wide to print.
MAX_INLINE_DEPTH = 1
BOARD = "board:"        # a flow to or from any place of a board (no zone name holds a colon)
SKIP_IN_SUMMARY = (A.LetStmt, A.SayStmt, A.DocItem, A.ExpectStmt, A.GiveStmt, A.ExpectEventStmt, A.StackDeckStmt)


def label(text: str, width: int = WRAP, max_lines: int = 6) -> str:
    """English text as a DOT label: wrapped, escaped, at most `max_lines` lines."""
    lines: list[str] = []
    for part in E.plain(text).split("\n"):
        lines.extend(textwrap.wrap(part, width) or [""])
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] += " …"
    # nohtml: a label that happens to look like <...> must stay text, not become an HTML label
    return graphviz.nohtml("\\n".join(graphviz.escape(ln) for ln in lines))


# ================================================================ the phase diagram


@dataclass
class Frag:
    """A piece of the flow: where it starts, and the ways out of it (node, edge label)."""
    entry: str | None = None
    exits: list = field(default_factory=list)
    stops: bool = False          # the block leaves its loop before doing anything


@dataclass
class Loop:
    """The innermost loop: where `stop` leads."""
    breaks: list = field(default_factory=list)


STOP = object()


class PhaseDiagram:
    """Builds the phase diagram of a game's declarations."""

    def __init__(self, decls, ctx: E.Ctx | None = None, collapse_steps: bool = False):
        self.d = decls
        self.ctx = ctx or E.make_ctx(decls, param_types=E.param_types(decls))
        self.collapse_steps = collapse_steps    # steps drawn as one box each (the overview of a split diagram)
        self.count = 0
        self.edges: list[tuple] = []
        self.calls: list[str] = []        # procedures being walked (no recursion)
        self.windows: dict[str, list[str]] = {}
        # a window that opens at any moment opens before every step and after every event: it is
        # drawn once, beside the flow (any_moment_legend), not before each step
        self.any_moment = [w for w in decls.windows if w.any_moment]
        for w in decls.windows:
            for ev in (() if w.any_moment else w.after):
                self.windows.setdefault(ev, []).append(w.name)

    # ---------------------------------------------------------------- graph helpers
    def node(self, g, text: str, **attrs) -> str:
        self.count += 1
        name = f"n{self.count}"
        g.node(name, text, **attrs)
        return name

    def cluster(self, text: str, **attrs):
        self.count += 1
        sub = graphviz.Digraph(name=f"cluster_{self.count}")
        sub.attr(label=text, labeljust="l", fontname=FONT, fontsize="11", **attrs)
        return sub

    def edge(self, a: str, b: str, text: str | None = None, **attrs) -> None:
        self.edges.append((a, b, text, attrs))

    def connect(self, exits, target: str) -> None:
        for node, text in exits:
            self.edge(node, target, text)

    def describe(self, st, ctx: E.Ctx) -> str:
        """The statement's first sentence; names it binds become known to `ctx`."""
        lines = E.describe(st, ctx)
        return lines[0].text if lines else ""

    # ---------------------------------------------------------------- what shapes the flow
    def structural(self, st) -> bool:
        if isinstance(st, (A.StepStmt, A.TurnStmt, A.RepeatStmt, A.WhileStmt, A.SecretStmt, A.StopStmt)):
            return True
        if isinstance(st, (A.IfStmt, A.ForStmt, A.TimesStmt, A.MayStmt, A.ChooseOneStmt)):
            return any(self.structural_block(b) for b in E.blocks_of(st))
        if isinstance(st, A.CallStmt):
            proc = self.d.procedures.get(st.name)
            if proc is None or st.name in self.calls or len(self.calls) >= MAX_INLINE_DEPTH:
                return False
            self.calls.append(st.name)
            try:
                return self.structural_block(proc.body)
            finally:
                self.calls.pop()
        return bool(self.window_after(st))

    def structural_block(self, body) -> bool:
        return any(self.structural(st) for st in body)

    def window_after(self, st) -> list[str]:
        """The response windows that open after this statement's events."""
        if isinstance(st, A.AnnounceStmt):
            return self.windows.get(st.event, [])
        if isinstance(st, A.FlipStmt):
            return self.windows.get("flipped", []) + self.windows.get("revealed", [])
        if isinstance(st, A.MoveStmt):
            return self.windows.get("moved", []) + (self.windows.get("revealed", []) if st.face == "up" else [])
        if isinstance(st, A.TakeActionsStmt):
            return self.windows.get("action_used", [])
        return []

    def any_moment_legend(self, g, below: str | None = None) -> None:
        """The windows declared `opens at any moment`, drawn once beside the flow (a dashed box,
        as the end checks are; under the node `below` when given, so that it takes the room
        beside the flow rather than widening the top): each a hexagon saying when it opens."""
        if not self.any_moment:
            return
        sub = self.cluster("At any moment: the response windows", style="dashed")
        for w in self.any_moment:
            text = label(f"response window {E.quote(w.name)}")
            note = label("opens as each step begins and after every event, whenever a player can answer", 24, 4)
            n = self.node(sub, graphviz.nohtml(text + "\\n" + note), shape="hexagon", style="filled",
                          fillcolor="#fde9c9", margin="0.02")
            if below is not None:
                self.edge(below, n, None, style="invis")
                below = n
        g.subgraph(sub)

    def window_nodes(self, g, names: list[str], start: Frag) -> Frag:
        for name in dict.fromkeys(names):
            w = self.node(g, label(f"response window {E.quote(name)}"), shape="hexagon",
                          style="filled", fillcolor="#fde9c9")
            self.connect(start.exits, w)
            start = Frag(start.entry or w, [(w, None)])
        return start

    # ---------------------------------------------------------------- blocks
    def summary(self, texts: list[str]) -> str | None:
        texts = [t for t in texts if t]
        if not texts:
            return None
        shown = [label(t, WRAP, 3) for t in texts[:2]]
        if len(texts) > 2:
            shown.append(f"(and {len(texts) - 2} more)")
        return "\\n".join(shown)

    def action(self, g, texts: list[str]) -> Frag:
        text = self.summary(texts)
        if text is None:
            return Frag()
        n = self.node(g, text, shape="note", style="", fontsize="9", color="#777777")
        return Frag(n, [(n, None)])

    def block(self, body, g, loop: Loop, ctx: E.Ctx) -> Frag:
        frag = Frag()
        exits: list = []
        run: list = []

        def attach(f: Frag) -> None:
            nonlocal exits
            if f.entry is None:
                return
            if frag.entry is None:
                frag.entry = f.entry
            else:
                self.connect(exits, f.entry)
            exits = f.exits

        for st in body:
            result = WALKERS[type(st).__name__](self, st, g, loop, ctx)
            if isinstance(result, str):
                if not isinstance(st, SKIP_IN_SUMMARY):
                    run.append(result)
                continue
            attach(self.action(g, run))
            run = []
            if result is STOP:
                if frag.entry is None:
                    frag.stops = True
                else:
                    loop.breaks.extend(exits)
                frag.exits = []
                return frag
            attach(result)
        attach(self.action(g, run))
        frag.exits = exits
        return frag

    def enclosed(self, body, g, title: str, loop: Loop, ctx: E.Ctx, **attrs) -> Frag:
        """A named part of the flow: a cluster when it has flow inside, else one box."""
        if self.structural_block(body):
            sub = self.cluster(label(title, 40, 2), **attrs)
            f = self.block(body, sub, loop, ctx)
            if f.entry is None:
                n = self.node(sub, label(title))
                f = Frag(n, [(n, None)])
            g.subgraph(sub)
            return f
        n = self.node(g, label(title), penwidth="1.5")
        return Frag(n, [(n, None)])

    # ---------------------------------------------------------------- the whole game
    def build(self) -> graphviz.Digraph:
        g = graphviz.Digraph("phases", graph_attr=dict(GRAPH_ATTR, label=label(self.title(), 60, 2),
                                                       labelloc="t"),
                             node_attr=NODE_ATTR, edge_attr=EDGE_ATTR)
        start = self.node(g, "start", shape="circle", style="filled", fillcolor="#222222",
                          fontcolor="white", width="0.5", fixedsize="true")
        exits = [(start, None)]
        if self.d.setup is not None:
            f = self.enclosed(self.d.setup.body, g, "Setup", Loop(), self.ctx.child(), style="rounded")
            if f.entry:
                self.connect(exits, f.entry)
                exits = f.exits
        for r in self.d.rounds:
            sub = self.cluster(label(f"Round {E.quote(r.name)} — played again and again until the game ends", 60, 2),
                               style="rounded,bold")
            f = self.block(r.body, sub, Loop(), self.ctx.child())
            if f.entry is None:
                n = self.node(sub, label(f"Round {E.quote(r.name)}"))
                f = Frag(n, [(n, None)])
            g.subgraph(sub)
            self.connect(exits, f.entry)
            for node, text in f.exits:
                self.edge(node, f.entry, "next round" if text is None else f"{text}; next round",
                          style="dashed", constraint="false")
            exits = []
        end = None
        if self.d.end_checks:
            sub = self.cluster("At any moment: the end checks", style="dashed")
            end = None
            for ec in self.d.end_checks:
                c = self.ctx.child()
                body = self.summary([self.describe(st, c) for st in ec.body
                                     if not isinstance(st, SKIP_IN_SUMMARY)])
                text = label(f"as soon as {E.cond(ec.cond, self.ctx.child())}", WRAP, 4)
                n = self.node(sub, text + ("\\n→ " + body if body else ""), shape="box", style="rounded,dashed")
                if end is None:
                    end = self.node(g, "game over", shape="doublecircle", width="0.6", fontsize="9")
                self.edge(n, end, None)
            g.subgraph(sub)
        self.any_moment_legend(g, below=end)
        for a, b, text, attrs in self.edges:
            g.edge(a, b, label=label(text, 24, 4) if text else None, **attrs)
        return g

    def title(self) -> str:
        name = self.d.game.title if self.d.game else "the game"
        return f"{name}: the turn structure"

    def build_step(self, step: A.StepStmt) -> graphviz.Digraph:
        """One step (or phase) alone, from its start to its end: a part of a split diagram."""
        title = f"{E.cap(step.kind)} {E.quote(step.name)}"
        g = graphviz.Digraph("phases", graph_attr=dict(GRAPH_ATTR, label=label(title, 60, 2), labelloc="t"),
                             node_attr=NODE_ATTR, edge_attr=EDGE_ATTR)
        start = self.node(g, "start", shape="circle", style="filled", fillcolor="#222222",
                          fontcolor="white", width="0.5", fixedsize="true")
        loop = Loop()
        f = self.block(step.body, g, loop, self.ctx.child())
        end = self.node(g, f"end of the {step.kind}", shape="doublecircle", width="0.6", fontsize="9")
        self.edge(start, f.entry or end)
        self.connect(f.exits + loop.breaks, end)
        self.any_moment_legend(g)
        for a, b, text, attrs in self.edges:
            g.edge(a, b, label=label(text, 24, 4) if text else None, **attrs)
        return g


def top_steps(body) -> list:
    """The steps of a round that are not inside another step, in the order written."""
    out = []
    for st in body:
        if isinstance(st, A.StepStmt):
            out.append(st)
        else:
            for b in E.blocks_of(st):
                out.extend(top_steps(b))
    return out


def phase_parts(decls, ctx: E.Ctx | None = None) -> list[tuple[str, str, int]]:
    """A phase diagram split for print: ("overview", DOT, boxes) with every step a single box,
    then ("r<round>-s<step>", DOT, boxes) for each top-level step that has a flow inside it
    (numbered from 1, as the rulebook numbers them)."""
    pd = PhaseDiagram(decls, ctx, collapse_steps=True)
    parts = [("overview", pd.build().source, pd.count)]
    for ri, r in enumerate(decls.rounds, 1):
        for si, step in enumerate(top_steps(r.body), 1):
            pd = PhaseDiagram(decls, ctx)
            if not pd.structural_block(step.body):
                continue
            parts.append((f"r{ri}-s{si}", pd.build_step(step).source, pd.count))
    return parts


# ---------------------------------------------------------------- walkers, one per statement class
# A walker returns a Frag (it shapes the flow), STOP, or the statement's English (a summary line).


def walk_simple(pd: PhaseDiagram, st, g, loop: Loop, ctx: E.Ctx):
    """A statement that does not shape the flow: its sentence, summarised with its neighbours."""
    text = pd.describe(st, ctx)
    names = pd.window_after(st)
    if not names:
        return text
    f = pd.action(g, [text])
    return pd.window_nodes(g, names, f)


def walk_StopStmt(pd: PhaseDiagram, st, g, loop: Loop, ctx: E.Ctx):
    return STOP


def walk_StepStmt(pd: PhaseDiagram, st: A.StepStmt, g, loop: Loop, ctx: E.Ctx):
    before = pd.windows.get("step_started", [])
    after = pd.windows.get("step_ended", [])
    if pd.collapse_steps:
        n = pd.node(g, label(f"{E.cap(st.kind)} {E.quote(st.name)}"), penwidth="1.5", style="rounded,filled",
                    fillcolor="#f3f6fb")
        f = Frag(n, [(n, None)])
    else:
        f = pd.enclosed(st.body, g, f"{E.cap(st.kind)} {E.quote(st.name)}", loop, ctx.child(),
                        style="rounded,filled", fillcolor="#f3f6fb" if st.kind == "step" else "#e8eef8")
    if before:
        w = pd.window_nodes(g, before, Frag(None, []))
        pd.connect(w.exits, f.entry)
        f = Frag(w.entry, f.exits)
    return pd.window_nodes(g, after, f)


def walk_TurnStmt(pd: PhaseDiagram, st: A.TurnStmt, g, loop: Loop, ctx: E.Ctx):
    who = E.np(st.player, ctx)
    return pd.enclosed(st.body, g, f"Turn of {who}", loop, ctx.child(), style="rounded,dashed")


def _branch(pd, d, f, text: str, loop, exits: list) -> None:
    """Wire one branch out of decision node `d`: into its fragment `f`, or (an empty branch)
    straight to what follows, or out of the loop when the branch only stops it."""
    if f.entry is not None:
        pd.edge(d, f.entry, text)
        exits.extend(f.exits)
    elif f.stops:
        loop.breaks.append((d, text))
    else:
        exits.append((d, text))


def walk_IfStmt(pd: PhaseDiagram, st: A.IfStmt, g, loop: Loop, ctx: E.Ctx):
    if not pd.structural(st):
        return walk_simple(pd, st, g, loop, ctx)
    d = pd.node(g, "if", shape="diamond", style="", width="0.4", height="0.4", fontsize="8")
    exits: list = []
    branches = [(E.cond(c, ctx), body) for c, body in st.branches]
    if st.else_body is not None:
        branches.append(("otherwise", st.else_body))
    for text, body in branches:
        _branch(pd, d, pd.block(body, g, loop, ctx.child()), text, loop, exits)
    if st.else_body is None:
        exits.append((d, "otherwise"))
    return Frag(d, exits)


def _loop(pd: PhaseDiagram, g, head_text: str, body, out_text: str | None, ctx: E.Ctx) -> Frag:
    head = pd.node(g, label(head_text), shape="ellipse", style="bold")
    inner = Loop()
    f = pd.block(body, g, inner, ctx)
    if f.entry is not None:
        pd.edge(head, f.entry, None)
        for node, text in f.exits:
            pd.edge(node, head, "again" if text is None else f"{text}; again", style="dashed")
    exits = ([(head, out_text)] if out_text is not None else []) + inner.breaks
    if f.stops:
        exits.append((head, None))
    return Frag(head, exits)


def walk_RepeatStmt(pd: PhaseDiagram, st: A.RepeatStmt, g, loop: Loop, ctx: E.Ctx):
    return _loop(pd, g, "repeat", st.body, None, ctx.child(loop="repeat"))


def walk_WhileStmt(pd: PhaseDiagram, st: A.WhileStmt, g, loop: Loop, ctx: E.Ctx):
    c = E.cond(st.cond, ctx)
    inner = ctx.child(loop="repeat")
    if st.until:
        return _loop(pd, g, f"repeat until {c}", st.body, f"when {c}", inner)
    return _loop(pd, g, f"repeat while {c}", st.body, "when it no longer holds", inner)


def walk_TimesStmt(pd: PhaseDiagram, st: A.TimesStmt, g, loop: Loop, ctx: E.Ctx):
    if not pd.structural(st):
        return walk_simple(pd, st, g, loop, ctx)
    return _loop(pd, g, f"repeat {E.np(st.count, ctx)} times", st.body, "done", ctx.child(loop="repeat"))


def walk_ForStmt(pd: PhaseDiagram, st: A.ForStmt, g, loop: Loop, ctx: E.Ctx):
    if not pd.structural(st):
        return walk_simple(pd, st, g, loop, ctx)
    head, inner = E.for_head(st, ctx)
    return _loop(pd, g, head, st.body, "done", inner)


def walk_MayStmt(pd: PhaseDiagram, st: A.MayStmt, g, loop: Loop, ctx: E.Ctx):
    if not pd.structural(st):
        return walk_simple(pd, st, g, loop, ctx)
    who = E.np(st.player, ctx)
    d = pd.node(g, label(f"{who} may: {E.quote(st.prompt)}"), shape="diamond", style="")
    f = pd.block(st.body, g, loop, ctx.child())
    exits = [(d, "no")]
    if f.entry is not None:
        pd.edge(d, f.entry, "yes")
        exits += f.exits
    else:
        exits.append((d, "yes"))
    return Frag(d, exits)


def walk_ChooseOneStmt(pd: PhaseDiagram, st: A.ChooseOneStmt, g, loop: Loop, ctx: E.Ctx):
    """`chooses one`: a diamond, one way out per option (labelled as the player reads it)."""
    if not any(pd.structural_block(o.body) for o in st.choices):
        return walk_simple(pd, st, g, loop, ctx)
    d = pd.node(g, label(f"{E.np(st.player, ctx)} chooses one"), shape="diamond", style="")
    exits: list = []
    for o in st.choices:
        inner = ctx.child()
        text = E.option_head(o, ctx, inner)
        _branch(pd, d, pd.block(o.body, g, loop, inner), text, loop, exits)
    return Frag(d, exits)


def walk_SecretStmt(pd: PhaseDiagram, st: A.SecretStmt, g, loop: Loop, ctx: E.Ctx):
    head, inner = E.secret_head(st, ctx)
    n = pd.node(g, label(head + "; then all choices are revealed together"), shape="parallelogram",
                style="filled", fillcolor="#eeeeee")
    f = pd.block(st.body, g, loop, inner)
    if f.entry is None:
        return Frag(n, [(n, None)])
    pd.edge(n, f.entry, "for each player")
    return Frag(n, f.exits)


def walk_CallStmt(pd: PhaseDiagram, st: A.CallStmt, g, loop: Loop, ctx: E.Ctx):
    if not pd.structural(st):
        return walk_simple(pd, st, g, loop, ctx)
    proc = pd.d.procedures[st.name]
    pd.calls.append(st.name)
    try:
        return pd.enclosed(proc.body, g, f"{E.title(st.name)} (procedure)", Loop(),
                           E.params_ctx(pd.ctx, proc.name, proc.params), style="rounded,dashed")
    finally:
        pd.calls.pop()


WALKERS = {name: walk_simple for name in (
    "DocItem", "MoveStmt", "ShuffleStmt", "FlipStmt", "SetStmt", "AddStmt", "SubtractStmt",
    "LetStmt", "ChooseStmt", "AnnounceStmt", "EliminateStmt", "WinStmt", "DrawGameStmt",
    "RollStmt", "CounterStmt", "NegateStmt", "SkipStmt", "ExpectStmt", "GiveStmt", "SayStmt",
    "PlayStmt", "ExpectEventStmt", "StackDeckStmt", "TakeActionsStmt", "ChooseManyStmt", "ScoreWinStmt", "LookStmt", "ResolveStmt",
    "RollPoolStmt", "RollIntoStmt", "RerollStmt", "TurnDieStmt", "RemoveDiceStmt", "HandOutStmt", "HandOutCardsStmt",
    "CreateStmt", "DestroyStmt")}
WALKERS.update({
    "StopStmt": walk_StopStmt, "CallStmt": walk_CallStmt, "IfStmt": walk_IfStmt,
    "ForStmt": walk_ForStmt, "RepeatStmt": walk_RepeatStmt, "WhileStmt": walk_WhileStmt,
    "TimesStmt": walk_TimesStmt, "StepStmt": walk_StepStmt, "TurnStmt": walk_TurnStmt,
    "MayStmt": walk_MayStmt, "SecretStmt": walk_SecretStmt, "ChooseOneStmt": walk_ChooseOneStmt,
})


def _name_column(table: A.CardTable) -> int:
    """Where a table's `name` column is (the checker has made sure it has one)."""
    return table.header.index("name") if "name" in table.header else 0


def phases_graph(decls, ctx: E.Ctx | None = None) -> graphviz.Digraph:
    return PhaseDiagram(decls, ctx).build()


# ================================================================ the zone diagram

ELSEWHERE = "(where the card is)"


class ZoneDiagram:
    """Zones as nodes, `move` statements as edges labelled with the rule that moves the cards."""

    def __init__(self, decls, numbered: bool = False, rankdir: str = "LR"):
        self.d = decls
        self.moves: dict[tuple[str, str], list[str]] = {}
        self.numbered = numbered     # edges carry a number; flows() lists what each number stands for
        self.rankdir = rankdir       # LR (the default) or TB, whichever prints larger

    def zone(self, e, env: dict) -> str | None:
        """The declared zone an expression names (`p's deck`, `every fire`, `box`)."""
        if isinstance(e, (A.Possessive, A.Your, A.EveryZone)) and e.name in self.d.zones:
            return e.name
        if isinstance(e, A.Name):
            if e.name in env:
                zones = env[e.name]
                return zones[0] if len(zones) == 1 else None
            if e.name in self.d.zones:
                return e.name
        return None

    def board_of(self, e, env: dict) -> list[str]:
        """A board's places as one flow end (`board:<name>`, drawn as the board's cluster) for an
        expression of places: `the places of valley`, `the places adjacent to s` (the board of s,
        or the game's one board), a place of a board named outright."""
        boards = self.d.boards
        if isinstance(e, A.PlacesOf) and e.board in boards:
            return [BOARD + e.board]
        if isinstance(e, (A.PlacesAdjacent, A.PlacesWithin, A.ShortestPath)):
            inner = e.place if not isinstance(e, A.ShortestPath) else e.start
            z = self.zone(inner, env)
            if z is not None and z.startswith(BOARD):
                return [z]
            if z is not None and self.d.zones[z].board is not None:
                return [BOARD + self.d.zones[z].board]
            return [BOARD + next(iter(boards))] if len(boards) == 1 else []
        return []

    def zones_of(self, e, env: dict, seen: tuple = ()) -> list[str]:
        """The zones an expression that names zones may be: `p's deck`, a list of them, a value
        defined as one (`define line(p) as [p's left, p's right]`), a name bound to them."""
        z = self.zone(e, env)
        if z is not None:
            return [z]
        if self.board_of(e, env):
            return self.board_of(e, env)
        if isinstance(e, A.Name) and e.name in env:
            return list(env[e.name])
        if isinstance(e, A.ListExpr):
            return list(dict.fromkeys(x for i in e.items for x in self.zones_of(i, env, seen)))
        if isinstance(e, A.Call) and e.name in self.d.defines and e.name not in seen:
            return self.zones_of(self.d.defines[e.name].expr, {}, seen + (e.name,))
        return []

    def sources(self, e, env: dict) -> list[str]:
        """The zones the cards of `e` come from ([] when the rules do not say)."""
        if isinstance(e, (A.CardsIn, A.TopCard, A.TopCards)):
            z = self.zone(e.zone, env)
            return [z] if z else []
        if isinstance(e, A.WhereExpr):
            return self.sources(e.coll, env)
        if isinstance(e, A.Call) and len(e.args) == 1:
            return self.sources(e.args[0], env)
        if isinstance(e, A.ListExpr):
            return list(dict.fromkeys(z for i in e.items for z in self.sources(i, env)))
        if isinstance(e, A.Name) and e.name in env:
            return list(env[e.name])
        return self.board_of(e, env)

    def walk(self, body, rule: str, env: dict, calls: tuple = ()) -> None:
        for st in body:
            if isinstance(st, A.MoveStmt):
                for dst in self.zones_of(st.to, env):
                    for src in self.sources(st.what, env) or [ELSEWHERE]:
                        rules = self.moves.setdefault((src, dst), [])
                        if rule not in rules:
                            rules.append(rule)
            elif isinstance(st, A.CallStmt) and st.name in self.d.procedures and st.name not in calls:
                # a procedure given zones (`place_face_down(p, column)`): its moves, with those zones
                proc = self.d.procedures[st.name]
                bound = {p: self.zones_of(a, env) or self.sources(a, env) for p, a in zip(proc.params, st.args)}
                bound = {p: z for p, z in bound.items() if z}
                if bound:
                    self.walk(proc.body, E.title(st.name), bound, calls + (st.name,))
            elif isinstance(st, (A.LetStmt, A.ChooseStmt, A.SecretStmt, A.ChooseManyStmt)):
                value = st.value if isinstance(st, A.LetStmt) else st.options
                found = self.sources(value, env)
                if found:
                    env[st.name] = found
                elif st.name in env:
                    del env[st.name]
            elif isinstance(st, A.ForStmt):
                found = self.sources(st.coll, env) or self.zones_of(st.coll, env)
                if found:
                    env[st.name] = found
            inner_rule = f"{st.kind} {E.quote(st.name)}" if isinstance(st, A.StepStmt) else rule
            for b in E.blocks_of(st):
                self.walk(b, inner_rule, dict(env), calls)

    def known_places(self, condition) -> dict:
        """Names a trigger's condition places in a zone: `card is in cards in your discard`."""
        env: dict = {}
        parts = condition.items if isinstance(condition, A.AndChain) else (condition,)
        for c in parts:
            if isinstance(c, A.IsIn) and not c.negated and isinstance(c.item, A.Name):
                z = self.sources(c.coll, {}) or ([self.zone(c.coll, {})] if self.zone(c.coll, {}) else [])
                if z:
                    env[c.item.name] = z
        return env

    def abilities(self, owner: str, abilities) -> None:
        for ab in abilities:
            if isinstance(ab, (A.Triggered, A.Replacement)):
                env = self.known_places(ab.cond) if ab.cond is not None else {}
                self.walk(ab.body, f"{owner}: when {E.human(ab.event)}", env)
            elif isinstance(ab, A.Activated):
                self.walk(ab.body, f"{owner}: {E.quote(ab.name)}", {})
            elif isinstance(ab, A.CardText):
                self.walk(ab.body, f"{owner}: text", {})

    def build(self) -> graphviz.Digraph:
        d = self.d
        if d.setup:
            self.walk(d.setup.body, "setup", {})
        for r in d.rounds:
            self.walk(r.body, f"round {E.quote(r.name)}", {})
        for name, proc in d.procedures.items():
            self.walk(proc.body, E.title(name), {})
        for ec in d.end_checks:
            self.walk(ec.body, "end check", {})
        for ct in d.card_types.values():
            self.abilities(ct.name, ct.abilities)
        for cd in d.cards:
            self.abilities(E.quote(cd.name), cd.abilities)
        for table in d.tables:      # abilities indented under a table's rows
            for row in table.rows:
                name = row.cells[_name_column(table)] if _name_column(table) < len(row.cells) else None
                if row.abilities and isinstance(name, A.Text):
                    self.abilities(E.quote(name.value), row.abilities)
        for kw in d.keywords.values():
            self.abilities(f"keyword {kw.name}", kw.abilities)
        # a procedure walked alone does not know the zones its callers give it: where a call
        # told them, its moves "from where the card is" are known better
        for (src, dst), rules in list(self.moves.items()):
            if src == ELSEWHERE:
                known = {r for (s2, d2), rs in self.moves.items() if s2 != ELSEWHERE and d2 == dst for r in rs}
                rules[:] = [r for r in rules if r not in known]
                if not rules:
                    del self.moves[(src, dst)]
        title = (d.game.title if d.game else "the game") + ": where the cards go"
        g = graphviz.Digraph("zones", graph_attr=dict(GRAPH_ATTR, rankdir=self.rankdir, label=label(title, 60, 2),
                                                      labelloc="t"),
                             node_attr=NODE_ATTR, edge_attr=EDGE_ATTR)
        fills = {"hidden": "#d9d9d9", "owner": "#eef3d6", "others": "#f6e8d6", "public": "#ffffff"}
        from .english_entities import whose as entity_whose
        for board in d.boards.values():     # a board's places: one cluster, its links as lines
            from .board import cluster
            cluster(g, board, lambda place: f"z_{place}")
        for z in d.zones.values():
            if z.board is not None:
                continue
            whose = entity_whose(d, z)         # each player, each <entity kind>, or shared
            seen = {"hidden": "hidden", "owner": "owner only", "others": "seen by the others",
                    "public": "public"}[z.visibility]
            g.node(f"z_{z.name}", f"{graphviz.escape(zone_label(d, z.name))}\\n({whose}, {seen})",
                   shape="box3d" if z.per_player or z.per_entity else "box", style="filled", fillcolor=fills[z.visibility])
        if any(src == ELSEWHERE for src, _ in self.moves):
            g.node("z__elsewhere", ELSEWHERE, shape="plaintext")
        for i, ((src, dst), rules) in enumerate(self.moves.items(), 1):
            a = "z__elsewhere" if src == ELSEWHERE else self._end(src)
            ends = {}       # a board's places: the edge ends at the board's cluster
            if src.startswith(BOARD):
                ends["ltail"] = f"cluster_board_{src[len(BOARD):]}"
            if dst.startswith(BOARD):
                ends["lhead"] = f"cluster_board_{dst[len(BOARD):]}"
            if self.numbered:
                g.edge(a, self._end(dst), label=str(i), fontsize="11", fontcolor="#2f5597", penwidth="1.3", **ends)
                continue
            shown = rules[:4] + ([f"and {len(rules) - 4} more"] if len(rules) > 4 else [])
            g.edge(a, self._end(dst), label="\\n".join(label(r, 34, 2) for r in shown), **ends)
        return g

    def _end(self, z: str) -> str:
        """The node an edge to or from zone `z` meets: a board's first place for `board:<name>`."""
        if z.startswith(BOARD):
            return f"z_{self.d.boards[z[len(BOARD):]].places[0]}"
        from .board import MAX_ZONE_DIAGRAM_PLACES
        zone = self.d.zones.get(z)
        if zone is not None and zone.board is not None:     # a place of a board drawn as one node
            places = self.d.boards[zone.board].places
            if len(places) > MAX_ZONE_DIAGRAM_PLACES:
                return f"z_{places[0]}"
        return f"z_{z}"

    def flows(self) -> list[tuple[int, str, str, list[str]]]:
        """(number, from, to, the rules that move cards so) of every edge, after build()."""
        return [(i, src, dst, rules) for i, ((src, dst), rules) in enumerate(self.moves.items(), 1)]


def flow_label(decls, z: str) -> str:
    """How the rulebook's table of card flows names a flow's end: a zone, or any place of a board."""
    if z.startswith(BOARD):
        return f"a place of {decls.boards[z[len(BOARD):]].title}"
    return zone_label(decls, z)


def zones_graph(decls) -> graphviz.Digraph:
    return ZoneDiagram(decls).build()


# ================================================================ rendering

KINDS = ("phases", "zones")


class DiagramFailed(RuntimeError):
    """Graphviz could not draw a diagram: it failed, or ran past `GRAPHVIZ_SECONDS`."""


def diagram_source(decls, kind: str, ctx: E.Ctx | None = None) -> tuple[str, int]:
    """The DOT text of a diagram and how many boxes it has (nodes and clusters)."""
    if kind == "phases":
        pd = PhaseDiagram(decls, ctx)
        return pd.build().source, pd.count
    if kind == "zones":
        zd = ZoneDiagram(decls)
        source = zd.build().source
        return source, len(decls.zones) + (1 if any(src == ELSEWHERE for src, _ in zd.moves) else 0)
    if kind.startswith("board:") and kind[len("board:"):] in decls.boards:     # one board, drawn
        from .board import board_source
        return board_source(decls.boards[kind[len("board:"):]])
    raise ValueError(f"unknown diagram kind '{kind}' (use {' or '.join(KINDS)})")


def dot_source(decls, kind: str, ctx: E.Ctx | None = None) -> str:
    """The DOT text of a diagram (deterministic: no dates, nodes numbered in order)."""
    return diagram_source(decls, kind, ctx)[0]


def have_dot() -> bool:
    return shutil.which("dot") is not None


def dot_version() -> str | None:
    if not have_dot():
        return None
    done = subprocess.run(["dot", "-V"], capture_output=True, text=True, timeout=30)
    return (done.stderr or done.stdout).strip()


def to_svg(source: str, timeout: float | None = None) -> str | None:
    """The SVG drawn by Graphviz's `dot`, or None when it is not installed. Raises
    DiagramFailed when `dot` fails or runs past `timeout` (default GRAPHVIZ_SECONDS); the
    process is killed then."""
    exe = shutil.which("dot")
    if exe is None:
        return None
    limit = GRAPHVIZ_SECONDS if timeout is None else timeout
    try:
        done = subprocess.run([exe, "-Tsvg"], input=source.encode("utf-8"), capture_output=True,
                              timeout=limit)
    except subprocess.TimeoutExpired:
        raise DiagramFailed(f"Graphviz took longer than {limit:g} seconds to lay it out "
                            "(the bound GRAPHVIZ_SECONDS)") from None
    except OSError as err:
        raise DiagramFailed(f"Graphviz could not be started ({err.strerror})") from None
    if done.returncode != 0 or not done.stdout:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise DiagramFailed(f"Graphviz failed (exit {done.returncode}){': ' + said[-1][:200] if said else ''}")
    return done.stdout.decode("utf-8", "replace")


def draw(game, kind: str, svg: bool = True) -> tuple[str, str | None]:
    """One diagram of a loaded game as `cardsmith diagram` writes it: its DOT, and its SVG when
    `svg` (None without Graphviz). A located PublishError (in the game's file) when the rules
    nest too deeply to follow (E1009), the diagram has more than MAX_DIAGRAM_NODES boxes (E1008)
    or Graphviz fails or runs past GRAPHVIZ_SECONDS (E1007)."""
    try:
        source, boxes = apart.deep(diagram_source, game.decls, kind)
    except RecursionError:
        raise X.too_deep(game) from None
    if not svg:
        return source, None
    if boxes > MAX_DIAGRAM_NODES:
        raise X.in_game(game, X.DIAGRAM_TOO_BIG,
                        f"the {kind} diagram of this game has {boxes:,} boxes, more than the {MAX_DIAGRAM_NODES:,} "
                        "a diagram may have (the bound MAX_DIAGRAM_NODES)",
                        "write its DOT source instead (-o FILE.dot) and lay it out with other tools")
    try:
        return source, to_svg(source)
    except DiagramFailed as err:
        raise X.in_game(game, X.GRAPHVIZ_FAILED, f"the {kind} diagram could not be drawn: {err}",
                        "write its DOT source instead (-o FILE.dot)") from None


def inline_svg(svg: str) -> str:
    """An SVG document as an element to put in HTML (no XML prolog, no DOCTYPE, no comments
    before the root)."""
    start = svg.find("<svg")
    return svg[start:].strip() if start >= 0 else svg
