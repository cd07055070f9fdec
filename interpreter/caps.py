"""Discarding down: a zone declared `at most N, discard down into Z` (docs/language.md, `zone`).

A move may take such a zone past N cards (any other capped zone refuses it: E0802). Right after
the move (before the next instruction, and before what the move triggers), the engine pushes the
zone's discard code with the zone's owner as `$you`; it asks them for one card of the zone at a
time ("Discard down to 12") and moves it to Z — their own Z when Z is a zone per player, else the
shared one — until the zone holds N again. Several moves past the cap in one rule each push it;
one that finds the zone at N or under does nothing. The code is built once per such zone
(`build`), after every other code, so the codes of a game without such zones are unchanged.

    zone minerals: per player, public, at most 12, discard down into mineral_discard
"""
from __future__ import annotations

from .compile_stmt import Code


def build(program) -> dict[str, int]:
    """{zone name: the id of its discard code} for every zone that discards down."""
    out: dict[str, int] = {}
    for name, z in program.decls.zones.items():
        if z.discard_into is not None and z.capacity is not None:
            out[name] = _code(program, z).id
    return out


def _code(program, z) -> Code:
    code: Code = program.new_code(f"zone {z.name}: discard down")
    cap, span, into = z.capacity, z.span, z.discard_into
    keys = program.zone_keys[into]                  # by seat, or [the shared zone]
    per_player = program.decls.zones[into].per_player
    prompt = f"Discard down to {cap}"
    end = [0]

    def check(m, fr):
        if len(m.zones[fr.env["$zone"]]) <= cap:
            fr.pc = end[0]

    def ask(m, fr):
        env = fr.env
        return m.ask(env["$you"], prompt, list(m.zones[env["$zone"]]), "$discard", "card", span)

    def discard(m, fr):
        env = fr.env
        c = env.pop("$discard")
        fr.pc = 0
        if c is None:
            return None
        dest = keys[env["$you"]] if per_player else keys[0]
        return m.move([c], dest, "top", None, span)

    code.emit(check, span, ("jump_if", f" the zone holds {cap} or fewer → ", end))
    code.emit(ask, span, ("ask", f"the zone's owner: choose a card of it to discard — \"{prompt}\""))
    code.emit(discard, span, ("move", f" the card chosen to {into}, then again"))
    end[0] = code.here()
    return code


def over(m, key: str) -> None:
    """After a move into zone `key`: push its discard code if it is past its cap."""
    name = key.partition(":")[0]
    code_id = m.prog.discards.get(name)
    if code_id is not None and len(m.zones[key]) > m.prog.decls.zones[name].capacity:
        m.push(code_id, {"$you": m.zone_seat[key], "$zone": key})
