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

Why this is safe with a stranger's file: the source is made only of the compiler's own
templates, `repr()` literals of the model's names and numbers, and generated names bound in the
program's namespace (interpreter/gen_expr.py, `Pool`) — never of text the file controls.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Snippet:
    """An instruction as source lines, indented from 0. A line is a str, or a directive:
    ("goto", box, indent)   jump to box[0] and leave the block (a plain jump)
    ("gotow", box, indent)  the same, after a primitive that watched (the loop checks)
    ("watch", expr, indent) `_w = expr`, and leave the block if it set brk or dirtied a check
    ("retw", None, indent)  leave the block as after a primitive that watched
    ("call", (code id, name, span ref), indent)  call a procedure with the env `_i`: a frame
                            pushed, or, when its code is `flat`, run to its end right here
    `ends`: control never falls through (an unconditional jump). `pc`: the instruction calls
    the machine (a primitive, a push, a decision) and needs `fr.pc` set past it first."""
    lines: tuple
    ends: bool = False
    pc: bool = True
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
                callee, name, _ = line[1]
                inner = None if name in program.replacements else flat(program, callee)
                if inner is None:
                    return None
                total += inner
        if snip.effect is None and not any(not isinstance(line, str) and line[0] == "call" for line in snip.lines):
            return None
        if snip.effect is not None and (snip.effect[0] & mask or set(snip.effect[1]) & listened):
            return None
    cache[code_id] = total
    return total


def block(program, code, pc: int, plain: bool = False):
    """The function running `code` from `pc` to the end of its basic block; its size in
    instructions is `code.sizes[pc]` once built. `plain`: every instruction as its closure —
    what a block becomes if its source could not be compiled (Python's own limits on nesting
    and size are not the file's to know)."""
    pool = program.pool
    mask = program.check_mask if program.end_checks else 0
    targets = code.__dict__.get("_targets")
    if targets is None:
        targets = code.__dict__["_targets"] = jump_targets(code)
    name = pool.fresh_name(f"b{code.id}_{pc}_")
    out = [f"def {name}(m, fr):", "    env = fr.env", "    _s = 0", "    try:"]
    pad = "        "
    k = 0
    extra = 0       # the most steps the flat procedures this block calls can run
    p = pc
    n = len(code.ops)
    while p < n:
        k += 1
        out.append(f"{pad}_p = {p}")
        snip = None if plain else code.srcs[p]
        if snip is None:
            op = pool.ref(code.ops[p], "op")
            out += [f"{pad}fr.pc = {p + 1}",
                    f"{pad}_w = {op}(m, fr)",
                    f"{pad}if _w and (m.brk or m.dirty & {mask}): return -{k} - _s",
                    f"{pad}if fr.pc != {p + 1}: return {k} + _s"]
            ends = False
        else:
            if snip.pc:
                out.append(f"{pad}fr.pc = {p + 1}")
            for line in snip.lines:
                if isinstance(line, str):
                    out.append(pad + line)
                    continue
                what, arg, indent = line
                ind = pad + indent
                if what == "goto":
                    out += [f"{ind}fr.pc = {arg[0]}", f"{ind}return {k} + _s"]
                elif what == "gotow":
                    out += [f"{ind}fr.pc = {arg[0]}", f"{ind}return -{k} - _s"]
                elif what == "retw":
                    out.append(f"{ind}return -{k} - _s")
                elif what == "watch":
                    out += [f"{ind}_w = {arg}", f"{ind}if _w and (m.brk or m.dirty & {mask}): return -{k} - _s"]
                elif what == "call":
                    callee, proc, span = arg
                    steps = None if proc in program.replacements else flat(program, callee)
                    if steps is not None:
                        extra += steps
                        out.append(f"{ind}_s += m.call_flat({callee}, _i)")
                    else:
                        out += [f"{ind}if {proc!r} in m.prog.replacements:",
                                f"{ind}    if '$replaced' in env: _i['$replaced'] = env['$replaced']",
                                f"{ind}    if m.replace({proc!r}, _i, {span}): return -{k} - _s",
                                f"{ind}_w = m.push({callee}, _i)",
                                f"{ind}if _w and (m.brk or m.dirty & {mask}): return -{k} - _s"]
                else:       # pragma: no cover - a compiler bug, not a file's
                    raise ValueError(f"unknown snippet directive {what!r}")
            ends = snip.ends
        p += 1
        if ends or p in targets:
            break
    if plain or not (code.srcs[p - 1] is not None and code.srcs[p - 1].ends):
        out += [f"{pad}fr.pc = {p}", f"{pad}return {k} + _s"]
    out += ["    except BaseException:",
            f"        if m.at is None: m.at = ({code.id}, _p)",     # the innermost block's, for a flat call's
            "        raise"]
    source = "\n".join(out) + "\n"
    try:
        fn = pool.compile(source, name, code.name)
    except (SyntaxError, RecursionError, MemoryError):
        if plain:
            raise
        return block(program, code, pc, plain=True)
    fn.source = source          # for `cardsmith explain --python`
    code.sizes[pc] = k + extra
    return fn


def block_starts(code) -> list[int]:
    """The pcs where the machine may enter `code`: its start, every jump target, and every pc
    after an instruction that may leave its block (a fallback, or one that watched)."""
    starts = {0} | set(code.__dict__.get("_targets") or jump_targets(code))
    for pc, snip in enumerate(code.srcs):
        if snip is None or any(not isinstance(line, str) and line[0] in ("watch", "call", "gotow", "retw")
                               for line in snip.lines):
            starts.add(pc + 1)
    return sorted(pc for pc in starts if pc < len(code.ops))
