"""Source files and spans: every AST node and diagnostic points back into the text."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Source:
    """A .cards file's text, with the name it is reported under."""

    path: str
    text: str

    def line(self, number: int) -> str:
        """The 1-based line `number`, without its newline ('' past the end)."""
        lines = self.text.splitlines()
        return lines[number - 1] if 0 < number <= len(lines) else ""


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
