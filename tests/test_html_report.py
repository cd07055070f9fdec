"""`--report out.html`: the simulation's and the comparison's HTML page with matplotlib plots.

Checked as data (which plots, which rows, escaping, the same data giving the same bytes) and in
a real headless Chromium, as the rulebook is (tests/test_browser.py): the plots are drawn, their
labels are text in the page, nothing is wider than the page, and a hostile name stays text.
"""
from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from markupsafe import escape

from cardsmith.interpreter import html_report as H
from cardsmith.interpreter.cli import main
from cardsmith.interpreter.simulate import simulate
from cardsmith.interpreter.stats import histogram

ROOT = Path(__file__).resolve().parent.parent
DESIGNER = ROOT / "tests" / "games" / "designer_report.cards"
VARIANT = ROOT / "tests" / "games" / "designer_report_variant.cards"
SPACE_WAR = ROOT / "games" / "space_war_in_space.cards"


@pytest.fixture(scope="module")
def designer_report():
    return simulate(str(DESIGNER), 60, 2, 1, 1, progress=False)


@pytest.fixture(scope="module")
def space_war_report():
    return simulate(str(SPACE_WAR), 12, 4, 1, 5, progress=False)


def _svgs(page: str) -> list[str]:
    return re.findall(r"<svg\b.*?</svg>", page, re.S)


# ---------------------------------------------------------------- the histogram data


def test_histogram_one_bin_per_value_when_the_range_fits():
    assert histogram([3, 4, 4, 6]) == {"start": 3, "width": 1, "counts": [1, 2, 0, 1]}
    assert histogram([]) == {"start": 0, "width": 1, "counts": []}
    assert histogram([7]) == {"start": 7, "width": 1, "counts": [1]}


def test_histogram_wide_ranges_share_bins_of_one_width():
    values = list(range(10, 1010))
    h = histogram(values, bins=30)
    assert h["width"] == 34 and len(h["counts"]) <= 30 and sum(h["counts"]) == 1000
    for v in (10, 43, 44, 1009):            # each value lies in its bin
        i = (v - h["start"]) // h["width"]
        assert h["start"] + i * h["width"] <= v < h["start"] + (i + 1) * h["width"]


def test_the_report_carries_the_histograms(designer_report):
    h = designer_report["histograms"]
    assert sum(h["rounds"]["counts"]) == designer_report["finished"]
    assert sum(h["decisions"]["counts"]) == designer_report["finished"]
    assert h["rounds"]["start"] == designer_report["rounds"]["min"]


# ---------------------------------------------------------------- the page as data


def test_a_simulation_page_has_every_plot(designer_report):
    page = H.simulation_html(designer_report)
    svgs = _svgs(page)
    # seats, the declared group, rounds and decisions histograms, the cards
    assert len(svgs) == 5
    assert "Win rate by seat" in svgs[0] and "Player 1" in svgs[0] and "Player 2" in svgs[0]
    assert "Win rate by Side" in svgs[1] and "moon" in svgs[1] and "sun" in svgs[1]
    assert "Game length in rounds" in svgs[2] and "Player decisions per game" in svgs[3]
    assert "Cards: win rate when played" in svgs[4]
    for card in designer_report["cards"]:
        assert card in svgs[4]
    for seat in designer_report["seats"]:       # the tables give the figures behind the plots
        assert f"<td>{seat['name']}</td><td>{seat['wins']}</td>" in page
    assert "cardsmith.simulate/1" in page
    assert "Big plays" in page                  # a declared measure


def test_error_bars_are_the_intervals(designer_report):
    """The seats plot draws one error bar per seat from its interval's low end to its high end:
    read back from the SVG against the axes' 0% and 100%, they are the report's intervals."""
    svg = _svgs(H.simulation_html(designer_report))[0]
    axes = re.search(r'<g id="patch_2">\s*<path d="M [\d.]+ ([\d.]+)\s+L [\d.]+ [\d.]+\s+L [\d.]+ ([\d.]+)\s', svg)
    bottom, top = float(axes.group(1)), float(axes.group(2))
    bars = re.search(r'<g id="LineCollection_1">(.*?)</g>', svg, re.S).group(1)
    spans = [(float(a), float(b)) for a, b in re.findall(r'd="M [\d.]+ ([\d.]+)\s+L [\d.]+ ([\d.]+)\s*"', bars)]
    assert len(spans) == len(designer_report["seats"])
    for (low, high), seat in zip(spans, designer_report["seats"]):
        as_rate = [(bottom - y) / (bottom - top) for y in (low, high)]
        assert as_rate == pytest.approx(seat["ci95"], abs=1e-4)


def test_the_same_data_gives_the_same_page(designer_report):
    again = copy.deepcopy(designer_report)
    assert H.simulation_html(designer_report) == H.simulation_html(again)


def test_the_same_seeds_give_the_same_page_whatever_the_workers(designer_report):
    """Timings and worker counts differ between two runs; the page leaves them out."""
    other = simulate(str(DESIGNER), 60, 2, 2, 1, progress=False)
    assert other["jobs"] == 2 and other["elapsed_seconds"] != designer_report["elapsed_seconds"]
    assert H.simulation_html(other) == H.simulation_html(designer_report)


def test_the_same_seeds_give_the_same_file_from_another_process(tmp_path):
    """Two `cardsmith simulate --report` processes (each its own hash seed): the same bytes."""
    pages = []
    for run, hash_seed in enumerate(("1", "2")):
        out = tmp_path / f"run{run}.html"
        done = subprocess.run([sys.executable, "-m", "cardsmith.interpreter.cli", "simulate", str(DESIGNER),
                               "-n", "20", "--jobs", "1", "--report", str(out)],
                              capture_output=True, text=True, timeout=300,
                              env={**os.environ, "PYTHONHASHSEED": hash_seed})
        assert done.returncode == 0, done.stderr
        pages.append(out.read_bytes())
    assert pages[0] == pages[1]


def test_a_game_without_declared_groups_is_grouped_by_its_enum_attributes(space_war_report):
    page = H.simulation_html(space_war_report)
    assert "Win rate by faction" in page
    for value in space_war_report["groupings"]["faction"]:
        assert value in page


def test_many_cards_plot_the_highest_and_lowest(space_war_report):
    cards = space_war_report["cards"]
    assert len(cards) > H.MAX_BARS
    page = H.simulation_html(space_war_report)
    svg = next(s for s in _svgs(page) if "Cards: win rate when" in s)
    plotted = [name for name in cards if f">{name}<" in svg]
    assert len(plotted) == H.MAX_BARS
    assert f"The {H.MAX_BARS // 2} highest and {H.MAX_BARS // 2} lowest of" in page
    for name in cards:                          # the table lists them all
        assert f"<td>{escape(name)}</td>" in page


HOSTILE = '</svg><script>alert(1)</script><img src=x onerror="alert(2)">'


def _hostile(report: dict) -> dict:
    """The report with a title, a seat, a group value and a card named with markup and mathtext."""
    bad = copy.deepcopy(report)
    bad["title"] = HOSTILE
    bad["seats"][0]["name"] = "$\\frac{1}{0}$ & <b>bold</b>"
    group = bad["groups"]["Side"]["values"]
    group[HOSTILE] = group.pop("moon")
    bad["cards"][HOSTILE] = bad["cards"].pop("Coin")
    bad["measures"]["Big plays"]["says"] = HOSTILE
    return bad


def test_names_are_text_never_markup(designer_report):
    page = H.simulation_html(_hostile(designer_report))
    assert "<script" not in page and "<img" not in page and "<b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "$\\frac{1}{0}$" in page              # mathtext off: drawn as written, no error
    # the hostile names do not end an SVG early: every <svg> is closed by its own </svg>
    assert page.count("<svg") == page.count("</svg>") == 5


def test_a_comparison_page_sets_both_runs_side_by_side():
    from cardsmith.interpreter.report import compare

    compared = compare(str(DESIGNER), str(VARIANT), 30, 2, 1, 1, progress=False)
    page = H.comparison_html(compared)
    svgs = _svgs(page)
    assert len(svgs) == 4                       # seats, the group, two histograms
    assert all(">base<" in s and ">variant<" in s for s in svgs)
    for row in compared["rows"]:
        assert f"<td>{row['metric']}</td>" in page
    assert page.count('class="significant"') == sum(r["significant"] for r in compared["rows"])
    assert compared["changes"]
    for change in compared["changes"]:
        assert f"<li>{escape(change)}</li>" in page


# ---------------------------------------------------------------- the command


def test_simulate_report_writes_the_page(tmp_path, capsys):
    out = tmp_path / "report.html"
    assert main(["simulate", str(DESIGNER), "-n", "20", "--jobs", "1", "--report", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"the report with plots is in {out}" in err
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>") and len(_svgs(page)) == 5


def test_compare_report_writes_the_page(tmp_path, capsys):
    out = tmp_path / "compare.html"
    assert main(["compare", str(DESIGNER), str(VARIANT), "-n", "12", "--jobs", "1", "--json",
                 "--report", str(out)]) == 0
    json.loads(capsys.readouterr().out)         # --json still prints the comparison
    page = out.read_text(encoding="utf-8")
    assert "What the variant changes" in page and "Every metric" in page


def test_a_report_name_must_be_an_html_page(tmp_path):
    """`--report game.cards` would overwrite a game file: refused before anything is played."""
    target = tmp_path / "game.cards"
    target.write_text("keep me", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "cardsmith.interpreter.cli", "simulate", str(DESIGNER),
                           "-n", "2", "--report", str(target)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "give a name ending in .html" in done.stderr and "Traceback" not in done.stderr
    assert target.read_text(encoding="utf-8") == "keep me"


# ---------------------------------------------------------------- in a real browser


CHECK = """
<script>
(function () {
  var out = {svgs: [], overflow: [], width: document.documentElement.clientWidth,
             scripts: document.querySelectorAll('script').length,
             images: document.querySelectorAll('img').length, texts: []};
  document.querySelectorAll('svg').forEach(function (svg) {
    var r = svg.getBoundingClientRect();
    out.svgs.push([Math.round(r.width), Math.round(r.height), svg.querySelectorAll('text').length]);
  });
  document.querySelectorAll('svg text').forEach(function (t) { out.texts.push(t.textContent); });
  var limit = document.documentElement.clientWidth + 1;
  document.querySelectorAll('body *').forEach(function (el) {
    var r = el.getBoundingClientRect();
    if (r.width > 0 && (r.right > limit || r.left < -1) && !el.closest('.wide')) {
      out.overflow.push(el.tagName + ' right=' + Math.round(r.right));
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


def _browser():
    from cardsmith.dsl.publish import browser as B

    if not B.find_chromium():
        pytest.skip("needs chromium (the README's set-up command installs it)")
    return B


def _checked(B, page: str, tmp_path: Path, width: int) -> dict:
    path = tmp_path / "checked.html"
    path.write_text(page.replace("</body>", CHECK + "</body>"), encoding="utf-8")
    dom = B.dump_dom(path, width=width, height=1200)
    found = re.search(r'<pre id="cardsmith-check">(.*?)</pre>', dom, re.S)
    assert found, "the check script did not run in Chromium"
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&")
                      .replace("&lt;", "<").replace("&gt;", ">"))


@pytest.mark.parametrize("width", [1000, 420])
def test_the_plots_are_drawn_in_a_browser_and_fit_the_page(designer_report, tmp_path, width):
    B = _browser()
    result = _checked(B, H.simulation_html(designer_report), tmp_path, width)
    assert len(result["svgs"]) == 5
    for w, h, texts in result["svgs"]:
        assert w > 100 and h > 80 and texts >= 3, result["svgs"]
    assert "Win rate by seat" in result["texts"] and "Player 1" in result["texts"]
    assert "Cards: win rate when played" in result["texts"]
    assert result["overflow"] == [], result["overflow"][:10]
    assert result["scroll"] <= result["width"]


def test_a_long_file_path_wraps_on_a_phone(designer_report, tmp_path):
    # the page names the game's file in <code>: a deep folder must not widen a 420px page
    # (a CI clone in a long temporary folder did)
    report = copy.deepcopy(designer_report)
    report["file"] = "/tmp/" + "/".join(["a_rather_long_folder_name_for_games"] * 6) + "/designer_report.cards"
    result = _checked(_browser(), H.simulation_html(report), tmp_path, 420)
    assert result["overflow"] == [], result["overflow"][:10]
    assert result["scroll"] <= result["width"]


def test_a_hostile_name_stays_text_in_the_browser(designer_report, tmp_path):
    B = _browser()
    result = _checked(B, H.simulation_html(_hostile(designer_report)), tmp_path, 1000)
    assert result["scripts"] == 1 and result["images"] == 0     # only the check script itself
    assert len(result["svgs"]) == 5
    assert any(HOSTILE[:20] in t for t in result["texts"])      # the card's name, drawn as text


def test_a_screenshot_of_the_report_is_kept(space_war_report, tmp_path):
    B = _browser()
    page = tmp_path / "space_war_report.html"
    page.write_text(H.simulation_html(space_war_report), encoding="utf-8")
    shot = tmp_path / "space_war_report.png"
    B.screenshot(page, shot, width=1000, height=2400)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    print(f"\nscreenshot of the report: {shot}")
