"""`cardsmith fmt`: one canonical layout for a .cards file, keeping every comment.

    formatted = format_text(text, path)        # raises CardsmithError for a file that does not parse

The layout: four spaces per block level; a continuation line (inside brackets, or after a
backslash) two levels deeper than the line it continues; one space between words and around
operators, none inside brackets or before a comma or colon; a comment after code two spaces
after it; card tables aligned into columns; at most one blank line in a row, and one blank line
before a declaration when it or the one before it takes more than a line or they are of
different kinds (`zone` lines stay together); a comment in column 1 right above a declaration
stays with it.

Comments are not in the parse tree (the grammar ignores them), so the formatter works from
the text's tokens (`scan`), line by line, with the indenter's rule for levels. It never
changes what a file means: the formatted text is parsed again and its AST, spans aside, must
be the one of the original, else the formatter refuses (E0912) instead of writing it. Formatting
twice gives the same text.
"""
from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass
from functools import lru_cache

from .diagnostics import CardsmithError, Diagnostic
from .source import Source, Span, normalise_line_ends

INDENT = "    "
TAB_WIDTH = 4        # the indenter's tab_len: a tab counts as four spaces of indentation


@dataclass(frozen=True, slots=True)
class Tok:
    """One lexeme of a .cards text: kind, text, 1-based line and column, offset in the text."""
    kind: str       # name | int | string | comment | op | punct | ws | nl | cont | other
    text: str
    line: int
    column: int
    offset: int

    @property
    def end_line(self) -> int:
        return self.line + self.text.count("\n")


# Strings first, as in the parser: a '#' inside quotes is text, not a comment.
_LEXEME = re.compile(r'''
    (?P<string>"""(?:[^"\\]|\\.|"(?!""))*"""|"(?:[^"\\\n]|\\.)*")
  | (?P<comment>\#[^\n]*)
  | (?P<cont>\\[\t \f]*\n)
  | (?P<nl>\n)
  | (?P<ws>[\t ]+)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<int>[0-9]+)
  | (?P<op>!=|<=|>=|'s|[=<>+\-*/])
  | (?P<punct>[()\[\],:.|])
  | (?P<other>.)
''', re.X | re.S)


def scan(text: str) -> list[Tok]:
    """Every lexeme of `text`, whitespace and comments included (an unclosed quote is one
    `other` lexeme, so any text scans)."""
    out: list[Tok] = []
    line, line_start = 1, 0
    for m in _LEXEME.finditer(text):
        kind = m.lastgroup
        start = m.start()
        out.append(Tok(kind, m.group(), line, start - line_start + 1, start))
        newlines = m.group().count("\n")
        if newlines:
            line += newlines
            line_start = m.start() + m.group().rindex("\n") + 1
    return out


# ---------------------------------------------------------------- the grammar's words


@lru_cache(maxsize=1)
def grammar_keywords() -> frozenset[str]:
    """Every word the grammar spells out (`move`, `secretly`, `rounds`, ...), read from the
    quoted literals of grammar/cardsmith.lark (its `//` comments aside), so a word added to
    the grammar is known here, to the highlighters and to completion without being listed
    again. tests/test_highlight.py checks this against Lark's own terminals."""
    from .parser import _grammar_text

    code = re.sub(r"//[^\n]*", "", _grammar_text())
    # and a word that is a keyword only where no `(` follows (DESTROY: `destroy(c)` stays a call)
    return frozenset(re.findall(r'"([a-z]+)"', code) + re.findall(r'/([a-z]+)\(\?!', code))


# Words after which a '-' is a minus sign (`set x to -1`), unless the word ends a value.
_VALUE_WORDS = frozenset({"this", "you", "players", "opponents", "yes", "no", "none", "player",
                          "winners", "stack", "empty"})


# ---------------------------------------------------------------- lines


@dataclass
class _Line:
    tokens: list[Tok]           # without whitespace and line ends
    width: int                  # its indentation, counted as the indenter does
    kind: str                   # blank | comment | code | more (continues the line before)
    cont_after: bool = False    # ends in a backslash continuation
    level: int = 0              # block level (code lines), set by _levels


def _lines(toks: list[Tok], recover: bool = False) -> list[_Line]:
    """The lines of the tokens. With `recover`, a word in column 1 starts a new line even
    inside a bracket left open (as the parser resumes after a syntax error), so one unclosed
    '(' in a file being typed does not swallow the declarations after it."""
    lines: list[_Line] = []
    current: list[Tok] = []
    lead: str | None = None
    depth = 0
    starts_more = False
    carried: str | None = None      # the indentation a lone backslash line hands to the next line
    for tok in toks:
        if tok.kind in ("nl", "cont"):
            cont = tok.kind == "cont"
            if cont and not current and not starts_more and not depth:
                # A backslash alone on a line continues nothing (the line before has ended);
                # the indentation the indenter sees for the next line is this line's.
                lines.append(_make_line([], "", False, False))
                carried, current, lead = lead or "", [], None
                continue
            if not current:
                carried = None
            lines.append(_make_line(current, lead or "", starts_more, cont))
            starts_more = depth > 0 or cont
            current, lead = [], None
            continue
        if tok.kind == "ws":
            if not current and lead is None:
                lead = tok.text
            continue
        if not current and carried is not None:
            lead, carried = carried, None
        if lead is None:
            lead = ""
        if recover and not current and not lead and starts_more and tok.kind == "name" and depth:
            depth, starts_more = 0, False
        current.append(tok)
        if tok.text in ("(", "["):
            depth += 1
        elif tok.text in (")", "]") and depth:
            depth -= 1
    if current:
        lines.append(_make_line(current, lead or "", starts_more, False))
    return lines


def _make_line(tokens: list[Tok], lead: str, more: bool, cont: bool) -> _Line:
    width = lead.count(" ") + lead.count("\t") * TAB_WIDTH
    if more and tokens:
        kind = "more"
    elif not tokens:        # an empty line after a backslash too: it ends the continued line
        kind = "blank"
    elif all(t.kind == "comment" for t in tokens):
        kind = "comment"
    else:
        kind = "code"
    return _Line(tokens, width, kind, cont)


def _levels(lines: list[_Line]) -> None:
    """Block levels of the code lines, by the indenter's rule (a stack of widths), and of the
    comment lines: the deepest level open around them whose width they reach."""
    stack = [0]
    stacks: list[list[int] | None] = []
    for ln in lines:
        if ln.kind == "code":
            if ln.width > stack[-1]:
                stack.append(ln.width)
            while ln.width < stack[-1]:
                stack.pop()
            ln.level = len(stack) - 1
            stacks.append(list(stack))
        else:
            stacks.append(None)
    after: list[int] | None = None
    for i in range(len(lines) - 1, -1, -1):       # the next code line's levels, for comments
        ln = lines[i]
        if ln.kind == "code":
            after = stacks[i]
        elif ln.kind == "comment":
            ln.level = _comment_level(ln.width, _before(stacks, i), after)
    # a continuation line sits two levels below the line it continues (one would put it
    # level with the block that the line may open)
    level = 0
    for ln in lines:
        if ln.kind == "code":
            level = ln.level
        elif ln.kind == "more":
            ln.level = level + 2


def _before(stacks, i):
    for j in range(i - 1, -1, -1):
        if stacks[j] is not None:
            return stacks[j]
    return None


def _comment_level(width: int, before, after) -> int:
    widths = sorted(set((before or [0]) + (after or [0])))
    return max(i for i, w in enumerate(widths) if w <= width) if widths[0] <= width else 0


# ---------------------------------------------------------------- spacing inside a line


def _is_unary_minus(prev: Tok | None) -> bool:
    if prev is None:
        return True
    if prev.kind in ("op", "punct"):
        return prev.text not in (")", "]")
    if prev.kind == "name":
        return prev.text in grammar_keywords() and prev.text not in _VALUE_WORDS
    return False


def _space(prev: Tok, tok: Tok, before_prev: Tok | None, had_space: bool) -> str:
    a, b = prev.text, tok.text
    if tok.kind == "comment":
        return "  "
    if a in ("(", "[", ".") or b in (")", "]", ",", ":", ".", "'s"):
        return ""
    if b in ("(", "["):
        return " " if had_space or prev.kind not in ("name", "op", "punct") or a == "," else ""
    if a == "-" and _is_unary_minus(before_prev):
        # after a word of the language that is also a name (`left`), a spaced '-' is a minus
        return " " if had_space and before_prev is not None and before_prev.kind == "name" else ""
    return " "


def _join(tokens: list[Tok], original: str) -> str:
    out: list[str] = []
    for i, tok in enumerate(tokens):
        if i:
            prev = tokens[i - 1]
            gap = original[prev.offset + len(prev.text):tok.offset]
            out.append(_space(prev, tok, tokens[i - 2] if i > 1 else None, gap != ""))
        out.append(tok.text.rstrip() if tok.kind == "comment" else tok.text)
    return "".join(out)


def _reindent_string(tok: Tok, indent: str) -> str:
    """A triple-quoted text opening on a line indented by `indent`, its inner lines set to
    that indentation (plus their own relative one) and its closing quotes on their own line
    at it. Its value is dedented (the whitespace every line starts with is dropped), so
    putting `indent` in place of that common whitespace keeps the value; a text that starts
    on the quote line is left as written (its first line would count for the dedent)."""
    if "\n" not in tok.text:
        return tok.text
    first, *rest = tok.text.split("\n")
    if first[3:].strip():
        return tok.text
    *body, last = rest
    if last.strip() != '"""':               # text before the closing quotes is a line of it
        body, last = rest, None
    leads = [re.match(r"[ \t]*", ln).group() for ln in body if ln.strip()]
    common = len(os.path.commonprefix(leads)) if leads else 0
    inner = [indent + ln[common:] if ln.strip() else "" for ln in body]
    closing = [] if last is None else [indent + '"""']
    return "\n".join(['"""'] + inner + closing)


# ---------------------------------------------------------------- card tables


def _cells(tokens: list[Tok], original: str) -> tuple[list[str], list[Tok]] | None:
    """The cells of a table row `| a | b |` and its trailing comment, or None when the row
    is not a plain one-line row."""
    cells, cell, comment = [], [], []
    if not tokens or tokens[0].text != "|":
        return None
    for tok in tokens[1:]:
        if comment or tok.kind == "comment":
            comment.append(tok)
        elif tok.text == "|":
            cells.append(_join(cell, original))
            cell = []
        else:
            if "\n" in tok.text:
                return None
            cell.append(tok)
    if cell:
        return None
    return cells, comment


def _table_rows(lines: list[_Line], original: str) -> dict[int, str]:
    """Aligned text of every table row (index of the line -> text without indentation)."""
    out: dict[int, str] = {}
    i = 0
    while i < len(lines):
        if lines[i].kind == "code" and lines[i].tokens[0].text == "|":
            group, j = [], i
            while j < len(lines) and (lines[j].kind in ("blank", "comment", "more") or
                                      (lines[j].kind == "code" and lines[j].tokens[0].text == "|"
                                       and lines[j].level == lines[i].level)
                                      or (lines[j].kind == "code" and lines[j].level > lines[i].level)):
                if lines[j].kind == "code" and lines[j].level == lines[i].level:
                    group.append(j)         # a row; what is indented under a row is its own
                j += 1
            rows = {k: _cells(lines[k].tokens, original) for k in group}
            if all(r is not None and not lines[k].cont_after for k, r in rows.items()):
                width: dict[int, int] = {}
                for cells, _ in rows.values():
                    for c, text in enumerate(cells):
                        width[c] = max(width.get(c, 0), len(text))
                for k, (cells, comment) in rows.items():
                    text = "|" + "|".join(f" {t.ljust(width[c])} " for c, t in enumerate(cells)) + "|"
                    out[k] = text + ("  " + comment[0].text.rstrip() if comment else "")
            i = j
        else:
            i += 1
    return out


# ---------------------------------------------------------------- the whole file


def _layout(text: str) -> str:
    toks = scan(text)
    lines = _lines(toks)
    _levels(lines)
    rows = _table_rows(lines, text)
    out: list[str] = []
    prev_decl: tuple[str, bool] | None = None      # (first word, spans more than one line)
    decl_start = 0                                  # index in out of the last declaration's first line
    for i, ln in enumerate(lines):
        if ln.kind == "blank":
            if out and out[-1] != "":
                out.append("")
            continue
        if ln.kind == "more" and not ln.tokens:
            continue            # a lone backslash inside a continued line: the line goes on without it
        indent = INDENT * ln.level
        if ln.kind == "code" and ln.level == 0:
            word = ln.tokens[0].text
            if prev_decl is not None:
                multi = prev_decl[1] or len(out) - decl_start > 1 or _opens_block(lines, i)
                if multi or prev_decl[0] != word:
                    _blank_before_header(out)
            prev_decl = (word, False)
            decl_start = len(out)
        if i in rows:
            body = rows[i]
        else:
            shifted = [dataclasses.replace(t, text=_reindent_string(t, indent)) if t.kind == "string"
                       else t for t in ln.tokens]
            body = _join(shifted, text)
        physical = (indent + body).rstrip()
        if ln.cont_after:
            physical += " \\"
        if "\n" in body and prev_decl is not None:
            prev_decl = (prev_decl[0], True)
        out.append(physical)
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n" if out else ""


def _opens_block(lines: list[_Line], i: int) -> bool:
    for ln in lines[i + 1:]:
        if ln.kind == "code":
            return ln.level > 0
        if ln.kind == "more":
            return True
    return False


def _blank_before_header(out: list[str]) -> None:
    """One blank line before the column-1 comments that lead into a declaration."""
    k = len(out)
    while k > 0 and out[k - 1].startswith("#"):
        k -= 1
    if k > 0 and out[k - 1] != "":
        out.insert(k, "")


# ---------------------------------------------------------------- safety net


def ast_shape(node):
    """An AST without its positions: what two layouts of one file must share (a position held
    in a tuple, as a board's hex and grid cells hold theirs, is left out too)."""
    if isinstance(node, Span):
        return "span"
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return (type(node).__name__,) + tuple(
            ast_shape(getattr(node, f.name)) for f in dataclasses.fields(node)
            if not isinstance(getattr(node, f.name), Span) and f.name != "players_span")
    if isinstance(node, (tuple, list)):
        return tuple(ast_shape(x) for x in node)
    return node


def parse_module(source: Source):
    """(AST module, diagnostics) of one file's text alone (no includes, no checks)."""
    from .parser import parse
    from .transformer import to_ast

    tree, diags = parse(source)
    if tree is None:
        return None, diags
    problems: list[Diagnostic] = []
    module = to_ast(tree, source.path, source.text, problems)
    return (None if problems else module), problems


def format_text(text: str, path: str = "<text>.cards") -> str:
    """The canonical layout of `text`. A file that does not parse raises CardsmithError with
    its syntax errors; so would (E0912) a layout whose AST differs, which is a formatter bug."""
    text = normalise_line_ends(text)
    if text.startswith("\ufeff"):
        text = text[1:]
    before, diags = parse_module(Source(path, text))
    if before is None:
        raise CardsmithError(diags, {path: Source(path, text)})
    try:
        formatted = _layout(text)
        after, _ = parse_module(Source(path, formatted))
        same = after is not None and ast_shape(after) == ast_shape(before)
    except Exception:   # a bug in the formatter must reach the designer as a located error
        same = False
    if not same:
        raise CardsmithError([Diagnostic(
            "E0912", "cardsmith fmt could not lay out this file without changing what it means, "
                     "so it leaves the file as it is (internal error)",
            Span(path, 1, 1, 1, 2), "please report this, with the file, to the cardsmith developers")],
            {path: Source(path, text)})
    return formatted



def format_file(path: str) -> tuple[str | None, str | None, list[Diagnostic], dict]:
    """(text, formatted text, diagnostics, sources) of the file at `path`, read with the
    loader's bounds (a regular file, at most MAX_FILE_BYTES, UTF-8). The texts are None when
    the file cannot be read or formatted; the diagnostics say why."""
    from .diagnostics import DiagnosticSink
    from .loader import _read

    sink = DiagnosticSink()
    read = _read(path, sink, None)
    if read is None:
        return None, None, sink.items, {}
    source = read[0]
    try:
        return source.text, format_text(source.text, path), [], {path: source}
    except CardsmithError as err:
        return source.text, None, err.diagnostics, err.sources or {path: source}


def logical_lines(text: str) -> list[_Line]:
    """The lines of `text` with their tokens (no whitespace), kind (blank, comment, code, more:
    continues the line before) and block level, for any text, parsed or not (the language
    server reads declarations from them while the file is being typed)."""
    lines = _lines(scan(normalise_line_ends(text)), recover=True)
    _levels(lines)
    return lines
