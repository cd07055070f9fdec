"""The words of the rulebook: the output (`Line`), how names are said (`Ref`), where a rule is
described (`Ctx`, reading the types the checker recorded in the model), and the registry of describers that
english.py (statements, abilities) and phrases.py (expressions) fill.

Names the rules give (parameters, `let`, `chooses`, `for each`) are wrapped in the markers
EM_OPEN / EM_CLOSE; the renderers turn them into emphasis (`*best*`, `<em>best</em>`) or drop
them (`plain`). Text from the file (names of cards, prompts, doc strings) never carries them.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

from ..model import Declarations
from ..types import ANY, PLAYER, Scope

EM_OPEN, EM_CLOSE = "\x0e", "\x0f"


# ================================================================ output


@dataclass(frozen=True)
class Line:
    """One sentence of rules, and the block nested under it; `kind` is "rule" or "doc" (prose)."""
    text: str
    children: tuple["Line", ...] = ()
    kind: str = "rule"


@dataclass(frozen=True)
class Ref:
    """How a name is said: as a noun phrase and as a possessive ("the player" / "their")."""
    noun: str
    poss: str


def clean(text: str) -> str:
    """Text from the file, with the emphasis markers removed (a file cannot forge emphasis)."""
    return text.replace(EM_OPEN, "").replace(EM_CLOSE, "")


def plain(text: str) -> str:
    return clean(text)


def var(name: str) -> str:
    return EM_OPEN + human(name) + EM_CLOSE


def human(name: str) -> str:
    return name.replace("_", " ")


def title(name: str) -> str:
    words = human(name)
    return words[:1].upper() + words[1:]


OWNER_WORDS = frozenset("my your our their his her its the a an".split())


def define_noun(name: str) -> str:
    """A value's name said after its owner (`define my_units(p)`: "their units", never "their my
    units"): the name without a leading possessive word or article, unless nothing else is left."""
    words = human(name)
    first, _, rest = words.partition(" ")
    return rest if first.lower() in OWNER_WORDS and rest.strip() else words


def possessive(text: str) -> str:
    """`text`'s possessive: "Knights'" for a name ending in s (the players', the Knights'), "the
    boss's", "Gus's" for one ending in ss or us, else "'s". Emphasis markers stay outside."""
    core = text.rstrip(EM_CLOSE)
    if core.endswith("s") and not core.endswith(("ss", "us", "is")) and core[-2:-1].isalpha():
        return text + "'"
    return text + "'s"


def cap(text: str) -> str:
    """The sentence with its first letter capitalised (a name the rules give is left as it is)."""
    if not text or text[0] == EM_OPEN:
        return text
    return text[0].upper() + text[1:]


# ================================================================ display names

AUXILIARIES = frozenset("is are was were has have had can could may might must shall should will would "
                        "does do did".split())


@dataclass(frozen=True)
class Labels:
    """The display names a file gives (dsl/ast.py: EnumDecl.labels, FieldDecl.label, ZoneDecl.label):
    what the rulebook says for a name. The rules and the log keep the names themselves."""
    members: dict
    fields: dict                # field or attribute name -> display name (first declaration wins)
    zones: dict
    flags: frozenset            # names of flag fields and attributes


_LABELS: dict[int, tuple[object, Labels]] = {}     # id(decls) -> (decls, labels): a few games at a time


def labels_of(decls) -> Labels:
    hit = _LABELS.get(id(decls))
    if hit is not None and hit[0] is decls:
        return hit[1]
    if len(_LABELS) > 16:
        _LABELS.clear()
    labels = _labels_of(decls)
    _LABELS[id(decls)] = (decls, labels)
    return labels


def _labels_of(decls) -> Labels:
    members = {m: lab for e in decls.enums.values() for m, lab in getattr(e, "labels", ())}
    fields: dict = {}
    flags: set = set()
    decl_lists = [ct.fields for ct in decls.card_types.values()]
    decl_lists += [decls.player_fields.values(), decls.game_fields.values(), decls.toward_fields.values()]
    decl_lists += [e.fields for e in getattr(decls, "entities", {}).values()]     # an entity kind's `has:`
    for fds in decl_lists:
        for fd in fds:
            if getattr(fd, "label", None):
                fields.setdefault(fd.name, fd.label)
            if fd.type.name == "flag" and not fd.type.is_list:
                flags.add(fd.name)
    zones = {z.name: z.label for z in decls.zones.values() if getattr(z, "label", None)}
    return Labels(members, fields, zones, frozenset(flags))


def display_value(decls, value) -> str:
    """A value as the rulebook prints it (a card table's cell, a field's default): an enum member by its
    display name, yes/no for flags, nothing for none. For the card reference of rulebook.py."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return clean(labels_of(decls).members.get(value, value))
    if isinstance(value, (list, tuple)):        # a list cell: its values, "none" when empty
        return ", ".join(display_value(decls, v) for v in value) or "none"
    return clean(str(value))


def display_name(decls, kind: str, name: str) -> str:
    """How the rulebook names a field or attribute (`kind` "field"), a zone ("zone") or an enum member
    ("member"): its display name from the file, else the name with spaces for underscores."""
    lab = labels_of(decls)
    table = {"field": lab.fields, "zone": lab.zones, "member": lab.members}[kind]
    if name in table:
        return clean(table[name])
    return name if kind == "member" else human(name)


def _negate_clause(text: str) -> str:
    """"peace has been declared" → "peace has not been declared"; "can add" → "cannot add"."""
    words = text.split(" ")
    for i, w in enumerate(words):
        if w.lower() in AUXILIARIES:
            if w.lower() == "can":
                words[i] = w + "not"
            elif w.lower() in ("has", "have", "had") and (i + 1 == len(words) or not (
                    words[i + 1] == "been" or words[i + 1].endswith(("ed", "en", "wn")))):
                words[i] = {"has": "does not have", "have": "do not have", "had": "did not have"}[w.lower()]
            else:
                words[i] = w + " not"
            return " ".join(words)
    return "it is not so that " + text


def flag_predicate(label: str | None, name: str) -> tuple[str, str]:
    """What a flag says of its owner, and its negation: a display name that starts with a verb is the
    predicate ("is ready"), one with an article follows "is" ("is a Race Leader"), any other follows
    "has" ("has '+1 Force'"); without a display name the flag is a mark the card or player carries."""
    if not label:
        words = quote(human(name))
        return f"is marked {words}", f"is not marked {words}"
    first = label.split(" ", 1)[0].lower()
    if first in AUXILIARIES:
        return label, _negate_clause(label)
    if first in ("a", "an"):
        return f"is {label}", f"is not {label}"
    return f"has {label}", f"does not have {label}"


def agree(subject: str, predicate: str) -> str:
    """"you is" → "you are", "you has" → "you have", "you does" → "you do"."""
    if subject != "you":
        return predicate
    head, _, rest = predicate.partition(" ")
    head = {"is": "are", "has": "have", "does": "do", "was": "were"}.get(head, head)
    return f"{head} {rest}".strip()


def plural(word: str) -> str:
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def article(word: str) -> str:
    w = word.lower()
    vowel = w[:1] in ("a", "e", "i", "o", "u")
    if w.startswith("u") and len(w) > 2 and w[1] not in "aeiou" and w[2] in "aeiou":
        vowel = False           # a Unit, a Utility (but an Umbrella)
    return ("an " if vowel else "a ") + word


def end(text: str) -> str:
    """A sentence with its full stop (none after a quotation that already ends one)."""
    if text.endswith((".", "!", "?", ".\u201d", "!\u201d", "?\u201d", ":")):
        return text
    return text + "."


def quote(text: str) -> str:
    return "\u201c" + clean(text) + "\u201d"


def join_and(items: list[str], word: str = "and") -> str:
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + f" {word} " + items[-1]


def flatten(lines, sep: str = " ") -> str:
    """Lines as one paragraph (a card's text in a table cell)."""
    out = []
    for ln in lines:
        out.append(ln.text)
        if ln.children:
            out.append(flatten(ln.children, sep))
    return sep.join(out)


# ================================================================ context


@dataclass
class Ctx:
    """Where a rule is described: the game's declarations (with the types the checker found),
    the scope (this card's type, `it`, the names bound so far), how each name is said, and the
    cross references of the book (steps and procedures)."""
    decls: Declarations
    scope: Scope = field(default_factory=Scope)
    refs: dict = field(default_factory=dict)                # name -> Ref
    you: Ref = field(default_factory=lambda: Ref("you", "your"))
    loop: str | None = None                                 # "repeat" | "for" inside a loop
    proc_refs: dict = field(default_factory=dict)           # procedure name -> "§6.2"
    step_refs: dict = field(default_factory=dict)           # id(StepStmt) -> "§5.2.1"
    on_step: Callable | None = None                         # on_step(step, ctx) when a referenced step is met
    param_types: dict = field(default_factory=dict)         # procedure / define -> {param: type}
    inlining: tuple = ()                                    # procedures being read in place (no recursion)

    def child(self, **changes) -> "Ctx":
        c = replace(self, scope=self.scope.child(), refs=dict(self.refs))
        for k, v in changes.items():
            setattr(c, k, v)
        return c

    def type_of(self, e):
        """`e`'s type as the checker recorded it: one type wherever its rule runs (a procedure
        called with a player from one place and a card from another: 'a value')."""
        return self.decls.typing.merged(e)

    def kind_of(self, e: "A.Name") -> str | None:
        """What the bare name `e` is (a local, a parameter, a field, ...), as the checker resolved it."""
        return self.decls.typing.kind_merged(e)

    def bind(self, name: str, t, ref: Ref | None = None) -> None:
        self.scope.locals[name] = t
        self.refs[name] = ref or Ref(var(name), possessive(var(name)))

    @property
    def labels(self) -> Labels:
        return labels_of(self.decls)

    def field(self, name: str) -> str:
        """A field's or attribute's name as the rulebook says it, as a noun: a flag whose display
        name is a predicate ("is ready", "a Race Leader") is said by its name here."""
        label = self.labels.fields.get(name)
        if label and name in self.labels.flags and label.split(" ", 1)[0].lower() in AUXILIARIES | {"a", "an"}:
            return human(name)
        return display_name(self.decls, "field", name)

    def zone(self, name: str) -> str:
        return display_name(self.decls, "zone", name)

    def member(self, name: str) -> str:
        return display_name(self.decls, "member", name)

    def two_players(self) -> bool:
        """A game for exactly two: "your opponents" is one player."""
        g = self.decls.game
        return g is not None and g.max_players == 2

    def pronoun_free(self) -> bool:
        """No name in scope is called "the player" yet."""
        return all(r.noun != "the player" for r in self.refs.values())


def make_ctx(decls: Declarations | None = None, **changes) -> Ctx:
    d = decls or Declarations()
    ctx = Ctx(d)
    for k, v in changes.items():
        setattr(ctx, k, v)
    return ctx


def param_types(decls: Declarations) -> dict[str, dict[str, object]]:
    """The type of each procedure's and define's parameters, where every call site agrees
    (`procedure capture(w)` called with players only: w is a player), as the body checks
    found it (`Declarations.call_types`)."""
    return decls.call_types


def params_ctx(ctx: Ctx, owner: str, params) -> Ctx:
    """The context inside a procedure or define: one player parameter is "the player"."""
    c = ctx.child()
    types = ctx.param_types.get(owner, {})
    players = [p for p in params if types.get(p) == PLAYER]
    for p in params:
        t = types.get(p, ANY)
        if len(players) == 1 and p == players[0] and len(p) <= 2:
            c.bind(p, t, Ref("the player", "their"))
        else:
            c.bind(p, t)
    return c


# ================================================================ the registry

DESCRIBERS: dict[str, Callable] = {}


def describer(fn: Callable) -> Callable:
    assert fn.__name__.startswith("describe_")
    DESCRIBERS[fn.__name__[len("describe_"):]] = fn
    return fn


def describe(node, ctx: Ctx):
    """The English of any statement, expression or ability node."""
    fn = DESCRIBERS.get(type(node).__name__)
    if fn is None:
        raise KeyError(f"no English describer for {type(node).__name__}")
    return fn(node, ctx)


def np(e, ctx: Ctx) -> str:
    return describe(e, ctx)


def describe_block(body, ctx: Ctx) -> list[Line]:
    """The lines of a block; names bound by one statement are known to the next."""
    out: list[Line] = []
    for st in body:
        out.extend(describe(st, ctx))
    return out
