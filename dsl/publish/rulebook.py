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
from ..model import BUILTIN_EVENTS, Game
from . import apart
from . import diagrams as D
from . import english as E
from . import errors as X
from . import templating as T

FORMATS = ("html", "pdf", "md")


# ================================================================ the book model


@dataclass
class Block:
    """One piece of a section. kind: prose (texts), rules (lines), table (columns, rows),
    diagram (svg / file, or a note saying why it is not drawn), terms (items: Term), list (texts)."""
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
class Section:
    number: str
    title: str
    level: int
    blocks: list = field(default_factory=list)
    sections: list = field(default_factory=list)

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


class BookBuilder:
    """Collects the book of one game."""

    def __init__(self, game: Game, diagrams: dict | None = None):
        self.game = game
        self.d = game.decls
        self.ctx = E.make_ctx(self.d, param_types=E.param_types(self.d))
        self.diagrams = diagrams or {}
        self.chapters: list[Section] = []

    # ---------------------------------------------------------------- numbering
    def plan(self) -> list[tuple[str, object]]:
        d = self.d
        plan: list[tuple[str, object]] = [("Introduction", self.ch_intro), ("Components", self.ch_components),
                                          ("The cards", self.ch_cards)]
        if d.setup is not None:
            plan.append(("Setup", self.ch_setup))
        plan.append(("The turn structure", self.ch_structure))
        for r in d.rounds:
            plan.append((f"Round \u201c{E.clean(r.name)}\u201d", (lambda sec, r=r: self.ch_round(sec, r))))
        if d.procedures or d.defines:
            plan.append(("Procedures and values", self.ch_procedures))
        if d.trigger_order or d.stacks or d.windows or d.keywords:
            plan.append(("Simultaneous effects and the stack", self.ch_timing))
        if d.end_checks or d.value:
            plan.append(("The end of the game", self.ch_end))
        if d.prose:
            plan.append(("Further rules", self.ch_prose))
        plan.append(("Glossary", self.ch_glossary))
        plan.append(("Interpretations", self.ch_notes))
        return plan

    def build(self) -> Book:
        plan = self.plan()
        sections = [Section(str(i + 1), title, 1) for i, (title, _) in enumerate(plan)]
        self.by_title = {s.title: s for s in sections}
        self.proc_numbers()
        for sec, (_, fill) in zip(sections, plan):
            fill(sec)
        g = self.game
        gd = self.d.game
        return Book(E.clean(g.title), Path(g.path).stem, players_text(g), E.clean(g.summary),
                    E.clean(gd.source) if gd else "", sections, self.diagrams)

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
        facts = [f"Players: {players_text(self.game)}.", f"Goal: {E.clean(self.game.summary)}"]
        if gd and gd.source:
            facts.append(f"Source of the rules: {E.clean(gd.source)}.")
        facts.append(f"Cards: {len(self.game.cards)} in all, of {len(self.d.card_types)} "
                     f"card type{'s' if len(self.d.card_types) != 1 else ''}.")
        sec.blocks.append(Block("list", texts=facts))

    def ch_components(self, sec: Section) -> None:
        d = self.d
        zones = self.sub(sec, "Zones")
        zones.blocks.append(prose(["Cards are always in one of these places. A zone \u201cof each player\u201d "
                                   "exists once for every player; a shared zone exists once."]))
        rows = []
        for z in d.zones.values():
            cards = ("a pile, with a top and a bottom" if z.ordered else "in no order") + "; " + {
                "hidden": "nobody sees them, only how many", "owner": "only its owner sees them",
                "public": "everyone sees them"}[z.visibility]
            if z.capacity is not None:
                cards += f"; at most {z.capacity}"
            rows.append([E.human(z.name), "each player" if z.per_player else "shared", cards, E.clean(z.doc or "")])
        zones.blocks.append(Block("table", title="Zones", rows=rows,
                                  columns=["Zone", "Whose", "The cards in it", "Description"]))
        zones.blocks.append(self.diagram("zones", "Where the cards go: every move of the rules, by the rule that makes it"))
        for ct in d.card_types.values():
            s = self.sub(sec, f"Card type: {ct.name}")
            if ct.docs:
                s.blocks.append(prose(ct.docs))
            rows = [["name", "a text", "the card's name"]]
            rows += [[E.human(f.name), E.describe_field(f, self.ctx), E.clean(" ".join(f.docs))] for f in ct.fields]
            s.blocks.append(Block("table", title=f"Fields of every {ct.name}", columns=["Field", "Kind", "Description"],
                                  rows=rows))
            lines = []
            if ct.blank_unless is not None:
                c = E.ability_ctx(self.ctx, ct.name)
                lines.append(E.Line(f"The text of a {ct.name} counts only if {E.cond(ct.blank_unless, c)}; "
                                    "otherwise it is blank for its owner."))
            for kw in ct.keywords:
                lines.append(E.Line(self.keyword_use(kw)))
            lines += [E.describe(ab, E.ability_ctx(self.ctx, ct.name)) for ab in ct.abilities]
            if lines:
                s.blocks.append(rules(lines, f"Every {ct.name} has"))
        for owner, fields in (("player", d.player_fields), ("game", d.game_fields)):
            if not fields:
                continue
            s = self.sub(sec, "What each player has" if owner == "player" else "What the game keeps track of")
            rows = [[E.human(f.name), E.describe_field(f, self.ctx), E.clean(" ".join(f.docs))] for f in fields.values()]
            s.blocks.append(Block("table", title="Attributes", columns=["Attribute", "Kind", "Description"], rows=rows))
        if d.enums:
            s = self.sub(sec, "Lists of values")
            s.blocks.append(Block("list", texts=[f"{e.name}: {', '.join(e.members)}." for e in d.enums.values()]))
        if d.dice:
            s = self.sub(sec, "Dice")
            rows = [[die.name, str(len(die.faces)),
                     "; ".join(", ".join(face) if face else "blank" for face in die.faces)] for die in d.dice.values()]
            s.blocks.append(Block("table", title="Dice", columns=["Die", "Faces", "The faces, in order"], rows=rows))

    def keyword_use(self, kw: A.KeywordUse) -> str:
        args = ", ".join(E.np(a, self.ctx) for a in kw.args)
        return f"Keyword {kw.name}{' (' + args + ')' if args else ''}: see the glossary."

    def ch_cards(self, sec: Section) -> None:
        by_type: dict[str, list] = {}
        for cd in self.game.cards:
            by_type.setdefault(cd.type_name, []).append(cd)
        own = {cd.name: cd for cd in self.d.cards}
        for type_name, cards in by_type.items():
            ct = self.d.card_types.get(type_name)
            fields = list(ct.fields) if ct else []
            group_field = next((f for f in fields if not f.type.is_list and f.type.name in self.d.enums), None)
            shown = [f for f in fields if f is not group_field]
            zones = sorted({c.zone for c in cards}, key=list(self.d.zones).index)
            s = self.sub(sec, f"{E.plural(type_name)} ({count(len(cards), 'card')})")
            s.blocks.append(prose([f"They start in {join_zones(zones)}."]))
            groups: dict[str, list] = {}
            for cd in cards:
                key = show_value(cd.values.get(group_field.name)) if group_field else ""
                groups.setdefault(key, []).append(cd)
            if group_field is not None:
                order = list(self.d.enums[group_field.type.name].members) + ["—"]
                groups = dict(sorted(groups.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)))
            for key, members in groups.items():
                rows = self.card_rows(members, shown, own)
                has_text = any(r[-1] for r in rows)
                columns = ["Card"] + [E.human(f.name) for f in shown] + ["Copies"] + (["Text"] if has_text else [])
                if not has_text:
                    rows = [r[:-1] for r in rows]
                title = (f"{E.plural(type_name)} of {E.human(group_field.name)} {key} ({count(len(members), 'card')})"
                         if group_field else f"{E.plural(type_name)} ({count(len(members), 'card')})")
                s.blocks.append(Block("table", title=title, columns=columns, rows=rows))

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
            if decl is not None:
                parts = [E.clean(t) for t in decl.docs]
                c = E.ability_ctx(self.ctx, cd.type_name)
                said = [E.flatten([E.describe(ab, c)]) for ab in decl.abilities]
                if said and parts:
                    said[0] = "In rules terms: " + said[0]
                parts += said
                parts += [self.keyword_use(kw) for kw in decl.keywords]
                text = " ".join(parts)
            rows.append([E.clean(cd.name)] + [show_value(cd.values.get(f.name)) for f in shown] + ["1", text])
        return rows

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
        sec.blocks.append(self.diagram("phases", "The turn structure: rounds, phases and steps in the order they are played"))
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

        def on_step(step: A.StepStmt, ctx: E.Ctx) -> None:
            parent = open_sections[-1]
            s = Section(numbers[id(step)], f"{E.cap(step.kind)} \u201c{E.clean(step.name)}\u201d", parent.level + 1)
            parent.sections.append(s)
            open_sections.append(s)
            s.blocks.extend(doc_and_rules(step.body, ctx.child()))
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
            items = [Term(E.title(name), "value", [E.describe_define(de, self.ctx)], f"value-{slug(name)}")
                     for name, de in self.d.defines.items()]
            s.blocks.append(Block("terms", items=items))

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

    def ch_timing(self, sec: Section) -> None:
        d = self.d
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
        for w in d.windows:
            s = self.sub(sec, f"Response window \u201c{E.clean(w.name)}\u201d")
            if w.docs:
                s.blocks.append(prose(w.docs))
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
            s = self.sub(sec, "As soon as " + E.plain(E.cond(ec.cond, c)))
            s.blocks.extend(doc_and_rules(ec.body, c))
        if self.d.value is not None:        # `value for p as ...`: what the agents play for
            self.sub(sec, "Playing well").blocks.append(prose([E.describe_value(self.d.value, self.ctx)]))

    def ch_prose(self, sec: Section) -> None:
        for p in self.d.prose:
            s = self.sub(sec, E.clean(p.title))
            s.blocks.append(prose(p.docs))

    def ch_glossary(self, sec: Section) -> None:
        terms = self.glossary()
        sec.blocks.append(prose(["The words of this game, in alphabetical order."]))
        sec.blocks.append(Block("terms", items=terms))

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
        for z in d.zones.values():
            add(E.human(z.name), "zone", [E.clean(z.doc or ""), ("One for each player" if z.per_player else "Shared")
                                          + ", " + {"hidden": "hidden", "owner": "seen by its owner only",
                                                    "public": "public"}[z.visibility] + "."])
        for owner, fields in (("player attribute", d.player_fields), ("game attribute", d.game_fields)):
            for f in fields.values():
                add(E.human(f.name), owner, [E.clean(" ".join(f.docs)), E.cap(E.describe_field(f, self.ctx)) + "."])
        for ct in d.card_types.values():
            add(ct.name, "card type", [E.clean(" ".join(ct.docs)),
                                       "Fields: " + ", ".join(["name"] + [E.human(f.name) for f in ct.fields]) + "."])
            for f in ct.fields:
                if f.docs:
                    add(E.human(f.name), f"field of {ct.name}", [E.clean(" ".join(f.docs))])
        for e in d.enums.values():
            add(e.name, "list of values", [", ".join(e.members) + "."])
        for kw in d.keywords.values():
            c = E.params_ctx(self.ctx, kw.name, [p.name for p in kw.params])
            lines = [E.plain(E.flatten([E.describe(ab, E.ability_ctx(c, None))])) for ab in kw.abilities]
            add(kw.name, "keyword", [E.clean(" ".join(kw.docs))] + lines)
        for name, de in d.defines.items():
            add(E.human(name), "value", [E.plain(E.describe_define(de, self.ctx))])
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


def join_zones(zones) -> str:
    return E.join_and([f"the {E.human(z)}" for z in zones])


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", E.clean(text).lower()).strip("-") or "x"


def build_book(game: Game, diagrams: dict | None = None) -> Book:
    """The book of `game`. Its rules are written out by recursive describers, so this runs with
    room for deeply nested rules (`apart.deep`); past that, a located error (E1009)."""
    try:
        return apart.deep(lambda: BookBuilder(game, diagrams).build())
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


FILTERS = {"inline": inline_html, "md": inline_md, "mdcell": md_cell, "mdpath": md_path, "plain": E.plain}


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


def _diagram(game: Game, kind: str) -> dict:
    """One diagram: its DOT, and its SVG unless it cannot or may not be drawn (then a note)."""
    stem = Path(game.path).stem
    try:
        source, boxes = apart.deep(D.diagram_source, game.decls, kind)
    except RecursionError:
        raise X.too_deep(game) from None
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


def make_diagrams(game: Game, out_dir: Path | None) -> tuple[dict, list[str]]:
    """Both diagrams: DOT always, SVG when Graphviz's `dot` is installed and draws it within
    its bounds (else the book says why it is missing). Writes <stem>-<kind>.dot / .svg into
    `out_dir` when given; returns their info and any warnings."""
    info: dict = {}
    warnings: list[str] = []
    for kind in D.KINDS:
        entry = _diagram(game, kind)
        source, svg = entry.pop("source"), entry.pop("svg_text", None)
        info[kind] = entry
        if out_dir is not None:
            (out_dir / entry["dot_file"]).write_text(source, encoding="utf-8")
            if svg:
                (out_dir / entry["file"]).write_text(svg, encoding="utf-8")
        if entry["note"]:
            warnings.append(f"the {kind} diagram is left out of the rulebook: {entry['note']}; its DOT source "
                            f"is {entry['dot_file']}")
    if not D.have_dot():
        warnings.append("Graphviz is not installed (no 'dot' program): the diagrams are written as DOT "
                        "source only (install the Debian package 'graphviz' to draw them)")
    return info, warnings


def _print(game: Game, html: str, target: Path, templates) -> None:
    from .browser import BrowserFailed, print_html

    try:
        print_html(html, target)
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
    written = [out / d["dot_file"] for d in diagrams.values()]
    written += [out / d["file"] for d in diagrams.values() if d["svg"] is not None]
    if fmt == "md":
        target = out / f"{stem}.md"
        target.write_text(render(book, "md", templates), encoding="utf-8")
    elif fmt == "html":
        target = out / f"{stem}.html"
        target.write_text(render(book, "html", templates), encoding="utf-8")
    else:
        target = out / f"{stem}.pdf"
        _print(game, render(book, "html", templates), target, templates)
    return [target] + written, warnings
