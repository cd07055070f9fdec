"""The one gate between a game file's text and a terminal.

Card names, `say` texts, the title, prompts and option labels are written by whoever wrote the
game file. Printed raw, `\\x1b[2J` would clear the screen, `\\x1b]0;...\\x07` retitle the window,
a right-to-left override (U+202E) make the rest of the line read backwards, and a newline forge
a log line. Every path that writes game text to a terminal passes it through `for_terminal`
(play's event lines, the human player's view and prompts, results, simulate's summary,
`cardsmith test`, and the diagnostics of `check`).
"""
from __future__ import annotations

import unicodedata

REPLACEMENT = "\N{REPLACEMENT CHARACTER}"


def for_terminal(text: object) -> str:
    """`text` with every character that could steer a terminal replaced by U+FFFD (one column).

    Replaced: C0 and C1 control characters (ESC, BEL, CR, LF, TAB, ...), DEL, format
    characters (bidirectional overrides and isolates, zero-width characters), line and
    paragraph separators, unassigned and private-use code points, surrogates. Other spaces
    (no-break, em, ...) become a plain space; everything printable, combining marks included,
    is kept as it is.
    """
    text = text if isinstance(text, str) else str(text)
    if text.isprintable():
        return text         # the usual case: one C-level scan, no copy
    return "".join(_one(c) for c in text)


def _one(char: str) -> str:
    if char.isprintable():
        return char
    return " " if unicodedata.category(char) == "Zs" else REPLACEMENT
