"""`cardsmith explain FILE RULE`: a rule's compiled instructions beside its source lines.

Like CPython's `dis` or `luac -l`: each source line of the rule, then the instructions compiled
from it — pc, label (the target of some jump), and what the instruction does in words. The words
are the compiler's own record (`Code.descs`, written beside each op in compile_stmt.py), so the
listing shows what runs, not a second reading of the source.

    12 │ procedure reveal_top(p):
    13 │     move top card of p's deck to p's battlefield face up
                    0  move  top card of p's deck → p's battlefield face up

A RULE is a procedure, a round, phase or step name, `setup`, a card's name (all its abilities)
or a card's name and the number of one ability (`"Beacon".2`), or the name of any compiled code
as `--list` prints it (windows, `as soon as` checks, scenarios).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from cardsmith.dsl import ast as A
from cardsmith.dsl.model import Game
from cardsmith.dsl.registry import EXPRESSION, dispatch
from cardsmith.dsl.terminal import for_terminal
from cardsmith.dsl.types import suggest

from .compile_stmt import Code
from .program import Program, program_for


class UnknownRule(LookupError):
    """RULE names nothing in the game; the message says what might have been meant."""


@dataclass
class Part:
    """What one RULE lists: a code (or the part of it a step covers) and the source it came from."""
    title: str
    code: Code | None           # None: nothing was compiled for it (a procedure never called)
    span: object                # the rule's whole source, every line of it shown
    note: str = ""


# ---------------------------------------------------------------------------- describing one op

def describe(code: Code, pc: int, labels: dict[int, str]) -> str:
    """The words of `code.ops[pc]`: op name, two spaces, operands (see `Code.descs`)."""
    desc = code.descs[pc]
    if desc is None:        # an op emitted without its words: shown, and test_explain fails on it
        return "(undescribed)"
    head, *parts = desc
    out = []
    for part in parts:
        out.append(_operand(part, labels))
    return f"{head}  {''.join(out)}" if out else head


def _operand(part, labels) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, list):                  # a jump target's box, patched by the compiler
        return labels.get(part[0], f"pc {part[0]}")
    if isinstance(part, tuple):                 # arguments: a comma list
        return ", ".join(_operand(p, labels) for p in part)
    return written(part)


# ---------------------------------------------------------------------------- expressions as written
# Operands are written from the AST, not sliced from the source: the same words whatever the
# spacing, brackets and line breaks of the file.

def _w(e, inner: bool = False) -> str:
    text = written(e)
    return f"({text})" if inner and isinstance(e, _COMPOUND) else text


def _where(cond) -> str:
    return f" where {written(cond)}" if cond is not None else ""


# One writer per expression class, keyed by its name: a handler kind of the registry ("listing",
# dsl/registry.py), so tests/test_registry.py names an expression class without one.
WRITERS = {
    "Num": lambda e: str(e.value),
    "Text": lambda e: f'"{e.value}"',
    "Bool": lambda e: "yes" if e.value else "no",
    "Nothing": lambda e: "none",
    "Name": lambda e: e.name,
    "Call": lambda e: f"{e.name}({', '.join(written(a) for a in e.args)})",
    "FieldAccess": lambda e: f"{_w(e.obj, True)}.{e.name}",
    "Possessive": lambda e: f"{_w(e.owner, True)}'s {e.name}",
    "Your": lambda e: f"your {e.name}",
    "FieldOf": lambda e: f"{e.name} of {_w(e.obj, True)}",
    "CardsIn": lambda e: f"cards in {_w(e.zone, True)}",
    "EveryZone": lambda e: f"every {e.name}",
    "TopCard": lambda e: f"{e.place} card of {_w(e.zone, True)}",
    "TopCards": lambda e: f"{e.place} {_w(e.count, True)} cards of {_w(e.zone, True)}",
    "ActivePlayer": lambda e: "the active player",
    "This": lambda e: "this",
    "You": lambda e: "you",
    "SeatPlayer": lambda e: f"seat {e.seat}",
    "WinnersExpr": lambda e: "the winners",
    "StackExpr": lambda e: "the stack",
    "PlayersExpr": lambda e: "players",
    "AllPlayers": lambda e: "all players",
    "AllEntities": lambda e: f"all {e.name}",
    "EntityHolding": lambda e: f"the {e.kind} holding {_w(e.card, True)}",
    "IsInPlay": lambda e: f"{_w(e.item, True)} is {'not ' if e.negated else ''}in play",
    "Opponents": lambda e: "opponents",
    "ListExpr": lambda e: f"[{', '.join(written(i) for i in e.items)}]",
    "WhereExpr": lambda e: f"{_w(e.coll, True)}{_where(e.cond)}",
    "ExprMap": lambda e: f"{_w(e.expr, True)} for each {e.name} in {_w(e.coll, True)}{_where(e.cond)}",
    "OrChain": lambda e: " or ".join(_w(i, True) for i in e.items),
    "AndChain": lambda e: " and ".join(_w(i, True) for i in e.items),
    "NotOp": lambda e: f"not {_w(e.operand, True)}",
    "Compare": lambda e: f"{_w(e.left, True)} {e.op} {_w(e.right, True)}",
    "IsEmpty": lambda e: f"{_w(e.operand, True)} is {'not ' if e.negated else ''}empty",
    "IsIn": lambda e: f"{_w(e.item, True)} is {'not ' if e.negated else ''}in {_w(e.coll, True)}",
    "IsA": lambda e: f"{_w(e.operand, True)} is a {e.type_name}",
    "Arith": lambda e: f"{_w(e.left, True)} {e.op} {_w(e.right, True)}",
    "Neg": lambda e: f"-{_w(e.operand, True)}",
    "IsFace": lambda e: f"{_w(e.operand, True)} is face {'up' if e.up else 'down'}",
    "HasSeen": lambda e: f"{_w(e.player, True)} has seen {_w(e.card, True)}",
    "HasKeyword": lambda e: f"{_w(e.operand, True)} has {'no ' if e.negated else ''}keyword {e.keyword}",
    "CondExpr": lambda e: f"if {_w(e.cond, True)} then {_w(e.then, True)} else {_w(e.other, True)}",
    "ItemOf": lambda e: f"item {_w(e.index, True)} of {_w(e.coll, True)}",
    "RandomPick": lambda e: f"random {e.noun} from {_w(e.coll, True)}",
    "RandomNumber": lambda e: f"random number from {_w(e.low, True)} to {_w(e.high, True)}",
    "SortedExpr": lambda e: f"{_w(e.coll, True)} sorted by " + " then ".join(
        f"{_w(k.expr, True)} {'highest' if k.highest_first else 'lowest'} first" for k in e.keys),
    "CurrentStep": lambda e: f"the current {e.kind}",
    "SeatOf": lambda e: f"seat of {_w(e.player, True)}",
    "SeatExpr": lambda e: f"seat ({written(e.seat)})",
    "SeatsFrom": lambda e: f"the player {_w(e.count, True)} seats to the {e.side} of {_w(e.player, True)}",
    "Modulo": lambda e: f"{_w(e.left, True)} mod {_w(e.right, True)}",
    "NumberRange": lambda e: f"numbers from {_w(e.low, True)} to {_w(e.high, True)}",
    "PositionIn": lambda e: f"the position of {_w(e.item, True)} in {_w(e.coll, True)}",
    "CardFrom": lambda e: f"the card {_w(e.index, True)} from the {e.place} of {_w(e.zone, True)}",
    "Otherwise": lambda e: f"{_w(e.value, True)} otherwise {_w(e.default, True)}",
    "GroupsOf": lambda e: f"the groups of {_w(e.size, True)}{' ' + e.noun if e.noun else ''} from {_w(e.coll, True)}",
    "SubsetsOf": lambda e: f"the subsets of {_w(e.coll, True)}",
    "BestArrangement": lambda e: (f"the best arrangement of {_w(e.coll, True)} into groups where "
                                  f"{_w(e.cond, True)} by {_w(e.score, True)}"),
    "PlacesAdjacent": lambda e: f"the places adjacent to {_w(e.place, True)}",
    "PlacesWithin": lambda e: f"the places within {_w(e.steps, True)} of {_w(e.place, True)}",
    "PlacesOf": lambda e: f"the places of {e.board}",
    "DistanceBetween": lambda e: f"the distance from {_w(e.start, True)} to {_w(e.end, True)}",
    "ShortestPath": lambda e: f"the shortest path from {_w(e.start, True)} to {_w(e.end, True)}",
    "PlaceMark": lambda e: f"the {e.name} of {_w(e.player, True)} on {_w(e.place, True)}",
}
_WRITE = dispatch("listing", EXPRESSION, WRITERS)
_COMPOUND = (A.IsInPlay, A.WhereExpr, A.ExprMap, A.OrChain, A.AndChain, A.NotOp, A.Compare, A.IsEmpty, A.IsIn, A.IsA, A.Arith,
             A.IsFace, A.HasSeen, A.HasKeyword, A.CondExpr, A.SortedExpr, A.Modulo, A.RandomPick, A.ItemOf, A.SeatsFrom,
             A.NumberRange, A.PositionIn, A.CardFrom, A.Otherwise, A.GroupsOf, A.SubsetsOf, A.BestArrangement,
             A.PlacesAdjacent, A.PlacesWithin, A.DistanceBetween, A.ShortestPath, A.PlaceMark)


def written(e) -> str:
    """Expression `e` as a designer would write it (one WRITERS entry per expression class)."""
    writer = _WRITE.get(type(e))
    return writer(e) if writer is not None else f"<{type(e).__name__}>"


def jump_targets(code: Code) -> list[int]:
    """Every pc some instruction of `code` may jump to, in order."""
    targets = set()
    for desc in code.descs:
        for part in desc or ():
            if isinstance(part, list):
                targets.add(part[0])
    return sorted(targets)


# ---------------------------------------------------------------------------- source text

class Sources:
    """Source lines by file, split once (as the parser splits: only '\\n' ends a line)."""

    def __init__(self, game: Game):
        self.game = game
        self._lines: dict[str, list[str]] = {}

    def lines(self, path: str) -> list[str]:
        if path not in self._lines:
            src = self.game.sources.get(path)
            self._lines[path] = src.text.split("\n") if src is not None else []
        return self._lines[path]

    def line(self, path: str, number: int) -> str:
        lines = self.lines(path)
        return lines[number - 1] if 0 < number <= len(lines) else ""


# ---------------------------------------------------------------------------- finding rules

def _walk(body):
    """Every statement in `body`, nested ones included, in source order."""
    for st in body or ():
        yield st
        for cond_body in getattr(st, "branches", ()) or ():
            yield from _walk(cond_body[1])
        yield from _walk(getattr(st, "body", ()))
        yield from _walk(getattr(st, "else_body", ()))
        for option in getattr(st, "choices", ()) or ():      # `chooses one`
            yield from _walk(option.body)


def _codes_named(prog: Program, name: str) -> list[Code]:
    return [c for c in prog.codes if c.name == name]


def rules(game: Game) -> dict[str, list[Part]]:
    """Every RULE name of the game and what it lists, in the order `--list` shows them."""
    prog = program_for(game)
    d = game.decls
    out: dict[str, list[Part]] = {}
    if d.setup is not None:
        out["setup"] = [Part("setup", prog.codes[prog.setup_code], d.setup.span)]
    for i, rnd in enumerate(d.rounds):
        code = prog.codes[prog.round_code] if i == 0 else None
        out[rnd.name] = [Part(f"round {rnd.name}", code, rnd.span,
                              "" if code is not None else "only the first round is played")]
        for st in _walk(rnd.body):
            if isinstance(st, A.StepStmt) and code is not None:
                out.setdefault(st.name, []).append(Part(f"{st.kind} {st.name} (in round {rnd.name})", code, st.span))
    for name, proc in d.procedures.items():
        ids = sorted(cid for (pname, _types), cid in prog._proc_codes.items() if pname == name)
        out[name] = ([Part(f"procedure {name}({', '.join(proc.params)})", prog.codes[cid], proc.span) for cid in ids]
                     or [Part(f"procedure {name}", None, proc.span, "never called, so never compiled")])
    for card in game.cards:
        if card.name in out or not card.bound:
            continue
        parts = []
        for n, (ab, _args) in enumerate(card.bound, 1):
            code = _ability_code(prog, ab, card.id)
            label = f'"{card.name}".{n}: {_ability_head(ab)}'
            part = Part(label, code, ab.span, "" if code is not None else _no_code(ab))
            out[f'"{card.name}".{n}'] = [part]
            parts.append(part)
        out[f'"{card.name}"'] = parts
    spans = {prog.codes[code_id].name: ec.span for _cond, code_id, ec in prog.end_checks}
    spans.update({f"response window {w.name}": w.span for w in d.windows})
    spans.update({prog.codes[code_id].name: sc.span for sc in d.scenarios
                  for name, code_id in prog.scenarios.items() if name == sc.name})
    if d.game is not None:
        spans["game"] = d.game.span
    covered = {part.code.id for parts in out.values() for part in parts if part.code is not None}
    for code in prog.codes:         # windows, `as soon as`, scenarios, the game's main code ...
        if code.id in covered and code.name not in spans:
            continue
        first = next((sp for sp in code.spans if sp is not None and sp.line > 0), None)
        out.setdefault(code.name, [Part(code.name, code, spans.get(code.name, first))])
    return out


def _no_code(ab) -> str:
    if isinstance(ab, A.StaticMod):
        cond = f" while {written(ab.cond)}" if ab.cond is not None else ""
        whose = f" of {written(ab.target)}" if ab.target is not None else " (the game's)"
        return (f"a modifier, no instructions: {ab.field}{whose} changes by "
                f"{written(ab.amount)}{cond}, worked out whenever {ab.field} is read")
    if isinstance(ab, A.CardText):
        return "no instructions: the card's text is another (its own comes before its type's, then a keyword's)"
    return "no instructions: no card carries it into a game"


def _ability_head(ab) -> str:
    if isinstance(ab, A.Triggered):
        return f"when {ab.event}"
    if isinstance(ab, A.Replacement):
        return f"instead of {ab.event}"
    if isinstance(ab, A.Activated):
        return f'action "{ab.name}"'
    if isinstance(ab, A.StaticMod):
        return f"modify {ab.field}"
    if isinstance(ab, A.CardText):
        return "text"
    return type(ab).__name__


def _ability_code(prog: Program, ab, card_id: int) -> Code | None:
    entries = [e for es in prog.triggers.values() for e in es]
    entries += [e for es in prog.replacements.values() for e in es]
    entries += list(prog.actions)
    for e in entries:
        if e.ability is ab and card_id in e.cards:
            return prog.codes[e.code_id]
    text = prog.texts.get(card_id)          # the card's `text:` (interpreter/card_text.py)
    if text is not None and text.ability is ab:
        return prog.codes[text.code_id]
    return None


def find(game: Game, rule: str) -> list[Part]:
    """The parts RULE names; UnknownRule (with a did-you-mean) when it names nothing."""
    table = rules(game)
    for key in (rule, f'"{rule}"', _requote(rule)):
        if key in table:
            return table[key]
    hint = suggest(rule, table) or suggest(f'"{rule}"', table)
    hint = f"; {hint}" if hint else ""
    raise UnknownRule(f"no rule {rule!r} in {game.path}{hint} "
                      f"(`cardsmith explain {game.path} --list` lists the rules)")


def _requote(rule: str) -> str:
    """`Beacon.2` as `"Beacon".2`: a card's ability typed without the shell's quotes."""
    m = re.fullmatch(r"(.+)\.(\d+)", rule)
    return f'"{m.group(1)}".{m.group(2)}' if m else rule


# ---------------------------------------------------------------------------- the listing

def listing(game: Game, part: Part) -> list[str]:
    """The lines `cardsmith explain` prints for one part, each through the terminal sanitiser."""
    src = Sources(game)
    where = f" — {part.span.short}" if part.span is not None else ""
    out = [f"== {part.title}{where} =="]
    code = part.code
    if code is None:
        out += _source_lines(src, part.span)
        out.append(f"({part.note or 'no instructions'})")
        return [for_terminal(line) for line in out]
    targets = jump_targets(code)
    labels = {pc: f"L{i}" for i, pc in enumerate(targets, 1)}
    span = part.span
    last = span.end_line if span is not None else 0
    pcs = [pc for pc in range(len(code.ops)) if span is None or _inside(code.spans[pc], span, last)]
    shown = span.line - 1 if span is not None else 0
    width = len(str(max(last, 1)))
    for pc in pcs:
        at = code.spans[pc]
        if span is not None and at is not None and at.path == span.path and at.line > shown:
            for n in range(shown + 1, at.line + 1):
                out.append(f"{n:>{width}} │ {src.line(span.path, n)}")
            shown = at.line
        label = labels.get(pc, "")
        out.append(f"{'':>{width}}   {label:>5} {pc:>4}  {describe(code, pc, labels)}")
    if span is not None:
        for n in range(shown + 1, last + 1):
            out.append(f"{n:>{width}} │ {src.line(span.path, n)}")
    end = len(code.ops)
    if end in labels and (not pcs or pcs[-1] == end - 1):
        out.append(f"{'':>{width}}   {labels[end]:>5} {end:>4}  (end of {code.name})")
    if part.note:
        out.append(f"({part.note})")
    return [for_terminal(line) for line in out]


def _inside(at, span, last: int) -> bool:
    """Whether an instruction compiled from `at` belongs to the rule starting at `span` and
    ending on line `last` (a step's part of its round)."""
    if at is None or at.path != span.path:
        return False
    return (span.line, span.column) <= (at.line, at.column) and at.line <= last


def _source_lines(src: Sources, span) -> list[str]:
    if span is None:
        return []
    last = span.end_line
    return [f"{n:>{len(str(last))}} │ {src.line(span.path, n)}" for n in range(span.line, last + 1)]


def explain(game: Game, rule: str, python: bool = False) -> str:
    """The whole listing of RULE (UnknownRule when it names nothing); with `python`, the Python
    the machine runs for it (the fused blocks of interpreter/blocks.py) instead."""
    show = python_listing if python else listing
    return "\n".join(line for part in find(game, rule) for line in show(game, part)) + "\n"


def python_listing(game: Game, part: Part) -> list[str]:
    """`cardsmith explain --python`: each block of the part's instructions as the generated
    function the machine calls, the first time it enters the block at that pc (built here)."""
    from .blocks import block, block_starts
    where = f" — {part.span.short}" if part.span is not None else ""
    out = [f"== {part.title}{where} (generated Python) =="]
    code = part.code
    if code is None:
        out.append(f"({part.note or 'no instructions'})")
        return [for_terminal(line) for line in out]
    prog = program_for(game)
    span = part.span
    last = span.end_line if span is not None else 0
    mine = {pc for pc in range(len(code.ops)) if span is None or _inside(code.spans[pc], span, last)}
    for pc in block_starts(code):
        if pc not in mine:
            continue
        fn = code.fast[pc] or block(prog, code, pc)
        code.fast[pc] = fn
        out.append(f"# instructions {pc}–{pc + code.sizes[pc] - 1} (at most; `cardsmith explain` without --python lists them)")
        out += fn.source.rstrip("\n").splitlines()
        out.append("")
    return [for_terminal(line) for line in out]


def rule_list(game: Game) -> str:
    """`--list`: every RULE name, one a line, with what it is."""
    lines = []
    for name, parts in rules(game).items():
        what = parts[0].title if len(parts) == 1 else f"{len(parts)} parts"
        lines.append(f"{name:<32} {what}" if what != name else name)
    return "\n".join(for_terminal(line) for line in lines) + "\n"


__all__ = ["explain", "rule_list", "rules", "find", "listing", "describe", "jump_targets", "UnknownRule"]
