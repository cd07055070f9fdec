"""Actions, response windows and the stack (docs/language.md, "How a game runs").

An action (`action "Name" from hand, at any time, if cost = 0, cost: exhaust:`) that a
player uses is paid for, then put on the stack as an item. A response window declared to
open after `action_used` (or any other event) asks the players, in the window's order,
whether they answer with an action usable at any time; every answer goes on top of the
stack, and asking starts again from the first player. When every player has passed in a
row, the top item resolves (last in, first out) and asking starts again; the window closes
when everyone passes and the stack is empty. `counter X` takes X's item off the stack (it
never happens); `negate X` lets it resolve without effect. Both, and every resolution, are
events (`countered`, `resolved`) that abilities can listen to.

Everything here keeps its state in the GameState (`stack`, `used`, `windows`), so a game
saved in the middle of a cascade resumes it exactly.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from cardsmith.dsl import ast as A
from cardsmith.dsl.registry import ACTION_USED, COUNTERED, RESOLVED, TARGETED
from cardsmith.dsl.types import ANY, CARD, Scope, elem, is_list

from .compile_stmt import Ctx
from .errors import RuleError, charge
from .reads import _nodes


@dataclass
class ActionEntry:
    """An activated ability and the cards that carry it."""
    index: int
    ability: A.Activated
    code_id: int
    from_zones: tuple           # the zones `from` names (`from hand or station`); () for anywhere
    any_time: bool
    own_turn: bool
    conds: list                 # fn(m, env) -> bool
    costs: list                 # ("exhaust",) | ("tap", period) | ("pay", amount_fn, attribute)
    blank: object
    cards: list
    label: str
    card_set: frozenset = frozenset()
    extra: dict = field(default_factory=dict)     # a keyword's arguments
    # `target t from <collection>`: (name, fn(m, env) -> candidates, decision kind, span), in order
    targets: list = field(default_factory=list)
    targeting: int | None = None                  # the code that asks for the targets, then commits
    # the cards whose `if` can hold (`_fixed_cards`); None: every card of `cards` may
    fixed: frozenset | None = None


def build_actions(prog) -> list[ActionEntry]:
    entries: list[ActionEntry] = []
    d = prog.decls
    for ab, args, type_name, cards in prog.ability_groups(A.Activated):
        sc = prog.ability_scope(ab, type_name)
        from_zones, any_time, own_turn, conds, costs = (), False, False, [], []
        for act in ab.activations:
            if act.kind == "from":
                from_zones = act.names or (act.name,)
            elif act.kind == "any_time":
                any_time = True
            elif act.kind == "own_turn":
                own_turn = True
            elif act.kind == "if":
                conds.append(prog.gen.function(act.expr, sc, "action condition"))     # generated code
            elif act.kind == "cost_exhaust":
                costs.append(("exhaust",))
            elif act.kind == "cost_tap":
                costs.append(("tap", act.name))
            elif act.kind == "cost_pay":
                costs.append(("pay", prog.gen.function(act.expr, sc, "action cost"), act.name))
        owner = type_name if ab in d.card_types[type_name].abilities else prog.game.cards[cards[0]].name
        body_sc, targets = sc.child(), []
        for act in ab.activations:
            if act.kind == "target":        # a later target's collection may name an earlier one
                t = prog.exprs.type_of(act.expr, body_sc)
                kind = elem(t) if is_list(t) else ANY
                targets.append((act.name, prog.gen.collection_function(act.expr, body_sc, "action target"),
                                kind, act.span))
                body_sc.locals[act.name] = kind
        code = prog.new_code(f"action {owner}: {ab.name}")
        prog.stmts.block(ab.body, Ctx(code, body_sc))
        entry = ActionEntry(len(entries), ab, code.id, from_zones, any_time, own_turn, conds, costs,
                            prog.blank_of(type_name), cards, ab.name, frozenset(cards), dict(args), targets)
        if entry.blank is None:
            entry.fixed = _fixed_cards(prog, ab, sc, entry.extra, cards)
        if targets:
            entry.targeting = _build_targeting(prog, entry, owner)
        entries.append(entry)
    return entries


def _fixed_cards(prog, ab: A.Activated, sc: Scope, extra: dict, cards: list) -> frozenset | None:
    """The cards for which the action's `if` can hold, from its conjuncts that have the same
    value for a card all game (`Program._fixed`: constants, the keyword's arguments, printed fields
    of `this` that nothing writes or modifies), evaluated once here against the printed fields
    (as `Program._fixed_filter` does for a `modify ... while`). A fixed conjunct counts only if
    every conjunct before it is `_quiet` (it cannot fail, charge work or read the card): for a
    card it leaves out, the `if` is false and evaluating it does nothing else, so `usable` skips
    the card without evaluating it (the candidates' work is charged as before). None: no such
    conjunct, or one the printed fields cannot answer (every card is evaluated as it plays)."""
    items = []
    for act in ab.activations:
        if act.kind == "if":        # `if a, if b`: one conjunction, in order
            items.extend(act.expr.items if isinstance(act.expr, A.AndChain) else (act.expr,))
    fixed = []
    for item in items:
        if prog._fixed(item, sc, extra):
            fixed.append(item)
        elif not _quiet(prog, item, sc):
            break
    if not fixed:
        return None
    kept = prog.printed_pass(fixed, sc, extra, cards)
    return None if kept is None else frozenset(kept)


# the nodes of a conjunct that `_quiet` lets through: constants, `=` / `!=`, `not`, `and` / `or`,
# the current step or phase, names of game attributes and enum members
_QUIET = (A.Num, A.Text, A.Bool, A.Nothing, A.Compare, A.NotOp, A.AndChain, A.OrChain, A.CurrentStep, A.Name)


def _quiet(prog, e, sc: Scope) -> bool:
    """Whether evaluating `e` can neither fail nor charge work, and reads nothing of a card: it
    may stand before a fixed conjunct (`_fixed_cards`) that decides the `if` for a card."""
    for node in _nodes(e):
        if not isinstance(node, _QUIET) or type(node) not in _QUIET:
            return False
        if isinstance(node, A.Compare) and node.op not in ("=", "!="):
            return False            # an ordering meets none with an error
        if isinstance(node, A.Name):
            kind = prog.exprs.kind_of(node, sc)
            if kind == "member":
                continue
            if kind != "game_attr" or node.name in prog.modified_game_attrs:
                return False        # a modified attribute adds up its modifiers (work)
    return True


def _build_targeting(prog, entry: ActionEntry, owner: str) -> int:
    """The code run when an action with targets is used (docs/language.md, "Targets"): its
    user chooses each target in the order written, from its collection as it is now; then the
    action is paid for and put on the stack with its targets (`commit`)."""
    code = prog.new_code(f"targets of {owner}: {entry.label}")
    for name, coll, kind, span in entry.targets:
        prompt = f"Choose the target of {entry.label} ({name})"

        def ask(m, fr, name=name, coll=coll, kind=kind, span=span, prompt=prompt):
            env = fr.env
            return m.ask(env["$you"], prompt, list(coll(m, env) or ()), name, kind, span)
        code.emit(ask, span, ("ask", "$you", f": the target {name} of {entry.label} → {name}"))
    span = entry.ability.span

    def finish(m, fr):
        env = fr.env
        commit(m, env["$you"], f"{entry.index}:{env['$this']}", {n: env.get(n) for n, *_ in entry.targets}, span)
        return True
    code.emit(finish, span, ("use_action", f"pay for {entry.label} and put it on the stack with its targets"))
    return code.id


# ---------------------------------------------------------------------------- using actions

def _period_key(m, period: str) -> int:
    return m.st.turns if period == "turn" else m.st.round


def usable(m, player: int, any_time_only: bool) -> list[str]:
    """Keys "entry:card" of every action `player` may use now, in a stable order.

    The hot loop of a game with a window that `opens at any moment` (asked after every event):
    what is fixed for a seat is worked out once (`_plan`). Most actions have no card where they
    are used from most of the time, so the candidates are found from the cards rather than from
    the actions: the cards in each set of zones are gathered and sorted once per call, and each
    one adds itself to the actions it carries (`_Plan.by_card`); an action used wherever its
    cards lie looks through its own cards. Then the actions that have candidates are checked in
    the program's order, so the order of the checks, and the work charged for each action's
    candidates, are as they were when every action was looked at in turn."""
    st = m.st
    out = []
    zone_seat, card_zone, zones = m.zone_seat, st.card_zone, m.zones
    plan = m.prog.action_keys.get(("plan", any_time_only, player))
    if plan is None:
        plan = _plan(m, player, any_time_only)
    found: dict = {}        # position in plan.rows -> its candidates, in card order
    for keys, by_card in plan.by_zones:
        # only the cards in those zones of the player: a hand (or a hand and a station), not
        # the whole game; in card order, whichever zone holds them
        inside = [c for key in keys for c in zones.get(key, ())]
        if len(keys) > 1:
            inside.sort()
        elif len(inside) > 1:
            inside = sorted(inside)
        for c in inside:
            rows = by_card.get(c)
            if rows is not None:
                for i in rows:
                    got = found.get(i)
                    if got is None:
                        found[i] = [c]
                    else:
                        got.append(c)
    for c, i in plan.anywhere:      # each card of such an action, by row, then in the action's order
        if zone_seat[card_zone[c]] == player:
            got = found.get(i)
            if got is None:
                found[i] = [c]
            else:
                got.append(c)
    if not found:
        return out
    active = st.active
    rows = plan.rows
    # one env for the candidates of the actions without keyword arguments, `$this` set for each:
    # the checks only read it (a closure that binds `it` or a name in it puts back what was there)
    bare = {"$this": None, "$you": player}
    for i in (sorted(found) if len(found) > 1 else found):
        entry, blank, conds, extra, fixed, mine, last = rows[i]
        if entry.own_turn and active != player:
            continue
        candidates = found[i]
        st.work += len(candidates)      # `charge`, inlined: searching the cards is work, not one step
        if st.work > m.max_steps:
            charge(m, 0, None)
        if fixed is not None:       # the cards whose `if` is false all game are never evaluated
            candidates = [c for c in candidates if c in fixed]
        env = {"$this": None, "$you": player, **extra} if extra else bare
        for c in candidates:
            if not mine and zone_seat[card_zone[c]] != player:
                continue
            env["$this"] = c
            if blank is not None and not blank(m, env):
                continue
            for cond in conds:
                if not cond(m, env):
                    break
            else:
                costs, targets, prefix = last      # (read only for a candidate its checks let by)
                if costs and not _can_pay(m, entry, c, player, env):
                    continue
                if targets and not _has_targets(m, entry, env):
                    continue
                out.append(prefix + str(c))
    return out


class _Plan:
    """What `usable` needs for one seat, fixed by the program. `rows`: each action a window may
    offer (or all), in the program's order, with its checks and whether its candidates are surely
    in the seat's zones (`_plan`'s `mine`). `by_zones`: for each set of zone
    keys actions are used from, {card: [the rows of those actions that card carries]}.
    `anywhere`: (card, row) of each card of the actions used wherever their cards lie, by row,
    then in the action's order of its cards (one loop over them all, where each row was a list)."""
    __slots__ = ("rows", "by_zones", "anywhere")

    def __init__(self, rows: list, by_zones: list, anywhere: list):
        self.rows, self.by_zones, self.anywhere = rows, by_zones, anywhere


def _plan(m, player: int, any_time_only: bool) -> _Plan:
    """`usable`'s `_Plan` for `player`: the actions a window may offer (`any_time_only`) or all,
    each with the zone keys it is used from (None: its cards wherever they are) and its checks,
    in the program's order."""
    prog = m.prog
    rows: list = []
    by_keys: dict = {}          # zone keys -> {card: [rows]}, in the order the keys first appear
    anywhere: list = []
    for entry in prog.actions:
        if any_time_only and not entry.any_time:
            continue
        keys = None
        if entry.from_zones:
            keys = prog.action_keys.get((entry.index, player))
            if keys is None:    # the zones' keys for this action and seat: fixed by the program
                keys = prog.action_keys[(entry.index, player)] = tuple(
                    key for name in entry.from_zones for key in _from_keys(m, name, player))
        i = len(rows)
        # `mine`: every candidate is in the seat's zones (`usable` need not look again): found so
        # (used anywhere), or from zones each of which is one of its own (not a shared zone, nor
        # an entity's, whose slot changes hands)
        mine = keys is None or all(prog.decls.zones[name].per_player for name in entry.from_zones)
        rows.append((entry, entry.blank, tuple(entry.conds), entry.extra, entry.fixed, mine,
                     (tuple(entry.costs), entry.targets, f"{entry.index}:")))
        if keys is None:
            anywhere.append(i)
            continue
        by_card = by_keys.setdefault(keys, {})
        for c in entry.card_set:
            by_card.setdefault(c, []).append(i)
    plan = _Plan(rows, [(keys, by_card) for keys, by_card in by_keys.items() if keys and by_card],
                 [(c, i) for i in anywhere for c in rows[i][0].cards])
    prog.action_keys[("plan", any_time_only, player)] = plan
    return plan


def _has_targets(m, entry, env) -> bool:
    """An action with targets is offered only while each target has a candidate (a later
    target's candidates worked out with the earlier ones as their first candidates)."""
    env = dict(env)
    for name, coll, _kind, _span in entry.targets:
        found = coll(m, env)
        if not found:
            return False
        env[name] = found[0]
    return True


def _can_pay(m, entry, c, player, env) -> bool:
    for cost in entry.costs:
        if cost[0] == "exhaust" and not m.st.face_up[c]:
            return False
        if cost[0] == "tap" and m.st.used.get(f"{entry.index}:{c}") == _period_key(m, cost[1]):
            return False
        if cost[0] == "pay":
            # what they have is what a read sees: a `modify` of the attribute counts
            have = (m.modified_player(player, cost[2]) if cost[2] in m.prog.modified_player_attrs
                    else m.players[player].get(cost[2]))
            if have is None or have < (cost[1](m, env) or 0):
                return False
    return True


def _from_keys(m, name: str, player) -> list:
    """The zones `action ... from <name>` looks in for `player`: theirs, the shared one, or (a zone
    per an entity, docs/language.md "entity") that zone of each of their entities."""
    zd = m.prog.decls.zones[name]
    if zd.per_player:
        return [m.prog.zone_keys[name][player]]
    if zd.per_entity is not None:
        most = m.prog.decls.entities[zd.per_entity].most
        return m.prog.zone_keys[name][player * most:(player + 1) * most]
    return [name]


def label(m, key: str) -> str:
    if key is None:
        return "pass"
    index, _, c = key.partition(":")
    return f"{m.card_label(int(c))}: {m.prog.actions[int(index)].label}"


def use(m, player: int, key: str, span) -> None:
    """Use the action `key` ("entry:card"): its targets are chosen first (a code pushed to ask for
    them, which then commits), else it is committed at once."""
    index, _, c = key.partition(":")
    entry, c = m.prog.actions[int(index)], int(c)
    if ACTION_USED in m.prog.replacements and m.replaced(ACTION_USED, {"card": c, "player": player}):
        return                  # `instead of action_used`: not paid, not on the stack; the replacement runs
    if entry.targets:
        m.push(entry.targeting, {"$this": c, "$you": player, **entry.extra})
        return
    commit(m, player, key, None, span)


def commit(m, player: int, key: str, targets: dict | None, span) -> None:
    """Pay for the action `key`, put it on the stack (with its chosen `targets`), announce
    `targeted` for each card targeted (as one moment), then `action_used`."""
    index, _, c = key.partition(":")
    entry, c = m.prog.actions[int(index)], int(c)
    env = {"$this": c, "$you": player, **entry.extra}
    for cost in entry.costs:
        if cost[0] == "exhaust":
            m.flip([c], False, span)
        elif cost[0] == "tap":
            m.st.used[f"{entry.index}:{c}"] = _period_key(m, cost[1])
        elif cost[0] == "pay":
            amount = cost[1](m, env) or 0
            m.assign("player", player, cost[2], m.players[player][cost[2]] - amount, span)
    st = m.st
    st.stack_n += 1
    item = {"id": st.stack_n, "card": c, "player": player, "code": entry.code_id, "negated": False,
            "label": entry.label, "extra": entry.extra}
    if targets is not None:         # and the cards among them (for the agents' samples: determinize._pinned)
        item["entry"], item["targets"] = entry.index, targets
        item["targeted"] = [v for (n, v), t in zip(targets.items(), entry.targets) if t[2] == CARD and v is not None]
    st.stack.append(item)
    if m.log.on:
        data = {"card": m.card_label(c), "player": player, "action": entry.label, "depth": len(st.stack)}
        text = [f"{m.log.player_name(player)} uses ", m.log.used(m, c, entry.label)]
        if targets is not None:
            kinds = [t[2] for t in entry.targets]
            data["targets"] = {n: m.log.typed(m, v, k) for (n, v), k in zip(targets.items(), kinds)}
            for i, ((n, v), k) in enumerate(zip(targets.items(), kinds)):
                text += [" targeting " if i == 0 else " and ", _target_part(m, v, k)]
        m.log.emit(m, "stack", entry.ability.span, data, text + [f" (on the stack, {len(st.stack)} deep)"])
    # each card or player targeted: `card` names a card, `target` a player (the other is none)
    hit = [{"card": v if kind == CARD else None, "source": c, "player": player, "ability": entry.label,
            "target": None if kind == CARD else v}
           for (n, v), (_n, _coll, kind, _s) in zip(targets.items(), entry.targets) if v is not None] if targets else ()
    after_use = m.prog.windows_after.get(ACTION_USED)
    if not (after_use or (hit and m.prog.windows_after.get(TARGETED))):
        resolve_top(m, span)          # no window answers actions: it resolves at once
    if hit:
        if after_use and not st.windows:
            # a window after `action_used` opens once the triggers of the whole use have resolved,
            # those of `targeted` too: it waits below them (announce_all finds it waiting, and
            # does not push it again), so an answer to the targeting resolves before the action
            for code_id in reversed(after_use):
                m.push(code_id, {})
        m.announce_all(TARGETED, hit, span)
    m.announce(ACTION_USED, {"card": c, "player": player}, span)


def _target_part(m, v, kind):
    """A target as a part of the log's text: a card by the rule of who may see it."""
    if v is None:
        return "nothing"
    return m.log.card(m, v) if kind == CARD else str(m.log.typed(m, v, kind))


def resolve_top(m, span) -> None:
    """The top item leaves the stack and resolves (its effect is skipped if it was negated);
    then `resolved` is announced."""
    item = m.st.stack.pop()
    if RESOLVED in m.prog.replacements and m.replaced(RESOLVED, {"card": item["card"], "negated": item["negated"]}):
        return                  # `instead of resolved`: it leaves the stack without effect; the replacement runs
    if m.log.on:
        m.log.emit(m, "resolve", span, {"card": m.card_label(item["card"]), "negated": item["negated"]},
                   [m.log.used(m, item["card"], item["label"]),
                    " resolves" + (" (negated: no effect)" if item["negated"] else "")])
    env = {"$this": item["card"], "$you": item["player"], **item.get("extra", {})}
    fizzled = not item["negated"] and "targets" in item and not _legal_targets(m, item, env, span)
    after = m.prog.after_resolve
    m.push(after, {"$card": item["card"], "$negated": item["negated"] or fizzled})
    if not item["negated"] and not fizzled:
        m.push(item["code"], env)


def _legal_targets(m, item: dict, env: dict, span) -> bool:
    """Each target chosen when the action was used is checked again as it resolves: one no
    longer among its collection's candidates (worked out now, with the earlier targets as they
    were chosen) is not touched — the action fizzles for it, and its name reads `none`. When no
    target is legal, the whole action fizzles: it resolves without effect (as if negated).
    Adds the targets to `env`; False when every target fizzled."""
    entry = m.prog.actions[item["entry"]]
    chosen = dict(env, **item["targets"])      # a later target's candidates read the earlier as chosen
    gone = []
    for name, coll, kind, _span in entry.targets:
        v = item["targets"].get(name)
        if v is None or v not in (coll(m, chosen) or ()):
            gone.append((name, v, kind))
    legal = len(gone) < len(entry.targets)
    env.update(item["targets"])
    for name, v, kind in gone:
        env[name] = None
        if v is not None and m.log.on:
            m.log.emit(m, "fizzle", span, {"card": m.card_label(item["card"]), "target": m.log.typed(m, v, kind)},
                       [m.log.used(m, item["card"], item["label"]), " fizzles for ", _target_part(m, v, kind),
                        f", no longer a legal target ({name})"])
    if not legal and len(entry.targets) > 1 and m.log.on:
        m.log.emit(m, "fizzle", span, {"card": m.card_label(item["card"])},
                   [m.log.used(m, item["card"], item["label"]), " fizzles: none of its targets is legal"])
    return legal


def _item_of(m, card, span):
    for item in reversed(m.st.stack):
        if item["card"] == card:
            return item
    return None


def counter(m, card, span) -> None:
    item = _item_of(m, card, span)
    if item is None:
        if m.log.on:
            m.log.emit(m, "counter", span, {}, [m.log.card(m, card), " is not on the stack: nothing to counter"])
        return
    if COUNTERED in m.prog.replacements and m.replaced(COUNTERED, {"card": card}):
        return                  # `instead of countered`: the item stays on the stack; the replacement runs
    m.st.stack.remove(item)
    if m.log.on:
        m.log.emit(m, "counter", span, {"card": m.card_label(card)},
                   [m.log.used(m, card, item["label"]), " is countered: it never happens"])
    m.announce(COUNTERED, {"card": card}, span)


def negate(m, card, span) -> None:
    item = _item_of(m, card, span)
    if item is None:
        if m.log.on:
            m.log.emit(m, "negate", span, {}, [m.log.card(m, card), " is not on the stack: nothing to negate"])
        return
    item["negated"] = True
    if m.log.on:
        m.log.emit(m, "negate", span, {"card": m.card_label(card)},
                   [m.log.used(m, card, item["label"]), " is negated: it will resolve without effect"])


# ---------------------------------------------------------------------------- windows

def build_window(prog, decl: A.WindowDecl) -> int:
    """The response window as code: ask → apply, looping until everyone passes on an empty stack."""
    code = prog.new_code(f"response window {decl.name}")
    order = prog.exprs.compile(decl.order, Scope()) if decl.order is not None else None
    span = decl.span
    name = decl.name
    quiet = decl.any_moment
    ASK = 1

    def open_(m, fr):
        env = fr.env
        if quiet and not m.st.stack and not _anyone_can_answer(m, env):
            # `opens at any moment`: a moment nobody can answer opens nothing (and is not logged)
            fr.pc = len(code.ops)
            return False
        env["$passes"] = 0
        env["$i"] = 0
        m.st.windows += 1
        if m.log.on:
            m.log.emit(m, "window", span, {"name": name}, f"response window {name} opens")

    def _anyone_can_answer(m, env) -> bool:
        players = order(m, env) if order is not None else m.seat_order()
        return any(p is not None and not m.st.out[p] and usable(m, p, any_time_only=True) for p in players)

    def ask(m, fr):
        env = fr.env
        players = order(m, env) if order is not None else m.seat_order()
        players = [p for p in players if p is not None and not m.st.out[p]]   # none answers nothing
        if not players or env["$passes"] >= len(players):
            if m.st.stack:
                env["$passes"] = 0
                env["$i"] = 0
                fr.pc = ASK
                resolve_top(m, span)
                return True
            m.st.windows -= 1
            fr.pc = len(code.ops)
            if m.log.on:
                m.log.emit(m, "window", span, {"name": name}, f"response window {name} closes")
            return True
        p = players[env["$i"] % len(players)]
        env["$who"] = p
        options = usable(m, p, any_time_only=True)
        if not options:
            env["$passes"] += 1
            env["$i"] += 1
            fr.pc = ASK
            return False
        m.ask(p, f"Respond in {name}?", [None] + options, "$resp", "action", span)
        return True

    def apply(m, fr):
        env = fr.env
        choice = env.pop("$resp", None)
        fr.pc = ASK
        if choice is None:
            env["$passes"] += 1
            env["$i"] += 1
            return False
        env["$passes"] = 0
        env["$i"] = 0
        use(m, env["$who"], choice, span)
        return True

    end = [0]           # for the listing only: `ask` jumps to len(code.ops), the end
    code.emit(open_, span, ("open_window", f'"{name}"; $passes ← 0; $i ← 0') if not quiet else
              ("open_window", f'"{name}" if someone can answer or the stack is not empty, else → ', end,
               "; $passes ← 0; $i ← 0"))
    code.emit(ask, span, ("ask", "the next player in ", decl.order if decl.order is not None else "seat order",
                          ": respond or pass → $resp; all passed: resolve the top of the stack, or when it is "
                          "empty close the window → ", end))
    code.emit(apply, span, ("use_action", "$resp (a pass counts in $passes), then jump ", [ASK]))
    end[0] = code.here()
    return code.id


def build_after_resolve(prog) -> int:
    code = prog.new_code("the stack: after an item resolves")

    def announce(m, fr):
        env = fr.env
        m.announce(RESOLVED, {"card": env["$card"], "negated": env["$negated"]}, None)
        return True
    code.emit(announce, None, ("announce", "resolved(card: $card, negated: $negated)"))
    return code.id


def take_actions(m, player, span, var: str) -> bool:
    """Ask `player` for their next action (or done). True when a decision is pending."""
    options = usable(m, player, any_time_only=False)
    env = m.st.frames[-1].env
    if not options:
        env[var] = None
        return False
    m.ask(player, "Take an action?", [None] + options, var, "action", span)
    return True


__all__ = ["ActionEntry", "build_actions", "build_window", "build_after_resolve", "usable", "use", "commit",
           "resolve_top", "counter", "negate", "take_actions", "label", "RuleError"]
