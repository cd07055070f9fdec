"""Source text → Lark parse tree; every failure becomes a Diagnostic, never an exception.

    tree, diagnostics = parse(Source("games/x.cards", text))
    # tree is None as soon as there is one diagnostic

After a syntax error the parser resumes at the next line that starts with a word in
column 1 (a declaration), so one run reports the independent mistakes of a file, at most
MAX_ERRORS of them.
"""
from __future__ import annotations

import importlib.resources
import re
import sys
import threading
from functools import lru_cache
from pathlib import Path


def _import_lark() -> None:
    """Import Lark without the optional modules it looks for, ~0.03 s of a command's start:
    `interegular` compares terminals only while a grammar is built (and in strict mode, which
    load_grammar gives it back), `regex` serves only Lark's `regex=True` option, unused here.
    Only Lark's own imports miss them: they are importable again after."""
    if "lark" in sys.modules:
        return
    absent = [name for name in ("interegular", "regex") if name not in sys.modules]
    for name in absent:
        sys.modules[name] = None            # an import of it fails, as if not installed
    try:
        import lark  # noqa: F401
    finally:
        for name in absent:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]


_import_lark()

from lark import Lark, Token, Tree  # noqa: E402
from lark.exceptions import UnexpectedInput  # noqa: E402
from lark.indenter import Indenter  # noqa: E402

from . import cache  # noqa: E402
from .diagnostics import Diagnostic  # noqa: E402
from .source import Source  # noqa: E402
from .syntax_errors import IndentationProblem, error_line, explain, names_given, reserved_name  # noqa: E402

MAX_ERRORS = 20

_GRAMMAR_FILE = "cardsmith.lark"

# Lark's Indenter keeps per-parse state on the (cached, shared) parser, so parses take turns.
# Re-entrant because explaining an error parses the example table on the same thread.
_LOCK = threading.RLock()


class CardsIndenter(Indenter):
    """Python-style INDENT/DEDENT tokens, plus two checks lark's Indenter lacks.

    It raises IndentationProblem (with a position) for a dedent to an unknown level and for
    indentation that mixes tabs and spaces, which lark would count silently as tab_len spaces.
    It also remembers the open brackets, so an unclosed '(' can be reported where it opens.
    """

    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB"]
    CLOSE_PAREN_types = ["RPAR", "RSQB"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 4

    def __init__(self) -> None:
        super().__init__()
        self.open_brackets: list[Token] = []
        self.indent_style: tuple[str, int] | None = None   # (char, line that set it)

    def process(self, stream):
        self.indent_level = [0]
        self.open_brackets = []
        self.indent_style = None
        return self._process(stream)

    def _process(self, stream):
        last = None
        for token in stream:
            last = token
            if token.type == self.NL_type:
                if not self.open_brackets:
                    yield from self.handle_NL(token)
                continue
            yield token
            # Updated after the yield, as lark does: a bracket the parser rejects never counts.
            if token.type in self.OPEN_PAREN_types:
                self.open_brackets.append(token)
            elif token.type in self.CLOSE_PAREN_types and self.open_brackets:
                self.open_brackets.pop()
        while len(self.indent_level) > 1:
            self.indent_level.pop()
            yield (Token.new_borrow_pos(self.DEDENT_type, "", last) if last
                   else Token(self.DEDENT_type, "", 0, 1, 1, 1, 1, 0))

    def handle_NL(self, token: Token):
        yield token
        indent_str = token.rsplit("\n", 1)[1]
        self._check_style(indent_str, token)
        indent = indent_str.count(" ") + indent_str.count("\t") * self.tab_len
        if indent > self.indent_level[-1]:
            self.indent_level.append(indent)
            yield Token.new_borrow_pos(self.INDENT_type, indent_str, token)
            return
        levels = tuple(self.indent_level)
        while indent < self.indent_level[-1]:
            self.indent_level.pop()
            yield Token.new_borrow_pos(self.DEDENT_type, indent_str, token)
        if indent != self.indent_level[-1]:
            raise IndentationProblem("dedent", token.end_line, len(indent_str),
                                     indent, levels, self._style_char())

    def _check_style(self, indent_str: str, token: Token) -> None:
        if not indent_str:
            return
        if " " in indent_str and "\t" in indent_str:
            raise IndentationProblem("mixed", token.end_line, len(indent_str))
        char = indent_str[0]
        if self.indent_style is None:
            self.indent_style = (char, token.end_line)
        elif self.indent_style[0] != char:
            raise IndentationProblem("inconsistent", token.end_line, len(indent_str),
                                     other_line=self.indent_style[1], style=self.indent_style[0])

    def _style_char(self) -> str:
        return self.indent_style[0] if self.indent_style else " "


def _grammar_text() -> str:
    try:
        resource = importlib.resources.files("cardsmith.grammar") / _GRAMMAR_FILE
        if resource.is_file():
            return resource.read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError):
        pass
    return (Path(__file__).parent.parent / "grammar" / _GRAMMAR_FILE).read_text(encoding="utf-8")


@lru_cache(maxsize=2)
def load_grammar(strict: bool = False) -> Lark:
    """The cardsmith LALR parser (built once per `strict` value).

    strict=True makes Lark fail on terminal collisions and conflicts (needs interegular).
    """
    text = _grammar_text()
    options = dict(parser="lalr", lexer="contextual", postlex=CardsIndenter(),
                   propagate_positions=_Written(), maybe_placeholders=False, strict=strict)
    if strict:
        _with_interegular()
        return Lark(text, **options)
    # The parser from the cache folder (dsl/cache.py): the whole built parser, else the tables
    # Lark keeps, from which it builds its lexers and callbacks (three times slower to load).
    import sys

    import lark
    built = cache.entry("parser", cache.front_end(), lark.__version__, sys.version)
    if built is not None:
        found = _unpickled(built)
        if found is not None:
            return found
    path = cache.entry("grammar", text, lark.__version__, sys.version, "")
    parser = None
    if path is not None:
        try:
            parser = Lark(text, cache=str(path), **options)
        except Exception:       # an unreadable or foreign entry: build the tables afresh, uncached
            pass
    if parser is None:
        parser = Lark(text, **options)
    if built is not None:
        _pickle(parser, built)
    return parser


def _with_interegular() -> None:
    """Give Lark's lexer back `interegular` (see _import_lark), which strict mode needs."""
    from lark import lexer

    if lexer.has_interegular:
        return
    try:
        import interegular
    except ImportError:         # not installed: Lark says strict mode needs it
        return
    lexer.interegular = interegular
    lexer.has_interegular = True


def _unpickled(path: Path) -> Lark | None:
    """The parser `_pickle` kept at `path`; None when there is none or it is not one. A pickle
    is code: it is read only from the user's own private cache folder (dsl/cache.py)."""
    import pickle

    try:
        with open(path, "rb") as fh:
            parser = pickle.load(fh)
    except Exception:           # missing, damaged, or of another version
        return None
    return parser if isinstance(parser, Lark) and isinstance(parser.options.postlex, CardsIndenter) else None


def _pickle(parser: Lark, path: Path) -> None:
    """Keep the built `parser` at `path` (before it parses anything: its lexers are built as
    they are first used). Lark's shift and reduce are singletons compared by identity, and its
    lexer holds the `re` module: both are kept as references to their names."""
    import importlib
    import io
    import pickle
    import types

    from lark.parsers import lalr_analysis

    class Pickler(pickle.Pickler):
        def reducer_override(self, obj):
            if isinstance(obj, types.ModuleType):
                return importlib.import_module, (obj.__name__,)
            if obj is lalr_analysis.Shift:
                return getattr, (lalr_analysis, "Shift")
            if obj is lalr_analysis.Reduce:
                return getattr, (lalr_analysis, "Reduce")
            return NotImplemented

    out = io.BytesIO()
    try:
        Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(parser)
    except Exception:           # something Lark holds does not pickle: the tables are kept still
        return
    cache.write(path, out.getvalue())


_LAYOUT = frozenset({"_NL", "_INDENT", "_DEDENT"})


def _written(node) -> bool:
    """Does `node` count for the positions of the rule around it?

    A line end (with the indentation and the blank or comment lines after it), or an indent or
    dedent the indenter made from one, is layout: a statement closed by one would otherwise end
    at the start of the next line (or, for a dedent, of the next declaration), and a block would
    start at the end of the line that opens it. Without them every node's span runs from its
    first written token to the end of its last.
    """
    return not (isinstance(node, Token) and node.type in _LAYOUT)


class _Written:
    """`_written` with a name that is the same in every run: Lark keys its cached tables by its
    options written out, and a plain function's is its address (dsl/cache.py)."""
    __slots__ = ()

    def __call__(self, node) -> bool:        # _written, inlined: Lark calls it for every child of every rule
        return not (isinstance(node, Token) and node.type in _LAYOUT)

    def __repr__(self) -> str:
        return "cardsmith.dsl.parser._written"


# A string, or a comment (alone on its line in group 1). Strings come first so that a '#'
# inside quoted text, or a line starting with '#' inside a """ block, is left alone.
_STRING_OR_COMMENT = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*"""|"(?:[^"\\\n]|\\.)*"|(^[\t ]*#[^\n]*)|#[^\n]*', re.M)


def _prepare(text: str) -> str:
    """The text Lark sees: same lines and columns, ending in a newline, without a BOM.

    Comment-only lines are emptied because the grammar ignores COMMENT but not its
    indentation: an indented '# note' between two lines of a block would end the block.
    """
    def blank(match: re.Match) -> str:
        return "" if match.group(1) is not None else match.group(0)

    if text.startswith("\ufeff"):
        text = " " + text[1:]      # an editor's byte-order mark; leading blanks are ignored
    if "#" in text:
        text = _STRING_OR_COMMENT.sub(blank, text)
    return text if text.endswith("\n") else text + "\n"


# Where parsing resumes after an error: a word in the first column starts a declaration
# (a misspelt one too, which is then reported as such).
_DECLARATION_LINE = re.compile(r"[A-Za-z_]")


def _resume_line(text: str, after_line: int) -> int | None:
    """The first line after `after_line` that starts with a word in column 1."""
    lines = text.split("\n")
    for number in range(after_line + 1, len(lines) + 1):
        if _DECLARATION_LINE.match(lines[number - 1]):
            return number
    return None


def _from_line(text: str, line: int) -> str:
    """`text` with the lines before `line` emptied, so positions stay the same."""
    return "\n" * (line - 1) + "\n".join(text.split("\n")[line - 1:])


_example_errors: dict[str, UnexpectedInput | None] = {}
_examples_parser: list = [None]     # the parser whose states _example_errors holds


def _parse_example(text: str) -> None:
    """Parse one malformed example of the error table; its failure is computed once per parser.

    The failures hold that parser's LALR states, and another instance (the tables built afresh
    rather than read from the cache folder, after load_grammar's cache was cleared) may number
    its states otherwise: so a new parser starts the table again."""
    parser = load_grammar()
    if _examples_parser[0] is not parser:
        _example_errors.clear()
        _examples_parser[0] = parser
    if text not in _example_errors:
        try:
            parser.parse(_prepare(text))
            _example_errors[text] = None
        except UnexpectedInput as error:
            _example_errors[text] = error
        except IndentationProblem:    # raised by the indenter: no parser state to match
            _example_errors[text] = None
    error = _example_errors[text]
    if error is not None:
        raise error.with_traceback(None)


def parse(source: Source) -> tuple[Tree | None, list[Diagnostic]]:
    """Parse a .cards file: (tree, []) or (None, diagnostics). Never raises on any text."""
    text = _prepare(source.text)
    diagnostics: list[Diagnostic] = []
    attempt, start = text, 1
    with _LOCK:
        parser = load_grammar()
        while True:
            try:
                tree = parser.parse(attempt)
                if not diagnostics:     # `let top be 3` parses, but no rule can read `top` back
                    diagnostics += [reserved_name(line, column, word, source.path, text)
                                    for line, column, word in names_given(text, parser)][:MAX_ERRORS]
                return (None if diagnostics else tree), diagnostics
            except Exception as error:  # every failure is reported as a diagnostic
                brackets = list(parser.options.postlex.open_brackets)
                diagnostic = explain(error, attempt, source.path, _parse_example, brackets, parser)
                diagnostics.append(diagnostic)
                start = _resume_line(text, max(start, diagnostic.span.line,
                                               error_line(error, attempt)))
                if start is None or len(diagnostics) >= MAX_ERRORS:
                    return None, diagnostics
                attempt = _from_line(text, start)
