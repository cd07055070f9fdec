"""What each name of a .cards text is: its declarations, and every place a name is written.

The index is read from the text's tokens and lines (dsl/fmt.py `logical_lines`), not from the
parse tree, because an editor asks about a file while it is being typed and rarely parses:
an unfinished line must not take away go to definition in the rest of the file. The rules
are the language's: a declaration's kind and name are its first words; the names a rule
gives itself (`let x be`, `for each p in`, `chooses c from`, `roll ... as r`, its parameters)
are local to that top-level declaration; inside `when E` / `instead of E` the parameters of
the event E are names; everything else is a declared name of the game.

Positions here are 1-based lines and columns in characters, as in `Span`; dsl/lsp/convert.py
turns them into the editor's.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..fmt import Tok, logical_lines
from ..registry import EVENTS
from ..transformer import unquote

# The words that open an ability or a keyword use inside a card type / keyword block: a line
# `NAME: type` there that starts with one of them is not a field.
_NOT_FIELD = frozenset({"when", "action", "modify", "instead", "keyword", "text"})
# Top-level declarations named by a quoted text after their words.
_TITLED = {"game": "game", "round": "round", "rule": "rule", "scenario": "scenario",
           "stack": "stack", "interpretation": "interpretation", "import": "import",
           "extends": "extends", "term": "term", "credit": "credit"}
# Top-level declarations named by the word after their first word.
_NAMED = {"zone": "zone", "die": "die", "event": "event", "define": "define",
          "procedure": "procedure", "keyword": "keyword", "enum": "enum", "board": "board",
          "entity": "entity kind"}


@dataclass
class Symbol:
    """A declared name: where it is written in its declaration, and what the declaration says."""
    name: str
    kind: str               # zone, field, player attribute, game attribute, procedure, define, event,
    #                         enum, member, card type, keyword, die, card, parameter, local, round, ...
    path: str
    line: int
    column: int
    end_column: int
    container: str | None = None     # the card type of a field, the enum of a member, the rule of a local
    detail: str = ""                 # the declaration's first line, as written
    docs: list[str] = field(default_factory=list)
    first_line: int = 0              # the lines the whole declaration takes
    last_line: int = 0
    children: list["Symbol"] = field(default_factory=list)
    quoted: bool = False             # named by a quoted text (a card): its occurrences are texts

    @property
    def key(self) -> tuple:
        return (self.kind, self.container if self.kind in ("local", "parameter", "field", "member") else None,
                self.name, self.path if self.kind in ("local", "parameter") else None)


@dataclass(frozen=True)
class Occurrence:
    """One written name (or quoted text) and where."""
    name: str
    path: str
    line: int
    column: int
    end_column: int
    quoted: bool
    segment: int            # index of the top-level declaration it is in
    before: tuple[str, ...]  # up to two tokens before it on its line, for the context of a name
    after: str              # the token after it on its line ('' at the end)


@dataclass
class Segment:
    """One top-level declaration: its lines and the names it gives itself."""
    first_line: int
    last_line: int
    head: list[Tok]
    locals: dict[str, Symbol] = field(default_factory=dict)
    # (line, level, event name) of each `when E` / `instead of E` in it, for the event's parameters
    listeners: list[tuple[int, int, str]] = field(default_factory=list)
    levels: list[tuple[int, int]] = field(default_factory=list)     # (line, block level) of its code lines


@dataclass
class FileIndex:
    path: str
    text: str
    symbols: list[Symbol] = field(default_factory=list)         # top-level, children inside
    occurrences: list[Occurrence] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)
    includes: list[tuple[str, Occurrence]] = field(default_factory=list)   # (path written, where)

    def all_symbols(self):
        for s in self.symbols:
            yield s
            yield from s.children

    def segment_at(self, line: int) -> Segment | None:
        for seg in self.segments:
            if seg.first_line <= line <= seg.last_line:
                return seg
        return None


def _sym(name, kind, path, tok: Tok, **extra) -> Symbol:
    return Symbol(name, kind, path, tok.line, tok.column, tok.column + len(tok.text), **extra)


def _docs(tokens: list[Tok]) -> list[str]:
    return [unquote(t.text) for t in tokens if t.kind == "string"]


def build(path: str, text: str) -> FileIndex:
    """The index of one file's text (any text: broken lines are read as far as they go)."""
    index = FileIndex(path, text)
    lines = [ln for ln in logical_lines(text) if ln.kind in ("code", "more")]
    groups: list[list] = []
    for ln in lines:
        if ln.kind == "code" and ln.level == 0 or not groups:
            groups.append([ln])
        else:
            groups[-1].append(ln)
    for number, group in enumerate(groups):
        head = [t for ln in group if ln is group[0] or ln.kind == "more" for t in ln.tokens]
        first = group[0].tokens[0].line
        last = max(t.end_line for ln in group for t in ln.tokens)
        seg = Segment(first, last, head)
        index.segments.append(seg)
        _declaration(index, seg, group)
        _locals(index, seg, group)
        for ln in group:
            toks = [t for t in ln.tokens if t.kind != "comment"]
            for i, tok in enumerate(toks):
                if tok.kind in ("name", "string"):
                    before = tuple(t.text for t in toks[max(0, i - 2):i])
                    after = toks[i + 1].text if i + 1 < len(toks) else ""
                    quoted = tok.kind == "string"
                    name = unquote(tok.text) if quoted else tok.text
                    index.occurrences.append(Occurrence(name, path, tok.line, tok.column,
                                                        tok.column + len(tok.text), quoted, number,
                                                        before, after))
                    if quoted and before and before[-1] in ("import", "extends"):
                        index.includes.append((name, index.occurrences[-1]))
    return index


def _declaration(index: FileIndex, seg: Segment, group: list) -> None:
    """The symbols one top-level declaration declares."""
    path = index.path
    toks = [t for t in seg.head if t.kind != "comment"]
    if not toks:
        return
    if toks[0].text == "override" and len(toks) > 1:
        toks = toks[1:]
    words = [t.text for t in toks]
    body = [ln for ln in group[1:] if ln.kind == "code"]
    span = {"first_line": seg.first_line, "last_line": seg.last_line,
            "detail": _line_text(index.text, toks[0].line)}
    sym: Symbol | None = None
    w0 = words[0]
    if w0 == "card" and len(words) > 2 and words[1] == "type" and toks[2].kind == "name":
        sym = _sym(words[2], "card type", path, toks[2], **span)
        sym.children = _fields(body, "field", path, words[2], index.text)
    elif w0 == "card" and len(toks) > 1 and toks[1].kind == "string":
        sym = _sym(unquote(toks[1].text), "card", path, toks[1], quoted=True,
                   container=words[3] if len(words) > 3 and words[2] == ":" else None, **span)
    elif w0 in ("player", "game") and len(words) > 1 and words[1] == "has":
        owner = f"{w0} attribute"
        sym = _sym(f"{w0} has", "attributes", path, toks[0], **span)
        sym.children = _fields(body, owner, path, w0, index.text)
    elif words[:5] == ["player", "toward", "a", "player", "has"]:     # `player toward a player has:`
        sym = _sym("player toward a player has", "attributes", path, toks[0], **span)
        sym.children = _fields(body, "attribute toward each other player", path, "player", index.text)
    elif w0 == "cards" and len(toks) > 1 and toks[1].kind == "name":
        sym = _sym(words[1], "card table", path, toks[1], **span)
        sym.children = _table_cards(body, path, words[1], index.text)
    elif w0 in _NAMED and len(toks) > 1 and toks[1].kind == "name":
        sym = _sym(words[1], _NAMED[w0], path, toks[1], **span)
        if w0 == "enum":
            colon = words.index(":") if ":" in words else len(words)
            sym.children = [_sym(t.text, "member", path, t, container=words[1], detail=span["detail"])
                            for t in toks[colon + 1:] if t.kind == "name"]
        if w0 in ("event", "keyword"):
            sym.children = _typed_params(toks, path, words[1], "parameter")
        if w0 == "zone" or w0 == "event":
            sym.docs = _docs(toks[2:])
        if w0 == "board":
            sym.children = _board_parts(body, path, words[1], index.text)
        if w0 == "entity":          # its attributes, under `has:` (docs/language.md, "entity")
            sym.children = _entity_fields(body, path, words[1], index.text)
    elif w0 in _TITLED and len(toks) > 1 and toks[1].kind == "string":
        sym = _sym(unquote(toks[1].text), _TITLED[w0], path, toks[1], quoted=True, **span)
    elif w0 == "response" and len(toks) > 2 and toks[2].kind == "string":
        sym = _sym(unquote(toks[2].text), "response window", path, toks[2], quoted=True, **span)
    elif w0 in ("setup", "order") or words[:3] == ["as", "soon", "as"]:
        name = {"setup": "setup", "order": "trigger order"}.get(w0, span["detail"].split("#")[0].strip().rstrip(":"))
        sym = _sym(name, w0 if w0 == "setup" else "rule", path, toks[0], **span)
    if sym is None:
        return
    sym.docs = sym.docs or [unquote(t.text) for ln in body for t in ln.tokens[:1]
                            if t.kind == "string" and ln.level == 1 and len(ln.tokens) == 1]
    sym.children += _steps(body, path, index.text)
    index.symbols.append(sym)


def _fields(body, kind: str, path: str, container: str, text: str) -> list[Symbol]:
    out = []
    for i, ln in enumerate(body):
        t = ln.tokens
        if (ln.level == 1 and len(t) > 2 and t[0].kind == "name" and t[0].text not in _NOT_FIELD
                and (t[1].text == ":" or (t[1].kind == "string" and len(t) > 3 and t[2].text == ":"))):
            docs = []
            for d in body[i + 1:]:          # the doc lines indented under the field
                if d.level != 2 or len(d.tokens) != 1 or d.tokens[0].kind != "string":
                    break
                docs.append(unquote(d.tokens[0].text))
            out.append(_sym(t[0].text, kind, path, t[0], container=container,
                            detail=_line_text(text, t[0].line), docs=docs, first_line=t[0].line,
                            last_line=t[0].line))
    return out


def _entity_fields(body, path: str, kind: str, text: str) -> list[Symbol]:
    """An entity kind's attributes: the fields indented under its `has:`."""
    out = []
    for ln in body:
        t = [u for u in ln.tokens if u.kind != "comment"]
        if ln.level == 2 and len(t) > 1 and t[0].kind == "name" and (t[1].text == ":" or t[1].kind == "string"):
            out.append(_sym(t[0].text, "entity attribute", path, t[0], container=kind,
                            detail=_line_text(text, t[0].line)))
    return out


def _board_parts(body, path: str, board: str, text: str) -> list[Symbol]:
    """A board's places (`places: A, B "Bee"`, and the names in the rows of a `grid:` / `hex:`,
    each a zone), its fields (`place has:`) and its marks (`player on a place has:`)."""
    out, owner, shape = [], None, False
    for ln in body:
        t = [u for u in ln.tokens if u.kind != "comment"]
        if not t:
            continue
        if ln.level == 1:
            owner = ("place field" if t[0].text == "place" else "mark" if t[0].text == "player" else None)
            shape = t[0].text in ("grid", "hex")        # its rows name places; `values:` rows use them
            if t[0].text == "places":
                out += [_sym(u.text, "zone", path, u, container=board, detail=_line_text(text, u.line))
                        for i, u in enumerate(t) if u.kind == "name" and i > 0 and t[i - 1].text in (":", ",")]
        elif ln.level == 2 and t[0].text == "|" and shape:
            out += [_sym(u.text, "zone", path, u, container=board, detail=_line_text(text, u.line))
                    for u in t if u.kind == "name"]
        elif ln.level == 2 and owner is not None and t[0].kind == "name" and len(t) > 1 \
                and (t[1].text == ":" or t[1].kind == "string"):
            out.append(_sym(t[0].text, owner, path, t[0], container=board, detail=_line_text(text, t[0].line)))
    return out


def _table_cards(body, path: str, card_type: str, text: str) -> list[Symbol]:
    """The cards of a card table: the `name` column of its rows."""
    rows = [ln for ln in body if ln.tokens and ln.tokens[0].text == "|"]
    if not rows:
        return []
    header = [t.text for t in rows[0].tokens if t.text != "|"]
    if "name" not in header:
        return []
    column = header.index("name")
    out = []
    for row in rows[1:]:
        cells, cell = [], []
        for t in row.tokens[1:]:
            if t.text == "|":
                cells.append(cell)
                cell = []
            elif t.kind != "comment":
                cell.append(t)
        if column < len(cells) and cells[column] and cells[column][0].kind == "string":
            tok = cells[column][0]
            out.append(_sym(unquote(tok.text), "card", path, tok, quoted=True, container=card_type,
                            detail=_line_text(text, tok.line), first_line=tok.line, last_line=tok.line))
    return out


def _typed_params(toks: list[Tok], path: str, owner: str, kind: str) -> list[Symbol]:
    """`(winner: player, card: card)` after a declaration's name."""
    out, depth = [], 0
    for i, t in enumerate(toks):
        depth += t.text == "("
        depth -= t.text == ")"
        if depth == 1 and t.kind == "name" and i + 1 < len(toks) and toks[i + 1].text == ":" \
                and toks[i - 1].text in ("(", ","):
            type_words = []
            for u in toks[i + 2:]:
                if u.text in (",", ")"):
                    break
                type_words.append(u.text)
            out.append(_sym(t.text, kind, path, t, container=owner,
                            detail=f"{t.text}: {' '.join(type_words)}"))
    return out


def _steps(body, path: str, text: str) -> list[Symbol]:
    """`phase "X":` / `step "X":` inside a rule, for the outline."""
    out = []
    for ln in body:
        t = ln.tokens
        if len(t) > 1 and t[0].text in ("phase", "step") and t[1].kind == "string" and (len(t) < 3 or t[2].text == ":"):
            out.append(_sym(unquote(t[1].text), t[0].text, path, t[1], quoted=True,
                            detail=_line_text(text, t[0].line), first_line=t[0].line, last_line=t[0].line))
    return out


def _locals(index: FileIndex, seg: Segment, group: list) -> None:
    """The names a top-level declaration gives itself, and where its abilities listen."""
    toks = [t for ln in group for t in ln.tokens if t.kind != "comment"]
    words = [t.text for t in toks]
    owner = f"{seg.first_line}"
    if words[:1] in (["procedure"], ["define"]) or words[:2] in (["override", "procedure"], ["override", "define"]):
        start = words.index("(") if "(" in words else len(words)
        for t in toks[start + 1:]:
            if t.text == ")":
                break
            if t.kind == "name":
                seg.locals.setdefault(t.text, _sym(t.text, "parameter", index.path, t, container=owner,
                                                    detail=f"parameter of {words[1 if words[0] != 'override' else 2]}"))
    if words[:1] == ["keyword"]:
        for p in _typed_params(toks, index.path, owner, "parameter"):
            seg.locals.setdefault(p.name, p)
    for ln in group:
        line = [t for t in ln.tokens if t.kind != "comment"]
        said = [t.text for t in line]
        for i, t in enumerate(line):
            if t.kind != "name":
                continue
            prev = said[i - 1] if i else ""
            nxt = said[i + 1] if i + 1 < len(said) else ""
            # let x be / for each x in / chooses x from / ... as x (roll, chooses N of, orders),
            # but not `define f as x` or `as soon as x`
            if ((prev == "let" and nxt == "be") or (prev == "each" and nxt == "in")
                    or (prev == "chooses" and nxt == "from")
                    or (prev == "pool" and i >= 2 and said[i - 2] == "as")     # roll ... as pool x
                    or (prev == "player" and said[:2] == ["give", "out"] and said[i - 2] == "each")
                    or (prev == "as" and nxt in ("", ",") and said[0] not in ("define", "override", "as"))):
                seg.locals.setdefault(t.text, _sym(t.text, "local", index.path, t, container=owner,
                                                    detail=_line_text(index.text, t.line)))
    for ln in group:
        t = [x.text for x in ln.tokens]
        if ln.kind == "code":
            seg.levels.append((ln.tokens[0].line, ln.level))
        if len(t) > 1 and t[0] == "when":
            seg.listeners.append((ln.tokens[0].line, ln.level, t[1]))
        elif len(t) > 2 and t[:2] == ["instead", "of"]:
            seg.listeners.append((ln.tokens[0].line, ln.level, t[2]))


def _line_text(text: str, line: int) -> str:
    lines = text.split("\n")
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


# ---------------------------------------------------------------- the whole game


@dataclass
class Project:
    """The index of a file and of the files it imports or extends (their symbols count too)."""
    root: FileIndex
    files: dict[str, FileIndex]
    _globals: dict | None = None

    def globals(self) -> dict[str, list[Symbol]]:
        if self._globals is None:
            self._globals = self._find_globals()
        return self._globals

    def _find_globals(self) -> dict[str, list[Symbol]]:
        out: dict[str, list[Symbol]] = {}
        for f in self.files.values():
            for s in f.all_symbols():
                if s.kind not in ("attributes", "card table", "phase", "step", "rule", "import", "extends",
                                  "interpretation", "parameter"):
                    out.setdefault(s.name, []).append(s)
        return out

    def event_params(self, event: str) -> dict[str, Symbol]:
        for f in self.files.values():
            for s in f.symbols:
                if s.kind == "event" and s.name == event:
                    return {c.name: c for c in s.children}
        return {}

    def procedure_params(self, name: str) -> dict[str, Symbol]:
        for f in self.files.values():
            for seg in f.segments:
                words = [t.text for t in seg.head[:3]]
                if words[:2] == ["procedure", name] or words[:3] == ["override", "procedure", name]:
                    return {n: s for n, s in seg.locals.items() if s.kind == "parameter"}
        return {}

    def occurrence_at(self, path: str, line: int, column: int) -> Occurrence | None:
        f = self.files.get(path)
        if f is None:
            return None
        for occ in f.occurrences:
            if occ.line == line and occ.column <= column <= occ.end_column:
                return occ
        return None

    def resolve(self, occ: Occurrence) -> list[Symbol]:
        """What a written name means: its declarations (several when the name is declared
        more than once, which the checker reports), or [] for a word of the language."""
        f = self.files[occ.path]
        seg = f.segments[occ.segment] if occ.segment < len(f.segments) else None
        if occ.quoted:
            return [s for s in self.globals().get(occ.name, []) if s.quoted and s.kind == "card"]
        if seg is not None:
            if occ.name in seg.locals:
                return [seg.locals[occ.name]]
            event = self._listening(f, seg, occ.line)
            if event is not None:
                param = self.event_params(event).get(occ.name)
                if param is not None:
                    return [param]
                param = self.procedure_params(event).get(occ.name)      # `instead of <procedure>`
                if param is not None:
                    return [param]
                builtin = EVENTS.get(event)
                if builtin is not None and occ.name in dict(builtin.params):
                    return [Symbol(occ.name, "parameter", "<builtin>", 0, 0, 0, container=event,
                                   detail=f"{occ.name}: {dict(builtin.params)[occ.name]}")]
        found = [s for s in self.globals().get(occ.name, []) if not s.quoted]
        return _by_context(found, occ)

    def _listening(self, f: FileIndex, seg: Segment, line: int) -> str | None:
        """The event whose ability (`when E` / `instead of E`) holds `line`, if any: an
        ability runs from its line to the next line of its level or above."""
        for start, level, event in reversed(seg.listeners):
            if start <= line and not any(start < at <= line and lvl <= level for at, lvl in seg.levels):
                return event
        return None

    def references(self, symbol: Symbol) -> list[Occurrence]:
        """Every place `symbol` is written, its declaration included."""
        out = []
        for f in self.files.values():
            for occ in f.occurrences:
                if occ.name == symbol.name and occ.quoted == symbol.quoted:
                    if any(s.key == symbol.key for s in self.resolve(occ)):
                        out.append(occ)
        return out


def _by_context(found: list[Symbol], occ: Occurrence) -> list[Symbol]:
    """Of several declarations of a name, the ones its place calls for."""
    if len(found) < 2:
        return found
    before = occ.before[-1] if occ.before else ""
    wanted: tuple[str, ...] = ()
    if before in ("'s", "your"):
        wanted = ("zone", "player attribute")
    elif before == "every":
        wanted = ("zone",)
    elif before == ".":
        wanted = ("field",)
    elif occ.after == "(":
        wanted = ("procedure", "define")
    elif before in ("when", "announce", "of") and occ.before[-2:] != ("top", "card"):
        wanted = ("event", "procedure", "field")
    picked = [s for s in found if s.kind in wanted]
    return picked or found

