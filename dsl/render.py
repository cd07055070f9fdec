"""Draw diagnostics for people, like rustc and Elm:

    games/x.cards:12:27: error[E0201]: unknown zone 'dek'
     12 |     move top card of your dek to your hand
        |                           ^^^
        = hint: did you mean 'deck'?

Diagnostics stay data (dsl/diagnostics.py); this module only turns them into text.
"""
from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping

from .diagnostics import Diagnostic
from .terminal import for_terminal

TAB_WIDTH = 4       # the indenter's tab_len, so tabs look the way the parser counted them
SHOWN = 160         # a longer source line is shown cut to this many characters around the caret

_RESET = "\x1b[0m"
_BOLD = "\x1b[1m"
_GUTTER = "\x1b[1;34m"
_SEVERITY = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m"}


def render_diagnostic(d: Diagnostic, sources: Mapping[str, object], color: bool = False) -> str:
    """One diagnostic: the located header, the source line with carets, hint and notes."""
    paint = _painter(color)
    tone = _SEVERITY.get(d.severity, _BOLD)
    span = d.span
    # a message, hint or note may quote a name from the file: it reaches the terminal sanitised
    where = for_terminal(f"{span.path}:{span.line}:{span.column}" if span.line >= 1 else span.path)
    out = [f"{paint(_BOLD, where + ':')} {paint(tone, f'{d.severity}[{d.code}]')}: "
           f"{paint(_BOLD, for_terminal(d.message))}"]

    line = _source_line(sources.get(span.path), span.line)
    number = str(span.line)
    pad = " " * len(number) if line is not None else ""
    if line is not None:
        end = span.end_column if span.end_line == span.line else len(line) + 1
        line, first, last = _around(line, span.column - 1, end - 1)
        start = _width(_display(line[:first]))
        carets = "^" * max(_width(_display(line[:last])) - start, 1)
        text = _display(line).rstrip()
        out.append(f"{paint(_GUTTER, f' {number} |')}{' ' + text if text else ''}")
        out.append(f"{paint(_GUTTER, f' {pad} |')} {' ' * start}{paint(tone, carets)}")
    if d.hint:
        out.append(f"{paint(_GUTTER, f' {pad} =')} {paint(_BOLD, 'hint')}: {for_terminal(d.hint)}")
    for note in d.notes:
        out.append(f"{paint(_GUTTER, f' {pad} =')} {paint(_BOLD, 'note')}: {for_terminal(note)}")
    return "\n".join(out)


def render_all(diags: Iterable[Diagnostic], sources: Mapping[str, object],
               color: bool = False) -> str:
    """Every diagnostic in the order given, a blank line apart, then a one-line summary."""
    diags = list(diags)
    blocks = [render_diagnostic(d, sources, color) for d in diags]
    return "\n\n".join(blocks + [summary(diags)]) + "\n"


def summary(diags: Iterable[Diagnostic]) -> str:
    """`2 errors, 1 warning in games/x.cards` (or `in 3 files`)."""
    diags = list(diags)
    if not diags:
        return "no errors"
    errors = sum(d.severity == "error" for d in diags)
    warnings = len(diags) - errors
    counts = [f"{n} {word}{'s' * (n != 1)}" for n, word in ((errors, "error"), (warnings, "warning"))
              if n or (word == "error" and not warnings)]
    paths = sorted({d.span.path for d in diags})
    place = f" in {for_terminal(paths[0])}" if len(paths) == 1 else f" in {len(paths)} files" if paths else ""
    return ", ".join(counts) + place


def _source_line(source: object, number: int) -> str | None:
    """Line `number` as the parser counted it: only '\\n' ends a line (not '\\f' or U+2028)."""
    text = getattr(source, "text", source)
    if not isinstance(text, str) or number < 1:
        return None
    lines = text.split("\n")
    if number > len(lines) or (number == len(lines) and not lines[-1]):
        return None
    return lines[number - 1].rstrip("\r")


def _around(line: str, first: int, last: int) -> tuple[str, int, int]:
    """The part of a long line worth showing: at most SHOWN characters around the span (a
    stranger's file may hold a line of thousands), cut ends marked with '…'. Returns the part and
    the span's first and last character positions in it."""
    if len(line) <= SHOWN:
        return line, first, last
    lo = max(0, min(first - SHOWN // 3, len(line) - SHOWN))
    hi = lo + SHOWN
    head = "…" if lo else ""
    tail = "…" if hi < len(line) else ""
    first = min(max(first - lo, 0), SHOWN)
    last = min(max(last - lo, first + 1), SHOWN)
    return head + line[lo:hi] + tail, first + len(head), last + len(head)


def _display(text: str) -> str:
    """`text` as drawn: tabs expanded, invisible characters made visible (one column each)."""
    out: list[str] = []
    column = 0
    for char in text:
        if char == "\t":
            spaces = TAB_WIDTH - column % TAB_WIDTH
            out.append(" " * spaces)
            column += spaces
            continue
        char = for_terminal(char)       # the one sanitiser; it keeps one column per character
        out.append(char)
        column += _char_width(char)
    return "".join(out)


def _width(text: str) -> int:
    return sum(_char_width(char) for char in text)


def _char_width(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _painter(color: bool):
    if not color:
        return lambda code, text: text
    return lambda code, text: f"{code}{text}{_RESET}"
