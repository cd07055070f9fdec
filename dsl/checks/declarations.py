"""Pass 1: index every declaration by name; report duplicates and bad metadata.

    enum Side: up, down
    enum Side: left, right      # E0102 'Side' is declared twice (first at line 1)
"""
from __future__ import annotations

from collections import Counter

from .. import ast as A
from .dice import discard_zones
from ..diagnostics import DiagnosticSink
from ..model import Declarations
from ..types import BASIC, CARD_PSEUDO_FIELDS, suggest
from .boards import boards, index_board
from .entities import check_entities, index_entity

RESERVED_FIELDS = ("name", "type", "copies", *CARD_PSEUDO_FIELDS)


def declarations(module: A.Module, sink: DiagnosticSink) -> Declarations:
    d = Declarations()
    seen: dict[tuple[str, str], A.Span] = {}

    def unique(kind: str, name: str, span, table: dict, node) -> None:
        first = seen.get((kind, name))
        if first is not None:
            sink.error("E0102", f"{kind} '{name}' is declared twice", span,
                       f"rename one of them; the first is at line {first.line}")
            return
        seen[(kind, name)] = span
        table[name] = node

    end_check_names: dict[str, A.Span] = {}
    for decl in module.decls:
        if isinstance(decl, A.OverrideDecl):
            if isinstance(decl.decl, A.EndCheckDecl) and decl.decl.name is None:
                sink.error("E0111", "an 'as soon as' is overridden by its name, and this one has none",
                           decl.span, 'name it as the base names the one it replaces: '
                           'override as soon as ..., named "Last one standing":')
            decl = decl.decl   # a lone file has nothing to override: the rule simply counts
        if isinstance(decl, A.EndCheckDecl) and decl.name is not None:
            if decl.name in end_check_names:
                sink.error("E0102", f"the 'as soon as' named \"{decl.name}\" is declared twice (first at line "
                           f"{end_check_names[decl.name].line})", decl.span,
                           "give each its own name; in a variant, write override in front of the new one")
            end_check_names.setdefault(decl.name, decl.span)
        match decl:
            case A.GameDecl():
                if d.game is not None:
                    sink.error("E0102", "the game is declared twice", decl.span, "keep one 'game' block")
                d.game = decl
                d.remembers = d.remembers or decl.remembers
                if decl.min_players < 1 or decl.max_players < decl.min_players:
                    sink.error("E0103", f"players: {decl.min_players} to {decl.max_players} is not a range",
                               decl.players_span or decl.span,
                               "write the smaller number first, e.g. players: 2 to 6")
            case A.EnumDecl():
                unique("enum", decl.name, decl.span, d.enums, decl)
                times = Counter(decl.members)     # not members.count(m): quadratic in a 200,000-member enum
                for m in decl.members:
                    if times[m] > 1:
                        sink.error("E0102", f"'{m}' appears twice in enum '{decl.name}'", decl.span, None)
                        break
            case A.CardTypeDecl():
                unique("card type", decl.name, decl.span, d.card_types, decl)
                names = Counter(f.name for f in decl.fields)
                for f in decl.fields:
                    if names[f.name] > 1 or f.name in RESERVED_FIELDS:
                        sink.error("E0104", f"field '{f.name}' of '{decl.name}' is declared twice or is reserved",
                                   f.span, ", ".join(f"'{n}'" for n in RESERVED_FIELDS) + " are built into every card")
            case A.AttrsDecl():
                table = {"player": d.player_fields, "toward": d.toward_fields}.get(decl.owner, d.game_fields)
                for f in decl.fields:
                    unique("player toward a player attribute" if decl.owner == "toward" else f"{decl.owner} attribute",
                           f.name, f.span, table, f)
                    if decl.owner == "toward" and f.reset is not None:
                        sink.error("E0113", f"'{f.name}', an attribute toward each other player, cannot reset each "
                                   f"{f.reset}", f.span, "keep it a player attribute (player has:) to reset it, or "
                                   f"set it back by a rule: for each q in players: set the {f.name} of p on q to 0")
            case A.ZoneDecl():
                unique("zone", decl.name, decl.span, d.zones, decl)
                if decl.owner_knows and not (decl.per_player and decl.visibility == "public"):
                    sink.error("E0112", f"'face down known to its owner' needs a public zone per player, "
                               f"but '{decl.name}' is {'shared' if not decl.per_player else decl.visibility}",
                               decl.span, "e.g. zone station: per player, public, face down known to its owner "
                               "(a shared zone has no owner; in a hidden or owner-only zone nobody else sees the face)")
            case A.EntityDecl():
                index_entity(decl, d, unique, sink)
            case A.BoardDecl():
                index_board(decl, d, unique)
            case A.CardTable():
                d.tables.append(decl)
            case A.CardDecl():
                d.cards.append(decl)
            case A.DieDecl():
                unique("die", decl.name, decl.span, d.dice, decl)
            case A.EventDecl():
                unique("event", decl.name, decl.span, d.events, decl)
            case A.DefineDecl():
                unique("value", decl.name, decl.span, d.defines, decl)
            case A.ProcedureDecl():
                unique("procedure", decl.name, decl.span, d.procedures, decl)
            case A.KeywordDecl():
                unique("keyword", decl.name, decl.span, d.keywords, decl)
                for f in decl.fields:
                    sink.error("E0107", f"a keyword cannot declare the field '{f.name}'", f.span,
                               "declare fields on the card type; a keyword's values are its parameters")
            case A.SetupDecl():
                if d.setup is not None:
                    sink.error("E0102", "setup is declared twice", decl.span, "merge the two setup blocks")
                d.setup = decl
            case A.RoundDecl():
                d.rounds.append(decl)
            case A.EndCheckDecl():
                d.end_checks.append(decl)
            case A.TriggerOrderDecl():
                d.trigger_order = decl
            case A.ValueDecl():
                if d.value is not None:
                    sink.error("E0102", "the players' value is declared twice", decl.span,
                               f"keep one 'value for ... as ...'; the first is at line {d.value.span.line}")
                d.value = decl
            case A.ScoreDecl():
                if d.score is not None:
                    sink.error("E0102", "the players' score is declared twice", decl.span,
                               f"keep one 'score for ... as ...'; the first is at line {d.score.span.line}")
                d.score = decl
            case A.MeasureDecl() | A.GroupDecl():
                kind, held = ("measure", d.measures) if isinstance(decl, A.MeasureDecl) else ("group", d.groups)
                first = next((x for x in held if x.name == decl.name), None)
                if first is not None:
                    sink.error("E0102", f"the {kind} \"{decl.name}\" is declared twice", decl.span,
                               f"rename one; the first is at line {first.span.line}")
                else:
                    held.append(decl)
            case A.WindowDecl():
                d.windows.append(decl)
            case A.StackDecl():
                d.stacks.append(decl)
            case A.DeckRulesDecl():
                if d.deck_rules is not None:
                    sink.error("E0102", "the deck rules are declared twice", decl.span,
                               f"keep one 'deck rules' block; the first is at line {d.deck_rules.span.line}")
                else:
                    d.deck_rules = decl
            case A.ProseDecl():
                d.prose.append(decl)
            case A.NoteDecl():
                d.notes.append(decl)
            case A.TermDecl():
                key = " ".join(decl.word.lower().split())
                if key in d.terms:
                    sink.error("E0102", f"the term '{decl.word}' is defined twice (first at line "
                               f"{d.terms[key].span.line})", decl.span, "keep one definition of each term")
                else:
                    d.terms[key] = decl
            case A.CreditDecl():
                d.credits.append(decl)
            case A.ScenarioDecl():
                d.scenarios.append(decl)
            case A.ImportDecl() | A.ExtendsDecl():
                pass   # resolved by the loader before this pass runs
    if d.game is None:
        sink.error("E0105", "this file declares no game", module.span if module.span.line else
                   A.Span(module.span.path, 1, 1, 1, 2),
                   'start the file with: game "Title": and an indented "players: 2 to 4" line')
    if len(d.rounds) > 1:
        sink.error("E0106", "a game has one 'round' block", d.rounds[1].span,
                   "put the phases and steps of a round inside one 'round' block")
    _check_type_names(module, d, sink)
    boards(d, sink)
    discard_zones(d, sink)      # `at most N, discard down into Z` (dsl/checks/dice.py)
    check_entities(d, sink)     # entity kinds and their zones (dsl/checks/entities.py)
    for name in d.defines:
        if name in d.procedures:
            sink.error("E0102", f"'{name}' is both a value and a procedure", d.defines[name].span, "rename one")
    for name, f in d.toward_fields.items():     # `the intel of p on q` reads one or the other
        if any(name in getattr(b, "marks", ()) for b in d.boards.values()):
            sink.error("E0102", f"'{name}' is both an attribute toward each other player and a mark on a board's "
                                "places", f.span, "rename one: 'the ... of p on q' reads either")
    return d


def _declared_types(module: A.Module):
    """Every type name written in the file, where it is written: the fields of card types,
    player and game attributes, and the parameters of events and keywords."""
    for decl in module.decls:
        if isinstance(decl, A.OverrideDecl):
            decl = decl.decl
        if isinstance(decl, (A.CardTypeDecl, A.AttrsDecl, A.EntityDecl)):
            yield from (f.type for f in decl.fields)
        elif isinstance(decl, A.BoardDecl):
            yield from (f.type for f in (*decl.fields, *decl.marks))
        elif isinstance(decl, (A.EventDecl, A.KeywordDecl)):
            yield from (p.type for p in decl.params)


def _check_type_names(module: A.Module, d: Declarations, sink: DiagnosticSink) -> None:
    """E0101 where an unknown type is declared: unchecked, a field of type `nunber` would take
    any value and every use of it would pass as well."""
    known = [*BASIC, *d.enums, *d.card_types, *d.entities]
    for ref in _declared_types(module):
        if ref.name not in known:
            sink.error("E0101", f"unknown type '{ref.name}'", ref.span,
                       suggest(ref.name, known) or "a type is number, flag, text, player, card, zone, "
                       "an enum or a card type (declare one with 'enum Name: a, b' or 'card type Name:')")
