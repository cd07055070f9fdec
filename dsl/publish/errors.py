"""What can go wrong while publishing, as located diagnostics (codes E10xx, docs/errors.md).

A rulebook template, like a .cards file, may come from a stranger; every way it can fail —
a syntax error, a division by zero, a number or a page too large, a macro calling itself
forever, a file that is not UTF-8 — becomes a `PublishError`: a `CardsmithError` whose
diagnostics point at the template's file and line, which the CLI draws like any other error
(exit 1). The game file's own problems while publishing (rules nested too deeply to write out,
a diagram too large or too slow to draw) point into the game file.
"""
from __future__ import annotations

import dataclasses
import os
import stat
import typing

from .. import ast as A
from ..bounds import MAX_TEMPLATE_BYTES
from ..diagnostics import CardsmithError, Diagnostic
from ..source import Source, Span
from . import apart

# the codes, one per way publishing fails (tests/test_publish_security.py raises each)
TEMPLATE_SYNTAX = "E1001"
TEMPLATE_FAILED = "E1002"
TEMPLATE_FILE = "E1003"
TEMPLATE_OUTPUT = "E1004"
TEMPLATE_LIMITS = "E1005"
CHROMIUM_FAILED = "E1006"
GRAPHVIZ_FAILED = "E1007"
DIAGRAM_TOO_BIG = "E1008"
RULES_TOO_DEEP = "E1009"


class PublishError(CardsmithError):
    """Publishing stopped; `diagnostics` say where and why."""


def template_source(path: str) -> Source:
    """A template's text as far as it can be shown under an error: only a regular file is read
    (a pipe would block, a device never end), never more than the bound, bytes that are not
    UTF-8 shown as U+FFFD. A template that was refused is never read: see `at(quote=False)`."""
    data = b""
    try:
        if stat.S_ISREG(os.stat(path).st_mode):
            with open(path, "rb") as f:
                data = f.read(MAX_TEMPLATE_BYTES)
    except OSError:
        pass
    return Source(path, data.decode("utf-8", "replace"))


def at(code: str, message: str, path: str, line: int = 1, column: int = 1, hint: str | None = None,
       quote: bool = True) -> PublishError:
    """One located error in template `path`, showing its line unless `quote` is false (a file
    refused for what it is, such as a link to /etc/shadow, must not be shown either)."""
    line, column = max(line, 1), max(column, 1)
    span = Span(path, line, column, line, column + 1)
    sources = {path: template_source(path) if quote else Source(path, "")}
    return PublishError([Diagnostic(code, message, span, hint)], sources)


def in_game(game, code: str, message: str, hint: str | None = None, span: Span | None = None) -> PublishError:
    """A located error in the game's files: at `span`, else at its `game` declaration."""
    decl = game.decls.game
    span = span or (decl.span if decl is not None else Span(game.path, 1, 1, 1, 2))
    return PublishError([Diagnostic(code, message, span, hint)], dict(game.sources))


# ---------------------------------------------------------------- rules nested too deeply


def _children(node) -> list:
    """The AST nodes directly inside `node` (its fields; tuples such as if-branches flattened)."""
    out, todo = [], [getattr(node, f.name) for f in dataclasses.fields(node)]
    while todo:
        value = todo.pop()
        if isinstance(value, (tuple, list)):
            todo.extend(value)
        elif dataclasses.is_dataclass(value) and isinstance(getattr(value, "span", None), Span):
            out.append(value)
    return out


_EXPRESSIONS = tuple(typing.get_args(A.Expr))


def deepest(module: A.Module) -> tuple[int, Span | None]:
    """How deep the game's AST nests, and where its deepest nesting starts: the outermost
    expression on the deepest chain (else the outermost node below the declaration). Walked
    with a list, not recursion, because it runs exactly when recursion has failed."""
    best, where = 0, None
    for decl in module.decls:
        stack = [(decl, 0, None, None)]
        while stack:
            node, depth, first, first_expr = stack.pop()
            if depth > best:
                best, where = depth, first_expr or first
            for child in _children(node):
                stack.append((child, depth + 1, first or child.span,
                              first_expr or (child.span if isinstance(child, _EXPRESSIONS) else None)))
    return best, where


def too_deep(game) -> PublishError:
    """The located error for rules the English or diagram writers cannot follow."""
    depth, span = deepest(game.module)
    return in_game(game, RULES_TOO_DEEP,
                   f"these rules nest too deeply to write out in the rulebook ({depth} levels; the writers "
                   f"follow at most {apart.PUBLISH_FRAMES:,} frames, the bound PUBLISH_FRAMES)",
                   "split the deepest expression with `let` or `define`, or nest fewer blocks", span)
