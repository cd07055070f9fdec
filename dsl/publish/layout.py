"""The table as the players see it: every player's zones in their own area, the shared zones in
the middle, drawn as SVG straight from the zone declarations (no Graphviz: the picture is a
grid, not a graph).

    svg = table_svg(decls, ["Each player"])                  # the layout, for the components
    svg = table_svg(decls, ["Ann", "Ben"], contents)         # the table at a moment of a game

A zone's look says who sees its cards: hidden zones are drawn as a card back (dark), zones
only their owner sees with a dashed edge, public zones white. With `contents` (zone key ->
[(card name, face up)], the top card last) each zone shows how many cards it holds and, where
everyone may see them, the names of its top face-up cards; its key ENTITIES lists the entities in
play, each drawn as an area of its own with its zones. Every text is escaped: names come
from the file.
"""
from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from . import english as E
from . import words as W


# The names the rulebook gives (words.py: a file's display names, else the name with spaces).
def zone_label(decls, name: str) -> str:
    said = getattr(W, "display_name", None)
    return said(decls, "zone", name) if said else E.human(name)


def field_label(decls, name: str) -> str:
    said = getattr(W, "display_name", None)
    return said(decls, "field", name) if said else E.human(name)


def value_label(decls, value) -> str:
    said = getattr(W, "display_value", None)
    if said:
        return said(decls, value)
    return "yes" if value is True else "no" if value is False else "" if value is None else E.clean(str(value))

BOX_W, BOX_H, GAP = 104, 70, 10
PER_ROW = 6
MARGIN, TITLE_H = 8, 20
WIDTH = MARGIN * 2 + PER_ROW * BOX_W + (PER_ROW - 1) * GAP
SHOWN_NAMES = 3            # face-up card names written in one zone, from the top
NAME_CHARS = 17
SEEN = {"hidden": "hidden", "owner": "its owner sees", "others": "all but its owner see", "public": "everyone sees"}
LOOK = {"hidden": ("#34435c", "#ffffff", ""), "owner": ("#e8eef7", "#1d2430", ' stroke-dasharray="5 3"'),
        "others": ("#fbf1e4", "#1d2430", ' stroke-dasharray="2 2"'), "public": ("#ffffff", "#1d2430", "")}


def _cut(text: str, n: int = NAME_CHARS) -> str:
    text = E.clean(str(text))
    return text if len(text) <= n else text[: n - 1] + "\u2026"


def _wrap(text: str, n: int) -> list[str]:
    words, lines = text.split(), [""]
    for w in words:
        if lines[-1] and len(lines[-1]) + 1 + len(w) > n:
            lines.append(w)
        else:
            lines[-1] = (lines[-1] + " " + w).strip()
    return [_cut(ln, n) for ln in lines[:2]]


def _text(x: float, y: float, text: str, size: float = 10, weight: str = "normal", fill: str = "#1d2430",
          anchor: str = "middle", italic: bool = False) -> str:
    style = ' font-style="italic"' if italic else ""
    return (f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" font-weight="{weight}" fill="{fill}" '
            f'text-anchor="{anchor}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif"{style}>'
            f"{escape(text)}</text>")


def _zone_box(x: float, y: float, name: str, visibility: str, cards: list | None) -> list[str]:
    """One zone: `name` is its display name."""
    fill, ink, dash = LOOK.get(visibility, LOOK["public"])
    out = [f'<rect x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="6" fill="{fill}" '
           f'stroke="#2f5597" stroke-width="1.2"{dash}/>']
    cx = x + BOX_W / 2
    title = _wrap(name, 16)
    for i, line in enumerate(title):
        out.append(_text(cx, y + 14 + 11 * i, line, 10, "bold", ink))
    below = y + 16 + 11 * len(title)
    if cards is None:
        out.append(_text(cx, below + 6, SEEN.get(visibility, ""), 8.5, fill=ink, italic=True))
        return out
    out.append(_text(cx, below + 4, f"{len(cards)} card{'' if len(cards) == 1 else 's'}", 8.5, fill=ink,
                     italic=True))
    if visibility == "public":
        shown = [n for n, up in reversed(cards) if up][:SHOWN_NAMES]
        room = max(0, int((y + BOX_H - 4 - (below + 14)) // 9) + 1)
        for i, n in enumerate(shown[:room]):
            out.append(_text(cx, below + 15 + 9 * i, _cut(n), 7.5, fill=ink))
    return out


ENTITIES = "(entities)"      # in `contents`: the entities in play, [(label, kind, "seat/slot")] (no zone's key)


def table_svg(decls, seats: list[str], contents: dict | None = None, caption_players: bool = True) -> str:
    """The table: one area per name in `seats` (a per-player zone key is `zone:seat`), then the
    shared zones. `contents` as the module says, or None for the empty layout."""
    shared = [z for z in decls.zones.values() if not z.per_player and z.board is None and z.per_entity is None]
    own = [z for z in decls.zones.values() if z.per_player]
    areas: list[tuple[str, list[tuple[str, str, str]]]] = []
    for seat, who in enumerate(seats):
        areas.append((f"{who}'s area" if caption_players else who,
                      [(zone_label(decls, z.name), z.visibility, f"{z.name}:{seat}") for z in own]))
    if shared:
        areas.insert(len(areas) // 2 if len(areas) > 1 else len(areas),
                     ("Shared by all players", [(zone_label(decls, z.name), z.visibility, z.name) for z in shared]))
    for e in decls.entities.values():       # the zones of each entity of a kind (`zone crew: per ship`)
        from .english_entities import kind_word
        mine = [z for z in decls.zones.values() if z.per_entity == e.name]
        if not mine:
            continue
        if contents is None:                # the layout: one area for them all
            areas.append((f"On each {kind_word(decls, e.name)} (up to {e.most} per player)",
                          [(zone_label(decls, z.name), z.visibility, f"{z.name}:entity") for z in mine]))
            continue
        for label, kind, where in contents.get(ENTITIES, []):     # a moment of a game: each one in play
            if kind == e.name:
                areas.append((str(label), [(zone_label(decls, z.name), z.visibility, f"{z.name}:{where}")
                                           for z in mine]))
    for board in decls.boards.values():     # a board's places, in an area of their own
        areas.append((f"{board.title} (a board)", [(board.labels[p], "public", p) for p in board.places]))
    parts: list[str] = []
    y = MARGIN
    for title, zones in areas:
        if not zones:
            continue
        rows = (len(zones) + PER_ROW - 1) // PER_ROW
        height = TITLE_H + rows * BOX_H + (rows - 1) * GAP + 2 * GAP
        parts.append(f'<rect x="2" y="{y}" width="{WIDTH - 4}" height="{height}" rx="8" fill="#f3f6fb" '
                     'stroke="#c9d1dc"/>')
        parts.append(_text(MARGIN + 4, y + 15, title, 10.5, "bold", "#2f5597", "start"))
        for i, (name, vis, key) in enumerate(zones):
            r, c = divmod(i, PER_ROW)
            bx = MARGIN + c * (BOX_W + GAP)
            by = y + TITLE_H + GAP // 2 + r * (BOX_H + GAP)
            cards = None if contents is None else contents.get(key, [])
            parts.extend(_zone_box(bx, by, name, vis, cards))
        y += height + GAP
    height = y
    legend = [(LOOK["hidden"], "hidden"), (LOOK["owner"], "only its owner sees it"), (LOOK["public"], "public")]
    if any(z.visibility == "others" for z in decls.zones.values()):
        legend.insert(2, (LOOK["others"], "all but its owner see it"))
    lx = MARGIN
    for (fill, _, dash), word in legend:
        parts.append(f'<rect x="{lx}" y="{height}" width="18" height="12" rx="2" fill="{fill}" stroke="#2f5597"{dash}/>')
        parts.append(_text(lx + 24, height + 10, word, 9, anchor="start"))
        lx += 30 + 7 * len(word)
    height += 20
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" '
            f'height="{height}" role="img" aria-label={quoteattr("the table layout")}>' + "".join(parts) + "</svg>")
