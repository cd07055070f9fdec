"""The rulebook (dsl/publish/rulebook.py and its templates): the Markdown of the test game matches
its golden file, the book has every chapter a player needs, HTML from the file stays text, the
templates run sandboxed, and docs/rulebooks/ is regenerated from the bundled games."""
from __future__ import annotations

import dataclasses
import difflib
import os
import re
import shutil
from pathlib import Path

import pytest

from cardsmith.dsl import ast as A
from cardsmith.dsl.loader import load_game, load_text
from cardsmith.dsl.publish import diagrams as D
from cardsmith.dsl.publish import english as E
from cardsmith.dsl.publish import rulebook as R
from cardsmith.interpreter.cli import main

ROOT = Path(__file__).resolve().parents[1]
SIGNAL_FIRES = ROOT / "tests" / "games" / "signal_fires.cards"
GOLDEN_MD = ROOT / "tests" / "golden" / "signal_fires.rulebook.md"
DOCS = ROOT / "docs" / "rulebooks"


def bundled_games() -> list[Path]:
    return sorted(p for p in (ROOT / "games").glob("*.cards") if not p.name.endswith(".scenarios.cards"))


def diff(expected: str, got: str, name: str) -> str:
    return "".join(difflib.unified_diff(expected.splitlines(True), got.splitlines(True), name, "generated"))


# ---------------------------------------------------------------- the golden Markdown


def test_signal_fires_markdown_matches_the_golden_file(tmp_path):
    files, _ = R.write_rulebook(load_game(str(SIGNAL_FIRES)), tmp_path, "md")
    text = files[0].read_text(encoding="utf-8")
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN_MD.write_text(text, encoding="utf-8")
    assert GOLDEN_MD.exists(), f"no golden file: run UPDATE_GOLDEN=1 pytest {Path(__file__).name}"
    expected = GOLDEN_MD.read_text(encoding="utf-8")
    if text != expected:
        pytest.fail("the rulebook changed (UPDATE_GOLDEN=1 to accept):\n" + diff(expected, text, str(GOLDEN_MD)))


def test_the_markdown_links_of_the_contents_all_have_their_anchor():
    text = R.render(R.build_book(load_game(str(SIGNAL_FIRES))), "md")
    links = re.findall(r"\]\(#([\w-]+)\)", text)
    anchors = set(re.findall(r'<a id="([\w-]+)"></a>', text))
    assert links and set(links) <= anchors


def test_rendering_is_deterministic(space_war):
    assert R.render(R.build_book(space_war), "html") == R.render(R.build_book(space_war), "html")


# ---------------------------------------------------------------- what is in the book


@pytest.fixture(scope="module")
def space_war_md():
    return R.render(R.build_book(load_game(str(ROOT / "games" / "space_war_in_space.cards"))), "md")


def test_the_book_has_its_cover_contents_and_numbered_chapters(space_war_md):
    assert space_war_md.startswith("# Space War: in Space!\n\n**2 to 6 players** — Capture every card")
    chapters = re.findall(r"^## (\d+)\. (.*)$", space_war_md, re.M)
    assert [t for _, t in chapters] == [
        "Overview", "Components", "Setup", "The turn structure", "Round “Contest”", "The end of the game",
        "Examples of play", "Simultaneous effects and the stack", "Procedures and values", "Card reference",
        "Reference tables", "Glossary", "Player aid", "Interpretations", "Credits", "Index"]
    assert [int(n) for n, _ in chapters] == list(range(1, len(chapters) + 1))
    assert "## Contents" in space_war_md and "- [5 Round “Contest”](#sec-5)" in space_war_md
    steps = re.findall(r"^#### (\S+) (.*)$", space_war_md, re.M)
    assert ("5.2.1", "Step “War”") in steps


def chapter(md: str, title: str) -> str:
    """The Markdown of one chapter, up to the next."""
    return re.split(r"^## \d+\. ", md.split(f". {title}\n", 1)[1], maxsplit=1, flags=re.M)[0]


def test_the_overview_gives_goal_players_and_what_is_in_the_box_before_anything_else(space_war_md):
    overview = chapter(space_war_md, "Overview")
    assert "- Goal: Capture every card of the opposing factions." in overview
    assert "- Players: 2 to 6 players." in overview
    assert "- In the box: 112 Unit cards and 4 Power cards." in overview


def test_components_are_counted_from_the_card_tables(space_war_md, space_war):
    components = chapter(space_war_md, "Components")
    units = [c for c in space_war.cards if c.type_name == "Unit"]
    per_faction = {f: sum(1 for c in units if c.values["faction"] == f) for f in
                   ("Dwarves", "Elves", "Goblins", "Trolls", "Humans", "Orcs")}
    assert f"- {len(units)} Unit cards: " + ", ".join(f"{n} {f}" for f, n in list(per_faction.items())[:-1]) \
        + f" and {per_faction['Orcs']} Orcs" in components
    assert "- 4 Power cards: 1 for each faction (Dwarves, Elves, Trolls and Humans)." in components
    assert "](space_war_in_space-table.svg)" in components


def test_the_table_picture_shows_every_zone_once_per_area_and_escapes_names():
    from cardsmith.dsl.publish import layout as L
    game = load_game(str(ROOT / "games" / "space_war_in_space.cards"))
    svg = L.table_svg(game.decls, ["Each player"], None, caption_players=False)
    for z in game.decls.zones.values():
        assert svg.count(f">{L.zone_label(game.decls, z.name)}<") == 1, z.name
    assert "Shared by all players" in svg and "Each player" in svg
    hostile = L.table_svg(game.decls, ["<b>Ann</b>"], {"deck:0": [("<script>", True)]})
    assert "<b>Ann" not in hostile and "&lt;b&gt;Ann&lt;/b&gt;" in hostile


def test_setup_comes_before_the_reference_and_the_examples_before_the_cards(space_war_md):
    order = [t for _, t in re.findall(r"^## (\d+)\. (.*)$", space_war_md, re.M)]
    assert order.index("Setup") < order.index("The turn structure") < order.index("Card reference")
    assert order.index("Examples of play") < order.index("Card reference") < order.index("Glossary")


def test_cards_are_listed_by_type_and_by_faction_with_copies_and_their_own_effect(space_war_md):
    cards = chapter(space_war_md, "Card reference")
    assert "**Units of faction Dwarves (18 cards)**" in cards
    assert '- <a id="card-tunnel-sapper"></a>**Tunnel Sapper** ×2 — Strength 1\n' in cards
    assert "**Thane of the Deep Halls** — Strength 10" in cards
    assert "**Powers of faction Trolls (1 card)**" in cards
    regeneration = next(ln for ln in cards.splitlines() if "**Regeneration**" in ln)
    assert "Permanent. After the Chieftain wins a battle" in regeneration
    assert "In rules terms: " in regeneration and "bottom of your deck" in regeneration
    assert "| yes |" not in cards and "| no |" not in cards          # no flag grids


def test_rules_show_their_prose_then_their_english(space_war_md):
    war = space_war_md.split("#### 5.2.1 Step “War”")[1].split("<a id=")[0]
    prose, rules = war.split("**In rules terms:**")
    assert "Only the Players tied at the highest Strength go to War." in prose
    assert len(re.findall(r"^- \S", rules, re.M)) >= 4          # its statements, one sentence each


def test_the_glossary_has_the_games_own_words_first_then_the_words_of_the_rules(space_war_md, space_war):
    glossary = chapter(space_war_md, "Glossary")
    own, rules = glossary.split("### 12.2 The words of the rules")
    for t in space_war.decls.terms.values():
        assert f"**{t.word}** {R.inline_md(t.text)}" in own
    words = re.findall(r"\*\*(.+?)\*\*", own)
    assert words == sorted(words, key=str.lower) and len(words) == len(space_war.decls.terms)
    for term in ("(event) After winning a battle", "(zone) Your face-down Deck.", "(card type) A fighting card"):
        assert term in rules


def test_the_interpretations_and_the_credits(space_war_md, space_war):
    notes = chapter(space_war_md, "Interpretations")
    for note in space_war.notes:
        assert f"- {R.inline_md(note)}" in notes
    credits = chapter(space_war_md, "Credits")
    for c in space_war.decls.credits:
        assert f"- {R.inline_md(c.role)}: " in credits
    assert "- Original rules: " in space_war_md.split("## Contents")[0]      # on the cover too


def test_the_player_aid_holds_goal_steps_end_and_words(space_war_md):
    aid = chapter(space_war_md, "Player aid")
    assert "**Goal**" in aid and "**Setup (§3)**" in aid and "**Each round “Contest” (§5)**" in aid
    assert "- Reveal (§5.1): Players draw a card from the top of their deck" in aid
    assert "- \u2003War (§5.2.1): " in aid
    assert "**The end (§6)**" in aid and "The last remaining, Unconquered Player is the Victor" in aid
    assert "Capture, Conquered, Contest" in aid


def test_the_index_sends_each_word_to_its_section(space_war_md):
    index = chapter(space_war_md, "Index")
    assert "- Battle or War: [§5.2](#sec-5-2)" in index
    assert "- Tunnel Sapper: [§10.1](#card-tunnel-sapper)" in index
    assert "- Capture: [§12](#word-capture)" in index or "- Capture: [§9.5](#sec-9-5), [§12](#word-capture)" in index
    entries = re.findall(r"^- (.+?): \[", index, re.M)
    assert entries == sorted(entries, key=lambda w: (w.lower(), w)) and len(entries) > 50
    anchors = set(re.findall(r'<a id="([\w-]+)"></a>', space_war_md))
    assert set(re.findall(r"\]\(#([\w-]+)\)", index)) <= anchors


def test_the_turn_structure_has_the_phase_diagram_and_an_outline(space_war_md):
    chapter_md = chapter(space_war_md, "The turn structure")
    assert "](space_war_in_space-phases" in chapter_md
    assert "- Round “Contest” (§5)\n  - Step “Reveal” (§5.1)\n  - Step “Battle or War” (§5.2)\n" \
           "    - Step “War” (§5.2.1)\n  - Step “Conquest” (§5.3)" in chapter_md


WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()


def numbers_in(node, out: set, top: bool = True) -> set:
    """The numbers written in a rule (not in the steps inside it, which have sections of their own)."""
    if isinstance(node, A.StepStmt) and not top:
        return out
    if isinstance(node, A.Num):
        out.add(node.value)
    if dataclasses.is_dataclass(node):
        for f in dataclasses.fields(node):
            if f.name != "span":
                numbers_in(getattr(node, f.name), out, False)
    elif isinstance(node, (list, tuple)):
        for x in node:
            numbers_in(x, out, False)
    return out


def said(n: int, text: str) -> bool:
    return bool(re.search(r"(?<![\d.])%d(?!\d)" % n, text)
                or (0 <= n < len(WORDS) and re.search(r"\b%s\b" % WORDS[n], text.lower())))


def own_text(section) -> str:
    """A section's own words (its prose and rules, not its subsections')."""
    parts = []

    def lines(ls):
        for ln in ls:
            parts.append(ln.text)
            lines(ln.children)
    for b in section.blocks:
        parts += list(b.texts)
        lines(b.lines)
        parts += [c.text for c in b.items if isinstance(c, R.CardEntry)]
    return E.plain(" ".join(map(str, parts)))


@pytest.mark.parametrize("game_file", bundled_games() + [SIGNAL_FIRES], ids=lambda p: p.stem)
def test_every_number_a_rule_depends_on_is_in_its_section(game_file):
    """A reader given only the book can state the rules: each number written in a step, a
    procedure, the setup or a card's own ability appears (as digits or a word) in the section
    that tells that rule."""
    game = load_game(str(game_file))
    book = R.build_book(game, examples=False)
    sections = {}

    def index(ss):
        for s in ss:
            sections[s.title] = s
            index(s.sections)
    index(book.chapters)
    checked = 0

    def check(title, body):
        nonlocal checked
        wanted = numbers_in(body, set())
        text = own_text(sections[title])
        missing = [n for n in sorted(wanted) if not said(n, text)]
        assert not missing, f"{title}: the rules use {missing}, the book's section does not say them"
        checked += len(wanted)

    def steps(body):
        for st in body:
            if isinstance(st, A.StepStmt):
                check(f"{E.cap(st.kind)} \u201c{E.clean(st.name)}\u201d", st.body)
                steps(st.body)
            else:
                for b in E.blocks_of(st):
                    steps(b)
    for r in game.decls.rounds:
        steps(r.body)
    for name, proc in game.decls.procedures.items():
        check(E.title(name), proc.body)
    if game.decls.setup is not None:
        check("Setup", game.decls.setup.body)
    cards = [s for s in sections.values() if any(b.kind == "cards" for b in s.blocks)]
    for cd in game.decls.cards:
        wanted = numbers_in(cd.abilities, set())
        text = " ".join(own_text(s) for s in cards)
        entry = next(e.text for s in cards for b in s.blocks for e in b.items if isinstance(e, R.CardEntry)
                     and e.name == cd.name)
        assert all(said(n, E.plain(entry)) for n in wanted), f"card {cd.name}: {wanted} not all in '{entry}'"
        checked += len(wanted) + (0 * len(text))
    assert checked > 0


# ---------------------------------------------------------------- safety

HOSTILE = SIGNAL_FIRES.read_text(encoding="utf-8").replace(
    '"Red Spark"', '"<script>alert(1)</script>"').replace(
    'summary: "Each round', 'summary: "<b>bold</b> & <img src=x onerror=alert(2)> Each round')


def test_html_from_the_file_is_shown_as_text_in_the_html(tmp_path):
    game = load_text(HOSTILE, str(tmp_path / "hostile.cards"))
    html = R.render(R.build_book(game, R.make_diagrams(game, None)[0]), "html")
    assert "<script>alert(1)</script>" not in html and "<img src=x" not in html and "<b>bold" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; &lt;img src=x onerror=alert(2)&gt;" in html
    assert not re.search(r"<script", html, re.I)


def test_html_from_the_file_is_escaped_in_the_markdown(tmp_path):
    md = R.render(R.build_book(load_text(HOSTILE, str(tmp_path / "hostile.cards"))), "md")
    assert "<script>" not in md and "&lt;script&gt;alert(1)&lt;/script&gt;" in md


def test_designer_templates_replace_the_defaults_one_file_at_a_time(tmp_path):
    (tmp_path / "style.css").write_text("body { color: rebeccapurple; } /* my style */", encoding="utf-8")
    html = R.render(R.build_book(load_game(str(SIGNAL_FIRES))), "html", tmp_path)
    assert "/* my style */" in html and "<h1 class=\"title\">Signal Fires</h1>" in html


@pytest.mark.parametrize("template, message", [
    ("{{ book.__class__.__mro__ }}", "unsafe"),
    ("{{ ''.__class__.__subclasses__() }}", "unsafe"),
    ("{{ book.no_such_thing }}", "no_such_thing"),
])
def test_templates_run_sandboxed_with_strict_undefined(tmp_path, capsys, template, message):
    (tmp_path / "book.html.j2").write_text(template, encoding="utf-8")
    code = main(["rulebook", str(SIGNAL_FIRES), "-o", str(tmp_path / "out"), "--templates", str(tmp_path)])
    assert code == 1
    err = capsys.readouterr().err
    assert "template error" in err and message in err


def test_a_template_error_names_the_template_file_and_line(tmp_path, capsys):
    (tmp_path / "book.md.j2").write_text("# {{ book.title }}\n\n{{ book.chapters[0].nothing_here }}\n",
                                          encoding="utf-8")
    code = main(["rulebook", str(SIGNAL_FIRES), "-o", str(tmp_path / "out"), "--format", "md",
                 "--templates", str(tmp_path)])
    assert code == 1
    err = capsys.readouterr().err
    assert f"{tmp_path / 'book.md.j2'}:3:" in err and "nothing_here" in err
    assert "{{ book.chapters[0].nothing_here }}" in err            # the line itself, with a caret


def test_templates_must_be_a_folder(tmp_path, capsys):
    assert main(["rulebook", str(SIGNAL_FIRES), "-o", str(tmp_path), "--templates", str(tmp_path / "no")]) == 1
    assert "no such folder" in capsys.readouterr().err


# ---------------------------------------------------------------- the command


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_cardsmith_rulebook_writes_the_book_and_its_diagrams(tmp_path, capsys, fmt):
    assert main(["rulebook", str(SIGNAL_FIRES), "-o", str(tmp_path), "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert f"wrote {tmp_path / ('signal_fires.' + fmt)}" in out
    for kind in D.KINDS:
        assert (tmp_path / f"signal_fires-{kind}.dot").exists()
        if shutil.which("dot"):
            assert (tmp_path / f"signal_fires-{kind}.svg").exists()


def test_the_pdf_without_chromium_is_a_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert main(["rulebook", str(SIGNAL_FIRES), "-o", str(tmp_path), "--format", "pdf"]) == 1
    err = capsys.readouterr().err
    assert "Chromium" in err and "chromium" in err


def test_without_graphviz_the_html_says_where_the_diagram_source_is(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert main(["rulebook", str(SIGNAL_FIRES), "-o", str(tmp_path)]) == 0
    assert "Graphviz is not installed" in capsys.readouterr().err
    html = (tmp_path / "signal_fires.html").read_text(encoding="utf-8")
    assert "its source is in <code>signal_fires-phases.dot</code>" in html


# ---------------------------------------------------------------- docs/rulebooks is up to date

SVG_BLOCK = re.compile(r'(<figure class="diagram">).*?(<figcaption>)', re.S)


def normalized(html: str) -> str:
    """The HTML with its drawn diagrams left out (their DOT and SVG files are compared apart)."""
    return SVG_BLOCK.sub(r"\1…\2", html)


def svg_version(svg: str) -> str | None:
    m = re.search(r"Generated by graphviz version ([\d.]+)", svg)
    return m.group(1) if m else None


@pytest.mark.parametrize("game_file", bundled_games(), ids=lambda p: p.stem)
def test_docs_rulebooks_are_up_to_date(game_file, tmp_path):
    game = load_game(str(game_file))
    if os.environ.get("UPDATE_GOLDEN"):
        R.write_rulebook(game, DOCS, "html")
    files, _ = R.write_rulebook(game, tmp_path, "html")
    stem = game_file.stem
    hint = f"regenerate with: cardsmith rulebook {game_file.relative_to(ROOT)} -o docs/rulebooks"
    names = [f"{stem}.html"] + sorted(f.name for f in files if f.suffix == ".dot")
    assert {f"{stem}-{k}.dot" for k in D.KINDS} <= set(names)
    extra = {p.name for p in DOCS.glob(f"{stem}-*")} - {f.name for f in files}
    assert not extra, f"docs/rulebooks holds files the rulebook no longer writes: {sorted(extra)}; {hint}"
    for name in names:
        committed = DOCS / name
        assert committed.exists(), f"docs/rulebooks/{name} is missing; {hint}"
        want, got = committed.read_text(encoding="utf-8"), (tmp_path / name).read_text(encoding="utf-8")
        if name.endswith(".html"):
            want, got = normalized(want), normalized(got)
        if want != got:
            pytest.fail(f"docs/rulebooks/{name} is stale; {hint}\n" + diff(want, got, name)[:4000])
    dot = D.dot_version()
    for kind in D.KINDS:
        committed = DOCS / f"{stem}-{kind}.svg"
        assert committed.exists(), f"docs/rulebooks/{committed.name} is missing; {hint}"
        fresh = tmp_path / committed.name
        if fresh.exists() and svg_version(committed.read_text(encoding="utf-8")) in (dot or ""):
            assert fresh.read_text(encoding="utf-8") == committed.read_text(encoding="utf-8"), \
                f"docs/rulebooks/{committed.name} is stale; {hint}"


def test_docs_rulebooks_hold_only_bundled_games():
    stems = {p.stem for p in bundled_games()}
    for path in DOCS.iterdir():
        stem = re.sub(r"-(phases|zones|phases-overview|phases-r\d+-s\d+|board-\w+)$", "", path.stem)
        assert stem in stems, f"docs/rulebooks/{path.name} belongs to no game in games/"


def test_the_book_names_every_procedure_section_it_refers_to(space_war):
    book = R.build_book(space_war)
    numbers = set()

    def collect(sections):
        for s in sections:
            numbers.add(s.number)
            collect(s.sections)
    collect(book.chapters)
    text = E.plain(R.render(book, "md"))
    for ref in set(re.findall(r"\(§([\d.]+)\)", text)):
        assert ref in numbers, f"§{ref} is referred to but is no section"


# ---------------------------------------------------------------- every whole game of the language reference


def lenient_game(text: str, path: str):
    """A Game of a file whose features the checker may not know yet (actions, response windows,
    `resolved`, `clockwise_from`): declarations and cards only, no body checks."""
    from cardsmith.dsl.checks import cards, declarations
    from cardsmith.dsl.diagnostics import DiagnosticSink
    from cardsmith.dsl.model import Game
    from cardsmith.dsl.parser import parse
    from cardsmith.dsl.source import Source
    from cardsmith.dsl.transformer import to_ast

    source = Source(path, text)
    tree, _ = parse(source)
    module = to_ast(tree, path, text)
    sink = DiagnosticSink()
    d = declarations(module, sink)
    card_defs = cards(d, sink)
    g = d.game
    return Game(path, g.title, g.min_players, g.max_players, g.summary, d, tuple(card_defs), module, {path: source})


def whole_game_examples() -> list[str]:
    doc = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    return [b for b in re.findall(r"^```cards\n(.*?)^```", doc, re.S | re.M) if re.search(r'^game "', b, re.M)]


@pytest.mark.parametrize("text", whole_game_examples(), ids=lambda t: re.search(r'^game "([^"]*)"', t, re.M).group(1))
def test_every_whole_game_of_the_language_reference_has_a_book(text, tmp_path):
    game = lenient_game(text, str(tmp_path / "example.cards"))
    book = R.build_book(game, examples=False)       # unchecked bodies cannot be played
    md, html = R.render(book, "md"), R.render(book, "html")
    assert f"# {R.inline_md(game.title)}" in md and "## Contents" in md
    assert "Interpretations" in html
    for kind in D.KINDS:
        assert D.dot_source(game.decls, kind).startswith(f"digraph {kind} {{")
    if game.decls.windows:
        assert "Response window" in md and ("It opens after" in md or "It opens at any moment" in md)
        assert "response window" in D.dot_source(game.decls, "phases")


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's 'dot' is not installed")
@pytest.mark.parametrize("game_file", bundled_games(), ids=lambda p: p.stem)
def test_every_diagram_in_the_book_prints_legibly(game_file, tmp_path):
    """Each diagram the book shows shrinks to the page by at most SMALLEST_SCALE (its 10 pt
    labels stay 6 pt or larger); a phase diagram that would not is split, and its parts do."""
    game = load_game(str(game_file))
    diagrams, _ = R.make_diagrams(game, tmp_path)
    book = R.build_book(game, diagrams, examples=False)
    shown = []

    def walk(sections):
        for s in sections:
            shown.extend(b for b in s.blocks if b.kind == "diagram")
            walk(s.sections)
    walk(book.chapters)
    assert len(shown) >= 2
    for block in shown:
        svg = (tmp_path / block.file).read_text(encoding="utf-8")
        assert R.print_scale(svg) >= R.SMALLEST_SCALE, f"{block.file} prints at {R.print_scale(svg):.2f}"
    whole = (tmp_path / f"{game_file.stem}-phases.svg").read_text(encoding="utf-8")
    assert (R.print_scale(whole) < R.SMALLEST_SCALE) == ("phases-overview" in diagrams)
