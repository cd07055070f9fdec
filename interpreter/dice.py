"""Dice pools and limited supplies: what the statements of docs/language.md "Dice pools" and
"A limited supply" do while a game runs.

A pool is a plain list of dice, each die a plain record (JSON-able, saved with the frame's env):

    {"n": 3, "die": "White", "face": ["Aim", "Aim"], "rerolled": False}

`n` is the die's number in its pool (1, 2, ... in the order rolled; a die added later gets the
next number, never one a removed die had), so a die keeps its identity while its face changes.
A statement never changes a pool or a die in place: it builds the new pool and binds the pool's
name to it (a value read before stays what it was, as any value does), and a die named by a plain
name (`reroll d in attack`) is bound to its new record too. Every change is one event of the log
naming the rule that made it. Rolls draw from the game's one seeded generator (interpreter/rng.py).

    roll_pool   `roll 7 White dice and 5 Black dice as pool attack, at most 10`
    roll_into   `roll 2 Black dice into attack`          (beyond the cap the first roll had)
    reroll      `reroll d in attack`                      (each die once: the pool remembers)
    turn        `turn d in attack to [Critical]`          (one of that die's faces)
    remove      `remove d from attack`
    hand_out    `give out 5 minerals from mineral_supply to each player starting with first_player`
    hand_out_cards  `give out 3 cards from supply to each player's hold starting with first_player`
"""
from __future__ import annotations

from cardsmith.dsl.bounds import MAX_DICE_PER_ROLL

from . import rng as R
from .errors import RuleError

POOL_HINT = "name the dice from the pool itself, e.g. you chooses d from attack, or attack where ..."


DIE_KEYS = frozenset({"n", "die", "face", "rerolled"})


def is_die(v) -> bool:
    return v.__class__ is dict and v.keys() == DIE_KEYS


def face_text(face) -> str:
    return "+".join(face) or "blank"


def die_label(d) -> str:
    """`White die 3 (Aim+Aim)`; `, re-rolled` once it was."""
    if not isinstance(d, dict):
        return "none" if d is None else str(d)
    return f"{d['die']} die {d['n']} ({face_text(d['face'])}{', re-rolled' if d['rerolled'] else ''})"


def _too_many(n, span, what: str) -> RuleError:
    return RuleError(f"{what} may hold at most {MAX_DICE_PER_ROLL:,} dice (the bound MAX_DICE_PER_ROLL), "
                     f"not {n:,}", span, "roll fewer dice", code="E0805")


def _roll(m, die: str, faces: list, n: int, first: int) -> list:
    out, state = [], m.st.rng
    for k in range(n):
        state, i = R.below(state, len(faces))
        out.append({"n": first + k, "die": die, "face": list(faces[i]), "rerolled": False})
    m.st.rng = state
    return out


def _count(n) -> int:
    return max(0, n or 0)


def roll_pool(m, groups: list, cap, span) -> list:
    """groups: [(die name, its faces, how many)], rolled in that order; with `cap`, the dice past
    the cap are not rolled (the last groups lose them first)."""
    asked = sum(_count(n) for _, _, n in groups)
    left = asked if cap is None else max(0, min(asked, cap))
    if left > MAX_DICE_PER_ROLL:
        raise _too_many(left, span, "one roll")
    pool: list = []
    for die, faces, n in groups:
        k = min(_count(n), left)
        left -= k
        pool += _roll(m, die, faces, k, len(pool) + 1)
    if m.log.on:
        capped = f" (at most {cap} of {asked})" if cap is not None and asked > len(pool) else ""
        text = f"a pool of {len(pool)} dice is rolled{capped}: " + (", ".join(map(die_label, pool)) or "no dice")
        m.log.emit(m, "pool", span, {"dice": [die_label(d) for d in pool]}, text, weight=len(text))
    return pool


def roll_into(m, pool, die: str, faces: list, n, span) -> list:
    pool = _pool(pool, span)
    k = _count(n)
    if len(pool) + k > MAX_DICE_PER_ROLL:
        raise _too_many(len(pool) + k, span, "a pool")
    added = _roll(m, die, faces, k, _next(pool))
    if m.log.on:
        text = f"{k} {die} {'die is' if k == 1 else 'dice are'} rolled into the pool: " + \
            (", ".join(map(die_label, added)) or "none")
        m.log.emit(m, "pool", span, {"dice": [die_label(d) for d in added]}, text, weight=len(text))
    return pool + added


def _pool(pool, span) -> list:
    if pool is None:
        raise RuleError("this pool of dice is none: it was never rolled", span,
                        "roll it first: roll 3 White dice as pool attack")
    return pool


def _next(pool: list) -> int:
    return max((d["n"] for d in pool), default=0) + 1


def _targets(pool: list, dice, span, what: str) -> list[int]:
    """The places in `pool` of the die or dice named (a die or a list of dice), each once."""
    wanted = dice if isinstance(dice, list) else [dice]
    at = {d["n"]: i for i, d in enumerate(pool)}
    out: list[int] = []
    for d in wanted:
        if not isinstance(d, dict) or d.get("n") not in at:
            raise RuleError(f"cannot {what} {die_label(d)}: it is not a die of this pool", span,
                            POOL_HINT, code="E0840")
        if at[d["n"]] not in out:
            out.append(at[d["n"]])
    return out


def reroll(m, pool, dice, dice_faces: dict, span) -> tuple[list, object]:
    """Each die named is rolled again unless it was re-rolled before (it stays as it is, and the
    log says so). Returns the new pool and the named dice as they are now."""
    pool = list(_pool(pool, span))
    state = m.st.rng
    said = []
    for i in _targets(pool, dice, span, "re-roll"):
        d = pool[i]
        if d["rerolled"]:
            said.append(f"{die_label(d)} was re-rolled before and stays")
            continue
        faces = dice_faces[d["die"]]
        state, k = R.below(state, len(faces))
        pool[i] = {**d, "face": list(faces[k]), "rerolled": True}
        said.append(f"{d['die']} die {d['n']} is re-rolled: {face_text(d['face'])} becomes {face_text(faces[k])}")
    m.st.rng = state
    if m.log.on and said:
        text = "; ".join(said)
        m.log.emit(m, "reroll", span, {}, text, weight=len(text))
    return pool, _now(pool, dice)


def turn(m, pool, dice, face: list, dice_faces: dict, span) -> tuple[list, object]:
    pool = list(_pool(pool, span))
    said = []
    for i in _targets(pool, dice, span, "turn"):
        d = pool[i]
        if tuple(face) not in {tuple(f) for f in dice_faces[d["die"]]}:
            raise RuleError(f"{die_label(d)} has no face {face_text(face)}", span,
                            f"the faces of {d['die']} are " + ", ".join(face_text(f) for f in dice_faces[d["die"]]),
                            code="E0840")
        pool[i] = {**d, "face": list(face)}
        said.append(f"{d['die']} die {d['n']} is turned from {face_text(d['face'])} to {face_text(face)}")
    if m.log.on and said:
        text = "; ".join(said)
        m.log.emit(m, "turn die", span, {}, text, weight=len(text))
    return pool, _now(pool, dice)


def remove(m, pool, dice, span) -> list:
    pool = _pool(pool, span)
    gone = _targets(pool, dice, span, "remove")
    if m.log.on and gone:
        text = ", ".join(die_label(pool[i]) for i in gone) + (" is" if len(gone) == 1 else " are") + \
            " taken out of the pool"
        m.log.emit(m, "remove dice", span, {}, text, weight=len(text))
    return [d for i, d in enumerate(pool) if i not in gone]


def _now(pool: list, dice):
    """The die (or dice) named, as the pool holds them now."""
    by_n = {d["n"]: d for d in pool}
    if isinstance(dice, list):
        return [by_n.get(d["n"], d) for d in dice]
    return by_n.get(dice["n"], dice)


def hand_out(m, wants: list, attr: str, hi, supply: str, span) -> None:
    """`wants`: [(player, how many)] in seat order from the player handed out to first. While the
    supply lasts, each player in turn who still wants one takes one (a player whose number is at
    its `at most` bound takes no more). With enough in the supply, everyone gets all they want."""
    left = m.st.game[supply]
    if left is None:
        raise RuleError(f"the supply '{supply}' is none", span, "give it a number: game has: ... = 30")
    want = {p: _count(n) for p, n in wants}
    got = {p: 0 for p, _ in wants}
    order = [p for p, _ in wants]
    for p in order:
        if m.players[p][attr] is None:
            raise RuleError(f"{m.log.player_name(p)}'s {attr} is none: nothing can be added to it", span,
                            f"give it a number first: set p's {attr} to 0")
    base = {p: m.players[p][attr] for p in order}
    while left > 0:     # whole rounds at once (a supply may be large), then one each in order
        active = [p for p in order if got[p] < want[p] and (hi is None or base[p] + got[p] < hi)]
        if not active:
            break
        room = min(want[p] - got[p] if hi is None else min(want[p] - got[p], hi - base[p] - got[p])
                   for p in active)
        rounds = min(room, left // len(active))
        if rounds:
            for p in active:
                got[p] += rounds
            left -= rounds * len(active)
            continue
        for p in active:        # fewer left than players who want one: the first in order take them
            if left == 0:
                break
            got[p] += 1
            left -= 1
    for p in order:
        if got[p]:
            m.assign("player", p, attr, m.players[p][attr] + got[p], span)
    m.assign("game", None, supply, left, span)
    if m.log.on:
        parts = [f"{m.log.player_name(p)} {got[p]}" + (f" of {_count(n)}" if got[p] < _count(n) else "")
                 for p, n in wants]
        text = f"{attr} handed out one at a time from {supply}: " + ", ".join(parts) + f"; {left} left"
        m.log.emit(m, "give out", span, {"attribute": attr, "got": [got[p] for p in order]}, text, weight=len(text))


def hand_out_cards(m, source, wants: list, keys: list, face, span):
    """The top cards of zone `source`, one at a time around the table (`wants` as in hand_out),
    each into the player's own zone of `keys` (by seat), until each has had their number or the
    source is empty. A zone capped with `at most` (and no `discard down into`) takes no more once
    full; one that discards down takes them, and its owner discards after that move
    (interpreter/caps.py). Each card's move is logged as any move; then who got how many."""
    if source is None:
        raise RuleError("there is no zone to give cards out from: this is none", span,
                        "check it first: if ... is not none:")
    held = m.zones[source]
    want = {p: _count(n) for p, n in wants}
    got = {p: 0 for p, _ in wants}
    order = [p for p, _ in wants]
    result = None
    while held:
        gave = False
        for p in order:
            if not held:
                break
            if got[p] >= want[p]:
                continue
            key = keys[p]
            z = m.zone_info[key][0]
            if z.capacity is not None and z.discard_into is None and len(m.zones[key]) >= z.capacity:
                want[p] = got[p]        # full: takes no more
                continue
            result = m.move([held[-1]], key, "top", face, span) or result
            got[p] += 1
            gave = True
        if not gave:
            break
    if m.log.on:
        parts = [f"{m.log.player_name(p)} {got[p]}" + (f" of {_count(n)}" if got[p] < _count(n) else "")
                 for p, n in wants]
        text = "cards given out one at a time: " + ", ".join(parts) + f"; {len(held)} left"
        m.log.emit(m, "give out", span, {"got": [got[p] for p in order]}, text, weight=len(text))
    return result
