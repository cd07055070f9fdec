"""Closures of the board expressions (`the places adjacent to s`, `the places within 2 of s`,
`the places of map`, `the distance from a to b`, `the shortest path from a to b`, `the influence
of p on s`), a place's fields (`s's tier`), and the engine's side of changing a field or a mark.

Each `x_<Node>` here is a method of `ExprCompiler` (interpreter/compile_expr.py binds them
there, so the registry finds them as `ExprCompiler.x_<Node>`): `self` is the compiler, and each
returns a closure `fn(m, env)`. None is on a hot path: the generated code calls these closures
(interpreter/gen_expr.py's fallback).

A place is a shared zone (its key is its name). Its links come resolved from the checker
(dsl/checks/boards.py `Board.adjacent`: neighbours by position, ascending), so every search
below is a breadth-first search over at most MAX_BOARD_PLACES places that visits neighbours in
the order the places were declared: the same board gives the same answer, tie-breaks included.
Each search is counted as work (`charge`: places plus links), which the step bound MAX_STEPS
bounds.

Fields and marks live in `GameState.game` beside the game's attributes, under keys no designer
can write (a name has no dot): `Ridge.tier` for a field, `Ridge.influence.1` for seat 1's mark.
A key not there yet reads as the declared starting value, so a game starts with nothing stored.
"""
from __future__ import annotations

from cardsmith.dsl.checks.boards import Board

from .errors import RuleError, charge

NOT_A_PLACE = "E0850"


def places(decls) -> dict:
    """place (zone key) -> (Board, position): what every closure here looks a place up in."""
    out = {}
    for b in decls.boards.values():
        if isinstance(b, Board):
            for i, name in enumerate(b.places):
                out[name] = (b, i)
    return out


def _table(self) -> dict:
    cached = getattr(self, "_board_places", None)
    if cached is None:
        cached = places(self.d)
        self._board_places = cached
    return cached


def _place(table, key, span, what: str):
    """(Board, position) of the place `key`; a zone that is no place, or none, stops the game."""
    if key is None:
        raise RuleError(f"{what} met 'none' where it needs a place", span,
                        "check it first: if ... is not none:", code=NOT_A_PLACE)
    found = table.get(key)
    if found is None:
        raise RuleError(f"{what} needs a place of a board, but '{str(key).partition(':')[0]}' is a zone "
                        "that is not on one", span,
                        "give it a place: one of the board's places (the places of ...), or a card's zone "
                        "when the card lies on a place", code=NOT_A_PLACE)
    return found


def distances(board: Board, start: int) -> list[int]:
    """Links from `start` to every place (-1 where no path joins them): breadth first."""
    dist = [-1] * len(board.places)
    dist[start] = 0
    frontier = [start]
    while frontier:
        nxt = []
        for i in frontier:
            for j in board.adjacent[i]:
                if dist[j] < 0:
                    dist[j] = dist[i] + 1
                    nxt.append(j)
        frontier = nxt
    return dist


def _work(board: Board) -> int:
    return len(board.places) + len(board.links)


def path(board: Board, start: int, end: int) -> list[int]:
    """The positions of a shortest path from `start` to `end`, both included; [] if none. Of
    several, the one that steps to the earliest declared place at each step."""
    to_end = distances(board, end)
    if to_end[start] < 0:
        return []
    out = [start]
    while out[-1] != end:
        here = out[-1]
        out.append(next(j for j in board.adjacent[here] if to_end[j] == to_end[here] - 1))
    return out


def x_PlacesAdjacent(self, e, sc):
    """`the places adjacent to s`: one link away, in the order the places were declared."""
    at, table, span = self.compile(e.place, sc), _table(self), e.place.span

    def adjacent(m, env):
        board, i = _place(table, at(m, env), span, "'the places adjacent to'")
        names = board.places
        return [names[j] for j in board.adjacent[i]]
    return adjacent


def x_PlacesWithin(self, e, sc):
    """`the places within k of s`: the other places at most k links away, nearest first, then in
    the order declared."""
    k, at, table, span = self.compile(e.steps, sc), self.compile(e.place, sc), _table(self), e.span

    def within(m, env):
        n = k(m, env)
        if n is None:
            raise RuleError("'the places within ... of' met 'none' where it needs a number", e.steps.span,
                            "give it a number of links, e.g. the places within 2 of s")
        board, i = _place(table, at(m, env), e.place.span, "'the places within ... of'")
        charge(m, _work(board), span)
        dist = distances(board, i)
        found = [(d, j) for j, d in enumerate(dist) if 0 < d <= n]
        found.sort()
        return [board.places[j] for _d, j in found]
    return within


def x_PlacesOf(self, e, sc):
    """`the places of map`: every place of the board, in the order declared."""
    names = list(self.d.boards[e.board].places)
    return lambda m, env: list(names)


def x_DistanceBetween(self, e, sc):
    """`the distance from a to b`: the fewest links between them; 0 from a place to itself; none
    when no path joins them (on two boards, or parts of one board with no link between)."""
    return _distance(_table(self), self.compile(e.start, sc), self.compile(e.end, sc), e.start.span, e.end.span,
                     "'the distance from'", "'the distance from ... to'", e.span)


def _distance(table, a, b, a_span, b_span, a_what, b_what, span):
    """fn(m, env) -> the fewest links from place `a` to place `b`, none when no path joins them."""
    def distance(m, env):
        board, i = _place(table, a(m, env), a_span, a_what)
        other, j = _place(table, b(m, env), b_span, b_what)
        if other is not board:
            return None
        charge(m, _work(board), span)
        d = distances(board, i)[j]
        return None if d < 0 else d
    return distance


def x_ShortestPath(self, e, sc):
    """`the shortest path from a to b`: the places along it, a and b included; empty if none."""
    a, b, table, span = self.compile(e.start, sc), self.compile(e.end, sc), _table(self), e.span

    def shortest(m, env):
        board, i = _place(table, a(m, env), e.start.span, "'the shortest path from'")
        other, j = _place(table, b(m, env), e.end.span, "'the shortest path from ... to'")
        if other is not board:
            return []
        charge(m, _work(board), span)
        return [board.places[k] for k in path(board, i, j)]
    return shortest


def b_adjacent(self, e, sc, a):
    """`adjacent(s)`: as `the places adjacent to s` (a built-in of dsl/registry.py)."""
    table, span = _table(self), e.args[0].span

    def adjacent(m, env):
        board, i = _place(table, a(m, env), span, "'adjacent(...)'")
        names = board.places
        return [names[j] for j in board.adjacent[i]]
    return adjacent


def b_distance(self, e, sc, a):
    """`distance(a, b)`: as `the distance from a to b` (a built-in of dsl/registry.py)."""
    return _distance(_table(self), a, self.compile(e.args[1], sc), e.args[0].span, e.args[1].span,
                     "'distance(...)'", "'distance(...)'", e.span)


def _mark_key(place: str, name: str, seat: int) -> str:
    return f"{place}.{name}.{seat}"


def _has(board: Board, key: str, name: str, table_name: str, span):
    held = board.marks if table_name == "mark" else board.fields
    if name not in held:
        raise RuleError(f"'{key}', a place of board '{board.name}', has no {table_name} '{name}'", span,
                        f"declare it on board '{board.name}' "
                        + ("under: player on a place has:" if table_name == "mark" else "under: place has:"),
                        code=NOT_A_PLACE)


def toward_key(name: str, seat: int) -> str:
    """Where `player toward a player has:` keeps p's `name` toward the player in 0-based `seat`:
    in p's own attributes (so a view shows it), under `intel.2` for seat 2, a key no designer can
    write (a name has no dot)."""
    return f"{name}.{seat + 1}"


def _x_toward(self, e, sc):
    """`the intel of p on q`: p's attribute toward the player q (`player toward a player has:`)."""
    who, whom, name = self.compile(e.player, sc), self.compile(e.place, sc), e.name
    default = self.d.toward_defaults.get(name)

    def toward(m, env):
        p, q = who(m, env), whom(m, env)
        if p is None or q is None:
            return None
        return m.st.players[p].get(toward_key(name, q), default)
    return toward


def x_PlaceMark(self, e, sc):
    """`the influence of p on s`: p's mark on the place (its starting value until set); a name
    `player toward a player has:` declares is p's attribute toward the player s instead."""
    if e.name in self.d.toward_fields:
        return _x_toward(self, e, sc)
    who, at, table, name = self.compile(e.player, sc), self.compile(e.place, sc), _table(self), e.name

    def mark(m, env):
        p = who(m, env)
        key = at(m, env)
        board, _i = _place(table, key, e.place.span, f"'the {name} of ... on'")
        _has(board, key, name, "mark", e.span)
        if p is None:
            return None
        return m.st.game.get(_mark_key(key, name, p), board.mark_defaults[name])
    return mark


_UNSET = object()


def _field_table(self) -> dict:
    """place -> (its Board, {field: (the game attribute that holds its value once set, its
    starting value)}) for every place of every board: what `read_field` looks up, once per
    program."""
    cached = getattr(self, "_board_fields", None)
    if cached is None:
        cached = self._board_fields = {
            place: (board, {name: (f"{place}.{name}", board.start(place, name)) for name in board.fields})
            for place, (board, _i) in _table(self).items()}
    return cached


def read_field(m, z, name: str, fields: dict):
    """The field `name` of the place `z` (its starting value until set), none for no place; a
    zone that is no place, or a place without that field, stops the game. What `s's tier`
    reads, as a closure (`place_field`) and in generated code (interpreter/gen_expr.py):
    `fields` is the program's `_field_table`, so a read is two lookups; the errors' messages
    are made only when there is one."""
    if z is None:
        return None
    held = fields.get(z)
    if held is None:
        _place({}, z, None, f"'{name}' of a place")     # no place: its error
    got = held[1].get(name)
    if got is None:
        _has(held[0], z, name, "field", None)           # no such field: its error
    value = m.st.game.get(got[0], _UNSET)
    return got[1] if value is _UNSET else value


def place_field(self, owner_fn, name: str, key=None):
    """`s's tier` / `tier of s` / `s.tier`: a field of the place s (its starting value until set)."""
    table = _field_table(self)
    if key is not None:
        return lambda m, env: read_field(m, env[key], name, table)
    return lambda m, env: read_field(m, owner_fn(m, env), name, table)


def mark_setter(self, target, ctx):
    """`set the influence of p on s to ...`: (getter, (kind, owner, name), declaration) for
    compile_stmt's assignment; the owner is [place, seat]."""
    from cardsmith.dsl.checks.boards import place_mark
    getter = self.x.compile(target, ctx.sc)
    if target.name in self.d.toward_fields:     # `player toward a player has:`: owner [p, q]
        who_t, whom_t = self.x.compile(target.player, ctx.sc), self.x.compile(target.place, ctx.sc)

        def pair(m, env):
            p, q = who_t(m, env), whom_t(m, env)
            return None if p is None or q is None else [p, q]
        return getter, ("toward", pair, target.name), self.d.toward_fields[target.name]
    who, at, table = self.x.compile(target.player, ctx.sc), self.x.compile(target.place, ctx.sc), _table(self.x)

    def owner(m, env):
        p, key = who(m, env), at(m, env)
        board, _i = _place(table, key, target.place.span, f"'the {target.name} of ... on'")
        _has(board, key, target.name, "mark", target.span)
        return None if p is None else [key, p]
    return getter, ("mark", owner, target.name), place_mark(self.d, target.name)


def field_setter(self, owner_fn, name: str, span):
    """`set s's tier to ...`: (getter, (kind, owner, name), declaration); the owner is the place."""
    from cardsmith.dsl.checks.boards import place_field as declared
    table = _table(self.x)
    getter = place_field(self.x, owner_fn, name)

    def owner(m, env):
        z = owner_fn(m, env)
        if z is not None:
            board, _i = _place(table, z, span, f"'{name}' of a place")
            _has(board, z, name, "field", span)
        return z
    return getter, ("place", owner, name), declared(self.d, name)


def _shown(decls, place: str, name: str):
    """How the log writes a value of the field or mark `name` (log.attribute_type's kinds)."""
    from cardsmith.dsl.checks.boards import board_of
    board = board_of(decls, place)
    fd = board.fields.get(name) or board.marks.get(name)
    ref = fd.type
    shown = ("player" if ref.name == "player" else "zone" if ref.name == "zone"
             else "card" if ref.name == "card" or ref.name in decls.card_types else None)
    return ("list", shown) if ref.is_list and shown is not None else shown


def assign_place(m, kind: str, owner, name: str, value, span) -> bool:
    """The machine's `assign` for a place's field (`owner` the place) or a mark (`owner` [place,
    seat]): stored in the game's attributes under a key of its own, and logged."""
    from .reads import ATTRS
    if kind == "place":
        key, whose = f"{owner}.{name}", [owner, "'s "]
        what = f"{owner}'s {name}"
    else:
        place, seat = owner
        key = _mark_key(place, name, seat)
        player = m.log.player_name(seat) if m.log.on else str(seat)
        whose, what = [player, "'s "], f"{player}'s {name} on {place}"
    m.st.game[key] = value
    m.dirty |= ATTRS
    m.ver += 1              # a tabled modifier may read it (Machine._from_table)
    if m.log.on:
        shown = _shown(m.prog.decls, owner if kind == "place" else owner[0], name)
        m.log.emit(m, "set", span, {"what": what, "value": value if shown is None
                                    else m.log.typed(m, value, shown)},
                   whose + [f"{name}{'' if kind == 'place' else ' on ' + owner[0]} becomes ",
                            *m.log.typed_parts(m, value, shown, span)])
    return True


def assign_toward(m, owner, name: str, value, span) -> bool:
    """The machine's `assign` for `player toward a player has:` (`owner` [p, q]): kept in p's
    attributes under toward_key, and logged as "Ann's intel on Bob becomes 2"."""
    from .reads import ATTRS
    if owner is None:
        raise RuleError(f"there is no player here to set '{name}' of", span)
    p, q = owner
    m.st.players[p][toward_key(name, q)] = value
    m.dirty |= ATTRS
    m.ver += 1
    if m.log.on:
        player, other = m.log.player_name(p), m.log.player_name(q)
        m.log.emit(m, "set", span, {"what": f"{player}'s {name} on {other}", "value": value},
                   [player, "'s ", f"{name} on {other} becomes ", *m.log.typed_parts(m, value, None, span)])
    return True


__all__ = ["toward_key", "assign_toward", "x_PlacesAdjacent", "x_PlacesWithin", "x_PlacesOf", "x_DistanceBetween", "x_ShortestPath",
           "x_PlaceMark", "b_adjacent", "b_distance", "place_field", "mark_setter", "field_setter", "assign_place", "places", "path",
           "distances"]
