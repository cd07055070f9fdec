"""What the language server answers, as plain functions of the index (and of the checked game
when the file checks): hover, definition, references, rename, completion, the outline and
formatting. dsl/lsp/server.py only wires them to the protocol, so they are tested directly too.
"""
from __future__ import annotations

import dataclasses
import re

from lsprotocol import types as T

from .. import ast as A
from ..diagnostics import CardsmithError
from ..fmt import format_text, grammar_keywords
from ..registry import BUILTIN_FUNCTIONS, EVENTS
from ..source import normalise_line_ends
from ..types import CARD_PSEUDO_FIELDS, show
from .convert import line_of, position
from .index import Occurrence, Project, Symbol

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

_SYMBOL_KIND = {
    "zone": T.SymbolKind.Variable, "field": T.SymbolKind.Field, "player attribute": T.SymbolKind.Property,
    "game attribute": T.SymbolKind.Property, "procedure": T.SymbolKind.Function,
    "define": T.SymbolKind.Function, "event": T.SymbolKind.Event, "enum": T.SymbolKind.Enum,
    "member": T.SymbolKind.EnumMember, "card type": T.SymbolKind.Class, "keyword": T.SymbolKind.Interface,
    "die": T.SymbolKind.Object, "card": T.SymbolKind.Constant, "card table": T.SymbolKind.Struct,
    "attributes": T.SymbolKind.Struct, "game": T.SymbolKind.Module, "round": T.SymbolKind.Namespace,
    "phase": T.SymbolKind.Namespace, "step": T.SymbolKind.Namespace, "setup": T.SymbolKind.Constructor,
    "parameter": T.SymbolKind.Variable, "scenario": T.SymbolKind.Method, "import": T.SymbolKind.File,
    "extends": T.SymbolKind.File, "entity kind": T.SymbolKind.Class, "entity attribute": T.SymbolKind.Property,
}
_COMPLETION_KIND = {
    "zone": T.CompletionItemKind.Variable, "field": T.CompletionItemKind.Field,
    "player attribute": T.CompletionItemKind.Property, "game attribute": T.CompletionItemKind.Property,
    "procedure": T.CompletionItemKind.Function, "define": T.CompletionItemKind.Function,
    "event": T.CompletionItemKind.Event, "enum": T.CompletionItemKind.Enum,
    "member": T.CompletionItemKind.EnumMember, "card type": T.CompletionItemKind.Class,
    "keyword": T.CompletionItemKind.Interface, "die": T.CompletionItemKind.Value,
    "local": T.CompletionItemKind.Variable, "parameter": T.CompletionItemKind.Variable,
    "card": T.CompletionItemKind.Constant,
}


# ---------------------------------------------------------------- hover


def _names_by_place(game) -> dict:
    """(path, line, column) -> the Name node written there, for the types the checker recorded."""
    found: dict = {}

    def walk(node):
        if isinstance(node, A.Name):
            found[(node.span.path, node.span.line, node.span.column)] = node
        if dataclasses.is_dataclass(node) and not isinstance(node, type):
            for f in dataclasses.fields(node):
                walk(getattr(node, f.name))
        elif isinstance(node, (tuple, list)):
            for x in node:
                walk(x)

    walk(game.module)
    return found


class GameFacts:
    """What the checked game knows beyond the text: types, card values (None when the file
    does not check; hover then says what the text says)."""

    def __init__(self, game, texts: dict[str, str] | None = None):
        self.game = game
        self._names = None
        # the text each file has in the editor now: a type is looked up by its place only in a
        # file that is as it was when the game checked (after an edit, places have moved)
        self.texts = texts or {}

    def type_at(self, path: str, line: int, column: int) -> str | None:
        if self.game is None:
            return None
        source = self.game.sources.get(path)
        if source is None or (path in self.texts and normalise_line_ends(self.texts[path]) != source.text):
            return None
        if self._names is None:
            self._names = _names_by_place(self.game)
        node = self._names.get((path, line, column))
        if node is None:
            return None
        t = self.game.decls.typing.merged(node)
        return None if t == "any" else show(t)

    def define_type(self, name: str) -> str | None:
        d = self.game.decls.defines.get(name) if self.game else None
        if d is None:
            return None
        t = self.game.decls.typing.merged(d.expr)
        return None if t == "any" else show(t)

    def parameter_type(self, rule: str, name: str) -> str | None:
        if self.game is None:
            return None
        t = self.game.decls.call_types.get(rule, {}).get(name)
        return None if t in (None, "any") else show(t)

    def cards(self, name: str) -> list:
        return [c for c in self.game.cards if c.name == name] if self.game else []


def hover(project: Project, facts: GameFacts, path: str, line: int, column: int) -> str | None:
    """Markdown for the name at a place: what it is, as declared, its docs and its type."""
    occ = project.occurrence_at(path, line, column)
    if occ is None:
        return None
    symbols = project.resolve(occ)
    if symbols:
        return "\n\n---\n\n".join(_describe(s, facts, project, occ) for s in symbols)
    if not occ.quoted and occ.after == "(" and occ.name in BUILTIN_FUNCTIONS:
        f = BUILTIN_FUNCTIONS[occ.name]
        return f"```cards\n{f.name}({f.takes})\n```\n*built-in function*, gives {f.gives}"
    if not occ.quoted and occ.name in EVENTS and occ.before[-1:] in (("when",), ("of",), ("after",), (",",)):
        e = EVENTS[occ.name]
        params = ", ".join(f"{n}: {t if isinstance(t, str) else 'list of ' + t[1]}" for n, t in e.params)
        return f"```cards\nevent {e.name}({params})\n```\n*built-in event*: when {e.when}"
    return None


def _describe(s: Symbol, facts: GameFacts, project: Project, occ: Occurrence) -> str:
    kind = s.kind + (f" of {s.container}" if s.container and s.kind in ("field", "member", "card") else "")
    out = [f"```cards\n{s.detail}\n```" if s.detail else f"`{s.name}`", f"*{kind}*"]
    if s.kind == "define":
        t = facts.define_type(s.name)
        if t:
            out[-1] += f", gives {t}"
    if s.kind in ("local", "parameter"):
        t = facts.type_at(occ.path, occ.line, occ.column) or _param_type(project, facts, s)
        if t:
            out[-1] += f": {t}"
    if s.kind == "card":
        out += _card_facts(facts, s.name)
    if s.kind in ("card type", "enum", "event", "keyword", "attributes") and s.children:
        out.append("\n".join(f"- `{c.detail if c.kind != 'member' else c.name}`" for c in s.children))
    out += s.docs
    return "\n\n".join(out)


def _param_type(project: Project, facts: GameFacts, s: Symbol) -> str | None:
    """A procedure's or define's parameter: its type at the calls that agree on one."""
    if s.kind != "parameter" or not s.container or not s.container.isdigit():
        return None
    f = project.files.get(s.path)
    seg = f.segment_at(int(s.container)) if f else None
    words = [t.text for t in seg.head] if seg else []
    if words[:1] == ["override"]:
        words = words[1:]
    return facts.parameter_type(words[1], s.name) if len(words) > 1 else None


def _card_facts(facts: GameFacts, name: str) -> list[str]:
    cards = facts.cards(name)
    if not cards:
        return []
    c = cards[0]
    rows = [f"| {k} | {_value(v)} |" for k, v in c.values.items()]
    copies = f", {len(cards)} copies" if len(cards) > 1 else ""
    head = f"{c.type_name} in {c.zone}{copies}"
    return [head, "| field | value |\n|---|---|\n" + "\n".join(rows)] if rows else [head]


def _value(v) -> str:
    return "yes" if v is True else "no" if v is False else "none" if v is None else str(v)


# ---------------------------------------------------------------- definition, references, rename


def definitions(project: Project, path: str, line: int, column: int) -> list[Symbol]:
    occ = project.occurrence_at(path, line, column)
    return [s for s in project.resolve(occ) if s.path != "<builtin>"] if occ else []


def references(project: Project, path: str, line: int, column: int, declaration: bool = True) -> list[Occurrence]:
    found = definitions(project, path, line, column)
    if not found:
        return []
    out = []
    for s in found:
        for occ in project.references(s):
            if declaration or (occ.path, occ.line, occ.column) != (s.path, s.line, s.column):
                out.append(occ)
    return sorted(set(out), key=lambda o: (o.path, o.line, o.column))


class RenameRefused(ValueError):
    """The new name cannot be written where the old one is (a word of the language, a quote)."""


def rename(project: Project, path: str, line: int, column: int, new_name: str) -> dict[str, list[tuple[Occurrence, str]]]:
    """{path: [(occurrence, its new text)]} renaming the symbol at a place everywhere."""
    found = definitions(project, path, line, column)
    if not found:
        raise RenameRefused("there is no declared name here to rename")
    quoted = found[0].quoted
    if quoted:
        if '"' in new_name or "\\" in new_name or "\n" in new_name or not new_name.strip():
            raise RenameRefused("a card's name is a text without quotes, backslashes or line breaks")
        text = f'"{new_name}"'
    else:
        if not NAME.match(new_name):
            raise RenameRefused(f"'{new_name}' is not a name: use letters, digits and _, starting with a letter")
        if new_name in grammar_keywords():
            raise RenameRefused(f"'{new_name}' is a word of the language; choose another name")
        text = new_name
    edits: dict[str, list] = {}
    for occ in references(project, path, line, column):
        edits.setdefault(occ.path, []).append((occ, text))
    return edits


# ---------------------------------------------------------------- completion


def completions(project: Project, path: str, line: int, column: int) -> list[T.CompletionItem]:
    """The names that may be written at a place, by what comes before it on the line."""
    f = project.files.get(path)
    if f is None:
        return []
    before = line_of(f.text, line)[: column - 1]
    words = re.findall(r"'s|[A-Za-z_][A-Za-z0-9_]*|[^\sA-Za-z0-9_]", before)
    if words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", words[-1]) and not before.endswith((" ", "\t")):
        words = words[:-1]          # the word being typed
    last = words[-1] if words else ""
    last2 = tuple(words[-2:])
    glob = project.globals()

    def of(*kinds) -> list[Symbol]:
        return [s for ss in glob.values() for s in ss if s.kind in kinds]

    per_player = [s for s in of("zone") if "per player" in s.detail]
    # entities (docs/language.md, "entity"): `your ships`, `all ships`, `s's crew`, `create a ship`
    plurals = [T.CompletionItem(_plural(s), kind=T.CompletionItemKind.Class, detail=f"every {s.name} of a player")
               for s in of("entity kind")]
    if last in ("a", "an") and "create" in words:
        return _items(of("entity kind"))
    if last == "all":
        return plurals + [T.CompletionItem("players", kind=T.CompletionItemKind.Keyword)]
    if last in ("'s", "your"):
        per_entity = [s for s in of("zone") if re.search(r":\s*per\s+(?!player)", s.detail)]
        return _items(per_player + of("player attribute") + per_entity + of("entity attribute")) + plurals
    elif last == "every":
        symbols = per_player
    elif last == ".":
        symbols = of("field")
        extra = [(n, "field") for n in ("name", "type", *CARD_PSEUDO_FIELDS)]
        return _items(symbols) + [T.CompletionItem(n, kind=T.CompletionItemKind.Field, detail="every card has it")
                                  for n, _ in extra]
    elif last in ("when", "announce", "after") or last2 == ("instead", "of") or (last == "," and "opens" in words):
        symbols = of("event") + (of("procedure") if last2 == ("instead", "of") else [])
        return _items(symbols) + [T.CompletionItem(e, kind=T.CompletionItemKind.Event, detail="built-in event")
                                  for e in sorted(EVENTS)]
    elif last in ("a", "an") and "is" in words or last == "cards" and len(words) == 1 or last2[-1:] == (":",) and "card" in words[:1]:
        symbols = of("card type")
    elif last == "keyword":
        symbols = of("keyword")
    elif len(words) >= 2 and words[-2] == "roll" or last == "in" and words[:1] == ["cards"]:
        symbols = of("die") if "roll" in words else of("zone")
    else:
        seg = f.segment_at(line)
        symbols = (list(seg.locals.values()) if seg else []) + of(
            "procedure", "define", "zone", "game attribute", "member", "enum", "die", "player attribute")
        items = _items(symbols)
        items += [T.CompletionItem(b, kind=T.CompletionItemKind.Function, detail="built-in function",
                                   insert_text=b) for b in sorted(BUILTIN_FUNCTIONS)]
        items += [T.CompletionItem(k, kind=T.CompletionItemKind.Keyword) for k in sorted(grammar_keywords())]
        return items
    return _items(symbols)


def _plural(kind: Symbol) -> str:
    """An entity kind's plural, read from its declaration's line: `plural allies`, else its name + s."""
    m = re.search(r"\bplural\s+([A-Za-z_][A-Za-z0-9_]*)", kind.detail)
    return m.group(1) if m else kind.name + "s"


def _items(symbols: list[Symbol]) -> list[T.CompletionItem]:
    seen, out = set(), []
    for s in symbols:
        if (s.name, s.kind) in seen:
            continue
        seen.add((s.name, s.kind))
        out.append(T.CompletionItem(s.name, kind=_COMPLETION_KIND.get(s.kind, T.CompletionItemKind.Text),
                                    detail=f"{s.kind}" + (f" of {s.container}" if s.kind in ("field", "member") and s.container else ""),
                                    documentation="\n\n".join(s.docs) or None))
    return out


# ---------------------------------------------------------------- quick fixes

_DID_YOU_MEAN = re.compile(r"did you mean '([^'\n]+)'\?")


def quick_fix(hint: str | None, written: str) -> str | None:
    """The name a diagnostic's hint offers in place of `written` ("did you mean 'box'?"), when
    what is written is one name and the offer is one name too."""
    m = _DID_YOU_MEAN.search(hint or "")
    if m is None or not NAME.match(written) or not NAME.match(m.group(1)):
        return None
    return m.group(1)


# ---------------------------------------------------------------- outline and formatting


def document_symbols(project: Project, path: str, encoding: str = "utf-16") -> list[T.DocumentSymbol]:
    f = project.files.get(path)
    if f is None:
        return []
    return [_outline(s, f.text, encoding) for s in f.symbols]


def _outline(s: Symbol, text: str, encoding: str) -> T.DocumentSymbol:
    name_range = T.Range(position(text, s.line, s.column, encoding), position(text, s.line, s.end_column, encoding))
    first, last = s.first_line or s.line, max(s.last_line, s.line)
    whole = T.Range(T.Position(first - 1, 0), position(text, last, len(line_of(text, last)) + 1, encoding))
    if not (whole.start.line <= name_range.start.line and name_range.end.line <= whole.end.line):
        whole = name_range
    return T.DocumentSymbol(
        name=s.name if len(s.name) <= 80 else s.name[:77] + "...", kind=_SYMBOL_KIND.get(s.kind, T.SymbolKind.String),
        range=whole, selection_range=name_range, detail=s.kind,
        children=[_outline(c, text, encoding) for c in s.children] or None)


def formatting(text: str, path: str) -> str | None:
    """The formatted text (`cardsmith fmt`), or None when the file does not parse yet."""
    try:
        return format_text(text, path)
    except CardsmithError:
        return None
