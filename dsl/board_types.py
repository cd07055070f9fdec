"""The type rules of the board expressions (dsl/ast.py: PlacesAdjacent ... PlaceMark), bound
as `Typer` methods by dsl/types.py, so the registry finds them as `Typer.t_<Node>`.

A place is a zone (a shared one, named by the place), so a place's type is "zone" and a list
of places is a list of zones: `cards in s`, `move c to s` and `for each s in ...` need nothing
new. Whether a zone is a place is known when the game runs (E0850 otherwise), except where the
expression names the zone itself: `the places adjacent to hand` is E0243 here.
"""
from __future__ import annotations

from . import types as T


def _want_place(self, e, sc) -> None:
    t = self.infer(e, sc)
    if t not in (T.ZONE, T.ANY):
        self.report("E0408", f"expected a place of a board here, but this is {T.show(t)}", e.span,
                    "a place is a zone of a board: its name (Ridge), a name given to one (for each s in "
                    "the places of map) or a card's zone (zone of c)")
        return
    _name_is_a_place(self, e)


def _name_is_a_place(self, e) -> None:
    """E0243 where a zone that is no place of a board is named outright."""
    from .checks.boards import board_of
    if type(e).__name__ == "Name" and self.d.zones.get(e.name) is not None and board_of(self.d, e.name) is None:
        boards = [n for n in self.d.boards]
        self.report("E0243", f"'{e.name}' is a zone, not a place of a board", e.span,
                    (f"name a place of {', '.join(boards)}" if boards else "declare a board: board map: with places:"))


def t_PlacesAdjacent(self, e, sc):
    _want_place(self, e.place, sc)
    return T.list_of(T.ZONE)


def t_PlacesWithin(self, e, sc):
    self.want(e.steps, T.NUMBER, sc)
    _want_place(self, e.place, sc)
    return T.list_of(T.ZONE)


def t_PlacesOf(self, e, sc):
    if e.board not in self.d.boards:
        self.report("E0244", f"unknown board '{e.board}'", e.span,
                    T.suggest(e.board, self.d.boards) or "declare it: board map: with places: and links:")
    return T.list_of(T.ZONE)


def t_DistanceBetween(self, e, sc):
    _want_place(self, e.start, sc)
    _want_place(self, e.end, sc)
    return T.NUMBER


def t_ShortestPath(self, e, sc):
    _want_place(self, e.start, sc)
    _want_place(self, e.end, sc)
    return T.list_of(T.ZONE)


def t_PlaceMark(self, e, sc):
    from .checks.boards import place_mark
    self.want(e.player, T.PLAYER, sc)
    toward = self.d.toward_fields.get(e.name)
    if toward is not None:          # `player toward a player has:`: p's attribute toward the player q
        self.want(e.place, T.PLAYER, sc)
        return self.field_type(toward)
    _want_place(self, e.place, sc)
    fd = place_mark(self.d, e.name)
    if fd is None:
        marks = sorted({m for b in self.d.boards.values() for m in getattr(b, "marks", ())} | set(self.d.toward_fields))
        self.report("E0245", f"no board gives players a mark '{e.name}' on its places, and no "
                             f"'player toward a player has:' declares it", e.span,
                    T.suggest(e.name, marks) or "declare it on the board: player on a place has: (or, toward "
                    f"other players, player toward a player has:) with {e.name}: number = 0 on an indented line")
        return T.ANY
    return self.field_type(fd)


def builtin_place(self, b, e, arg_types):
    """`adjacent(s)`, `distance(a, b)`: `b.arity` places (dsl/registry.py), as the board forms."""
    if len(e.args) != b.arity:
        self.report("E0302", f"'{e.name}' takes {b.arity} place{'s' if b.arity > 1 else ''}, got "
                             f"{len(e.args)} argument{'' if len(e.args) == 1 else 's'}", e.span, b.example)
        return T.ANY
    for a, t in zip(e.args, arg_types):
        if t not in (T.ZONE, T.ANY):
            self.report("E0408", f"expected a place of a board here, but this is {T.show(t)}", a.span,
                        "a place is a zone of a board: its name (Ridge), or a name given to one")
        else:
            _name_is_a_place(self, a)
    return T.list_of(T.ZONE) if b.gives == "places" else T.NUMBER


def place_field_type(self, name: str):
    """The type of the place field `name` (`place has:`), or None when no board declares it."""
    from .checks.boards import place_field
    fd = place_field(self.d, name)
    return None if fd is None else self.field_type(fd)


__all__ = ["t_PlacesAdjacent", "t_PlacesWithin", "t_PlacesOf", "t_DistanceBetween", "t_ShortestPath",
           "t_PlaceMark", "place_field_type", "builtin_place"]
