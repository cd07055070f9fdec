"""A card's text: the `text:` ability, run where a rule says `resolve the text of c`
(docs/language.md, "`text:` a card's text, and `resolve`").

Which `text:` is a card's text is fixed when the game is compiled: what is written on the card
(its card block, or the block indented under its table row: a `text:`, else a keyword given
there), else its card type's (a `text:`, else a keyword of the type). A card type, a card, a
row and a keyword each declare at most one (E0510).

`resolve the text of c for p` pushes that ability's code as a frame, with `this` the card and
`you` the player who resolves it: p; without `for p`, the card's controller (the player whose
zone holds it), else — the card lies in a shared zone, a discard pile or the stack — the `you`
of the rule that resolves it, else the active player. The card type's `text is blank unless` condition is asked
for that player: a blank text does nothing (and says so in the log). A card with no text, or
no card, stops the game with E0802 at the statement; the checker refuses the statement where it
can see that no card it may name has a text (E0440).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from cardsmith.dsl import ast as A

from .compile_stmt import Ctx
from .errors import RuleError


@dataclass
class TextEntry:
    """The text one or more cards resolve: its compiled body and what it runs with."""
    ability: A.CardText
    code_id: int
    blank: object               # the card type's "text is blank unless", or None
    label: str
    extra: dict = field(default_factory=dict)      # a keyword's arguments


def chosen_text(card, type_abilities, keyword_of, own_keywords) -> tuple | None:
    """(ability, keyword arguments) of the card's text among its abilities (`CardDef.bound`):
    what is written on the card (its block or its row: a `text:`, else a keyword it carries
    there), else its card type's (a `text:`, else a keyword of the type); None for no text.
    `own_keywords`: the names of the keywords written on the card itself."""
    ranks: dict[int, tuple] = {}
    for ab, args in card.bound:
        if not isinstance(ab, A.CardText):
            continue
        kw = keyword_of.get(id(ab))
        rank = (1 if kw.name in own_keywords else 3) if kw is not None else 2 if id(ab) in type_abilities else 0
        ranks.setdefault(rank, (ab, args))
    return ranks[min(ranks)] if ranks else None


def build_texts(prog) -> dict[int, TextEntry]:
    """card id -> the TextEntry it resolves; each text compiled once for all its cards."""
    d = prog.decls
    out: dict[int, TextEntry] = {}
    entries: dict = {}
    own = {cd.span: cd.keywords for cd in d.cards}          # the keywords written on a card or a row
    own.update({row.span: row.keywords for t in d.tables for row in t.rows if row.keywords})
    for card in prog.game.cards:
        ct = d.card_types[card.type_name]
        got = chosen_text(card, {id(ab) for ab in ct.abilities}, prog.keyword_of,
                          {u.name for u in own.get(card.span, ())})
        if got is None:
            continue
        ab, args = got
        key = (id(ab), args, card.type_name)
        entry = entries.get(key)
        if entry is None:
            kw = prog.keyword_of.get(id(ab))
            owner = (f"keyword {kw.name}" if kw is not None else card.type_name
                     if any(a is ab for a in ct.abilities) else card.name)
            label = f"{owner}: text"
            code = prog.new_code(label)
            sc = prog.ability_scope(ab, card.type_name)
            prog.stmts.block(ab.body, Ctx(code, sc.child()))
            entry = entries[key] = TextEntry(ab, code.id, prog.blank_of(card.type_name), label, dict(args))
        out[card.id] = entry
    return out


def resolve_op(card, player, span):
    """The instruction of `resolve the text of <card> [for <player>]`: compiled expressions
    (`player` None when the statement names none)."""
    def resolve(m, fr):
        env = fr.env
        c = card(m, env)
        if c is None:
            raise RuleError("there is no card here whose text to resolve: this is none", span,
                            "resolve the text of a card that is there, e.g. test it first: if c is not none:")
        entry = m.prog.texts.get(c)
        if entry is None:
            raise RuleError(f"{m.card_label(c)} has no text to resolve", span,
                            "give the card, its table row or its card type a text (text: ...), "
                            "or resolve only the cards that have one")
        you = player(m, env) if player is not None else m.zone_seat[m.st.card_zone[c]]
        if you is None and player is not None:
            raise RuleError(f"no player resolves the text of {m.card_label(c)}: the player given is none",
                            span, "name a player who is there: resolve the text of c for p")
        if you is None:
            you = env.get("$you")
        if you is None:
            you = m.st.active
        if you is None:
            raise RuleError(f"no player resolves the text of {m.card_label(c)}: it lies in a shared zone, "
                            "and no player is 'you' or active here", span,
                            "resolve it inside a turn (turn of p:), or from a card's ability")
        inner = {"$this": c, "$you": you}
        if entry.extra:
            inner.update(entry.extra)
        if entry.blank is not None and not entry.blank(m, inner):
            if m.log.on:
                m.log.emit(m, "blank_text", span, {"card": m.card_label(c), "player": you},
                           [m.log.card(m, c), f": its text is blank for {m.log.player_name(you)}; nothing happens"])
            return None
        if m.log.on:
            m.log.emit(m, "resolve_text", span, {"card": m.card_label(c), "player": you},
                       [m.log.player_name(you), " resolves the text of ", m.log.card(m, c)])
        return m.push(entry.code_id, inner)
    return resolve


__all__ = ["TextEntry", "build_texts", "chosen_text", "resolve_op"]
