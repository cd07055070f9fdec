"""Boards: places, the links between them, their fields and the players' marks on them.

Part of pass 1 (dsl/checks/declarations.py calls `index_board` for each `board` declaration,
then `boards` once every declaration is indexed):

    board map "The map":
        places: Home, Ridge "The Ridge", Keep
        links: Home - Ridge, Ridge - Keep, Keep - Moat   # E0240 'Moat' is not a place of 'map'
        place has:
            tier: number = 1
        player on a place has:
            influence: number = 0

Every place is also a shared, public, unordered zone named by the place (`ZoneDecl.board`
names its board), so cards on a place use the zone machinery: `move c to Ridge`, `cards in
Ridge`. A board is resolved once into a `Board`: its places in the order declared, each
place's neighbours in that order (the links listed, and for a `grid:` the places beside it
across a side, for a `hex:` of offset rows the six around it), the fields' and marks'
declarations and their starting values. The typer, the compiler, the rulebook and the
diagrams read the `Board`; none of them works the links out again.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import ast as A
from ..bounds import MAX_BOARD_PLACES
from ..diagnostics import DiagnosticSink
from ..model import Declarations
from ..types import suggest


@dataclass(frozen=True)
class Board:
    """A checked board: the places, who neighbours whom, fields and marks with their defaults."""
    name: str
    label: str | None
    decl: A.BoardDecl
    places: tuple[str, ...]                     # in the order declared
    labels: dict                                # place -> display name (the place's name if none)
    index: dict                                 # place -> its position in `places`
    adjacent: tuple[tuple[int, ...], ...]       # per place, its neighbours' positions, ascending
    links: tuple[tuple[int, int], ...]          # each link once, (lower position, higher)
    coords: dict                                # place -> (column, row) in a grid / hex, from 0
    fields: dict                                # name -> A.FieldDecl (`place has:`)
    marks: dict                                 # name -> A.FieldDecl (`player on a place has:`)
    defaults: dict                              # field name -> starting value
    mark_defaults: dict                         # mark name -> starting value
    values: dict                                # place -> {field: its own starting value} (`values:`)

    @property
    def title(self) -> str:
        return self.label or self.name

    def start(self, place: str, field: str):
        """The value the place's field starts with: its own (`values:`), else the field's default."""
        own = self.values.get(place)
        return own[field] if own is not None and field in own else self.defaults[field]


def _place_zone(board: A.BoardDecl, name: str, label: str | None, span) -> A.ZoneDecl:
    return A.ZoneDecl(span, name, per_player=False, ordered=False, visibility="public", capacity=None,
                      doc=None, label=label, board=board.name)


def index_board(decl: A.BoardDecl, d: Declarations, unique) -> None:
    """Index the board and each of its places as a zone (`unique` reports a name declared twice)."""
    unique("board", decl.name, decl.span, d.boards, decl)
    for name, label, span in decl.places:
        unique("zone", name, span, d.zones, _place_zone(decl, name, label, span))
    for row in decl.rows:
        for name, span in row:
            if name is not None:
                unique("zone", name, span, d.zones, _place_zone(decl, name, None, span))


def _shape_links(decl: A.BoardDecl) -> tuple[dict, list]:
    """(place -> (column, row), [(place, place), ...]) for a `grid:` or `hex:` layout. A hex's
    odd rows (the 2nd, 4th, ...) sit half a place to the right of the rows around them."""
    coords = {}
    for r, row in enumerate(decl.rows):
        for c, (name, _span) in enumerate(row):
            if name is not None:
                coords[name] = (c, r)
    at = {xy: name for name, xy in coords.items()}
    pairs = []
    for name, (c, r) in coords.items():
        if decl.shape == "grid":
            around = ((c + 1, r), (c, r + 1))
        else:
            shift = 0 if r % 2 == 0 else 1
            around = ((c + 1, r), (c - 1 + shift, r + 1), (c + shift, r + 1))
        for xy in around:
            other = at.get(xy)
            if other is not None:
                pairs.append((name, other))
    return coords, pairs


def _resolve(decl: A.BoardDecl, d: Declarations, sink: DiagnosticSink) -> Board | None:
    from .cards import _default         # the starting value of a field, as cards and players have it
    places = [name for name, _label, _span in decl.places]
    places += [name for row in decl.rows for name, _span in row if name is not None]
    if not places:
        sink.error("E0241", f"board '{decl.name}' has no places", decl.span,
                   "list them (places: Home, Ridge, Keep) or lay them out under grid: or hex: in rows "
                   "(| a1 | b1 |)")
        return None
    if len(places) > MAX_BOARD_PLACES:
        sink.error("E0242", f"board '{decl.name}' has {len(places):,} places, more than {MAX_BOARD_PLACES:,} "
                            "(the bound MAX_BOARD_PLACES)", decl.span,
                   "split the map into several boards, or stand for a region of it with one place")
        return None
    index = {}
    for name in places:
        index.setdefault(name, len(index))     # a place declared twice is E0102 (index_board)
    coords, pairs = _shape_links(decl) if decl.shape else ({}, [])
    for a, b, span in decl.links:
        bad = next((n for n in (a, b) if n not in index), None)
        if bad is not None:
            sink.error("E0240", f"'{bad}' is not a place of board '{decl.name}'", span,
                       suggest(bad, index) or f"the places of '{decl.name}' are "
                       + ", ".join(list(index)[:8]) + (", ..." if len(index) > 8 else ""))
            continue
        if a == b:
            sink.error("E0240", f"a link joins two places, but this one joins '{a}' to itself", span,
                       "write two different places: A - B")
            continue
        pairs.append((a, b))
    links = sorted({(min(index[a], index[b]), max(index[a], index[b])) for a, b in pairs})
    near: list[set] = [set() for _ in index]
    for i, j in links:
        near[i].add(j)
        near[j].add(i)
    labels = {name: label or name for name, label, _span in decl.places}
    for name in index:
        labels.setdefault(name, name)
    fields = {f.name: f for f in decl.fields}
    return Board(decl.name, decl.label, decl, tuple(index), labels, index,
                 tuple(tuple(sorted(n)) for n in near), tuple(links), coords,
                 fields, {f.name: f for f in decl.marks},
                 {f.name: _default(f, d, sink) for f in decl.fields},
                 {f.name: _default(f, d, sink) for f in decl.marks},
                 _values(decl, index, fields, d, sink))


def _values(decl: A.BoardDecl, index: dict, fields: dict, d: Declarations, sink: DiagnosticSink) -> dict:
    """`values:` — each place's own starting values, checked as a card table's cells are."""
    from .cards import literal
    if not decl.value_rows:
        return {}
    cols = list(decl.value_columns)
    where = decl.value_rows[0].span
    if not cols or cols[0] != "place":
        sink.error("E0246", "the first column of a board's values names the place", where,
                   "start the header with place: | place | tier |")
        return {}
    for col in cols[1:]:
        if col not in fields:
            sink.error("E0246", f"'{col}' is not a field of the places of board '{decl.name}'", where,
                       suggest(col, fields) or "declare it under: place has:")
            return {}
    out: dict = {}
    for row in decl.value_rows:
        if row.abilities or row.keywords:
            sink.error("E0246", "a place's row holds its values only, not abilities", row.span,
                       "give cards their abilities; a place has fields")
        if len(row.cells) != len(cols):
            sink.error("E0246", f"this row has {len(row.cells)} cells, the header {len(cols)}", row.span,
                       "give every row one cell per column (an empty cell keeps the default)")
            continue
        place = row.cells[0]
        name = place.name if isinstance(place, A.Name) else None
        if name not in index:
            span = place.span if place is not None else row.span
            sink.error("E0240", f"'{name or '(nothing)'}' is not a place of board '{decl.name}'", span,
                       suggest(name, index) if name else "write the place's name in the first cell")
            continue
        if name in out:
            sink.error("E0246", f"the values of '{name}' are given twice", row.span, "keep one row per place")
            continue
        out[name] = {col: literal(cell, fields[col], d, sink, f"field '{col}' of {name}")
                     for col, cell in zip(cols[1:], row.cells[1:]) if cell is not None}
    return out


def boards(d: Declarations, sink: DiagnosticSink) -> None:
    """Resolve every indexed board (`d.boards`: name -> BoardDecl) into its `Board`."""
    for name, decl in list(d.boards.items()):
        if not isinstance(decl, A.BoardDecl):
            continue
        seen: dict[str, A.Span] = {}
        for f in (*decl.fields, *decl.marks):
            if f.name in seen:
                sink.error("E0104", f"'{f.name}' is declared twice on the places of board '{name}'", f.span,
                           f"a place's field and a player's mark on it share one name space; rename one "
                           f"(the first is at line {seen[f.name].line})")
            seen.setdefault(f.name, f.span)
        board = _resolve(decl, d, sink)
        if board is None:
            del d.boards[name]
        else:
            d.boards[name] = board


def board_of(d: Declarations, zone: str) -> Board | None:
    """The board a zone is a place of, or None."""
    zd = d.zones.get(zone)
    return d.boards.get(zd.board) if zd is not None and zd.board is not None else None


def place_field(d: Declarations, name: str):
    """The declaration of the place field `name` on any board, or None."""
    for b in d.boards.values():
        if isinstance(b, Board) and name in b.fields:
            return b.fields[name]
    return None


def place_mark(d: Declarations, name: str):
    """The declaration of the players' mark `name` on any board's places, or None."""
    for b in d.boards.values():
        if isinstance(b, Board) and name in b.marks:
            return b.marks[name]
    return None


__all__ = ["Board", "board_of", "boards", "index_board", "place_field", "place_mark"]
