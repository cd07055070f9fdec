"""The rulebook (dsl/publish/rulebook.py and its templates): the Markdown of the test game matches
its golden file, the book has every chapter a player needs, HTML from the file stays text, the
templates run sandboxed, and docs/rulebooks/ is regenerated from the bundled games."""
from __future__ import annotations

import difflib
import os
import re
import shutil
from pathlib import Path

import pytest

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
        "Introduction", "Components", "The cards", "Setup", "The turn structure", "Round “Contest”",
        "Procedures and values", "Simultaneous effects and the stack", "The end of the game", "Glossary",
        "Interpretations"]
    assert [int(n) for n, _ in chapters] == list(range(1, len(chapters) + 1))
    assert "## Contents" in space_war_md and "- [6 Round “Contest”](#sec-6)" in space_war_md
    steps = re.findall(r"^#### (\S+) (.*)$", space_war_md, re.M)
    assert ("6.2.1", "Step “War”") in steps


def test_cards_are_tabled_by_type_and_by_faction_with_copies(space_war_md):
    assert "**Units of faction Dwarves (18 cards)**" in space_war_md
    assert "| Card | strength | leader | Copies |" in space_war_md
    assert "| Tunnel Sapper | 1 | no | 2 |" in space_war_md
    assert "| Thane of the Deep Halls | 10 | yes | 1 |" in space_war_md
    assert "**Powers of faction Trolls (1 card)**" in space_war_md
    regeneration = next(ln for ln in space_war_md.splitlines() if ln.startswith("| Regeneration |"))
    assert "Permanent. After the Chieftain wins a battle" in regeneration
    assert "In rules terms: When “leader victory” happens, if the player is you and the card is in your " \
           "discard: Move the card to the bottom of your deck, face down." in regeneration


def test_rules_show_their_prose_then_their_english(space_war_md):
    war = space_war_md.split("#### 6.2.1 Step “War”")[1].split("<a id=")[0]
    prose, rules = war.split("**In rules terms:**")
    assert "Only the Players tied at the highest Strength go to War." in prose
    assert "- Eliminate *fighters* whose cards left is 0: they are out of the game." in rules
    assert "  - Add face down for the player (§7.3)." in rules


def test_a_rule_without_prose_still_reads_as_sentences(space_war_md):
    reveal = space_war_md.split("### 7.4 Reveal top")[1].split("<a id=")[0]
    assert "**The rule:**" in reveal and "In rules terms" not in reveal
    assert "- Move the top card of their deck to their battlefield, face up." in reveal


def test_the_glossary_and_the_interpretations(space_war_md, space_war):
    glossary = space_war_md.split("## 10. Glossary")[1].split("## 11.")[0]
    for term in ("**battle won** (event) After winning a battle", "**deck** (zone) Your face-down Deck.",
                 "**bonus** (player attribute) Strength added", "**Unit** (card type) A fighting card",
                 "**strength** (value) A player's strength is"):
        assert term in glossary
    notes = space_war_md.split("## 11. Interpretations")[1]
    for note in space_war.notes:
        assert f"- {R.inline_md(note)}" in notes


def test_the_turn_structure_has_the_phase_diagram_and_an_outline(space_war_md):
    chapter = space_war_md.split("## 5. The turn structure")[1].split("## 6.")[0]
    assert "](space_war_in_space-phases." in chapter
    assert "- Round “Contest” (§6)\n  - Step “Reveal” (§6.1)\n  - Step “Battle or War” (§6.2)\n" \
           "    - Step “War” (§6.2.1)\n  - Step “Conquest” (§6.3)" in chapter


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
    R.write_rulebook(game, tmp_path, "html")
    stem = game_file.stem
    hint = f"regenerate with: cardsmith rulebook {game_file.relative_to(ROOT)} -o docs/rulebooks"
    names = [f"{stem}.html"] + [f"{stem}-{k}.dot" for k in D.KINDS]
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
        stem = re.sub(r"-(phases|zones)$", "", path.stem)
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
    book = R.build_book(game)
    md, html = R.render(book, "md"), R.render(book, "html")
    assert f"# {R.inline_md(game.title)}" in md and "## Contents" in md
    assert "Interpretations" in html
    for kind in D.KINDS:
        assert D.dot_source(game.decls, kind).startswith(f"digraph {kind} {{")
    if game.decls.windows:
        assert "Response window" in md and "It opens after" in md
        assert "response window" in D.dot_source(game.decls, "phases")
