"""The rulebook of a game: a book model collected from the loaded `Game`, rendered to Markdown,
HTML or PDF with Jinja templates (the package's own, or a designer's `--templates` folder).

    book = build_book(game)                       # chapters, sections, tables, rules in English
    write_rulebook(game, "out/", "html")          # out/<stem>.html + the two diagrams (.svg, .dot)

The book: a cover (title, players, summary), the table of contents, then numbered chapters —
introduction, components, the cards (grouped by card type and by an enum field such as
faction), setup, the turn structure (with the phase diagram), one chapter per round with a
section per phase and step, the procedures and values the rules use, simultaneous effects and
the stack, the end of the game, further rules, a glossary and the interpretations. Every rule
shows its doc strings first, then its English rendering from the AST ("In rules terms").

Templates run in Jinja's sandbox with autoescaping (HTML) and StrictUndefined, so a card named
`<script>` is text, and in a bounded child process (templating.py); text from the file cannot
make Markdown images, links or HTML either. Output is deterministic: no dates, everything in
declaration order. Every failure is a located error (errors.py, E10xx).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from markupsafe import Markup, escape

from .. import ast as A
from ..bounds import MAX_DIAGRAM_NODES
from ..highlight import cards_filter
from ..model import BUILTIN_EVENTS, Game
from . import apart
from . import diagrams as D
from .board import board_source, place_rows, value_columns
from . import english as E
from . import errors as X
from . import examples as EX
from . import layout as L
from .layout import field_label, value_label, zone_label as zl
from .english_entities import entity_texts, kind_plural, kind_word, whose
from . import templating as T

FORMATS = ("html", "pdf", "md")


# ================================================================ the book model


@dataclass
class Block:
    """One piece of a section. kind: prose (texts), rules (lines), table (columns, rows),
    diagram (svg / file, or a note saying why it is not drawn), picture (svg / file: a drawing
    of our own, no DOT), terms (items: Term), list (texts), example (lines: {"heading"} or
    {"text"} dicts), aid (items: AidPart), index (items: IndexLetter)."""
    kind: str
    title: str = ""
    texts: list = field(default_factory=list)
    lines: list = field(default_factory=list)
    columns: list = field(default_factory=list)
    rows: list = field(default_factory=list)
    items: list = field(default_factory=list)
    svg: Markup | None = None
    file: str = ""
    dot_file: str = ""
    note: str = ""


@dataclass
class Term:
    term: str
    kind: str
    texts: list
    anchor: str


@dataclass
class AidPart:
    title: str
    texts: list


@dataclass
class CardEntry:
    name: str
    copies: int
    facts: str          # its printed values, as words ("force 3; play another")
    text: str           # its own effect in English ("" when it has none)
    anchor: str


@dataclass
class IndexEntry:
    word: str
    refs: list          # [(ref text "§3.2", anchor "sec-3-2")]


@dataclass
class IndexLetter:
    letter: str
    entries: list


@dataclass
class Section:
    number: str
    title: str
    level: int
    blocks: list = field(default_factory=list)
    sections: list = field(default_factory=list)
    new_page: bool = False      # a chapter that starts a new printed page (the others run on)
    alone: bool = False         # a chapter printed on a page of its own (the player aid)

    @property
    def anchor(self) -> str:
        return "sec-" + self.number.replace(".", "-")

    @property
    def ref(self) -> str:
        return "§" + self.number


@dataclass
class Book:
    title: str
    stem: str
    players: str
    summary: str
    source: str
    chapters: list
    diagrams: dict
    credits: list = field(default_factory=list)       # "Role: names"
    pictures: dict = field(default_factory=dict)      # file name -> SVG text (the table drawings)
    page_numbers: dict = field(default_factory=dict)  # anchor -> printed page (PDF only, see print_book)


def prose(texts) -> Block:
    return Block("prose", texts=[E.clean(t) for t in texts])


def rules(lines, title: str = "In rules terms") -> Block:
    return Block("rules", title=title, lines=list(lines))


def doc_and_rules(body, ctx: E.Ctx, title: str = "In rules terms") -> list[Block]:
    """A rule's doc strings (its prose), then its statements in English."""
    docs = [s.text for s in body if isinstance(s, A.DocItem)]
    rest = [s for s in body if not isinstance(s, A.DocItem)]
    out = []
    if docs:
        out.append(prose(docs))
    lines = E.describe_block(rest, ctx)
    if lines:
        out.append(rules(lines, title if docs else "The rule"))
    return out


def show_value(v) -> str:
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (list, tuple)):
        return ", ".join(show_value(x) for x in v)
    return E.clean(str(v))


def players_text(game: Game) -> str:
    lo, hi = game.min_players, game.max_players
    if lo == hi:
        return f"{lo} player{'s' if lo != 1 else ''}"
    return f"{lo} to {hi} players"


# The chapters that open a printed page: the start of the rules, of the examples and of the
# reference, and the player aid (one page of its own). The others follow on, so that a short
# chapter leaves no near-empty page behind it.
NEW_PAGE = ("Overview", "Player aid")


class BookBuilder:
    """Collects the book of one game."""

    def __init__(self, game: Game, diagrams: dict | None = None, examples: bool = True):
        self.game = game
        self.d = game.decls
        self.ctx = E.make_ctx(self.d, param_types=E.param_types(self.d))
        self.diagrams = diagrams or {}
        self.chapters: list[Section] = []
        self.pictures: dict[str, str] = {}
        self.card_refs: dict[str, tuple[str, str]] = {}     # card name -> (its section, its anchor)
        self.anchors: set[str] = set()
        self.with_examples = examples and bool(self.d.rounds)

    # ---------------------------------------------------------------- numbering
    def plan(self) -> list[tuple[str, object]]:
        """The chapters in the order a player reads them: what the game is and what is in the
        box, the setup, how a round is played, how it ends and examples of it; then the
        reference (timing, procedures, the cards, tables, glossary), a player aid, the
        interpretations, credits and the index."""
        d = self.d
        plan: list[tuple[str, object]] = [("Overview", self.ch_intro), ("Components", self.ch_components)]
        if d.deck_rules is not None:
            plan.append(("Building your deck", self.ch_decks))
        if d.setup is not None:
            plan.append(("Setup", self.ch_setup))
        plan.append(("The turn structure", self.ch_structure))
        for r in d.rounds:
            plan.append((f"Round \u201c{E.clean(r.name)}\u201d", (lambda sec, r=r: self.ch_round(sec, r))))
        if d.end_checks or d.value or d.score:
            plan.append(("The end of the game", self.ch_end))
        if self.with_examples:
            plan.append(("Examples of play", self.ch_examples))
        if d.trigger_order or d.stacks or d.windows or d.keywords or self._targets():
            plan.append(("Simultaneous effects and the stack", self.ch_timing))
        if d.procedures or d.defines:
            plan.append(("Procedures and values", self.ch_procedures))
        if d.prose:
            plan.append(("Further rules", self.ch_prose))
        plan.append(("Card reference", self.ch_cards))
        plan.append(("Reference tables", self.ch_tables))
        plan.append(("Glossary", self.ch_glossary))
        plan.append(("Player aid", self.ch_aid))
        plan.append(("Interpretations", self.ch_notes))
        if d.credits:
            plan.append(("Credits", self.ch_credits))
        plan.append(("Index", self.ch_index))
        return plan

    def build(self) -> Book:
        plan = self.plan()
        sections = [Section(str(i + 1), title, 1, new_page=title in NEW_PAGE, alone=title == "Player aid")
                    for i, (title, _) in enumerate(plan)]
        self.by_title = {s.title: s for s in sections}
        self.chapters = sections
        self.proc_numbers()
        for sec, (_, fill) in zip(sections, plan):
            if fill != self.ch_index:
                fill(sec)
        if "Index" in self.by_title:
            self.ch_index(self.by_title["Index"])
        g = self.game
        gd = self.d.game
        credits = [f"{E.clean(c.role)}: {E.join_and([E.clean(n) for n in c.names])}" for c in self.d.credits]
        return Book(E.clean(g.title), Path(g.path).stem, players_text(g), E.clean(g.summary),
                    E.clean(gd.source) if gd else "", sections, self.diagrams, credits, self.pictures)

    def proc_numbers(self) -> None:
        sec = self.by_title.get("Procedures and values")
        self.ctx.proc_refs = {}
        if sec is None:
            return
        for i, name in enumerate(self.d.procedures, 1):
            self.ctx.proc_refs[name] = f"§{sec.number}.{i}"

    def sub(self, parent: Section, title: str) -> Section:
        s = Section(f"{parent.number}.{len(parent.sections) + 1}", title, parent.level + 1)
        parent.sections.append(s)
        return s

    def diagram(self, kind: str, title: str) -> Block:
        info = self.diagrams.get(kind, {})
        stem = Path(self.game.path).stem
        return Block("diagram", title=title, svg=info.get("svg"), file=f"{stem}-{kind}.svg",
                     dot_file=f"{stem}-{kind}.dot", note=info.get("note", ""))

    # ---------------------------------------------------------------- chapters
    def ch_intro(self, sec: Section) -> None:
        gd = self.d.game
        if gd and gd.docs:
            sec.blocks.append(prose(gd.docs))
        facts = [f"Goal: {E.clean(self.game.summary)}", f"Players: {players_text(self.game)}."]
        facts.append(f"In the box: {self.box_summary()}.")
        if gd and gd.source:
            facts.append(f"Source of the rules: {E.clean(gd.source)}.")
        sec.blocks.append(Block("list", texts=facts))
        order = [c.title for c in self.chapters]
        after = [t for t in ("Setup", "The turn structure", "The end of the game", "Examples of play") if t in order]
        sec.blocks.append(prose([
            "Read " + E.join_and([f"{self.by_title[t].ref} {t.lower()}" for t in after])
            + " to learn the game; the chapters after them are for looking things up: every card, "
              f"every table, the glossary ({self.by_title['Glossary'].ref}) and the index "
              f"({self.by_title['Index'].ref}). The player aid ({self.by_title['Player aid'].ref}) fits on "
              "one page, to keep beside you while you play."]))

    def card_groups(self) -> list[tuple[str, list, object, dict]]:
        """The cards by type: (type name, cards, the enum field that groups them or None, groups)."""
        by_type: dict[str, list] = {}
        for cd in self.game.cards:
            by_type.setdefault(cd.type_name, []).append(cd)
        out = []
        for type_name, cards in by_type.items():
            ct = self.d.card_types.get(type_name)
            fields = list(ct.fields) if ct else []
            group_field = next((f for f in fields if not f.type.is_list and f.type.name in self.d.enums), None)
            groups: dict[str, list] = {}
            for cd in cards:
                key = show_value(cd.values.get(group_field.name)) if group_field else ""
                groups.setdefault(key, []).append(cd)
            if group_field is not None:
                order = list(self.d.enums[group_field.type.name].members) + ["\u2014"]
                groups = dict(sorted(groups.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)))
            out.append((type_name, cards, group_field, groups))
        return out

    def box_summary(self) -> str:
        parts = [count(len(cards), f"{t} card") for t, cards, _, _ in self.card_groups()]
        parts += [count(1, f"{die.name} die") for die in self.d.dice.values()]
        return E.join_and(parts) if parts else "no cards"

    def ch_components(self, sec: Section) -> None:
        d = self.d
        box = self.sub(sec, "What is in the box")
        texts = []
        for type_name, cards, group_field, groups in self.card_groups():
            line = f"{count(len(cards), f'{type_name} card')}"
            if group_field is not None and len(groups) > 1:
                sizes = {len(v) for v in groups.values()}
                if len(sizes) == 1:
                    line += (f": {len(next(iter(groups.values())))} for each {E.human(group_field.name)} "
                             f"({E.join_and(list(groups))})")
                else:
                    line += ": " + E.join_and([f"{len(v)} {k}" for k, v in groups.items()])
            distinct = len({cd.name for cd in cards})
            if distinct != len(cards):
                line += f"; {count(distinct, 'different card')}"
            texts.append(line + ".")
        for die in d.dice.values():
            texts.append(f"One {die.name} die with {len(die.faces)} faces.")
        box.blocks.append(Block("list", texts=texts or ["No cards."]))
        box.blocks.append(prose([f"Every card is listed in the card reference ({self.by_title['Card reference'].ref})."]))
        table = self.sub(sec, "The table")
        per = [z for z in d.zones.values() if z.per_player]
        shared = [z for z in d.zones.values() if not z.per_player and z.per_entity is None]
        texts = []
        if per:
            texts.append("Each player has " + E.join_and([E.article(zl(d, z.name)) for z in per]) + ".")
        if shared:
            everyone = "Both players share " if self.game.max_players == 2 else "All players share "
            texts.append(everyone + E.join_and([f"the {zl(d, z.name)}" for z in shared]) + ".")
        table.blocks.append(prose(texts))
        stem = Path(self.game.path).stem
        svg = L.table_svg(d, ["Each player"], None, caption_players=False)
        table.blocks.append(self.picture(f"{stem}-table.svg", svg, "The table: each player's zones, and the zones "
                                         "everyone shares. Dark zones are hidden, dashed ones are seen by their "
                                         "owner only, white ones by everyone."))
        rows = []
        for z in d.zones.values():
            if z.board is not None:     # a board's place: in the board's section
                continue
            seen = {"hidden": "hidden", "owner": "its owner only", "others": "everyone but its owner",
                    "public": "everyone"}[z.visibility]
            if z.owner_knows:           # `face down known to its owner`
                seen = "everyone; face down, its owner only"
            rows.append([zl(d, z.name), whose(d, z), seen, E.clean(z.doc or "")])
        table.blocks.append(Block("table", title="The zones", rows=rows,
                                  columns=["Zone", "Whose", "Who sees the cards", "Description"]))

    def picture(self, file: str, svg: str, title: str) -> Block:
        self.pictures[file] = svg
        return Block("picture", title=title, svg=Markup(svg), file=file)

    def ch_tables(self, sec: Section) -> None:
        d = self.d
        zones = self.sub(sec, "Zones")
        zones.blocks.append(prose(["Cards are always in one of these places. A zone \u201cof each player\u201d "
                                   "exists once for every player; a shared zone exists once."]))
        if d.remembers:     # `remember seen cards` (docs/language.md, "Who has seen a card")
            zones.blocks.append(prose([E.REMEMBERED]))
        rows = []
        for z in d.zones.values():
            if z.board is not None:     # a board's place: in the board's section
                continue
            cards = ("a pile, with a top and a bottom" if z.ordered else "in no order") + "; " + {
                "hidden": "nobody sees them, only how many", "owner": "only its owner sees them",
                "others": "everyone but its owner sees them", "public": "everyone sees them"}[z.visibility]
            if z.owner_knows:
                cards += " face up; only its owner knows the face-down ones"
            if z.capacity is not None:
                cards += f"; at most {z.capacity}"
                if z.discard_into is not None:      # interpreter/caps.py
                    cards += (f" (past {z.capacity}, its owner chooses cards to put into "
                              f"{zl(d, z.discard_into)} until it holds {z.capacity})")
            rows.append([zl(d, z.name), whose(d, z), cards, E.clean(z.doc or "")])
        zones.blocks.append(Block("table", title="Zones", rows=rows,
                                  columns=["Zone", "Whose", "The cards in it", "Description"]))
        zones.blocks.append(self.diagram("zones", "Where the cards go: each arrow is a way cards move, numbered as "
                                         "in the table below"))
        flows = self.diagrams.get("flows") or []
        if flows:
            zones.blocks.append(Block("table", title="The card flows", columns=["", "From", "To", "Moved by"], rows=[
                [str(i), D.flow_label(d, src) if src != D.ELSEWHERE else "wherever the card is", D.flow_label(d, dst),
                 E.join_and([E.clean(r) for r in rules])] for i, src, dst, rules in flows]))
        for ct in d.card_types.values():
            s = self.sub(sec, f"Card type: {ct.name}")
            if ct.docs:
                s.blocks.append(prose(ct.docs))
            rows = [["name", "a text", "the card's name"]]
            rows += [[field_label(d, f.name), E.describe_field(f, self.ctx), E.clean(" ".join(f.docs))]
                     for f in ct.fields]        # by its display name, as the rules and the examples say it
            s.blocks.append(Block("table", title=f"Fields of every {ct.name}", columns=["Field", "Kind", "Description"],
                                  rows=rows))
            for pd in ct.parts:         # `parts belts: 2` (docs/language.md, "Parts of a card")
                word = pd.label or E.human(pd.name)
                s.blocks.append(prose([f"Every {ct.name} has {pd.count} {E.human(pd.name)} unless its card says "
                                       f"how many; each {word} has its own values of the fields below."]))
                s.blocks.append(Block("table", title=f"Fields of each {word} of a {ct.name}",
                                      columns=["Field", "Kind", "Description"],
                                      rows=[[field_label(d, f.name), E.describe_field(f, self.ctx),
                                             E.clean(" ".join(f.docs))] for f in pd.fields]))
            if ct.back:                 # `back shows: tier` (docs/language.md, "Card backs")
                s.blocks.append(prose([f"The back of every {ct.name} shows its "
                                       f"{E.join_and([field_label(d, n) for n in ct.back])}: everyone may read "
                                       f"{'it' if len(ct.back) == 1 else 'them'} on a {ct.name} lying face down "
                                       "or held in a hand, though not on one in a hidden pile."]))
            lines = []
            if ct.blank_unless is not None:     # who "you" is, said so that nobody reads "its owner" (english.py)
                lines.append(E.Line(E.blank_unless(ct, self.ctx)))
            for kw in ct.keywords:
                lines.append(E.Line(self.keyword_use(kw)))
            lines += [E.describe(ab, E.ability_ctx(self.ctx, ct.name)) for ab in ct.abilities]
            if lines:
                s.blocks.append(rules(lines, f"Every {ct.name} has"))
        for board in d.boards.values():         # a board: its places, their links, fields and marks, drawn
            self.board_section(sec, board)
        for e in d.entities.values():           # an entity kind: how many, its zones, its attributes
            s = self.sub(sec, kind_plural(d, e.name)[:1].upper() + kind_plural(d, e.name)[1:])
            s.blocks.append(prose(list(e.docs) + entity_texts(d, e)))
            rows = [["owner", "a player", f"the player the {kind_word(d, e.name)} belongs to"]]
            rows += [[field_label(d, f.name), E.describe_field(f, self.ctx), E.clean(" ".join(f.docs))] for f in e.fields]
            s.blocks.append(Block("table", title=f"What each {kind_word(d, e.name)} has",
                                  columns=["Attribute", "Kind", "Description"], rows=rows))
        for owner, fields in (("player", d.player_fields), ("game", d.game_fields)):
            if not fields:
                continue
            s = self.sub(sec, "What each player has" if owner == "player" else "What the game keeps track of")
            rows = [[field_label(d, f.name), E.describe_field(f, self.ctx), E.clean(" ".join(f.docs))]
                    for f in fields.values()]
            s.blocks.append(Block("table", title="Attributes", columns=["Attribute", "Kind", "Description"], rows=rows))
        if d.toward_fields:                     # `player toward a player has:`
            s = self.sub(sec, "What each player has toward each other player")
            rows = [[field_label(d, f.name), E.describe_field(f, self.ctx), E.clean(" ".join(f.docs))]
                    for f in d.toward_fields.values()]
            s.blocks.append(prose(["Each player keeps these apart for each other player: Ann's intel on Ben "
                                   "is not Ben's on Ann, nor Ann's on Cy.".replace("intel", rows[0][0])]))
            s.blocks.append(Block("table", title="Attributes toward each other player",
                                  columns=["Attribute", "Kind", "Description"], rows=rows))
        if d.enums:
            s = self.sub(sec, "Lists of values")
            s.blocks.append(Block("list", texts=[f"{e.name}: {', '.join(value_label(d, m) for m in e.members)}."
                                                 for e in d.enums.values()]))
        if d.dice:
            s = self.sub(sec, "Dice")
            rows = [[die.name, str(len(die.faces)),
                     "; ".join(", ".join(face) if face else "blank" for face in die.faces)] for die in d.dice.values()]
            s.blocks.append(Block("table", title="Dice", columns=["Die", "Faces", "The faces, in order"], rows=rows))

    def board_section(self, sec: Section, board) -> None:
        """A board (docs/language.md, "Boards"): its drawing, a table of its places and links,
        what every place has and what each player has on a place."""
        d = self.d
        s = self.sub(sec, f"Board: {E.clean(board.title)}")
        shape = {"grid": "laid out as a grid: a place is linked to the places beside it across a side",
                 "hex": "laid out as hexagons: a place is linked to the six around it"}.get(board.decl.shape, "")
        s.blocks.append(prose(list(board.decl.docs) + [
            f"The board has {len(board.places)} places{', ' + shape if shape else ''}. Each place holds cards as a "
            "shared zone does, and everyone sees them. Two places are adjacent when a link joins them; the "
            "distance between two places is the fewest links from one to the other."]))
        s.blocks.append(self.diagram(f"board-{board.name}", f"{E.clean(board.title)}: its places and the links "
                                     "between them"))
        s.blocks.append(Block("table", title="The places",
                              columns=["Place", "Linked to"] + [E.human(f) for f in value_columns(board)],
                              rows=[[E.clean(str(x)) for x in row]
                                    for row in place_rows(board, lambda v: value_label(d, v))]))
        for title, fields in (("What every place has", board.fields), ("What each player has on a place", board.marks)):
            if fields:
                rows = [[E.human(f.name), E.describe_field(f, self.ctx), E.clean(" ".join(f.docs))]
                        for f in fields.values()]
                s.blocks.append(Block("table", title=title, columns=["Name", "Kind", "Description"], rows=rows))

    def keyword_use(self, kw: A.KeywordUse) -> str:
        args = ", ".join(E.np(a, self.ctx) for a in kw.args)
        return f"Keyword {kw.name}{' (' + args + ')' if args else ''}: see the glossary."

    def ch_cards(self, sec: Section) -> None:
        sec.blocks.append(prose(["Every card of the game, by card type. Each card's own effect is written out "
                                 "beside it; what every card of a type does is in the reference tables ("
                                 f"{self.by_title['Reference tables'].ref})."]))
        own = {cd.name: cd for cd in self.d.cards}
        for table in self.d.tables:     # a table row's own doc strings, text and keywords, as a card block's
            for row in table.rows:
                cell = row.cells[table.header.index("name")] if "name" in table.header else None
                if (row.docs or row.abilities or row.keywords) and isinstance(cell, A.Text):
                    own.setdefault(cell.value, row)
        for type_name, cards, group_field, groups in self.card_groups():
            ct = self.d.card_types.get(type_name)
            fields = list(ct.fields) if ct else []
            shown = [f for f in fields if f is not group_field]
            zones = sorted({c.zone for c in cards}, key=list(self.d.zones).index)
            s = self.sub(sec, f"{E.plural(type_name)} ({count(len(cards), 'card')})")
            s.blocks.append(prose([f"They start in {join_zones(self.d, zones)}."]))
            for key, members in groups.items():
                title = (f"{E.plural(type_name)} of {field_label(self.d, group_field.name)} "
                         f"{value_label(self.d, key) if key != chr(0x2014) else key} ({count(len(members), 'card')})"
                         if group_field else f"{E.plural(type_name)} ({count(len(members), 'card')})")
                entries = self.card_entries(members, shown, own)
                for e in entries:
                    self.card_refs.setdefault(e.name, (s.ref, e.anchor))
                s.blocks.append(Block("cards", title=title, items=entries))

    def card_entries(self, members, shown, own) -> list["CardEntry"]:
        """One entry per distinct card: its name, copies, printed values and its own effect. A flag
        shows only where it is yes (by its name); a value only where the card has one."""
        out: list[CardEntry] = []
        for row, cd in zip(self.card_rows(members, shown, own), self.distinct(members)):
            facts = []
            for f in shown:
                v = cd.values.get(f.name)
                if v is True:
                    facts.append(field_label(self.d, f.name))
                elif v is False or v is None or v == [] or v == "":     # an empty text prints nothing
                    continue
                else:
                    shown_v = ", ".join(value_label(self.d, x) for x in v) if isinstance(v, list) else value_label(self.d, v)
                    facts.append(f"{field_label(self.d, f.name)} {shown_v}")
            ct = self.d.card_types.get(cd.type_name)
            for pd in (ct.parts if ct else ()):     # how many parts it has: `3 belts`
                facts.append(f"{cd.values.get(pd.name, 0)} {E.human(pd.name)}")
            anchor = f"card-{slug(row[0])}"
            while anchor in self.anchors:       # two cards of one name (different values): ids stay unique
                anchor += "-x"
            self.anchors.add(anchor)
            out.append(CardEntry(row[0], int(row[-2]), "; ".join(facts), row[-1], anchor))
        return out

    @staticmethod
    def distinct(members) -> list:
        """The cards of card_rows' rows: the first of each run of identical copies."""
        out, last = [], None
        for cd in members:
            key = (cd.name, tuple((k, repr(v)) for k, v in cd.values.items()))
            if key != last:
                out.append(cd)
            last = key
        return out

    def card_rows(self, members, shown, own) -> list[list[str]]:
        rows: list[list] = []
        last_key = None
        for cd in members:
            key = (cd.name, tuple((k, repr(v)) for k, v in cd.values.items()))
            if key == last_key:
                rows[-1][-2] = str(int(rows[-1][-2]) + 1)
                continue
            last_key = key
            text = ""
            decl = own.get(cd.name)
            parts = [E.clean(t) for t in decl.docs] if decl is not None else []
            said = getattr(E, "card_effect_text", None)     # its own effect (english.py)
            effect = said(self.game, cd, self.ctx) if said else " ".join(
                E.flatten([E.describe(ab, E.ability_ctx(self.ctx, cd.type_name))]) for ab in decl.abilities) if decl else ""
            if effect:
                parts.append(("In rules terms: " if parts else "") + effect)
            if decl is not None:
                parts += [self.keyword_use(kw) for kw in decl.keywords]
            text = " ".join(parts)
            rows.append([E.clean(cd.name)] + [show_value(cd.values.get(f.name)) for f in shown] + ["1", text])
        return rows

    def ch_decks(self, sec: Section) -> None:
        """The deck rules (`decks from ...`): their doc strings, then the rules in English (dsl/decks.py)."""
        from cardsmith.dsl.decks import describe_deck_rules
        rules = self.d.deck_rules
        if rules.docs:
            sec.blocks.append(prose(rules.docs))
        sec.blocks.append(Block("list", texts=describe_deck_rules(self.d)))

    def ch_setup(self, sec: Section) -> None:
        sec.blocks.extend(doc_and_rules(self.d.setup.body, self.ctx.child()))

    def ch_structure(self, sec: Section) -> None:
        d = self.d
        texts = []
        if d.setup is not None:
            texts.append("After the setup, the game is played in rounds.")
        for r in d.rounds:
            chapter = self.by_title[f"Round \u201c{E.clean(r.name)}\u201d"]
            texts.append(f"Each round is a \u201c{E.clean(r.name)}\u201d ({chapter.ref}); it is played again and "
                         "again until the game ends.")
        if d.end_checks:
            texts.append(f"The game can end at any moment: see {self.by_title['The end of the game'].ref}.")
        sec.blocks.append(prose(texts))
        if "phases-overview" in self.diagrams:
            sec.blocks.append(self.diagram("phases-overview", "The turn structure at a glance: each step is one "
                                           "box here; a step with a flow of its own is drawn in full in its section"))
        else:
            sec.blocks.append(self.diagram("phases", "The turn structure: rounds, phases and steps in the order "
                                           "they are played"))
        outline = []
        for r in d.rounds:
            chapter = self.by_title[f"Round \u201c{E.clean(r.name)}\u201d"]
            outline.append(E.Line(f"Round \u201c{E.clean(r.name)}\u201d ({chapter.ref})",
                                  tuple(self.outline(r.body, chapter.number, [0]))))
        if outline:
            sec.blocks.append(rules(outline, "Outline"))

    def outline(self, body, prefix: str, counter: list) -> list:
        out = []
        for st in body:
            if isinstance(st, A.StepStmt):
                counter[0] += 1
                number = f"{prefix}.{counter[0]}"
                out.append(E.Line(f"{E.cap(st.kind)} \u201c{E.clean(st.name)}\u201d (§{number})",
                                  tuple(self.outline(st.body, number, [0]))))
            else:
                for b in E.blocks_of(st):
                    out.extend(self.outline(b, prefix, counter))
        return out

    def ch_round(self, sec: Section, r: A.RoundDecl) -> None:
        numbers: dict[int, str] = {}
        self.number_steps(r.body, sec.number, numbers, [0])
        open_sections = [sec]
        ri = self.d.rounds.index(r) + 1
        drawn = {id(st): f"phases-r{ri}-s{si}" for si, st in enumerate(D.top_steps(r.body), 1)
                 if f"phases-r{ri}-s{si}" in self.diagrams}

        def on_step(step: A.StepStmt, ctx: E.Ctx) -> None:
            parent = open_sections[-1]
            s = Section(numbers[id(step)], f"{E.cap(step.kind)} \u201c{E.clean(step.name)}\u201d", parent.level + 1)
            parent.sections.append(s)
            open_sections.append(s)
            s.blocks.extend(doc_and_rules(step.body, ctx.child()))
            if id(step) in drawn:
                s.blocks.append(self.diagram(drawn[id(step)], f"{E.cap(step.kind)} \u201c{E.clean(step.name)}\u201d, "
                                             "from its start to its end"))
            open_sections.pop()

        ctx = self.ctx.child(step_refs={k: "§" + v for k, v in numbers.items()}, on_step=on_step)
        sec.blocks.extend(doc_and_rules(r.body, ctx, "In rules terms"))
        self.sort_sections(sec)

    def number_steps(self, body, prefix: str, numbers: dict, counter: list) -> None:
        for st in body:
            if isinstance(st, A.StepStmt):
                counter[0] += 1
                numbers[id(st)] = f"{prefix}.{counter[0]}"
                self.number_steps(st.body, numbers[id(st)], numbers, [0])
            else:
                for b in E.blocks_of(st):
                    self.number_steps(b, prefix, numbers, counter)

    def sort_sections(self, sec: Section) -> None:
        sec.sections.sort(key=lambda s: [int(x) for x in s.number.split(".")])
        for s in sec.sections:
            self.sort_sections(s)

    def ch_procedures(self, sec: Section) -> None:
        sec.blocks.append(prose(["The rules above use these procedures (named sequences of rules) and values "
                                 "(worked out from the state of the game whenever they are used)."]))
        for name, proc in self.d.procedures.items():
            s = self.sub(sec, E.title(name))
            c = E.params_ctx(self.ctx, name, proc.params)
            if proc.params:
                s.blocks.append(Block("list", texts=[self.params_text(name, proc.params, c)]))
            s.blocks.extend(doc_and_rules(proc.body, c))
        if self.d.defines:
            s = self.sub(sec, "Values")
            items = [Term(self.value_word(name, title=True), "value", [E.describe_define(de, self.ctx)],
                          f"value-{slug(name)}") for name, de in self.d.defines.items()]
            s.blocks.append(Block("terms", items=items))

    def field_term(self, name: str) -> str:
        """A field or attribute as the glossary lists it: by its display name without a leading
        article, and a flag's without the verb its sentence puts first ("the left column's total" is
        listed as "left column's total", "a Race Leader" as "Race Leader", "is a shield" as
        "shield"), as a reader looks it up."""
        word = field_label(self.d, name)
        leading = {"a", "an", "the"} | (E.AUXILIARIES if name in E.labels_of(self.d).flags else set())
        first, _, rest = word.partition(" ")
        while rest and first.lower() in leading:
            word = rest
            first, _, rest = word.partition(" ")
        return word

    def value_word(self, name: str, title: bool = False) -> str:
        """A define's heading, as its sentence says it: `my_units(p)` is "Units" ("A player's units
        is ..."); a yes-or-no value keeps its words ("Is ready")."""
        de = self.d.defines[name]
        flag = self.d.typing.merged(de.expr) == E.FLAG or isinstance(de.expr, A.Bool)
        word = E.human(name) if flag else E.define_noun(name)
        return E.cap(word) if title else word

    def params_text(self, name: str, params, c: E.Ctx) -> str:
        """"Done for a player, called “the player” below." / "Done for *power* (a card) and ..."."""
        types = self.ctx.param_types.get(name, {})
        parts = []
        for p in params:
            ref = c.refs[p]
            if ref.noun == "the player":
                parts.append("a player (\u201cthe player\u201d below)")
                continue
            t = types.get(p)
            kind = {"player": "a player", "card": "a card", "number": "a number", "flag": "yes or no",
                    "text": "a text", "zone": "a zone"}.get(t) if isinstance(t, str) else (
                f"a {t[1]}" if isinstance(t, tuple) and t[0] == "enum" else None)
            parts.append(ref.noun + (f" ({kind})" if kind else ""))
        return f"Done for {E.join_and(parts)}."

    def _targets(self) -> bool:
        """Whether some card's action declares a target (`target t from ...`)."""
        return any(isinstance(ab, A.Activated) and any(a.kind == "target" for a in ab.activations)
                   for cd in self.game.cards for ab, _args in cd.bound)

    def ch_timing(self, sec: Section) -> None:
        d = self.d
        if self._targets():         # docs/language.md, "Targets"
            self.sub(sec, "Targets").blocks.append(prose([
                "An action that names a target has it chosen by the player who uses it, as they use it: "
                "before its costs are paid and before it waits on the stack. Each card or player chosen becomes the "
                "target of the action at that moment, so abilities and answers can respond to it. When the "
                "action resolves, each target is checked again: one that is no longer among those it could "
                "be chosen from is left alone (the action fizzles for it), and an action with no target "
                "still legal fizzles entirely: it resolves without effect."]))
        if d.trigger_order:
            s = self.sub(sec, "Simultaneous triggers")
            keys = [E.describe_order_key(k, self.ctx) for k in d.trigger_order.keys]
            if all(k.expr is None for k in d.trigger_order.keys):
                text = ("When several abilities trigger at the same moment, they resolve in seat order, starting "
                        "from the active player; a player's own abilities go in the order of the cards in the rules.")
            else:
                text = ("When several abilities trigger at the same moment, they are put in order by "
                        + E.join_and([E.plain(k) for k in keys], "then by") + "; the first in that order "
                        "resolves first. Remaining ties go by seat order from the active player, then by the "
                        "order of the cards in the rules.")
            s.blocks.append(prose([text + " Whatever a resolving ability sets off resolves before the next one "
                                   "(last in, first out)."]))
        for st in d.stacks:
            s = self.sub(sec, f"The stack: \u201c{E.clean(st.name)}\u201d")
            s.blocks.append(prose(st.docs or ["Effects wait here; the last one added resolves first."]))
            if st.holds is not None:        # `holds triggered abilities [of T, ...]` (docs/language.md, "stack")
                whose = ("Every triggered ability" if not st.holds else "The triggered abilities of "
                         + E.join_and([E.clean(t) for t in st.holds]) + " cards")
                s.blocks.append(prose([whose + " wait here before they resolve, so that the players can answer "
                                       "them; an answer resolves first, and can stop the ability or leave it "
                                       "without effect."]))
        for w in d.windows:
            s = self.sub(sec, f"Response window \u201c{E.clean(w.name)}\u201d")
            if w.docs:
                s.blocks.append(prose(w.docs))
            if w.any_moment:        # `opens at any moment` (docs/language.md, "response window")
                lines = [E.Line("It opens at any moment: as each step begins and after anything happens, once "
                                "what that set off has resolved, whenever a player can answer.")]
            else:
                lines = [E.Line("It opens after " + E.join_and([E.event_phrase(ev, self.ctx).removesuffix(" happens")
                                                                 for ev in w.after], "or") + ".")]
            if w.order is not None:
                lines.append(E.Line(f"The players answer in this order: {E.np(w.order, self.ctx)}."))
            s.blocks.append(rules(lines))

    def ch_end(self, sec: Section) -> None:
        sec.blocks.append(prose(["These rules are checked all the time, after every change: the moment one of "
                                 "their conditions becomes true, its rule is carried out."]))
        for i, ec in enumerate(self.d.end_checks, 1):
            c = self.ctx.child()
            title = "As soon as " + E.plain(E.cond(ec.cond, c))
            s = self.sub(sec, title if ec.name is None else f"{E.clean(ec.name)}: {title[0].lower()}{title[1:]}")
            s.blocks.extend(doc_and_rules(ec.body, c))
        if self.d.score is not None:        # `score for p as ...`: told at the end, `the highest score wins`
            self.sub(sec, "Scores").blocks.append(prose([E.describe_score(self.d.score, self.ctx)]))
        if self.d.value is not None:        # `value for p as ...`: what the agents play for
            self.sub(sec, "Playing well").blocks.append(prose([E.describe_value(self.d.value, self.ctx)]))

    def ch_prose(self, sec: Section) -> None:
        for p in self.d.prose:
            s = self.sub(sec, E.clean(p.title))
            s.blocks.append(prose(p.docs))

    def ch_glossary(self, sec: Section) -> None:
        own = self.own_terms()
        if own:
            s = self.sub(sec, "The words of this game")
            s.blocks.append(prose(["What the game's own words mean, in alphabetical order."]))
            s.blocks.append(Block("terms", items=own))
            s = self.sub(sec, "The words of the rules")
            s.blocks.append(prose(["The zones, attributes, events and other names the rules above use, in "
                                   "alphabetical order."]))
            s.blocks.append(Block("terms", items=self.glossary()))
        else:
            sec.blocks.append(prose(["The words of this game, in alphabetical order."]))
            sec.blocks.append(Block("terms", items=self.glossary()))

    def own_terms(self) -> list[Term]:
        """The `term` declarations of the file."""
        terms = [Term(E.clean(t.word), "", [E.clean(t.text)], f"word-{slug(t.word)}") for t in self.d.terms.values()]
        return sorted(terms, key=lambda t: t.term.lower())

    # ---------------------------------------------------------------- examples of play
    def ch_examples(self, sec: Section) -> None:
        found = EX.examples(self.game)
        if not found.moments:
            sec.blocks.append(prose([f"This book has no examples of play: {found.note}."]))
            return
        sec.blocks.append(prose([
            f"These examples come from a sample game of {count(found.players, 'player')}, "
            f"{E.join_and(found.seats)}, played by the rules of this book with every choice made at random "
            f"(seed {found.seed}). Each shows what the rules make happen, event by event, and a drawing of "
            "the table at that moment."]))
        stem = Path(self.game.path).stem
        for i, m in enumerate(found.moments, 1):
            s = self.sub(sec, m.title)
            s.blocks.append(prose([m.intro]))
            s.blocks.append(Block("example", lines=m.lines))
            svg = L.table_svg(self.d, found.seats, m.table)
            s.blocks.append(self.picture(f"{stem}-example-{i}.svg", svg, f"{m.table_note} Round {m.round}."))

    # ---------------------------------------------------------------- the player aid
    def ch_aid(self, sec: Section) -> None:
        d = self.d
        parts = [AidPart("Goal", [E.clean(self.game.summary)])]
        if d.setup is not None:
            docs = [s.text for s in d.setup.body if isinstance(s, A.DocItem)]
            ref = self.by_title["Setup"].ref
            parts.append(AidPart(f"Setup ({ref})", [E.clean(t) for t in docs] or [f"See {ref}."]))
        for r in d.rounds:
            chapter = self.by_title[f"Round \u201c{E.clean(r.name)}\u201d"]
            numbers: dict[int, str] = {}
            self.number_steps(r.body, chapter.number, numbers, [0])
            steps = self.aid_steps(r.body, numbers, 0)
            parts.append(AidPart(f"Each round \u201c{E.clean(r.name)}\u201d ({chapter.ref})", steps))
        if d.end_checks:
            ends = []
            for ec in d.end_checks:
                docs = [s.text for s in ec.body if isinstance(s, A.DocItem)]
                ends.append(E.clean(docs[0]) if docs else E.cap(E.plain(E.cond(ec.cond, self.ctx.child()))) + ".")
            parts.append(AidPart(f"The end ({self.by_title['The end of the game'].ref})", ends))
        if d.terms:
            parts.append(AidPart(f"Words ({self.by_title['Glossary'].ref})",
                                 [E.join_and(sorted((E.clean(t.word) for t in d.terms.values()), key=str.lower)) + "."]))
        sec.blocks.append(Block("aid", items=parts))

    def aid_steps(self, body, numbers: dict, depth: int) -> list[str]:
        """Each step: its name, section and the first sentence of its prose."""
        out = []
        for st in body:
            if isinstance(st, A.StepStmt):
                docs = [x.text for x in st.body if isinstance(x, A.DocItem)]
                first = re.split(r"(?<=[.!?])\s", E.clean(docs[0]), maxsplit=1)[0] if docs else ""
                out.append(("\u2003" * depth) + f"{E.clean(st.name)} (§{numbers[id(st)]})" + (f": {first}" if first else ""))
                out.extend(self.aid_steps(st.body, numbers, depth + 1))
            else:
                for b in E.blocks_of(st):
                    out.extend(self.aid_steps(b, numbers, depth))
        return out

    # ---------------------------------------------------------------- credits and index
    def ch_credits(self, sec: Section) -> None:
        sec.blocks.append(Block("list", texts=[f"{E.clean(c.role)}: {E.join_and([E.clean(n) for n in c.names])}."
                                              for c in self.d.credits]))
        sec.blocks.append(prose(["This rulebook was generated by cardsmith from the game's rules file."]))

    def ch_index(self, sec: Section) -> None:
        """Every section title, card, glossary word and zone, with where it is written about."""
        entries: dict[str, list] = {}

        def add(word: str, ref: str, anchor: str) -> None:
            word = E.plain(word).strip()
            if word.startswith("\u201c") and word.endswith("\u201d") and word.count("\u201c") == 1:
                word = word[1:-1]
            if not word:
                return
            refs = entries.setdefault(word, [])
            if (ref, anchor) not in refs:
                refs.append((ref, anchor))

        def walk(sections) -> None:
            for s in sections:
                if s.level > 1:
                    title = re.sub(r"^(Step|Phase|Round|Card type:) ", "", s.title)
                    add(title, s.ref, s.anchor)
                walk(s.sections)
        walk([c for c in self.chapters if c.title not in ("Examples of play", "Index")])
        glossary = self.by_title["Glossary"]
        for t in self.own_terms():
            add(t.term, glossary.ref, t.anchor)
        for name, (ref, anchor) in self.card_refs.items():
            add(name, ref, anchor)
        tables = self.by_title["Reference tables"]
        for z in self.d.zones.values():
            add(zl(self.d, z.name), tables.ref, tables.sections[0].anchor if tables.sections else tables.anchor)
        letters: dict[str, list] = {}
        for word in sorted(entries, key=lambda w: (w.lower(), w)):
            first = word[0].upper() if word[0].isalpha() else "#"
            letters.setdefault(first, []).append(IndexEntry(word, entries[word]))
        sec.blocks.append(Block("index", items=[IndexLetter(k, v) for k, v in letters.items()]))

    def glossary(self) -> list[Term]:
        d = self.d
        terms: list[Term] = []

        def add(word: str, kind: str, texts) -> None:
            terms.append(Term(word, kind, [t for t in texts if t], f"term-{slug(kind)}-{slug(word)}"))

        for ev in d.events.values():
            params = ", ".join(f"{E.human(p.name)}" for p in ev.params)
            add(E.human(ev.name), "event", [E.clean(ev.doc or ""),
                                            f"It names: {params}." if params else ""])
        used = self.used_events()
        for name in BUILTIN_EVENTS:
            if name in used and name not in d.events:
                add(E.human(name), "event (built in)", [E.cap(E.BUILTIN_PHRASES[name]) + "."])
        for z in d.zones.values():          # each word as the book says it: by its display name
            add(zl(d, z.name), "zone", [E.clean(z.doc or ""), ("One for " + whose(d, z)
                                                               if z.per_player or z.per_entity else "Shared")
                                          + ", " + {"hidden": "hidden", "owner": "seen by its owner only",
                                                    "others": "seen by everyone but its owner",
                                                    "public": "public"}[z.visibility]
                                          + ("; its owner knows its face-down cards" if z.owner_knows else "") + "."])
        for e in d.entities.values():       # an entity kind (docs/language.md, "entity")
            add(kind_word(d, e.name), "entity", [E.clean(" ".join(e.docs)), f"Each player may have up to {e.most}; "
                                                 "each has: " + ", ".join(["owner"] + [field_label(d, f.name)
                                                                                   for f in e.fields]) + "."])
        for owner, fields in (("player attribute", d.player_fields), ("game attribute", d.game_fields),
                              ("attribute toward each other player", d.toward_fields)):
            for f in fields.values():
                add(self.field_term(f.name), owner, [E.clean(" ".join(f.docs)),
                                                    E.cap(E.describe_field(f, self.ctx)) + "."])
        for ct in d.card_types.values():
            add(ct.name, "card type", [E.clean(" ".join(ct.docs)),
                                       "Fields: " + ", ".join(["name"] + [field_label(d, f.name) for f in ct.fields])
                                       + "."])
            for f in ct.fields:
                if f.docs:
                    add(self.field_term(f.name), f"field of {ct.name}", [E.clean(" ".join(f.docs))])
        for e in d.enums.values():
            add(e.name, "list of values", [", ".join(value_label(d, m) for m in e.members) + "."])
        for kw in d.keywords.values():
            c = E.params_ctx(self.ctx, kw.name, [p.name for p in kw.params])
            lines = [E.plain(E.flatten([E.describe(ab, E.ability_ctx(c, None))])) for ab in kw.abilities]
            add(kw.name, "keyword", [E.clean(" ".join(kw.docs))] + lines)
        for name, de in d.defines.items():
            add(self.value_word(name), "value", [E.plain(E.describe_define(de, self.ctx))])
        for die in d.dice.values():
            add(die.name, "die", [f"{len(die.faces)} faces."])
        for st in d.stacks:
            add(E.clean(st.name), "stack", [E.clean(" ".join(st.docs))])
        for w in d.windows:
            add(E.clean(w.name), "response window", [E.clean(" ".join(w.docs))])
        terms.sort(key=lambda t: (t.term.lower(), t.kind))
        return terms

    def used_events(self) -> set[str]:
        used = set()
        abilities = [ab for ct in self.d.card_types.values() for ab in ct.abilities]
        abilities += [ab for cd in self.d.cards for ab in cd.abilities]
        abilities += [ab for t in self.d.tables for row in t.rows for ab in row.abilities]
        abilities += [ab for kw in self.d.keywords.values() for ab in kw.abilities]
        for ab in abilities:
            if isinstance(ab, (A.Triggered, A.Replacement)):
                used.add(ab.event)
        for w in self.d.windows:
            used.update(w.after)
        return used

    def ch_notes(self, sec: Section) -> None:
        notes = [E.clean(n) for n in self.game.notes]
        if notes:
            sec.blocks.append(prose(["Where the original rules are silent, unclear or contradict themselves, "
                                     "these readings were chosen:"]))
            sec.blocks.append(Block("list", texts=notes))
        else:
            sec.blocks.append(prose(["The rules of this game record no interpretations."]))


def count(n: int, word: str) -> str:
    return f"{n} {word if n == 1 else E.plural(word)}"


def join_zones(decls, zones) -> str:
    return E.join_and([f"the {zl(decls, z)}" for z in zones])


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", E.clean(text).lower()).strip("-") or "x"


def build_book(game: Game, diagrams: dict | None = None, examples: bool = True) -> Book:
    """The book of `game`. Its rules are written out by recursive describers, so this runs with
    room for deeply nested rules (`apart.deep`); past that, a located error (E1009). `examples`:
    whether to play the sample game for the examples of play (examples.py)."""
    try:
        return apart.deep(lambda: BookBuilder(game, diagrams, examples).build())
    except RecursionError:
        raise X.too_deep(game) from None


# ================================================================ rendering

TEMPLATES = T.package_folder()


SECTION_REF = re.compile(r"§(\d+(?:\.\d+)*)")


def inline_html(text) -> Markup:
    """Rules text as HTML: escaped, with the names the rules give in <em> and each "§6.2" a
    link to its section."""
    out = str(escape(str(text)))
    out = SECTION_REF.sub(lambda m: f'<a class="ref" href="#sec-{m.group(1).replace(".", "-")}">§{m.group(1)}</a>', out)
    return Markup(out.replace(E.EM_OPEN, "<em>").replace(E.EM_CLOSE, "</em>"))


# Markdown that text from a file could use to make an image, a link, code or emphasis:
# backslash-escaped, so `![x](file:///etc/passwd)` or `[a][b]` stays the text it is.
MD_SPECIAL = re.compile(r"([\\`*_\[\]])")
# Bare addresses that GitHub-flavoured Markdown turns into links by itself.
MD_AUTOLINK = re.compile(r"(?i)(?<=:)//|(?<=\bwww)\.")


def inline_md(text) -> str:
    """Rules text as Markdown: names in *emphasis*; angle brackets and ampersands as entities
    (no HTML from a file in any Markdown viewer); the characters that start images, links,
    code and emphasis escaped, and bare addresses broken, so text from a file makes none."""
    out = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    out = MD_SPECIAL.sub(r"\\\1", out)
    out = MD_AUTOLINK.sub(lambda m: "\\/\\/" if m.group(0) == "//" else "\\.", out)
    return out.replace(E.EM_OPEN, "*").replace(E.EM_CLOSE, "*")


def md_cell(text) -> str:
    return inline_md(text).replace("|", "\\|").replace("\n", " ")


def md_path(name) -> str:
    """A file name as a Markdown link target: percent-encoded, so no name is a scheme
    (`javascript:x.cards`) or breaks out of the parentheses."""
    return quote(str(name), safe="")


FILTERS = {"inline": inline_html, "md": inline_md, "mdcell": md_cell, "mdpath": md_path, "plain": E.plain,
           "cards": cards_filter}     # `{{ text|cards }}`: text coloured as .cards rules (dsl/highlight.py)


def folders(templates: str | os.PathLike | None = None) -> list[str]:
    """Where templates are looked up: a designer's folder first, so it may replace one
    template (say style.css) and keep the rest."""
    return ([str(templates)] if templates else []) + [str(TEMPLATES)]


def environment(templates: str | os.PathLike | None = None) -> T.BoundedSandbox:
    """The sandboxed Jinja environment (templating.py)."""
    return T.environment(folders(templates), FILTERS)


def render(book: Book, fmt: str, templates=None) -> str:
    """The book as Markdown ("md") or HTML ("html"); a located PublishError when a template
    fails or passes a bound (templating.py)."""
    name = {"md": "book.md.j2", "html": "book.html.j2"}[fmt]
    return T.render(folders(templates), FILTERS, name, {"book": book})


def _draw(game: Game, kind: str, source: str, boxes: int) -> dict:
    """One diagram: its DOT, and its SVG unless it cannot or may not be drawn (then a note)."""
    stem = Path(game.path).stem
    entry = {"dot_file": f"{stem}-{kind}.dot", "file": f"{stem}-{kind}.svg", "svg": None, "note": "",
             "source": source}
    if boxes > MAX_DIAGRAM_NODES:
        entry["note"] = (f"it has {boxes:,} boxes, more than the {MAX_DIAGRAM_NODES:,} a diagram may have "
                         "(the bound MAX_DIAGRAM_NODES)")
        return entry
    try:
        svg = D.to_svg(source)
    except D.DiagramFailed as err:
        entry["note"] = str(err)
        return entry
    if svg is not None:         # else Graphviz is not installed: make_diagrams warns once
        entry["svg"] = Markup(D.inline_svg(svg))
        entry["svg_text"] = svg
    return entry


# The printed page's room for a figure, in points (A4 less the margins, less a caption: the
# stylesheet's 240 mm at most), and the smallest scale at which a diagram's 10 pt labels stay
# readable (6 pt).
PAGE_ROOM = (504, 680)
SMALLEST_SCALE = 0.6


def print_scale(svg: str | None) -> float:
    """How much a drawn diagram must shrink to fit the printed page (1: not at all)."""
    found = re.search(r'<svg[^>]*?width="([\d.]+)pt"[^>]*?height="([\d.]+)pt"', svg or "")
    if not found:
        return 1.0
    w, h = float(found.group(1)), float(found.group(2))
    return min(1.0, PAGE_ROOM[0] / max(w, 1), PAGE_ROOM[1] / max(h, 1))


def _sources(game: Game, rankdir: str = "LR") -> dict:
    """kind -> (DOT, boxes): the two diagrams of the game, the zones with numbered flows."""
    def both():
        zd = D.ZoneDiagram(game.decls, numbered=True, rankdir=rankdir)
        zones = zd.build().source
        boxes = len(game.decls.zones) + (1 if any(src == D.ELSEWHERE for src, _ in zd.moves) else 0)
        return {"phases": D.diagram_source(game.decls, "phases"), "zones": (zones, boxes)}, zd.flows()
    try:
        return apart.deep(both)
    except RecursionError:
        raise X.too_deep(game) from None


def _phase_parts(game: Game) -> list:
    try:
        return apart.deep(D.phase_parts, game.decls)
    except RecursionError:
        raise X.too_deep(game) from None


def make_diagrams(game: Game, out_dir: Path | None) -> tuple[dict, list[str]]:
    """The diagrams: DOT always, SVG when Graphviz's `dot` is installed and draws it within
    its bounds (else the book says why it is missing). A phase diagram too big to print
    legibly on one page (print_scale below SMALLEST_SCALE) is split too: an overview with
    each step as one box ("phases-overview") and one diagram per top-level step with a flow
    inside ("phases-r1-s2"). Writes <stem>-<kind>.dot / .svg into `out_dir` when given;
    returns their info (with "flows": the numbered card flows of the zone diagram) and any
    warnings."""
    info: dict = {}
    warnings: list[str] = []
    sources, flows = _sources(game)
    for kind in D.KINDS:
        info[kind] = _draw(game, kind, *sources[kind])
    for board in game.decls.boards.values():    # each board drawn from its declaration
        info[f"board-{board.name}"] = _draw(game, f"board-{board.name}", *board_source(board))
    zones = info["zones"].get("svg_text")
    if zones and print_scale(zones) < SMALLEST_SCALE:    # a long chain of zones prints larger top to bottom
        other = _draw(game, "zones", *_sources(game, "TB")[0]["zones"])
        if other.get("svg_text") and print_scale(other["svg_text"]) > print_scale(zones):
            info["zones"] = other
    if info["phases"].get("svg_text") and print_scale(info["phases"]["svg_text"]) < SMALLEST_SCALE:
        for key, source, boxes in _phase_parts(game):
            info[f"phases-{key}"] = _draw(game, f"phases-{key}", source, boxes)
    for kind, entry in info.items():
        source, svg = entry.pop("source"), entry.pop("svg_text", None)
        if out_dir is not None:
            (out_dir / entry["dot_file"]).write_text(source, encoding="utf-8")
            if svg:
                (out_dir / entry["file"]).write_text(svg, encoding="utf-8")
        if entry["note"] and kind in D.KINDS:
            warnings.append(f"the {kind} diagram is left out of the rulebook: {entry['note']}; its DOT source "
                            f"is {entry['dot_file']}")
    info["flows"] = flows
    if not D.have_dot():
        warnings.append("Graphviz is not installed (no 'dot' program): the diagrams are written as DOT "
                        "source only (install the Debian package 'graphviz' to draw them)")
    return info, warnings


def anchors(book: Book) -> list[str]:
    out = []

    def walk(sections) -> None:
        for s in sections:
            out.append(s.anchor)
            walk(s.sections)
    walk(book.chapters)
    return out


PRINT_PASSES = 3        # the contents' page numbers settle in the second pass; a third if they moved


def _print(game: Game, book: Book, target: Path, templates) -> None:
    """The PDF, printed until the contents show the pages the sections are printed on: first
    with a placeholder of the same width, then with the pages read back from the PDF's named
    destinations (browser.named_pages)."""
    from .browser import BrowserFailed, named_pages, print_html

    book.page_numbers = {a: "00" for a in anchors(book)}
    try:
        for _ in range(PRINT_PASSES):
            print_html(render(book, "html", templates), target)
            found = named_pages(target.read_bytes())
            pages = {a: str(found[a]) for a in book.page_numbers if a in found}
            if not pages:           # a Chromium that writes no named destinations: no numbers, not "00"
                book.page_numbers = {}
                print_html(render(book, "html", templates), target)
                break
            if pages == book.page_numbers:
                break
            book.page_numbers = pages
    except BrowserFailed as err:
        page = T.FolderLoader(folders(templates)).path_of("book.html.j2")
        raise X.at(X.CHROMIUM_FAILED, f"the PDF could not be printed: {err}", page,
                   hint="try --format html, and look at the page in a browser") from None


def write_rulebook(game: Game, out_dir, fmt: str = "html", templates=None) -> tuple[list[Path], list[str]]:
    """Write the rulebook of `game` into `out_dir` as <stem>.html / .md / .pdf, with the diagrams
    beside it. Returns the files written and any warnings; a located PublishError (E10xx) when
    the templates, the rules or the browser fail."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format '{fmt}' (use {', '.join(FORMATS)})")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    diagrams, warnings = make_diagrams(game, out)
    book = build_book(game, diagrams)
    stem = book.stem
    drawn = [d for kind, d in diagrams.items() if kind != "flows"]
    written = [out / d["dot_file"] for d in drawn]
    written += [out / d["file"] for d in drawn if d["svg"] is not None]
    if fmt == "md":             # the HTML and the PDF carry their drawings inline
        for name, svg in book.pictures.items():
            (out / name).write_text(svg, encoding="utf-8")
            written.append(out / name)
    if fmt == "md":
        target = out / f"{stem}.md"
        target.write_text(render(book, "md", templates), encoding="utf-8")
    elif fmt == "html":
        target = out / f"{stem}.html"
        target.write_text(render(book, "html", templates), encoding="utf-8")
    else:
        target = out / f"{stem}.pdf"
        _print(game, book, target, templates)
    return [target] + written, warnings
