"""The checks of dice pools and limited supplies (bound as BodyChecker methods, pass 3).

    roll 7 White dice and 5 Black dice as pool attack, at most 10    -> attack: a list of dice
    roll 2 Black dice into attack        reroll d in attack          turn d in attack to [Critical]
    remove d from attack                 give out 3 minerals from mineral_supply to each player starting with first_player

A pool is a name given by `roll ... as pool` (E0460 otherwise); what a statement changes in it is
a die or a list of its dice (E0461); a face turned to is one of the game's dice's faces (E0462);
a supply is a game number handed out into a player number (E0463). A zone declared
`at most N, discard down into Z` (`discard_zones`, called by the declarations pass) needs its
`at most` and an owner (E0130) and a zone Z to discard into (E0131).
"""
from __future__ import annotations

from ..types import ANY, DIE, NUMBER, PLAYER, list_of, show, suggest

POOL_T = list_of(DIE)


def _die(self, name: str, span) -> None:
    if name not in self.d.dice:
        self._report("E0212", f"unknown die '{name}'", span, suggest(name, self.d.dice) or (
            f"declare it first with its faces, e.g. die {name}: [hit], [miss], [hit, hit]"))


def _pool(self, name: str, span, sc) -> None:
    t = sc.locals.get(name)
    if t is None or not (t == POOL_T or t == ANY or t == list_of(ANY)):
        pools = [n for n, lt in sc.locals.items() if lt == POOL_T]
        what = "is not known here" if t is None else f"is {show(t)}"
        self._report("E0460", f"'{name}' {what}, not a pool of dice", span,
                     suggest(name, pools) or f"roll the pool first: roll 3 White dice as pool {name}")


def _dice(self, e, sc) -> None:
    t = self.expr(e, sc)
    if t not in (DIE, ANY, POOL_T, list_of(ANY)):
        self._report("E0461", f"expected a die of a pool (or some of its dice), but this is {show(t)}", e.span,
                     "name the dice from the pool, e.g. you chooses d from attack, or attack where not it.rerolled")


def s_RollPoolStmt(self, s, sc):
    for n, die in s.groups:
        self.expr(n, sc, NUMBER)
        _die(self, die, s.span)
    if s.cap is not None:
        self.expr(s.cap, sc, NUMBER)
    self.bind(s.name, POOL_T, s.span, sc)


def s_RollIntoStmt(self, s, sc):
    self.expr(s.count, sc, NUMBER)
    _die(self, s.die, s.span)
    _pool(self, s.pool, s.span, sc)


def s_RerollStmt(self, s, sc):
    _dice(self, s.dice, sc)
    _pool(self, s.pool, s.span, sc)


def s_TurnDieStmt(self, s, sc):
    _dice(self, s.dice, sc)
    _pool(self, s.pool, s.span, sc)
    faces = {tuple(f) for decl in self.d.dice.values() for f in decl.faces}
    if tuple(s.face) not in faces:
        shown = "[" + ", ".join(s.face) + "]"
        known = sorted({"[" + ", ".join(f) + "]" for f in faces})
        self._report("E0462", f"no die of this game has the face {shown}", s.span,
                     suggest(shown, known) or ("the faces are " + ", ".join(known[:8]) if known
                                               else "declare a die with its faces: die D6: [one], [two], ..."))


def s_RemoveDiceStmt(self, s, sc):
    _dice(self, s.dice, sc)
    _pool(self, s.pool, s.span, sc)


def _each_amount(self, s, sc) -> None:
    """`give out <amount> ... to each player [p] starting with <start>`: the start is a player, and
    the amount a number in which `p` (when named) is each player in turn."""
    self.expr(s.start, sc, PLAYER)
    if s.each is not None and s.each not in sc.locals and s.each not in sc.event_params:
        self.bind_block_name(s.each, PLAYER, s.span, sc)
        sc.locals[s.each] = PLAYER          # each player's, in the amount only
        try:
            self.expr(s.amount, sc, NUMBER)
        finally:
            sc.locals.pop(s.each, None)
    else:
        if s.each is not None:
            self.bind_block_name(s.each, PLAYER, s.span, sc)     # E0215: the name is in use
        self.expr(s.amount, sc, NUMBER)


def s_HandOutStmt(self, s, sc):
    fd = self.d.player_fields.get(s.attr)
    if fd is None or fd.type.name != "number":
        numbers = [n for n, f in self.d.player_fields.items() if f.type.name == "number"]
        self._report("E0463", f"'{s.attr}' is not a number attribute of the players: nothing to give out into",
                     s.span, suggest(s.attr, numbers) or f"declare it: player has: {s.attr}: number = 0")
    gd = self.d.game_fields.get(s.supply)
    if gd is None or gd.type.name != "number":
        numbers = [n for n, f in self.d.game_fields.items() if f.type.name == "number"]
        self._report("E0463", f"'{s.supply}' is not a number of the game: it cannot be a supply", s.span,
                     suggest(s.supply, numbers) or f"declare the supply: game has: {s.supply}: number = 30")
    _each_amount(self, s, sc)


def discard_zones(d, sink) -> None:
    """`zone minerals: per player, public, at most 12, discard down into mineral_discard`: the
    zone's owner discards down to 12 after a move past it, into that zone (yours, when it is a
    zone per player; else the shared one)."""
    for z in d.zones.values():
        if z.discard_into is None or z.per_entity is not None:     # per an entity: E0141 (checks/entities.py)
            continue
        if z.capacity is None or not z.per_player:
            sink.error("E0130", f"'discard down into' needs a zone per player with 'at most N', and '{z.name}' is "
                       + ("shared" if not z.per_player else "not capped"), z.span,
                       f"e.g. zone {z.name}: per player, public, at most 12, discard down into {z.discard_into}")
        if z.discard_into not in d.zones or z.discard_into == z.name:
            sink.error("E0131", f"'{z.name}' discards down into '{z.discard_into}', which is "
                       + ("itself" if z.discard_into == z.name else "no zone of this game"), z.span,
                       suggest(z.discard_into, [n for n in d.zones if n != z.name])
                       or f"declare the zone: zone {z.discard_into}: shared, public")


def s_HandOutCardsStmt(self, s, sc):
    zd = self.d.zones.get(s.zone)
    if zd is None:
        self._report("E0207", f"unknown zone '{s.zone}'", s.span, suggest(s.zone, self.d.zones))
    elif not zd.per_player:
        self._report("E0205", f"'{s.zone}' is a shared zone, not one per player", s.span,
                     "cards are given out into a zone of each player, e.g. each player's hand")
    self._zone(s.source, sc)
    _each_amount(self, s, sc)
