"""A simulation report and a comparison of two, as rich tables for the terminal.

``cli.render_summary`` prints the seats and the game length and calls ``render_groups`` and
``render_measures_and_cards``; ``render_comparison`` prints ``cardsmith compare``. The texts
they print (titles, card and group names) come from game files: the caller passes the report
through ``cli._safe_values`` first, and every one is escaped for rich's markup here.
"""
from __future__ import annotations

from .report import CARD_WAYS

CARD_ROWS = 16
"""At most this many cards in the terminal's table (the best and the worst); --json has every one."""


def _pct(value) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _ci(bounds) -> str:
    return f"{100 * bounds[0]:.0f}-{100 * bounds[1]:.0f}%"


def _num(value, digits: int = 2) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.{digits}f}" if isinstance(value, float) or digits else f"{value:g}"


def shared_wins_note(stats: dict) -> str | None:
    """When some games had more than one winner (`players win`, a tie the game lets all win):
    each winner counts the win, so the Wins of the seats (and of a group's values) add up to more
    than the games won and their win rates to more than 100%. None when every win had one winner."""
    seats = stats.get("seats") or []
    wins = sum(seat.get("wins", 0) for seat in seats)
    won = stats.get("finished", stats.get("games", 0)) - (stats.get("draws") or {}).get("count", 0)
    if wins <= won or won <= 0:
        return None
    return (f"Shared wins: the {won} games that had a winner gave {wins} wins, as every winner of a shared "
            "victory counts it; so the Wins columns add up to more than the games, and the win rates to "
            "more than 100%.")


def render_groups(stats: dict, console) -> None:
    """Win rates by each group (declared, else the enum attributes of the players). Printed below
    the seats' table, it first says when wins were shared (`shared_wins_note`): that note is the
    seats' table's footnote as much as the groups'."""
    from rich.markup import escape
    from rich.table import Table

    note = shared_wins_note(stats)
    if note:
        console.print(escape(note))

    groups = stats.get("groups")
    if groups is None:          # a summary from before the report (stats.summarize_games alone)
        groups = {a: {"values": {v: {"seats": r["games"], **r} for v, r in values.items()}}
                  for a, values in stats.get("groupings", {}).items()}
    for name, group in groups.items():
        table = Table(title=f"Wins by {escape(name)}", title_justify="left",
                      caption=escape(group.get("says", "")), caption_justify="left")
        for heading in (name.replace("_", " ").capitalize(), "Seats", "Wins", "Win rate", "95% CI"):
            table.add_column(escape(heading), justify="right" if table.columns else "left")
        ranked = sorted(group["values"].items(), key=lambda kv: (-(kv[1]["win_rate"] or 0), kv[0]))
        for value, row in ranked:
            table.add_row(escape(value), str(row["seats"]), str(row["wins"]), _pct(row["win_rate"]),
                          f"{100 * row['ci95'][0]:.1f}% to {100 * row['ci95'][1]:.1f}%")
        console.print(table)


def render_measures_and_cards(stats: dict, console) -> None:
    """The game's measures (per game, and per player for `measure ... for p`) and the cards'
    win rates (had, drew, played: docs/simulate.md)."""
    from rich.markup import escape
    from rich.table import Table

    measures = stats.get("measures") or {}
    if measures:
        table = Table(title="Measures", title_justify="left")
        for heading in ("Measure", "Per", "Mean", "SD", "Median", "Min", "Max", "Total"):
            table.add_column(heading, justify="left" if heading in ("Measure", "Per") else "right")
        for name, m in measures.items():
            parts = [("game", m["per_game"])]
            if m["per"] == "player":
                parts.append(("player", m["per_player"]))
            for per, d in parts:
                table.add_row(escape(name), per, _num(d["mean"]), _num(d["sd"]), _num(d["median"]),
                              _num(d["min"], 0), _num(d["max"], 0), _num(d["total"], 0))
        console.print(table)
        for m in measures.values():
            console.print(f"  {escape(m['says'])}")

    cards = stats.get("cards") or {}
    if not cards:
        return
    ranked = sorted(cards.items(), key=lambda kv: (-(kv[1]["had"]["win_rate"] or 0), kv[0]))
    shown = ranked if len(ranked) <= CARD_ROWS else ranked[:CARD_ROWS // 2] + [None] + ranked[-(CARD_ROWS // 2):]
    table = Table(title="Cards: the win rate of the players who had, drew or played each",
                  title_justify="left", caption="had: in a zone of theirs; drew: into their own hidden hand; "
                  "played: from a zone of theirs into a public one (docs/simulate.md)", caption_justify="left")
    table.add_column("Card")
    for way in CARD_WAYS:
        table.add_column(f"{way.capitalize()}: win rate (95% CI), seats", justify="right")
    for entry in shown:
        if entry is None:
            table.add_row(f"... {len(ranked) - CARD_ROWS} more (--json lists every card)", *[""] * 3)
            continue
        name, ways = entry
        cells = [f"{_pct(row['win_rate'])} ({_ci(row['ci95'])}), {row['seats']}" if row["seats"] else "-"
                 for row in (ways[way] for way in CARD_WAYS)]
        table.add_row(escape(name), *cells)
    console.print(table)


def render_comparison(comparison: dict, console) -> None:
    """``cardsmith compare``: what the variant changes, then every metric side by side."""
    from rich.markup import escape
    from rich.table import Table

    base, variant = comparison["base"], comparison["variant"]
    console.print(f"[bold]{escape(base['title'])}[/bold] ({escape(base['file'])}) against "
                  f"[bold]{escape(variant['title'])}[/bold] ({escape(variant['file'])}): "
                  f"{base['games']} games each, {base['players']} players, the same seeds "
                  f"({base['seed']} to {base['seed'] + base.get('games_requested', base['games']) - 1})")
    console.print("[bold]What the variant changes[/bold]")
    for line in comparison["changes"] or ["nothing the comparison can name"]:
        console.print(f"  * {escape(line)}")
    sections = {}
    for row in comparison["rows"]:
        sections.setdefault(row["section"], []).append(row)
    for section, rows in sections.items():
        table = Table(title=section.capitalize(), title_justify="left")
        for heading in ("Metric", "Base", "Variant", "Difference", "Test", "p", ""):
            table.add_column(heading, justify="left" if heading in ("Metric", "Test") else "right")
        for row in rows:
            rate = row["kind"] == "rate"
            fmt = _pct if rate else _num
            diff = row["difference"]
            shown = "n/a" if diff is None else (f"{100 * diff:+.1f} pts" if rate else f"{diff:+,.2f}")
            p = row["p_value"]
            table.add_row(escape(row["metric"]), fmt(row["base"]), fmt(row["variant"]), shown, row["test"],
                          "n/a" if p is None else f"{p:.3g}",
                          "[bold]significant[/bold]" if row["significant"] else "")
        console.print(table)
    only = comparison.get("only_in_variant") or {}
    for kind in ("measures", "cards"):
        if only.get(kind):
            console.print(f"Only the variant has the {kind} " + ", ".join(escape(n) for n in only[kind])
                          + ": nothing to compare them with.")
    flagged = comparison["significant"]
    console.print(f"{len(flagged)} of {len(comparison['rows'])} differences are significant "
                  f"(two-sided p < {comparison.get('alpha', 0.05)}); with many metrics, about one in twenty "
                  "of those that do not differ is flagged by chance.")
