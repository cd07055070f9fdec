"""Print-and-play card sheets (dsl/publish/cards.py, `cardsmith cards`): every card, copies
included, nine to an A4 page with crop marks; names from the file stay text; the template is
the designer's to replace and its errors are located; the PDF has the pages it should."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game, load_text
from cardsmith.dsl.publish import browser as B
from cardsmith.dsl.publish import cards as C
from cardsmith.interpreter.cli import main

ROOT = Path(__file__).resolve().parents[1]
SPACE_WAR = ROOT / "games" / "space_war_in_space.cards"
BATTLEFIELD = ROOT / "games" / "battlefield_space.cards"
SIGNAL_FIRES = ROOT / "tests" / "games" / "signal_fires.cards"


@pytest.fixture(scope="module")
def space_war():
    return load_game(str(SPACE_WAR))


def test_every_card_is_on_the_sheets_once_per_copy(space_war):
    sheet = C.build_sheet(space_war)
    assert len(sheet.cards) == len(space_war.cards)
    assert [len(p) for p in sheet.pages] == [9] * (len(space_war.cards) // 9) + (
        [len(space_war.cards) % 9] if len(space_war.cards) % 9 else [])
    sappers = [c for c in sheet.cards if c.name == "Tunnel Sapper"]
    assert [(c.copy, c.copies) for c in sappers] == [(1, 2), (2, 2)]
    assert sappers[0].type == "Unit" and sappers[0].group == "Dwarves"
    assert ("strength", "1") in [(k.lower(), v) for k, v in sappers[0].facts]


def test_a_card_shows_its_own_text_and_effect(space_war):
    regeneration = next(c for c in C.build_sheet(space_war).cards if c.name == "Regeneration")
    text = " ".join(regeneration.texts)
    assert "Permanent. After the Chieftain wins a battle" in text
    assert "bottom of your deck" in text


def test_the_html_has_one_page_per_nine_cards_with_crop_marks(space_war):
    html = C.render(C.build_sheet(space_war))
    pages = html.count('<div class="page">')
    assert pages == -(-len(space_war.cards) // 9)
    assert html.count('<div class="card') == len(space_war.cards)
    # four vertical and four horizontal cut lines, each marked on both sides of the grid, per page
    assert html.count("<line ") == pages * 16
    assert "size: A4" in html and "margin: 0" in html


def test_names_from_the_file_are_text_on_the_cards(tmp_path):
    hostile = SIGNAL_FIRES.read_text(encoding="utf-8").replace('"Red Spark"', '"<script>alert(1)</script>"')
    html = C.render(C.build_sheet(load_text(hostile, str(tmp_path / "hostile.cards"))))
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_the_designer_may_replace_the_card_style_alone(tmp_path, space_war):
    (tmp_path / "cards.css").write_text("/* my cards */ .card { border: 1mm solid red; }", encoding="utf-8")
    html = C.render(C.build_sheet(space_war), tmp_path)
    assert "/* my cards */" in html and '<div class="page">' in html


def test_a_broken_card_template_is_a_located_error(tmp_path, capsys):
    (tmp_path / "cards.html.j2").write_text("<p>\n{{ sheet.cards[0].nope }}\n</p>\n", encoding="utf-8")
    code = main(["cards", str(SIGNAL_FIRES), "-o", str(tmp_path / "out.html"), "--templates", str(tmp_path)])
    assert code == 1
    err = capsys.readouterr().err
    assert "cards.html.j2:2:" in err and "nope" in err


def test_cardsmith_cards_writes_the_html_when_asked(tmp_path, capsys):
    assert main(["cards", str(SIGNAL_FIRES), "-o", str(tmp_path / "sheets.html")]) == 0
    assert f"wrote {tmp_path / 'sheets.html'}" in capsys.readouterr().out
    assert (tmp_path / "sheets.html").read_text(encoding="utf-8").count('<div class="card') == \
        len(load_game(str(SIGNAL_FIRES)).cards)


def test_print_templates_copies_the_defaults_and_keeps_what_is_there(tmp_path, capsys):
    (tmp_path / "style.css").write_text("/* mine */", encoding="utf-8")
    assert main(["rulebook", "--print-templates", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for name in ("book.html.j2", "book.md.j2", "cards.html.j2", "cards.css"):
        assert (tmp_path / name).read_bytes() == (ROOT / "dsl" / "publish" / "templates" / name).read_bytes()
        assert f"wrote {tmp_path / name}" in out
    assert (tmp_path / "style.css").read_text(encoding="utf-8") == "/* mine */"
    assert f"kept {tmp_path / 'style.css'}" in out


def test_rulebook_without_a_file_says_what_it_needs(capsys):
    assert main(["rulebook"]) == 1
    assert "needs a FILE and -o DIR" in capsys.readouterr().err


@pytest.mark.skipif(B.find_chromium() is None or shutil.which("pdfinfo") is None,
                    reason="needs chromium and poppler-utils (the README's set-up command installs them)")
def test_the_pdf_has_a_page_per_nine_cards_on_a4(tmp_path):
    game = load_game(str(BATTLEFIELD))
    assert main(["cards", str(BATTLEFIELD), "-o", str(tmp_path / "cards.pdf")]) == 0
    info = subprocess.run(["pdfinfo", str(tmp_path / "cards.pdf")], capture_output=True, text=True,
                          check=True, timeout=60).stdout
    assert int(re.search(r"Pages:\s+(\d+)", info).group(1)) == -(-len(game.cards) // 9)
    assert "(A4)" in info
    text = subprocess.run(["pdftotext", "-f", "1", "-l", "1", str(tmp_path / "cards.pdf"), "-"],
                          capture_output=True, text=True, check=True, timeout=60).stdout
    first = C.build_sheet(game).pages[0]
    for card in first:
        assert card.name in text
