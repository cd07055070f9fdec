"""Between the front end's positions and the editor's, and its Diagnostic and LSP's.

A `Span` counts 1-based lines and columns in characters; LSP counts 0-based lines and
columns in the code units the client and server agreed on (UTF-16 unless both say otherwise),
so a line with an emoji or a CJK name before a name would point one column off per character
if columns were passed through.

`to_lsp` is the one way a checker `Diagnostic` becomes an editor's: the same objects that
`cardsmith check` renders with dsl/render.py, with the same code, message, hint and notes.
"""
from __future__ import annotations

from lsprotocol import types as T

from ..diagnostics import Diagnostic
from ..source import Span

_SEVERITY = {"error": T.DiagnosticSeverity.Error, "warning": T.DiagnosticSeverity.Warning}


def units(text: str, encoding: str = "utf-16") -> int:
    """How many code units of `encoding` the characters of `text` take."""
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    if encoding == "utf-32":
        return len(text)
    return sum(2 if ord(c) > 0xFFFF else 1 for c in text)


def line_of(text: str, line: int) -> str:
    lines = text.split("\n")
    return lines[line - 1] if 0 < line <= len(lines) else ""


def position(text: str, line: int, column: int, encoding: str = "utf-16") -> T.Position:
    """The LSP position of 1-based `line`, `column` (characters) in `text`."""
    if line < 1:
        return T.Position(0, 0)
    chars = line_of(text, line)
    return T.Position(line - 1, units(chars[: max(column - 1, 0)], encoding))


def span_range(text: str, span: Span, encoding: str = "utf-16") -> T.Range:
    start = position(text, span.line, span.column, encoding)
    end = position(text, span.end_line, span.end_column, encoding)
    if (end.line, end.character) <= (start.line, start.character):   # a point: one character wide
        end = T.Position(start.line, start.character + 1)
    return T.Range(start, end)


def from_position(text: str, pos: T.Position, encoding: str = "utf-16") -> tuple[int, int]:
    """(1-based line, 1-based column in characters) of an LSP position in `text`."""
    chars = line_of(text, pos.line + 1)
    count = 0
    for index, char in enumerate(chars):
        if count >= pos.character:
            return pos.line + 1, index + 1
        count += units(char, encoding)
    return pos.line + 1, len(chars) + 1


def to_lsp(d: Diagnostic, text: str, encoding: str = "utf-16") -> T.Diagnostic:
    """The editor's form of a checker diagnostic: range, code, message with its hint and notes."""
    message = d.message
    if d.hint:
        message += f"\nhint: {d.hint}"
    for note in d.notes:
        message += f"\nnote: {note}"
    return T.Diagnostic(
        range=span_range(text, d.span, encoding),
        message=message,
        severity=_SEVERITY.get(d.severity, T.DiagnosticSeverity.Error),
        code=d.code,
        source="cardsmith",
        data={"hint": d.hint} if d.hint else None,
    )
