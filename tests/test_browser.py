"""The rulebook in a real browser: Debian's Chromium opens the HTML (every link of the contents
resolves, nothing is wider than the page), takes a screenshot kept as a test artifact, and
prints the PDF, which pdftotext / pdftoppm turn back into text and pages to check."""
from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game, load_text
from cardsmith.dsl.publish import browser as B
from cardsmith.dsl.publish import english as E
from cardsmith.dsl.publish import rulebook as R

ROOT = Path(__file__).resolve().parents[1]
SPACE_WAR = ROOT / "games" / "space_war_in_space.cards"
SIGNAL_FIRES = ROOT / "tests" / "games" / "signal_fires.cards"
BATTLEFIELD = ROOT / "games" / "battlefield_space.cards"

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


def headings(book) -> list:
    out = []

    def walk(sections):
        for s in sections:
            out.append(s)
            walk(s.sections)
    walk(book.chapters)
    return out


def test_the_pdf_opens_the_chapters_that_need_a_page_of_their_own_on_one(space_war_pdf):
    pages = pdf_text(space_war_pdf)
    book = R.build_book(load_game(str(SPACE_WAR)))
    firsts = [next((ln.strip() for ln in p.splitlines() if ln.strip()), "") for p in pages]
    opened = [c for c in book.chapters if c.new_page or c.alone]
    assert [c.title for c in opened] == ["Overview", "Player aid"]
    for chapter in opened:
        heading = f"{chapter.number} {chapter.title}"
        assert heading in firsts, f"chapter '{heading}' does not open a page; page tops: {firsts}"
    aid = next(i for i, f in enumerate(firsts) if f.endswith(" Player aid"))
    assert firsts[aid + 1].startswith(f"{int(firsts[aid].split()[0]) + 1} ")      # the aid has its page alone
    assert "Space War: in Space!" in pages[0] and "2 to 6 players" in pages[0]
    assert "Contents" in pages[1]


def test_the_contents_give_the_page_each_section_is_printed_on(space_war_pdf):
    pages = pdf_text(space_war_pdf)
    book = R.build_book(load_game(str(SPACE_WAR)))
    contents = "\n".join(p for p in pages[1:4] if "Contents" in p or re.search(r"^\s*\d+ \S.*\s\d+$", p, re.M))
    checked = 0
    for s in headings(book):
        line = re.search(rf"^\s*{re.escape(s.number)} {re.escape(s.title)}\s+(\d+)\s*$", contents, re.M)
        if s.level > 3:
            continue
        assert line, f"the contents have no page number for {s.number} {s.title}"
        page = int(line.group(1))
        printed = [ln.strip() for ln in pages[page - 1].splitlines()]
        assert f"{s.number} {s.title}" in printed, f"{s.number} {s.title} is not on page {page}"
        checked += 1
    assert checked >= 30


def pdf_outline(pdf: Path) -> list[str]:
    """The titles of the PDF's bookmarks (its outline items), read from Chromium's plain objects."""
    data = pdf.read_bytes()
    titles = []
    for m in re.finditer(rb"<</Title (<[0-9A-Fa-f]+>|\((?:\\.|[^\\)])*\))\s*/(?:Dest|Parent)", data):
        raw = m.group(1)
        if raw.startswith(b"<"):
            hexed = bytes.fromhex(raw[1:-1].decode())
            titles.append(hexed[2:].decode("utf-16-be") if hexed[:2] == b"\xfe\xff" else hexed.decode("latin-1"))
        else:
            titles.append(re.sub(rb"\\(.)", rb"\1", raw[1:-1]).decode("latin-1"))
    return titles


def test_the_pdf_has_bookmarks_for_every_chapter_and_section(space_war_pdf):
    outline = [" ".join(t.split()) for t in pdf_outline(space_war_pdf)]
    book = R.build_book(load_game(str(SPACE_WAR)))
    for s in headings(book):
        if s.level <= 2:
            assert f"{s.number} {s.title}" in outline, f"no bookmark for {s.number} {s.title}: {outline[:20]}"
    assert "Contents" in outline


def figure_texts(book) -> list[tuple[str, str]]:
    """(caption, first label of the drawing) of every drawn figure of the book."""
    out = []
    for s in headings(book):
        for b in s.blocks:
            if b.kind in ("diagram", "picture") and b.svg:
                labels = [t for t in re.findall(r"<text[^>]*>([^<]{6,})</text>", str(b.svg))]
                if labels:
                    out.append((" ".join(E.plain(b.title).split()), html.unescape(labels[0]).strip()))
    return out


@pytest.fixture(scope="module")
def battlefield_pdf(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("rulebook-pdf-battlefield")
    files, _ = R.write_rulebook(load_game(str(BATTLEFIELD)), out, "pdf")
    return files[0]


@pytest.mark.parametrize("which", ["space_war", "battlefield"])
def test_no_figure_is_cut_across_pages(which, space_war_pdf, battlefield_pdf, tmp_path):
    """A figure's drawing begins on the page its caption ends: had it been cut, its first
    label would be on the page before."""
    pdf, game_file = (space_war_pdf, SPACE_WAR) if which == "space_war" else (battlefield_pdf, BATTLEFIELD)
    pages = [" ".join(p.split()) for p in pdf_text_plain(pdf)]
    game = load_game(str(game_file))
    book = R.build_book(game, R.make_diagrams(game, tmp_path)[0])
    figures = figure_texts(book)
    assert len(figures) >= 5
    wanted: dict = {}           # (page, label) -> figures with that label whose caption is on that page
    for caption, label in figures:
        at = [i for i, p in enumerate(pages) if caption in p]
        assert len(at) == 1, f"caption '{caption[:60]}' is on pages {at}"
        wanted[(at[0], label)] = wanted.get((at[0], label), 0) + 1
    for (page, label), n in wanted.items():
        assert pages[page].count(label) >= n, \
            f"a figure is cut on page {page + 1}: its drawing starts on the page before ('{label}')"


def pdf_text_plain(pdf: Path) -> list[str]:
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True,
                          timeout=120).stdout
    return text.split("\f")


def page_fill(pdf: Path, folder: Path) -> list[float]:
    """How far down each page's body the ink goes (0: empty, 1: to the bottom margin), from a
    grey render of each page (pdftoppm's PGM, read here)."""
    subprocess.run(["pdftoppm", "-r", "20", "-gray", str(pdf), str(folder / "g")], check=True, timeout=300)
    fills = []
    for f in sorted(folder.glob("g-*.pgm")):
        head, size, depth, pixels = f.read_bytes().split(b"\n", 3)
        w, h = map(int, size.split())
        top, bottom = round(h * 18 / 297), round(h * 277 / 297)
        inked = [y for y in range(top, bottom) if min(pixels[y * w:(y + 1) * w]) < 200]
        fills.append((max(inked) - top) / (bottom - top) if inked else 0.0)
    return fills


@pytest.mark.parametrize("which", ["space_war", "battlefield"])
def test_no_near_empty_pages(which, space_war_pdf, battlefield_pdf, tmp_path):
    """Every page but the cover and the last is at least a quarter full, unless the next one
    opens a chapter that must start a page."""
    pdf, game_file = (space_war_pdf, SPACE_WAR) if which == "space_war" else (battlefield_pdf, BATTLEFIELD)
    fills = page_fill(pdf, tmp_path)
    pages = pdf_text(pdf)
    book = R.build_book(load_game(str(game_file)))         # numbered as printed: with its examples
    opening = {f"{c.number} {c.title}" for c in book.chapters if c.new_page or c.alone} | {"Contents"}
    assert any(f in opening for f in [next((ln.strip() for ln in p.splitlines() if ln.strip()), "")
                                      for p in pdf_text(pdf)])
    firsts = [next((ln.strip() for ln in p.splitlines() if ln.strip()), "") for p in pages]
    for i in range(1, len(fills) - 1):
        if firsts[i + 1] in opening:
            continue
        assert fills[i] >= 0.25, f"page {i + 1} is {fills[i]:.0%} full: {firsts[i][:60]}"


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


PHONE_CHECK = """
<script>
(function () {
  var width = document.documentElement.clientWidth, out = {width: width, overflow: [], small: []};
  function scrolls(el) {
    for (var p = el.parentElement; p; p = p.parentElement) {
      var o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll') return true;
    }
    return false;
  }
  document.querySelectorAll('body *').forEach(function (el) {
    var r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > width + 1 && !scrolls(el)) out.overflow.push(el.tagName + ' right=' + Math.round(r.right));
  });
  document.querySelectorAll('p, li, td, dd').forEach(function (el) {
    var size = parseFloat(getComputedStyle(el).fontSize);
    if (el.textContent.trim() && size < 11) out.small.push(el.tagName + ' ' + size);
  });
  out.scroll = document.documentElement.scrollWidth;
  var pre = document.createElement('pre');
  pre.id = 'cardsmith-check';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"""


def test_the_html_reads_on_a_phone(space_war_html, tmp_path):
    """At a phone's width (390 CSS pixels) nothing is wider than the screen (wide tables scroll
    inside themselves) and the running text is at least 11 px."""
    page = tmp_path / "phone.html"
    page.write_text(space_war_html.read_text(encoding="utf-8").replace("</body>", PHONE_CHECK + "</body>"),
                    encoding="utf-8")
    dom = B.dump_dom(page, width=390, height=844)
    found = re.search(r'<pre id="cardsmith-check">(.*?)</pre>', dom, re.S)
    assert found, "the check script did not run in Chromium"
    result = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert result["width"] <= 400
    assert result["overflow"] == [], result["overflow"][:10]
    assert result["scroll"] <= result["width"]
    assert result["small"] == [], result["small"][:10]


def test_without_named_destinations_the_contents_show_no_placeholder(tmp_path, monkeypatch):
    """A Chromium that writes no named destinations gives contents without page numbers, never
    the placeholder the first printing uses."""
    monkeypatch.setattr(B, "named_pages", lambda data: {})
    files, _ = R.write_rulebook(load_game(str(SIGNAL_FIRES)), tmp_path, "pdf")
    contents = pdf_text(files[0])[1]
    assert "Contents" in contents and not re.search(r"\s00\s*$", contents, re.M)
