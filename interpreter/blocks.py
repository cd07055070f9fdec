"""Fused blocks: a rule's instructions run as generated Python, a basic block at a time.

A `Code` (interpreter/compile_stmt.py) is a flat list of instructions; each has a closure
(`ops[pc]`, the definition of what it does) and, for the common ones, a snippet of Python
source with the same meaning (`srcs[pc]`, a `Snippet`). The first time the machine reaches a
pc it asks `block(program, code, pc)` for a function that runs the instructions from pc to
the end of their basic block (the next jump, or the instruction before a jump target) in one
call: the snippets pasted one after the other, expressions inlined (interpreter/gen_expr.py),
no dispatch between them. An instruction without a snippet is called as its closure from
the block.

What the run loop saw after each instruction it still sees: a block returns how many
instructions it ran, negated when the last one "watched" (called a machine primitive that
set `m.brk` or dirtied what an end check reads), and then the loop checks the end conditions
and breaks exactly where it did one instruction at a time; `fr.pc` is set before every
instruction that may push a frame, stop at a decision or read it, so a saved game resumes at
the same place; an error inside a block names the instruction it came from (`m.at`). Steps
count instructions as before (the block's count), so the step bound and a game's `steps` are
unchanged; near the bound the loop runs one closure at a time, to stop on the same instruction.
A block's size (`code.sizes[pc]`) is the most instructions one call of it can run: a block
whose last jump goes back to its own start (a loop's next turn) goes round again in the same
call, at most LOOPS passes, and its size counts them all; a flat procedure's function runs
without a frame (`flat_fn`), since nothing in it reads one.

Why this is safe with a stranger's file: the source is made only of the compiler's own
templates, `repr()` literals of the model's names and numbers, and generated names bound in the
program's namespace (interpreter/gen_expr.py, `Pool`) — never of text the file controls.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from cardsmith.dsl.registry import REVEALED

from .source_tokens import edited as _edited, tokens as _tokens

MAX_CHAIN = 24      # the most blocks one block calls in a row (`block`: a jump forward calls the next)
LOOPS = 8           # the most passes one call of a block makes round a loop (`block`: a jump back to its start)
INLINE_LINES = 400  # the longest block (with what it pastes) pasted where a jump forward reaches it (`_body`)
MAX_NEST = 6        # the most `while` loops pasted blocks nest (Python allows 20 blocks deep)
MAX_INDENT = 48     # the deepest indentation pasted blocks reach (Python's tokenizer allows 100)


@dataclass(frozen=True)
class Snippet:
    """An instruction as source lines, indented from 0. A line is a str, or a directive:
    ("goto", box, indent)   jump to box[0] and leave the block (a plain jump)
    ("gotow", box, indent)  the same, after a primitive that watched (the loop checks)
    ("watch", expr, indent) `_w = expr`, and leave the block if it set brk or dirtied a check
    ("watchz", (bit, has), indent)  "watch" of `_w` where the end checks' mask holds the state
                            part `bit` (`has`) / does not (not `has`), else nothing: after a move
                            written out, which dirties only the zones (brk and the mask's parts
                            are clear as an instruction begins: a block leaves when they are set)
    ("retw", None, indent)  leave the block as after a primitive that watched
    ("call", (code id, name, span ref, ((param, argument source), ...)[, keys]), indent)  call a
                            procedure with the env `_i` (the snippet's first line builds it; `keys`:
                            those it puts in after the parameters, `$you` / `$this`): run to its
                            end right here, as one function when its code is `flat`, else with
                            its frame pushed (`Machine.call_in`), left to the run loop if it stops
    ("enter", code id, indent)  push a frame of that code with an empty env and run it as a
                            non-flat call does (the game's setup and rounds)
    ("pc", None, indent)    in a `lazy` snippet: `fr.pc` set past the instruction here, before the
                            machine is called (nothing where no frame is kept)
    `ends`: control never falls through (an unconditional jump). `pc`: the instruction calls
    the machine (a primitive, a push, a decision) and needs `fr.pc` set past it first. `lazy`
    (with `pc`): only some of its paths call the machine, each after a "pc" directive, and every
    way out of the block it takes is a "gotow" or comes after one; the others run without `fr.pc`
    set (a step's start and end where nothing listens: most of a game), which the instructions
    after it set as they need it (the block's way out at its end sets it unless the last
    instruction did on every path)."""
    lines: tuple
    ends: bool = False
    pc: bool = True
    lazy: bool = False
    # lines that read into variables what the lines use of the env and keep in step with it (a
    # `for each`'s index and list): run first, or, where the instruction heads a block that goes
    # round its loop (`_body`), once before its `while True:` (no other instruction writes them)
    carried: tuple = ()
    # what the instruction may do to the run, for `flat`: (the state parts it may dirty, the
    # built-in events it may announce), or None when it may push a frame, ask or end the game
    effect: tuple | None = None


def jump_targets(code) -> frozenset:
    """Every pc a jump lands on: the one-item lists (the patched boxes) in the words of `code`."""
    found = set()
    for desc in code.descs:
        for part in desc or ():
            if isinstance(part, list) and len(part) == 1 and isinstance(part[0], int):
                found.add(part[0])
    return frozenset(found)


def flat(program, code_id: int) -> int | None:
    """The most instructions procedure `code_id` can run, when it can run to its end without
    the run loop: straight code (no jump back, so its steps are bounded by its length) whose
    every instruction has a snippet that cannot push a frame, ask, end the game, announce an
    event something listens to or change what an end check reads, and whose calls are to such
    procedures, not replaced by an `instead of`. None otherwise. Such a call costs one Python
    call instead of a frame's trip through the run loop; the steps count the same."""
    cache = program.__dict__.setdefault("_flat", {})
    if code_id in cache:
        return cache[code_id]
    cache[code_id] = None           # a procedure that calls itself is not flat
    code = program.codes[code_id]
    mask = program.check_mask if program.end_checks else 0
    listened = set(program.triggers) | set(program.windows_after) | set(program.replacements)
    if program.discards:            # a move may push a zone's discard code (interpreter/caps.py)
        listened.add("moved")
    # a move face down reveals no card: its `revealed` moment has no card in it, so no trigger
    # fires; it matters only where a window opens after `revealed`, where seen cards are
    # remembered (`has seen`) or where something replaces `revealed` (Machine.move, `_moved`)
    down_quiet = {REVEALED} if not (program.windows_after.get(REVEALED) or program.decls.remembers
                                    or REVEALED in program.replacements) else set()
    total = 0
    for pc, snip in enumerate(code.srcs):
        if snip is None:
            return None
        for part in code.descs[pc] or ():
            if isinstance(part, list) and len(part) == 1 and isinstance(part[0], int) and part[0] <= pc:
                return None         # a jump back: a loop
        total += 1
        for line in snip.lines:
            if not isinstance(line, str) and line[0] == "call":
                callee, name = line[1][0], line[1][1]
                inner = None if name in program.replacements else flat(program, callee)
                if inner is None:
                    return None
                total += inner
        if snip.effect is None and not any(not isinstance(line, str) and line[0] == "call" for line in snip.lines):
            return None
        if snip.effect is not None and (snip.effect[0] & mask or set(snip.effect[1]) & (
                listened - down_quiet if snip.effect[2:] == ("down",) else listened)):
            return None
    cache[code_id] = total
    return total


# An error inside a block or a flat function names the instruction it came from (`m.at`). No
# line of the run says which one that is: the generated lines carry markers, comment lines
# "#@<code>,<pc>" (the lines after it are that instruction's), "#@>" and "#@<" (a pasted flat
# procedure's lines begin and end: the caller's instruction again after them), which `_located`
# takes out of the source and turns into a table from line number to (code, pc). The handler
# reads the line the error passed through this function at (the traceback's first entry is
# this frame's; a bare `raise` adds none) and looks it up, so running costs nothing.
def _mark(code_id: int, pc: int) -> str:
    return f"#@{code_id},{pc}"


def _located(lines: list, table: dict, default: tuple) -> str:
    """The source of `lines` without their markers; `table` filled with each line's instruction
    (`default` for lines before the first marker)."""
    out = []
    stack = []
    at = default
    for line in lines:
        # (a marker holds "#@": the lines without it, nearly all, are not stripped to look)
        if "#@" in line and (text := line.lstrip(" ")).startswith("#@"):
            tag = text[2:]
            if tag == ">":
                stack.append(at)
            elif tag == "<":
                at = stack.pop()
            else:
                c, p = tag.split(",")
                at = (int(c), int(p))
            continue
        if "\x01" in line:
            line = _PLACED.sub(r"\1", line)
        out.append(line)
        table[len(out)] = at
    return "\n".join(out) + "\n"


def _handler(table_name: str, default: tuple) -> list:
    """The lines of a generated function's `except`: the instruction an error came from, by
    the line it passed through here at (`_located`), unless a deeper function named it first."""
    return ["    except BaseException as _e:",
            f"        if m.at is None: m.at = {table_name}.get(_e.__traceback__.tb_lineno, {default!r})",
            "        raise"]


# The count a way out of a block's lines returns is written as a placeholder, "\x01<n>\x02": the
# instructions run from the start of the lines (`_body`) to it, not counting those in `_s`. Lines
# pasted where a jump lands count on from the jumping lines' own (`_shifted`: the placeholders
# grow by them) instead of adding them to `_s` first; `_located` writes the numbers.
def _n(k: int) -> str:
    return f"\x01{k}\x02"


_PLACED = re.compile("\x01([0-9]+)\x02")
# and `_s` in it, "\x04+" for " + _s" and "\x04-" for " - _s": nothing, where no line adds to it (`block`)
_PLUS, _MINUS = "\x04+", "\x04-"


def _shifted(lines, by: int):
    if not by:
        return lines
    return [_PLACED.sub(lambda mo: _n(int(mo.group(1)) + by), line) if "\x01" in line else line
            for line in lines]


def _writes_pc_first(code, t: int) -> bool:
    """Whether the lines running `code` from `t` (a block there, pasted or called) set `fr.pc`
    before anything reads it: their first instruction that calls the machine (or is a closure)
    sets it first, and those before it only compute and jump (a jump sets it, or goes on to
    lines that do). Then the jump to `t` need not set it. Only where every instruction has a
    span: an error in one without reads the frames' pcs (`Machine.where`)."""
    cache = code.__dict__.setdefault("_writes_first", {})
    hit = cache.get(t)
    if hit is not None:
        return hit
    found = True
    if any(span is None for span in code.spans):
        found = False
    else:
        for p in range(t, len(code.srcs)):
            snip = code.srcs[p]
            if snip is None or (snip.pc and not snip.lazy):
                break
            # a lazy snippet reads no pc where it does not set it, and leaves the block only after
            # setting it (a "pc" directive, a "gotow"): as one that only computes
            ways = ("goto", "gotow", "watch", "pc") if snip.lazy else ("goto",)
            if any(not isinstance(line, str) and line[0] not in ways for line in snip.lines):
                found = False
                break
            if snip.ends:
                break
    cache[t] = found
    return found


def _indent(line) -> int:
    return len(line[2]) if not isinstance(line, str) else len(line) - len(line.lstrip(" "))


def _dead_after(lines, i: int) -> bool:
    """Whether the lines of a snippet after its jump `lines[i]` never run when the jump does (in
    a block the jump leaves the function; in a flat function it only sets `_to`): the next line
    of its own level is an `else:` (or `elif`) and nothing follows the if-else."""
    level = _indent(lines[i])
    in_else = None
    for line in lines[i + 1:]:
        d = _indent(line)
        if in_else is not None and d > in_else:
            continue                # inside the else branch: not on the jump's path
        text = line.strip() if isinstance(line, str) else ""
        if (text.startswith("else:") or text.startswith("elif ")) and d < level:
            in_else = level = d
            continue
        return False
    return True


def flat_depth(program, code_id: int) -> int:
    """How many frames a flat procedure (`flat`) would stack at most: its own, and under it those
    of the flat procedures it calls, nested (bounded: a flat procedure never calls itself)."""
    cache = program.__dict__.setdefault("_flat_depth", {})
    if code_id not in cache:
        inner = [line[1][0] for snip in program.codes[code_id].srcs for line in snip.lines
                 if not isinstance(line, str) and line[0] == "call"]
        cache[code_id] = 1 + max((flat_depth(program, c) for c in inner), default=0)
    return cache[code_id]


def _flat_body(program, code, pad0: str, framed: bool, paste: int = 0, stops: str | None = None):
    """The lines of a flat procedure's instructions (see `flat_fn`) and the instructions they
    count, or None when a snippet does not fit. `framed`: with `fr.pc` set before each
    instruction that calls the machine. `paste`: the flat procedures it calls pasted in
    (`_pasted`, at that nesting level), not called. The code jumps only forward: a jump is
    `_to = target`, and only an instruction a jump can pass over runs under `if _to <= pc:`.
    The count is that of all its instructions, less those a jump passes over (`_s -= n` at
    the jump), so that the caller adds it once: the instructions run, as one at a time.
    `stops` (a framed paste, `_framed_paste`: the code need not be flat, only straight): the
    test a primitive that watched is followed by, and where it holds a line `#!stop <n>` in
    the place of the way out, `n` the instructions counted up to there (`_framed_call` writes
    it); a call of a procedure that is not flat runs it with its frame (`Machine.call_in`)."""
    pool = program.pool
    srcs = code.srcs
    jumps = [(q, line[1][0]) for q, snip in enumerate(srcs) for line in snip.lines
             if not isinstance(line, str) and line[0] in ("goto", "gotow")]
    # an instruction that is only `if X: jump to t`, whose span of instructions no other jump
    # enters or leaves, is written `if X: ... else: <the instructions up to t>` instead
    nested = {}
    for q, snip in enumerate(srcs):
        lines = snip.lines
        if (len(lines) == 2 and isinstance(lines[0], str) and lines[0].startswith("if ") and lines[0].endswith(":")
                and not isinstance(lines[1], str) and lines[1][0] == "goto" and lines[1][2] == "    "
                and not (snip.pc and framed)):
            t = lines[1][1][0]
            if t > q + 1 and all(not (q < t2 < t) if q2 < q else (t2 <= t if q2 < t else True)
                                 for q2, t2 in jumps if q2 != q):
                nested[q] = t
    skippable = set()           # the instructions some other jump forward passes over
    inside = set()              # those in the else of a nested one: run or not, as it decides
    for q, t in jumps:
        (inside if nested.get(q) == t else skippable).update(range(q + 1, t))
    out = [f"{pad0}_to = 0"] if skippable else []
    count = len(srcs)
    ends = []                   # (the instruction a nested else ends before, the indentation after it, where it began)
    base = pad0

    def close() -> str:
        """End the innermost nested else (`pass` in it, if its instructions wrote nothing)."""
        _, after, at = ends.pop()
        if all(line.lstrip().startswith("#@") for line in out[at:]):
            out.append(out[at - 1][:-len("else:")] + "    pass")
        return after
    for p, snip in enumerate(srcs):
        while ends and ends[-1][0] == p:
            base = close()
        out.append(base + _mark(code.id, p))
        pad = base
        lines = snip.lines
        if p in nested:
            if p in skippable:
                out.append(f"{pad}if _to <= {p}:")
                pad += "    "
            out += [pad + lines[0], f"{pad}    _s -= {nested[p] - p - 1}", f"{pad}else:"]
            ends.append((nested[p], base, len(out)))
            base = pad + "    "
            continue
        if len(lines) == 1 and not isinstance(lines[0], str) and lines[0][0] == "goto" and lines[0][1][0] == p + 1:
            lines = ()                  # a jump to the next instruction (the end of an if's branch): nothing to do
        if not lines and not (snip.pc and framed):
            continue
        if p in skippable:
            out.append(f"{pad}if _to <= {p}:")
            pad += "    "
        if snip.pc and framed and not snip.lazy:
            out.append(f"{pad}fr.pc = {p + 1}")
        # pasted (at nesting `paste`): a call of a flat procedure whose every env read is a
        # parameter it is given is pasted with its parameters as variables (`_local_call`; at
        # this nesting below the depth check already), its count folded in as `_pasted`'s is
        local = _local_call(program, lines, paste, not (p in skippable or p in inside)) if paste and lines else None
        if local is not None:
            out += [pad + line for line in local[0]]
            count += local[1]
            continue
        for i, line in enumerate(lines):
            if isinstance(line, str):
                out.append(pad + line)
                continue
            what, arg, indent = line
            ind = pad + indent
            if what == "pc":
                if framed:
                    out.append(f"{ind}fr.pc = {p + 1}")
                continue
            if stops is not None and what in ("watch", "watchz"):
                # the instructions counted up to here: this one and those before it, with the
                # folded counts of the flat procedures pasted so far
                here = p + 1 + count - len(srcs)
                if what == "watch":
                    out += [*(() if arg == "_w" else [f"{ind}_w = {arg}"]),
                            f"{ind}if _w and {stops}:", f"{ind}    #!stop {here}"]
                    continue
                mask = program.check_mask if program.end_checks else 0
                if what == "watchz" and bool(mask & arg[0]) == arg[1]:
                    out += [f"{ind}if _w and {stops}:", f"{ind}    #!stop {here}"]
                    continue
            if stops is not None and what == "call":
                callee, proc = arg[0], arg[1]
                if proc in program.replacements:
                    return None
                if flat(program, callee) is None:
                    here = p + 1 + count - len(srcs)
                    nested_made = _framed_paste(program, callee, stops, paste)
                    if nested_made is None:
                        out += [f"{ind}_r = m.call_in({callee}, _i)", f"{ind}if _r < 0:",
                                f"{ind}    _s += ~_r", f"{ind}    #!stop {here}", f"{ind}_s += _r"]
                    else:
                        # pasted with its frame in turn (`_framed_call`): where it stops, so does
                        # this procedure, its frame at the pc after this call (set before it)
                        out += _framed_lines(program, callee, nested_made, paste, ind,
                                             lambda pad: [f"{pad}#!stop {here}"])
                    continue
            if what in ("goto", "gotow"):
                if not _dead_after(lines, i) or (stops is not None and what == "gotow"):
                    return None
                out.append(f"{ind}_to = {arg[0]}")
                if arg[0] - p - 1 > 0:
                    out.append(f"{ind}_s -= {arg[0] - p - 1}")
            elif what == "watch":       # a flat procedure's primitive cannot stop the run (`flat`)
                if arg != "_w" or out[-1].endswith(":") or _indent(out[-1]) != len(ind):
                    out.append(f"{ind}_w = {arg}")
            elif what == "watchz":      # (`_w` is set on every way to it)
                if out[-1].endswith(":"):
                    out.append(f"{ind}pass")
            elif what == "call":
                callee = arg[0]
                # a call every run of the procedure makes: its count is added with this one's
                fold = not indent and p not in skippable and p not in inside
                pasted = _pasted(program, callee, paste, fold) if paste else None
                if pasted is not None:
                    out += [ind + line for line in pasted[0]]
                    if fold:
                        count += pasted[1]
                    continue
                inner = flat_fn(program, callee)
                out.append(f"{ind}_s += m.call_flat({callee}, _i)" if inner is None
                           else f"{ind}_s += {pool.ref(inner, 'f')}(m, _i)")
            else:
                return None
        if out[-1].endswith(":"):      # pragma: no cover - a snippet whose lines were all directives dropped
            out.append(f"{pad}pass")
    while ends:
        close()
    return out, count


def _names_fr(source: str) -> bool:
    """Whether generated `source` reads a name `fr` (a frame): the frameless function has none."""
    import ast
    return any(isinstance(node, ast.Name) and node.id == "fr" for node in ast.walk(ast.parse(source)))


def flat_fn(program, code_id: int):
    """A flat procedure (`flat`) as one generated function `(m, env) -> steps`: its instructions
    pasted in order, those a jump can pass over under `if _to <= pc:` (the code jumps only
    forward, so a jump is `_to = target` and skips the instructions before it), its count of
    instructions added once (`_flat_body`), calls of flat procedures as calls of
    their own functions. It does what `Machine.call_flat` does with the procedure's blocks —
    an error located at its instruction (`m.at`), the instructions run counted, the depth bound
    — without a block call per basic block, and without a frame: nothing a flat procedure runs
    reads the frame stack (it cannot push, ask, announce an event something listens to or be
    replaced), and its errors are located by `m.at`. Only where the depth bound could be
    reached inside it (`flat_depth` frames more would pass MAX_FRAMES) does the framed version
    run, which pushes its frame as a pushed procedure would and stops with the same error.
    None when the procedure is not flat or a snippet does not fit (then `call_flat` runs it)."""
    cache = program.__dict__.setdefault("_flat_fns", {})
    if code_id in cache:
        return cache[code_id]
    cache[code_id] = None
    if flat(program, code_id) is None:
        return None
    from cardsmith.dsl.bounds import MAX_FRAMES
    from .state import Frame
    code = program.codes[code_id]
    pool = program.pool
    # the framed version: the frame pushed (depth bound, `where`), `fr.pc` set
    name = pool.fresh_name(f"f{code.id}_")
    made = _flat_body(program, code, "        ", True)
    if made is None:
        return None
    body, count = made
    table: dict = {}
    out = [f"def {name}(m, env):", "    _fs = m.st.frames",
           f"    if len(_fs) >= {MAX_FRAMES}: raise m._too_deep({code_id})",
           f"    fr = {pool.ref(Frame, 'k')}({code_id}, 0, env)", "    _fs.append(fr)",
           f"    _s = {count}", "    try:", *body, *_handler(pool.ref(table, "at"), (code_id, 0)),
           "    _fs.pop()",
           "    return _s"]
    source = _located(out, table, (code_id, 0))
    try:
        fn = pool.compile(source, name, code.name)
    except (SyntaxError, RecursionError, MemoryError):
        return None
    fn.source = source
    cache[code_id] = fn
    program.__dict__.setdefault("_flat_framed", {})[code_id] = fn
    # the frameless version, when no instruction is located through the frames (`Machine.where`
    # reads them only for an instruction without a span) and no snippet reads a frame
    if any(span is None for span in code.spans):
        return fn
    fast = pool.fresh_name(f"f{code.id}_")
    made = _flat_body(program, code, "        ", False)
    if made is None:
        return fn
    body, count = made
    table = {}
    out = [f"def {fast}(m, env):",
           f"    if len(m.st.frames) > {MAX_FRAMES - flat_depth(program, code_id)}: return {pool.ref(fn, 'f')}(m, env)",
           f"    _s = {count}", "    try:", *body, *_handler(pool.ref(table, "at"), (code_id, 0)),
           "    return _s"]
    source = _located(out, table, (code_id, 0))
    try:
        if _names_fr(source):
            return fn
        quick = pool.compile(source, fast, code.name)
    except (SyntaxError, RecursionError, MemoryError):
        return fn
    quick.source = source
    cache[code_id] = quick
    return quick


# What a peeled guard (`_guard`) may be made of: reads and tests that charge no work, draw nothing
# and change nothing (an error is raised as the procedure's own first instruction raises it)
_PURE_NODES = frozenset(("AndChain", "OrChain", "NotOp", "IsEmpty", "Compare", "Name", "Num", "Bool", "Text",
                         "Nothing", "Possessive", "FieldAccess", "FieldOf", "CardsIn", "This", "You", "IsIn",
                         "IsA", "IsFace", "TopCard", "PlayersExpr", "ActivePlayer"))
_IMPURE = ("modified", "_charged", "_bound(", "(m, env)", "(m, _i)", "rng", "_sum(", "m.ask", "m.move", "lambda")


def _guard(program, callee: int) -> str | None:
    """The test of procedure `callee`'s first instruction, when it is `if X: go to the end` (an
    `if` around its whole body, a loop's exit test) and X only reads (`_PURE_NODES`: no work
    charged, nothing drawn or changed, no closure): X as source over the call's env `_i`. The
    caller tests it first (`_body`): where it holds the procedure would run that one instruction
    and end, so no frame is pushed (below the depth bound, as a push would be); the call counts
    one instruction more. Otherwise the call runs as before (the test again, as its first)."""
    cache = program.__dict__.setdefault("_guards", {})
    if callee in cache:
        hit = cache[callee]
        return None if hit is None else hit[0]
    cache[callee] = None
    code = program.codes[callee]
    snip = code.srcs[0] if code.srcs else None
    if snip is None or snip.pc or len(snip.lines) != 2 or code.spans[0] is None:
        return None
    first, jump = snip.lines
    if (not isinstance(first, str) or not first.startswith("if ") or not first.endswith(":")
            or isinstance(jump, str) or jump[0] != "goto" or jump[2] != "    " or jump[1][0] != len(code.ops)):
        return None
    desc = code.descs[0]
    if not desc or desc[0] not in ("jump_if", "jump_if_not") or len(desc) < 2:
        return None
    from .reads import _nodes
    if any(type(node).__name__ not in _PURE_NODES for node in _nodes(desc[1])):
        return None
    test = _renamed([first[3:-1]], {"env": "_i"})
    if test is None or any(bad in test[0] for bad in _IMPURE):
        return None
    cache[callee] = (f"({test[0]})", first[3:-1])     # (over the call's `_i`, over `env`)
    return cache[callee][0]


def _guarded_call(program, lines):
    """A call snippet (as `_local_call` reads it) of a procedure with a peeled guard (`_guard`)
    that reads only parameters the call gives: (the lines evaluating each argument in order
    into a variable `_pv1<nn>`, the guard over them, the callee, the lines building `_i` from
    them and passing `$you` / `$this` on, for the call). None otherwise."""
    if (len(lines) < 2 or isinstance(lines[-1], str) or lines[-1][0] != "call" or lines[-1][2] != ""
            or len(lines[-1][1]) < 4 or not isinstance(lines[0], str) or not lines[0].startswith("_i = {")
            or not all(isinstance(line, str) and line.startswith("if '$") for line in lines[1:-1])):
        return None
    callee, proc, _span, pairs = lines[-1][1][:4]
    if proc in program.replacements or flat(program, callee) is not None or _guard(program, callee) is None:
        return None
    made = _localized([program.__dict__["_guards"][callee][1]], "env", "_pv1")
    given = [p for p, _ in pairs]
    if made is None or len(set(given)) != len(given) or not set(made[1]) <= set(given):
        return None
    names = dict(made[1])
    for p in given:
        names.setdefault(p, f"_pv1{len(names):02d}")
    head = [f"{names[p]} = {src}" for p, src in pairs]
    # the keys the display passes on after the parameters (`$you`, `$this`: an ability's call)
    known = lines[-1][1][4] if len(lines[-1][1]) > 4 else ()
    build = [f"_i = {{{', '.join([*(f'{p!r}: {names[p]}' for p in given), *(f'{k!r}: env[{k!r}]' for k in known)])}}}",
             *lines[1:-1]]
    return head, f"({made[0][0]})", callee, build


def _framed_paste(program, callee: int, stops: str, level: int = 1):
    """A procedure that is not flat but straight (no jump back: its steps are bounded by its
    length), every instruction a snippet, every one that may stop setting the frame's pc first,
    none a jump that watched or a call an `instead of` replaces: its lines as `_flat_body`
    writes them with its own frame (`_fr1`, its env `_env1`, its jump register `_to1`) and
    `stops`, the flat procedures it calls pasted one level deeper; with the instructions they
    count, the most steps they run (its instructions and those of the flat procedures it calls;
    a procedure it calls that is not flat counts its own against `Machine.left`, as from a
    block) and the frames it stacks past its own (its flat callees'). None otherwise (then
    `Machine.call_in` runs it). A procedure that is not flat called in it is pasted so in turn,
    one `level` deeper (`_fr2`, ...), unless it is being pasted already (it calls itself).
    See `_framed_call`."""
    cache = program.__dict__.setdefault("_framed", {})
    key = (callee, stops, level)
    if key in cache:
        return cache[key]
    framing = program.__dict__.setdefault("_framing", set())
    if callee in framing or level > MAX_NEST:
        return None
    code = program.codes[callee]
    if (not code.srcs or any(snip is None for snip in code.srcs) or any(span is None for span in code.spans)
            or flat(program, callee) is not None):
        cache[key] = None
        return None
    framing.add(callee)
    try:
        cache[key] = made = _framed_made(program, code, stops, level)
    finally:
        framing.discard(callee)
    return made


def _framed_made(program, code, stops: str, level: int):
    """`_framed_paste`'s work, once the procedure is known to be pastable so: (lines, count,
    steps, depth) or None."""
    steps, depth = len(code.srcs), 0
    for pc, snip in enumerate(code.srcs):
        for part in code.descs[pc] or ():
            if isinstance(part, list) and len(part) == 1 and isinstance(part[0], int) and part[0] <= pc:
                return None         # a jump back: a loop, its steps unbounded here
        for line in snip.lines:
            if isinstance(line, str):
                continue
            if line[0] in ("gotow", "retw", "enter") or (line[0] in ("watch", "watchz", "call") and not snip.pc):
                return None
            if line[0] == "call" and line[1][1] not in program.replacements:
                inner = flat(program, line[1][0])
                if inner is not None:
                    steps += inner
                    depth = max(depth, flat_depth(program, line[1][0]))
                    continue
                nested = _framed_paste(program, line[1][0], stops, level + 1)
                if nested is not None:
                    steps += nested[2]
                    depth = max(depth, 1 + nested[3])
    made = _flat_body(program, code, "", True, level + 1, stops)
    if made is None:
        return None
    body = _renamed(made[0], {"env": f"_env{level}", "_to": f"_to{level}", "fr": f"_fr{level}"}, _BARRED - {"fr"})
    if body is None:
        return None
    return body, made[1], steps, depth


def _framed_lines(program, callee: int, made: tuple, level: int, ind: str, stop) -> list:
    """The lines of a framed paste (`_framed_paste`'s `made`, at `level`) indented by `ind`:
    its frame pushed, its count added, its lines, its frame popped; each `#!stop <n>` in
    them replaced by `_s` less the instructions counted but not run there, then
    `stop(indentation)`, the way out."""
    from .state import Frame
    body, count = made[0], made[1]
    out = [f"{ind}_env{level} = _i",
           f"{ind}_fr{level} = {program.pool.ref(Frame, 'k')}({callee}, 0, _env{level})",
           f"{ind}m.st.frames.append(_fr{level})",
           f"{ind}_s += {count}",
           "#@>"]
    for line in body:
        # (only a line holding "#!stop " is stripped to look: nearly none do)
        if "#!stop " in line and (text := line.lstrip(" ")).startswith("#!stop "):
            pad = ind + line[:len(line) - len(text)]
            left = count - int(text[7:])
            out += [*([f"{pad}_s -= {left}"] if left else []), *stop(pad)]
        else:
            out.append(ind + line)
    return out + ["#@<", f"{ind}m.st.frames.pop()"]


def _framed_call(program, callee: int, ind: str, kk: int, stops: str):
    """The lines that run procedure `callee` (its env in `_i`) as `_enter` does, with its
    lines pasted here instead of its blocks called by `Machine.call_in` (`_framed_paste`),
    and the most steps they run; None where it cannot be pasted. Its frame is pushed as
    `call_in` pushes it, and popped as the run loop pops it at its end: whatever a primitive
    it calls reads of the frames (the depth bound, a decision's variable and place, a window
    waiting, `where`) reads the same. Where a primitive stops (`#!stop`: a frame pushed, a
    decision, a changed end check), its frame stays, at the pc after that instruction, with
    the caller's at the pc after the call, and the block leaves as `_enter`'s does: the run
    loop picks up at the top frame, and runs the rest of the procedure from its blocks. Its
    count is added as it begins, less (where it stops) those not run yet. At CALL_DEPTH frames
    (or near MAX_FRAMES) `call_in` runs it, as before."""
    made = _framed_paste(program, callee, stops)
    if made is None:
        return None
    from cardsmith.dsl.bounds import MAX_FRAMES
    from .machine import CALL_DEPTH
    steps, depth = made[2], made[3]
    out = [f"{ind}if len(m.st.frames) < {min(CALL_DEPTH, MAX_FRAMES - 1 - depth)}:",
           *_framed_lines(program, callee, made, 1, ind + "    ",
                          lambda pad: [f"{pad}m.brk = True", f"{pad}return -{_n(kk)}{_MINUS}"]),
           f"{ind}else:", *_enter(callee, "_i", ind + "    ", _n(kk))]
    return out, steps


def _calling(program, callee: int, ind: str, kk: int, stops: str, fits: bool) -> tuple:
    """The lines of a block that call procedure `callee` (not flat; its env in `_i`), pasted
    with its frame where it can be and `fits` (`_framed_call`), else run by `call_in`
    (`_enter`); with the most steps the lines add to the block's size."""
    made = _framed_call(program, callee, ind, kk, stops) if fits else None
    return made if made is not None else (_enter(callee, "_i", ind, _n(kk)), 0)


def _enter(callee: int, env: str, ind: str, k: str) -> list:
    """The lines that push a frame of `callee` with `env` and run it at once (`Machine.call_in`):
    the block goes on when it ends, and stops as after a push (watched) when it stops."""
    return [f"{ind}_r = m.call_in({callee}, {env})",
            f"{ind}if _r < 0: return _r + 1 - {k}{_MINUS}",
            f"{ind}_s += _r"]


@dataclass(frozen=True)
class Body:
    """The generated lines of a block (indented from 0, inside the function's `try:`), with
    `size`, the most instructions they can run (`code.sizes`), `chain`, the longest run of
    block calls they make in a row, and `nest`, how many `while` loops deep they go."""
    lines: tuple
    size: int
    chain: int
    nest: int


def _depth(lines) -> int:
    """The deepest indentation of `lines`, in levels of four spaces."""
    return max((len(line) - len(line.lstrip(" "))) // 4 for line in lines) if lines else 0


def _body(program, code, pc: int, plain: bool = False, inline: bool = True) -> Body:
    """The lines running `code` from `pc` to the end of its basic block, and on: a jump forward
    (or the fall into a jump target) continues with the block there, its lines pasted in place
    (`inline`, while they are short: INLINE_LINES) or called as its function. Pasted lines run
    exactly as the call would: `_s` counts on from this block's instructions, and every way out
    of them returns the whole count, as the call's `return k + _s + _r` does. Kept per
    (pc, plain, inline) on the code, so a block pasted in several places is generated once."""
    cache = code.__dict__.setdefault("_bodies", {})
    key = (pc, plain, inline)
    if key in cache:
        return cache[key]
    pool = program.pool
    mask = program.check_mask if program.end_checks else 0
    stops = f"(m.brk or m.dirty & {mask})" if mask else "m.brk"     # what a primitive that watched may have done
    targets = code.__dict__.get("_targets")
    if targets is None:
        targets = code.__dict__["_targets"] = jump_targets(code)
    out = []
    pad = ""
    k = 0
    extra = 0       # the most steps the flat procedures this block calls can run
    p = pc
    n = len(code.ops)
    # a jump forward (or the fall into a jump target) goes on with the block there at once
    # instead of going back to the run loop: `_chain` the most block calls in a row from each
    # pc, kept short (a pasted block is no call)
    chain = code.__dict__.setdefault("_chain", {})
    chained = [0, 0, 0]  # (the most steps of a block called or pasted, the longest chain from one, its nesting)
    looped = [False]     # whether a jump back to `pc` runs the block again from its start, at once
    loops = f"_l{pc}"

    def onward(t: int, ind: str, watched: bool, same: bool = False) -> list:
        """The lines that leave the block for pc `t`: pasting or calling its block when it lies
        ahead; for a jump back to this block's own start (a loop's next turn), going round again
        here, at most LOOPS passes in one call (its size counts them all). `same`: `fr.pc` is
        `t` already (the instruction before set it)."""
        kk = k + kf
        back = f"{ind}return -{_n(kk)}{_MINUS}" if watched else f"{ind}return {_n(kk)}{_PLUS}"
        # where the lines at `t` set `fr.pc` before anything reads it, going on to them need not
        setpc = [] if same or _writes_pc_first(code, t) else [f"{ind}fr.pc = {t}"]
        if t == pc and not plain and not watched:
            looped[0] = True
            # the passes left counted down (a test of the number itself, no constant compared)
            return [*setpc, f"{ind}{loops} -= 1", f"{ind}if {loops}:",
                    f"{ind}    _s += {kk}", f"{ind}    continue", *(() if setpc or same else [f"{ind}fr.pc = {t}"]), back]
        if plain or watched or not pc < t < n:
            return [*(() if same else [f"{ind}fr.pc = {t}"]), back]
        if inline:
            sub = _body(program, code, t)
            if (len(sub.lines) <= INLINE_LINES and sub.nest < MAX_NEST
                    and _depth(sub.lines) + len(ind) // 4 < MAX_INDENT):
                chained[0] = max(chained[0], sub.size)
                chained[1] = max(chained[1], sub.chain)
                chained[2] = max(chained[2], sub.nest)
                # its ways out count on from these lines' instructions (`_shifted`)
                return [*setpc, *(ind + line for line in _shifted(sub.lines, kk))]
        nxt = code.fast[t]
        if nxt is None:
            nxt = code.fast[t] = block(program, code, t)
        if chain.get(t, 0) >= MAX_CHAIN:
            return [*(() if same else [f"{ind}fr.pc = {t}"]), back]
        chained[0] = max(chained[0], code.sizes[t])
        chained[1] = max(chained[1], chain.get(t, 0) + 1)
        return [*setpc, f"{ind}_r = {pool.ref(nxt, 'b')}(m, fr)",
                f"{ind}return {_n(kk)}{_PLUS} + _r if _r > 0 else _r - {_n(kk)}{_MINUS}"]
    first = []      # the lines that run once as the block begins (`Snippet.carried`)
    kf = 0          # the instructions of the flat procedures pasted on every way through (`_pasted`, fold)
    known = None    # the pc `fr.pc` holds for sure here, on the way through
    while p < n:
        k += 1
        out.append(pad + _mark(code.id, p))
        snip = None if plain else code.srcs[p]
        if snip is None:
            op = pool.ref(code.ops[p], "op")
            out += [f"{pad}fr.pc = {p + 1}",
                    f"{pad}_w = {op}(m, fr)",
                    f"{pad}if _w and {stops}: return -{_n(k + kf)}{_MINUS}",
                    f"{pad}if fr.pc != {p + 1}: return {_n(k + kf)}{_PLUS}"]
            ends = False
            known = p + 1
        else:
            if snip.pc and not snip.lazy:
                # a primitive a snippet calls moves this frame's pc only when it stops the block
                # (scenario_machine.park), so past its lines `fr.pc` is still this
                out.append(f"{pad}fr.pc = {p + 1}")
                known = p + 1
            elif snip.lazy:
                known = None    # set on some of its paths only (its "pc" directives)
            if snip.carried:
                if p == pc:
                    first = [*snip.carried]     # before the loop, if the block goes round it
                else:       # pragma: no cover - a loop's head always begins its block (a jump target)
                    out += [pad + line for line in snip.carried]
            local = _local_call(program, snip.lines, 1, True) if inline and not plain else None
            if local is not None:
                out += [pad + line for line in local[0]]
                extra += local[2]
                kf += local[1]
            guarded = _guarded_call(program, snip.lines) if local is None and not plain else None
            if guarded is not None:
                # as the call below with a peeled guard (`_guard`), its arguments in variables: the
                # env's dict built only where the frame is pushed
                from cardsmith.dsl.bounds import MAX_FRAMES
                head, test, callee, made = guarded
                extra += 1
                run, steps = _calling(program, callee, pad + "    ", k + kf, stops, inline and snip.pc)
                extra += steps
                out += [*(pad + line for line in head), "#@>", _mark(callee, 0),
                        f"{pad}if len(m.st.frames) < {MAX_FRAMES} and {test}:",
                        "#@<",
                        f"{pad}    _s += 1",
                        f"{pad}else:",
                        *(pad + "    " + line for line in made), *run]
            for line in (snip.lines if local is None and guarded is None else ()):
                if isinstance(line, str):
                    out.append(pad + line)
                    continue
                what, arg, indent = line
                ind = pad + indent
                if what == "goto":
                    out += onward(arg[0], ind, False)
                elif what == "gotow":
                    out += onward(arg[0], ind, True)
                elif what == "retw":
                    out.append(f"{ind}return -{_n(k + kf)}{_MINUS}")
                elif what == "watch":
                    if arg != "_w":
                        out.append(f"{ind}_w = {arg}")
                    out.append(f"{ind}if _w and {stops}: return -{_n(k + kf)}{_MINUS}")
                elif what == "watchz":
                    if bool(mask & arg[0]) == arg[1]:
                        out.append(f"{ind}if _w and {stops}: return -{_n(k + kf)}{_MINUS}")
                elif what == "call":
                    callee, proc, span = arg[:3]
                    steps = None if proc in program.replacements else flat(program, callee)
                    if steps is not None:
                        extra += steps
                        fold = not indent
                        pasted = _pasted(program, callee, 1, fold) if inline and not plain else None
                        if pasted is not None:
                            out += [ind + line for line in pasted[0]]
                            if fold:
                                kf += pasted[1]
                            continue
                        fn = flat_fn(program, callee)
                        out.append(f"{ind}_s += m.call_flat({callee}, _i)" if fn is None
                                   else f"{ind}_s += {pool.ref(fn, 'f')}(m, _i)")
                    else:
                        # the program's replacements are known when it is compiled (as `flat` reads them)
                        if proc in program.replacements:
                            out += [f"{ind}if {proc!r} in m.prog.replacements:",
                                    f"{ind}    if '$replaced' in env: _i['$replaced'] = env['$replaced']",
                                    f"{ind}    if m.replace({proc!r}, _i, {span}): return -{_n(k + kf)}{_MINUS}"]
                        guard = None if plain or proc in program.replacements else _guard(program, callee)
                        fits = inline and not plain and snip.pc and proc not in program.replacements
                        run, steps = _calling(program, callee, ind if guard is None else ind + "    ", k + kf,
                                              stops, fits)
                        extra += steps
                        if guard is None:
                            out += run
                        else:
                            # its first instruction ends it: tested here, the frame pushed only when it does not
                            from cardsmith.dsl.bounds import MAX_FRAMES
                            extra += 1
                            out += ["#@>", _mark(callee, 0),
                                    f"{ind}if len(m.st.frames) < {MAX_FRAMES} and {guard}:",
                                    "#@<",
                                    f"{ind}    _s += 1",
                                    f"{ind}else:", *run]
                elif what == "enter":
                    out += _enter(arg, "{}", ind, _n(k + kf))
                elif what == "pc":
                    out.append(f"{ind}fr.pc = {p + 1}")
                else:       # pragma: no cover - a compiler bug, not a file's
                    raise ValueError(f"unknown snippet directive {what!r}")
            ends = snip.ends
        p += 1
        if ends or p in targets:
            break
    if plain or not (code.srcs[p - 1] is not None and code.srcs[p - 1].ends):
        out += onward(p, pad, False, known == p)
    if looped[0]:       # the instructions go round in `while True:`, every pass ends in a return or continue
        out = [_mark(code.id, pc), *first, f"{loops} = {LOOPS}", "while True:"] + ["    " + line for line in out]
    elif first:
        out = [_mark(code.id, pc), *first, *out]
    size = (k + extra) * (LOOPS if looped[0] else 1) + chained[0]   # a block called: once, as it leaves
    body = cache[key] = Body(tuple(out), size, chained[1], chained[2] + looped[0])
    return body


_BARRED = frozenset(("return", "yield", "continue", "break", "global", "nonlocal", "fr"))


def _renamed(lines: list, names: dict, barred: frozenset = None):
    """`lines` (source, indented from 0) with every name token in `names` renamed, or None when
    they hold a token that would act otherwise pasted into a block (a return, a loop's break or
    continue, a frame read) or an f-string (whose names are inside a string token)."""
    toks = _tokens(lines)
    if toks is None:
        return None
    barred = _BARRED if barred is None else barred
    edits: dict = {}
    for row, kind, text, start, end in toks:
        if kind == "n":
            if text in barred:
                return None
            if text in names:
                edits.setdefault(row, []).append((start, end, names[text]))
        elif "f" in text[:text.find(text[-1])].lower():
            return None
    return _edited(lines, edits)


def _renamed_body(program, callee: int, level: int):
    """The lines of flat procedure `callee` to paste at nesting `level` (its own pastes one
    deeper), its env and jump register renamed for that level, and the instructions they count;
    None when it has no frameless function, nests too deep or a line does not fit
    (`_pasted`, `_pasted_local`)."""
    fn = flat_fn(program, callee)
    framed = program.__dict__.get("_flat_framed", {}).get(callee)
    if fn is None or framed is None or fn is framed or level > MAX_NEST:
        return None
    made = _flat_body(program, program.codes[callee], "", False, level + 1)
    if made is None:
        return None
    body, count = made
    body = _renamed(body, {"env": f"_env{level}", "_to": f"_to{level}"})
    return None if body is None else (body, count)


def _pasted(program, callee: int, level: int, fold: bool = False):
    """The lines of flat procedure `callee` pasted into a block where its call was (its env in
    `_i`), instead of a call of its frameless function (`flat_fn`): the same lines, its names
    `env` and `_to` renamed for its nesting `level`, the flat procedures it calls pasted in turn;
    an error in them is located by their markers, as in the function (`_located`); near the
    depth bound its framed function runs instead, as the frameless one would call it. None when it has no
    frameless function or a line does not fit (then it is called). With the instructions it
    counts: `fold`, the caller adds them with its own (the call is made whenever the caller's
    lines run), else its lines add them to `_s`."""
    cache = program.__dict__.setdefault("_pasted", {})
    key = (callee, level, fold)
    if key in cache:
        return cache[key]
    cache[key] = None
    made = _renamed_body(program, callee, level)
    if made is None:
        return None
    from cardsmith.dsl.bounds import MAX_FRAMES
    body, count = made
    # its lines are the caller's function's: an error is located by their markers (`_located`)
    inner = [f"_env{level} = _i", *(() if fold else [f"_s += {count}"]), "#@>", *body, "#@<"]
    if level > 1:
        # pasted inside a pasted procedure, which ran only below its own depth check: its
        # callees nest fewer frames (`flat_depth`), so theirs cannot pass
        lines = inner
    else:
        framed = program.__dict__["_flat_framed"][callee]      # there: `_renamed_body` found it
        lines = [f"if len(m.st.frames) > {MAX_FRAMES - flat_depth(program, callee)}:",
                 f"    _s += {program.pool.ref(framed, 'f')}(m, _i)" + (f" - {count}" if fold else ""),
                 "else:",
                 *("    " + line for line in inner)]
    cache[key] = (lines, count)
    return cache[key]


_AFTER_DOT_OR_DEL = re.compile(r"(?:\.|(?<!\w)del)\s*$")     # an attribute, or the target of `del`
_OPEN, _CLOSE = re.compile(r"\s*\[\s*"), re.compile(r"\s*\]")


def _localized(lines: list, env: str, prefix: str):
    """`lines` with every `<env>['key']` made a Python variable `<prefix><nn>` (one per key, in
    the order first met), and {key: variable}; None when `env` appears otherwise (a closure
    given the dict, a key tested with `in`, a `del`): then the dict stays."""
    import ast
    toks = _tokens(lines)
    if toks is None:
        return None
    names: dict = {}
    edits: dict = {}
    for i, (row, kind, text, start, end) in enumerate(toks):
        if kind != "n" or text != env:
            continue
        # `env['key']`: the name, then `[`, a string, `]`, on one line
        line = lines[row]
        opened = _OPEN.match(line, end)
        if i + 1 >= len(toks) or _AFTER_DOT_OR_DEL.search(line, 0, start) or opened is None:
            return None
        row2, kind2, key, start2, end2 = toks[i + 1]
        closed = _CLOSE.match(line, end2)
        if row2 != row or kind2 != "s" or start2 != opened.end() or key[0] not in "'\"" or closed is None:
            return None
        name = names.setdefault(ast.literal_eval(key), f"{prefix}{len(names):02d}")
        edits.setdefault(row, []).append((start, closed.end(), name))
    return _edited(lines, edits), names


def _pasted_local(program, callee: int, level: int):
    """`_pasted`'s lines of flat procedure `callee` with its env's names as Python variables
    (`_localized`: `_e<level>_<n>`), its count and {name: variable}; None when its lines read
    the env otherwise, or it has no frameless function. Only where every name it reads is a
    parameter the call gives (`_local_call`) are they used: each set before the lines run."""
    cache = program.__dict__.setdefault("_pasted_local", {})
    key = (callee, level)
    if key in cache:
        return cache[key]
    cache[key] = None
    made = _renamed_body(program, callee, level)
    if made is None:
        return None
    body, count = made
    made = _localized(body, f"_env{level}", f"_pv{level}")
    if made is None:
        return None
    cache[key] = (made[0], count, made[1])
    return cache[key]


def _local_call(program, lines, level: int, fold: bool):
    """A call snippet as compile_stmt writes it (`_i = {...}`, the lines passing `$you` /
    `$this` on, the call at the snippet's own indentation) of a flat procedure pasted at nesting
    `level` with its parameters as variables (`_pasted_local`): each argument evaluated in
    order into its variable, as the dict display evaluated them, then the lines. At level 1,
    near the depth bound, the dict is built and the framed function runs (as `_pasted`).
    (lines, the instructions it counts as `_pasted`'s, the most steps it runs) or None."""
    if (len(lines) < 2 or isinstance(lines[-1], str) or lines[-1][0] != "call" or lines[-1][2] != ""
            or len(lines[-1][1]) < 4 or not isinstance(lines[0], str) or not lines[0].startswith("_i = {")
            or not all(isinstance(line, str) and line.startswith("if '$") for line in lines[1:-1])):
        return None
    callee, proc, _span, pairs = lines[-1][1][:4]
    steps = None if proc in program.replacements else flat(program, callee)
    local = None if steps is None or level > MAX_NEST else _pasted_local(program, callee, level)
    if local is None:
        return None
    body, count, names = local
    given = [p for p, _ in pairs]
    if len(set(given)) != len(given) or not set(names) <= set(given):
        return None
    inner = [f"{names.get(p, f'_pu{level}')} = {src}" for p, src in pairs]
    inner += [*(() if fold else [f"_s += {count}"]), "#@>", *body, "#@<"]
    if level > 1:
        return inner, (count if fold else 0), steps
    from cardsmith.dsl.bounds import MAX_FRAMES
    framed = program.__dict__["_flat_framed"][callee]
    return ([f"if len(m.st.frames) > {MAX_FRAMES - flat_depth(program, callee)}:",
             *("    " + line for line in lines[:-1]),
             f"    _s += {program.pool.ref(framed, 'f')}(m, _i)" + (f" - {count}" if fold else ""),
             "else:", *("    " + line for line in inner)], (count if fold else 0), steps)


_COUNTED = re.compile(r"(?<!\w)_s [-+]=")     # a line adding to a block's `_s`


def block(program, code, pc: int, plain: bool = False, inline: bool = True):
    """The function running `code` from `pc` to the end of its basic block, and the blocks it
    goes on to (`_body`); its size in instructions is `code.sizes[pc]` once built. `plain`:
    every instruction as its closure — what a block becomes if its source could not be
    compiled (Python's own limits on nesting and size are not the file's to know)."""
    pool = program.pool
    body = _body(program, code, pc, plain, inline)
    name = pool.fresh_name(f"b{code.id}_{pc}_")
    table: dict = {}
    lines, count = body.lines, ["    _s = 0"]
    if any(_COUNTED.search(line) for line in lines):
        lines = [line.replace(_PLUS, " + _s").replace(_MINUS, " - _s") if "\x04" in line else line
                 for line in lines]
    else:           # nothing adds to `_s` (always 0): the ways out return their counts alone
        lines, count = [line.replace(_PLUS, "").replace(_MINUS, "") if "\x04" in line else line
                        for line in lines], []
    out = [f"def {name}(m, fr):", "    env = fr.env", *count, "    try:",
           *("        " + line for line in lines),
           *_handler(pool.ref(table, "at"), (code.id, pc))]
    source = _located(out, table, (code.id, pc))
    try:
        fn = pool.compile(source, name, code.name)
    except (SyntaxError, RecursionError, MemoryError):
        if plain:
            raise
        return block(program, code, pc, plain=not inline, inline=False)
    fn.source = source          # for `cardsmith explain --python`
    code.sizes[pc] = body.size
    code.__dict__.setdefault("_chain", {})[pc] = body.chain
    return fn


def block_starts(code) -> list[int]:
    """The pcs where the machine may enter `code`: its start, every jump target, and every pc
    after an instruction that may leave its block (a fallback, or one that watched)."""
    starts = {0} | set(code.__dict__.get("_targets") or jump_targets(code))
    for pc, snip in enumerate(code.srcs):
        if snip is None or any(not isinstance(line, str) and line[0] in ("watch", "watchz", "call", "enter", "gotow", "retw")
                               for line in snip.lines):
            starts.add(pc + 1)
    return sorted(pc for pc in starts if pc < len(code.ops))
