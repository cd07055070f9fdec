"""Where a file nests deepest: the place E0906 ("nests too deeply") points at.

When Python's recursion runs out, the parser, the transformer or a check pass was somewhere in a
deep tree, but the RecursionError does not say where in the file. A tree is deep for one of two
reasons a designer can see: brackets or blocks nested inside each other (a depth), or one long
chain of operators on a line (`1 + 1 + 1 ...`, `not not not ...`, each one level of the tree).
The text is read for both, and the larger one is blamed.
"""
from __future__ import annotations

import functools
import re
import sys
import threading

from .bounds import FRONT_FRAMES
from .source import Source, Span

# Strings and comments: their brackets and words are not nesting (the pattern of dsl/parser.py).
_STRING_OR_COMMENT = re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*"""|"(?:[^"\\\n]|\\.)*"|#[^\n]*')
# One step of a chain: a word, a number or an operator; brackets are counted as depth instead.
_TOKEN = re.compile(r"\w+|[^\w\s()\[\]{}]+")
_OPEN, _CLOSE = "([{", ")]}"


def _code_only(text: str) -> str:
    """`text` with strings and comments blanked out, lines and columns unchanged."""
    return _STRING_OR_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _deepest(source: Source) -> tuple[int, Span]:
    """(how deep, where) for the deepest point of one file: the most brackets and blocks around
    one place, or the longest chain of words and operators on one line, whichever is larger."""
    best_depth, best = 0, (1, 1, 2)
    indents: list[int] = [0]          # the widths of the open blocks around the current line
    brackets = 0
    for number, line in enumerate(_code_only(source.text).split("\n"), start=1):
        stripped = line.lstrip(" \t")
        if not stripped:
            continue
        width = len(line) - len(stripped)
        while width < indents[-1]:
            indents.pop()
        if width > indents[-1]:
            indents.append(width)
        blocks = len(indents) - 1
        if blocks > best_depth:
            best_depth, best = blocks, (number, width + 1, width + 2)
        for column, char in enumerate(line, start=1):
            if char in _OPEN:
                brackets += 1
                if blocks + brackets > best_depth:
                    best_depth, best = blocks + brackets, (number, column, column + 1)
            elif char in _CLOSE:
                brackets = max(0, brackets - 1)
        chain = len(_TOKEN.findall(line))
        if chain > best_depth:
            best_depth, best = chain, (number, width + 1, len(line) + 1)
    line, column, end = best
    return best_depth, Span(source.path, line, column, line, end)


def deepest_span(sources: dict[str, Source], root: str) -> Span:
    """Where the files read so far nest deepest; the game's own file wins a tie."""
    found = [_deepest(src) for path, src in sources.items()]
    paths = list(sources)
    ranked = sorted(range(len(found)), key=lambda i: (-found[i][0], paths[i] != root))
    return found[ranked[0]][1] if ranked else Span(root, 1, 1, 1, 2)


# The recursion limit is one per process: the threads inside `room_to_nest` share one raised
# limit, put back when the last of them leaves.
_room_lock = threading.Lock()
_room_users = 0
_room_saved = 0


def room_to_nest(fn):
    """`fn` (the front end: parse, convert, check) with `FRONT_FRAMES` frames of room above the
    frame it is called from. Python's limit counts frames from the bottom of the stack, so
    without this how deep a file may nest would depend on the caller: the CLI calls from a few
    frames up, a test runner or a language server from dozens more, and the same file would be
    E0906 in one and not the other. The limit is only ever raised here (a caller's higher
    limit stays), and by no more than the frames below the call, so the C stack sees no deeper
    recursion than a top-level call with Python's default limit would make."""
    @functools.wraps(fn)
    def roomy(*args, **kwargs):
        global _room_users, _room_saved
        depth, frame = 0, sys._getframe()
        while frame is not None:
            depth += 1
            frame = frame.f_back
        with _room_lock:
            if _room_users == 0:
                _room_saved = sys.getrecursionlimit()
            _room_users += 1
            if sys.getrecursionlimit() < depth + FRONT_FRAMES:
                sys.setrecursionlimit(depth + FRONT_FRAMES)
        try:
            return fn(*args, **kwargs)
        finally:
            with _room_lock:
                _room_users -= 1
                if _room_users == 0:
                    sys.setrecursionlimit(_room_saved)
    return roomy
