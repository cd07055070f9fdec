"""Print-and-play: every card of a game laid out nine to an A4 page, with crop marks, to cut out
and play-test on paper.

    write_cards(game, "cards.pdf")            # or "cards.html": the page Chromium would print

Each card shows its name, its type (and the value of the field that groups the cards, such as a
faction), its printed values in words, its own doc strings and its own effect in English
(english.card_effect_text). Every copy is a card of its own, numbered "2 of 8". The layout is
the template `cards.html.j2` (with `cards.css`), which a designer may replace with
`--templates DIR`, like the rulebook's; it runs in the same sandbox, in a bounded child
(templating.py), and the PDF is printed by the same walled-in Chromium (browser.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..model import Game
from . import english as E
from . import errors as X
from . import rulebook as R
from . import templating as T
from .layout import field_label, value_label

PER_PAGE = 9                    # three rows of three cards
CARD_MM = (63, 88)              # the poker-card size most games use
TEMPLATE = "cards.html.j2"


@dataclass
class CardFace:
    name: str
    type: str
    group: str              # the value of the field that groups its type's cards ("" if none)
    facts: list             # [(label, value)] of its printed values; a flag shows as its name alone
    texts: list             # its doc strings, then its own effect in English
    copy: int
    copies: int


@dataclass
class Sheet:
    title: str
    players: str
    cards: list = field(default_factory=list)           # CardFace, every copy
    pages: list = field(default_factory=list)           # the cards nine at a time
    card_mm: tuple = CARD_MM
    per_page: int = PER_PAGE


def _group_field(game: Game, type_name: str):
    ct = game.decls.card_types.get(type_name)
    if ct is None:
        return None
    return next((f for f in ct.fields if not f.type.is_list and f.type.name in game.decls.enums), None)


def faces(game: Game) -> list[CardFace]:
    """Every card of `game`, copies included, in the order the file lists them."""
    d = game.decls
    ctx = E.make_ctx(d, param_types=E.param_types(d))
    own = {cd.name: cd for cd in d.cards}
    copies: dict[tuple, int] = {}
    keys = []
    for cd in game.cards:
        key = (cd.name, cd.type_name, tuple((k, repr(v)) for k, v in cd.values.items()))
        copies[key] = copies.get(key, 0) + 1
        keys.append(key)
    seen: dict[tuple, int] = {}
    out = []
    said = getattr(E, "card_effect_text", None)
    for cd, key in zip(game.cards, keys):
        seen[key] = seen.get(key, 0) + 1
        ct = d.card_types.get(cd.type_name)
        group = _group_field(game, cd.type_name)
        facts = []
        for f in (ct.fields if ct else ()):
            if f is group:
                continue
            v = cd.values.get(f.name)
            if v is True:
                facts.append((field_label(d, f.name), ""))
            elif v is False or v is None or v == [] or v == "":     # an empty text prints nothing
                continue
            else:
                shown = ", ".join(value_label(d, x) for x in v) if isinstance(v, list) else value_label(d, v)
                facts.append((field_label(d, f.name), shown))
        decl = own.get(cd.name)
        texts = [E.clean(t) for t in decl.docs] if decl is not None else []
        effect = said(game, cd, ctx) if said else ""
        if effect:
            texts.append(effect)
        out.append(CardFace(E.clean(cd.name), E.clean(cd.type_name),
                            value_label(d, cd.values.get(group.name)) if group else "", facts, texts,
                            seen[key], copies[key]))
    return out


def build_sheet(game: Game) -> Sheet:
    cards = faces(game)
    pages = [cards[i:i + PER_PAGE] for i in range(0, len(cards), PER_PAGE)]
    return Sheet(E.clean(game.title), R.players_text(game), cards, pages)


def render(sheet: Sheet, templates=None) -> str:
    """The card sheets as one HTML page (sandboxed, in a bounded child; a located PublishError
    when a template fails)."""
    return T.render(R.folders(templates), R.FILTERS, TEMPLATE, {"sheet": sheet})


def write_cards(game: Game, output, templates=None) -> Path:
    """Write the card sheets of `game` to `output`: a PDF, or the HTML when its name ends in
    .html. A located PublishError (E10xx) when the templates or the browser fail."""
    from .browser import BrowserFailed, print_html

    out = Path(output)
    out.parent.mkdir(parents=True, exist_ok=True)
    html = render(build_sheet(game), templates)
    if out.suffix.lower() in (".html", ".htm"):
        out.write_text(html, encoding="utf-8")
        return out
    try:
        print_html(html, out)
    except BrowserFailed as err:
        page = T.FolderLoader(R.folders(templates)).path_of(TEMPLATE)
        raise X.at(X.CHROMIUM_FAILED, f"the card sheets could not be printed: {err}", page,
                   hint="write them as HTML (-o cards.html) and look at the page in a browser") from None
    return out
