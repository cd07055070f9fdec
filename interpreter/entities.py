"""Entities while a game runs (docs/language.md, "entity"): things a player owns several of,
each with its own attributes and zones, created and destroyed during play.

State (`GameState.entities`, plain JSON data):

    {"next": 4,                               # the id the next one gets (never reused)
     "made": {"boat:0": 2},                   # how many of a kind each seat has created (its number)
     "live": {"3": {"kind": "boat", "owner": 0, "slot": 1, "n": 2, "attrs": {"distance": 0}}}}

An entity as a value is a plain record naming its kind and id, JSON-able and saved with the
frame's env like any value: `{"entity": "boat", "id": 3}`. Reading one that was destroyed
stops the game at that rule (E0861); `s is in play` asks first.

Its zones are allocated ahead, as per-player zones are per seat: a kind with `at most N` has
N slots per seat, and zone `crew` of the entity in slot k of seat p is the key `crew:p/k`
(Program.zone_keys[crew][p * N + k]); its owner (for views, visibility, `controller`) is the
seat. A new entity takes its seat's lowest free slot; a slot's zones are empty when it is free,
since an entity is destroyed only with empty zones (card conservation: no card leaves play).
"""
from __future__ import annotations

from cardsmith.dsl.registry import CREATED, DESTROYED

from .errors import RuleError
from .reads import ATTRS as _ATTRS, ZONES as _ZONES     # the machine's dirty bits

_ATTRS_ZONES = _ATTRS | _ZONES

ENTITY_KEYS = frozenset({"entity", "id"})


def empty() -> dict:
    return {"next": 1, "made": {}, "live": {}}


def is_entity(v) -> bool:
    return v.__class__ is dict and v.keys() == ENTITY_KEYS


def key_seat(key: str):
    """The seat of a zone key: `hand:1` and `crew:1/2` are seat 1's, `deck` nobody's."""
    _, colon, rest = key.partition(":")
    if not colon:
        return None
    return int(rest.partition("/")[0])


def _state(m) -> dict:
    ents = m.st.entities
    return ents


def _named(who) -> str | None:
    """The designer's name for the entity a rule reads (`c` of `c's trips`), or None where the
    rule reads it some other way (`carrier(g)'s trips`) or through a name of the engine's ($of)."""
    return who if isinstance(who, str) and who and not who.startswith("$") else None


def record(m, ref, span, who=None):
    """The live record of `ref`; none for none; a destroyed one stops the game (E0861). `who`:
    the name the rule reads it by, for the hint."""
    if ref is None:
        return None
    rec = m.st.entities["live"].get(str(ref["id"]))
    if rec is None:
        name = _named(who)
        raise RuleError(f"this {_word(m, ref['entity'])} was destroyed and is no longer in play", span,
                        f"ask first: if {name} is in play: ..." if name else
                        "name it first and ask: let x be ... then if x is in play: ...", code="E0861")
    return rec


def in_play(m, ref) -> bool:
    return ref is not None and str(ref["id"]) in m.st.entities["live"]


def read(m, ref, name: str, span, who=None):
    """`s's distance`, `s's owner`: none of none. (`record`'s lookup written out: the read
    most of a game with entities makes; `record` reports a destroyed one.)"""
    if ref is None:
        return None
    rec = m.st.entities["live"].get(str(ref["id"]))
    if rec is None:
        record(m, ref, span, who)
    if name == "owner":
        return rec["owner"]
    return rec["attrs"].get(name)


def reader(owner_fn, name: str, span, env_key=None):
    if env_key is not None:
        return lambda m, env: read(m, env[env_key], name, span, env_key)
    return lambda m, env: read(m, owner_fn(m, env), name, span)


def zone_key(m, ref, zone: str, span, who=None):
    """The key of `s's crew` (none for none, which the zone's reader reports)."""
    rec = record(m, ref, span, who)
    if rec is None:
        return None
    most = m.prog.decls.entities[rec["kind"]].most
    return m.prog.zone_keys[zone][rec["owner"] * most + rec["slot"]]


def zone_reader(owner_fn, zone: str, span, env_key=None):
    if env_key is not None:
        return lambda m, env: zone_key(m, env[env_key], zone, span, env_key)
    return lambda m, env: zone_key(m, owner_fn(m, env), zone, span)


def _refs(m, kind: str, owner=None) -> list:
    """The live entities of `kind` (of seat `owner`, or every seat's), oldest first, as fresh
    records. Their ids are kept per machine until the live ones change: only `create` (which
    moves `next` on) and `destroy` (which shortens `live`) change them, an owner never changes,
    and within one state `next` only grows, so (the live dict, `next`, how many are live) names
    the live ones; a restored or cloned state has a dict of its own."""
    ents = m.st.entities
    live = ents["live"]
    cache = m.__dict__.get("_entity_ids")
    if cache is None or cache[0] is not live or cache[1] != ents["next"] or cache[2] != len(live):
        cache = m._entity_ids = (live, ents["next"], len(live), {})
    ids = cache[3].get((kind, owner))
    if ids is None:
        ids = cache[3][(kind, owner)] = sorted(
            int(i) for i, r in live.items() if r["kind"] == kind and (owner is None or r["owner"] == owner))
    return [{"entity": kind, "id": i} for i in ids]


def of_player(m, kind: str, p) -> list:
    """`p's ships`: the player's live ones, oldest first (none of none)."""
    if p is None:
        return []
    return _refs(m, kind, p)


def all_of(m, kind: str) -> list:
    """`all ships`: every live one, oldest first."""
    return _refs(m, kind)


def owner_of_key(m, key: str):
    """(kind, record) of the entity whose zone `key` is, or None when no live one holds it."""
    if "/" not in key:
        return None
    seat, slot = key.partition(":")[2].split("/")
    zd = m.prog.decls.zones.get(key.partition(":")[0])
    if zd is None or zd.per_entity is None:
        return None
    for rec in m.st.entities["live"].values():
        if rec["kind"] == zd.per_entity and rec["owner"] == int(seat) and rec["slot"] == int(slot):
            return rec
    return None


def holding(m, kind: str, card):
    """`the ship holding c`: the live entity of `kind` whose zone holds card `card`; none when
    the card is none or lies in no such entity's zone."""
    if card is None or card.__class__ is not int:
        return None
    key = m.st.card_zone[card]
    if "/" not in key:
        return None
    zd = m.prog.decls.zones.get(key.partition(":")[0])
    if zd is None or zd.per_entity != kind:
        return None
    seat, slot = (int(x) for x in key.partition(":")[2].split("/"))
    for i, rec in m.st.entities["live"].items():
        if rec["kind"] == kind and rec["owner"] == seat and rec["slot"] == slot:
            return {"entity": kind, "id": int(i)}
    return None


def _word(m, kind: str) -> str:
    e = m.prog.decls.entities.get(kind)
    return (e.label or kind) if e is not None else kind


def label(m, ref) -> str:
    """`Ann's Boat 2`: the owner, the kind's display name and its number among the owner's."""
    if ref is None:
        return "none"
    if not is_entity(ref):
        return str(ref)
    rec = m.st.entities["live"].get(str(ref["id"]))
    if rec is None:
        return f"a destroyed {_word(m, ref['entity'])}"
    return f"{m.log.player_name(rec['owner'])}'s {_word(m, rec['kind'])} {rec['n']}"


def label_of_record(m, rec) -> str:
    return f"{m.log.player_name(rec['owner'])}'s {_word(m, rec['kind'])} {rec['n']}"


def create(m, kind: str, p, span, who=None):
    """`create a ship for p`: a new one, its attributes at their defaults; logged, then the
    `created` event. A player at the kind's `at most` stops the game (E0860)."""
    d = m.prog.decls
    decl = d.entities[kind]
    if p is None:
        raise RuleError(f"there is no player here to create a {_word(m, kind)} for: this is none", span,
                        "check it first: if p is not none:")
    if CREATED in m.prog.replacements and m.replaced(CREATED, {"entity": None, "player": p}):
        return None                 # `instead of created`: none is created (an `as s` name is none)
    ents = m.st.entities
    used = {r["slot"] for r in ents["live"].values() if r["kind"] == kind and r["owner"] == p}
    if len(used) >= decl.most:
        raise RuleError(f"{m.log.player_name(p)} already has {decl.most} {decl.plural_name}, the most a player "
                        f"may own ('at most {decl.most}' at line {decl.span.line})", span,
                        f"check first: if count({_named(who) or 'p'}'s {decl.plural_name}) < {decl.most}: ...",
                        code="E0860")
    slot = min(k for k in range(decl.most) if k not in used)
    made_key = f"{kind}:{p}"
    n = ents["made"].get(made_key, 0) + 1
    ents["made"][made_key] = n
    eid = ents["next"]
    ents["next"] = eid + 1
    rec = {"kind": kind, "owner": p, "slot": slot, "n": n, "attrs": dict(d.entity_defaults.get(kind, {}))}
    ents["live"][str(eid)] = rec
    ref = {"entity": kind, "id": eid}
    m.dirty |= _ATTRS_ZONES
    m.ver += 1
    if m.log.on:
        what = label_of_record(m, rec)
        m.log.emit(m, "created", span, {"entity": what, "kind": kind, "player": p, "slot": slot},
                   f"{what} is created for {m.log.player_name(p)}")
    if CREATED in m.listened:
        m.announce(CREATED, {"entity": ref, "player": p}, span)
    return ref


def destroy(m, ref, span, who=None):
    """`destroy s`: it leaves play. Cards still in its zones stop the game (E0861): move them
    first, so that no card leaves play with it. `who`: the name the rule gives it, for hints."""
    name = _named(who) or "x"
    if ref is None:
        raise RuleError("there is nothing here to destroy: this is none", span,
                        f"check it first: if {name} is not none:")
    rec = record(m, ref, span, who)
    if DESTROYED in m.prog.replacements and m.replaced(DESTROYED, {"entity": ref, "player": rec["owner"]}):
        return True                 # `instead of destroyed`: it stays in play, the replacement runs
    d = m.prog.decls
    most = d.entities[rec["kind"]].most
    for z, zd in d.zones.items():
        if zd.per_entity == rec["kind"]:
            key = m.prog.zone_keys[z][rec["owner"] * most + rec["slot"]]
            if m.zones[key]:
                raise RuleError(f"{label_of_record(m, rec)} still has {len(m.zones[key])} card(s) in its {z}: "
                                "a card cannot leave play with it", span,
                                f"move them first, e.g. move cards in {name}'s {z} to ...", code="E0861")
    what = label_of_record(m, rec)
    del m.st.entities["live"][str(ref["id"])]
    m.dirty |= _ATTRS_ZONES
    m.ver += 1
    if m.log.on:
        m.log.emit(m, "destroyed", span, {"entity": what, "kind": rec["kind"], "player": rec["owner"]},
                   f"{what} is destroyed")
    if DESTROYED in m.listened:
        m.announce(DESTROYED, {"entity": ref, "player": rec["owner"]}, span)
    return True


def assign(m, ref, name: str, value, span) -> bool:
    """`set s's distance to 3`: the entity's attribute, one event of the log."""
    if ref is None:
        raise RuleError(f"there is no entity here to set '{name}' on: this is none", span,
                        "check it first: if s is not none:")
    rec = record(m, ref, span)
    rec["attrs"][name] = value
    m.dirty |= _ATTRS
    m.ver += 1
    if m.log.on:
        what = label_of_record(m, rec)
        fd = next((f for f in m.prog.decls.entities[rec["kind"]].fields if f.name == name), None)
        shown = None
        if fd is not None:
            from cardsmith.dsl.types import ref_type
            shown = ref_type(m.prog.decls, fd.type)
        m.log.emit(m, "set", span, {"what": f"{what}'s {name}", "value": m.log.typed(m, value, shown)},
                   [f"{what}'s {name} becomes ", *m.log.typed_parts(m, value, shown, span)])
    return True


def view(m, player) -> list:
    """Every live entity as a player's view shows it: kind, owner, label ("Ann's Boat 2"), name
    ("Boat 2"), attributes (all public,
    as players' attributes are) and the keys of its zones (the view's `zones` says what is in them)."""
    d = m.prog.decls
    out = []
    for i in sorted(int(k) for k in m.st.entities["live"]):
        rec = m.st.entities["live"][str(i)]
        most = d.entities[rec["kind"]].most
        zones = {z: m.prog.zone_keys[z][rec["owner"] * most + rec["slot"]]
                 for z, zd in d.zones.items() if zd.per_entity == rec["kind"]}
        out.append({"kind": rec["kind"], "id": i, "owner": rec["owner"], "label": label_of_record(m, rec),
                    "name": f"{_word(m, rec['kind'])} {rec['n']}",
                    "attributes": dict(rec["attrs"]), "zones": zones})
    return out




def zone_label(m, key: str) -> str:
    """`Ann's Boat 2's crew`: the zone of the entity now in that slot."""
    rec = owner_of_key(m, key)
    name = key.partition(":")[0]
    if rec is None:
        return f"{m.log.player_name(key_seat(key))}'s {name} (of no {name} holder)"
    return f"{label_of_record(m, rec)}'s {name}"


def entity_of_zone(m, key: str):
    """The label of the live entity whose zone `key` is (`Ann's Boat 2`), or None."""
    rec = owner_of_key(m, key)
    return None if rec is None else label_of_record(m, rec)
