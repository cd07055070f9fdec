"""Source files and spans: every AST node and diagnostic points back into the text."""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Source:
    """A .cards file's text, with the name it is reported under."""

    path: str
    text: str

    def line(self, number: int) -> str:
        """The 1-based line `number`, without its newline ('' past the end).

        Only '\\n' ends a line, as for the parser (Lark): `splitlines()` would also split at
        '\\f', '\\v', U+2028 and friends and point a diagnostic at the wrong line.
        """
        lines = self.text.split("\n")
        return lines[number - 1] if 0 < number <= len(lines) else ""


def normalise_line_ends(text: str) -> str:
    """`text` with CRLF and lone CR line ends turned into LF.

    A file saved with old Mac line ends (CR only) would otherwise be one long line to the
    parser. Each line end stays one character (CRLF loses the CR, at the end of its line), so
    every line and column before it is unchanged.
    """
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


@dataclass(frozen=True, slots=True)
class Span:
    """A region of a source file: 1-based lines and columns, end exclusive."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"

    @property
    def short(self) -> str:
        """`file.cards:12:7` with only the file's base name (used in logs)."""
        return f"{self.path.rsplit('/', 1)[-1]}:{self.line}:{self.column}"


NOWHERE = Span("<builtin>", 0, 0, 0, 0)


# Where a declaration may start: a word in the first column (as the parser's error recovery
# resumes, dsl/parser.py), not inside a triple-quoted text, not after a line ending in a
# backslash (which joins the next line to it). A string or a comment is skipped whole, so a
# '"""' in a comment or a '#' in a text is left alone (the grammar's STRING and COMMENT).
_TEXT_OR_COMMENT = re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*"""|"(?:[^"\\\n]|\\.)*"|#[^\n]*')
_DECLARATION_START = re.compile(r"\n(?=[A-Za-z_])")


def declaration_chunks(text: str) -> list[tuple[int, str]]:
    """`text` cut before each line that may start a declaration: [(its first line, its text)],
    which joined are `text`. Each piece is parsed alone and its AST kept by its text
    (dsl/loader.py, dsl/cache.py), so an edit parses one declaration again; a piece that does
    not parse alone (a line in column 1 inside brackets) makes the whole file parse as one."""
    if '"""' in text:
        inside = [(m.start(), m.end()) for m in _TEXT_OR_COMMENT.finditer(text)
                  if m.group().startswith('"""') and "\n" in m.group()]
    else:
        inside = []
    cuts, k = [0], 0
    started = _DECLARATION_START.match("\n" + text[:1]) is not None
    for m in _DECLARATION_START.finditer(text):
        at = m.end()
        while k < len(inside) and inside[k][1] <= at:
            k += 1
        if k < len(inside) and inside[k][0] < at:
            continue                    # inside a """ text
        if text[text.rfind("\n", 0, at - 1) + 1:at - 1].rstrip(" \t\f").endswith("\\"):
            continue                    # the line before goes on in this one
        if not started:                 # comments and blank lines before the first declaration
            started = True              # go with it
            continue
        cuts.append(at)
    cuts.append(len(text))
    chunks, line = [], 1
    for start, end in zip(cuts, cuts[1:]):
        piece = text[start:end]
        chunks.append((line, piece))
        line += piece.count("\n")
    return chunks
