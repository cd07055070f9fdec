"""Triggered abilities and replacement effects: what an event sets off, and in which order.

The rules implemented here are stated in docs/language.md, "How a game runs" (the loop and
simultaneous triggers), "`when`: triggered abilities", "`order simultaneous triggers`" and
"`instead of`: replacement effects"; docs/architecture.md, "Triggers", says how they are run:

* An event's triggered abilities are looked up by the event's name (`where card = this` pins
  the lookup to the one card the event names). An ability counts only while its card is in a
  player's zone, for a player still in the game, and while its text is not blank.
* The triggers of one moment (every parameter set of `announce_all`) are ordered together: by
  the game's `order simultaneous triggers` keys, then seat order from the active player (or
  seat 1), then card order, never by dict order. They are pushed as frames with the first to
  resolve on top, so what each triggers in turn resolves before the next: last in, first out.
* A response window declared after the event opens once those triggers have resolved.
* A trigger the game's `stack` holds (`holds triggered abilities [of T]`, not `, at once`)
  goes on the stack as an item instead, and `triggered` is raised for those of the moment,
  when a window opens after `triggered` (`_stack_triggers`); the others run first.
* An `instead of` ability runs in place of the procedure or event; when several apply, the
  first by the same order runs, and each applies once to an event (`$replaced` in its frame).
  For the engine's own events it replaces the thing itself, asked before the engine does it:
  each card of a move or flip alone (`replace_move`, `replace_flip`), an elimination, a
  counter, an action used, an item resolving, a step, turn or round beginning (`replaced`).
* A window declared `opens at any moment` is listed after every event; it is pushed once for
  a moment (`_window_waiting`), and opens only when someone can answer (interpreter/resolver.py).

`Triggers` is mixed into `interpreter/machine.py`'s `Machine`, whose state (`st`, `prog`,
`log`, `push`) it reads through `self`: a method found on a base class costs the hot path
nothing more than one on the class itself.
"""
from __future__ import annotations

import ast
import re
from functools import cached_property
from types import SimpleNamespace

from cardsmith.dsl import ast as A
from cardsmith.dsl.registry import (ACTION_USED, COUNTERED, CREATED, DESTROYED, ELIMINATED, FLIPPED, MOVED, RESOLVED,
                                    REVEALED, ROUND_STARTED, STEP_STARTED, TRIGGERED, TURN_STARTED)
from cardsmith.dsl.bounds import MAX_FRAMES
from cardsmith.dsl.model import BUILTIN_EVENTS
from cardsmith.dsl.types import CARD, CARD_PSEUDO_FIELDS, Scope

from .log import _SCALARS        # the values whose words a declared event's line makes once
from .state import Frame

# The engine's events whose `instead of` replaces the thing itself (the move, the flip, the
# elimination, the step ...), decided where the engine does it, before it happens; the others
# (the game's own events, `step_ended`) are replaced where they are announced.
REPLACED_WHERE_DONE = frozenset({MOVED, FLIPPED, REVEALED, ELIMINATED, COUNTERED, STEP_STARTED, TURN_STARTED,
                                 ROUND_STARTED, ACTION_USED, RESOLVED, CREATED, DESTROYED})
# what a flow event's begin instruction gets back when a replacement took the step, turn or round's place
REPLACED = 2


def replaceable(prog, *events):
    """Which cards' moves (or flips) an `instead of` one of `events` may touch, decided once from
    the program's index of replacements: None (none: the move costs nothing more), True (any
    card: some replacement is not pinned to its own card by `where card = this`), or the set of
    the cards whose own replacement may apply."""
    cards: set = set()
    for event in events:
        for entry in prog.replacements.get(event, ()):
            if entry.key_param != "card":
                return True
            cards |= entry.card_set
    return frozenset(cards) if cards else None


class EventPlan:
    """What `announce_all` needs to know of one event, all of it fixed by the program: whether an
    `instead of` may replace it where it is announced, whether it is declared (its log line),
    the windows that open after it, its triggers' `collect` (None: no ability can fire on it),
    whether one trigger of it fires without evaluating the order keys (`_plain_order`), and
    whether a `stack` may hold its triggers."""
    __slots__ = ("replaced", "declared", "windows", "collect", "over", "one_unordered", "stacking", "plain")

    def __init__(self, replaced, declared, windows, collect, one_unordered, stacking):
        self.replaced, self.declared, self.windows = replaced, declared, windows
        self.collect, self.one_unordered, self.stacking = collect, one_unordered, stacking
        # the triggers of all the parameter sets of a moment, a list (`_collector`'s `over`)
        self.over = None if collect is None else getattr(collect, "over", None) or _over(collect)
        # nothing but triggers can answer: no `instead of` where it is announced, no window after
        # it (with no scenario's history nor tally, `announce_all` then logs it and collects)
        self.plain = not replaced and not windows


def plan_of(prog, event: str) -> EventPlan:
    entries = prog.triggers.get(event)
    return EventPlan(event in prog.replacements and event not in REPLACED_WHERE_DONE,
                     event in prog.decls.events,
                     prog.windows_after.get(event),
                     _collector(prog, entries) if entries else None,
                     prog.order_by_seat_only or _plain_order(prog),
                     bool(prog.stacked_triggers and prog.windows_after.get(TRIGGERED)))


def _plain_order(prog) -> bool:
    """Whether sorting one trigger alone may skip its order keys: each is the seat order, a number
    or a field of the card as printed or set (`number`), read without a rule to run (no `modify`
    of it, not a part nor a pseudo-field): it cannot fail, count work or change anything."""
    decl = prog.decls.trigger_order
    for k in decl.keys if decl is not None else ():
        e = k.expr
        if e is None or isinstance(e, A.Num):
            continue
        if not isinstance(e, A.Name) or prog.exprs.kind_of(e, Scope(it_type=CARD, in_ability=True)) != "it_field":
            return False
        if e.name in prog.modified_fields or e.name in prog.part_labels or e.name in CARD_PSEUDO_FIELDS:
            return False
    return True


def _collector(prog, entries):
    """One event's `collect`, `_collect` written out for its entries: each entry's cards (or the one
    card its key parameter names) as constants, its condition and `text is blank unless` called
    on an env made by copying the parameters (the same dict as `{**params, '$this': c, '$you':
    seat}`: the params' keys first, then these), and only for a card in a player's zone, for a
    player in the game. Built only from the compiler's own templates, `repr()` of card ids and
    parameter names, and names the program's Pool binds (tests/test_codegen.py).

    For an event the game declares (what an `announce` statement raises), a third
    function `one(m, span, *values)` (`collect.over.one`): the triggers of one moment of one
    parameter set given as its values in the declared order (`_q0`, `_q1`, ...: no dict made
    unless a trigger fires), ordered and pushed as `announce_all` does (`Triggers._fire`), its
    return `announce_all`'s; what a generated `announce` calls where only triggers answer the
    event and nothing keeps it (`Triggers.quiet_ones`)."""
    pool = prog.pool
    blocks, ones = [], []
    looked: set = set()         # the cards looked at, of every entry
    state = ["_cz = m.st.card_zone", "_zs = m.zone_seat", "_out = m.st.out"]
    event = entries[0].ability.event
    declared = prog.decls.events.get(event)
    # `one`'s locals, by parameter (their order the declaration's: an `announce`'s dict's)
    local = {name: f"_q{i}" for i, name in enumerate(prog.event_types(event))} if declared is not None else None
    live = [(entry, cards) for entry in entries if (cards := _live_cards(prog, entry))]
    # whether an entry reads the state where the entries share it (then they all read it there)
    shared = not all(_entry_lines(prog, entry, cards, state, None, False)[1] for entry, cards in live)
    for entry, cards in live:
        blocks.append((entry.key_param, _entry_lines(prog, entry, cards, state, None, shared)[0]))
        if local is not None:
            ones.append(_entry_lines(prog, entry, cards, state, local, shared)[0])
        looked.update(cards)
    if not blocks:
        return None
    shared_state = state if shared else []
    keys = {key for key, _block in blocks}
    name, over = pool.fresh_name("a"), pool.fresh_name("a")
    # `name(m, _p, _fired)`: the triggers of one parameter set, added to `_fired`; `over(m, _ps)`:
    # those of every parameter set of a moment, in order, as a new list (what `announce_all` calls)
    lines = [f"def {name}(m, _p, _fired):"]
    loop = [f"def {over}(m, _ps):", "    _fired = []"]
    one = None
    if local is not None:
        one = pool.fresh_name("a")
        head = [f"def {one}(m, _span{''.join(', ' + v for v in local.values())}):", "    _fired = []"]
    if len(keys) == 1 and None not in keys:
        # every entry pinned by the same parameter (`where card = this`): the card it names is
        # read once, and the state only by the entry that holds that card (most events name a
        # card that none holds, and then nothing else is read)
        lines.append(f"    {blocks[0][1][0]}")
        for _key, block in blocks:
            lines += _indent(block[1:])
        if one is not None:
            head.append(f"    {ones[0][0]}")
            for block in ones:
                head += _indent(block[1:])
        loop += ["    for _p in _ps:", f"        {blocks[0][1][0]}"]
        if len(blocks) == 1:
            loop += _indent(_indent(blocks[0][1][1:]))
        else:
            # a card none of them holds is passed over in one test: the cards of them all
            loop += [f"        if _c in {pool.ref(frozenset(looked), 'k')}:", *_indent(_indent(_indent(shared_state)))]
            for _key, block in blocks:
                loop += _indent(_indent(_indent([line for line in block[1:] if line[4:] not in state])))
    else:
        lines += _indent(shared_state)
        loop += _indent(shared_state) + ["    for _p in _ps:"]
        if one is not None:
            head += _indent(shared_state)
        for (key, block), block1 in zip(blocks, ones or [None] * len(blocks)):
            if key is not None:
                block = [line for line in block if line[4:] not in state]     # read above
                if block1 is not None:
                    block1 = [line for line in block1 if line[4:] not in state]
            lines += _indent(block)
            loop += _indent(_indent(block))
            if one is not None:
                head += _indent(block1)
    # `fire(m, _ps, _span)`: `over`'s loop, then what `announce_all` does with what it found
    # (`Triggers._fire` called); `quick(m, _ps, _span)` (and `one`'s): the same with `_fire`
    # written out where it is short, for a machine whose log is off (`_fire_lines`)
    fire = pool.fresh_name("a")
    quick = pool.fresh_name("a") if _quick_fire(prog) else None
    source = "\n".join(lines) + "\n\n\n" + "\n".join(loop + ["    return _fired"]) + "\n"
    source += "\n\n" + "\n".join([f"def {fire}(m, _ps, _span):", *loop[1:], *_fire_lines(prog, event, False)]) + "\n"
    if quick is not None:
        source += "\n\n" + "\n".join([f"def {quick}(m, _ps, _span):", *loop[1:], *_fire_lines(prog, event, True)]) + "\n"
    if one is not None:
        # most moments set off nothing: `None`, as `announce_all` returns then
        one_quick = pool.fresh_name("a") if quick is not None else None
        source += "\n\n" + "\n".join(head + _fire_lines(prog, event, False)) + "\n"
        if one_quick is not None:
            source += "\n\n" + "\n".join([head[0].replace(f"def {one}(", f"def {one_quick}(", 1), *head[1:],
                                            *_fire_lines(prog, event, True)]) + "\n"
    fn = pool.compile(source, name, "triggers of an event")
    fn.over = pool.ns[over]
    fn.over.fire = pool.ns[fire]
    fn.over.quick = None if quick is None else pool.ns[quick]
    for made in (fn.over.fire, fn.over.quick):
        if made is not None:        # the cards a parameter `card` must name, as `over`'s (below)
            made.cards = frozenset(looked) if keys == {"card"} else None
    if one is not None:
        fn.over.one = pool.ns[one]
        fn.over.one.quick = None if one_quick is None else pool.ns[one_quick]
    # every entry pinned by `card` (`where card = this`): a parameter set naming no card of them
    # adds nothing (Triggers.quiet_cards); an entry not pinned may fire on any card
    fn.over.cards = frozenset(looked) if keys == {"card"} else None
    return fn


def _quick_fire(prog) -> bool:
    """Whether `Triggers._fire` of one trigger, on a machine whose log is off, is only its frame
    pushed: ordering one trigger evaluates nothing (`EventPlan.one_unordered`) and no `stack`
    holds triggers (`EventPlan.stacking`)."""
    return bool((prog.order_by_seat_only or _plain_order(prog))
                and not (prog.stacked_triggers and prog.windows_after.get(TRIGGERED)))


def _fire_lines(prog, event: str, quick: bool) -> list:
    """The end of a generated `fire` (or `one`), `_fired` found: nothing found, None (as
    `announce_all` returns then); else `Triggers._fire` called, or, `quick` (`_quick_fire`, for a
    machine whose log is off), `_fire` written out: one trigger's frame pushed, or several ordered
    (`Triggers._order`: the program's `_sorter`) and pushed, the first to resolve on top."""
    pool = prog.pool
    if not quick:
        return ["    if _fired:", f"        return m._fire(m.event_plans[{event!r}], {event!r}, _fired, _span)",
                "    return None"]
    sort = prog.__dict__.get("_trigger_sorter")
    if sort is None:
        sort = prog.__dict__["_trigger_sorter"] = _sorter(prog)
    frame, deep = pool.ref(Frame, 'k'), f"if len(_fs) >= {MAX_FRAMES!r}:"
    return ["    if not _fired:", "        return None",
            "    _fs = m.st.frames",
            "    if len(_fired) > 1:",
            "        _a = m.st.active",
            f"        for _e, _c, _seat, env in reversed({pool.ref(sort, 'o')}(m, _fired, 0 if _a is None else _a, "
            "m.n_players)):",
            f"            {deep}", "                raise m._too_deep(_e.code_id)",
            f"            _fs.append({frame}(_e.code_id, 0, env))",
            "        m.brk = True",
            "        return True",
            "    _e, _c, _seat, env = _fired[0]",
            f"    {deep}", "        raise m._too_deep(_e.code_id)",
            f"    _fs.append({frame}(_e.code_id, 0, env))",
            "    m.brk = True",
            "    return True"]


def _entry_lines(prog, entry, cards: list, state: list, local: dict | None, shared: bool) -> tuple:
    """The lines of `_collector` that look at one entry's cards: those of its `collect` and `over`,
    reading the parameter set `_p` (`local` None), or those of its `one`, reading each parameter
    from its local (`local`: parameter -> `_q<i>`) and making the env from them (the same dict:
    the parameters in the declared order, then `$this`, `$you`). With whether they read the
    `state` themselves (after a test of the card's own fields: `_card_first`, unless `shared`:
    some entry reads it where the entries share it, and then they all do (an entry pinned by a
    parameter: after the card it names is found to be one of its cards)."""
    pool = prog.pool
    # the condition, then the text-is-blank rule: those that read only the card, its seat and
    # the parameters are written in (`_direct`), before the env is made; from the first that
    # is not, each is called on the env
    params = prog.event_types(entry.ability.event)
    before, after = [], []
    first = None        # the condition's leading conjuncts that read only the card's own fields
    for fn in (entry.cond, entry.blank):
        if fn is None:
            continue
        direct = None if after or entry.extra else _direct(pool, fn, params, local=local)
        if direct is not None:
            lean = _lean(direct, entry.key_param, local)
            if not before and first is None:
                first, lean = _card_first(lean)
            if lean != "True":
                before.append(f"({lean})")
        else:
            after.append(f"{pool.ref(fn, 'f')}(m, env)")
    fire = f"_fired.append(({pool.ref(entry, 'e')}, _c, _seat, env))"
    if local is None:
        body = ["env = _p.copy()", "env['$this'] = _c", "env['$you'] = _seat"]
    else:
        body = [f"env = {{{''.join(f'{k!r}: {v}, ' for k, v in local.items())}'$this': _c, '$you': _seat}}"]
    if entry.extra:
        body.append(f"env.update({pool.ref(entry.extra, 'k')})")
    body += [f"if {' and '.join(after)}:", "    " + fire] if after else [fire]
    if before:
        body = [f"if {' and '.join(before)}:", *_indent(body)]
    live = ["_seat = _zs[_cz[_c]]", "if _seat is not None and not _out[_seat]:", *_indent(body)]
    if first is not None:
        # tested before the card's seat is looked up (and the state read for it): it can neither
        # fail nor count work, and both tests only read, so their order changes nothing but what
        # is read for a card whose own fields rule it out (most cards, most moments)
        live = [f"if {first}:", *_indent(state if not shared else []), *_indent(live)]
    if entry.key_param is not None:
        read = f"_p.get({entry.key_param!r})" if local is None else local[entry.key_param]
        return [f"_c = {read}", f"if _c in {pool.ref(frozenset(cards), 'k')}:",
                *_indent(state if first is None or shared else []), *_indent(live)], first is not None
    if len(cards) == 1:
        if first is not None:
            # the one card's own fields tested by its number, `_c` set only for a card they let by
            return [f"if {_with_card(first, cards[0])}:", f"    _c = {cards[0]!r}", *live[1:]], True
        return [f"_c = {cards[0]!r}", *live], False
    return [f"for _c in {pool.ref(tuple(cards), 'k')}:", *_indent(live)], first is not None


def _card_first(expr: str) -> tuple:
    """(`expr`'s leading conjuncts that read nothing but constants and the card's own fields by
    `m.cards[_c].get(<constant>)`, compared by `==`, `!=`, `is`, `is not`, joined by `and` / `or`
    / `not`, or None; the rest, or "True"): what can be tested of a card before anything else,
    since it can neither fail nor count work (`_entry_lines`)."""
    tree = ast.parse(expr, mode="eval").body
    items = tree.values if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And) else [tree]
    n = 0
    while n < len(items) and _card_only(items[n]) and not isinstance(items[n], ast.Constant):
        n += 1
    if not n:
        return None, expr
    rest = items[n:]
    lead = items[0] if n == 1 else ast.BoolOp(op=ast.And(), values=items[:n])
    tail = "True" if not rest else ast.unparse(rest[0] if len(rest) == 1 else ast.BoolOp(op=ast.And(), values=rest))
    return ast.unparse(lead), tail


def _with_card(expr: str, card: int) -> str:
    """`_card_first`'s test with its card `_c` written as the card's number (an entry of one card)."""
    class Card(ast.NodeTransformer):
        def visit_Name(self, node):
            return ast.copy_location(ast.Constant(card), node) if node.id == "_c" else node
    return ast.unparse(Card().visit(ast.parse(expr, mode="eval")).body)


def _card_only(node) -> bool:
    """Whether `node` reads only constants and `m.cards[_c].get(<constant>)` (a card's record, a
    dict, read without fail), through comparisons that cannot fail (`_card_first`)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.BoolOp):
        return all(_card_only(v) for v in node.values)
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, ast.Not) and _card_only(node.operand)
    if isinstance(node, ast.Compare):
        return len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)) \
            and _card_only(node.left) and _card_only(node.comparators[0])
    if isinstance(node, ast.Call):
        f = node.func
        return (not node.keywords and len(node.args) == 1 and isinstance(node.args[0], ast.Constant)
                and isinstance(f, ast.Attribute) and f.attr == "get" and isinstance(f.value, ast.Subscript)
                and isinstance(f.value.slice, ast.Name) and f.value.slice.id == "_c"
                and isinstance(f.value.value, ast.Attribute) and f.value.value.attr == "cards"
                and isinstance(f.value.value.value, ast.Name) and f.value.value.value.id == "m")
    return False


def _no_triggers(m, param_sets) -> None:
    """`over` of an event no triggered ability answers."""
    return None


# every `over` says which cards its parameter `card` must name for a trigger to fire (`cards`:
# a frozenset), or None when any card may (Triggers.quiet_cards)
_no_triggers.cards = frozenset()


def _no_fire(m, param_sets, span) -> None:
    """`fire` of an event no triggered ability answers (`Triggers.quiet_events`)."""
    return None


_no_fire.cards = frozenset()
_no_triggers.fire = _no_fire


def _fire_of(over, event: str):
    """`fire` (`_collector`) of an `over` that has none: what `announce_all` does with its triggers."""
    def fire(m, param_sets, span):
        fired = over(m, param_sets)
        if not fired:
            return None
        return m._fire(m.event_plans[event], event, fired, span)
    fire.cards = getattr(over, "cards", None)
    return fire


def _replacement_collect(prog, name: str):
    """`collect(m, params, fired)` of the `instead of <name>` abilities: `_collector`'s for an event
    (the engine's or a declared one: its parameters known by name), nothing where no card's
    ability can apply; for a procedure's, `Triggers._collect` called on its entries."""
    entries = prog.replacements[name]
    decls = prog.decls
    if name in decls.events or (name in BUILTIN_EVENTS and name not in decls.procedures):
        return _collector(prog, entries) or _collect_none
    return lambda m, params, fired: m._collect(entries, params, fired)


def _collect_none(m, params, fired) -> None:
    """`collect` of abilities none of whose cards can ever apply (`_live_cards`)."""


def _no_one(m, span, *values) -> None:
    """`one` of a declared event no triggered ability answers (`Triggers.quiet_ones`)."""
    return None


def _logged_one(m, event: str, one):
    """`one` of a declared event only triggers answer, on a machine whose log is on: the event's
    line, then its triggers (`one`), as `announce_all` does. The line's words are found by the
    values themselves where they are numbers or texts (or, for one parameter, a list of them):
    the key `EventLog.announced` makes of the parameters' dict (the event, the declared names in
    order, the values, a list as a tuple), its words recorded by `EventLog.said`; any other
    value, words not made yet, or a log past its bound, goes to `announced` with that dict.
    Written for one and two parameters (a call with `*values` would leave Python's fast call);
    None for the others, which `announce_all` announces."""
    names = [p.name for p in m.prog.decls.events[event].params]
    log = m.log         # (its `_words` is looked up each time: `_share` may give it the program's)
    announced, said = log.announced, log.said
    if len(names) == 1:
        [a] = names

        def logged1(m, span, x):
            cls = x.__class__
            if cls is int or cls is str:
                made = log._words.get((event, a, x))
            elif cls is list and _SCALARS.issuperset(map(type, x)):
                made = log._words.get((event, a, tuple(x)))
            else:
                made = None
            if made is None or not said(m, made, span):
                announced(m, event, {a: x}, span)
            return one(m, span, x)
        return logged1
    if len(names) == 2:
        a, b = names

        def logged2(m, span, x, y):
            cls, cly = x.__class__, y.__class__
            made = log._words.get((event, a, b, x, y)) if (cls is int or cls is str) and (cly is int or cly is str) \
                else None
            if made is None or not said(m, made, span):
                announced(m, event, {a: x, b: y}, span)
            return one(m, span, x, y)
        return logged2
    return None


def _over(collect):
    """`over` of a `collect` that has none: its calls for each parameter set in turn."""
    def over(m, param_sets):
        fired: list = []
        for params in param_sets:
            collect(m, params, fired)
        return fired
    over.cards = None
    return over


# the names `_collector` writes: a condition that holds one of them is not written in
_OWN_NAMES = frozenset({"_c", "_seat", "_p", "_ps", "_cz", "_zs", "_out", "_fired", "env",
                        "_e", "_fs", "_v"})     # (`_fire_lines`' and `_sorter`'s own)
# and `one`'s parameters' locals
_LOCAL = re.compile(r"_q[0-9]+")


def _direct(pool, fn, params: dict, it: bool = False, local: dict | None = None) -> str | None:
    """The expression of the generated condition `fn(m, env)` (`ExprGen.function`: its source is in
    the Pool) with its reads of the env written as what the env would hold: `env['$this']` as
    `_c`, `env['$you']` as `_seat`, `env['<an event parameter>']` as `_p['<it>']` (or, given
    `local`, as that parameter's local, `_q<i>`: `one`'s, which also names `_span`); None when it
    reads the env in any other way (a closure given the env, a keyword's argument) or is not
    such a function. `it`: `env['$it']` is read as `_c` too (a trigger order key's env). The
    tokens are rewritten, so a string literal that spells `env['$this']` stays that text: only a
    name token `env` followed by `[`, a string and `]` is replaced."""
    name = getattr(fn, "__name__", "")
    if getattr(fn, "__globals__", None) is not pool.ns:
        return None
    head = f"def {name}(m, env):\n    return "
    src = next((s for s in pool.sources if s.startswith(head)), None)
    if src is None or not src.endswith("\n") or "\n" in src[len(head):-1]:
        return None
    body = src[len(head):-1]
    import io
    import tokenize
    from ast import literal_eval
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(body).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    out, at, i = [], 0, 0
    while i < len(toks):
        tok = toks[i]
        if local is not None and tok.type == tokenize.NAME and (tok.string == "_span" or _LOCAL.fullmatch(tok.string)):
            return None
        if tok.type == tokenize.NAME and tok.string in _OWN_NAMES:
            if tok.string != "env":
                return None
            key = None
            if (i + 3 < len(toks) and toks[i + 1].string == "[" and toks[i + 2].type == tokenize.STRING
                    and toks[i + 3].string == "]" and tok.start[0] == toks[i + 3].end[0] == 1):
                key = literal_eval(toks[i + 2].string)
            if key == "$this" or (it and key == "$it"):
                repl = "_c"
            elif key == "$you":
                repl = "_seat"
            elif key.__class__ is str and key in params and not key.startswith("$"):
                repl = f"_p[{key!r}]" if local is None else local[key]
            else:
                return None
            out += [body[at:tok.start[1]], repl]
            at = toks[i + 3].end[1]
            i += 4
            continue
        i += 1
    out.append(body[at:])
    return "".join(out)


def _indent(lines: list) -> list:
    return ["    " + line for line in lines]


class _Lean(ast.NodeTransformer):
    """`(None if _c is None else X)` as `X`, and the same of `_seat`: where `_direct`'s conditions
    are tested, `_c` is a card and `_seat` a seat, never None."""

    def visit_IfExp(self, node):
        test = node.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name) \
                and test.left.id in ("_c", "_seat") and isinstance(test.comparators[0], ast.Constant) \
                and test.comparators[0].value is None:
            if isinstance(test.ops[0], ast.Is):
                return self.visit(node.orelse)
            if isinstance(test.ops[0], ast.IsNot):
                return self.visit(node.body)
        return self.generic_visit(node)


def _lean(expr: str, pinned: str | None = None, local: dict | None = None) -> str:
    """A condition `_direct` wrote, tested only for its truth where `_c` is a card and `_seat` a
    seat: the same test with what cannot change it left out. `(None if _c is None else X)` is X;
    the whole `(True if A else False)` is A (`bool` of the one is that of the other); of its
    conjuncts, `_p[pinned] == _c` is true for the only card looked at (the parameter pinning the
    entry names it) and is left out (`local`: the parameter is read as its local, `one`'s). Rewritten
    on Python's own tree of the generated text and written back by `ast.unparse`: the names,
    literals and calls are those `_direct` wrote."""
    tree = _Lean().visit(ast.parse(expr, mode="eval")).body
    if isinstance(tree, ast.IfExp) and isinstance(tree.body, ast.Constant) and tree.body.value is True \
            and isinstance(tree.orelse, ast.Constant) and tree.orelse.value is False:
        tree = tree.test
    if pinned is not None and isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And):
        kept = [v for v in tree.values if not _is_pinned(v, pinned, local)]
        if not kept:
            return "True"
        tree = kept[0] if len(kept) == 1 else ast.BoolOp(op=ast.And(), values=kept)
    elif pinned is not None and _is_pinned(tree, pinned, local):
        return "True"
    return ast.unparse(tree)


def _is_pinned(node, key: str, local: dict | None = None) -> bool:
    """Whether `node` is `_p[key] == _c` (or `_c == _p[key]`; given `local`, the key's local for
    `_p[key]`)."""
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq)):
        return False
    sides = (node.left, node.comparators[0])
    if local is not None:
        return any(isinstance(a, ast.Name) and a.id == local[key] and isinstance(b, ast.Name) and b.id == "_c"
                   for a, b in (sides, sides[::-1]))
    return any(isinstance(a, ast.Subscript) and isinstance(a.value, ast.Name) and a.value.id == "_p"
               and isinstance(a.slice, ast.Constant) and a.slice.value == key
               and isinstance(b, ast.Name) and b.id == "_c" for a, b in (sides, sides[::-1]))


def _sorter(prog):
    """`sort(m, fired, start, n)`: the triggers of a moment in the game's order (`Triggers._order`'s
    key written out): each `order simultaneous triggers` key, a number read where `$it` and
    `$this` are the card and `$you` its seat (written in where `_direct` can, else the key's
    function called on that env), highest first negated; then the seat counted from `start`;
    then the card. Built from the compiler's templates and the Pool's names, as `_collector`."""
    pool = prog.pool
    parts = []
    for fn, highest in prog.order_keys:
        if fn == "seat":
            parts.append("_s")
            continue
        direct = _direct(pool, fn, {}, it=True)
        read = f"({_unparsed(direct)})" if direct is not None else \
            f"{pool.ref(fn, 'f')}(m, {{'$it': _c, '$this': _c, '$you': _seat}})"
        parts.append(f"-({read} or 0)" if highest else f"({read} or 0)")
    # the seat from `start` once: after a `seat order` key it compares equal wherever it is reached
    parts += ["_c"] if "_s" in parts else ["_s", "_c"]
    name = pool.fresh_name("o")
    lines = [f"def {name}(m, _fired, _start, _n):",
             "    def _key(_i):",
             "        _e, _c, _seat, _v = _i",
             "        _s = (_seat - _start) % _n",
             f"        return ({', '.join(parts)})",
             f"    return {pool.ref(sorted, 'k')}(_fired, key=_key)"]
    return pool.compile("\n".join(lines) + "\n", name, "trigger order")


def _unparsed(expr: str) -> str:
    """`expr` with `(None if _c is None else X)` as X (`_Lean`), for a value where `_c` and `_seat`
    are never None."""
    return ast.unparse(_Lean().visit(ast.parse(expr, mode="eval")).body)


def _live_cards(prog, entry) -> list:
    """`entry.cards` less those whose condition can never hold: of its leading conjuncts (a key
    parameter's `card = this` holds for the only card looked at, so it is passed over), those
    that read only constants, keyword arguments and printed fields no rule changes are false for
    such a card all game, and `and` evaluates nothing after a false one (Program._fixed_filter,
    as for modifiers; the condition is tested before the text-is-blank rule, so it applies
    whether the card type has one or not). The entry itself is left whole (`cardsmith explain`)."""
    cond = entry.ability.cond
    if cond is None or not entry.cards:
        return entry.cards
    items = cond.items if isinstance(cond, A.AndChain) else (cond,)
    if entry.key_param is not None:
        items = [item for item in items if not _pins(item, entry.key_param)]
    if not items:
        return entry.cards
    sc = prog.ability_scope(entry.ability, prog.card_type_names[entry.cards[0]])
    sc.event_params = dict(prog.event_types(entry.ability.event))
    chain = items[0] if len(items) == 1 else A.AndChain(items=tuple(items), span=cond.span)
    return prog._fixed_filter(SimpleNamespace(cond=chain), sc, dict(entry.extra), entry.cards)


def _pins(item, key: str) -> bool:
    """Whether `item` is `<key> = this` (or `this = <key>`): true for the card the key names."""
    return (isinstance(item, A.Compare) and item.op == "="
            and any(isinstance(a, A.Name) and a.name == key and isinstance(b, A.This)
                    for a, b in ((item.left, item.right), (item.right, item.left))))


class Triggers:
    """Events, triggers and replacements of the step machine (see the module docstring)."""

    @cached_property
    def event_plans(self) -> dict:
        """event -> its `EventPlan` (`plan_of`), made at the event's first announcement: the
        program's dict, kept on the instance after the first read."""
        return self.prog.__dict__.setdefault("_event_plans", {})

    def announce(self, event: str, params: dict, span) -> bool | None:
        """Raise `event`; every matching triggered ability goes on the stack in the declared order."""
        return self.announce_all(event, (params,), span)

    @cached_property
    def quiet_events(self) -> dict:
        """event -> what announcing it does on this machine where only triggers can answer it
        (`EventPlan.plain`) and nothing keeps it (no log line, scenario's history nor tally): its
        `over`'s `fire(m, param_sets, span)` (the triggers of its parameter sets, fired, as
        `announce_all` returns; with the log off, `quick`: `_fire` written out), or `_no_fire`;
        each has `over`'s `cards`. An event's entry is made
        at its first such announcement; a machine's log, history and tally are set before it
        announces anything (Engine.__init__) and never change."""
        return {}

    @cached_property
    def quiet_ones(self) -> dict:
        """event -> its `one` (`_collector`: the triggers of one parameter set given as values,
        fired), for a declared event in `quiet_events` (made with its entry there), or, on a
        machine whose log is on, that `one` after the event's line (`_logged_one`): what a
        generated `announce` calls instead of `announce_all` (compile_stmt `s_AnnounceStmt`);
        an event not in it is announced by `announce_all`."""
        return {}

    @cached_property
    def _quiet_pins(self) -> dict:
        """event -> `quiet_cards(event)` for the events in `quiet_events` (made with their entry)."""
        return {}

    @cached_property
    def quiet_cards(self):
        """`quiet_cards(event)`: where `event` is in `quiet_events` (nothing keeps the moment but
        the triggers) and every trigger of it is pinned by its parameter `card` (`where card =
        this`): the cards such a parameter must name for anything to fire, a frozenset (empty: no
        trigger at all); a parameter set naming another card adds nothing to the moment, so the
        machine need not make it (Machine.flip, move). None otherwise: every parameter set counts.
        The `get` of `_quiet_pins`, kept with `quiet_events` (a call without a Python frame)."""
        return self._quiet_pins.get

    def announce_all(self, event: str, param_sets, span) -> bool | None:
        """Raise `event` once for each set of parameters, as one moment: the triggers of all of
        them are ordered together (two Battle Modifiers revealed by one flip resolve by their
        number, whatever their order in the flip)."""
        quiet = self.quiet_events.get(event)
        if quiet is not None:           # the common case: only triggers answer, and most moments none does
            return quiet(self, param_sets, span)
        plan = self.event_plans.get(event)
        if plan is None:
            plan = self.event_plans[event] = plan_of(self.prog, event)
        if plan.plain and self.history is None and self.tally is None:
            # only triggers can answer (`EventPlan.plain`)
            if plan.declared and self.log.on:
                announced = self.log.announced       # interpreter/log.py: a declared event's line
                for params in param_sets:
                    announced(self, event, params, span)
                if event not in self.quiet_ones:     # a generated `announce` logs and fires at once
                    one = _no_one if plan.over is None else getattr(plan.over, "one", None)
                    logged = None if one is None else _logged_one(self, event, one)
                    if logged is not None:
                        self.quiet_ones[event] = logged
            else:                       # nothing to log: `quiet_events` from now on
                over = plan.over or _no_triggers
                # `_fire` written out where the log is off, unless it (or `_order`) is another (a subclass's)
                quick = not self.log.on and type(self)._fire is _FIRE and type(self)._order is _ORDER
                fire = self.quiet_events[event] = (quick and getattr(over, "quick", None)) \
                    or getattr(over, "fire", None) or _fire_of(over, event)
                self._quiet_pins[event] = getattr(over, "cards", None)    # one without: any card
                one = getattr(over, "one", None) if plan.declared else None
                if one is not None:
                    self.quiet_ones[event] = (quick and getattr(one, "quick", None)) or one
                elif over is _no_triggers and plan.declared:
                    self.quiet_ones[event] = _no_one
                return fire(self, param_sets, span)     # as from now on
            over = plan.over
            if over is None:
                return None
            fired = over(self, param_sets)
            if not fired:
                return None
            return self._fire(plan, event, fired, span)
        if plan.replaced and len(param_sets) == 1 and self.replace(event, param_sets[0], span):
            return True                 # replaced: the event does not happen
        if self.history is not None:    # a scenario keeps every event, to be asked about
            self.remember(event, param_sets)
        if self.tally is not None:      # a simulation's `measure ... counts event`
            self.tally.announced(event, len(param_sets))
        if plan.declared and self.log.on:
            announced = self.log.announced       # interpreter/log.py: a declared event's line
            for params in param_sets:
                announced(self, event, params, span)
        windows = plan.windows
        opened = None
        if windows and not self.st.windows:
            # the window opens once the triggers of the event have resolved: below them; once
            # for the moment (a move that reveals raises two events, and asks the players once)
            for code_id in reversed(windows):
                if not self._window_waiting(code_id):
                    self.push(code_id, {})
                    opened = True
        over = plan.over
        if over is None:
            return opened
        fired = over(self, param_sets)
        if not fired:
            return opened
        return self._fire(plan, event, fired, span)

    def _fire(self, plan: EventPlan, event: str, fired: list, span) -> bool:
        """The triggers one moment set off, in order (the first to resolve on top): logged, those
        a `stack` holds put on it, the others pushed as `push` pushes a frame."""
        if len(fired) > 1 or not plan.one_unordered:    # else ordering one trigger evaluates nothing
            fired = self._order(fired)
        if self.log.on:
            named, names, tails = self.log.named, self.card_names, self._trigger_tails
            for entry, c, seat, env in fired:
                tail = tails.get((seat, event))
                if tail is None:
                    tail = tails[seat, event] = f" of {self.log.player_name(seat)} triggers on {event}"
                # (`card_label`: a trigger's card is a card)
                named(self, "trigger", entry.ability.span, {"card": names[c], "player": seat, "on": event}, c, tail)
        if plan.stacking:
            waiting = [f for f in fired if f[0].stacked]
            if waiting:
                fired = [f for f in fired if not f[0].stacked]
                self._stack_triggers(event, waiting, span)
        frames = self.st.frames
        for entry, c, seat, env in reversed(fired):
            if len(frames) >= MAX_FRAMES:
                raise self._too_deep(entry.code_id)
            frames.append(Frame(entry.code_id, 0, env))
        self.brk = True
        return True

    @cached_property
    def _trigger_tails(self) -> dict:
        """(seat, event) -> the words of a trigger's log line after its card's name (`_fire`), made
        at their first use: the players' names do not change during a game."""
        return {}

    def _stack_triggers(self, event: str, waiting: list, span) -> None:
        """Triggers a `stack` declaration holds go on the stack as items (the first to resolve on
        top), and `triggered` is raised for them as one moment, so that the response window that
        opens after it lets the players answer them before they resolve (docs/language.md, "stack").
        The others of the moment resolve at once, before them."""
        st = self.st
        for entry, c, seat, env in reversed(waiting):
            st.stack_n += 1
            extra = {k: v for k, v in env.items() if k not in ("$this", "$you")}
            st.stack.append({"id": st.stack_n, "card": c, "player": seat, "code": entry.code_id, "negated": False,
                             "label": "triggered ability", "extra": extra})
            if self.log.on:
                self.log.emit(self, "stack", entry.ability.span,
                              {"card": self.card_label(c), "player": seat, "trigger": entry.label,
                               "depth": len(st.stack)},
                              [self.log.used(self, c, "triggered ability"), f" waits on the stack ({len(st.stack)} deep)"])
        self.announce_all(TRIGGERED, [{"card": c, "player": seat} for entry, c, seat, env in waiting], span)

    def _window_waiting(self, code_id: int) -> bool:
        """Whether the window is already waiting to open after this moment: pushed by the
        statement running now (the frames it pushed are those above it not yet begun)."""
        for fr in reversed(self.st.frames):
            if fr.pc:
                return False
            if fr.code_id == code_id:
                return True
        return False

    def replace(self, name: str, params: dict, span) -> bool:
        """If an `instead of <name>` ability applies, run it in place of the procedure or event.
        Each replacement applies once to an event: inside it, the rule it replaced (and any
        further call of it) can still be replaced by the others, in the declared trigger order."""
        hit = self.replacement(name, params)
        if hit is None:
            return False
        self.push_replacement(hit)
        return True

    def replacement(self, name: str, params: dict):
        """The `instead of <name>` ability that applies to `params` now (ready to push, and logged),
        or None. Those already applied are left out: the ones named in `params` (a procedure's
        call carries them) or, for an event, in the rule running now (a replacement's own block
        that does the replaced thing again, changed: `move this to to_zone face down`)."""
        applied = params.get("$replaced")
        if applied is None:
            frames = self.st.frames
            applied = frames[-1].env.get("$replaced") if frames else None
        applied = applied or []         # [[code id, card], ...] already applied
        fired: list = []
        collect = self._replacing.get(name)
        if collect is None:
            collect = self._replacing[name] = _replacement_collect(self.prog, name)
        collect(self, params, fired)
        if fired and applied:
            fired = [f for f in fired if [f[0].code_id, f[1]] not in applied]
        if not fired:
            return None
        entry, c, seat, env = self._order(fired)[0] if len(fired) > 1 else fired[0]
        env["$replaced"] = list(applied) + [[entry.code_id, c]]
        if self.log.on:
            self.log.emit(self, "instead", entry.ability.span, {"card": self.card_label(c), "player": seat,
                                                                "replaces": name},
                          [f"instead of {name}: ", self.log.card(self, c), f" of {self.log.player_name(seat)} applies"])
        return entry.code_id, env

    @cached_property
    def _replacing(self) -> dict:
        """event -> the `collect` of its `instead of` abilities (`_replacement_collect`), made at
        the first time one is asked about: the program's dict, kept on the instance."""
        return self.prog.__dict__.setdefault("_replacement_collects", {})

    def push_replacement(self, hit) -> bool:
        return self.push(hit[0], hit[1])

    def replaced(self, name: str, params: dict) -> bool:
        """`instead of` an engine event (a step, turn or round beginning, an elimination, a
        counter, an action used, an item resolving): True when a replacement takes its place
        (it is pushed, to run next); the caller then does not do the thing."""
        if name not in self.prog.replacements:
            return False
        return self.replace(name, params, None)

    # ------------------------------------------------------------------ moves and flips replaced
    # A game with an `instead of moved` / `revealed` (or `flipped`) ability has these bound as
    # its machine's `move` (`flip`); any other game's moves and flips run as before, asking nothing.
    def replaceable_move(self, cards: list, key, place: str, face, span) -> bool | None:
        rep = self.move_rep
        if cards and not self.replacing and (rep is True or not rep.isdisjoint(cards)):
            return self.replace_move(cards, key, place, face, span)
        return type(self).move(self, cards, key, place, face, span)

    def replaceable_flip(self, cards: list, up: bool, span) -> bool | None:
        rep = self.flip_rep
        if cards and not self.replacing and (rep is True or not rep.isdisjoint(cards)):
            return self.replace_flip(cards, up, span)
        return type(self).flip(self, cards, up, span)

    def unaware(self, card: int) -> list | None:
        """The seats that would learn `card` if it were revealed now: those that do not know it.
        None where the game remembers who has seen it (`remember seen cards`) and every seat
        already knows it: a known card is not revealed again."""
        knew = self.knowers(card)
        if self.remembers and len(knew) == self.n_players:
            return None
        return [s for s in range(self.n_players) if s not in knew]

    def replace_move(self, cards: list, key, place: str, face, span) -> bool:
        """`instead of moved` / `instead of revealed` (docs/language.md, "`instead of`: replacement
        effects"): each card's move is looked at alone, where the card is before it moves. A card
        whose move is replaced stays where it is; one whose reveal is replaced moves face down;
        the others move together, as one moment. Then the replacements run, the first card's
        first, before what the moment set off."""
        reps = self.prog.replacements
        st = self.st
        card_zone, face_up = st.card_zone, st.face_up
        info = self.zone_info.get(key)
        public = info is not None and info[2]
        reveal = REVEALED in reps and public and face != "down"
        moving, down, hits = [], [], []
        for c in cards:
            if MOVED in reps:
                hit = self.replacement(MOVED, {"card": c, "from_zone": card_zone[c], "to_zone": key})
                if hit is not None:
                    hits.append(hit)
                    continue
            if reveal and (face == "up" or face_up[c]) and not (face_up[c] and self.zone_info[card_zone[c]][2]) \
                    and (unaware := self.unaware(c)) is not None:
                hit = self.replacement(REVEALED, {"card": c, "learners": unaware})
                if hit is not None:
                    hits.append(hit)
                    down.append(c)
                    continue
            moving.append(c)
        self.replacing = True
        try:
            if moving:
                self.move(moving, key, place, face, span)
            if down:
                self.move(down, key, place, "down", span)
        finally:
            self.replacing = False
        for hit in reversed(hits):
            self.push_replacement(hit)
        return True

    def replace_flip(self, cards: list, up: bool, span) -> bool:
        """`instead of flipped` / `instead of revealed` for a flip: a card whose flip (or, face up
        in a public zone, whose reveal) is replaced is not turned; the others turn together."""
        reps = self.prog.replacements
        st = self.st
        turning, hits = [], []
        for c in cards:
            if st.face_up[c] == up:
                continue                # already that way: nothing would happen
            hit = self.replacement(FLIPPED, {"card": c}) if FLIPPED in reps else None
            if hit is None and up and REVEALED in reps and self.zone_info[st.card_zone[c]][2] \
                    and (unaware := self.unaware(c)) is not None:
                hit = self.replacement(REVEALED, {"card": c, "learners": unaware})
            if hit is not None:
                hits.append(hit)
            else:
                turning.append(c)
        self.replacing = True
        try:
            if turning:
                self.flip(turning, up, span)
        finally:
            self.replacing = False
        for hit in reversed(hits):
            self.push_replacement(hit)
        return True

    def _collect(self, entries, params: dict, fired: list) -> None:
        """The triggered abilities `params` of an event set off: a cheap index, then the condition."""
        out = self.st.out
        card_zone = self.st.card_zone
        zone_seat = self.zone_seat
        for entry in entries:
            if entry.key_param is not None:
                pinned = params.get(entry.key_param)
                candidates = (pinned,) if pinned in entry.card_set else ()
            else:
                candidates = entry.cards
            for c in candidates:
                seat = zone_seat[card_zone[c]]
                if seat is None or out[seat]:
                    continue            # abilities work only in a player's zones, for players in the game
                env = {**params, "$this": c, "$you": seat}     # in this order: the params', then these
                if entry.extra:
                    env.update(entry.extra)
                if entry.cond is not None and not entry.cond(self, env):
                    continue
                if entry.blank is not None and not entry.blank(self, env):
                    continue
                fired.append((entry, c, seat, env))

    @cached_property
    def _sort_triggers(self):
        """The program's `_sorter`, made at the first moment with triggers to order."""
        prog = self.prog
        sort = prog.__dict__.get("_trigger_sorter")
        if sort is None:
            sort = prog.__dict__["_trigger_sorter"] = _sorter(prog)
        return sort

    def _order(self, fired: list) -> list:
        """Order simultaneous triggers by the game's keys; then seat order from the active player
        (or seat 1); then card order — never by dict order (`_sorter`: `_order_by_keys` written out)."""
        active = self.st.active
        return self._sort_triggers(self, fired, 0 if active is None else active, self.n_players)

    def _order_by_keys(self, fired: list) -> list:
        """`_order` as a loop over the keys (what `_sorter` writes out; tests/test_events_speed_*)."""
        n = self.n_players
        start = self.st.active if self.st.active is not None else 0
        keys = self.prog.order_keys

        def key(item):
            entry, c, seat, env = item
            parts = []
            for fn, highest in keys:
                if fn == "seat":
                    parts.append((seat - start) % n)
                else:
                    v = fn(self, {"$it": c, "$this": c, "$you": seat}) or 0
                    parts.append(-v if highest else v)
            parts.append((seat - start) % n)
            parts.append(c)
            return tuple(parts)
        return sorted(fired, key=key)


# `Triggers._fire` and `_order` themselves: a machine whose own are these may have them written out (`_fire_lines`)
_FIRE, _ORDER = Triggers._fire, Triggers._order
