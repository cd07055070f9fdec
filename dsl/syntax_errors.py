"""Friendly syntax errors: a Lark failure becomes a Diagnostic in a designer's words.

Most codes come from TABLE, a list of malformed examples matched against the failing
parser state with Lark's `UnexpectedInput.match_examples`:

    let x = 3          →  E0005 'let' gives a name its value with 'be', not '='

A few are recognised from the failure itself (an indented line nobody expected, an
unclosed quote or bracket, a character that is no part of the language); their
examples are in the same table, marked `by_state=False`, so the test suite runs every one.
Whatever is left gets E0019, which names what was found and what could have come there.
"""
from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass
from typing import Callable

from lark import Token
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from .diagnostics import Diagnostic
from .source import Span

DECLARATION_STARTS = (
    "game", "enum", "card type", "card", "cards", "zone", "player has", "game has", "die",
    "event", "define", "procedure", "keyword", "setup", "round", "as soon as",
    "order simultaneous triggers", "response window", "stack", "rule", "interpretation", "term", "credit",
    "import", "extends", "override", "scenario",
)


class IndentationProblem(Exception):
    """Raised by the parser's indenter, which knows the line; explained below as E0008/E0009."""

    def __init__(self, kind: str, line: int, width: int, indent: int = 0,
                 levels: tuple[int, ...] = (), style: str = " ", other_line: int = 0):
        super().__init__(f"{kind} indentation on line {line}")
        self.kind, self.line, self.width = kind, line, width
        self.indent, self.levels, self.style, self.other_line = indent, levels, style, other_line


@dataclass(frozen=True)
class Problem:
    code: str
    message: str        # may use {found} (what the parser met) and {expected}
    hint: str
    examples: tuple[str, ...]
    by_state: bool = True          # False: recognised by a rule in explain(), not by state
    notes: tuple[str, ...] = ()


TABLE: tuple[Problem, ...] = (
    Problem("E0001", "expected ':' at the end of this line to open a block",
            "a line followed by an indented block ends with ':'", (
                'game "Duel"\n    players: 2 to 2\n',
                'setup\n    stop\n',
                'round "Turn"\n    stop\n',
                'setup:\n    step "Draw"\n        stop\n',
                'setup:\n    if x\n        stop\n',
                'setup:\n    for each p in players\n        stop\n',
                'card type Unit\n    power: number\n',
                'procedure deal()\n    stop\n',
                'as soon as players is empty\n    stop\n',
            )),
    Problem("E0002", "this table row is missing its closing '|'",
            "end every row of a card table with '|', like:  | \"Scout\" | 1 |", (
                'cards Unit in box:\n    | name | power |\n    | "Scout" | 1\n',
                'cards Unit in box:\n    | name | power\n    | "Scout" | 1 |\n',
            )),
    Problem("E0003", "this quoted text is never closed",
            'add the closing " before the end of the line; text over several lines goes '
            'between """ and """', (
                'setup:\n    say "hello\n',
                'event start "The game begins\n',
                'rule "Dealing":\n    """Deal seven cards.\n',
                '"""A game for two.\n\ngame "Duel":\n    players: 2 to 2\n',
            ), by_state=False),
    Problem("E0004", "'move' needs 'to' and a place: move <cards> to <zone>",
            "for example:  move top card of your deck to your hand", (
                'setup:\n    move x\n',
                'setup:\n    move top card of your deck\n',
                'setup:\n    move cards in p\'s hand into p\'s deck\n',
            )),
    Problem("E0005", "'let' gives a name its value with 'be', not {found}",
            "write it as:  let total be 3", (
                'setup:\n    let x = 3\n',
                'setup:\n    let x to 3\n',
            )),
    Problem("E0006", "'if' needs a condition before the ':'",
            "for example:  if your deck is empty:", (
                'setup:\n    if:\n        stop\n',
                'setup:\n    if yes:\n        stop\n    else if:\n        stop\n',
            )),
    Problem("E0007", "this line is indented, but nothing above it opens a block",
            "line it up with the line above, or end the line above with ':' to open a block", (
                'setup:\n    stop\n        stop\n',
                'enum Side: up, down\n    enum Suit: red, black\n',
            ), by_state=False),
    Problem("E0008", "this line's indentation doesn't line up with any block above it",
            "indent it like the lines of the block it belongs to", (
                'setup:\n        stop\n    stop\n',
                'round "R":\n    step "S":\n        stop\n      stop\n',
            ), by_state=False),
    Problem("E0009", "this line's indentation mixes tabs and spaces",
            "indent with spaces only (4 per level); most editors can turn tabs into spaces", (
                'setup:\n    stop\n\tstop\n',
                'setup:\n \tstop\n',
            ), by_state=False),
    Problem("E0010", "{found} can't start a declaration",
            "a declaration starts with a word such as 'card', 'zone' or 'procedure'", (
                'frobnicate x\n',
                '\nfrobnicate x\n',
                'enum Side: up, down\nfrobnicate x\n',
                '\nenum Side: up, down\nfrobnicate x\n',
                'setup:\n    stop\nfrobnicate x\n',
                'setup:\n    stop\nmove x to y\n',
            ), notes=("these words can start a declaration: " + ", ".join(DECLARATION_STARTS),)),
    Problem("E0011", "expected an indented block below this line",
            "put the lines that belong to it below, indented by 4 spaces", (
                'setup:\nstop\n',
                'game "Duel":\n',
                'setup:\n    repeat:\n    stop\n',
            ), by_state=False),
    Problem("E0012", "this {found} is never closed",
            "close it on the same line (a line break inside brackets does not end the line)", (
                'setup:\n    foo(1, 2\n    stop\n',
                'die d2: [a, b\nenum Side: up, down\n',
            ), by_state=False),
    Problem("E0013", "this {found} has no matching opening bracket",
            "remove it, or add the opening bracket it closes", (
                'setup:\n    foo(1, 2))\n',
                'define total() as 3)\n',
            ), by_state=False),
    Problem("E0014", "{found} can't be used here",
            "remove it, or put it inside quoted text", (
                'setup:\n    say "hi" @\n',
                'enum Colour: red, grün\n',
                'setup:\n    say \'hello\'\n',
            ), by_state=False),
    Problem("E0015", "'set' needs 'to': set <what> to <value>",
            "for example:  set your score to 0   ('=' compares two values)", (
                'setup:\n    set x = 3\n',
                'setup:\n    set p\'s bonus = 0\n',
            )),
    Problem("E0016", "a procedure or a definition needs brackets after its name, even empty ones",
            "for example:  procedure deal():   or   define total(p) as p's score", (
                'procedure deal:\n    stop\n',
                'define total as 3\n',
            )),
    Problem("E0017", "the file ends before this is complete",
            "expected {expected}", (
                'cards Unit in box:\n    | name | power |\n',
                'cards Unit in box:\n    | name | power |\n# no rows yet\n',
            ), by_state=False),
    Problem("E0018", "a card's first line doesn't end with ':'",
            'write:  card "Scout": Unit in deck   with its fields on the indented lines below', (
                'card "Scout": Unit in deck:\n    power = 1\n',
            )),
    Problem("E0019", "{found} isn't expected here",
            "expected {expected}", (
                'zone deck: per player, shuffled\n',
                'enum Side up, down\n',
                'setup:\n    move x to\n',
                'enum Side:\n',
            ), by_state=False),
    Problem("E0020", "compare with a single '=', not '=='",
            "for example:  if count(p's hand) = 0:", (
                'setup:\n    if x == 3:\n        stop\n',
                'define empty(p) as count(p\'s deck) == 0\n',
            )),
    # Recognised by renaming the word before the failure: if the parser then gets further, the
    # word was meant as a name (_reserved_word).
    Problem("E0021", "{found} is a word of the language, so it can't be used as a name here",
            "choose another name, such as {expected}", (
                'card type Unit:\n    text: text\n',
                'card type Unit:\n    when: number\n',
                'card "Scout": Unit in deck\n    when = 1\n',
                'define early(p) as seat < 3\n',
                'setup:\n    let n be count(cards) + 1\n',
                'setup:\n    let top be 3\n    let y be top + 1\n',
            ), by_state=False,
            notes=("the words of the language are listed in docs/language.md, 'Words of the language'",)),
    Problem("E0022", "{found} without parameters is written without brackets",
            "write:  {expected}", (
                'keyword Swift():\n    "Moves first."\n',
                'card type Unit:\n    keyword Swift()\n',
                'event tick()\n',
            ), by_state=False),
)
PROBLEMS = {p.code: p for p in TABLE}
INTERNAL = Problem("E0000", "the parser failed unexpectedly on this file ({found})",
                   "this is a bug in cardsmith, not in your file: please report it", ())

_DECLARATION_TERMINALS = {"GAME", "ENUM", "ZONE", "PROCEDURE", "SETUP", "SCENARIO"}
_BY_STATE = [(p.code, p.examples) for p in TABLE if p.by_state]
# Spelled as written, not by terminal name: Lark numbers anonymous terminals (__ANON_3)
# in grammar order.
_EXPRESSION_STARTS = {"NAME", "INT", "STRING", "(", "[", "-", "not", "yes", "no", "none", "this",
                      "you", "players", "all", "opponents", "every", "the", "your", "cards",
                      "top", "bottom", "seat"}
_OPERATORS = {"and", "or", "is", "=", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", ".", "'s",
              "of"}
_WORDS = {"_NL": "the end of the line", "_INDENT": "an indented block",
          "_DEDENT": "the end of the block", "$END": "the end of the file", "NAME": "a name",
          "STRING": "a quoted text", "INT": "a number"}
_FOUND = {"_NL": "the end of the line", "_INDENT": "an indented line",
          "_DEDENT": "the end of the block", "$END": "the end of the file"}
_CHAR_HINTS = {
    "'": 'quoted text uses double quotes: "like this"',
    ";": "end a statement by ending the line, not with ';'",
    "{": "blocks are made by indenting the lines below a line ending in ':'",
    "}": "blocks are made by indenting the lines below a line ending in ':'",
    "&": "write 'and' or 'or' in words",
    "!": "write 'not' in words ('!=' means 'is not equal to')",
    "\u201c": 'use straight double quotes (") around text, not curly ones',
    "\u201d": 'use straight double quotes (") around text, not curly ones',
    "\u00a0": "this is a non-breaking space: replace it with an ordinary space",
    "\r": "this line break is not followed by a newline: save the file with ordinary line ends",
}


class _StateKey:
    """A parser state that compares by LALR state only, not by stack depth.

    Lark's ParserState equality includes the depth, so an example written at the top
    level would never match the same mistake made inside a block.
    """

    __slots__ = ("position",)

    def __init__(self, state):
        self.position = getattr(state, "position", state)

    def __eq__(self, other) -> bool:
        return isinstance(other, _StateKey) and self.position == other.position

    __hash__ = None


def explain(error: BaseException, text: str, path: str,
            parse_example: Callable[[str], object], open_brackets: list[Token],
            parser) -> Diagnostic:
    """The Diagnostic for `error`, raised while parsing `text` (as Lark saw it)."""
    try:
        return _explain(error, _Text(text, path), parse_example, open_brackets, parser)
    except Exception as failure:  # explaining must not turn one error into a crash
        here = _Text(text, path)
        return _diagnostic(INTERNAL, here.end_of_file(), found=type(failure).__name__)


def error_line(error: BaseException, text: str) -> int:
    """The last line that belongs to the broken part; parsing may resume after it."""
    if isinstance(error, IndentationProblem):
        return error.line
    if isinstance(error, UnexpectedCharacters):
        return error.line
    token = getattr(error, "token", None)
    if not isinstance(error, UnexpectedToken) or token is None or token.type == "$END":
        return text.count("\n") + 1
    if token.type in ("_NL", "_DEDENT"):
        return token.line
    if token.type == "_INDENT":
        return token.end_line
    return token.line - 1 if token.column == 1 else token.end_line


# ---------------------------------------------------------------- classification

def _explain(error, here: "_Text", parse_example, open_brackets, parser) -> Diagnostic:
    if isinstance(error, IndentationProblem):
        return _indentation(error, here)
    if isinstance(error, UnexpectedCharacters):
        return _characters(error, here, open_brackets)
    if isinstance(error, UnexpectedEOF):
        return _diagnostic(PROBLEMS["E0017"], here.end_of_file())
    if not isinstance(error, UnexpectedToken):
        return _diagnostic(INTERNAL, here.end_of_file(), found=type(error).__name__)

    token = error.token
    if _unclosed_triple_quote(token, here):
        span = here.span(token.line, token.column, len(here.line(token.line).rstrip()) + 1)
        return _diagnostic(PROBLEMS["E0003"], span, hint='close it with """')
    expected = _expected(error)
    words = _describe_expected(expected, parser)
    if open_brackets and (token.type in ("$END", "_DEDENT", "_INDENT")
                          or here.starts_later_line(token.line, token.column, open_brackets[-1])):
        return _bracket(PROBLEMS["E0012"], open_brackets[-1], here)
    given = _named_by_let(here, parser, token.line)
    if given is not None:
        return given
    reserved = _reserved_word(token, here, parser) or _reserved_here(token, here, parser, expected)
    if reserved is not None:
        return reserved
    bound = _range_bound(token, here, parser)
    if bound is not None:
        return bound
    if token.type == "RPAR":
        empty = _empty_brackets(token, here)
        if empty is not None:
            return empty
    if token.type in ("RPAR", "RSQB"):
        return _bracket(PROBLEMS["E0013"], token, here)
    if token.type == "_INDENT":
        return _diagnostic(PROBLEMS["E0007"], here.token_span(token))
    if expected == {"_INDENT"}:
        below = 0 if here.is_end(token) else here.token_span(token).line
        return _diagnostic(PROBLEMS["E0011"], here.end_of_code_before(below))
    code = _match(error, parse_example)
    if code is None and _DECLARATION_TERMINALS <= expected and token.column == 1:
        code = "E0010"
    if code is not None:
        return _diagnostic(PROBLEMS[code], here.token_span(token),
                           found=_describe_token(token), expected=words,
                           hint=_declaration_hint(token) if code == "E0010" else None)
    span = here.token_span(token)
    if here.is_end(token):
        return _diagnostic(PROBLEMS["E0017"], span, expected=words)
    if token.type == "_NL" and "COLON" in expected:
        return _diagnostic(PROBLEMS["E0001"], span)
    message = {"_NL": "this line ends too early",
               "_DEDENT": "this block ends too early"}.get(token.type)
    return _diagnostic(PROBLEMS["E0019"], span, found=_describe_token(token), expected=words,
                       message=message)


def _unclosed_triple_quote(token: Token, here: "_Text") -> bool:
    """Is `token` the start of a triple quote that is never closed?

    A closed triple-quoted text is one STRING token; an unclosed one is lexed as the empty
    text "" followed by a third quote. Where no text may stand (before a declaration) the
    parser fails on that "" and would report it as a word that cannot start a declaration."""
    end = getattr(token, "end_pos", None)
    return (token.type == "STRING" and str(token) == '""' and end is not None
            and here.text[end:end + 1] == '"')


# A name to offer instead of a word of the language (else the word with '_no' after it).
_OTHER_NAMES = {"seat": "seat_no", "text": "card_text", "when": "timing", "type": "kind",
                "cost": "price", "turn": "turn_no", "round": "round_no", "step": "step_no",
                "player": "owner_seat", "card": "the_card", "cards": "pile", "order": "rank",
                "time": "moment", "action": "act", "top": "upper", "bottom": "lower",
                "first": "leader", "all": "every_one", "the": "that",
                # words a designer reaches for as a resource, a counter or a pile
                "orders": "commands", "rounds": "rounds_played", "others": "the_rest",
                "items": "goods", "item": "good", "groups": "teams", "group": "team", "pool": "reserve",
                "dice": "rolled", "left": "remaining", "right": "right_side", "end": "finish",
                "path": "route", "links": "routes", "value": "worth", "values": "worths", "score": "points",
                "number": "amount", "numbers": "amounts", "counts": "tally", "moment": "instant",
                "place": "spot", "places": "spots", "position": "spot", "win": "victory", "wins": "victories",
                "target": "aim", "stack": "heap", "face": "side", "back": "reverse", "best": "finest",
                "list": "lineup", "seats": "chairs", "once": "once_used", "window": "chance"}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _words_of(parser) -> frozenset[str]:
    """The words the grammar spells out ("move", "seat", ...): a name cannot be one of them
    where the grammar expects the word."""
    return frozenset(t.pattern.value for t in getattr(parser, "terminals", ())
                     if t.pattern.type == "str" and _NAME.fullmatch(t.pattern.value))


def _reserved_word(token: Token, here: "_Text", parser) -> Diagnostic | None:
    """E0021 when the word just before the failing token is a word of the language that was
    meant as a name: `seat < 3`, a field `text: number`, a card's `when = 1`.

    The test is the parser's own: the word is renamed (same length, so positions stay) and the
    declaration parsed again; if the parser now gets past the failing token, the word was the
    mistake. Only the lines of the declaration up to the failure are parsed again."""
    if token.type in ("$END", "_DEDENT", "_INDENT") or parser is None:
        return None
    line = here.line(token.line)
    before = line[:max(token.column - 1, 0)].rstrip(" \t")
    if before.endswith(":"):        # a field `text: number`: `text:` opens a card's text
        before = before[:-1].rstrip(" \t")
    start = len(before)
    while start > 0 and (before[start - 1].isalnum() or before[start - 1] == "_"):
        start -= 1
    word = before[start:]
    if not word or word not in _words_of(parser) or (start and before[start - 1] in "\"'"):
        return None
    if not _parses_renamed(token, here, parser, line, start, word):
        return None
    other = _OTHER_NAMES.get(word, f"{word}_no")
    return _diagnostic(PROBLEMS["E0021"], here.span(token.line, start + 1, start + 1 + len(word)),
                       found=f"'{word}'", expected=f"'{other}'")


def _parses_renamed(token: Token, here: "_Text", parser, line: str, start: int, word: str) -> bool:
    """Does the declaration parse past the failing token once `word` (at `start` of the token's
    line) is renamed? Then the word of the language was the mistake, not what follows it."""
    first = token.line
    while first > 1 and not re.match(r"[A-Za-z_]", here.line(first)):
        first -= 1
    renamed = line[:start] + "_" + word[1:] + line[start + len(word):]
    text = "\n" * (first - 1) + "\n".join(here.lines[first - 1:token.line - 1] + [renamed]) + "\n"
    try:
        parser.parse(text)
    except UnexpectedInput as failure:
        at = (getattr(failure, "line", 0), getattr(failure, "column", 0))
        end = getattr(getattr(failure, "token", None), "type", None) in ("$END", "_DEDENT")
        if not end and not isinstance(failure, UnexpectedEOF) and at <= (token.line, token.column):
            return False
    except (IndentationProblem, LarkError):     # no sign that the word was the mistake
        return False
    return True


def _reserved_here(token: Token, here: "_Text", parser, expected: set) -> Diagnostic | None:
    """E0021 when the failing token is itself a word of the language where a name is expected:
    `cost: pay 1 orders` for an attribute named `orders` (a name the grammar takes elsewhere, as
    `player has: orders: number`, but reads as its word here). The test is the parser's, as in
    `_reserved_word`: renamed, the declaration parses past it."""
    word = str(token)
    if parser is None or "NAME" not in expected or token.type == "NAME" or word not in _words_of(parser):
        return None
    line = here.line(token.line)
    start = token.column - 1
    if line[start:start + len(word)] != word:
        return None
    if not _parses_renamed(token, here, parser, line, start, word):
        return None
    other = _OTHER_NAMES.get(word, f"{word}_no")
    return _diagnostic(PROBLEMS["E0021"], here.span(token.line, token.column, token.column + len(word)),
                       found=f"'{word}'", expected=f"'{other}'",
                       hint=f"choose another name, such as '{other}', here and where '{word}' is declared")


# `numbers from 0 to p's supply`, `random number from 1 to your dice`: a bound of a range is one number,
# name or bracketed expression (grammar: `"numbers" "from" atom "to" atom`)
_RANGE = re.compile(r"\b(?:numbers|random\s+number)\s+from\s+")


def _range_bound(token: Token, here: "_Text", parser) -> Diagnostic | None:
    """E0019 that says to bracket a bound of `numbers from a to b` (or `random number from a to b`)
    when the parser fails inside it: `numbers from 0 to p's supply` fails at the `'s`. The test is
    the parser's: with the bound in brackets, the declaration parses past it."""
    if parser is None:
        return None
    line = here.line(token.line)
    at = token.column - 1
    starts = [m for m in _RANGE.finditer(_code_only(line)) if m.end() <= at]
    if not starts:
        return None
    opening = starts[-1]
    head = opening.group(0).split()[0]
    rest = line[opening.end():]
    # the two bounds: up to " to ", then up to what ends the expression (a comma, a colon, the end)
    low_text, sep, _ = rest.partition(" to ")
    low_at = opening.end()
    high_at = low_at + len(low_text) + len(sep)
    which, start = ("to", high_at) if sep and at >= high_at else ("from", low_at)
    if which == "from" and sep and at >= low_at + len(low_text):
        return None             # the failure is at `to` itself: not a bound
    end, depth = start, 0
    while end < len(line):
        ch = line[end]
        if ch in "([":
            depth += 1
        elif ch in ")]":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and (ch in ",:#" or (which == "from" and line.startswith(" to ", end))):
            break
        end += 1
    bound = line[start:end].rstrip()
    if not bound or at >= start + len(bound) or bound.startswith("(") or " " not in bound and "'" not in bound \
            and "." not in bound:
        return None
    bracketed = line[:start] + f"({bound})" + line[start + len(bound):]
    first_line = token.line
    while first_line > 1 and not re.match(r"[A-Za-z_]", here.line(first_line)):
        first_line -= 1
    text = "\n" * (first_line - 1) + "\n".join(here.lines[first_line - 1:token.line - 1] + [bracketed]) + "\n"
    try:
        parser.parse(text)
    except UnexpectedInput as failure:
        failed = (getattr(failure, "line", 0), getattr(failure, "column", 0))
        end = getattr(getattr(failure, "token", None), "type", None) in ("$END", "_DEDENT")
        if not end and not isinstance(failure, UnexpectedEOF) and failed <= (token.line, start + len(bound) + 2):
            return None
    except (IndentationProblem, LarkError):
        return None
    first = f"({bound})" if which == "from" else low_text.strip()
    second = f"({bound})" if which == "to" else line[high_at:].split(",")[0].split(":")[0].strip() if sep else "..."
    word = "random number" if head == "random" else "numbers"
    return _diagnostic(PROBLEMS["E0019"], here.span(token.line, start + 1, start + 1 + len(bound)),
                       message=f"'{bound}' needs brackets here: each bound of '{word} from ... to ...' is one "
                               "number or name, or an expression in brackets",
                       hint=f"write:  {word} from {first} to {second}")


# `let top be ...`, `for each top in ...`, `p chooses top from ...`: where a rule gives a value a name
_GIVES_NAME = re.compile(r"\b(?:let\s+([A-Za-z_]\w*)\s+be|for\s+each\s+([A-Za-z_]\w*)\s+in|"
                         r"chooses\s+([A-Za-z_]\w*)\s+from)\b")
_unreadable: dict[int, frozenset[str]] = {}


def unreadable_names(parser) -> frozenset[str]:
    """The words of the language that, given as a name (`let top be 3`), cannot be read back as
    that name: where an expression starts, the grammar reads them as the word (`top card of`,
    `seat 1`, `players`). Found by the parser itself, once per parser: `let x be <word>` must
    parse to a bare name."""
    key = id(parser)
    if key not in _unreadable:
        out = set()
        for word in _words_of(parser):
            try:
                tree = parser.parse(f"setup:\n    let x be {word}\n")
            except Exception:       # noqa: BLE001 - any failure means the word cannot stand there
                out.add(word)
                continue
            lets = list(tree.find_data("let_stmt"))
            value = lets[0].children[1] if lets and len(lets[0].children) > 1 else None
            while hasattr(value, "children") and len(value.children) == 1 and value.data != "name":
                value = value.children[0]       # or_chain > and_chain > arith > ... > name
            if getattr(value, "data", None) != "name":
                out.add(word)
        _unreadable[key] = frozenset(out)
    return _unreadable[key]


# Quoted texts (triple-quoted too) and comments: no rule is written inside them
_TEXT_OR_COMMENT = re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*"""|"(?:[^"\\\n]|\\.)*"|#[^\n]*')


def _code_only(text: str) -> str:
    """`text` with its quoted texts and comments blanked (lines and columns kept)."""
    return _TEXT_OR_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def names_given(text: str, parser, words=None) -> list[tuple[int, int, str]]:
    """(line, column, word) of every `let` / `for each` / `chooses` name in `text` that is a word of
    the language no expression can read back (`unreadable_names`); quoted texts and comments are
    not looked at ("Each player chooses cards from their hand")."""
    found = []
    if "let" not in text and "each" not in text and "chooses" not in text:
        return found
    for number, line in enumerate(_code_only(text).split("\n"), 1):
        if "let" not in line and "each" not in line and "chooses" not in line:
            continue
        for match in _GIVES_NAME.finditer(line):
            group = next(g for g in (1, 2, 3) if match.group(g) is not None)
            word = match.group(group)
            if words is None:
                words = _words_of(parser)
            if word in words and word in unreadable_names(parser):
                found.append((number, match.start(group) + 1, word))
    return found


def reserved_name(line: int, column: int, word: str, path: str, text: str) -> Diagnostic:
    """E0021 at the name a `let` (or `for each`, `chooses`) gives, when it is a word of the language."""
    other = _OTHER_NAMES.get(word, f"{word}_no")
    return _diagnostic(PROBLEMS["E0021"], _Text(text, path).span(line, column, column + len(word)),
                       found=f"'{word}'", expected=f"'{other}'",
                       message=f"'{word}' is a word of the language, so it can't name a value: "
                               f"where the rules read '{word}' they read the word, not this value")


def _named_by_let(here: "_Text", parser, upto: int) -> Diagnostic | None:
    """E0021 at `let top be ...` when a later line fails where it reads `top`: the mistake is the
    name, not the line that stumbles on it."""
    if parser is None:
        return None
    failing = here.line(upto)
    for line, column, word in names_given("\n".join(here.lines[:upto]), parser):
        if re.search(rf"\b{re.escape(word)}\b", failing):
            return reserved_name(line, column, word, here.path, here.text)
    return None


_EMPTY_BRACKETS = re.compile(r"\s*(keyword|event)\s+([A-Za-z_]\w*)\s*\(\s*\)\s*(:?)")


def _empty_brackets(token: Token, here: "_Text") -> Diagnostic | None:
    """E0022 for `keyword Swift():` or `event tick()`: only procedures and definitions take
    empty brackets (E0016 says so the other way round)."""
    match = _EMPTY_BRACKETS.match(here.line(token.line))
    if match is None or match.end(0) < token.column or match.start(2) > token.column:
        return None
    what, name, colon = match.groups()
    if what == "event":
        write = f"event {name}"
    elif colon:
        write = f"keyword {name}:   (and give it to a card with:  keyword {name})"
    else:
        write = f"keyword {name}"
    span = here.span(token.line, match.start(2) + 1, token.column + 1)
    return _diagnostic(PROBLEMS["E0022"], span, found="an event" if what == "event" else "a keyword",
                       expected=write)


def _match(error: UnexpectedInput, parse_example) -> str | None:
    def keyed(example: str) -> None:
        try:
            parse_example(example)
        except UnexpectedInput as failure:
            failure.state = _StateKey(failure.state)
            raise

    original = getattr(error, "state", None)
    if original is None:
        return None
    error.state = _StateKey(original)
    try:
        return error.match_examples(keyed, _BY_STATE, token_type_match_fallback=True)
    finally:
        error.state = original


def _indentation(error: IndentationProblem, here: "_Text") -> Diagnostic:
    span = here.first_word(error.line)
    if error.kind == "dedent":
        unit = "tab" if error.style == "\t" else "space"
        steps = [level // 4 if unit == "tab" else level for level in error.levels]
        hint = ("indent it like the lines of the block it belongs to: by "
                + _join_or([f"{n}" for n in steps]) + f" {unit}s")
        return _diagnostic(PROBLEMS["E0008"], span, hint=hint)
    if error.kind == "inconsistent":
        kind = "tabs" if error.style == "\t" else "spaces"
        return _diagnostic(PROBLEMS["E0009"], span,
                           message=f"this line's indentation mixes tabs and spaces "
                                   f"(line {error.other_line} is indented with {kind})")
    return _diagnostic(PROBLEMS["E0009"], span)


def _characters(error: UnexpectedCharacters, here: "_Text", open_brackets) -> Diagnostic:
    line, column, char = error.line, error.column, error.char
    if open_brackets and here.starts_later_line(line, column, open_brackets[-1]):
        return _bracket(PROBLEMS["E0012"], open_brackets[-1], here)
    if char == '"':
        triple = here.text[max(error.pos_in_stream - 2, 0):error.pos_in_stream + 1] == '"""'
        start = column - 2 if triple and column > 2 else column
        span = here.span(line, start, len(here.line(line).rstrip()) + 1)
        hint = 'close it with """' if triple else None
        return _diagnostic(PROBLEMS["E0003"], span, hint=hint)
    span = here.span(line, column, column + 1)
    found = (f'"{char}"' if char == "'" else f"'{char}'" if char.isprintable() and not char.isspace()
             else f"the invisible character U+{ord(char):04X} ({unicodedata.name(char, 'control')})")
    hint = _CHAR_HINTS.get(char)
    if hint is None and char.isalpha():
        hint = "names use only the letters a-z and A-Z, digits and '_'; other text goes in quotes"
    elif hint is None and not char.isprintable():
        hint = "delete it (it often comes from text copied out of a word processor)"
    return _diagnostic(PROBLEMS["E0014"], span, found=found, hint=hint)


def _bracket(problem: Problem, token: Token, here: "_Text") -> Diagnostic:
    return _diagnostic(problem, here.span(token.line, token.column, token.column + 1),
                       found=f"'{token}'")


def _declaration_hint(token: Token) -> str | None:
    firsts = sorted({start.split()[0] for start in DECLARATION_STARTS})
    close = difflib.get_close_matches(str(token).lower(), firsts, n=1, cutoff=0.7)
    return f"did you mean '{close[0]}'?" if close else None


def _diagnostic(problem: Problem, span: Span, *, found: str = "", expected: str = "",
                hint: str | None = None, message: str | None = None) -> Diagnostic:
    fields = {"found": found, "expected": expected}
    return Diagnostic(problem.code, (message or problem.message).format(**fields), span,
                      hint or problem.hint.format(**fields), problem.notes)


# ---------------------------------------------------------------- words

def _expected(error: UnexpectedToken) -> set[str]:
    accepts = getattr(error, "accepts", None)       # what the parser's state accepts, when Lark knows
    return set(accepts or error.expected or ())


def _describe_token(token: Token) -> str:
    if token.type in _FOUND:
        return _FOUND[token.type]
    if token.type == "STRING":
        value = str(token).split("\n", 1)[0]
        return f"the text {value[:30]}{'…' if len(value) > 30 else ''}"
    if token.type == "INT":
        return f"the number {token}"
    return f"'{token}'"


def _describe_expected(names: set[str], parser, limit: int = 6) -> str:
    patterns = {t.name: t.pattern for t in getattr(parser, "terminals", ())}
    spelled = {name: patterns[name].value if name in patterns and patterns[name].type == "str"
               else name for name in names}
    words = []
    for group, summary in ((_EXPRESSION_STARTS, "a value (a name, a number, a quoted text, ...)"),
                           (_OPERATORS, "an operator such as 'and', '=' or '+'")):
        members = {name for name in spelled if spelled[name] in group}
        if len(members) >= 4:
            spelled = {name: word for name, word in spelled.items() if name not in members}
            words.append(summary)
    for name in sorted(spelled, key=lambda n: (n in _WORDS, spelled[n])):
        if name in _WORDS:
            words.append(_WORDS[name])
        elif spelled[name] != name:
            words.append(f"'{spelled[name]}'")
        elif not name.startswith("_"):          # a named word terminal, like ROUNDS
            words.append(f"'{name.lower()}'")
    if len(words) > limit:
        words = words[:limit - 1] + [f"one of {len(words) - limit + 1} other words"]
    return _join_or(words) if words else "something else"


def _join_or(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


# ---------------------------------------------------------------- positions

class _Text:
    """Lines and spans of the text as Lark saw it ('\\n' ends a line, nothing else does)."""

    def __init__(self, text: str, path: str):
        self.text, self.path = text, path
        self.lines = text.split("\n")

    def line(self, number: int) -> str:
        return self.lines[number - 1] if 0 < number <= len(self.lines) else ""

    def span(self, line: int, column: int, end_column: int) -> Span:
        line, column = max(line, 1), max(column, 1)
        return Span(self.path, line, column, line, max(end_column, column + 1))

    def code_end(self, number: int) -> int:
        """Index just past the last character of the line that is not a comment or blank."""
        text, end, quoted, i = self.line(number), 0, False, 0
        while i < len(text):
            char = text[i]
            if quoted and char == "\\":
                i += 2
                continue
            if char == '"':
                quoted = not quoted
            elif char == "#" and not quoted:
                break
            if quoted or not char.isspace():
                end = i + 1
            i += 1
        return min(end, len(text.rstrip()))

    def end_of_code_before(self, line: int) -> Span:
        """Just after the last code on the last non-empty line before `line` (0: anywhere)."""
        number = (line - 1 if line else len(self.lines))
        while number > 1 and self.code_end(number) == 0:
            number -= 1
        end = self.code_end(number) + 1
        return self.span(number, end, end + 1)

    def end_of_file(self) -> Span:
        return self.end_of_code_before(0)

    def first_word(self, number: int) -> Span:
        text = self.line(number)
        start = len(text) - len(text.lstrip(" \t"))
        return self.word(number, start + 1)

    def word(self, number: int, column: int) -> Span:
        text, end = self.line(number), column
        while end <= len(text) and (text[end - 1].isalnum() or text[end - 1] == "_"):
            end += 1
        return self.span(number, column, end)

    def starts_later_line(self, line: int, column: int, bracket: Token) -> bool:
        """Is (line, column) the first thing on a line after the bracket's?

        Brackets may span lines, so only a new line that starts where a statement would
        is taken as a sign that the bracket was left open.
        """
        return line > bracket.line and not self.line(line)[:column - 1].strip()

    def is_end(self, token: Token) -> bool:
        """True for the end of input, and for the dedents Lark adds there."""
        return token.type == "$END" or (token.type == "_DEDENT"
                                        and token.end_line >= len(self.lines))

    def token_span(self, token: Token) -> Span:
        if token.type == "_NL":
            end = self.code_end(token.line) + 1
            return self.span(token.line, end, end + 1)
        if self.is_end(token):
            return self.end_of_file()
        if token.type in ("_INDENT", "_DEDENT"):
            return self.word(token.end_line, token.end_column)
        first = str(token).split("\n", 1)[0]
        return self.span(token.line, token.column, token.column + max(len(first), 1))
