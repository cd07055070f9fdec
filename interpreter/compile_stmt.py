"""Statements → flat instruction lists (`Code`) for the step machine.

Control flow becomes jumps, so where a game stands is just a Frame (code id, pc, env): plain data
that saves and restores at any decision. An instruction is `op(m, frame)`; it may move the
frame's pc (jumps), push a frame (procedure calls, triggers) or stop the machine at a decision.
An op that calls a machine primitive returns what the primitive returns — True when it may
have pushed a frame, stopped, or changed what an end check reads — and the run loop looks at
the machine's flags only after such an op; plain ops (jumps, tests, lets) return None.
Each `s_<Node>` method names the AST node it compiles.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from cardsmith.dsl import ast as A
from cardsmith.dsl.registry import STATEMENT, dispatch
from cardsmith.dsl.types import ANY, CARD, PLAYER, ZONE, Scope, is_list, is_part, part_decl

from cardsmith.dsl.registry import ELIMINATED, FLIPPED, MOVED, REVEALED, STEP_ENDED, STEP_STARTED, TURN_STARTED

from . import compile_scenario as _scn
from . import compile_dice as _dice
from . import compile_entities as _ents
from . import compile_boards as _boards
from . import parts as _parts
from .blocks import Snippet
from .compile_expr import no_zone
from .compile_positions import NONE_NUMBER_HINT
from .errors import RuleError
from .gen_expr import Gen
from .reads import ATTRS, OUT, ZONES
from .triggers import REPLACED


@dataclass
class Code:
    """One compiled rule body: instructions, the span each came from, what each does in words,
    and what rule it is.

    `descs[pc]` describes `ops[pc]` for `cardsmith explain` (interpreter/explain.py): a tuple
    whose first item is the op's name and the rest its operands, written out one after the
    other — a str as it is, an AST node as its source text, a tuple of nodes as a comma list,
    a one-item list as a jump target (the box the compiler patches; shown as a label L1, L2 …).
    It is built beside the op at compile time and never read while a game runs.
    """
    id: int
    name: str                     # "procedure refill", "round Harvest", "Lantern: when dusk"
    ops: list = field(default_factory=list)
    spans: list = field(default_factory=list)
    descs: list = field(default_factory=list)
    srcs: list = field(default_factory=list)      # the op as a blocks.Snippet of source, or None
    fast: list = field(default_factory=list)      # per pc, its fused block once built (interpreter/blocks.py)
    sizes: list = field(default_factory=list)     # per pc, how many ops that block runs at most

    def emit(self, op, span, desc: tuple | None = None, src: Snippet | None = None) -> int:
        self.ops.append(op)
        self.spans.append(span)
        self.descs.append(desc)
        self.srcs.append(src)
        self.fast.append(None)
        self.sizes.append(0)
        return len(self.ops) - 1

    def here(self) -> int:
        return len(self.ops)


@dataclass
class Ctx:
    code: Code
    sc: Scope
    loops: list = field(default_factory=list)     # [(break patch list, step depth at loop start)]
    steps: int = 0
    uid: list = field(default_factory=lambda: [0])

    def fresh(self, stem: str) -> str:
        self.uid[0] += 1
        return f"${stem}{self.uid[0]}"


def quote(text) -> str:
    """A text operand as the designer wrote it: in double quotes."""
    return f'"{text}"'


def _jump(target_box):
    def jump(m, fr):
        fr.pc = target_box[0]
    return jump


def _goto(box) -> Snippet:
    return Snippet((("goto", box, ""),), ends=True, pc=False, effect=(0, ()))


def _end_step(ks: str) -> Snippet:
    """A step's end as source: what `Machine.end_step` does when no rule listens to `step_ended`
    (the step's name dropped: no frame's pc read, so none set, `Snippet.lazy`), else the call,
    which announces it."""
    return Snippet((f"if {STEP_ENDED!r} not in m.listened:",
                    "    _t = m.st.step_path",
                    "    if _t: _t.pop()",
                    "else:",
                    ("pc", None, "    "),
                    ("watch", f"m.end_step({ks})", "    ")), effect=(0, (STEP_ENDED,)), lazy=True)


def skip_step(m, kind: str, name: str, span) -> None:
    """`skip step "Name"` was said: this step does not happen (its begin instruction jumps past it)."""
    m.st.skips.remove(name)
    if m.log.on:
        m.log.emit(m, "skip", span, {"name": name}, f"{kind} {name} is skipped")


def _quiet_move(many: bool, place: str, face, span: str, *, typed: bool = False, top: str | None = None,
                clear: str | None = None, seat: str = "any") -> tuple:
    """A move as source where nobody watches moves but the log and the tally's card tracking
    (`Machine.quiet`, `Machine.noted`, set by `Machine.move`) and the zone is not capped
    (`Machine.plain`, its owner's seat): `Machine.move`'s loop written out, one card or, for a
    list, each in turn, then, where they watch, what it tells the log and the tally (`noted1`,
    `noted_all`: several cards; a list of one goes to `Machine.move`, which tells them as one
    card); any other move falls to the `else:` that calls `Machine.move`. Lines indented 4, to
    follow `_k = <zone>`; the value is in `_w` either way.

    What the model says leaves tests out, never changes where a card ends or what is told:
    `typed`: the value is a card (its type is `card`), or a list (`many`), so no `isinstance`;
    `top`: one card that is the last (`top`) or first card of the list `_mh` (the zone it lies
    in): it is popped, not looked for; `clear`: a list that is every card of some zones (`"_mh"`:
    the one zone's list in `_mh`; `"_mzs"`: their keys, in `_mzs`), so those zones are emptied and
    the cards put down at once, in the order `Machine.move`'s loop leaves them (the destination
    may be one of those zones: it is emptied first); `seat`: what the destination's seat is,
    known from its declaration: "none" (a shared zone: no card gets an owner there), "int" (a
    zone per player or entity: its seat, `m.plain[_k]`, is read only for a card that has no owner
    yet), else "any" (`_mo`, tested).
    """
    put = "insert(0, {})" if place == "bottom" else "append({})"
    up = None if face is None else face == "up"
    # the zone is plain (no cap: `Machine.plain`, or `plain_down` for a card laid face down, which
    # reveals it to nobody) and, where its seat is not known, `_mo` is its seat
    zones = "m.plain_down" if face == "down" else "m.plain"
    plain = f"_k in {zones}" if seat != "any" else f"(_mo := {zones}.get(_k, False)) is not False"
    own1 = {"none": (), "int": (f"        if _mt.owner[_c] is None: _mt.owner[_c] = {zones}[_k]",),
            "any": ("        if _mo is not None and _mt.owner[_c] is None: _mt.owner[_c] = _mo",)}[seat]
    own_each = {"none": (), "int": ("                if _mn[_mc] is None: _mn[_mc] = _mo",),
                "any": ("                if _mo is not None and _mn[_mc] is None: _mn[_mc] = _mo",)}[seat]
    owner = seat != "none"
    own_load = (("            _mn = _mt.owner",) + ((f"            _mo = {zones}[_k]",) if seat == "int" else ())
                if owner else ())
    if not many:
        head = "((_mq := m.quiet is m.st) or m.noted is m.st)"
        if not typed:
            head += " and not isinstance(_c, list)"
        if top is not None:
            take = ("        if not _mq:",
                    "            _ms = _my[_c]",
                    "            _mu = _mt.face_up[_c]",
                    f"        _mh.pop({'' if top == 'top' else '0'})")
        else:
            take = ("        _ms = _my[_c]",
                    "        _mu = _mt.face_up[_c]",
                    "        _mh = m.zones[_ms]",
                    "        if _mh[-1] == _c: _mh.pop()",
                    "        else: _mh.remove(_c)")
        # the zone first: where it is not plain (public where `revealed` listens, capped), the
        # machine's state is not looked at; both tests only read, and the body needs both
        return (f"    if {plain} and {head}:",
                "        _mt = m.st",
                "        _my = _mt.card_zone",
                *take,
                f"        m.zones[_k].{put.format('_c')}",
                "        _my[_c] = _k",
                *((f"        _mt.face_up[_c] = {up!r}",) if up is not None else ()),
                *own1,
                f"        m.dirty |= {ZONES}",
                "        m.ver += 1",
                # (no tally: only the log watches, told at once, a call fewer)
                "        if not _mq:",
                f"            if m.tally is None: m.log.moved(m, _c, _ms, _mu, _k, {place!r}, {face!r}, {span})",
                f"            else: m.noted1(_c, _ms, _mu, _k, {place!r}, {face!r}, {span})",
                "        _w = True")
    head = "((_mq := m.quiet is m.st) or (m.noted is m.st and len(_c) > 1))"
    if not typed:
        head = "isinstance(_c, list) and " + head
    if clear is not None:
        # every card of the source zones moves: empty them, then put the cards down in the order
        # the loop would (at the bottom, one at a time: the list reversed)
        per_card = (*((f"                _mf[_mc] = {up!r}",) if up is not None else ()), *own_each)
        body = ("            _mz = m.zones",
                "            _mt = m.st",
                "            _my = _mt.card_zone",
                *(("            _mf = _mt.face_up",) if up is not None else ()),
                *own_load,
                "            if not _mq: _mss = [_my[_mc] for _mc in _c]",
                *(("            _mh.clear()",) if clear == "_mh" else
                  (f"            for _ms in {clear}: _mz[_ms].clear()",)),
                ("            _mz[_k].extend(_c)" if place != "bottom" else "            _mz[_k][:0] = _c[::-1]"),
                *(("            for _mc in _c:",
                   "                _my[_mc] = _k",
                   *per_card) if per_card else
                  ("            for _mc in _c: _my[_mc] = _k",)))
    else:
        body = ("            _mz = m.zones",
                "            _mt = m.st",
                "            _my = _mt.card_zone",
                *(("            _mf = _mt.face_up",) if up is not None else ()),
                *own_load,
                "            _md = _mz[_k]",
                "            _mss = []",
                "            for _mc in _c:",
                "                _ms = _my[_mc]",
                "                _mh = _mz[_ms]",
                "                if _mh[-1] == _mc: _mh.pop()",
                "                else: _mh.remove(_mc)",
                "                if not _mq: _mss.append(_ms)",
                f"                _md.{put.format('_mc')}",
                "                _my[_mc] = _k",
                *((f"                _mf[_mc] = {up!r}",) if up is not None else ()),
                *own_each)
    return (f"    if {plain} and {head}:",
            "        if _c:",
            *body,
            f"            m.dirty |= {ZONES}",
            "            m.ver += 1",
            "            if not _mq:",
            f"                if m.tally is None: m.log.move(m, _c, _mss, _k, {place!r}, {face!r}, {span})",
            f"                else: m.noted_all(_c, _mss, _k, {place!r}, {face!r}, {span})",
            "            _w = True",
            "        else: _w = None")


def _part_fd(d, part_t, name):
    """The declaration of field `name` of the parts `part_t` names (its bounds clamp a set)."""
    pd = part_decl(d, part_t[1])
    return next((f for f in pd.fields if f.name == name), None) if pd is not None else None


class StmtCompiler:
    def __init__(self, program, exprs, gen):
        self.p = program
        self.x = exprs
        self.g = gen                # interpreter/gen_expr.py: expressions as source, for the snippets
        self.d = program.game.decls
        # Which codes' envs may hold `$you` / `$this` (`s_CallStmt`): an ability's always; the
        # setup's, a round's, an end check's, a scenario's (`_bare`) and a procedure's only once
        # they are `_open`: one of them sets `$you` (a secret choice), or an open code calls the
        # procedure. Until then a call there is written without passing them on, and kept in
        # `_lean` (code id -> [(pc, the full snippet)]) with its callee (`_callees`), to be put
        # back if the code opens. Every code is compiled before a game runs (`Program`).
        self._open: set = set()
        self._lean: dict = {}
        self._callees: dict = {}

    def block(self, body, ctx: Ctx) -> None:
        for st in body:
            _COMPILE[type(st)](self, st, ctx)

    def cx(self, e, ctx):
        return self.x.compile(e, ctx.sc)

    # The snippets (interpreter/blocks.py): the same instruction as source, built beside its closure.
    def gx(self, e, ctx, g: Gen) -> str:
        return self.g.src(e, ctx.sc, g)

    def gt(self, e, ctx) -> str:
        """`e` as the test of an `if` / `while` (only its truth asked): an and / or / not of tests
        written bare (`ExprGen.test`), not as the value `True` / `False`."""
        return self.g.test(e, ctx.sc, Gen())

    def k(self, obj) -> str:
        """A generated name bound to `obj` (a span, a prompt, a list) in the program's namespace."""
        return self.g.pool.ref(obj)

    # ------------------------------------------------------------------ effects
    def s_DocItem(self, s, ctx):
        pass

    def s_MoveStmt(self, s, ctx):
        what, to = self.cx(s.what, ctx), self.cx(s.to, ctx)
        place = s.place or "top"
        face = s.face
        span = s.span

        def move(m, fr):
            env = fr.env
            cards = what(m, env)
            if cards is None:
                return
            key = to(m, env)
            if key is None:
                raise no_zone(s.to.span)
            return m.move(cards if isinstance(cards, list) else [cards], key, place, face, span)
        g = Gen()
        t = self.x.type_of(s.what, ctx.sc)
        many = is_list(t)
        pre, value, shape = self._move_source(s.what, many, ctx, g)
        ks = self.k(span)
        src = Snippet((*pre,
                       *(() if value == "_c" else (f"_c = {value}",)),
                       # (the cards of zones are a list: Python compiles `if True:` to no test)
                       "if True:" if "clear" in shape else "if _c is not None:",
                       f"    _k = {self.gx(s.to, ctx, g)}",
                       f"    if _k is None: _raise_no_zone({self.k(s.to.span)})",
                       *_quiet_move(many, place, face, ks, typed=many or t == CARD, seat=self._seat(s.to, ctx),
                                    **shape),
                       "    else:",
                       f"        _w = m.move({'_c' if many else '[_c]' if t == CARD else '_c if isinstance(_c, list) else [_c]'}, "
                       f"_k, {place!r}, {face!r}, {ks})",
                       # the moves written out change nothing an end check reads unless it reads the
                       # zones: where it does not, only Machine.move's way is watched (blocks.py)
                       ("watchz", (ZONES, False), "        "),
                       ("watchz", (ZONES, True), "    ")),
                      # a card laid face down is revealed to nobody: `blocks.flat` may leave REVEALED out
                      effect=(ZONES, (MOVED, REVEALED), "down") if face == "down" else (ZONES, (MOVED, REVEALED)))
        ctx.code.emit(move, span, ("move", s.what, " → ", f"{s.place} of " if s.place else "", s.to,
                                   f" face {face}" if face else ""), src)

    def _move_source(self, e, many: bool, ctx, g) -> tuple:
        """(lines before, the moved value's source, what `_quiet_move` may know of where the cards
        lie): `top card of Z` is the last of Z's list, held in `_mh` (`g_TopCard`'s meaning, its
        list named); `cards in Z` is all of Z's list, and `cards in every Z` all of those zones'
        (`g_CardsIn`'s meaning); any other value as `ExprGen.src` writes it."""
        sc, x = ctx.sc, self.x
        if not many and isinstance(e, A.TopCard) and x.type_of(e, sc) == CARD:
            g.depth += 1
            h = self.g.local_held(e.zone, sc, g) or self.g.held(e.zone, sc, g)
            g.depth -= 1
            return (f"_mh = {h}",), f"(_mh[{-1 if e.place == 'top' else 0}] if _mh else None)", {"top": e.place}
        if many and isinstance(e, A.CardsIn):
            zt = x.type_of(e.zone, sc)
            if zt == ZONE:
                g.depth += 1
                h = self.g.local_held(e.zone, sc, g) or self.g.held(e.zone, sc, g)
                g.depth -= 1
                return (f"_mh = {h}",), "list(_mh)", {"clear": "_mh"}
            if (isinstance(e.zone, A.EveryZone) and e.zone.name in self.d.zones
                    and self.d.zones[e.zone.name].per_entity is None and self.g.nn(e.zone, sc, g)):
                keys = self.g.src(e.zone, sc, g)
                # (gathered zone by zone, in their order: no comprehension's frame for a few zones)
                return ((f"_mzs = {keys}", "_c = []", "for _ms in _mzs: _c += m.zones[_ms]"), "_c",
                        {"clear": "_mzs"})
        return (), self.gx(e, ctx, g), {}

    def _seat(self, to, ctx) -> str:
        """What the seat of zone `to` is (`_quiet_move`'s `seat`), from the declaration it names:
        a shared zone's key has none, a zone per player's or per entity's key a seat (`key_seat`)."""
        if isinstance(to, A.Name) and self.x.kind_of(to, ctx.sc) == "zone":     # written as its key
            zd = self.d.zones.get(to.name)
            if zd is not None and not zd.per_player and zd.per_entity is None:
                return "none"
        elif isinstance(to, (A.Possessive, A.Your)) and self.x.type_of(to, ctx.sc) == ZONE and (
                isinstance(to, A.Your) or self.x.type_of(to.owner, ctx.sc) == PLAYER):     # a player's zone
            zd = self.d.zones.get(to.name)
            if zd is not None and zd.per_player:
                return "int"
        return "any"

    def s_ShuffleStmt(self, s, ctx):
        z = self.cx(s.zone, ctx)
        span = s.span

        def shuffle(m, fr):
            key = z(m, fr.env)
            if key is None:
                raise no_zone(s.zone.span)
            return m.shuffle(key, span)
        src = Snippet((f"_k = {self.gx(s.zone, ctx, Gen())}",
                       f"if _k is None: _raise_no_zone({self.k(s.zone.span)})",
                       ("watch", f"m.shuffle(_k, {self.k(span)})", "")), effect=(ZONES, ()))
        ctx.code.emit(shuffle, span, ("shuffle", s.zone), src)

    def s_FlipStmt(self, s, ctx):
        what = self.cx(s.what, ctx)
        up = s.face == "up"
        span = s.span

        def flip(m, fr):
            cards = what(m, fr.env)
            if cards is None:
                return
            return m.flip(cards if isinstance(cards, list) else [cards], up, span)
        src = Snippet((f"_c = {self.gx(s.what, ctx, Gen())}",
                       "if _c is not None:",
                       ("watch", f"m.flip(_c if isinstance(_c, list) else [_c], {up!r}, {self.k(span)})", "    ")),
                      effect=(ZONES, (FLIPPED, REVEALED)))
        ctx.code.emit(flip, span, ("flip", s.what, f" face {s.face}"), src)

    def _setter(self, target, ctx):
        """(getter, setter(m, env, value), bounds) for an assignable target."""
        sc = ctx.sc
        if isinstance(target, A.PlaceMark):     # a player's mark on a place (interpreter/compile_boards.py)
            return _boards.mark_setter(self, target, ctx)
        if isinstance(target, A.Name):
            kind = self.x.kind_of(target, sc)
            n = target.name
            if kind == "game_attr":
                fd = self.d.game_fields[n]
                return (lambda m, env: m.st.game[n]), ("game", None, n), fd
            key = "$this" if kind == "this_field" else "$it"
            return (lambda m, env: m.cards[env[key]].get(n)), ("card", lambda m, env: env[key], n), self._card_fd(n)
        if isinstance(target, (A.Possessive, A.Your)):
            owner = (lambda m, env: env["$you"]) if isinstance(target, A.Your) else self.cx(target.owner, ctx)
            owner_t = PLAYER if isinstance(target, A.Your) else self.x.type_of(target.owner, sc)
            n = target.name
            if owner_t == PLAYER:
                fd = self.d.player_fields.get(n)
                return (lambda m, env: m.players[owner(m, env)][n]), ("player", owner, n), fd
            if owner_t == ZONE:                 # a place's field
                return _boards.field_setter(self, owner, n, target.span)
            if is_part(owner_t):                # a part of a card's field (interpreter/parts.py)
                return _parts.reader(owner, n), ("part", owner, n), _part_fd(self.d, owner_t, n)
            if owner_t.__class__ is tuple and owner_t[0] == "entity":     # interpreter/entities.py
                return _ents.setter(owner, n, target.span, self.d, owner_t[1], target.owner)
            return (lambda m, env: m.cards[owner(m, env)].get(n)), ("card", owner, n), self._card_fd(n)
        if isinstance(target, A.FieldAccess):
            obj = self.cx(target.obj, ctx)
            t = self.x.type_of(target.obj, sc)
            n = target.name
            if t == PLAYER:
                return (lambda m, env: m.players[obj(m, env)][n]), ("player", obj, n), self.d.player_fields.get(n)
            if t == ZONE:
                return _boards.field_setter(self, obj, n, target.span)
            if is_part(t):
                return _parts.reader(obj, n), ("part", obj, n), _part_fd(self.d, t, n)
            if t.__class__ is tuple and t[0] == "entity":
                return _ents.setter(obj, n, target.span, self.d, t[1])
            return (lambda m, env: m.cards[obj(m, env)].get(n)), ("card", obj, n), self._card_fd(n)
        raise RuleError("this cannot be changed", target.span)

    def _setter_src(self, target, ctx, g):
        """(getter source, kind, owner source or None, name): `_setter`'s parts as source; None for
        a place's field or a mark, which the closure changes (interpreter/compile_boards.py)."""
        sc = ctx.sc
        if isinstance(target, A.PlaceMark) or (
                isinstance(target, (A.Possessive, A.FieldAccess))
                and ((ot := self.x.type_of(target.owner if isinstance(target, A.Possessive) else target.obj, sc)) == ZONE
                     or is_part(ot)         # a part's field: the closure sets it (interpreter/parts.py)
                     or (ot.__class__ is tuple and ot[0] == "entity"))):     # an entity's (interpreter/entities.py)
            return None
        if isinstance(target, A.Name):
            n = target.name
            if self.x.kind_of(target, sc) == "game_attr":
                return f"m.st.game[{n!r}]", "game", None, n
            key = "$this" if self.x.kind_of(target, sc) == "this_field" else "$it"
            return f"m.cards[env[{key!r}]].get({n!r})", "card", f"env[{key!r}]", n
        if isinstance(target, (A.Possessive, A.Your)):
            owner = "env['$you']" if isinstance(target, A.Your) else self.gx(target.owner, ctx, g)
            owner_t = PLAYER if isinstance(target, A.Your) else self.x.type_of(target.owner, sc)
        else:
            owner, owner_t = self.gx(target.obj, ctx, g), self.x.type_of(target.obj, sc)
        n = target.name
        if owner_t == PLAYER:
            return f"m.players[{owner}][{n!r}]", "player", owner, n
        return f"m.cards[{owner}].get({n!r})", "card", owner, n

    def _resets_each(self, period: str) -> bool:
        """Whether some attribute is declared `, reset each <period>` (it changes as one begins)."""
        d = self.d
        fields = [*d.game_fields.values(), *d.player_fields.values(),
                  *(f for ct in d.card_types.values() for f in ct.fields)]
        return any(f.reset == period for f in fields)

    def _card_fd(self, name):
        for ct in self.d.card_types.values():
            for f in ct.fields:
                if f.name == name:
                    return f
        return None

    def _assign_op(self, target, value_fn, ctx, span, mode, value):
        get, (kind, owner, name), fd = self._setter(target, ctx)
        lo = fd.at_least if fd is not None else None
        hi = fd.at_most if fd is not None else None

        def assign(m, fr):
            env = fr.env
            v = value_fn(m, env)
            if owner is not None and owner(m, env) is None:   # a field of none: there is nothing to change
                raise RuleError(f"there is no {kind} here to change '{name}' of: this is none", target.span,
                                "check it first: if ... is not none:")
            if mode != "set":
                old = get(m, env)
                if old is None or v is None:
                    raise RuleError("arithmetic met 'none' where it needs a number", span, NONE_NUMBER_HINT)
                v = old + v if mode == "add" else old - v
            if lo is not None and v is not None and v < lo:
                v = lo
            if hi is not None and v is not None and v > hi:
                v = hi
            return m.assign(kind, owner(m, env) if owner is not None else None, name, v, span)
        # the same, as source: every part evaluated as often and in the same order as above
        g = Gen()
        value_src = self.gx(value, ctx, g)
        parts = self._setter_src(target, ctx, g)
        if parts is None:
            ctx.code.emit(assign, span, (mode, target, " ← " if mode == "set" else " += " if mode == "add" else " -= ",
                                         value))
            return
        get_src, kind_s, owner_src, name_s = parts
        lines = [f"_v = {value_src}"]
        if owner_src is not None:
            lines.append(f"if {owner_src} is None: raise RuleError("
                         f"{self.k(f'there is no {kind} here to change {name!r} of: this is none')}, "
                         f"{self.k(target.span)}, {self.k('check it first: if ... is not none:')})")
        if mode != "set":
            lines += [f"_o = {get_src}",
                      f"if _o is None or _v is None: raise _none_arith({self.k(span)})",
                      f"_v = _o {'+' if mode == 'add' else '-'} _v"]
        if lo is not None:
            lines.append(f"if _v is not None and _v < {lo!r}: _v = {lo!r}")
        if hi is not None:
            lines.append(f"if _v is not None and _v > {hi!r}: _v = {hi!r}")
        lines.append(("watch", f"m.assign({kind_s!r}, {owner_src if owner_src is not None else 'None'}, "
                               f"{name_s!r}, _v, {self.k(span)})", ""))
        src = Snippet(tuple(lines), effect=(ATTRS, ())) if all(isinstance(b, int) for b in (lo, hi) if b is not None) else None
        ctx.code.emit(assign, span, (mode, target, " ← " if mode == "set" else " += " if mode == "add" else " -= ",
                                     value), src)

    def s_SetStmt(self, s, ctx):
        self._assign_op(s.target, self.cx(s.value, ctx), ctx, s.span, "set", s.value)

    def s_AddStmt(self, s, ctx):
        self._assign_op(s.target, self.cx(s.amount, ctx), ctx, s.span, "add", s.amount)

    def s_SubtractStmt(self, s, ctx):
        self._assign_op(s.target, self.cx(s.amount, ctx), ctx, s.span, "subtract", s.amount)

    def s_LetStmt(self, s, ctx):
        v = self.cx(s.value, ctx)
        ctx.sc.locals[s.name] = self.x.type_of(s.value, ctx.sc)
        n = s.name

        def let(m, fr):
            env = fr.env
            env[n] = v(m, env)
        src = Snippet((f"env[{n!r}] = {self.gx(s.value, ctx, Gen())}",), pc=False, effect=(0, ()))
        ctx.code.emit(let, s.span, ("let", n, " ← ", s.value), src)

    def s_ChooseStmt(self, s, ctx):
        player, options = self.cx(s.player, ctx), self.cx(s.options, ctx)
        t = self.x.type_of(s.options, ctx.sc)
        ctx.sc.locals[s.name] = t[1] if is_list(t) else ANY
        prompt = s.prompt or f"Choose {s.name}"
        n, span = s.name, s.span
        kind = t[1] if is_list(t) else ANY

        def choose(m, fr):
            env = fr.env
            return m.ask(player(m, env), prompt, options(m, env), n, kind, span)
        g = Gen()
        src = Snippet((("watch", f"m.ask({self.gx(s.player, ctx, g)}, {self.k(prompt)}, {self.gx(s.options, ctx, g)}, "
                                 f"{n!r}, {self.k(kind)}, {self.k(span)})", ""),))
        ctx.code.emit(choose, span, ("ask", s.player, f": choose {n} from ", s.options, f" — {quote(prompt)}"), src)

    def s_MayStmt(self, s, ctx):
        player = self.cx(s.player, ctx)
        var = ctx.fresh("may")
        prompt, span = s.prompt, s.span

        def may(m, fr):
            return m.ask(player(m, fr.env), prompt, [True, False], var, "flag", span)
        src = Snippet((("watch", f"m.ask({self.gx(s.player, ctx, Gen())}, {self.k(prompt)}, [True, False], {var!r}, "
                                 f"'flag', {self.k(span)})", ""),))
        ctx.code.emit(may, span, ("ask", s.player, f": yes or no → {var} — {quote(prompt)}"), src)
        end = [0]

        def skip_unless(m, fr):
            if not fr.env.pop(var):
                fr.pc = end[0]
        ctx.code.emit(skip_unless, span, ("jump_if_not", var, " → ", end),
                      Snippet((f"if not env.pop({var!r}):", ("goto", end, "    ")), pc=False, effect=(0, ())))
        self.block(s.body, ctx)
        end[0] = ctx.code.here()

    def s_AnnounceStmt(self, s, ctx):
        ev = self.d.events[s.event]
        names = [p.name for p in ev.params]
        pairs = list(zip(names, [self.cx(a, ctx) for a in s.args]))
        event, span = s.event, s.span

        def announce(m, fr):
            env = fr.env
            params = {}
            for n, a in pairs:      # a loop, not a comprehension: no call for a comprehension's frame
                params[n] = a(m, env)
            return m.announce(event, params, span)
        g = Gen()
        args_src = [self.gx(a, ctx, g) for a in s.args]
        params_src = ", ".join(f"{n!r}: {a}" for n, a in zip(names, args_src))
        ks = self.k(span)
        # `announce_all` of the one parameter set, as `Machine.announce` calls it: one call fewer;
        # where only triggers answer the event and nothing keeps it, its `one` (Triggers.quiet_ones)
        # given the values, in the same order, without their dict: one of the two runs, either
        # evaluating the arguments once
        one = f"_ev(m, {ks}{''.join(', ' + a for a in args_src)})"
        src = Snippet((("watch", f"({one} if (_ev := m.quiet_ones.get({event!r})) is not None else "
                                 f"m.announce_all({event!r}, ({{{params_src}}},), {ks}))", ""),))
        ctx.code.emit(announce, span, ("announce", event, "(", tuple(s.args), ")"), src)

    def s_EliminateStmt(self, s, ctx):
        p, span = self.cx(s.player, ctx), s.span
        who = self.gx(s.player, ctx, Gen())
        if is_list(self.x.type_of(s.player, ctx.sc)):
            # an empty list eliminates nobody: `Machine.eliminate` of it does nothing (and what its
            # True asks the block to look at, brk or a dirtied end check, is not set before it)
            lines = (f"_el = {who}", "if _el:", ("watch", f"m.eliminate(_el, {self.k(span)})", "    "))
        else:
            lines = (("watch", f"m.eliminate({who}, {self.k(span)})", ""),)
        ctx.code.emit(lambda m, fr: m.eliminate(p(m, fr.env), span), span, ("eliminate", s.player),
                      Snippet(lines, effect=(OUT, (ELIMINATED,))))

    def s_WinStmt(self, s, ctx):
        p, span = self.cx(s.player, ctx), s.span
        if is_list(self.x.type_of(s.player, ctx.sc)):       # `players where ... win`: a shared victory
            ctx.code.emit(lambda m, fr: m.win(list(p(m, fr.env) or ()), span), span, ("win", s.player, " (together)"))
            return
        ctx.code.emit(lambda m, fr: m.win(m.winner(p(m, fr.env), span), span), span, ("win", s.player),
                      Snippet((("watch", f"m.win(m.winner({self.gx(s.player, ctx, Gen())}, {self.k(span)}), "
                                         f"{self.k(span)})", ""),)))

    def s_LookStmt(self, s, ctx):
        player, cards, span = self.cx(s.player, ctx), self.cx(s.cards, ctx), s.span

        def look(m, fr):
            env = fr.env
            c = cards(m, env)
            return m.look(player(m, env), c if isinstance(c, list) else [c], span)
        ctx.code.emit(look, span, ("look", s.player, " at ", s.cards))

    def s_ScoreWinStmt(self, s, ctx):
        span = s.span
        ctx.code.emit(lambda m, fr: m.win(m.highest_scores(span), span), span,
                      ("win", "the players with the highest score"))

    def s_DrawGameStmt(self, s, ctx):
        span = s.span
        ctx.code.emit(lambda m, fr: m.win([], span), span, ("draw_game",),
                      Snippet((("watch", f"m.win([], {self.k(span)})", ""),)))

    def s_CallStmt(self, s, ctx):
        proc = self.d.procedures[s.name]
        code_id = self.p.procedure_code(s.name, tuple(self.x.type_of(a, ctx.sc) for a in s.args))
        # (param, env key of a local argument or None, closure): a local is read, not called for
        args = [(p, self.x.env_key(a, ctx.sc), self.cx(a, ctx)) for p, a in zip(proc.params, s.args)]

        def call(m, fr):
            env = fr.env
            inner = {}
            for p, k, a in args:    # a loop, not a comprehension: no call for a comprehension's frame
                inner[p] = env[k] if k is not None else a(m, env)
            if "$you" in env:
                inner["$you"] = env["$you"]
            if "$this" in env:
                inner["$this"] = env["$this"]
            if name in m.prog.replacements:     # `instead of <procedure>` abilities
                if "$replaced" in env:
                    inner["$replaced"] = env["$replaced"]
                if m.replace(name, inner, span):
                    return True
            return m.push(code_id, inner)
        name, span = s.name, s.span
        g = Gen()
        # (param, source of its argument), in order: blocks.py may paste a flat callee with its
        # parameters as Python variables, given these (`blocks._pasted`), else `_i` is its env
        pairs = tuple((p, self.gx(a, ctx, g)) for p, a in zip(proc.params, s.args))
        inner_src = ", ".join(f"{p!r}: {a}" for p, a in pairs)
        if ctx.sc.this_type is not None:
            # a card type's ability: its env always holds `$you` and `$this` (ExprGen.in_ability),
            # so they are passed in the display itself, after the parameters (the order the tests
            # below put them in); the call's fifth item names them for blocks.py's rebuilt `_i`
            known = ("$you", "$this")
            inner_src = ", ".join([*(f"{p!r}: {a}" for p, a in pairs), *(f"{k!r}: env[{k!r}]" for k in known)])
            full = Snippet((f"_i = {{{inner_src}}}", ("call", (code_id, name, self.k(span), pairs, known), "")))
            ctx.code.emit(call, s.span, ("call", f"{name}(", tuple(s.args), ")"), full)
            self._open_code(code_id)
            return
        passed = ("if '$you' in env: _i['$you'] = env['$you']",
                  "if '$this' in env: _i['$this'] = env['$this']")
        full = Snippet((f"_i = {{{inner_src}}}", *passed, ("call", (code_id, name, self.k(span), pairs), "")))
        desc = ("call", f"{name}(", tuple(s.args), ")")
        here = ctx.code.id
        if here not in self._open and self._closable(ctx.sc):
            # nothing has put `$you` or `$this` in this code's env (so far: `_open`): the tests are
            # false, and left out
            pc = ctx.code.emit(call, s.span, desc, Snippet((full.lines[0], full.lines[-1])))
            self._lean.setdefault(here, []).append((pc, full))
            self._callees.setdefault(here, []).append(code_id)
        else:
            ctx.code.emit(call, s.span, desc, full)
            self._open_code(code_id)

    @staticmethod
    def _closable(sc) -> bool:
        """Whether a code compiled in scope `sc` starts with no `$you` / `$this`: the game's setup,
        a round, an end check or a scenario, which the engine pushes with an empty env
        (`Program._compile_main`, `Machine._check_end`), or a procedure (given what its callers
        pass: `_open`); not an ability's."""
        if sc.in_ability or sc.rule is not None or sc.this_type is not None or sc.you:
            return False
        return sc.instance is None or sc.instance[0] == "procedure"

    def _open_code(self, code_id: int) -> None:
        """Code `code_id`'s env may hold `$you` / `$this` from now: its calls pass them on (their
        full snippets put back), so their callees' may too."""
        todo = [code_id]
        while todo:
            cid = todo.pop()
            if cid in self._open:
                continue
            self._open.add(cid)
            srcs = self.p.codes[cid].srcs
            for pc, full in self._lean.pop(cid, ()):
                srcs[pc] = full
            todo.extend(self._callees.pop(cid, ()))

    def s_RollStmt(self, s, ctx):
        n = self.cx(s.count, ctx)
        faces = [list(f) for f in self.d.dice[s.die].faces]
        die, name, span = s.die, s.name, s.span
        ctx.sc.locals[s.name] = ("list", ("list", "text"))

        def roll(m, fr):
            env = fr.env
            env[name] = m.roll(die, faces, n(m, env), span)
        ctx.code.emit(roll, span, ("roll", s.count, f" {die} dice → {name}"))

    def s_GiveStmt(self, s, ctx):
        p, choice, span = self.cx(s.player, ctx), self.cx(s.choice, ctx), s.span
        t = self.x.type_of(s.choice, ctx.sc)        # a card given is named in a failure by its name
        ctx.code.emit(lambda m, fr: m.give(p(m, fr.env), choice(m, fr.env), span, t), span,
                      ("give", s.player, " the choice ", s.choice))

    def s_SkipStmt(self, s, ctx):
        """`skip step "Play"`: the next step (or phase) of that name to begin does not happen."""
        name, span = s.step, s.span

        def skip(m, fr):
            m.st.skips.append(name)
            if m.log.on:
                m.log.emit(m, "skip", span, {"name": name}, f"the next step {name} will be skipped")
            return True
        ctx.code.emit(skip, span, ("skip", f"the next step {quote(name)}"))

    def _on_stack(self, s, ctx, what: str) -> None:
        """`counter X` / `negate X`: X's item on the stack (for each card X names)."""
        target, span = self.cx(s.target, ctx), s.span

        def op(m, fr):
            from . import resolver      # here: resolver imports this module
            act = getattr(resolver, what)
            c = target(m, fr.env)
            for card in (c if isinstance(c, list) else [c]):
                if card is not None:
                    act(m, card, span)
            return True
        ctx.code.emit(op, span, (what, s.target))

    def s_CounterStmt(self, s, ctx):
        self._on_stack(s, ctx, "counter")

    def s_ResolveStmt(self, s, ctx):
        """`resolve the text of c`: push the card's `text:` ability (interpreter/card_text.py)."""
        from .card_text import resolve_op
        player = self.cx(s.player, ctx) if s.player is not None else None
        ctx.code.emit(resolve_op(self.cx(s.card, ctx), player, s.span), s.span,
                      ("resolve", "the text of ", s.card) + ((" for ", s.player) if s.player is not None else ()))

    def s_NegateStmt(self, s, ctx):
        self._on_stack(s, ctx, "negate")

    def s_TakeActionsStmt(self, s, ctx):
        """`p may take actions`: ask p for an action or "done", use it, ask again."""
        player, span = self.cx(s.player, ctx), s.span
        var, who = ctx.fresh("act"), ctx.fresh("who")
        head = ctx.code.here()
        end = [0]

        def ask(m, fr):
            from . import resolver
            env = fr.env
            env[who] = player(m, env)
            if env[who] is None:        # nobody to ask, as `chooses` and `may` with none: done at once
                env[var] = None
                return False
            return resolver.take_actions(m, env[who], span, var)
        ctx.code.emit(ask, span, ("ask", s.player, f": an action or done → {var}"))

        def apply(m, fr):
            from . import resolver
            env = fr.env
            choice = env.pop(var, None)
            if choice is None:
                fr.pc = end[0]
                return False
            fr.pc = head
            resolver.use(m, env[who], choice, span)
            return True
        ctx.code.emit(apply, span, ("use_action", var, ", then jump ", [head], "; done → ", end))
        end[0] = ctx.code.here()

    def s_ChooseManyStmt(self, s, ctx):
        """Several elements, one pick at a time: each pick is an ordinary decision over the
        elements not picked yet, plus "done" (None) where the player may stop ("any number",
        "up to" N); "exactly" N and "order" stop when N (or every element) are picked. The
        name then holds the picks, in the order picked."""
        player, coll, span = self.cx(s.player, ctx), self.x.collection(s.options, ctx.sc), s.span
        count = self.cx(s.count, ctx) if s.count is not None else None
        t = self.x.type_of(s.options, ctx.sc)
        kind = ("many", t[1] if is_list(t) else ANY)
        ctx.sc.locals[s.name] = ("list", kind[1])
        mode, name = s.mode, s.name
        may_stop = mode in ("any", "up to")
        prompt = s.prompt or {"any": "Choose any number", "up to": "Choose up to N", "exactly": "Choose N",
                              "order": "Choose the next in order"}[mode]
        # the default prompt says how many (worked out when the statement runs); a file's prompt is as written
        stem = {"up to": "Choose up to ", "exactly": "Choose "}.get(mode) if s.prompt is None else None
        left, picks, most, pick = ctx.fresh("left"), ctx.fresh("picks"), ctx.fresh("most"), ctx.fresh("pick")

        def start(m, fr):
            env = fr.env
            env[left] = list(coll(m, env))
            env[picks] = []
            n = count(m, env) if count is not None else None
            if count is not None and n is None:
                raise RuleError("how many to choose is none here: it must be a number", s.count.span)
            env[most] = len(env[left]) if n is None else max(0, n)
        ctx.code.emit(start, span, ("let", left, " ← ", s.options, f"; {picks} ← []; {most} ← ",
                                    s.count if s.count is not None else "all"))
        head = ctx.code.here()
        end = [0]

        def ask(m, fr):
            env = fr.env
            rest, chosen = env[left], env[picks]
            if not rest or len(chosen) >= env[most]:
                fr.pc = end[0]
                return
            options = rest + [None] if may_stop else list(rest)
            text = f"{stem}{env[most]}" if stem is not None else prompt
            return m.ask(player(m, env), text, options, pick, kind, span)
        ctx.code.emit(ask, span, ("ask", s.player, f": one of {left}" + (" or done" if may_stop else "") +
                                  f" → {pick}; {most} picked or none left → ", end, f" — {quote(prompt)}"))

        def take(m, fr):
            env = fr.env
            v = env.pop(pick, None)
            if v is None:               # "done" (or nobody to ask)
                fr.pc = end[0]
                return
            env[left].remove(v)
            env[picks].append(v)
            fr.pc = head
        ctx.code.emit(take, span, ("take", pick, f" into {picks}, then jump ", [head], "; done → ", end))
        end[0] = ctx.code.here()

        def finish(m, fr):
            env = fr.env
            env[name] = env.pop(picks)
            env.pop(left, None)
            env.pop(most, None)
        ctx.code.emit(finish, span, ("let", name, f" ← {picks}"))

    def s_ChooseOneStmt(self, s, ctx):
        """`p chooses one:` — one decision over every option of every kind; an option is [i]
        (the i-th option, a text) or [i, element]; then a jump to the i-th block."""
        player, span = self.cx(s.player, ctx), s.span
        prompt = s.prompt or "Choose one"
        var = ctx.fresh("menu")
        parts, kinds = [], []
        for o in s.choices:
            # each option's collection or condition as generated code (`ExprGen.function`): a
            # menu's options are worked out every time it is asked, over a board's places or a
            # player's cards, and the closures were most of a game that asks often (EVE)
            if o.name is None:
                parts.append((None, self.g.function(o.cond, ctx.sc, "menu option") if o.cond is not None else None))
                kinds.append((o.label, None))
            else:
                t = self.x.type_of(o.options, ctx.sc)
                parts.append((self.g.collection_function(o.options, ctx.sc, "menu option"), None))
                kinds.append((o.label, t[1] if is_list(t) else ANY))
        kind = ("menu", tuple(kinds))

        def ask(m, fr):
            env = fr.env
            opts = []
            for i, (coll, cond) in enumerate(parts):
                if coll is None:
                    if cond is None or cond(m, env):
                        opts.append([i])
                else:
                    for x in coll(m, env):
                        opts.append([i, x])
            return m.ask(player(m, env), prompt, opts, var, kind, span)
        ctx.code.emit(ask, span, ("ask", s.player, f": one of {len(s.choices)} kinds of option → {var} — "
                                  f"{quote(prompt)}"))
        boxes = [[0] for _ in s.choices]
        names = [o.name for o in s.choices]
        end = [0]

        def branch(m, fr):
            env = fr.env
            v = env.pop(var, None)
            if v is None:               # nothing to choose from: no block runs
                fr.pc = end[0]
                return
            if len(v) > 1:
                env[names[v[0]]] = v[1]
            fr.pc = boxes[v[0]][0]
        desc = ["jump_to_option", var, " → "]
        for i, box in enumerate(boxes):
            desc += [", " if i else "", box]
        ctx.code.emit(branch, span, (*desc, "; none → ", end))
        for o, box in zip(s.choices, boxes):
            box[0] = ctx.code.here()
            if o.name is not None:
                t = self.x.type_of(o.options, ctx.sc)
                ctx.sc.locals[o.name] = t[1] if is_list(t) else ANY
            self.block(o.body, ctx)
            ctx.code.emit(_jump(end), o.span, ("jump", end), _goto(end))
        end[0] = ctx.code.here()

    # ------------------------------------------------------------------ control flow
    def s_IfStmt(self, s, ctx):
        ends = []
        for cond_e, body in s.branches:
            cond = self.cx(cond_e, ctx)
            nxt = [0]

            def test(m, fr, cond=cond, nxt=nxt):
                if not cond(m, fr.env):
                    fr.pc = nxt[0]
            ctx.code.emit(test, cond_e.span, ("jump_if_not", cond_e, " → ", nxt),
                          Snippet((f"if not ({self.gt(cond_e, ctx)}):", ("goto", nxt, "    ")), pc=False,
                                  effect=(0, ())))
            self.block(body, ctx)
            end = [0]
            ends.append(end)
            ctx.code.emit(_jump(end), cond_e.span, ("jump", end), _goto(end))
            nxt[0] = ctx.code.here()
        if s.else_body:
            self.block(s.else_body, ctx)
        for end in ends:
            end[0] = ctx.code.here()

    def _loop_body(self, ctx, body, head: int, exit_box: list, span) -> None:
        """The body of a loop, a jump back to `head`, and every `stop` (and the loop's own
        exit test, through `exit_box`) patched to land after it."""
        breaks: list = [exit_box]
        ctx.loops.append((breaks, ctx.steps))
        self.block(body, ctx)
        ctx.loops.pop()
        back = [head]
        ctx.code.emit(_jump(back), span, ("jump", back), _goto(back))
        end = ctx.code.here()
        for box in breaks:
            box[0] = end

    def s_ForStmt(self, s, ctx):
        coll = self.x.collection(s.coll, ctx.sc)
        t = self.x.type_of(s.coll, ctx.sc)
        ctx.sc.locals[s.name] = t[1] if is_list(t) else ANY
        cond = self.cx(s.cond, ctx) if s.cond is not None else None
        lst, idx, name = ctx.fresh("list"), ctx.fresh("i"), s.name

        def start(m, fr):
            env = fr.env
            env[lst] = list(coll(m, env))
            env[idx] = 0
        ctx.code.emit(start, s.span, ("let", lst, " ← ", s.coll),
                      Snippet((f"env[{lst!r}] = {self._fresh_list(s.coll, ctx)}",
                               f"env[{idx!r}] = 0"), pc=False, effect=(0, ())))
        head = ctx.code.here()
        end = [0]

        def step(m, fr):
            env = fr.env
            items = env[lst]
            i = env[idx]
            while i < len(items):
                env[name] = items[i]
                i += 1
                if cond is None or cond(m, env):
                    env[idx] = i
                    return
            env[idx] = i
            fr.pc = end[0]
        if s.cond is None:
            # the index and the list read into variables of this loop's own (`carried`: a block
            # that goes round the loop reads them once, its passes keep them), the index written
            # back at each pass, so the env holds the loop's state wherever the block leaves
            fi, fl = f"_fi{idx[2:]}", f"_fl{idx[2:]}"
            src = Snippet((f"if {fi} < len({fl}):",
                           f"    env[{name!r}] = {fl}[{fi}]",
                           f"    env[{idx!r}] = {fi} = {fi} + 1",
                           "else:",             # (the index is the env's already)
                           ("goto", end, "    ")), pc=False, effect=(0, ()),
                          carried=(f"{fi} = env[{idx!r}]", f"{fl} = env[{lst!r}]"))
        else:
            src = Snippet((f"_i = env[{idx!r}]", f"_l = env[{lst!r}]", "_f = False",
                           "while _i < len(_l):",
                           f"    env[{name!r}] = _l[_i]",
                           "    _i += 1",
                           f"    if {self.gt(s.cond, ctx)}:",
                           "        _f = True",
                           "        break",
                           f"env[{idx!r}] = _i",
                           "if not _f:", ("goto", end, "    ")), pc=False, effect=(0, ()))
        ctx.code.emit(step, s.span, ("for_next", f"{name} in {lst}", *((" where ", s.cond) if s.cond is not None else ()),
                                     "; none left → ", end), src)
        self._loop_body(ctx, s.body, head, end, s.span)

    def _fresh_list(self, e, ctx) -> str:
        """The source of a new list of the items of collection `e` (a loop's own copy): `e`'s own
        source where it always builds a new list (the players, a `where`, a map: written as a
        slice or a comprehension), else `list(...)` of it."""
        src = self.g.collection(e, ctx.sc, Gen())
        if isinstance(e, (A.PlayersExpr, A.AllPlayers, A.Opponents)) and not src.startswith("_"):
            return src          # (not the closure's fallback, `_x1(m, env)` / `_bound(...)`)
        if isinstance(e, (A.WhereExpr, A.ExprMap)) and src.startswith("[") and src.endswith("]"):
            return src
        return f"list({src})"

    def s_RepeatStmt(self, s, ctx):
        self._loop_body(ctx, s.body, ctx.code.here(), [0], s.span)

    def s_WhileStmt(self, s, ctx):
        cond = self.cx(s.cond, ctx)
        until = s.until
        head = ctx.code.here()
        exit_box = [0]

        def test(m, fr):
            if bool(cond(m, fr.env)) == until:
                fr.pc = exit_box[0]
        ctx.code.emit(test, s.cond.span, ("jump_if" if until else "jump_if_not", s.cond, " → ", exit_box),
                      Snippet((f"if {'' if until else 'not '}({self.gt(s.cond, ctx)}):",
                               ("goto", exit_box, "    ")), pc=False, effect=(0, ())))
        self._loop_body(ctx, s.body, head, exit_box, s.span)

    def s_TimesStmt(self, s, ctx):
        count = self.cx(s.count, ctx)
        var = ctx.fresh("n")

        def start(m, fr):
            env = fr.env
            env[var] = count(m, env) or 0
        ctx.code.emit(start, s.span, ("let", var, " ← ", s.count),
                      Snippet((f"env[{var!r}] = {self.gx(s.count, ctx, Gen())} or 0",), pc=False, effect=(0, ())))
        head = ctx.code.here()
        exit_box = [0]

        def test(m, fr):
            env = fr.env
            if env[var] <= 0:
                fr.pc = exit_box[0]
            else:
                env[var] -= 1
        ctx.code.emit(test, s.span, ("count_down", var, "; at 0 → ", exit_box),
                      Snippet((f"if env[{var!r}] <= 0:", ("goto", exit_box, "    "), "else:", f"    env[{var!r}] -= 1"),
                              pc=False, effect=(0, ())))
        self._loop_body(ctx, s.body, head, exit_box, s.span)

    def s_StopStmt(self, s, ctx):
        breaks, depth = ctx.loops[-1]
        span = s.span
        for _ in range(ctx.steps - depth):   # leave the steps opened inside the loop
            ctx.code.emit(lambda m, fr: m.end_step(span), span, ("end_step", "(left by stop)"),
                          _end_step(self.k(span)))
        box = [0]
        breaks.append(box)
        ctx.code.emit(_jump(box), span, ("jump", box, " (stop: out of the loop)"), _goto(box))

    def s_StepStmt(self, s, ctx):
        kind, name, span = s.kind, s.name, s.span
        after = [0]

        def begin(m, fr):
            if name in m.st.skips:          # `skip step "Name"` was said: none of it happens
                m.st.skips.remove(name)
                if m.log.on:
                    m.log.emit(m, "skip", span, {"name": name}, f"{kind} {name} is skipped")
                fr.pc = after[0]
                return True
            began = m.begin_step(kind, name, span)
            if began == REPLACED:           # `instead of step_started`: the replacement runs in its place
                fr.pc = after[0]
                return True
            return began
        ks = self.k(span)
        ctx.code.emit(begin, span, ("begin_step", f"{kind} {quote(name)}; skipped or replaced → ", after),
                      # (no step is to be skipped, most of a game: one test of the list)
                      Snippet((f"if m.st.skips and {name!r} in m.st.skips:",
                               f"    {self.k(skip_step)}(m, {kind!r}, {name!r}, {ks})",
                               ("gotow", after, "    "),
                               # what `begin_step` does when no rule listens to the step beginning
                               # (nor replaces it: `listened` holds the replaced events too) and no
                               # scenario waits for a step: the step's name kept, and logged
                               # (`m.plain_steps`: the two, kept by whatever changes them), no
                               # frame's pc read (`lazy`: set only before `begin_step`)
                               "if m.plain_steps:",
                               f"    m.st.step_path.append({name!r})",
                               f"    if m.log.on: m.log.begins(m, {kind!r}, {name!r}, {ks})",
                               "else:",
                               ("pc", None, "    "),
                               f"    _w = m.begin_step({kind!r}, {name!r}, {ks})",
                               f"    if _w == {REPLACED}:",
                               ("gotow", after, "        "),
                               ("watch", "_w", "    ")), effect=(0, (STEP_STARTED,)), lazy=True))
        ctx.steps += 1
        self.block(s.body, ctx)
        ctx.steps -= 1
        ctx.code.emit(lambda m, fr: m.end_step(span), span, ("end_step", f"{kind} {quote(name)}"),
                      _end_step(ks))
        after[0] = ctx.code.here()

    def s_TurnStmt(self, s, ctx):
        p, span = self.cx(s.player, ctx), s.span
        saved = ctx.fresh("active")

        after = [0]

        def begin(m, fr):
            env = fr.env
            env[saved] = m.st.active
            began = m.begin_turn(p(m, env), span)
            if began == REPLACED:           # `instead of turn_started`: the replacement runs in its place
                env.pop(saved)
                fr.pc = after[0]
                return True
            return began
        ks = self.k(span)
        ctx.code.emit(begin, span, ("begin_turn", s.player, f" (active player before → {saved}); replaced → ", after),
                      Snippet((f"env[{saved!r}] = m.st.active",
                               f"_w = m.begin_turn({self.gx(s.player, ctx, Gen())}, {ks})",
                               f"if _w == {REPLACED}:",
                               f"    env.pop({saved!r})",
                               ("gotow", after, "    "),
                               ("watch", "_w", "")),
                              # `reset each turn` attributes change as a turn begins
                              effect=(ATTRS if self._resets_each("turn") else 0, (TURN_STARTED,))))
        self.block(s.body, ctx)
        ctx.code.emit(lambda m, fr: m.end_turn(fr.env.pop(saved), span), span,
                      ("end_turn", f"(active player ← {saved})"),
                      Snippet((f"m.end_turn(env.pop({saved!r}), {ks})",), effect=(0, ())))
        after[0] = ctx.code.here()

    def s_SecretStmt(self, s, ctx):
        """Every player in turn makes a secret choice (seeing only their own view, and no other
        player's pick); then the body runs once per player with `you` and the choice bound."""
        players, options = self.x.collection(s.players, ctx.sc), self.cx(s.options, ctx)
        t = self.x.type_of(s.options, ctx.sc.child(locals={**ctx.sc.locals}))
        ctx.sc.locals[s.name] = t[1] if is_list(t) else ANY
        kind = t[1] if is_list(t) else ANY
        lst, idx, picks = ctx.fresh("who"), ctx.fresh("i"), ctx.fresh("picks")
        before = ctx.fresh("you")       # `you` before the statement: [player], or [] when there was none
        prompt, name, span = s.prompt or f"Secretly choose {s.name}", s.name, s.span
        self._open_code(ctx.code.id)    # this code sets `$you` (and a `stop` may leave it set)

        def start(m, fr):
            env = fr.env
            env[lst] = list(players(m, env))
            env[idx] = 0
            env[picks] = []
            env[before] = [env["$you"]] if "$you" in env else []
        # the instructions around the asks and the body as source too (a closure among a block's
        # lines costs a call; a jump back as a closure leaves the block, to enter it again)
        ctx.code.emit(start, span, ("let", lst, " ← ", s.players, f"; {idx} ← 0; {picks} ← []; {before} ← [$you]"),
                      Snippet((f"env[{lst!r}] = {self._fresh_list(s.players, ctx)}",
                               f"env[{idx!r}] = 0",
                               f"env[{picks!r}] = []",
                               f"env[{before!r}] = [env['$you']] if '$you' in env else []"), pc=False, effect=(0, ())))
        head = ctx.code.here()
        done = [0]

        def ask_next(m, fr):
            env = fr.env
            if env[idx] > 0:
                env[picks].append(env.pop(name))
            if env[idx] >= len(env[lst]):
                fr.pc = done[0]
                return
            who = env[lst][env[idx]]
            env[idx] += 1
            env["$you"] = who
            return m.ask(who, prompt, options(m, env), name, kind, span, secret=True)
        # the same as source: the pick kept, the next player asked (`fr.pc` set before: the ask stops)
        g = Gen()
        ask_src = Snippet((f"_n = env[{idx!r}]",
                           "if _n > 0:",
                           f"    env[{picks!r}].append(env.pop({name!r}))",
                           f"_l = env[{lst!r}]",
                           "if _n >= len(_l):",
                           ("goto", done, "    "),
                           "else:",
                           "    _y = _l[_n]",
                           f"    env[{idx!r}] = _n + 1",
                           "    env['$you'] = _y",
                           ("watch", f"m.ask(_y, {self.k(prompt)}, {self.gx(s.options, ctx, g)}, {name!r}, "
                                     f"{self.k(kind)}, {self.k(span)}, secret=True)", "    ")))
        ctx.code.emit(ask_next, span, ("ask_secretly", f"the next of {lst} ($you): choose {name} from ", s.options,
                                       f" — {quote(prompt)}; all asked → ", done), ask_src)
        ctx.code.emit(_jump([head]), span, ("jump", [head]), _goto([head]))
        done[0] = ctx.code.here()
        ctx.code.emit(lambda m, fr: m.say("secret choices are revealed together", fr.env, span), span,
                      ("say", quote("secret choices are revealed together")),
                      # (`Machine.say` logs it, and does nothing else)
                      Snippet((f"if m.log.on: m.say('secret choices are revealed together', env, {self.k(span)})",),
                              pc=False, effect=(0, ())))
        # the body, once per player, with that player's choice
        pair = ctx.fresh("k")

        def start_body(m, fr):
            fr.env[pair] = 0
        ctx.code.emit(start_body, span, ("let", pair, " ← 0"),
                      Snippet((f"env[{pair!r}] = 0",), pc=False, effect=(0, ())))
        body_head = ctx.code.here()
        end = [0]

        def next_body(m, fr):
            env = fr.env
            k = env[pair]
            if k >= len(env[lst]):
                was = env.pop(before)           # the rest of the rule credits whoever was `you` before
                if was:
                    env["$you"] = was[0]
                else:
                    env.pop("$you", None)
                fr.pc = end[0]
                return
            env["$you"], env[name] = env[lst][k], env[picks][k]
            env[pair] = k + 1
        next_src = Snippet((f"_n = env[{pair!r}]",
                            f"_l = env[{lst!r}]",
                            "if _n >= len(_l):",
                            f"    _y = env.pop({before!r})",
                            "    if _y:",
                            "        env['$you'] = _y[0]",
                            "    else:",
                            "        env.pop('$you', None)",
                            ("goto", end, "    "),
                            "else:",
                            f"    env['$you'], env[{name!r}] = _l[_n], env[{picks!r}][_n]",
                            f"    env[{pair!r}] = _n + 1"), pc=False, effect=(0, ()))
        ctx.code.emit(next_body, span, ("secret_next", f"$you, {name} ← the next of {lst}, {picks}; "
                                        f"none left ($you ← {before}) → ", end), next_src)
        self.block(s.body, ctx)
        ctx.code.emit(_jump([body_head]), span, ("jump", [body_head]), _goto([body_head]))
        end[0] = ctx.code.here()

    # The statements of scenarios (and `say`), written in interpreter/compile_scenario.py
    s_ExpectStmt, s_ExpectEventStmt, s_StackDeckStmt = _scn.s_ExpectStmt, _scn.s_ExpectEventStmt, _scn.s_StackDeckStmt
    s_SayStmt, s_PlayStmt = _scn.s_SayStmt, _scn.s_PlayStmt
    # dice pools and limited supplies (interpreter/compile_dice.py)
    s_RollPoolStmt, s_RollIntoStmt, s_RerollStmt = _dice.s_RollPoolStmt, _dice.s_RollIntoStmt, _dice.s_RerollStmt
    s_TurnDieStmt, s_RemoveDiceStmt, s_HandOutStmt = _dice.s_TurnDieStmt, _dice.s_RemoveDiceStmt, _dice.s_HandOutStmt
    s_HandOutCardsStmt = _dice.s_HandOutCardsStmt
    # entities (interpreter/compile_entities.py)
    s_CreateStmt, s_DestroyStmt = _ents.s_CreateStmt, _ents.s_DestroyStmt


# One compile handler per statement class, read from the registry (dsl/registry.py) once
_COMPILE = dispatch("compile", STATEMENT, StmtCompiler)
