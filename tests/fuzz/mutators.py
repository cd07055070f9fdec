"""Mutations of a game file, driven by a Chooser so the same code serves two drivers.

In the suite a hypothesis `data` object makes every choice (it shrinks a failure towards the
first option of each list, so each list starts with its simplest entry); in the bench a seeded
`random.Random` does (fast, and mutant i of seed S is always the same mutant).

A mutant is one seed file with one to four operations applied:

    bytes        flip, insert or delete bytes; invalid UTF-8, a BOM, CRLF / CR line ends, UTF-16
    tokens       delete, duplicate, swap, replace with a word of the corpus or a grammar keyword
    lines        delete, duplicate, swap, truncate, splice lines of another seed in
    indentation  more, less, none, tabs, tabs mixed with spaces
    numbers      huge, negative, zero, leading zeros, 4,301 and 5,000 digits
    unicode      controls, terminal escapes, bidi, combining marks, astral, line separators
    texts        markup, template syntax, very long texts, escapes
    nesting      deep brackets, long sums, deeply nested blocks
    snippets     statements that make a run expensive: squaring loops, endless loops, x / 0,
                 huge rolls, loops nested over every player
    includes     extends / import of itself, a missing file, a non-.cards file, a folder, a
                 cycle, a long chain, a huge file, a pipe, links out of the folder, odd paths
"""
from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from .corpus import MUTANT_NAME, NUMBER, STRING, TOKEN, Extra, Mutant, Seed, seeds, vocabulary

T = TypeVar("T")


class Chooser(Protocol):
    def integer(self, lo: int, hi: int) -> int: ...


class RandomChooser:
    """Choices from a seeded Random (the bench)."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)


class DataChooser:
    """Choices from hypothesis' `st.data()` (the suite): shrinkable, replayable."""

    def __init__(self, data):
        from hypothesis import strategies as st
        self.data, self.st = data, st

    def integer(self, lo: int, hi: int) -> int:
        return self.data.draw(self.st.integers(lo, hi))


def pick(ch: Chooser, items: Sequence[T]) -> T:
    return items[ch.integer(0, len(items) - 1)]


# ---------------------------------------------------------------- the values mutations insert

NUMBERS = (
    "0", "1", "-1", "2", "-7", "100", "999999", str(10**15), str(10**15 + 1), str(2**31), str(2**63),
    str(10**18 + 1), "9" * 40, "00000000000000000000000000000001", "1" * 4301, "7" * 5000,
)

UNICODE = (
    "\x00", "\x01", "\x07", "\x08", "\x0b", "\x0c", "\r", "\x1b[31m", "\x1b[2J", "\x1b]0;owned\x07",
    "\x7f", "\x85", "\u2028", "\u2029", "\u202e", "\u2066", "\u2069", "\u200f", "\u200b", "\ufeff",
    "\u0301" * 60, "e\u0301", "\U0001f600", "\U0001d518\U0001d52b", "\U0010ffff", "\uffff",
    "\uff41", "\u0430", "\u01c5", "\u0130", "\u3000", "\u00a0", "\ufdfa", "\U00012437", "\t", "\\",
    '"', "\\\n", "#", "\u0000" * 3, "\u200d" * 200,
)

TEXTS = (
    '""', '"x"', '"<script>alert(1)</script>"', '"{{ 7 * 7 }}"', '"{% for x in y %}"',
    '"| a | b |"', '"*x* _y_ `z` [l](javascript:alert(1))"', '"&amp; &lt;"', '"\\\\"', '"\\""',
    '"\\n\\t\\x1b[31m"', '"\x1b[31mred\x1b[0m"', '"\u202eevil"', '"§1.2 §99"', '"a\\u0000b"',
    '"""two\nlines"""', '"' + "x" * 10_001 + '"', '"' + "long " * 30_000 + '"',
    '"' + "\U0001f600" * 5000 + '"', '"digraph { a -> b }"', '"\\"; rankdir=LR; \\""',
)

INCLUDE_KEYWORDS = ("import", "extends")


# ---------------------------------------------------------------- helpers over text

def _spots(pattern, text: str) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(text)]


def _splice(text: str, a: int, b: int, new: str) -> str:
    return text[:a] + new + text[b:]


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True) or [""]


def _other_seed(ch: Chooser) -> Seed:
    return pick(ch, seeds())


# ---------------------------------------------------------------- text operations
# Each takes (chooser, text) and returns (new text, extras to create beside the mutant).

Op = Callable[[Chooser, str], tuple[str, tuple[Extra, ...]]]


def delete_span(ch: Chooser, text: str):
    if not text:
        return text, ()
    a = ch.integer(0, len(text) - 1)
    return text[:a] + text[a + ch.integer(1, 200):], ()


def truncate(ch: Chooser, text: str):
    return text[:ch.integer(0, len(text))], ()


def token_replace(ch: Chooser, text: str):
    spots = _spots(TOKEN, text)
    if not spots:
        return text, ()
    a, b = pick(ch, spots)
    return _splice(text, a, b, pick(ch, vocabulary())), ()


def token_delete(ch: Chooser, text: str):
    spots = _spots(TOKEN, text)
    if not spots:
        return text, ()
    a, b = pick(ch, spots)
    return _splice(text, a, b, ""), ()


def token_duplicate(ch: Chooser, text: str):
    spots = _spots(TOKEN, text)
    if not spots:
        return text, ()
    a, b = pick(ch, spots)
    return _splice(text, a, b, text[a:b] + " " + text[a:b]), ()


def token_swap(ch: Chooser, text: str):
    spots = _spots(TOKEN, text)
    if len(spots) < 2:
        return text, ()
    i = ch.integer(0, len(spots) - 2)
    j = ch.integer(i + 1, min(i + 20, len(spots) - 1))      # nearby tokens: a plausible typo
    (a, b), (c, d) = spots[i], spots[j]
    return text[:a] + text[c:d] + text[b:c] + text[a:b] + text[d:], ()


def line_delete(ch: Chooser, text: str):
    lines = _lines(text)
    i = ch.integer(0, len(lines) - 1)
    return "".join(lines[:i] + lines[i + ch.integer(1, 5):]), ()


def line_duplicate(ch: Chooser, text: str):
    lines = _lines(text)
    i = ch.integer(0, len(lines) - 1)
    copies = pick(ch, (1, 2, 10, 500))
    return "".join(lines[:i + 1] + [lines[i]] * copies + lines[i + 1:]), ()


def line_swap(ch: Chooser, text: str):
    lines = _lines(text)
    i, j = ch.integer(0, len(lines) - 1), ch.integer(0, len(lines) - 1)
    lines[i], lines[j] = lines[j], lines[i]
    return "".join(lines), ()


def line_splice(ch: Chooser, text: str):
    """Lines of another seed, inserted at any line: reaches features this seed does not use."""
    lines, donor = _lines(text), _lines(_other_seed(ch).text)
    at = ch.integer(0, len(lines))
    a = ch.integer(0, len(donor) - 1)
    block = donor[a:a + ch.integer(1, 25)]
    if block and not block[-1].endswith("\n"):
        block[-1] += "\n"
    return "".join(lines[:at] + block + lines[at:]), ()


INDENTS = ("", "    ", "  ", " ", "        ", "\t", "\t    ", "    \t", " " * 200, "\f", "\x0b    ")


def indentation(ch: Chooser, text: str):
    lines = _lines(text)
    i = ch.integer(0, len(lines) - 1)
    body = lines[i].lstrip(" \t")
    how = ch.integer(0, 2)
    if how == 0:                                # replace the indentation
        lines[i] = pick(ch, INDENTS) + body
    elif how == 1:                              # add to it
        lines[i] = pick(ch, INDENTS) + lines[i]
    else:                                       # re-indent a run of lines the same way
        n = ch.integer(1, 30)
        extra = pick(ch, INDENTS)
        lines[i:i + n] = [extra + ln for ln in lines[i:i + n]]
    return "".join(lines), ()


def number(ch: Chooser, text: str):
    spots = _spots(NUMBER, text)
    value = pick(ch, NUMBERS)
    if not spots:
        return text, ()
    a, b = pick(ch, spots)
    return _splice(text, a, b, value), ()


def unicode(ch: Chooser, text: str):
    strings = _spots(STRING, text)
    insert = pick(ch, UNICODE)
    if strings and ch.integer(0, 1):            # inside a text: names, say texts, doc strings
        a, b = pick(ch, strings)
        at = ch.integer(a + 1, b - 1)
    elif ch.integer(0, 1):                      # into a name
        spots = _spots(TOKEN, text)
        a, b = pick(ch, spots) if spots else (0, 0)
        at = ch.integer(a, b)
    else:                                       # anywhere
        at = ch.integer(0, len(text))
    return text[:at] + insert + text[at:], ()


def text_replace(ch: Chooser, text: str):
    spots = _spots(STRING, text)
    if not spots:
        return text, ()
    a, b = pick(ch, spots)
    return _splice(text, a, b, pick(ch, TEXTS)), ()


DEPTHS = (10, 100, 1000, 5000)


def nesting(ch: Chooser, text: str):
    """Deep brackets, long sums, or a statement under many nested blocks."""
    depth = pick(ch, DEPTHS)
    how = ch.integer(0, 3)
    if how < 3:
        spots = _spots(NUMBER, text)
        if not spots:
            return text, ()
        a, b = pick(ch, spots)
        n = text[a:b]
        new = ("(" * depth + n + ")" * depth if how == 0 else
               " + ".join([n] * depth) if how == 1 else
               "-" * depth + n)
        return _splice(text, a, b, new), ()
    lines = _lines(text)
    blocks = [i for i, ln in enumerate(lines) if ln.startswith(" ") and ln.strip()
              and not ln.strip().startswith(("|", "#"))]
    if not blocks:
        return text, ()
    i = pick(ch, blocks)
    indent = lines[i][:len(lines[i]) - len(lines[i].lstrip(" "))]
    depth = min(depth, 1000)                 # 1,000 levels of 4 spaces is a 2 MB line already
    opener = pick(ch, ("if 1 = 1:", "repeat 1 times:", "for each q in players:"))
    nest = [indent + "    " * k + opener + "\n" for k in range(depth)]
    nest.append(indent + "    " * depth + lines[i].lstrip(" "))
    return "".join(lines[:i] + nest + lines[i + 1:]), ()


# Statements a stranger may put in a rule to make the run itself expensive or fail: numbers
# that square themselves, loops past the step bound, a division by zero, huge rolls, nested
# loops over everything, texts that double, deep recursion of a procedure.
SNIPPETS = (
    'say "fuzz"',
    "let fz be 2\nrepeat 80 times:\n    let fz be fz * fz",
    "let fz be 0\nrepeat 10000000 times:\n    let fz be fz + 1",
    "let fz be 1 / 0",
    "let fz be 10 / (1 - 1)",
    "let fz be -9223372036854775808 * 1000",
    "repeat:\n    let fz be 1",
    "repeat while 1 = 1:\n    let fz be 1",
    "for each fa in players:\n    for each fb in players:\n        for each fc in players:\n            let fz be 1",
    "roll 1000000000 D6 dice as fr",
    "roll -5 D6 dice as fr",
    "let fz be count(players) * 99999999999999999",
    'say "\x1b[2J\u202e"',
)


def snippet(ch: Chooser, text: str):
    """A statement of SNIPPETS, indented like the rule line it goes before."""
    lines = _lines(text)
    body = [i for i, ln in enumerate(lines) if ln.startswith(" ") and ln.strip()
            and not ln.strip().startswith(("|", "#", '"'))]
    if not body:
        return text, ()
    i = pick(ch, body)
    indent = lines[i][:len(lines[i]) - len(lines[i].lstrip(" "))]
    block = "".join(indent + ln + "\n" for ln in pick(ch, SNIPPETS).split("\n"))
    return "".join(lines[:i] + [block] + lines[i:]), ()


# ---------------------------------------------------------------- includes

def _include_line(ch: Chooser, target: str) -> str:
    return f'{pick(ch, INCLUDE_KEYWORDS)} "{target}"\n'


def _chain(ch: Chooser, length: int) -> tuple[str, tuple[Extra, ...]]:
    """chain_0 imports chain_1 ... imports chain_{n-1}, which holds a small valid fragment."""
    kw = pick(ch, INCLUDE_KEYWORDS)
    files = tuple(Extra(f"chain_{k}.cards", f'{kw} "chain_{k + 1}.cards"\n'.encode()) for k in range(length))
    files += (Extra(f"chain_{length}.cards", b"enum Shade: light, dark\n"),)
    return "chain_0.cards", files


def _include_target(ch: Chooser) -> tuple[str, tuple[Extra, ...]]:
    how = ch.integer(0, 21)
    if how == 0:
        return MUTANT_NAME, ()                                       # itself
    if how == 1:
        return "missing.cards", ()
    if how == 2:
        return "notes.txt", (Extra("notes.txt", b"just some notes, not rules\n"),)
    if how == 3:
        return "cycle.cards", (Extra("cycle.cards", f'import "{MUTANT_NAME}"\n'.encode()),)
    if how == 4:
        return _chain(ch, pick(ch, (3, 9, 70)))
    if how == 5:
        return "sub", (Extra("sub", kind="dir"),)                     # a folder
    if how == 6:
        return "pipe.cards", (Extra("pipe.cards", kind="fifo"),)      # would block a reader
    if how == 7:
        return "zero.cards", (Extra("zero.cards", kind="symlink", target="/dev/zero"),)
    if how == 8:
        return "passwd.cards", (Extra("passwd.cards", kind="symlink", target="/etc/passwd"),)
    if how == 9:
        return "../outside.cards", ()
    if how == 10:
        return pick(ch, ("/dev/zero", "/etc/passwd", "/proc/self/environ", "/dev/stdin")), ()
    if how == 11:
        return "big.cards", (Extra("big.cards", b"# padding\n" * 210_000),)   # over 2 MB
    if how == 12:
        return "latin1.cards", (Extra("latin1.cards", 'enum Caf\xe9: a, b\n'.encode("latin-1")),)
    if how == 13:
        donor = _other_seed(ch)                                      # a real game, mutated
        text, _ = pick(ch, TEXT_OPS)(ch, donor.text)
        return "sub/inner.cards", (Extra("sub/inner.cards", text.encode("utf-8", "surrogatepass")),)
    if how == 14:
        return pick(ch, ("", ".", "./", "sub/..", "mutant.cards/", "~/x.cards", "file:///etc/passwd",
                         "a" * 300 + ".cards", "nul\\x00.cards", "C:\\\\x.cards", "*.cards")), ()
    if how == 15:
        return "self_link.cards", (Extra("self_link.cards", kind="symlink", target=MUTANT_NAME),)
    if how == 16:
        return "loop_link.cards", (Extra("loop_link.cards", kind="symlink", target="loop_link.cards"),)
    if how == 17:
        return "empty.cards", (Extra("empty.cards", b""),)
    if how == 18:
        return "binary.cards", (Extra("binary.cards", bytes(range(256)) * 4),)
    if how == 19:
        base = _other_seed(ch)
        return base.name.rsplit("/", 1)[-1], ()                      # another seed, whole
    if how == 20:
        return "big_lines.cards", (Extra("big_lines.cards", b"enum E: " + b", ".join(
            b"v%d" % k for k in range(200_000)) + b"\n"),)
    return "deep/" * 40 + "x.cards", ()


def include(ch: Chooser, text: str):
    target, extra = _include_target(ch)
    line = _include_line(ch, target)
    lines = _lines(text)
    at = 0 if ch.integer(0, 2) else ch.integer(0, len(lines))   # usually first, as designers write it
    return "".join(lines[:at] + [line] + lines[at:]), extra


TEXT_OPS: tuple[Op, ...] = (
    token_replace, token_delete, line_delete, line_duplicate, delete_span, token_duplicate,
    token_swap, line_swap, line_splice, truncate, indentation, number, unicode, text_replace,
    nesting, include, snippet,
)


# Operations that usually leave a file valid, given twice the weight: a valid mutant is played,
# tested and published, so they carry the campaign past the checker into the runtime.
WEIGHTED_OPS: tuple[Op, ...] = TEXT_OPS + (number, text_replace, unicode, line_duplicate, line_delete, number,
                                           snippet)


# ---------------------------------------------------------------- byte operations (last)

BAD_BYTES = (b"\xff", b"\x80", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf", b"\x00")


def byte_op(ch: Chooser, data: bytes) -> tuple[str, bytes]:
    how = ch.integer(0, 6)
    if how == 0 and data:
        i = ch.integer(0, len(data) - 1)
        return "byte_flip", data[:i] + bytes([data[i] ^ (1 << ch.integer(0, 7))]) + data[i + 1:]
    if how == 1:
        i = ch.integer(0, len(data))
        return "byte_insert", data[:i] + pick(ch, BAD_BYTES) + data[i:]
    if how == 2 and data:
        i = ch.integer(0, len(data) - 1)
        return "byte_delete", data[:i] + data[i + ch.integer(1, 4):]
    if how == 3:
        return "bom", b"\xef\xbb\xbf" + data
    if how == 4:
        return "crlf", data.replace(b"\n", b"\r\n")
    if how == 5:
        return "cr", data.replace(b"\n", b"\r")
    return "utf16", data.decode("utf-8", "replace").encode("utf-16")


# ---------------------------------------------------------------- a whole mutant

def mutate(ch: Chooser, base: Seed | None = None) -> Mutant:
    """One mutant: a seed, one to four text operations, and now and then a byte operation."""
    base = base or pick(ch, seeds())
    text, extras, ops = base.text, (), []
    for _ in range(pick(ch, (1, 1, 1, 2, 2, 3, 4))):
        op = pick(ch, WEIGHTED_OPS)
        text, more = op(ch, text)
        extras += more
        ops.append(op.__name__)
    data = text.encode("utf-8", "surrogatepass")
    if ch.integer(0, 9) == 0:
        name, data = byte_op(ch, data)
        ops.append(name)
    return Mutant(base.name, data, tuple(ops), _unique(extras))


def _unique(extras: tuple[Extra, ...]) -> tuple[Extra, ...]:
    seen, out = set(), []
    for e in extras:
        if e.name not in seen:
            seen.add(e.name)
            out.append(e)
    return tuple(out)


def mutant_at(campaign_seed: int, index: int) -> Mutant:
    """Mutant `index` of the bench campaign `campaign_seed`: the same on any machine, any --jobs."""
    return mutate(RandomChooser(random.Random(f"{campaign_seed}:{index}")))
