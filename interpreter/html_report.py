"""The HTML report of a simulation or a comparison: ``--report out.html``, with plots.

The plots are made with matplotlib's Agg backend as SVG and set inline in one self-contained
page (no scripts, no files beside it, no network), rendered from ``templates/report.html.j2``
through the rulebook's sandboxed Jinja (``dsl/publish/templating.py``: autoescaping, strict
undefined names, a bounded child process), so a game's names are text in the page, never markup:

* win rates per seat, and per value of each group, with their 95% intervals as error bars and
  the even share drawn across;
* histograms of game length, in rounds and in player decisions (``report["histograms"]``);
* per-card effects: the win rate of the seats that played (else drew, else had) each card,
  with its interval, against the average win rate of a seat;
* for ``compare``: base and variant side by side in the same plots, and every metric's row
  with its difference and whether it is significant.

The same report gives the same file byte for byte: the SVG writer gets a fixed hash salt
(``svg.hashsalt``, which names its clip paths), no date and a fixed creator, text is kept as
text (``svg.fonttype: none``); and what varies between two runs of the same seeds (timings,
worker counts) is left out of the page. A game's text reaches matplotlib with mathtext off
(``parse_math=False``): a card named ``$x$`` is drawn as written.
"""
from __future__ import annotations

import io
import math
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parent / "templates"
MAX_BARS = 40                       # cards plotted at most: the highest and the lowest rates
MAX_LABEL = 40                      # characters of a name on a plot (the tables give it whole)
_RC = {
    "svg.hashsalt": "cardsmith-report",
    "svg.fonttype": "none",
    "font.family": "sans-serif",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 10,
    "axes.titleweight": "bold",
}
_BASE, _VARIANT, _EVEN = "#4C72B0", "#DD8452", "#888888"


# ---------------------------------------------------------------- pages


def simulation_html(report: dict) -> str:
    """The page of one simulation report (``report.build_report`` plus ``simulate``'s fields)."""
    from cardsmith.dsl.publish import templating as T

    context = {"kind": "simulation", "page": _simulation_page(report)}
    return T.render([str(TEMPLATES)], FILTERS, "report.html.j2", context)


def comparison_html(compared: dict) -> str:
    """The page of a comparison (``report.compare_reports``): both runs in each plot, every row."""
    from cardsmith.dsl.publish import templating as T

    context = {"kind": "comparison", "page": _comparison_page(compared)}
    return T.render([str(TEMPLATES)], FILTERS, "report.html.j2", context)


def write_report(report: dict, path: str | Path) -> Path:
    """Write the page of ``report`` (a comparison when it has ``rows``) to ``path``."""
    page = comparison_html(report) if "rows" in report and "base" in report else simulation_html(report)
    target = Path(path)
    target.write_text(page, encoding="utf-8", newline="\n")
    return target


# ---------------------------------------------------------------- what the page shows


def _simulation_page(report: dict) -> dict:
    players = report["players"]
    finished = report.get("finished", 0)
    page = {
        "title": report.get("title", ""),
        "file": report.get("file", ""),
        "schema": report.get("schema", ""),
        "games": report["games"],
        "requested": report.get("games_requested", report["games"]),
        "players": players,
        "seeds": _seeds(report),
        "agents": report.get("agents") or [],
        "interrupted": bool(report.get("interrupted")),
        "finished": finished,
        "aborted": report.get("aborted", 0),
        "crashed": report.get("crashed", 0),
        "draws": report.get("draws"),
        "even": 1 / players if players else None,
        "seats": report["seats"],
        "length": _length_rows(report),
        "measures": _measure_rows(report.get("measures") or {}),
        "groups": [],
        "cards": _card_rows(report.get("cards") or {}),
        "plots": {},
    }
    page["plots"]["seats"] = _rates_plot(
        "Win rate by seat", [s["name"] for s in report["seats"]], [[s for s in report["seats"]]],
        ["this run"], even=page["even"])
    for name, group in _groups(report).items():
        values = group["values"]
        labels = list(values)
        page["groups"].append({
            "name": name, "says": group.get("says", ""),
            "rows": [dict(values[v], value=v) for v in labels],
            "plot": _rates_plot(f"Win rate by {name}", labels, [[values[v] for v in labels]], ["this run"],
                                even=page["even"])})
    page["plots"]["lengths"] = [_histogram_plot(title, [report.get("histograms", {}).get(key)], ["this run"], unit)
                                for key, title, unit in (("rounds", "Game length in rounds", "rounds"),
                                                         ("decisions", "Player decisions per game", "decisions"))
                                if (report.get("histograms", {}).get(key) or {}).get("counts")]
    way, shown = _card_way(report.get("cards") or {})
    page["card_way"] = way
    if shown:
        page["plots"]["cards"] = _cards_plot(report.get("cards") or {}, way, _seat_win_rate(report))
        page["cards_plotted"] = min(len(shown), MAX_BARS)
        page["cards_with_data"] = len(shown)
    return page


def _comparison_page(compared: dict) -> dict:
    base, variant = compared["base"], compared["variant"]
    players = base["players"]
    even = 1 / players if players else None
    runs = ["base", "variant"]
    page = {
        "title": f"{base.get('title', '')} against {variant.get('title', '')}",
        "base": _run_line(base), "variant": _run_line(variant),
        "changes": list(compared.get("changes") or ()),
        "rows": compared.get("rows") or [],
        "significant": list(compared.get("significant") or ()),
        "players": players,
        "plots": {},
        "groups": [],
    }
    names = [s["name"] for s in base["seats"]]
    page["plots"]["seats"] = _rates_plot("Win rate by seat", names,
                                         [base["seats"], variant["seats"][:len(names)]], runs, even=even)
    groups_a, groups_b = _groups(base), _groups(variant)
    for name, group in groups_a.items():
        other = groups_b.get(name)
        if other is None:
            continue
        labels = [v for v in group["values"] if v in other["values"]]
        if labels:
            page["groups"].append({"name": name, "plot": _rates_plot(
                f"Win rate by {name}", labels, [[group["values"][v] for v in labels],
                                                [other["values"][v] for v in labels]], runs, even=even)})
    page["plots"]["lengths"] = [
        _histogram_plot(title, [a.get("histograms", {}).get(key) for a in (base, variant)], runs, unit)
        for key, title, unit in (("rounds", "Game length in rounds", "rounds"),
                                 ("decisions", "Player decisions per game", "decisions"))
        if any((a.get("histograms", {}).get(key) or {}).get("counts") for a in (base, variant))]
    return page


def _run_line(report: dict) -> dict:
    return {"title": report.get("title", ""), "file": report.get("file", ""), "games": report["games"],
            "players": report["players"], "seeds": _seeds(report), "finished": report.get("finished", 0)}


def _seeds(report: dict) -> str:
    first = report.get("seed")
    if first is None:
        return ""
    last = first + report.get("games_requested", report["games"]) - 1
    return f"{first} to {last}" if last != first else str(first)


def _groups(report: dict) -> dict:
    """The groups a report carries: declared (``groups``), else the enum attributes (``groupings``)."""
    groups = report.get("groups")
    if groups:
        return groups
    out = {}
    for attribute, values in (report.get("groupings") or {}).items():
        out[attribute] = {"says": f"the players grouped by their {attribute}",
                          "values": {v: {"seats": row["games"], "wins": row["wins"], "win_rate": row["win_rate"],
                                         "ci95": row["ci95"]} for v, row in values.items()}}
    return out


def _length_rows(report: dict) -> list[dict]:
    rows = []
    for label, data in (("Rounds", report.get("rounds")), ("Steps", report.get("steps")),
                        ("Decisions, real", (report.get("decisions") or {}).get("real")),
                        ("Decisions, forced", (report.get("decisions") or {}).get("forced")),
                        ("Decisions, all", (report.get("decisions") or {}).get("all"))):
        if data:
            rows.append(dict(data, label=label))
    return rows


def _measure_rows(measures: dict) -> list[dict]:
    rows = []
    for name, m in measures.items():
        rows.append({"name": name, "says": m.get("says", ""), "per": m.get("per", ""),
                     "per_game": m.get("per_game") or {}, "per_player": m.get("per_player")})
    return rows


def _card_rows(cards: dict) -> list[dict]:
    return [{"name": name, **{way: ways.get(way) for way in ("had", "drew", "played")}}
            for name, ways in cards.items()]


def _card_way(cards: dict) -> tuple[str, list]:
    """The way of holding a card the plot shows: played where any card was played, else drew,
    else had; and the cards with seats that did it."""
    for way in ("played", "drew", "had"):
        shown = [name for name, ways in cards.items() if (ways.get(way) or {}).get("seats")]
        if shown:
            return way, shown
    return "played", []


def _seat_win_rate(report: dict) -> float | None:
    """The win rate of one seat over all finished games (the cards plot's reference line)."""
    finished, players = report.get("finished", 0), report["players"]
    if not finished or not players:
        return None
    return sum(s["wins"] for s in report["seats"]) / (finished * players)


# ---------------------------------------------------------------- plots


def _rates_plot(title: str, labels: list[str], runs: list[list[dict]], names: list[str],
                even: float | None) -> str:
    """Bars of win rates with their 95% intervals, one colour per run, the even share across."""
    from matplotlib.figure import Figure
    import matplotlib

    with matplotlib.rc_context(_RC):
        width = max(4.5, min(10.0, 1.2 + 0.55 * len(labels) * len(runs)))
        fig = Figure(figsize=(width, 3.2))
        ax = fig.add_subplot()
        step = 0.8 / len(runs)
        for r, (rows, name) in enumerate(zip(runs, names)):
            xs = [i - 0.4 + step * (r + 0.5) for i in range(len(labels))]
            rates = [_rate(row) for row in rows]
            low = [max(0.0, rate - row["ci95"][0]) for rate, row in zip(rates, rows)]
            high = [max(0.0, row["ci95"][1] - rate) for rate, row in zip(rates, rows)]
            ax.bar(xs, rates, width=step * 0.9, color=(_BASE, _VARIANT)[r % 2],
                   label=name if len(runs) > 1 else None,
                   yerr=[low, high], capsize=3, ecolor="#222222", error_kw={"linewidth": 1})
        if even is not None:
            ax.axhline(even, color=_EVEN, linestyle="--", linewidth=1, label=f"even share {even:.0%}")
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels([_short(x) for x in labels], parse_math=False,
                           rotation=30 if len(labels) > 4 else 0, ha="right" if len(labels) > 4 else "center")
        ax.set_ylim(0, 1)
        ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
        ax.set_ylabel("win rate (95% interval)")
        ax.set_title(_short(title, 80), parse_math=False)
        _legend(ax)
        fig.tight_layout()
        return _svg(fig)


def _histogram_plot(title: str, histograms: list[dict | None], names: list[str], unit: str) -> str:
    """Histograms of whole-number lengths (``stats.histogram``: start, width, counts); two runs
    are drawn as outlines over each other, each as a share of its games."""
    from matplotlib.figure import Figure
    import matplotlib

    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(5.2, 3.0))
        ax = fig.add_subplot()
        several = sum(1 for h in histograms if h and h.get("counts")) > 1
        for r, (h, name) in enumerate(zip(histograms, names)):
            if not h or not h.get("counts"):
                continue
            counts, start, width = h["counts"], h["start"], h["width"]
            total = sum(counts) or 1
            centre = 0.5 if width == 1 else 0.0        # a bar of one value stands on that value
            edges = [start - centre + i * width for i in range(len(counts) + 1)]
            heights = [c / total for c in counts] if several else counts
            colour = (_BASE, _VARIANT)[r % 2]
            if several and r:
                ax.stairs(heights, edges, color=colour, linewidth=1.8, label=name)
            else:
                ax.stairs(heights, edges, color=colour, fill=True, alpha=0.45 if several else 0.85, label=name)
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        ax.set_xlabel(unit)
        ax.set_ylabel("share of games" if several else "games")
        ax.set_title(title, parse_math=False)
        if several:
            _legend(ax)
        fig.tight_layout()
        return _svg(fig)


def _cards_plot(cards: dict, way: str, reference: float | None) -> str:
    """Horizontal bars: the win rate of the seats that ``way`` (played, drew, had) each card,
    with 95% intervals, highest first; past MAX_BARS cards, the highest and lowest halves."""
    from matplotlib.figure import Figure
    import matplotlib

    rows = sorted(((name, ways[way]) for name, ways in cards.items() if (ways.get(way) or {}).get("seats")),
                  key=lambda kv: (-_rate(kv[1]), kv[0]))
    if len(rows) > MAX_BARS:
        rows = rows[:MAX_BARS // 2] + rows[-(MAX_BARS // 2):]
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(6.4, max(2.0, 0.8 + 0.24 * len(rows))))
        ax = fig.add_subplot()
        ys = list(range(len(rows)))[::-1]
        rates = [_rate(row) for _, row in rows]
        low = [max(0.0, rate - row["ci95"][0]) for rate, (_, row) in zip(rates, rows)]
        high = [max(0.0, row["ci95"][1] - rate) for rate, (_, row) in zip(rates, rows)]
        ax.barh(ys, rates, height=0.7, color=_BASE, xerr=[low, high], capsize=2, ecolor="#222222",
                error_kw={"linewidth": 0.8})
        if reference is not None:
            ax.axvline(reference, color=_EVEN, linestyle="--", linewidth=1,
                       label=f"a seat's win rate {reference:.0%}")
            _legend(ax)
        ax.set_yticks(ys)
        ax.set_yticklabels([_short(name) for name, _ in rows], parse_math=False)
        ax.set_xlim(0, 1)
        ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
        ax.set_xlabel(f"win rate of the seats that {way} the card (95% interval)")
        ax.set_title(f"Cards: win rate when {way}", parse_math=False)
        fig.tight_layout()
        return _svg(fig)


def _legend(ax) -> None:
    legend = ax.legend(frameon=False, fontsize=8)
    for text in legend.get_texts():
        text.set_parse_math(False)


def _rate(row: dict) -> float:
    rate = row.get("win_rate")
    return 0.0 if rate is None or (isinstance(rate, float) and math.isnan(rate)) else float(rate)


def _short(text: str, most: int = MAX_LABEL) -> str:
    text = " ".join(str(text).split())          # no line breaks or tabs inside a label
    return text if len(text) <= most else text[:most - 1] + "…"


def _svg(fig) -> str:
    """The figure as an inline ``<svg>`` element: the same figure, the same text."""
    out = io.StringIO()
    fig.savefig(out, format="svg", metadata={"Date": None, "Creator": "cardsmith"})
    text = out.getvalue()
    return text[text.index("<svg"):].strip()


# ---------------------------------------------------------------- the template's filters


def _pct(value) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _ci(bounds) -> str:
    if not bounds:
        return "n/a"
    return f"{100 * bounds[0]:.1f}% to {100 * bounds[1]:.1f}%"


def _num(value, digits: int = 1) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.{digits}f}"


def _signed(value, kind: str = "rate") -> str:
    if value is None:
        return "n/a"
    return f"{100 * value:+.1f} points" if kind == "rate" else f"{value:+,.2f}"


def _p(value) -> str:
    if value is None:
        return "n/a"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


FILTERS = {"pct": _pct, "ci": _ci, "num": _num, "signed": _signed, "p": _p}
