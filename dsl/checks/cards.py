"""Pass 2: build every physical card from the tables and card blocks, checking each value
against its field's type and bounds.

    cards Unit in box:
        | name    | strength |
        | "Scout" | many     |      # E0501 'many' is not a number (field 'strength')
"""
from __future__ import annotations

from .. import ast as A
from ..bounds import MAX_CARD_COPIES, MAX_CARD_PARTS, MAX_CARDS
from ..diagnostics import DiagnosticSink
from ..model import CardDef, Declarations
from ..types import card_type_hint, suggest


def literal(e, fd: A.FieldDecl | None, d: Declarations, sink: DiagnosticSink, where: str):
    """The Python value of a table cell / field value, checked against field `fd`."""
    tname = fd.type.name if fd else None
    if e is None:
        return None
    if isinstance(e, A.Nothing):
        return None
    if fd is not None and fd.type.is_list:
        return _list_literal(e, fd, d, sink, where)
    if tname == "number":
        if not isinstance(e, A.Num):
            sink.error("E0501", f"{_show(e)} is not a number ({where})", e.span, "write a whole number like 3")
            return 0
        if fd.at_least is not None and e.value < fd.at_least:
            sink.error("E0502", f"{e.value} is below the least allowed ({fd.at_least}) for {where}", e.span,
                       _range_hint(fd))
        if fd.at_most is not None and e.value > fd.at_most:
            sink.error("E0502", f"{e.value} is above the most allowed ({fd.at_most}) for {where}", e.span,
                       _range_hint(fd))
        return e.value
    if tname == "flag":
        if not isinstance(e, A.Bool):
            sink.error("E0501", f"{_show(e)} is not yes or no ({where})", e.span, "write yes or no")
            return False
        return e.value
    if tname == "text":
        if isinstance(e, (A.Text, A.Name)):
            return e.value if isinstance(e, A.Text) else e.name
        sink.error("E0501", f"{_show(e)} is not a text ({where})", e.span, 'write it in quotes: "..."')
        return ""
    if tname in d.enums:
        members = d.enums[tname].members
        if not isinstance(e, A.Name) or e.name not in members:
            sink.error("E0503", f"{_show(e)} is not a {tname} ({where})", e.span,
                       suggest(getattr(e, "name", ""), members) or f"one of: {', '.join(members)}")
            return None
        return e.name
    if tname == "zone":     # a shared zone, by its name; a player's zone is set while playing
        zd = d.zones.get(e.name) if isinstance(e, A.Name) else None
        if zd is None or zd.per_player or zd.per_entity is not None:
            shared = [z for z, zdecl in d.zones.items() if not zdecl.per_player and zdecl.per_entity is None]
            said = (f"'{e.name}' is one zone per {'player' if zd.per_player else zd.per_entity}" if zd is not None
                    else f"{_show(e)} is not a shared zone")
            sink.error("E0511", f"{said} ({where})", e.span,
                       (suggest(getattr(e, "name", ""), shared) if zd is None else None)
                       or "name a shared zone (" + (", ".join(shared) or "none declared")
                       + "), or leave it empty and set it while playing: set c's field to p's zone")
            return None
        return e.name
    # no field: a name column or an untyped value
    if isinstance(e, A.Text):
        return e.value
    if isinstance(e, A.Num):
        return e.value
    if isinstance(e, A.Bool):
        return e.value
    if isinstance(e, A.Name):
        return e.name
    if isinstance(e, A.ListExpr):
        sink.error("E0501", f"a list is not a text ({where})", e.span, 'write it in quotes: "..."')
        return ""
    return None


def _list_literal(e, fd: A.FieldDecl, d: Declarations, sink: DiagnosticSink, where: str):
    """A list cell or default (`| [1, 2] |`, `= ["a"]`): each element checked against the
    element type, with the field's bounds. Cards and players are no values a table can write."""
    if fd.type.name in ("card", "player") or fd.type.name in d.card_types:
        kind = "players" if fd.type.name == "player" else "cards"
        sink.error("E0520", f"a table cell or a default cannot name {kind} ({where})", e.span,
                   f"leave it empty (none) and set '{fd.name}' while playing (in setup), or make it a list "
                   "of texts, numbers or enum members")
        return None
    if not isinstance(e, A.ListExpr):
        sink.error("E0501", f"{_show(e)} is not a list ({where})", e.span,
                   f"write the values in brackets: [{_example(fd.type.name, d)}], or [] for none")
        return None
    one = A.FieldDecl(fd.span, fd.name, A.TypeRef(fd.type.span, fd.type.name), None, fd.at_least, fd.at_most, ())
    out = []
    for item in e.items:
        if isinstance(item, A.Nothing):
            sink.error("E0414", f"a list cannot hold none ({where})", item.span,
                       "leave it out: a list holds the things that are there")
            continue
        out.append(literal(item, one, d, sink, where))
    return out


def _example(tname: str, d: Declarations) -> str:
    """Two values of the element type, written as a cell would write them."""
    if tname in d.enums:
        members = d.enums[tname].members
        return ", ".join(list(members)[:2])
    return {"number": "1, 2", "flag": "yes, no", "text": '"a", "b"'}.get(tname, "1, 2")


def _range_hint(fd: A.FieldDecl) -> str:
    """What E0502 asks for: a value within the field's bounds, or other bounds."""
    if fd.at_least is not None and fd.at_most is not None:
        allowed = f"from {fd.at_least} to {fd.at_most}"
    elif fd.at_least is not None:
        allowed = f"of at least {fd.at_least}"
    else:
        allowed = f"of at most {fd.at_most}"
    return f"write a number {allowed}, or change the bounds where '{fd.name}' is declared (line {fd.span.line})"


def _show(e) -> str:
    match e:
        case A.Num():
            return str(e.value)
        case A.Text():
            return f'"{e.value}"'
        case A.Name():
            return f"'{e.name}'"
        case A.Bool():
            return "yes" if e.value else "no"
        case A.ListExpr():
            return "a list"
    return "this value"


def _default(fd: A.FieldDecl, d, sink):
    if fd.default is not None:
        return literal(fd.default, fd, d, sink, f"the default of '{fd.name}'")
    if fd.type.is_list:         # `list of number` starts as none, as `list of Card` does (not 0)
        return None
    return {"number": fd.at_least or 0, "flag": False, "text": ""}.get(fd.type.name)


def _bound(abilities, uses, d: Declarations, sink: DiagnosticSink) -> tuple:
    """The card's abilities plus those of its keywords, each keyword ability with its arguments."""
    bound = [(ab, ()) for ab in abilities]
    for use in uses:
        kw = d.keywords.get(use.name)
        if kw is None:
            sink.error("E0213", f"unknown keyword '{use.name}'", use.span,
                       suggest(use.name, d.keywords) or f"declare it with: keyword {use.name}(...):")
            continue
        if len(kw.params) != len(use.args):
            sink.error("E0301", f"keyword '{use.name}' takes {len(kw.params)} argument(s), got {len(use.args)}",
                       use.span, f"it is declared at line {kw.span.line}")
            continue
        args = tuple((p.name, literal(a, A.FieldDecl(p.span, p.name, p.type, None, None, None, ()), d, sink,
                                      f"argument '{p.name}' of {use.name}"))
                     for p, a in zip(kw.params, use.args))
        bound.extend((ab, args) for ab in kw.abilities)
    return tuple(bound)


def one_text(abilities, where: str, sink: DiagnosticSink) -> None:
    """A card type, a card, a table row or a keyword declares at most one `text:` (E0510)."""
    texts = [ab for ab in abilities if isinstance(ab, A.CardText)]
    for extra in texts[1:]:
        sink.error("E0510", f"{where} has two texts; the first is at line {texts[0].span.line}", extra.span,
                   "a card has one text: put everything it does when resolved in one 'text:' block")


def back_fields(ct: A.CardTypeDecl, sink: DiagnosticSink) -> None:
    """`back shows: tier`: each name is a field of the card type, once (a face-down card shows
    them to everyone: interpreter/visibility.py `back_of`)."""
    declared = {f.name for f in ct.fields}
    seen: set = set()
    for name in ct.back:
        if name not in declared:
            sink.error("E0120", f"the card type '{ct.name}' has no field '{name}' for its back to show",
                       ct.back_span, suggest(name, declared) or f"declare it in the card type: {name}: number")
        elif name in seen:
            sink.error("E0120", f"the back of '{ct.name}' shows '{name}' twice", ct.back_span,
                       "name each field once: back shows: tier, faction")
        seen.add(name)


def part_decls(ct: A.CardTypeDecl, sink: DiagnosticSink) -> None:
    """`parts belts: 2`: a name no field of the type has, once; at most MAX_CARD_PARTS (E0135)."""
    seen = {f.name for f in ct.fields}
    for pd in ct.parts:
        if pd.name in seen:
            sink.error("E0135", f"the card type '{ct.name}' already has a field or parts named '{pd.name}'", pd.span,
                       f"give the parts a name of their own, e.g. {pd.name}_slots")
        seen.add(pd.name)
        if pd.count > MAX_CARD_PARTS:
            sink.error("E0135", f"{pd.count:,} parts '{pd.name}' is more than a card may have, "
                                f"{MAX_CARD_PARTS:,} (MAX_CARD_PARTS)", pd.span,
                       f"write a number from 0 to {MAX_CARD_PARTS:,}")
        names = set()
        for f in pd.fields:
            if f.name in names:
                sink.error("E0135", f"the parts '{pd.name}' have two fields named '{f.name}'", f.span,
                           "name each field once")
            names.add(f.name)


def part_values(ct: A.CardTypeDecl, counts: dict, d, sink: DiagnosticSink, span) -> dict:
    """The values of a card's parts, flat beside its fields: `belts` is how many it has and
    `belts.2.built` the second belt's `built` (interpreter/parts.py reads them)."""
    out = {}
    for pd in ct.parts:
        n = counts.get(pd.name, pd.count)
        if pd.name in counts and n is not None and (not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= MAX_CARD_PARTS):
            sink.error("E0530", f"a card's number of '{pd.name}' must be a whole number from 0 to "
                                f"{MAX_CARD_PARTS:,} (MAX_CARD_PARTS), not {n!r}", span,
                       f"write how many {pd.name} the card has, e.g. 2, or leave the cell empty for {pd.count}")
            n = 0
        n = min(n if n is not None else pd.count, MAX_CARD_PARTS)
        out[pd.name] = n
        defaults = {f.name: _default(f, d, sink) for f in pd.fields}
        for i in range(1, n + 1):
            for fname, v in defaults.items():
                out[f"{pd.name}.{i}.{fname}"] = v
    return out


def cards(d: Declarations, sink: DiagnosticSink) -> list[CardDef]:
    out: list[CardDef] = []
    for ct in d.card_types.values():
        one_text(ct.abilities, f"the card type '{ct.name}'", sink)
        back_fields(ct, sink)
        part_decls(ct, sink)
    for kw in d.keywords.values():
        one_text(kw.abilities, f"the keyword '{kw.name}'", sink)
    type_bound = {name: _bound(ct.abilities, ct.keywords, d, sink) for name, ct in d.card_types.items()}
    full = False    # MAX_CARDS reached: no more cards are built (once reported)

    def room_for(count: int, span) -> bool:
        """Can `count` more cards be built? The first row or card past MAX_CARDS is reported."""
        nonlocal full
        if not full and len(out) + count > MAX_CARDS:
            sink.error("E0509", f"with these cards the game has {len(out) + count:,} cards, more than "
                                f"the {MAX_CARDS:,} a game may have (MAX_CARDS)", span,
                       "use fewer copies, or fewer cards")
            full = True
        return not full

    def check_zone(zone: str, span) -> None:
        zd = d.zones.get(zone)
        if zd is None:
            sink.error("E0207", f"unknown zone '{zone}'", span, suggest(zone, d.zones) or "declare it with: zone name: shared")
        elif zd.per_player or zd.per_entity is not None:
            sink.error("E0504", f"cards start in a shared zone, but '{zone}' is one per "
                       f"{'player' if zd.per_player else zd.per_entity}", span,
                       "start them in a shared zone (e.g. a 'box') and move them in setup")

    for table in d.tables:
        ct = d.card_types.get(table.type_name)
        if ct is None:
            sink.error("E0209", f"unknown card type '{table.type_name}'", table.span,
                       card_type_hint(table.type_name, d.card_types))
            continue
        check_zone(table.zone, table.span)
        fields = {f.name: f for f in ct.fields}
        part_names = {pd.name for pd in ct.parts}
        for col in table.header:
            if col not in fields and col not in ("name", "copies") and col not in part_names:
                sink.error("E0204", f"'{table.type_name}' has no field '{col}'", table.span,
                           suggest(col, list(fields) + ["name", "copies"]))
        if "name" not in table.header:
            sink.error("E0505", "a card table needs a 'name' column", table.span, "add | name | to the header row")
            continue
        for row in table.rows:
            if len(row.cells) != len(table.header):
                sink.error("E0506", f"this row has {len(row.cells)} cells but the header has {len(table.header)}",
                           row.span, "give every row one cell per column")
                continue
            values = {f.name: _default(f, d, sink) for f in ct.fields}
            copies, counts = 1, {}
            name = ""
            for col, cell in zip(table.header, row.cells):
                if col == "name":
                    name = literal(cell, None, d, sink, "name")
                elif col == "copies":
                    copies = cell.value if isinstance(cell, A.Num) else 1
                    if not isinstance(cell, A.Num) or cell.value < 1:
                        sink.error("E0501", "copies must be a number of at least 1", row.span, None)
                    elif copies > MAX_CARD_COPIES:
                        # Checked before any copy is built: a huge count must not hang the check.
                        sink.error("E0508", f"{copies:,} copies is more than one card may have, "
                                            f"{MAX_CARD_COPIES:,} (MAX_CARD_COPIES)", cell.span,
                                   f"write a number of copies from 1 to {MAX_CARD_COPIES:,}")
                        copies = 0
                elif col in fields and cell is not None:
                    values[col] = literal(cell, fields[col], d, sink, f"field '{col}'")
                elif col in part_names and cell is not None:    # how many parts this card has
                    counts[col] = cell.value if isinstance(cell, A.Num) else literal(cell, None, d, sink, col)
            for fname, fd in fields.items():
                if values[fname] is None and fd.default is None and fd.type.name == "number" and not fd.type.is_list:
                    sink.error("E0507", f"card '{name}' has no value for '{fname}'", row.span,
                               f"fill in its '{fname}' cell or give the field a default")
            values.update(part_values(ct, counts, d, sink, row.span))
            if copies > 0 and not room_for(copies, row.span):
                continue
            one_text(row.abilities, f"the row of \"{name}\"", sink)
            own = _bound(row.abilities, row.keywords, d, sink) if row.abilities or row.keywords else ()
            for _ in range(copies):         # the row's own abilities are every copy's, as a card block's
                out.append(CardDef(len(out), str(name), ct.name, table.zone, dict(values), ct.abilities + row.abilities,
                                   row.span, type_bound[ct.name] + own))

    for cd in d.cards:
        ct = d.card_types.get(cd.type_name)
        if ct is None:
            sink.error("E0209", f"unknown card type '{cd.type_name}'", cd.span,
                       card_type_hint(cd.type_name, d.card_types))
            continue
        check_zone(cd.zone, cd.span)
        fields = {f.name: f for f in ct.fields}
        values = {f.name: _default(f, d, sink) for f in ct.fields}
        counts = {}
        for fv in cd.values:
            if any(pd.name == fv.name for pd in ct.parts):     # `belts = 3`: how many parts it has
                counts[fv.name] = fv.value.value if isinstance(fv.value, A.Num) else literal(fv.value, None, d, sink, fv.name)
                continue
            if fv.name not in fields:
                sink.error("E0204", f"'{cd.type_name}' has no field '{fv.name}'", fv.span, suggest(fv.name, fields))
                continue
            values[fv.name] = literal(fv.value, fields[fv.name], d, sink, f"field '{fv.name}'")
        values.update(part_values(ct, counts, d, sink, cd.span))
        if not room_for(1, cd.span):
            continue
        one_text(cd.abilities, f"the card \"{cd.name}\"", sink)
        out.append(CardDef(len(out), cd.name, ct.name, cd.zone, values, ct.abilities + cd.abilities, cd.span,
                           type_bound[ct.name] + _bound(cd.abilities, cd.keywords, d, sink)))
    # What each player and the game start with: checked and computed here, once; the engine reads them
    d.player_defaults = {name: _default(fd, d, sink) for name, fd in d.player_fields.items()}
    d.game_defaults = {name: _default(fd, d, sink) for name, fd in d.game_fields.items()}
    d.toward_defaults = {name: _default(fd, d, sink) for name, fd in d.toward_fields.items()}
    return out
