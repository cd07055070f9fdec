"""Lark parse tree -> typed AST (dsl/ast.py). The only module after the parser that knows lark.

Each method is named for the grammar rule (or alias) it converts.
"""
from __future__ import annotations

import re
import textwrap
from typing import get_args

from lark import Token, Transformer, Tree, v_args
from lark.exceptions import GrammarError, VisitError

from . import ast as A
from .bounds import MAX_NUMBER, MAX_PLAYERS, MAX_STRING_LENGTH
from .diagnostics import CardsmithError, Diagnostic
from .source import Span

# More digits than this can only be over MAX_NUMBER: such a literal is refused before int()
# sees it (Python refuses to convert more than 4,300 digits, and a long one is slow).
_MAX_DIGITS = len(str(MAX_NUMBER))
_ABILITIES = get_args(A.Ability)         # when, action, modify, instead of, text


def unquote(raw: str) -> str:
    """The value of a STRING token: quotes removed, escapes applied, triple quotes dedented."""
    if raw.startswith('"""'):
        body = raw[3:-3]
        return textwrap.dedent(body).strip()
    out, chars, i = [], raw[1:-1], 0
    while i < len(chars):
        c = chars[i]
        if c == "\\" and i + 1 < len(chars):
            nxt = chars[i + 1]
            out.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _is_tok(x, kind: str) -> bool:
    return isinstance(x, Token) and x.type == kind


def _joined(first: Span, last: Span) -> Span:
    return Span(first.path, first.line, first.column, last.end_line, last.end_column)


_NO_RULE = object()
_LINE_END = re.compile("\n")


@v_args(meta=True, inline=False)
class ToAst(Transformer):
    """Builds AST nodes; `path` names the file in every span."""

    def __init__(self, path: str, text: str | None = None, first_line: int = 1):
        super().__init__(visit_tokens=False)
        self.path = path
        # `text` is the file's from this line on (one declaration of it, dsl/loader.py): spans
        # are the file's, lines counted from here
        self._shift = first_line - 1
        self.problems: list[Diagnostic] = []     # literals over a bound (dsl/bounds.py)
        self._src = text
        self._starts = None
        if text is not None:
            self._starts = [0] + [m.end() for m in _LINE_END.finditer(text)]
        self._rules: dict = {}          # rule name -> this converter's method for it (_call_userfunc)

    def _call_userfunc(self, tree, new_children=None):
        """Lark's, with each rule's method looked up once per converter: lark's getattr makes a
        new v_args wrapper (functools.update_wrapper) for every node of the tree, ~15% of a
        parse. Otherwise the same: the method's visit wrapper, lark's errors."""
        children = new_children if new_children is not None else tree.children
        f = self._rules.get(tree.data, _NO_RULE)
        if f is _NO_RULE:
            f = self._rules[tree.data] = getattr(self, tree.data, None)
        if f is None:
            return self.__default__(tree.data, children, tree.meta)
        try:
            wrapper = getattr(f, "visit_wrapper", None)
            if wrapper is not None:
                return wrapper(f, tree.data, children, tree.meta)
            return f(children)
        except (GrammarError, RecursionError):
            # a RecursionError reaches the loader as itself: there it is E0906, located at the
            # deepest place of the file, not an internal error wrapped in lark's VisitError
            raise
        except Exception as e:
            raise VisitError(tree.data, tree, e)

    # ----------------------------------------------------------------- helpers
    def _span(self, meta) -> Span:
        # The parser leaves line ends, indents and dedents out of positions (dsl/parser.py,
        # _written): a meta runs from a rule's first written token to the end of its last.
        if getattr(meta, "empty", True):
            return Span(self.path, 0, 0, 0, 0)
        shift = self._shift
        return Span(self.path, meta.line + shift, meta.column, meta.end_line + shift, meta.end_column)

    def _tok_span(self, tok: Token) -> Span:
        return Span(self.path, tok.line + self._shift, tok.column, (tok.end_line or tok.line) + self._shift,
                    tok.end_column or tok.column + len(tok))

    # ----------------------------------------------------------------- literals and their bounds
    def _int(self, tok: Token) -> int:
        """The value of an INT token, at most MAX_NUMBER (a larger one is reported)."""
        digits = str(tok).lstrip("0") or "0"
        if len(digits) <= _MAX_DIGITS and int(digits) <= MAX_NUMBER:
            return int(digits)
        shown = digits if len(digits) <= 24 else f"this {len(digits):,}-digit number"
        self.problems.append(Diagnostic(
            "E0108", f"{shown} is larger than the largest number a file may hold, "
                     f"{MAX_NUMBER:,} (MAX_NUMBER)", self._tok_span(tok),
            "use a smaller number"))
        return MAX_NUMBER

    def _text(self, tok: Token) -> str:
        """The value of a STRING token, at most MAX_STRING_LENGTH characters long."""
        value = unquote(str(tok))
        if len(value) > MAX_STRING_LENGTH:
            self.problems.append(Diagnostic(
                "E0109", f"this text is {len(value):,} characters long; a text in a file may have "
                         f"at most {MAX_STRING_LENGTH:,} (MAX_STRING_LENGTH)", self._tok_span(tok),
                "shorten it, or split it into several texts"))
            return value[:MAX_STRING_LENGTH]
        return value

    def _long_name(self, tok: Token) -> None:
        self.problems.append(Diagnostic(
            "E0109", f"this name is {len(tok):,} characters long; a name may have at most "
                     f"{MAX_STRING_LENGTH:,} (MAX_STRING_LENGTH)", self._tok_span(tok),
            "use a shorter name"))

    def _players(self, tok: Token) -> int:
        """A number of players (`players: 2 to N`, `with N players`), at most MAX_PLAYERS."""
        reported = len(self.problems)
        value = self._int(tok)
        if value > MAX_PLAYERS and len(self.problems) == reported:   # one error per number
            self.problems.append(Diagnostic(
                "E0110", f"{value:,} players is more than a game may have, {MAX_PLAYERS:,} "
                         "(MAX_PLAYERS)", self._tok_span(tok),
                f"write a number of players from 1 to {MAX_PLAYERS}"))
        return value

    @staticmethod
    def _names(children) -> list[str]:
        return [str(c) for c in children if _is_tok(c, "NAME")]

    def _strings(self, children) -> list[str]:
        return [self._text(c) for c in children if _is_tok(c, "STRING")]

    @staticmethod
    def _docs(children) -> tuple[str, ...]:
        return tuple(c.text for c in children if isinstance(c, A.DocItem))

    # ----------------------------------------------------------------- module
    def start(self, meta, children):
        return A.Module(self._span(meta), tuple(children))

    # ----------------------------------------------------------------- metadata
    def game_decl(self, meta, ch):
        title = self._text(ch[0])
        lo = hi = 0
        players_span = None
        summary = source = ""
        docs = []
        for item in ch[1:]:
            if isinstance(item, tuple) and item[0] == "players":
                lo, hi, players_span = item[1], item[2], item[3]
            elif isinstance(item, tuple) and item[0] == "summary":
                summary = item[1]
            elif isinstance(item, tuple) and item[0] == "source":
                source = item[1]
            elif isinstance(item, A.DocItem):
                docs.append(item.text)
        remembers = any(item == ("remember",) for item in ch[1:])
        return A.GameDecl(self._span(meta), title, lo, hi, summary, source, tuple(docs), players_span, remembers)

    def players_item(self, meta, ch):
        # `players: 2` is `players: 2 to 2`
        lo = self._players(ch[0])
        hi = self._players(ch[1]) if len(ch) > 1 else lo
        return ("players", lo, hi, self._span(meta))

    def summary_item(self, meta, ch):
        return ("summary", self._text(ch[0]))

    def source_item(self, meta, ch):
        return ("source", self._text(ch[0]))

    def remember_item(self, meta, ch):
        return ("remember",)

    def doc_item(self, meta, ch):
        return A.DocItem(self._span(meta), self._text(ch[0]))

    def import_decl(self, meta, ch):
        return A.ImportDecl(self._span(meta), self._text(ch[0]))

    def extends_decl(self, meta, ch):
        return A.ExtendsDecl(self._span(meta), self._text(ch[0]))

    def override_decl(self, meta, ch):
        return A.OverrideDecl(self._span(meta), ch[0])

    def prose_decl(self, meta, ch):
        return A.ProseDecl(self._span(meta), self._text(ch[0]), self._docs(ch[1:]))

    def note_decl(self, meta, ch):
        return A.NoteDecl(self._span(meta), self._text(ch[0]))

    def term_decl(self, meta, ch):
        return A.TermDecl(self._span(meta), self._text(ch[0]), self._text(ch[1]))

    def credit_decl(self, meta, ch):
        return A.CreditDecl(self._span(meta), self._text(ch[0]), tuple(self._text(c) for c in ch[1:]))

    # ----------------------------------------------------------------- declarations
    def enum_decl(self, meta, ch):
        members = [m for m in ch[1:]]
        return A.EnumDecl(self._span(meta), str(ch[0]), tuple(m for m, _ in members),
                          tuple((m, label) for m, label in members if label is not None))

    def enum_member(self, meta, ch):
        return str(ch[0]), (self._text(ch[1]) if len(ch) > 1 else None)

    def card_type_decl(self, meta, ch):
        name = str(ch[0])
        items = ch[1:]
        blank = next((i[1] for i in items if isinstance(i, tuple) and i[0] == "blank"), None)
        backs = [i for i in items if isinstance(i, tuple) and i[0] == "back"]
        return A.CardTypeDecl(
            self._span(meta), name,
            tuple(i for i in items if isinstance(i, A.FieldDecl)),
            self._docs(items), blank,
            tuple(i for i in items if isinstance(i, _ABILITIES)),
            tuple(i for i in items if isinstance(i, A.KeywordUse)),
            tuple(n for b in backs for n in b[1]), backs[0][2] if backs else None,
            tuple(i for i in items if isinstance(i, A.PartsDecl)))

    def parts_item(self, meta, ch):
        label = self._text(ch[1]) if _is_tok(ch[1], "STRING") else None
        rest = ch[2 if label is not None else 1:]
        return A.PartsDecl(self._span(meta), str(ch[0]), label, int(str(rest[0])),
                           tuple(i for i in rest[1:] if isinstance(i, A.FieldDecl)))

    def blank_item(self, meta, ch):
        return ("blank", ch[0])

    def back_item(self, meta, ch):
        return ("back", tuple(str(t) for t in ch), self._span(meta))

    def attr_owner(self, meta, ch):
        return "toward" if len(ch) > 1 else str(ch[0])

    def attrs_decl(self, meta, ch):
        owner = ch[0]
        return A.AttrsDecl(self._span(meta), owner,
                           tuple(i for i in ch[1:] if isinstance(i, A.FieldDecl)), self._docs(ch[1:]))

    def field_decl(self, meta, ch):
        name = str(ch[0])
        label = self._text(ch[1]) if _is_tok(ch[1], "STRING") else None
        ch = [ch[0]] + list(ch[2 if label is not None else 1:])
        type_ref = ch[1]
        default = None
        lo = hi = reset = None
        docs = []
        for item in ch[2:]:
            if isinstance(item, tuple) and item[0] == "reset":
                reset = item[1]
            elif isinstance(item, tuple) and item[0] == "at_least":
                lo = item[1]
            elif isinstance(item, tuple) and item[0] == "at_most":
                hi = item[1]
            elif isinstance(item, A.DocItem):
                docs.append(item.text)
            else:
                default = item
        return A.FieldDecl(self._span(meta), name, type_ref, default, lo, hi, tuple(docs), label, reset)

    def reset_each(self, meta, ch):
        return ("reset", ch[0])

    def reset_period(self, meta, ch):
        return str(ch[0])

    def at_least(self, meta, ch):
        return ("at_least", self._int(ch[0]))

    def at_most(self, meta, ch):
        return ("at_most", self._int(ch[0]))

    def named_type(self, meta, ch):
        return A.TypeRef(self._span(meta), str(ch[0]))

    def list_type(self, meta, ch):
        return A.TypeRef(self._span(meta), str(ch[0]), True)

    def zone_decl(self, meta, ch):
        name = str(ch[0])
        per_player, ordered, visibility, capacity, doc = False, True, "public", None, None
        per_entity = per_span = None
        owner_knows, discard_into = False, None
        label = self._text(ch[1]) if _is_tok(ch[1], "STRING") else None
        for item in ch[2 if label is not None else 1:]:
            if _is_tok(item, "STRING"):
                doc = self._text(item)
                continue
            words = [str(t) for t in item]
            if words[:2] == ["per", "player"]:
                per_player = True
            elif words == ["shared"]:
                per_player = False
            elif words == ["ordered"]:
                ordered = True
            elif words == ["unordered"]:
                ordered = False
            elif words in (["hidden"], ["public"]):
                visibility = words[0]
            elif words == ["owner", "only"]:
                visibility = "owner"
            elif words == ["seen", "by", "the", "others"]:
                visibility = "others"       # every player but the zone's owner
            elif words[:3] == ["face", "down", "known"]:
                owner_knows = True          # `face down known to its owner`
            elif words[:2] == ["at", "most"]:
                capacity = self._int(item[2])
            elif words[:3] == ["discard", "down", "into"]:
                discard_into = words[3]     # a move past the capacity: the owner discards down
            elif words[0] == "per":         # `per ship`: one for each entity of that kind
                per_player, per_entity, per_span = False, words[1], self._tok_span(item[1])
        return A.ZoneDecl(self._span(meta), name, per_player, ordered, visibility, capacity, doc, label,
                          owner_knows, discard_into, per_entity=per_entity, per_span=per_span)

    def entity_decl(self, meta, ch):
        name = str(ch[0])
        label = self._text(ch[1]) if _is_tok(ch[1], "STRING") else None
        per_player, most, plural, fields = False, None, None, []
        for item in ch[2 if label is not None else 1:]:
            if isinstance(item, list):
                words = [str(t) for t in item]
                if words == ["per", "player"]:
                    per_player = True
                elif words[:2] == ["at", "most"]:
                    most = self._int(item[2])
                elif words[0] == "plural":
                    plural = words[1]
            elif isinstance(item, tuple):       # `has:` its attributes
                fields.extend(item)
        return A.EntityDecl(self._span(meta), name, label, per_player, most, plural, tuple(fields),
                            self._docs(ch))

    def entity_prop(self, meta, ch):
        return ch

    def entity_has(self, meta, ch):
        return tuple(i for i in ch if isinstance(i, A.FieldDecl))

    def zone_prop(self, meta, ch):
        return ch

    def zone_ref_static(self, meta, ch):
        return str(ch[0])

    def card_table(self, meta, ch):
        return A.CardTable(self._span(meta), str(ch[0]), ch[1], ch[2], tuple(ch[3:]))

    def table_header(self, meta, ch):
        return tuple(self._names(ch))

    def table_row(self, meta, ch):
        """The cells, then what is indented under the row: its doc strings, abilities, keywords."""
        own = (A.DocItem, A.KeywordUse) + _ABILITIES
        cells = tuple(c for c in ch if not isinstance(c, own))
        items = [c for c in ch if isinstance(c, own)]
        return A.TableRow(self._span(meta), cells, self._docs(items), tuple(i for i in items if isinstance(i, _ABILITIES)),
                          tuple(i for i in items if isinstance(i, A.KeywordUse)))

    def cell(self, meta, ch):
        return ch[0] if ch else None

    def card_decl(self, meta, ch):
        name = self._text(ch[0])
        type_name, zone = str(ch[1]), ch[2]
        items = ch[3:]
        return A.CardDecl(
            self._span(meta), name, type_name, zone,
            tuple(i for i in items if isinstance(i, A.FieldValue)), self._docs(items),
            tuple(i for i in items if isinstance(i, _ABILITIES)),
            tuple(i for i in items if isinstance(i, A.KeywordUse)))

    def field_value(self, meta, ch):
        return A.FieldValue(self._span(meta), str(ch[0]), ch[1])

    # ---- boards: places and links (A.BoardDecl; checked by dsl/checks/boards.py)
    def board_decl(self, meta, ch):
        name = str(ch[0])
        label = self._text(ch[1]) if len(ch) > 1 and _is_tok(ch[1], "STRING") else None
        items = [i for i in ch[1:] if not _is_tok(i, "STRING")]
        places, links, shape, rows, fields, marks = [], [], None, (), (), ()
        columns, values = (), ()
        for item in items:
            if isinstance(item, tuple) and item[0] == "places":
                places += item[1]
            elif isinstance(item, tuple) and item[0] == "links":
                links += item[1]
            elif isinstance(item, tuple) and item[0] == "shape":
                shape, rows = item[1], rows + item[2]
            elif isinstance(item, tuple) and item[0] == "values":
                columns, values = item[1], values + item[2]
            elif isinstance(item, tuple) and item[0] == "fields":
                if item[1] == "place":
                    fields += item[2]
                else:
                    marks += item[2]
        return A.BoardDecl(self._span(meta), name, label, tuple(places), tuple(links), shape, rows,
                           fields, marks, self._docs(items), columns, values)

    def board_values(self, meta, ch):
        return ("values", ch[0], tuple(ch[1:]))

    def board_places(self, meta, ch):
        return ("places", tuple(ch))

    def board_place(self, meta, ch):
        return (str(ch[0]), self._text(ch[1]) if len(ch) > 1 else None, self._tok_span(ch[0]))

    def board_links(self, meta, ch):
        return ("links", tuple(ch))

    def board_link(self, meta, ch):
        return (str(ch[0]), str(ch[1]), self._span(meta))

    def board_shape(self, meta, ch):
        return ("shape", str(ch[0]), tuple(ch[1:]))

    def board_kind(self, meta, ch):
        return str(ch[0])

    def board_row(self, meta, ch):
        span = self._span(meta)
        return tuple((name, cspan if cspan.line else span) for name, cspan in ch)

    def board_cell(self, meta, ch):
        return (str(ch[0]), self._tok_span(ch[0])) if ch else (None, self._span(meta))

    def board_fields(self, meta, ch):
        return ("fields", ch[0], tuple(i for i in ch[1:] if isinstance(i, A.FieldDecl)))

    def board_owner(self, meta, ch):
        return "place" if len(ch) == 1 else "player"

    def die_decl(self, meta, ch):
        return A.DieDecl(self._span(meta), str(ch[0]), tuple(ch[1:]))

    def face(self, meta, ch):
        return tuple(self._names(ch))

    def event_decl(self, meta, ch):
        name = str(ch[0])
        params = next((c for c in ch[1:] if isinstance(c, tuple)), ())
        doc = next(iter(self._strings(ch[1:])), None)
        return A.EventDecl(self._span(meta), name, params, doc)

    def params(self, meta, ch):
        return tuple(ch)

    def param(self, meta, ch):
        return A.Param(self._span(meta), str(ch[0]), ch[1])

    def param_names(self, meta, ch):
        return tuple(self._names(ch))

    def keyword_decl(self, meta, ch):
        name = str(ch[0])
        rest = ch[1:]
        params = rest[0] if rest and isinstance(rest[0], tuple) else ()
        items = rest[1:] if params or (rest and isinstance(rest[0], tuple)) else rest
        return A.KeywordDecl(
            self._span(meta), name, params, self._docs(items),
            tuple(i for i in items if isinstance(i, _ABILITIES)),
            tuple(i for i in items if isinstance(i, A.FieldDecl)))

    def keyword_use(self, meta, ch):
        args = ch[1] if len(ch) > 1 else ()
        return A.KeywordUse(self._span(meta), str(ch[0]), tuple(args))

    # ----------------------------------------------------------------- abilities
    def card_text(self, meta, ch):
        return A.CardText(self._span(meta), ch[-1])

    def triggered(self, meta, ch):
        at_once = ("at_once",) in ch
        ch = [c for c in ch if c != ("at_once",)]
        cond = ch[1] if len(ch) == 3 else None
        return A.Triggered(self._span(meta), str(ch[0]), cond, ch[-1], at_once)

    def trigger_at_once(self, meta, ch):
        return ("at_once",)

    def activated(self, meta, ch):
        acts = []
        for item in ch[1:-1]:
            acts.extend(item if isinstance(item, list) else [item])
        return A.Activated(self._span(meta), self._text(ch[0]), tuple(acts), ch[-1])

    def act_from(self, meta, ch):
        return A.Activation(self._span(meta), "from", name=str(ch[0]), names=tuple(str(t) for t in ch))

    def act_any_time(self, meta, ch):
        return A.Activation(self._span(meta), "any_time")

    def act_own_turn(self, meta, ch):
        return A.Activation(self._span(meta), "own_turn")

    def act_if(self, meta, ch):
        return A.Activation(self._span(meta), "if", expr=ch[0])

    def act_target(self, meta, ch):
        return A.Activation(self._span(meta), "target", name=str(ch[0]), expr=ch[1])

    def act_cost(self, meta, ch):
        return list(ch)  # several costs: flattened by `activated`

    def cost_exhaust(self, meta, ch):
        return A.Activation(self._span(meta), "cost_exhaust")

    def cost_tap(self, meta, ch):
        return A.Activation(self._span(meta), "cost_tap", name=str(ch[0]))

    def cost_pay(self, meta, ch):
        return A.Activation(self._span(meta), "cost_pay", name=str(ch[1]), expr=ch[0])

    def static_mod(self, meta, ch):
        cond = ch[3] if len(ch) > 3 else None
        return A.StaticMod(self._span(meta), str(ch[0]), ch[1], ch[2], cond)

    def static_mod_game(self, meta, ch):
        cond = ch[2] if len(ch) > 2 else None
        return A.StaticMod(self._span(meta), str(ch[0]), None, ch[1], cond)

    def replacement(self, meta, ch):
        cond = ch[1] if len(ch) == 3 else None
        return A.Replacement(self._span(meta), str(ch[0]), cond, ch[-1])

    # ----------------------------------------------------------------- rules
    def define_decl(self, meta, ch):
        params = ch[1] if len(ch) == 3 else ()
        return A.DefineDecl(self._span(meta), str(ch[0]), params, ch[-1])

    def procedure_decl(self, meta, ch):
        params = ch[1] if len(ch) == 3 else ()
        return A.ProcedureDecl(self._span(meta), str(ch[0]), params, ch[-1])

    def setup_decl(self, meta, ch):
        return A.SetupDecl(self._span(meta), ch[0])

    def round_decl(self, meta, ch):
        return A.RoundDecl(self._span(meta), self._text(ch[0]), ch[1])

    def score_decl(self, meta, ch):
        return A.ScoreDecl(self._span(meta), str(ch[0]), ch[1])

    def measure_decl(self, meta, ch):
        name = self._text(ch[0])
        if len(ch) == 2 and isinstance(ch[1], Token):       # `measure "X" counts event E`
            return A.MeasureDecl(self._span(meta), name, None, None, str(ch[1]))
        player = str(ch[1]) if len(ch) == 3 else None
        return A.MeasureDecl(self._span(meta), name, player, ch[-1])

    def group_decl(self, meta, ch):
        return A.GroupDecl(self._span(meta), self._text(ch[0]), str(ch[1]), ch[2])

    def look_stmt(self, meta, ch):
        return A.LookStmt(self._span(meta), ch[0], ch[1])

    def score_win_stmt(self, meta, ch):
        return A.ScoreWinStmt(self._span(meta))

    def value_decl(self, meta, ch):
        return A.ValueDecl(self._span(meta), str(ch[0]), ch[1])

    def end_check_decl(self, meta, ch):
        name = self._text(ch[1]) if len(ch) == 3 else None
        return A.EndCheckDecl(self._span(meta), ch[0], ch[-1], name)

    def trigger_order_decl(self, meta, ch):
        return A.TriggerOrderDecl(self._span(meta), tuple(ch))

    def order_key(self, meta, ch):
        return A.OrderKey(self._span(meta), ch[0], ch[1] == "highest")

    def order_dir(self, meta, ch):
        return str(ch[0])

    def seat_order_key(self, meta, ch):
        return A.OrderKey(self._span(meta), None, False)

    def window_decl(self, meta, ch):
        after: tuple[str, ...] = ()
        order = None
        any_moment = False
        for item in ch[1:]:
            if isinstance(item, tuple) and item and item[0] == "after":
                after = item[1]
            elif isinstance(item, tuple) and item and item[0] == "order":
                order = item[1]
            elif isinstance(item, tuple) and item and item[0] == "any_moment":
                any_moment = True
        return A.WindowDecl(self._span(meta), self._text(ch[0]), after, order, self._docs(ch[1:]), any_moment)

    def window_when(self, meta, ch):
        return ("after", tuple(self._names(ch)))

    def window_any(self, meta, ch):
        return ("any_moment",)

    def window_who(self, meta, ch):
        return ("order", ch[0])

    def stack_decl(self, meta, ch):
        holds = next((c for c in ch[1:] if isinstance(c, tuple) and c and c[0] == "holds"), None)
        return A.StackDecl(self._span(meta), self._text(ch[0]), self._docs(ch[1:]),
                           holds[1] if holds else None, holds[2] if holds else None)

    def stack_holds(self, meta, ch):
        return ("holds", tuple(str(c) for c in ch if _is_tok(c, "NAME")), self._span(meta))

    # ---- decks (docs/language.md, "Decks")
    def deck_rules_decl(self, meta, ch):
        names = [c for c in ch if _is_tok(c, "NAME")]
        rules = tuple(c for c in ch if isinstance(c, A.DeckRule))
        into = names[1] if len(names) > 1 else None
        return A.DeckRulesDecl(self._span(meta), str(names[0]), self._tok_span(names[0]),
                               str(into) if into is not None else None,
                               self._tok_span(into) if into is not None else None, rules, self._docs(ch))

    def _deck_count(self, meta, ch, bound):
        what = ch[1][0]
        type_name = None if str(what) == "cards" and not _is_tok(what, "NAME") else str(what)
        return A.DeckRule(self._span(meta), "count", self._int(ch[0]), bound, type_name, self._tok_span(what))

    def deck_exactly(self, meta, ch):
        return self._deck_count(meta, ch, "exactly")

    def deck_at_least(self, meta, ch):
        return self._deck_count(meta, ch, "at least")

    def deck_at_most(self, meta, ch):
        return self._deck_count(meta, ch, "at most")

    def deck_what(self, meta, ch):
        return ch

    def deck_unique(self, meta, ch):
        return A.DeckRule(self._span(meta), "unique", excepted=tuple((str(t), self._tok_span(t)) for t in ch))

    def deck_copies(self, meta, ch):
        t = ch[1][0]
        named = _is_tok(t, "NAME")
        return A.DeckRule(self._span(meta), "copies", self._int(ch[0]), None, str(t) if named else None,
                          self._tok_span(t) if named else None)

    def deck_what_one(self, meta, ch):
        return ch

    def deck_sum(self, meta, ch):
        return A.DeckRule(self._span(meta), "sum", self._int(ch[2]), None, str(ch[1]), self._tok_span(ch[1]),
                          field=str(ch[0]))

    def deck_into(self, meta, ch):
        return A.DeckRule(self._span(meta), "into", type_name=str(ch[0]), type_span=self._tok_span(ch[0]),
                          zone=str(ch[1]))

    def scenario_decl(self, meta, ch):
        options = dict(o for o in ch[1:-1])
        return A.ScenarioDecl(self._span(meta), self._text(ch[0]), options.get("players"), ch[-1],
                              options.get("seed"))

    def scenario_players(self, meta, ch):
        return ("players", self._players(ch[0]))

    def scenario_seed(self, meta, ch):
        return ("seed", self._int(ch[0]))

    # ----------------------------------------------------------------- statements
    def block(self, meta, ch):
        return tuple(ch)

    def move_stmt(self, meta, ch):
        what, place, to, face = ch[0], None, None, None
        for item in ch[1:]:
            if isinstance(item, tuple) and item[0] == "place":
                place = item[1]
            elif isinstance(item, tuple) and item[0] == "face":
                face = item[1]
            else:
                to = item
        return A.MoveStmt(self._span(meta), what, to, place, face)

    def placement(self, meta, ch):
        return ("place", ch[0])

    def place(self, meta, ch):
        return str(ch[0])

    def facing(self, meta, ch):
        return ("face", ch[0])

    def face_dir(self, meta, ch):
        return str(ch[0])

    def zone_expr(self, meta, ch):
        return ch[0]

    def shuffle_stmt(self, meta, ch):
        return A.ShuffleStmt(self._span(meta), ch[0])

    def flip_stmt(self, meta, ch):
        return A.FlipStmt(self._span(meta), ch[0], ch[1])

    def set_stmt(self, meta, ch):
        return A.SetStmt(self._span(meta), ch[0], ch[1])

    def add_stmt(self, meta, ch):
        return A.AddStmt(self._span(meta), ch[0], ch[1])

    def subtract_stmt(self, meta, ch):
        return A.SubtractStmt(self._span(meta), ch[0], ch[1])

    def let_stmt(self, meta, ch):
        return A.LetStmt(self._span(meta), str(ch[0]), ch[1])

    def choose_stmt(self, meta, ch):
        prompt = self._text(ch[3]) if len(ch) > 3 else None
        return A.ChooseStmt(self._span(meta), ch[0], str(ch[1]), ch[2], prompt)

    def announce_stmt(self, meta, ch):
        args = ch[1] if len(ch) > 1 else ()
        return A.AnnounceStmt(self._span(meta), str(ch[0]), tuple(args))

    def args(self, meta, ch):
        return tuple(ch)

    def eliminate_stmt(self, meta, ch):
        return A.EliminateStmt(self._span(meta), ch[0])

    def win_stmt(self, meta, ch):
        return A.WinStmt(self._span(meta), ch[0])

    def draw_game_stmt(self, meta, ch):
        return A.DrawGameStmt(self._span(meta))

    def stop_stmt(self, meta, ch):
        return A.StopStmt(self._span(meta))

    def call_stmt(self, meta, ch):
        args = ch[1] if len(ch) > 1 else ()
        return A.CallStmt(self._span(meta), str(ch[0]), tuple(args))

    def roll_stmt(self, meta, ch):
        return A.RollStmt(self._span(meta), ch[0], str(ch[1]), str(ch[2]))

    # dice pools and the supply (issue 14): interpreter/dice.py runs them
    def roll_pool_stmt(self, meta, ch):
        groups, i = [], 0
        while i + 1 < len(ch) and not _is_tok(ch[i], "NAME") and _is_tok(ch[i + 1], "NAME"):
            groups.append((ch[i], str(ch[i + 1])))
            i += 2
        return A.RollPoolStmt(self._span(meta), tuple(groups), str(ch[i]), ch[i + 1] if i + 1 < len(ch) else None)

    def roll_into_stmt(self, meta, ch):
        return A.RollIntoStmt(self._span(meta), ch[0], str(ch[1]), str(ch[2]))

    def reroll_stmt(self, meta, ch):
        return A.RerollStmt(self._span(meta), ch[0], str(ch[1]))

    def turn_die_stmt(self, meta, ch):
        return A.TurnDieStmt(self._span(meta), ch[0], str(ch[1]), ch[2])

    def remove_dice_stmt(self, meta, ch):
        return A.RemoveDiceStmt(self._span(meta), ch[0], str(ch[1]))

    def hand_out_cards_stmt(self, meta, ch):
        face = ch.pop()[1] if isinstance(ch[-1], tuple) and ch[-1][0] == "face" else None
        each = str(ch[2]) if len(ch) == 5 else None
        return A.HandOutCardsStmt(self._span(meta), ch[0], ch[1], str(ch[-2]), ch[-1], each, face)

    def hand_out_stmt(self, meta, ch):
        each = str(ch[3]) if len(ch) == 5 else None
        return A.HandOutStmt(self._span(meta), ch[0], str(ch[1]), str(ch[2]), ch[-1], each)

    def counter_stmt(self, meta, ch):
        return A.CounterStmt(self._span(meta), ch[0])

    def negate_stmt(self, meta, ch):
        return A.NegateStmt(self._span(meta), ch[0])

    def skip_stmt(self, meta, ch):
        return A.SkipStmt(self._span(meta), self._text(ch[0]))

    def resolve_stmt(self, meta, ch):
        return A.ResolveStmt(self._span(meta), ch[0], ch[1] if len(ch) > 1 else None)

    def create_stmt(self, meta, ch):
        return A.CreateStmt(self._span(meta), str(ch[0]), ch[1], str(ch[2]) if len(ch) > 2 else None,
                            self._tok_span(ch[0]))

    def destroy_stmt(self, meta, ch):
        return A.DestroyStmt(self._span(meta), ch[-1])

    def expect_stmt(self, meta, ch):
        return A.ExpectStmt(self._span(meta), ch[0])

    def give_stmt(self, meta, ch):
        return A.GiveStmt(self._span(meta), ch[0], ch[1])

    def log_stmt(self, meta, ch):
        return A.SayStmt(self._span(meta), self._text(ch[0]), tuple(ch[1:]))

    def event_pattern(self, meta, ch):
        return (str(ch[0]), ch[1] if len(ch) > 1 else None)

    def expect_event_stmt(self, meta, ch):
        (event, cond), later = ch[0], (ch[1] if len(ch) > 1 else None)
        if later is None:
            return A.ExpectEventStmt(self._span(meta), event, cond, "happened")
        return A.ExpectEventStmt(self._span(meta), event, cond, "before", later[0], later[1])

    def expect_event_not(self, meta, ch):
        event, cond = ch[0]
        return A.ExpectEventStmt(self._span(meta), event, cond, "not")

    def stack_deck_stmt(self, meta, ch):
        return A.StackDeckStmt(self._span(meta), ch[0], tuple(ch[1:-1]), ch[-1])

    def play_setup(self, meta, ch):
        return A.PlayStmt(self._span(meta), "setup")

    def play_rounds(self, meta, ch):
        return A.PlayStmt(self._span(meta), "rounds", self._int(ch[0]))

    def play_until_step(self, meta, ch):
        return A.PlayStmt(self._span(meta), "until_step", step=self._text(ch[0]))

    def play_until(self, meta, ch):
        return A.PlayStmt(self._span(meta), "until", 0, ch[0])

    def play_to_end(self, meta, ch):
        return A.PlayStmt(self._span(meta), "end")

    def if_stmt(self, meta, ch):
        branches = [(ch[0], ch[1])]
        else_body = None
        for item in ch[2:]:
            if isinstance(item, tuple) and item and item[0] == "elif":
                branches.append((item[1], item[2]))
            elif isinstance(item, tuple) and item and item[0] == "else":
                else_body = item[1]
        return A.IfStmt(self._span(meta), tuple(branches), else_body)

    def elif_clause(self, meta, ch):
        return ("elif", ch[0], ch[1])

    def else_clause(self, meta, ch):
        return ("else", ch[0])

    def for_stmt(self, meta, ch):
        cond = ch[2] if len(ch) == 4 else None
        return A.ForStmt(self._span(meta), str(ch[0]), ch[1], cond, ch[-1])

    def repeat_stmt(self, meta, ch):
        return A.RepeatStmt(self._span(meta), ch[0])

    def while_stmt(self, meta, ch):
        return A.WhileStmt(self._span(meta), ch[0] == "until", ch[1], ch[2])

    def while_kind(self, meta, ch):
        return str(ch[0])

    def times_stmt(self, meta, ch):
        return A.TimesStmt(self._span(meta), ch[0], ch[1])

    def step_stmt(self, meta, ch):
        return A.StepStmt(self._span(meta), "step", self._text(ch[0]), ch[1])

    def phase_stmt(self, meta, ch):
        return A.StepStmt(self._span(meta), "phase", self._text(ch[0]), ch[1])

    def turn_stmt(self, meta, ch):
        return A.TurnStmt(self._span(meta), ch[0], ch[1])

    def may_stmt(self, meta, ch):
        return A.MayStmt(self._span(meta), ch[0], self._text(ch[1]), ch[2])

    def take_actions_stmt(self, meta, ch):
        return A.TakeActionsStmt(self._span(meta), ch[0])

    def choose_many_stmt(self, meta, ch):
        mode, count = ch[1]
        prompt = self._text(ch[4]) if len(ch) > 4 else None
        return A.ChooseManyStmt(self._span(meta), ch[0], mode, count, ch[2], str(ch[3]), prompt)

    def count_any(self, meta, ch):
        return ("any", None)

    def count_up_to(self, meta, ch):
        return ("up to", ch[0])

    def count_exactly(self, meta, ch):
        return ("exactly", ch[0])

    def order_stmt(self, meta, ch):
        prompt = self._text(ch[3]) if len(ch) > 3 else None
        return A.ChooseManyStmt(self._span(meta), ch[0], "order", None, ch[1], str(ch[2]), prompt)

    def choose_one_stmt(self, meta, ch):
        prompt = self._text(ch[1]) if len(ch) > 1 and _is_tok(ch[1], "STRING") else None
        return A.ChooseOneStmt(self._span(meta), ch[0], prompt, tuple(c for c in ch[1:] if isinstance(c, A.MenuOption)))

    def menu_text(self, meta, ch):
        cond = ch[1] if len(ch) == 3 else None
        return A.MenuOption(self._span(meta), self._text(ch[0]), None, None, cond, ch[-1])

    def menu_each(self, meta, ch):
        label = self._text(ch[0]) if _is_tok(ch[0], "STRING") else None
        rest = ch[1:] if label is not None else ch
        return A.MenuOption(self._span(meta), label, str(rest[0]), rest[1], None, rest[-1])

    def secret_stmt(self, meta, ch):
        prompt = self._text(ch[3]) if len(ch) == 5 else None
        return A.SecretStmt(self._span(meta), ch[0], str(ch[1]), ch[2], prompt, ch[-1])

    # ----------------------------------------------------------------- expressions
    def where_expr(self, meta, ch):
        """`force of cards in X where ready` filters the cards, as it reads: the grammar binds
        `where` looser than `of` (one LALR parse), so the filter moves inside the `of` here.
        A bracketed `(force of cards in X) where it > 2` filters the numbers."""
        coll, cond = ch
        if isinstance(coll, A.FieldOf) and not self._bracketed(coll, cond):
            return self._filter_inside(coll, cond)
        return A.WhereExpr(self._span(meta), coll, cond)

    def _filter_inside(self, of: A.FieldOf, cond) -> A.FieldOf:
        obj = of.obj
        if isinstance(obj, A.FieldOf) and not self._bracketed(obj, cond):
            inner = self._filter_inside(obj, cond)        # a of b of C where ...: C is filtered
        else:
            inner = A.WhereExpr(_joined(obj.span, cond.span), obj, cond)
        return A.FieldOf(_joined(of.span, cond.span), of.name, inner)

    def _bracketed(self, node, cond) -> bool:
        """Does a ')' stand between `node` and the `where` condition after it?"""
        if self._src is None:
            return False
        end = self._starts[node.span.end_line - self._shift - 1] + node.span.end_column - 1
        start = self._starts[cond.span.line - self._shift - 1] + cond.span.column - 1
        return ")" in self._src[end:start]

    def expr_map(self, meta, ch):
        cond = ch[3] if len(ch) == 4 else None
        return A.ExprMap(self._span(meta), ch[0], str(ch[1]), ch[2], cond)

    def or_chain(self, meta, ch):
        return ch[0] if len(ch) == 1 else A.OrChain(self._span(meta), tuple(ch))

    def and_chain(self, meta, ch):
        return ch[0] if len(ch) == 1 else A.AndChain(self._span(meta), tuple(ch))

    def not_op(self, meta, ch):
        return A.NotOp(self._span(meta), ch[0])

    def compare(self, meta, ch):
        return A.Compare(self._span(meta), ch[1], ch[0], ch[2])

    def comp_op(self, meta, ch):
        return str(ch[0])

    def is_empty(self, meta, ch):
        return A.IsEmpty(self._span(meta), ch[0], False)

    def is_not_empty(self, meta, ch):
        return A.IsEmpty(self._span(meta), ch[0], True)

    def is_in_play(self, meta, ch):
        return A.IsInPlay(self._span(meta), ch[0], False)

    def is_not_in_play(self, meta, ch):
        return A.IsInPlay(self._span(meta), ch[0], True)

    def is_in(self, meta, ch):
        return A.IsIn(self._span(meta), ch[0], ch[1], False)

    def is_not_in(self, meta, ch):
        return A.IsIn(self._span(meta), ch[0], ch[1], True)

    def is_a(self, meta, ch):
        return A.IsA(self._span(meta), ch[0], str(ch[1]))

    def is_eq(self, meta, ch):
        return A.Compare(self._span(meta), "=", ch[0], ch[1])

    def is_not_eq(self, meta, ch):
        return A.Compare(self._span(meta), "!=", ch[0], ch[1])

    def arith(self, meta, ch):
        node = ch[0]
        span = self._span(meta)
        for i in range(1, len(ch), 2):
            # `mod` is a node of its own (its English and its errors are not division's)
            node = A.Modulo(span, node, ch[i + 1]) if ch[i] == "mod" else A.Arith(span, ch[i], node, ch[i + 1])
        return node

    # ---- the expressions of issue 10 (face, keywords, if-then-else, lists, random, sort, seats)
    def is_face(self, meta, ch):
        return A.IsFace(self._span(meta), ch[0], ch[1] == "up")

    def has_seen(self, meta, ch):
        return A.HasSeen(self._span(meta), ch[0], ch[1])

    def is_known_to(self, meta, ch):
        return A.HasSeen(self._span(meta), ch[1], ch[0])

    def has_keyword(self, meta, ch):
        return A.HasKeyword(self._span(meta), ch[0], str(ch[1]), False)

    def has_no_keyword(self, meta, ch):
        return A.HasKeyword(self._span(meta), ch[0], str(ch[1]), True)

    def cond_expr(self, meta, ch):
        return A.CondExpr(self._span(meta), ch[0], ch[1], ch[2])

    def item_of(self, meta, ch):
        return A.ItemOf(self._span(meta), ch[0], ch[1])

    def random_pick(self, meta, ch):
        return A.RandomPick(self._span(meta), str(ch[0]), ch[1])

    def random_number(self, meta, ch):
        return A.RandomNumber(self._span(meta), ch[0], ch[1])

    # ---- numbers as options, positions, defaults (issue 18)
    def number_range(self, meta, ch):
        return A.NumberRange(self._span(meta), ch[0], ch[1])

    def position_in(self, meta, ch):
        return A.PositionIn(self._span(meta), ch[0], ch[1])

    def card_from(self, meta, ch):
        return A.CardFrom(self._span(meta), ch[0], str(ch[1]), ch[2])

    def otherwise(self, meta, ch):
        node, span = ch[0], self._span(meta)
        for default in ch[1:]:
            node = A.Otherwise(span, node, default)
        return node

    def sort_key(self, meta, ch):
        return A.SortKey(self._span(meta), ch[0], ch[1] == "highest")

    def sorted_expr(self, meta, ch):
        return A.SortedExpr(self._span(meta), ch[0], tuple(ch[1:]))

    def current_step(self, meta, ch):
        return A.CurrentStep(self._span(meta), "step")

    def current_phase(self, meta, ch):
        return A.CurrentStep(self._span(meta), "phase")

    def places_adjacent(self, meta, ch):
        return A.PlacesAdjacent(self._span(meta), ch[0])

    def places_within(self, meta, ch):
        return A.PlacesWithin(self._span(meta), ch[0], ch[1])

    def places_of(self, meta, ch):
        return A.PlacesOf(self._span(meta), str(ch[0]))

    def distance_between(self, meta, ch):
        return A.DistanceBetween(self._span(meta), ch[0], ch[1])

    def shortest_path(self, meta, ch):
        return A.ShortestPath(self._span(meta), ch[0], ch[1])

    def place_mark(self, meta, ch):
        return A.PlaceMark(self._span(meta), str(ch[0]), ch[1], ch[2])

    def seat_of(self, meta, ch):
        return A.SeatOf(self._span(meta), ch[0])

    def seat_expr(self, meta, ch):
        return A.SeatExpr(self._span(meta), ch[0])

    def seats_from(self, meta, ch):
        return A.SeatsFrom(self._span(meta), ch[0], ch[1], ch[2])

    def seat_side(self, meta, ch):
        return str(ch[0])

    def add_op(self, meta, ch):
        return str(ch[0])

    mul_op = add_op

    def neg(self, meta, ch):
        return A.Neg(self._span(meta), ch[0])

    def field_access(self, meta, ch):
        return A.FieldAccess(self._span(meta), ch[0], str(ch[1]))

    def possessive(self, meta, ch):
        return A.Possessive(self._span(meta), ch[0], str(ch[1]))

    def your(self, meta, ch):
        return A.Your(self._span(meta), str(ch[0]))

    def field_of(self, meta, ch):
        return A.FieldOf(self._span(meta), str(ch[0]), ch[1])

    def cards_in(self, meta, ch):
        return A.CardsIn(self._span(meta), ch[0])

    def every_zone(self, meta, ch):
        return A.EveryZone(self._span(meta), str(ch[0]))

    def top_card(self, meta, ch):
        return A.TopCard(self._span(meta), ch[0], ch[1])

    def top_cards(self, meta, ch):
        return A.TopCards(self._span(meta), ch[0], ch[1], ch[2])

    def number(self, meta, ch):
        return A.Num(self._span(meta), self._int(ch[0]))

    def neg_number(self, meta, ch):
        return A.Num(self._span(meta), -self._int(ch[0]))

    def text(self, meta, ch):
        return A.Text(self._span(meta), self._text(ch[0]))

    def yes(self, meta, ch):
        return A.Bool(self._span(meta), True)

    def no(self, meta, ch):
        return A.Bool(self._span(meta), False)

    def nothing(self, meta, ch):
        return A.Nothing(self._span(meta))

    def name(self, meta, ch):
        return A.Name(self._span(meta), str(ch[0]))

    def call(self, meta, ch):
        args = ch[1] if len(ch) > 1 else ()
        return A.Call(self._span(meta), str(ch[0]), tuple(args))

    def active_player(self, meta, ch):
        return A.ActivePlayer(self._span(meta))

    def this(self, meta, ch):
        return A.This(self._span(meta))

    def stack_expr(self, meta, ch):
        return A.StackExpr(self._span(meta))

    def winners_expr(self, meta, ch):
        return A.WinnersExpr(self._span(meta))

    def seat_player(self, meta, ch):
        return A.SeatPlayer(self._span(meta), self._int(ch[0]))

    def you(self, meta, ch):
        return A.You(self._span(meta))

    def players_expr(self, meta, ch):
        return A.PlayersExpr(self._span(meta))

    def all_entities(self, meta, ch):
        return A.AllEntities(self._span(meta), str(ch[0]))

    def entity_holding(self, meta, ch):     # `the ship holding c`
        return A.EntityHolding(self._span(meta), str(ch[0]), ch[-1])

    def owner_of(self, meta, ch):           # `the owner of s`: as `owner of s`
        return A.FieldOf(self._span(meta), "owner", ch[-1])

    def all_players(self, meta, ch):
        return A.AllPlayers(self._span(meta))

    def opponents(self, meta, ch):
        return A.Opponents(self._span(meta))

    def groups_of(self, meta, ch):
        size, rest = ch[0], ch[1:]
        noun = str(rest[0][0]) if len(rest) == 2 else None
        return A.GroupsOf(self._span(meta), size, noun, rest[-1])

    def group_noun(self, meta, ch):
        return ch

    def subsets_of(self, meta, ch):
        return A.SubsetsOf(self._span(meta), ch[0])

    def arrangement_expr(self, meta, ch):
        return A.BestArrangement(self._span(meta), ch[0], ch[1], ch[2])

    def list_expr(self, meta, ch):
        return A.ListExpr(self._span(meta), tuple(ch))

    def __default__(self, data, children, meta):
        # A grammar rule with no AST conversion is a bug in cardsmith, not in the game file.
        raise NotImplementedError(f"no AST conversion for grammar rule '{data}'")


def to_ast(tree: Tree, path: str, text: str | None = None,
           diagnostics: list[Diagnostic] | None = None, first_line: int = 1) -> A.Module:
    """Convert a parse tree of `path` (whose source is `text`) into an `ast.Module`.

    A literal over a bound of dsl/bounds.py (a number, a text, a name, a number of players) is
    a located diagnostic: appended to `diagnostics` when given (the module is then built with
    the value cut to its bound, and should not be checked further), else raised as a
    CardsmithError. `first_line`: the line of the file `text` starts at, when it is one
    declaration of the file parsed alone (dsl/loader.py): every span is the file's.
    """
    converter = ToAst(path, text, first_line)
    for tok in tree.scan_values(lambda v: isinstance(v, Token) and v.type == "NAME"
                                and len(v) > MAX_STRING_LENGTH):
        converter._long_name(tok)
    module = converter.transform(tree)
    if diagnostics is not None:
        diagnostics.extend(converter.problems)
    elif converter.problems:
        raise CardsmithError(converter.problems)
    return module
