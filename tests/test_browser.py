"""The rulebook in a real browser: Debian's Chromium opens the HTML (every link of the contents
resolves, nothing is wider than the page), takes a screenshot kept as a test artifact, and
prints the PDF, which pdftotext / pdftoppm turn back into text and pages to check."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game, load_text
from cardsmith.dsl.publish import browser as B
from cardsmith.dsl.publish import rulebook as R

ROOT = Path(__file__).resolve().parents[1]
SPACE_WAR = ROOT / "games" / "space_war_in_space.cards"
SIGNAL_FIRES = ROOT / "tests" / "games" / "signal_fires.cards"

MISSING = [name for name, found in (("chromium", B.find_chromium()), ("pdftotext", shutil.which("pdftotext")),
                                    ("pdftoppm", shutil.which("pdftoppm")), ("dot", shutil.which("dot")))
           if not found]
pytestmark = pytest.mark.skipif(
    bool(MISSING), reason=f"needs {', '.join(MISSING)}: install the Debian packages chromium, poppler-utils "
                          "and graphviz (the README's set-up command does)")

# The printable width of an A4 page with the stylesheet's 16 mm side margins, in CSS pixels.
PRINT_WIDTH = round((210 - 2 * 16) / 25.4 * 96)

CHECK = """
<script>
(function () {
  var out = {links: 0, broken: [], overflow: [], width: document.documentElement.clientWidth};
  document.querySelectorAll('a[href^="#"]').forEach(function (a) {
    out.links += 1;
    if (!document.getElementById(a.getAttribute('href').slice(1))) out.broken.push(a.getAttribute('href'));
  });
  var limit = document.documentElement.clientWidth + 1;
  document.querySelectorAll('body *').forEach(function (el) {
    var r = el.getBoundingClientRect();
    if (r.width > 0 && (r.right > limit || r.left < -1)) {
      out.overflow.push(el.tagName + (el.id ? '#' + el.id : '') + ' right=' + Math.round(r.right));
    }
  });
  out.scroll = document.documentElement.scrollWidth;
  var pre = document.createElement('pre');
  pre.id = 'cardsmith-check';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"""


@pytest.fixture(scope="module")
def space_war_html(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("rulebook-html")
    files, _ = R.write_rulebook(load_game(str(SPACE_WAR)), out, "html")
    return files[0]


def test_contents_and_section_links_resolve_and_nothing_overflows_the_page(space_war_html, tmp_path):
    page = tmp_path / "checked.html"
    page.write_text(space_war_html.read_text(encoding="utf-8").replace("</body>", CHECK + "</body>"),
                    encoding="utf-8")
    dom = B.dump_dom(page, width=PRINT_WIDTH, height=1000)
    found = re.search(r'<pre id="cardsmith-check">(.*?)</pre>', dom, re.S)
    assert found, "the check script did not run in Chromium"
    result = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert result["links"] >= 20
    assert result["broken"] == []
    assert result["overflow"] == [], f"wider than the page ({result['width']}px): {result['overflow'][:10]}"
    assert result["scroll"] <= result["width"]


def test_a_screenshot_of_the_rulebook_is_kept(space_war_html, tmp_path):
    shot = tmp_path / "space_war_rulebook.png"
    B.screenshot(space_war_html, shot, width=900, height=2400)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    print(f"\nscreenshot of the rulebook: {shot}")


def pdf_text(pdf: Path) -> list[str]:
    """The text of each page."""
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                          check=True, timeout=120).stdout
    pages = text.split("\f")
    return pages[:-1] if pages and not pages[-1].strip() else pages


@pytest.fixture(scope="module")
def space_war_pdf(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("rulebook-pdf")
    files, _ = R.write_rulebook(load_game(str(SPACE_WAR)), out, "pdf")
    return files[0]


def test_the_pdf_has_its_chapters_each_on_a_new_page(space_war_pdf):
    pages = pdf_text(space_war_pdf)
    book = R.build_book(load_game(str(SPACE_WAR)))
    firsts = [next((ln.strip() for ln in p.splitlines() if ln.strip()), "") for p in pages]
    for chapter in book.chapters:
        heading = f"{chapter.number} {chapter.title}"
        assert heading in firsts, f"chapter '{heading}' does not open a page; page tops: {firsts}"
    assert "Space War: in Space!" in pages[0] and "2 to 6 players" in pages[0]
    assert "Contents" in pages[1]


def test_the_pdf_pages_are_numbered(space_war_pdf, tmp_path):
    pages = pdf_text(space_war_pdf)
    subprocess.run(["pdftoppm", "-r", "20", "-png", str(space_war_pdf), str(tmp_path / "page")],
                   check=True, timeout=300)
    images = sorted(tmp_path.glob("page-*.png"))
    assert len(images) == len(pages)
    assert 8 <= len(pages) <= 80
    for number, page in enumerate(pages[1:], start=2):      # the cover has no number
        # the stylesheet's footer, or Chromium's own on a Chromium without @page margin boxes
        shown = f"Page {number} of {len(pages)}" in page or f"{number}/{len(pages)}" in page
        assert shown, f"page {number} shows no page number"


def test_html_from_the_file_is_text_in_the_pdf(tmp_path):
    hostile = SIGNAL_FIRES.read_text(encoding="utf-8").replace('"Red Spark"', '"<script>alert(1)</script>"')
    game = load_text(hostile, str(tmp_path / "hostile.cards"))
    files, _ = R.write_rulebook(game, tmp_path, "pdf")
    text = "".join(pdf_text(files[0]))
    assert "<script>alert(1)</script>" in text
