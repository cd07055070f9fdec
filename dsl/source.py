"""Source files and spans: every AST node and diagnostic points back into the text."""
from __future__ import annotations

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
