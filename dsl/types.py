"""Static types of expressions, shared by the checker (which reports) and the compiler (which needs
to know, say, whether `x.faction` reads a card field or a player attribute).

A type is a small value: "number", "flag", "text", "player", "card", "zone", "none", "any",
("enum", Name), ("list", T). Card values do not carry their card type statically unless the
scope knows it (`this` in a card type's ability).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from . import ast as A
from .registry import BUILTIN_FUNCTIONS, EXPRESSION, BuiltinFunction, dispatch

NUMBER, FLAG, TEXT, PLAYER, CARD, ZONE, NONE, ANY = (
    "number", "flag", "text", "player", "card", "zone", "none", "any")
BASIC = {"number": NUMBER, "flag": FLAG, "text": TEXT, "player": PLAYER, "card": CARD, "zone": ZONE}
# Every card also has these, kept by the engine rather than declared: where it is, who first
# held it, and who holds it now (the player whose zone it is in; none in a shared zone).
CARD_PSEUDO_FIELDS = {"zone": "zone", "owner": "player", "controller": "player"}
# A die of a pool (`roll ... as pool attack`): never declared, only rolled; what it shows, which
# die it is and whether it was re-rolled are read like fields (`d.face`, `die of d`, `d.rerolled`)
DIE = "die"
DIE_FIELDS = {"face": ("list", "text"), "die": "text", "rerolled": "flag"}


def part_of(name: str) -> tuple:
    """The type of one part of a card (`parts belts: 2` in a card type): ("part", "belts")."""
    return ("part", name)


def is_part(t) -> bool:
    return isinstance(t, tuple) and t[0] == "part"


def part_decl(d, name: str):
    """The `parts` declaration named `name` in some card type, or None."""
    for ct in d.card_types.values():
        for pd in getattr(ct, "parts", ()):
            if pd.name == name:
                return pd
    return None


def entity_of(kind: str | None) -> tuple:
    """The type of an entity of a kind (`entity ship: ...`): ("entity", "ship"); ("entity", None)
    is one of any kind (the `created` / `destroyed` events' `entity`)."""
    return ("entity", kind)


def is_entity(t) -> bool:
    return isinstance(t, tuple) and t[0] == "entity"


def entity_field_type(typer, kind: str | None, name: str):
    """The type of `s's <name>` on an entity of `kind` (any kind when None): an attribute, a zone
    per that kind, or its owner; None when it has none of that name."""
    if name == "owner":
        return PLAYER
    kinds = [typer.d.entities[kind]] if kind in typer.d.entities else list(typer.d.entities.values()) if kind is None else []
    for k in kinds:
        for fd in k.fields:
            if fd.name == name:
                return typer.field_type(fd)
        zd = typer.d.zones.get(name)
        if zd is not None and zd.per_entity == k.name:
            return ZONE
    return None


def list_of(t) -> tuple:
    return ("list", t)


def is_list(t) -> bool:
    return isinstance(t, tuple) and t[0] == "list"


def elem(t):
    return t[1] if is_list(t) else ANY


def show(t) -> str:
    """A type in designer's words."""
    if is_list(t):
        return f"a list of {plural(t[1])}"
    if isinstance(t, tuple) and t[0] == "enum":
        return f"a {t[1]}"
    if is_part(t):
        return f"a part '{t[1]}' of a card"
    if is_entity(t):
        return f"a {t[1]}" if t[1] else "an entity"
    return {NUMBER: "a number", FLAG: "yes/no", TEXT: "a text", PLAYER: "a player", CARD: "a card",
            ZONE: "a zone", NONE: "none", ANY: "a value", DIE: "a die of a pool"}.get(t, str(t))


def plural(t) -> str:
    """Many of a type in designer's words: `a list of texts`, not `a list of a texts`."""
    if is_list(t):
        return "lists"
    if isinstance(t, tuple) and t[0] == "enum":
        return f"{t[1]} values"
    if is_part(t):
        return f"parts '{t[1]}' of cards"
    if is_entity(t):
        return f"{t[1]} entities" if t[1] else "entities"
    return {NUMBER: "numbers", FLAG: "yes/no values", TEXT: "texts", PLAYER: "players", CARD: "cards",
            ZONE: "zones", NONE: "nones", ANY: "values", DIE: "dice"}.get(t, f"{t}s")


def example(t) -> str:
    """What a value of type `t` can be written as, for a hint that says what to give instead."""
    if is_list(t):
        return "a collection, e.g. players, cards in a zone, or a list [a, b]"
    if isinstance(t, tuple) and t[0] == "enum":
        return f"one of the members of {t[1]}"
    return {NUMBER: "a number, e.g. 3, a number attribute or count(players)",
            FLAG: "yes or no, or a test such as x > 2",
            TEXT: 'a text in quotes, e.g. "Scout"',
            PLAYER: "a player, e.g. you, seat 1 or the active player",
            CARD: "a card, e.g. top card of your deck",
            ZONE: "a zone, e.g. your hand"}.get(t, show(t))


def compatible(a, b) -> bool:
    if a == ANY or b == ANY or a == NONE or b == NONE:
        return True
    if is_list(a) and is_list(b):
        return compatible(a[1], b[1])
    if is_entity(a) and is_entity(b) and (a[1] is None or b[1] is None):
        return True             # an entity of any kind (the `created` event's) is one of each kind
    return a == b


def suggest(name: str, candidates) -> str | None:
    import difflib          # only for a mistake: not imported by a check that finds none

    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None


def card_type_hint(name: str, card_types) -> str:
    """The hint of E0209: the closest card type, else how to declare one."""
    return suggest(name, card_types) or (
        f"declare it first: 'card type {name}:' with its fields on indented lines"
        + (f"; the card types are {', '.join(sorted(card_types)[:8])}" if card_types else ""))


@dataclass
class Scope:
    """What names mean at one point of a file."""

    locals: dict[str, object] = field(default_factory=dict)
    this_type: str | None = None          # card type name when inside a card's ability
    it_type: object | None = None         # element type inside a `where`
    # (name, element type) in the `where` of `for each <name> in ...`: the element has that
    # name there, not `it`; kept only for the message when `it` or a bare field is written
    named_element: tuple | None = None
    event_params: dict[str, object] = field(default_factory=dict)
    in_ability: bool = False
    loop_depth: int = 0
    you: bool = False                     # a player is `you` (the body of a secret choice; abilities too)
    in_scenario: bool = False             # `play setup` / `play N rounds` are allowed here
    # ("procedure" | "define", name) inside one: what `you` is and whether it runs in a scenario
    # are its caller's, so a need of either is checked where it is called (Typer.need)
    rule: tuple | None = None
    # Block scoping: a name given inside a block is not known after it. `outer` holds the names
    # that come from enclosing blocks; `let` of one of those changes that variable (the runtime
    # keeps one set of names per rule), it does not make a new one.
    parent: "Scope | None" = None
    outer: frozenset = frozenset()
    block_line: int = 0                   # the line of the statement that opens this block
    # names given inside a block, by that block's line: shared by a rule's scopes, for the hint
    # when one is used after its block
    gone: dict[str, int] = field(default_factory=dict)
    # Which compiled instance of a rule this is: ("procedure" | "define", name, argument types)
    # inside a procedure or define (typed once per call signature, compiled once per signature),
    # None elsewhere (every other expression belongs to one rule). The checker's recorded types
    # are keyed by it, so the compiler finds the type an expression has in the body it compiles.
    instance: tuple | None = None

    def child(self, **changes) -> "Scope":
        changes.setdefault("locals", dict(self.locals))
        changes.setdefault("event_params", dict(self.event_params))
        # dataclasses.replace, without its look at every field each time (a scope per block):
        # the fields are the only attributes a Scope has
        new = object.__new__(self.__class__)
        fields = new.__dict__
        fields.update(self.__dict__)
        fields.update(changes)
        return new

    def nested(self, line: int, **changes) -> "Scope":
        """The scope of a block inside this one (an if's branch, a loop's body, ...), opened at `line`."""
        return self.child(parent=self, outer=frozenset(self.locals), block_line=line, **changes)

    @property
    def you_bound(self) -> bool:
        return self.in_ability or self.you

    def has(self, need: str) -> bool:
        """Whether this place gives what `need` ("you" or "scenario") asks for."""
        return self.you_bound if need == "you" else self.in_scenario


Report = Callable[[str, str, object, str | None], None]   # (code, message, span, hint)


def ref_type(decls, ref: A.TypeRef):
    """The type a declaration's type name stands for (`number`, an enum, a card type, `list of
    ...`); `any` for an unknown name (which the checker reports where it is declared)."""
    base = BASIC.get(ref.name)
    if base is None:
        base = ("enum", ref.name) if ref.name in decls.enums else CARD if ref.name in decls.card_types else \
            entity_of(ref.name) if ref.name in decls.entities else ANY
    return list_of(base) if ref.is_list else base


@dataclass
class Typing:
    """The checker's record of every expression it typed: its type, and for a bare name what it
    resolves to (local, param, it, it_field, this_field, game_attr, zone, member, enum). Keyed
    by (Scope.instance, id(node)): AST nodes live as long as the Game, and a procedure's or a
    define's body has one type per call signature. The compiler and the publisher read this;
    neither types an expression again."""

    types: dict = field(default_factory=dict)
    kinds: dict = field(default_factory=dict)

    def type_of(self, e, instance=None):
        try:
            return self.types[(instance, id(e))]
        except KeyError:
            raise LookupError(f"the checker recorded no type for {type(e).__name__} at {e.span} "
                              f"(in {instance or 'its rule'})") from None

    def kind_of(self, e, instance=None) -> str | None:
        """What the bare name `e` resolves to (None only for a name the checker reported)."""
        self.type_of(e, instance)               # a name never typed is a gap in the checker
        return self.kinds.get((instance, id(e)))

    def merged(self, e):
        """The one type `e` has in every instance it was typed in (ignoring 'a value'), else
        'a value': what the rulebook says of an expression of a procedure that is called
        with a player from one place and a card from another."""
        known = {t for t in self._by_node(self.types).get(id(e), ()) if t != ANY}
        return next(iter(known)) if len(known) == 1 else ANY

    def kind_merged(self, e) -> str | None:
        """What the bare name `e` is wherever it was typed, when that is one thing."""
        kinds = {k for k in self._by_node(self.kinds).get(id(e), ()) if k is not None}
        return next(iter(kinds)) if len(kinds) == 1 else None

    def _by_node(self, table: dict) -> dict:
        """node id -> the set of values `table` holds for it in any instance (built once the
        checker is done; rebuilt if the table grew)."""
        caches = self.__dict__.setdefault("_nodes", {})
        size, index = caches.get(id(table), (-1, None))
        if size != len(table):
            index = {}
            for (_inst, key), value in table.items():
                index.setdefault(key, set()).add(value)
            caches[id(table)] = (len(table), index)
        return index


class Typer:
    """Infers expression types against a game's declarations, reporting problems through `report`."""

    def __init__(self, decls, report: Report, typing: Typing | None = None):
        self.d = decls          # dsl.model.Declarations
        self.report = report
        self.typing = typing if typing is not None else Typing()     # what every expression is
        self._define_stack: list[str] = []
        self.calls: list[tuple[str, tuple]] = []     # (define name, argument types) seen at call sites
        # What a procedure or define needs from where it is called: (need, rule) -> (word, span)
        # of its first use; need is "you" (a player who is `you`) or "scenario" (`play ...`)
        self.needs: dict[tuple, tuple] = {}
        # Every call of a procedure or define: (caller's rule or None, gives you, in a scenario,
        # ("procedure" | "define", name), span) -> None; a dict as an ordered set
        self.rule_calls: dict[tuple, None] = {}

    # ------------------------------------------------------------------ names
    def field_type(self, fd: A.FieldDecl):
        return self.type_of_ref(fd.type)

    def type_of_ref(self, ref: A.TypeRef, report: bool = True):
        if (report and ref.name not in BASIC and ref.name not in self.d.enums and ref.name not in self.d.card_types
                and ref.name not in self.d.entities):
            known = list(BASIC) + list(self.d.enums) + list(self.d.card_types) + list(self.d.entities)
            self.report("E0101", f"unknown type '{ref.name}'", ref.span,
                        suggest(ref.name, known) or "a type is number, flag, text, player, card, zone, an enum or a card type")
        return ref_type(self.d, ref)

    def card_field(self, name: str, card_type: str | None):
        """The type of field `name` on a card (of `card_type` when known), or None."""
        types = [self.d.card_types[card_type]] if card_type in self.d.card_types else list(self.d.card_types.values())
        if name in ("name", "type"):
            return TEXT
        if name in CARD_PSEUDO_FIELDS:
            return CARD_PSEUDO_FIELDS[name]
        for ct in types:
            for fd in ct.fields:
                if fd.name == name:
                    return self.field_type(fd)
            if any(pd.name == name for pd in ct.parts):     # `belts of c`: the card's parts, in order
                return list_of(part_of(name))
        return None

    def all_card_fields(self):
        names = {"name", "type", *CARD_PSEUDO_FIELDS}
        for ct in self.d.card_types.values():
            names.update(f.name for f in ct.fields)
            names.update(pd.name for pd in ct.parts)
        return names

    # ------------------------------------------------------------------ expressions
    def infer(self, e, sc: Scope):
        t = _TYPE[type(e)](self, e, sc)
        self.typing.types[(sc.instance, id(e))] = t
        return t

    def name_kind(self, e: A.Name, sc: Scope):
        """resolve_name for the node `e`, recorded for the compiler: (kind, type)."""
        kind, t = self.resolve_name(e.name, sc)
        self.typing.kinds[(sc.instance, id(e))] = kind
        return kind, t

    def t_Num(self, e, sc):
        return NUMBER

    def t_Text(self, e, sc):
        return TEXT

    def t_Bool(self, e, sc):
        return FLAG

    def t_Nothing(self, e, sc):
        return NONE

    def t_Name(self, e, sc):
        kind, t = self.name_kind(e, sc)
        if kind is None:
            known = (list(sc.locals) + list(sc.event_params) + list(self.d.game_fields)
                     + [z for z, zd in self.d.zones.items() if not zd.per_player and zd.per_entity is None]
                     + self.d.enum_members()
                     + list(self.d.enums))
            hint = suggest(e.name, known)
            if e.name in self.d.zones and self.d.zones[e.name].per_entity is not None:
                hint = f"'{e.name}' is a zone per {self.d.zones[e.name].per_entity}: write s's {e.name}, s a " \
                       f"{self.d.zones[e.name].per_entity}"
            elif e.name in self.d.entities or self.d.entity_of_plural(e.name):
                kind = self.d.entities.get(e.name) or self.d.entities[self.d.entity_of_plural(e.name)]
                hint = f"'{e.name}' names an entity kind: write your {kind.plural_name}, p's {kind.plural_name} " \
                       f"or all {kind.plural_name}"
            elif e.name in self.d.zones:
                hint = f"'{e.name}' is a per-player zone: write p's {e.name}, your {e.name} or every {e.name}"
            elif e.name in sc.gone:
                hint = (f"'{e.name}' is known only inside the block at line {sc.gone[e.name]} (an if, a loop, "
                        "a step, ...); to use it after that block, give it a value before it")
            message = f"unknown name '{e.name}'"
            if sc.named_element is not None:        # the `where` of `for each c in ...`
                name, t = sc.named_element
                if e.name == "it":
                    message += f": after 'for each {name} in', the element is called '{name}', not 'it'"
                    hint = f"write '{name}' where 'it' stands"
                elif t == CARD and self.card_field(e.name, None) is not None:
                    hint = f"after 'for each {name} in', name the card's field with it: {name}'s {e.name}"
            elif e.name == "it":
                hint = "'it' is the element only in the condition of '<collection> where ...'"
            self.report("E0201", message, e.span, hint or (
                "a name here is one given by 'let' or 'for each', a parameter, a game attribute "
                "(declare it under 'game has:'), a shared zone or an enum member"))
            return ANY
        return t

    def resolve_name(self, name: str, sc: Scope):
        """(kind, type) of a bare name; kind is None when unknown. Order: locals, it, event
        parameters, the running card's fields, the filtered card's fields, game attributes,
        shared zones, enum members, enums (as the list of their members)."""
        if name in sc.locals:
            return "local", sc.locals[name]
        if name == "it" and sc.it_type is not None:
            return "it", sc.it_type
        if name in sc.event_params:
            return "param", sc.event_params[name]
        if sc.it_type == CARD and name != "it":
            ft = self.card_field(name, None)
            if ft is not None:
                return "it_field", ft
        if sc.this_type is not None:
            ft = self.card_field(name, sc.this_type)
            if ft is not None:
                return "this_field", ft
        if name in self.d.game_fields:
            return "game_attr", self.field_type(self.d.game_fields[name])
        zd = self.d.zones.get(name)
        if zd is not None and not zd.per_player and zd.per_entity is None:
            return "zone", ZONE
        enum = self.d.member_enum(name)
        if enum is not None:
            return "member", ("enum", enum)
        if name in self.d.enums:
            return "enum", list_of(("enum", name))
        return None, ANY

    def t_Call(self, e, sc):
        arg_types = [self.infer(a, sc) for a in e.args]
        b = BUILTIN_FUNCTIONS.get(e.name)
        if b is not None:
            return self.builtin(b, e, arg_types)
        d = self.d.defines.get(e.name)
        if d is None:
            if e.name in self.d.procedures:
                self.report("E0303", f"'{e.name}' is a procedure: it does something and has no value",
                            e.span, f"call it on its own line: {e.name}(...)")
            else:
                known = list(self.d.defines) + list(BUILTIN_FUNCTIONS)
                self.report("E0202", f"unknown value '{e.name}'", e.span,
                            suggest(e.name, known) or "declare it with: define name(params) as expression")
            return ANY
        if len(d.params) != len(e.args):
            self.report("E0301", f"'{e.name}' takes {len(d.params)} argument(s), got {len(e.args)}", e.span,
                        f"it is defined as {e.name}({', '.join(d.params)}) at line {d.span.line}")
            return ANY
        self.calls.append((e.name, tuple(arg_types)))
        self.note_call(sc, ("define", e.name), e.span)
        if e.name in self._define_stack:
            return ANY
        self._define_stack.append(e.name)
        try:
            inner = Scope(dict(zip(d.params, arg_types)), rule=("define", e.name),
                          instance=("define", e.name, tuple(arg_types)))
            return self.infer_quiet(d.expr, inner)
        finally:
            self._define_stack.pop()

    def builtin(self, b: BuiltinFunction, e: A.Call, arg_types: list):
        """The type rule of a built-in function, read from its entry in dsl/registry.py: one
        argument of kind `b.takes`, a value of kind `b.gives`."""
        if b.takes == "place":          # adjacent(s), distance(a, b): dsl/board_types.py
            return self.builtin_place(b, e, arg_types)
        if b.takes == "player":
            if len(e.args) != b.arity:
                self.report("E0302", f"'{e.name}' takes one player, got {len(e.args)} arguments", e.span, b.example)
            elif not compatible(arg_types[0], PLAYER):
                self.report("E0408", f"expected a player here, but this is {show(arg_types[0])}", e.args[0].span,
                            f"give {example(PLAYER)}")
            return _GIVES[b.gives](None)
        if len(e.args) != b.arity:
            self.report("E0302", f"'{e.name}' takes one collection, got {len(e.args)} arguments", e.span, b.example)
            return ANY
        t = arg_types[0]
        if not is_list(t) and t != ANY:
            self.report("E0401", f"'{e.name}' needs a collection, but this is {show(t)}", e.args[0].span,
                        "a collection is e.g. players, cards in a zone, or a list [a, b]")
        if b.takes == "numbers" and is_list(t) and not compatible(t[1], NUMBER):
            self.report("E0401", f"'{e.name}' needs numbers, but these are {plural(t[1])}", e.args[0].span, None)
        return _GIVES[b.gives](t)

    def infer_quiet(self, e, sc):
        saved = self.report
        self.report = lambda *a: None
        try:
            return self.infer(e, sc)
        finally:
            self.report = saved

    def _field_on(self, obj_t, name, span, owner_text: str):
        if obj_t == PLAYER:
            if name in self.d.player_fields:
                return self.field_type(self.d.player_fields[name])
            self.report("E0203", f"players have no attribute '{name}'", span,
                        suggest(name, self.d.player_fields) or "declare it under: player has:")
            return ANY
        if obj_t == CARD:
            ft = self.card_field(name, None)
            if ft is None:
                self.report("E0204", f"cards have no field '{name}'", span, suggest(name, self.all_card_fields()))
                return ANY
            return ft
        if obj_t == ZONE and (pt := self.place_field_type(name)) is not None:   # a place's field
            return pt
        if obj_t == ANY:
            return ANY
        if is_entity(obj_t):            # an entity: its attributes, its zones, its owner
            ft = entity_field_type(self, obj_t[1], name)
            if ft is not None:
                return ft
            kind = self.d.entities.get(obj_t[1])
            known = (["owner"] + [f.name for f in kind.fields] + [z for z, zd in self.d.zones.items()
                                                                  if zd.per_entity == kind.name]) if kind else ["owner"]
            self.report("E0251", f"{show(obj_t)} has no attribute or zone '{name}'", span,
                        suggest(name, known) or f"a {obj_t[1] or 'entity'} has {', '.join(known)}; declare more under "
                        f"its 'has:', or a zone with: zone {name}: per {obj_t[1] or 'ship'}")
            return ANY
        if is_part(obj_t):              # a part of a card: its own fields (`b's built`)
            pd = part_decl(self.d, obj_t[1])
            fd = next((f for f in pd.fields if f.name == name), None) if pd is not None else None
            if fd is not None:
                return self.field_type(fd)
            known = [f.name for f in pd.fields] if pd is not None else []
            self.report("E0402", f"a part '{obj_t[1]}' of a card has no '{name}'", span,
                        suggest(name, known) or f"its fields are {', '.join(known) or 'none'}")
            return ANY
        if obj_t == DIE:
            if name in DIE_FIELDS:
                return DIE_FIELDS[name]
            self.report("E0402", f"a die of a pool has no '{name}'", span,
                        suggest(name, DIE_FIELDS) or "a die has face (a list of texts), die (its kind) and rerolled")
            return ANY
        if name in self.d.player_fields:
            hint = f"'{name}' is a player attribute: read it from a player, e.g. seat 1's {name}"
        elif self.card_field(name, None) is not None:
            hint = f"'{name}' is a card field: read it from a card, e.g. (top card of your deck)'s {name}"
        else:
            hint = ("only players ('player has:') and cards ('card type') have named values: "
                    f"declare '{name}' on one and read it from a player or a card")
        self.report("E0402", f"{owner_text} is {show(obj_t)}, which has no '{name}'", span, hint)
        return ANY

    def t_FieldAccess(self, e, sc):
        return self._field_on(self.infer(e.obj, sc), e.name, e.span, "this")

    def t_Possessive(self, e, sc):
        owner = self.infer(e.owner, sc)
        return self._possessive(owner, e.name, e.span, sc,
                                f"{e.owner.name}'s" if isinstance(e.owner, A.Name) else "p's")

    def _possessive(self, owner, name, span, sc, whose: str = "p's"):
        """`whose`: the owner as the designer wrote it (`you`r, `q's`), for the hints."""
        if owner == PLAYER:
            zd = self.d.zones.get(name)
            kind = self.d.entity_of_plural(name)
            if kind is not None:            # `p's ships`: the player's entities of a kind, oldest first
                return list_of(entity_of(kind))
            if zd is not None and zd.per_entity is not None:
                self.report("E0205", f"'{name}' is a zone per {zd.per_entity}, not one per player", span,
                            f"name a {zd.per_entity}: s's {name} (for each s in {whose} "
                            f"{self.d.entities[zd.per_entity].plural_name if zd.per_entity in self.d.entities else zd.per_entity + 's'})")
                return ZONE
            if name in self.d.entities:     # `your ship`: the kind's name, not its plural
                self.report("E0206", f"'{name}' is an entity kind; a player's are its plural", span,
                            f"write {self.d.entities[name].plural_name}, e.g. your {self.d.entities[name].plural_name}")
                return list_of(entity_of(name))
            if zd is not None:
                if not zd.per_player:
                    self.report("E0205", f"'{name}' is a shared zone, not one per player", span,
                                f"write just '{name}'")
                return ZONE
            if name in self.d.player_fields:
                return self.field_type(self.d.player_fields[name])
            per = [z for z, zd in self.d.zones.items() if zd.per_player]
            self.report("E0206", f"unknown zone or attribute '{name}'", span,
                        suggest(name, per + list(self.d.player_fields)) or self._not_a_players(name, per, whose))
            return ANY
        return self._field_on(owner, name, span, "this")

    def _not_a_players(self, name: str, per: list, whose: str = "p's") -> str:
        """E0206's hint where no name of a player's is close: an entity's attribute or zone is read
        from one of them; else what a player has, or how to declare it when they have nothing."""
        for k in self.d.entities.values():
            zd = self.d.zones.get(name)
            if any(f.name == name for f in k.fields) or (zd is not None and zd.per_entity == k.name):
                return (f"'{name}' is a {k.name}'s, not a player's: read it from one, e.g. "
                        f"for each x in {whose} {k.plural_name}: ... x's {name}")
        fields = list(self.d.player_fields)
        if not per and not fields:
            return (f"players have no zones or attributes of their own yet: declare it, e.g. "
                    f"zone {name}: per player, or player has: {name}: number = 0")
        said = ([f"a player's zones are {', '.join(per)}"] if per else []) + \
            ([f"their attributes are {', '.join(fields)}"] if fields else [])
        return "; ".join(said)

    def t_Your(self, e, sc):
        self.need_you(f"your {e.name}", e.span, sc)
        return self._possessive(PLAYER, e.name, e.span, sc, "your")

    def t_FieldOf(self, e, sc):
        t = self.infer(e.obj, sc)
        if is_list(t):
            return list_of(self._possessive(t[1], e.name, e.span, sc) if t[1] == PLAYER
                           else self._field_on(t[1], e.name, e.span, "each element"))
        return self._possessive(t, e.name, e.span, sc) if t == PLAYER else self._field_on(t, e.name, e.span, "this")

    def _want_zone(self, e, sc):
        t = self.infer(e, sc)
        if t not in (ZONE, ANY) and t not in (list_of(ZONE), list_of(ANY)):   # a define's parameter is ANY until called
            self.report("E0403", f"expected a zone here, but this is {show(t)}", e.span,
                        "a zone is e.g. p's deck, your discard, or a shared zone's name")

    def t_CardsIn(self, e, sc):
        self._want_zone(e.zone, sc)
        return list_of(CARD)

    def t_EveryZone(self, e, sc):
        zd = self.d.zones.get(e.name)
        if zd is None:
            self.report("E0207", f"unknown zone '{e.name}'", e.span, suggest(e.name, self.d.zones))
        elif zd.per_entity is not None:     # `every crew`: that zone of every entity in play, oldest first
            pass
        elif not zd.per_player:
            self.report("E0205", f"'{e.name}' is a shared zone: 'every' needs a zone per player", e.span,
                        f"write just '{e.name}'")
        return list_of(ZONE)

    def t_AllEntities(self, e, sc):
        kind = self.d.entity_of_plural(e.name)
        if kind is None:
            if e.name in self.d.entities:
                hint = f"write the plural: all {self.d.entities[e.name].plural_name}"
            else:
                hint = suggest(e.name, [k.plural_name for k in self.d.entities.values()]) or (
                    "'all' takes an entity kind's plural, e.g. all ships (declare: entity ship: per player, "
                    "at most 3), or all players")
            self.report("E0250", f"unknown entity kind '{e.name}'", e.span, hint)
            return list_of(ANY)
        return list_of(entity_of(kind))

    def t_IsInPlay(self, e, sc):
        t = self.infer(e.item, sc)
        if not is_entity(t) and t not in (ANY, NONE):
            self.report("E0408", f"only an entity is in play or not, but this is {show(t)}", e.item.span,
                        "e.g. s is in play, s a ship that may have been destroyed")
        return FLAG

    def t_EntityHolding(self, e, sc):
        t = self.infer(e.card, sc)
        if e.kind not in self.d.entities:
            single = self.d.entity_of_plural(e.kind)
            hint = (f"write the kind's name: the {single} holding ..." if single is not None else
                    suggest(e.kind, self.d.entities) or "name an entity kind, e.g. the ship holding c "
                    "(declare: entity ship: per player, at most 3)")
            self.report("E0250", f"unknown entity kind '{e.kind}'", e.span, hint)
            return ANY
        if not any(z.per_entity == e.kind for z in self.d.zones.values()):
            self.report("E0251", f"no zone is per {e.kind}, so no {e.kind} holds a card", e.span,
                        f"declare one, e.g. zone cargo: per {e.kind}")
        if t not in (CARD, ANY, NONE):
            self.report("E0408", f"'the {e.kind} holding' asks where a card is, but this is {show(t)}",
                        e.card.span, f"e.g. the {e.kind} holding c, c a card")
        return entity_of(e.kind)

    def _want_one_zone(self, e, sc, what: str):
        """`top card of` / `top 2 cards of` look into one zone: `every hand` has no one top."""
        if self.infer(e, sc) == list_of(ZONE):
            self.report("E0403", f"'{what}' looks into one zone, but this is a list of zones", e.span,
                        "name one player's zone (top card of p's hand), or take cards in every ... where ...")
        else:
            self._want_zone(e, sc)

    def t_TopCard(self, e, sc):
        self._want_one_zone(e.zone, sc, f"{e.place} card of")
        return CARD

    def t_TopCards(self, e, sc):
        self.want(e.count, NUMBER, sc)
        self._want_one_zone(e.zone, sc, f"{e.place} N cards of")
        return list_of(CARD)

    def t_ActivePlayer(self, e, sc):
        return PLAYER

    def t_This(self, e, sc):
        if not sc.in_ability:
            self.report("E0208", "'this' is only meaningful inside a card's ability", e.span,
                        "use it in a 'when ...:' or 'action ...:' of a card or card type")
        return CARD

    def t_SeatPlayer(self, e, sc):
        if e.seat < 1:
            self.report("E0412", "seats are numbered from 1", e.span, "write seat 1, seat 2, ...")
        return PLAYER

    def t_You(self, e, sc):
        self.need_you("you", e.span, sc)
        return PLAYER

    def t_PlayersExpr(self, e, sc):
        return list_of(PLAYER)

    t_AllPlayers = t_PlayersExpr
    t_WinnersExpr = t_PlayersExpr

    def t_StackExpr(self, e, sc):
        return list_of(CARD)

    def t_Opponents(self, e, sc):
        self.need_you("opponents", e.span, sc)
        return list_of(PLAYER)

    # ------------------------------------------------------------------ what a place gives
    # `you` is bound by the engine only in a card's ability (the player whose zone holds the
    # card) and in the body of `each player in ... secretly chooses`; `play ...` runs only in a
    # scenario. A procedure or a define has its caller's: its needs are checked at its calls.
    def need(self, need: str, word: str, span, sc, code: str, message: str, hint: str) -> None:
        if sc.has(need):
            return
        if sc.rule is not None:
            self.needs.setdefault((need, sc.rule), (word, span))
            return
        self.report(code, message, span, hint)

    def need_you(self, word: str, span, sc) -> None:
        self.need("you", word, span, sc, "E0214",
                  f"'{word}' names no player here: 'you' is the player whose card's ability runs", YOU_HINT)

    def note_call(self, sc, callee: tuple, span) -> None:
        self.rule_calls[(sc.rule, sc.you_bound, sc.in_scenario, callee, span)] = None

    def t_ListExpr(self, e, sc):
        types = [self.infer(i, sc) for i in e.items]
        for item, t in zip(e.items, types):
            if t == NONE:
                self.report("E0414", "a list cannot hold none", item.span,
                            "leave it out: a list holds the things that are there")
        known = [t for t in types if t != NONE]
        return list_of(known[0] if known else ANY)

    def t_WhereExpr(self, e, sc):
        t = self.infer(e.coll, sc)
        if not is_list(t) and t != ANY:
            self.report("E0404", f"'where' filters a collection, but this is {show(t)}", e.coll.span,
                        "a collection is e.g. players, cards in a zone, or a list [a, b]")
        self.want(e.cond, FLAG, sc.child(it_type=elem(t)))
        return t if is_list(t) else list_of(ANY)

    def t_ExprMap(self, e, sc):
        t = self.infer(e.coll, sc)
        inner = sc.child()
        inner.locals[e.name] = elem(t)
        if e.cond is not None:
            self.want(e.cond, FLAG, inner.child(named_element=(e.name, elem(t))))
        return list_of(self.infer(e.expr, inner))

    def t_OrChain(self, e, sc):
        for i in e.items:
            self.want(i, FLAG, sc)
        return FLAG

    t_AndChain = t_OrChain

    def t_NotOp(self, e, sc):
        self.want(e.operand, FLAG, sc)
        return FLAG

    def t_Compare(self, e, sc):
        lt, rt = self.infer(e.left, sc), self.infer(e.right, sc)
        if e.op in ("<", "<=", ">", ">="):
            for side, t in ((e.left, lt), (e.right, rt)):
                if t == NONE:
                    self.none_here(side, NUMBER)
                elif not compatible(t, NUMBER):
                    self.report("E0405", f"'{e.op}' compares numbers, but this is {show(t)}", side.span,
                                "'<', '<=', '>' and '>=' work on numbers only; to test whether two "
                                "things are the same, write = (or is not)")
        elif not compatible(lt, rt):
            self.report("E0406", f"cannot compare {show(lt)} with {show(rt)}", e.span,
                        f"both sides must be the same kind of thing: compare {show(lt)} with {example(lt)}")
        return FLAG

    def t_IsEmpty(self, e, sc):
        t = self.infer(e.operand, sc)
        if t == list_of(ZONE):      # `every hand is empty` would ask whether there are no hands
            self.report("E0407", "a list of zones is never empty: say which cards", e.span,
                        "write: (cards in every hand) is empty")
        elif not (is_list(t) or t in (ZONE, ANY)):
            self.report("E0407", f"only a zone or a collection can be empty, but this is {show(t)}", e.span,
                        "ask it of a zone or a collection, e.g. your hand is empty"
                        + ("; to test a number, write = 0" if t == NUMBER else ""))
        return FLAG

    def t_IsIn(self, e, sc):
        it, ct = self.infer(e.item, sc), self.infer(e.coll, sc)
        if ct == ZONE:
            ct = list_of(CARD)
        if not is_list(ct) and ct != ANY:
            self.report("E0404", f"'is in' needs a collection on its right, but this is {show(ct)}", e.coll.span,
                        "a collection is e.g. players, cards in a zone, or a list [a, b]; to test whether "
                        "two things are the same, write =")
        elif is_list(ct) and not compatible(it, ct[1]):
            self.report("E0406", f"cannot look for {show(it)} among {plural(ct[1])}", e.span,
                        f"look for {example(ct[1])}, or in a collection of {plural(it)}")
        return FLAG

    def t_IsA(self, e, sc):
        if e.type_name in self.d.entities:      # `entity is a ship`: of that kind (the `created` event's)
            t = self.infer(e.operand, sc)
            if not is_entity(t) and t not in (ANY, NONE):
                self.report("E0408", f"only an entity is of a kind, but this is {show(t)}", e.operand.span,
                            f"e.g. entity is a {e.type_name}, in 'when created where ...'")
            return FLAG
        self.want(e.operand, CARD, sc)
        if e.type_name not in self.d.card_types:
            self.report("E0209", f"unknown card type '{e.type_name}'", e.span,
                        card_type_hint(e.type_name, self.d.card_types))
        return FLAG

    def t_Arith(self, e, sc):
        if e.op == "+":         # `a + b` adds numbers and joins lists (`hand + [c]` appends)
            lt = self.infer(e.left, sc)
            if is_list(lt):
                return self._join(e, lt, sc)
            if lt == ANY:       # a parameter not known yet (`define lanes(zs) as zs + [box]`)
                rt = self.infer(e.right, sc)
                if is_list(rt):
                    return rt
                self._number(e.right, rt)
                return NUMBER
            self._number(e.left, lt)
            self.want(e.right, NUMBER, sc)
            return NUMBER
        self.want(e.left, NUMBER, sc)
        self.want(e.right, NUMBER, sc)
        return NUMBER

    def _number(self, e, got) -> None:
        """The check of `want(e, NUMBER)` for a type already inferred."""
        if got == NONE:
            self.none_here(e, NUMBER)
        elif not compatible(got, NUMBER):
            self.report("E0408", f"expected a number here, but this is {show(got)}", e.span,
                        f"give {example(NUMBER)}" + ("; to join two lists, both sides must be lists"
                                                     if is_list(got) else ""))

    def _join(self, e, lt, sc):
        rt = self.infer(e.right, sc)
        if rt == NONE:
            self.none_here(e.right, lt)
            return lt
        if not is_list(rt) and rt != ANY:
            self.report("E0408", f"'+' joins a list only to a list, but this is {show(rt)}", e.right.span,
                        "join the cards in it: ... + cards in ..." if rt == ZONE else
                        f"put the one item in brackets to add it at the end: ... + [{_written_short(e.right)}]")
            return lt
        if is_list(rt) and not compatible(lt[1], rt[1]):
            self.report("E0406", f"cannot join {show(lt)} with {show(rt)}", e.span,
                        f"a list holds one kind of thing: join {plural(lt[1])} with {plural(lt[1])}")
            return lt
        return lt if lt[1] != ANY or not is_list(rt) else rt

    def t_Neg(self, e, sc):
        self.want(e.operand, NUMBER, sc)
        return NUMBER

    # ------------------------------------------------------------------ issue 10's expressions
    def t_IsFace(self, e, sc):
        self.want(e.operand, CARD, sc)
        return FLAG

    def t_HasSeen(self, e, sc):
        self.want(e.player, PLAYER, sc)
        self.want(e.card, CARD, sc)
        self.d.remembers = True         # a game that asks keeps the memory (docs/language.md)
        return FLAG

    def t_HasKeyword(self, e, sc):
        self.want(e.operand, CARD, sc)
        if e.keyword not in self.d.keywords:
            self.report("E0213", f"unknown keyword '{e.keyword}'", e.span,
                        suggest(e.keyword, self.d.keywords) or (
                            f"declare it with: keyword {e.keyword}:" if not self.d.keywords
                            else "the keywords are " + ", ".join(sorted(self.d.keywords)[:8])))
        return FLAG

    def t_CondExpr(self, e, sc):
        self.want(e.cond, FLAG, sc)
        a, b = self.infer(e.then, sc), self.infer(e.other, sc)
        if not compatible(a, b):
            self.report("E0408", f"the two values of 'if ... then ... else' differ: {show(a)} and {show(b)}",
                        e.other.span, f"give after 'else' {example(a)}, as after 'then'")
            return ANY
        return b if a in (NONE, ANY, list_of(ANY)) else a      # `[]` takes the other branch's kind

    def _want_list(self, e, sc, what: str):
        t = self.infer(e, sc)
        if t == ZONE:
            self.report("E0404", f"{what} needs a collection, but this is a zone", e.span,
                        "take the cards in it: cards in ...")
            return ANY
        if t == NONE:
            self.none_here(e, list_of(ANY))
            return ANY
        if not is_list(t) and t != ANY:
            self.report("E0404", f"{what} needs a collection, but this is {show(t)}", e.span,
                        "a collection is e.g. players, cards in a zone, or a list [a, b]")
            return ANY
        return elem(t)

    def t_ItemOf(self, e, sc):
        self.want(e.index, NUMBER, sc)
        t = self._want_list(e.coll, sc, "'item ... of'")
        if (isinstance(e.coll, A.Name) and isinstance(e.index, A.Num)
                and self.typing.kinds.get((sc.instance, id(e.coll))) == "enum"):
            members = self.d.enums[e.coll.name].members       # `item 14 of Rank`: an enum has no gaps
            if not 1 <= e.index.value <= len(members):
                self.report("E0415", f"'{e.coll.name}' has {len(members)} members: there is no member "
                            f"{e.index.value}", e.index.span,
                            f"count from 1 to {len(members)}: item 1 of {e.coll.name} is {members[0]}")
        return t

    def t_RandomPick(self, e, sc):
        t = self._want_list(e.coll, sc, f"'random {e.noun} from'")
        nouns = {"card": CARD, "player": PLAYER, "zone": ZONE, "text": TEXT, "number": NUMBER}
        if e.noun in nouns:
            if not compatible(t, nouns[e.noun]):
                self.report("E0408", f"'random {e.noun}' picks {show(nouns[e.noun])}, but these are {plural(t)}",
                            e.span, f"write random {_noun(t)} from ..., or random item from ...")
        elif e.noun not in ("item", "one", "member") and not (isinstance(t, tuple) and t[1] == e.noun):
            self.report("E0408", f"'random {e.noun}': say what is picked with card, player, item or one",
                        e.span, f"write random {_noun(t)} from ...")
        return t

    def t_RandomNumber(self, e, sc):
        self.want(e.low, NUMBER, sc)
        self.want(e.high, NUMBER, sc)
        return NUMBER

    def t_SortedExpr(self, e, sc):
        t = self.infer(e.coll, sc)
        if not is_list(t) and t != ANY:
            self.report("E0404", f"'sorted by' sorts a collection, but this is {show(t)}", e.coll.span,
                        "a collection is e.g. players, cards in a zone, or a list [a, b]")
        inner = sc.child(it_type=elem(t))
        for key in e.keys:
            k = self.infer(key.expr, inner)
            if k not in (NUMBER, TEXT, ANY, NONE):
                self.report("E0408", f"a sort key is a number or a text, but this is {show(k)}", key.expr.span,
                            "sort by a number of each one, e.g. players sorted by it's score highest first")
        return t if is_list(t) else list_of(ANY)

    def t_CurrentStep(self, e, sc):
        return TEXT

    def t_SeatOf(self, e, sc):
        self.want(e.player, PLAYER, sc)
        return NUMBER

    def t_SeatExpr(self, e, sc):
        if isinstance(e.seat, A.Num) and e.seat.value < 1:
            self.report("E0412", "seats are numbered from 1", e.span, "write seat 1, seat 2, ...")
        self.want(e.seat, NUMBER, sc)
        return PLAYER

    def t_SeatsFrom(self, e, sc):
        self.want(e.count, NUMBER, sc)
        self.want(e.player, PLAYER, sc)
        return PLAYER

    def t_Modulo(self, e, sc):
        self.want(e.left, NUMBER, sc)
        self.want(e.right, NUMBER, sc)
        return NUMBER

    # ------------------------------------------------------------------ issue 18's expressions
    def t_NumberRange(self, e, sc):
        self.want(e.low, NUMBER, sc)
        self.want(e.high, NUMBER, sc)
        return list_of(NUMBER)

    def t_PositionIn(self, e, sc):
        it = self.infer(e.item, sc)
        ct = self.infer(e.coll, sc)
        if ct == ZONE:
            ct = list_of(CARD)
        elif ct == list_of(ZONE):
            self.report("E0403", "'the position of ... in' looks into one zone, but this is a list of zones",
                        e.coll.span, "name one player's zone: the position of c in p's row")
            return NUMBER
        if not is_list(ct) and ct != ANY:
            self.report("E0404", f"'the position of ... in' needs a list or a zone, but this is {show(ct)}",
                        e.coll.span, "a collection is e.g. players, cards in a zone, an enum, or a list [a, b]")
        elif is_list(ct) and not compatible(it, ct[1]):
            self.report("E0406", f"cannot look for {show(it)} among {plural(ct[1])}", e.span,
                        f"look for {example(ct[1])}, or in a collection of {plural(it)}")
        return NUMBER

    def t_CardFrom(self, e, sc):
        self.want(e.index, NUMBER, sc)
        self._want_one_zone(e.zone, sc, f"the card N from the {e.place} of")
        return CARD

    def t_Otherwise(self, e, sc):
        a, b = self.infer(e.value, sc), self.infer(e.default, sc)
        if not compatible(a, b):
            self.report("E0408", f"the two values of 'otherwise' differ: {show(a)} and {show(b)}",
                        e.default.span, f"give after 'otherwise' {example(a)}, the kind of value before it")
            return ANY
        return b if a in (NONE, ANY) else a

    # ------------------------------------------------------------------ combinations (issue 18)
    def t_GroupsOf(self, e, sc):
        self.want(e.size, NUMBER, sc)
        t = self._want_list(e.coll, sc, "'the groups of ... from'")
        nouns = {"cards": CARD, "players": PLAYER, "zones": ZONE, "texts": TEXT, "numbers": NUMBER}
        if e.noun in nouns and not compatible(t, nouns[e.noun]):
            self.report("E0408", f"'the groups of ... {e.noun}' takes {plural(nouns[e.noun])}, but these are "
                                 f"{plural(t)}", e.span, f"write the groups of ... {plural(t)} from ..., or leave "
                                                          "the noun out")
        elif e.noun is not None and e.noun not in nouns and e.noun not in _ANY_NOUNS:
            self.report("E0408", f"'the groups of ... {e.noun}': say what is grouped with cards, players, "
                                 "numbers, texts, zones or items", e.span,
                        f"write the groups of ... {plural(t) if t != ANY else 'items'} from ...")
        return list_of(list_of(t))

    def t_SubsetsOf(self, e, sc):
        return list_of(list_of(self._want_list(e.coll, sc, "'the subsets of'")))

    def t_BestArrangement(self, e, sc):
        group = list_of(self._want_list(e.coll, sc, "'the best arrangement of'"))
        inner = sc.child(it_type=group)        # `it` is one group, in the test and in the score
        self.want(e.cond, FLAG, inner)
        self.want(e.score, NUMBER, inner)
        return list_of(group)

    def want(self, e, t, sc):
        got = self.infer(e, sc)
        if got == NONE and needs_value(t):
            self.none_here(e, t)
        elif not compatible(got, t):
            self.report("E0408", f"expected {show(t)} here, but this is {show(got)}", e.span, f"give {example(t)}")
        return got

    def none_here(self, e, t) -> None:
        self.report("E0414", f"none is not {show(t)}: this needs {show(t)} that is there", e.span,
                    NONE_HINT.get(t if not is_list(t) else "list", NONE_HINT["list"]))

    # boards: places, links, distances, paths and marks (dsl/board_types.py)
    from .board_types import (t_PlacesAdjacent, t_PlacesWithin, t_PlacesOf, t_DistanceBetween,  # noqa: E402
                              t_ShortestPath, t_PlaceMark, place_field_type, builtin_place)


_ANY_NOUNS = ("items", "ones", "elements", "values", "things")      # `the groups of 2 items from ...`


def _noun(t) -> str:
    """The word after `random` for elements of type `t`."""
    return {CARD: "card", PLAYER: "player", ZONE: "zone", TEXT: "text", NUMBER: "number"}.get(t, "item")


def _written_short(e) -> str:
    """A short operand as written, for a hint (a name, a number, `this`, `you`), else 'x'."""
    if isinstance(e, A.Name):
        return e.name
    if isinstance(e, A.Num):
        return str(e.value)
    return {A.This: "this", A.You: "you"}.get(type(e), "x")


# One type rule per expression class, read from the registry (dsl/registry.py) once
_TYPE = dispatch("type", EXPRESSION, Typer)


# What a built-in function gives (BuiltinFunction.gives), from the type of its argument
_GIVES = {
    "number": lambda t: NUMBER,
    "flag": lambda t: FLAG,
    "element": elem,
    "players": lambda t: list_of(PLAYER),
}


# `none` stands for a card or a value that is not there: it may be stored (set, let, give), passed
# on (arguments) and compared (=, !=, is none). It cannot be counted with, negated, asked to
# choose, shuffled or looped over: where one of these needs a value, the literal `none` is an error.
def needs_value(t) -> bool:
    return t in (NUMBER, PLAYER, ZONE) or is_list(t)


NONE_HINT = {
    NUMBER: "write a number (0 if nothing is meant)",
    PLAYER: "name a player: seat 1, the active player, you, or a name given by for each / chooses",
    ZONE: "name a zone: p's deck, your discard, or a shared zone",
    "list": "give a collection: players, cards in a zone, or a list [a, b]",
}
YOU_HINT = ("'you' is known inside a card's ability and inside 'each player in ... secretly chooses ...:'; "
            "elsewhere name the player: seat 1, the active player, or p in 'for each p in players:'")
