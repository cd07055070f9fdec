"""The names and strings of generated Python source (interpreter/blocks.py), read with one regular
expression: what renaming the names of lines pasted into a block looks at (`blocks._renamed`,
`blocks._localized`).
"""
from __future__ import annotations

import re

# The tokens of generated source, one line at a time (a string never spans lines there:
# `repr()` writes them on one): a string literal (with its prefix), a comment, a name, a number
# (so `1e18` is no name), operators and spaces; anything else (`$`, `?`, a quote left open) is a
# character the lines should not hold. `tokenize` read them before, token by token in Python,
# ~5% of building a dealt game's program; this reads them in C.
TOKEN = re.compile(r"""(?P<s>[A-Za-z]{0,2}(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"))"""
                   r"|(?P<c>#.*)|(?P<n>[^\W\d]\w*)|(?P<d>\d[\w.]*)|(?P<o>[-+*/%<>=!&|^~@()\[\]{}:;,. \t]+)"
                   r"|(?P<x>.)")


def tokens(lines: list):
    """[(row, kind, text, start, end)] for the strings and names of `lines` (kind "s" or "n"),
    or None when one holds what `tokenize` would not read as the block's plain tokens: a
    triple-quoted or unterminated string, or a character outside Python's operators."""
    out = []
    for row, line in enumerate(lines):
        if "'''" in line or '"""' in line:
            return None
        for match in TOKEN.finditer(line):
            kind = match.lastgroup
            if kind == "s" or kind == "n":
                out.append((row, kind, match.group(), match.start(), match.end()))
            elif kind == "x":
                return None
    return out


def edited(lines: list, edits: dict) -> list:
    """`lines` with each row's (start, end, text) cuts replaced, right to left."""
    out = list(lines)
    for row, cuts in edits.items():
        line = out[row]
        for start, end, name in reversed(cuts):
            line = line[:start] + name + line[end:]
        out[row] = line
    return out
