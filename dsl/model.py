"""The loaded game: the checked declarations of a .cards file, indexed by name.

`Game` is immutable once loaded; the interpreter compiles it once and keeps all changing
things in its own GameState.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import ast as A
from .registry import EVENTS
from .source import Source
from .types import Typing


@dataclass(frozen=True, slots=True)
class CardDef:
    """One physical card: its identity (index in the game), name, type, start zone and field values."""
    id: int
    name: str
    type_name: str
    zone: str
    values: dict            # field name -> python value (number, flag, text, enum member, None)
    abilities: tuple        # the card type's abilities, then the card's own
    span: object
    # every ability that works for this card, with the keyword arguments it runs with:
    # ((ability, (("x", 2),)), ...) — keyword abilities carry their parameters, others ()
    bound: tuple = ()


@dataclass
class Declarations:
    """Declarations of a module by kind and name (built by dsl/checks/declarations.py)."""
    game: A.GameDecl | None = None
    # whether the engine keeps who has seen each card: `remember seen cards`, or a `has seen` /
    # `is known to` anywhere (set by the checker: declarations.py, types.py `t_HasSeen`)
    remembers: bool = False
    enums: dict[str, A.EnumDecl] = field(default_factory=dict)
    card_types: dict[str, A.CardTypeDecl] = field(default_factory=dict)
    player_fields: dict[str, A.FieldDecl] = field(default_factory=dict)
    game_fields: dict[str, A.FieldDecl] = field(default_factory=dict)
    # `player toward a player has:`: what each player has toward each other player (read as
    # `the intel of p on q`, a PlaceMark whose name no board declares; defaults in toward_defaults)
    toward_fields: dict[str, A.FieldDecl] = field(default_factory=dict)
    toward_defaults: dict[str, object] = field(default_factory=dict)
    zones: dict[str, A.ZoneDecl] = field(default_factory=dict)
    # entity kinds by name (`entity ship: per player, at most 3`: dsl/checks/entities.py), and the
    # values each new one's attributes start with (set by the entity checks)
    entities: dict[str, A.EntityDecl] = field(default_factory=dict)
    entity_defaults: dict[str, dict] = field(default_factory=dict)
    # boards by name, resolved (places, links, fields, marks: dsl/checks/boards.py `Board`); each
    # place is also in `zones`, a shared zone whose `board` names its board
    boards: dict[str, object] = field(default_factory=dict)
    tables: list[A.CardTable] = field(default_factory=list)
    cards: list[A.CardDecl] = field(default_factory=list)
    dice: dict[str, A.DieDecl] = field(default_factory=dict)
    events: dict[str, A.EventDecl] = field(default_factory=dict)
    defines: dict[str, A.DefineDecl] = field(default_factory=dict)
    procedures: dict[str, A.ProcedureDecl] = field(default_factory=dict)
    keywords: dict[str, A.KeywordDecl] = field(default_factory=dict)
    setup: A.SetupDecl | None = None
    rounds: list[A.RoundDecl] = field(default_factory=list)
    end_checks: list[A.EndCheckDecl] = field(default_factory=list)
    trigger_order: A.TriggerOrderDecl | None = None
    value: A.ValueDecl | None = None            # how well a player stands, for the agents
    score: A.ScoreDecl | None = None            # each player's score, carried by the result
    measures: list[A.MeasureDecl] = field(default_factory=list)    # what a simulation measures
    groups: list[A.GroupDecl] = field(default_factory=list)        # how a simulation groups players
    windows: list[A.WindowDecl] = field(default_factory=list)
    stacks: list[A.StackDecl] = field(default_factory=list)
    deck_rules: A.DeckRulesDecl | None = None     # how a deck is built (dsl/decks.py)
    prose: list[A.ProseDecl] = field(default_factory=list)
    notes: list[A.NoteDecl] = field(default_factory=list)
    terms: dict[str, A.TermDecl] = field(default_factory=dict)     # by the word, lower case
    credits: list[A.CreditDecl] = field(default_factory=list)
    scenarios: list[A.ScenarioDecl] = field(default_factory=list)
    # procedure name -> one type per parameter, agreed by every call of it in the game (`any`
    # where calls disagree); set by the body checks, read by `instead of <procedure>` abilities
    param_types: dict[str, tuple] = field(default_factory=dict)
    # What the body checks found, for the compiler and the publisher to read (never re-derive):
    # every expression's type and what each bare name is (dsl/types.py `Typing`), and for the
    # rulebook the type each procedure / define parameter has at every call that knows it
    typing: Typing = field(default_factory=Typing)
    call_types: dict[str, dict[str, object]] = field(default_factory=dict)
    # attribute name -> the value every player / the game starts with (set by the card checks)
    player_defaults: dict[str, object] = field(default_factory=dict)
    game_defaults: dict[str, object] = field(default_factory=dict)

    def entity_of_plural(self, word: str) -> str | None:
        """The entity kind whose plural is `word` (`ships` -> `ship`), or None."""
        for e in self.entities.values():
            if e.plural_name == word:
                return e.name
        return None

    def enum_members(self) -> list[str]:
        return [m for e in self.enums.values() for m in e.members]

    def member_enum(self, name: str) -> str | None:
        for e in self.enums.values():
            if name in e.members:
                return e.name
        return None


# Built-in events the engine raises itself; abilities may listen to them like declared ones.
# Their one table is dsl/registry.py (EVENTS: parameters, English, who announces them); this is
# its view as name -> ((parameter, type), ...), which the checker and the compiler read.
BUILTIN_EVENTS: dict[str, tuple[tuple[str, str], ...]] = {name: ev.params for name, ev in EVENTS.items()}


@dataclass(frozen=True)
class Game:
    """A checked game, ready to run or publish."""
    path: str
    title: str
    min_players: int
    max_players: int
    summary: str
    decls: Declarations
    cards: tuple[CardDef, ...]
    module: A.Module
    sources: dict[str, Source]
    _cache: dict = field(default_factory=dict, compare=False, hash=False, repr=False)
    # the decks dealt to the seats (card names per seat) when this game is one built from the
    # declared game and its players' decks (interpreter/decks.py `dealt_game`); () for the declared game
    decks: tuple = ()

    @property
    def notes(self) -> list[str]:
        return [n.text for n in self.decls.notes]
