"""Phrasings that must never appear in a rulebook (issue 15): machine English, raw identifiers,
and the misreadings a review found. Over the generated Markdown rulebook of every bundled game
and every test game, built here from the game files.

The checks of the rulebook's own words look at what the rulebook wrote, not at text the designer
wrote in the file (doc strings, notes, card names, prompts), which is quoted as written: every text
of the file is taken out of the page before those checks. A few checks (the seed on the cover,
a player count that disagrees with itself) read the whole page, the file's texts included.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.dsl.publish import english as E
from cardsmith.dsl.publish import rulebook as R
from cardsmith.dsl.transformer import unquote

ROOT = Path(__file__).resolve().parents[1]
GAMES = sorted(p for p in [*(ROOT / "games").glob("*.cards"), *(ROOT / "tests" / "games").glob("*.cards")]
               if not p.name.endswith(".scenarios.cards"))
STRING = re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*"""|"(?:[^"\\\n]|\\.)*"')

# (pattern, why): over the rulebook's own words
NEVER = [
    (r"'s can\b", "a value used as a noun: “A player's can add is ...”"),
    (r"\bwith\b[^.:;()\n]*\bas \*", "“Settle, with a, a's left column as column a, ...”: say each thing by its role"),
    (r"\bis (?:yes|no)(?=[,.:;)]| and | or | while |$)", "a yes/no value read as “is yes” / “is no”"),
    (r"\bnone\b", "“none” as a word"),
    (r"\b(?:opponent|player)s's\b", "a plural's possessive"),
    (r"\(checked before each time\)", "a loop described by how the machine runs it"),
    (r"blank for its owner", "the owner is the first owner to a player; the rule means the holder"),
    (r"\bthe first of (?:your|the) opponent", "“the first of your opponents” in a game of two"),
    (r"\bas soon as the number of players is\b", "a heading that counts players instead of saying who is left"),
    (r"\b[A-Za-z]+_[A-Za-z_]+\b", "a snake_case name"),
    (r"\bTell the players: “the columns are compared”", "a step that only says its name"),
    (r"as long as this card's text counts", "a text condition on a card type that has none"),
]

# over the whole page, the file's own texts included
NEVER_ANYWHERE = [
    (r"rulebook \(seed \d+\)", "the seed of the source rulebook on the cover"),
    (r"\w ;", "a printed value left empty: “jump 0; unlocked by ; damage 0”"),
]


@lru_cache(maxsize=None)
def book(path: str) -> tuple[str, str]:
    """(the Markdown rulebook, the same with every text of the file taken out)."""
    game = load_game(path)
    text = R.render(R.build_book(game), "md")
    page = _flat(text)
    texts = set()
    for src in game.sources.values():
        for m in STRING.finditer(src.text):
            value = unquote(m.group(0))
            for part in value.split("\n"):
                part = " ".join(part.split())
                if len(part) >= 3:
                    texts.add(_flat(part))
    own = page
    for t in sorted(texts, key=len, reverse=True):
        own = own.replace(t, " ")
    return page, own


LINKS = re.compile(r"\]\([^)\s]*\)|`[^`\n]*`|<a id=\"[^\"]*\"></a>|\(#[^)\s]*\)")


def _flat(text: str) -> str:
    """Markdown's escapes, link targets, anchors, file names in code spans and line breaks out of
    the way, so a text of the file is found as written."""
    return " ".join(LINKS.sub(" ", text).replace("\\", "").split())


def raw_names(path: str) -> set[str]:
    """The declared names a player must never read as written: those with an underscore, or
    written in CamelCase (`KTotekk`, `FeylaElai`); the rulebook says their display names."""
    d = load_game(path).decls
    names = set(d.enum_members()) | set(d.zones) | set(d.defines) | set(d.procedures) | set(d.events)
    names |= set(d.player_fields) | set(d.game_fields)
    names |= {f.name for ct in d.card_types.values() for f in ct.fields}
    return {n for n in names if "_" in n or re.search(r"[a-z][A-Z]|^[A-Z]{2}", n)}


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_the_rulebook_never_says(path):
    page, own = book(str(path))
    found = []
    for pattern, why in NEVER:
        for m in re.finditer(pattern, own, re.I if pattern.startswith(r"\bas soon") else 0):
            found.append(f"{why}: …{own[max(0, m.start() - 60):m.end() + 40]}…")
    for pattern, why in NEVER_ANYWHERE:
        for m in re.finditer(pattern, page):
            found.append(f"{why}: …{page[max(0, m.start() - 60):m.end() + 40]}…")
    assert not found, f"{path.name}:\n" + "\n".join(found[:20])


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_no_raw_identifier_reaches_the_page(path):
    _, own = book(str(path))
    leaked = sorted(n for n in raw_names(str(path)) if re.search(rf"(?<![\w']){re.escape(n)}(?![\w'])", own))
    assert not leaked, f"{path.name}: raw names in the rulebook: {leaked}"


# ---------------------------------------------------------------- the test catches what it should


def test_the_checks_catch_the_phrasings_of_the_review():
    """Each quoted sentence of the review is caught by the list (a pattern that matches nothing
    would pass every rulebook)."""
    quoted = [
        "A player's can add is their deck is not empty or their survivors is not empty.",
        "Settle, with *a*, *a*'s left column as *column a*, *left a* as *force a*.",
        "Repeat the following until peace declared is yes (checked before each time):",
        "You choose s from the Ships in the first of your opponents's line",
        "If s is not none:",
        "otherwise it is blank for its owner.",
        "As soon as the number of players is 1",
        "Move the cards in every left_column to the box.",
        "The force of the Ships is increased by 1, as long as this card's text counts.",
    ]
    for sentence in quoted:
        assert any(re.search(p, sentence, re.I) for p, _ in NEVER), sentence
    assert re.search(NEVER_ANYWHERE[0][0], "Space War: in Space! rulebook (seed 000)")


def test_the_file_s_own_texts_are_taken_out_and_nothing_else():
    page, own = book(str(ROOT / "games" / "space_war_in_space.cards"))
    assert "Choose your Faction" in page and "Choose your Faction" not in own
    assert "only one player is left in the game" in own       # the rulebook's own words stay


# ---------------------------------------------------------------- the misreadings of the review, fixed


def test_the_captured_card_rule_says_who_holds_the_card():
    game = load_game(str(ROOT / "games" / "space_war_in_space.cards"))
    ctx = E.make_ctx(game.decls, param_types=E.param_types(game.decls))
    text = E.plain(E.blank_unless(game.decls.card_types["Unit"], ctx))
    assert text.startswith("A Unit's text counts only while its holder's faction is the card's faction.")
    assert "not the player it came from" in text and "owner" not in text


def test_the_war_s_two_face_down_cards_are_in_the_prose():
    page, _ = book(str(ROOT / "games" / "space_war_in_space.cards"))
    assert "Each places two cards face down next to their card" in page


def test_the_graveyard_is_shared_in_the_prose_as_in_the_zone_table():
    page, _ = book(str(ROOT / "games" / "battlefield_space.cards"))
    assert "Each player has a Graveyard" not in page
    assert "Lost cards go to the Graveyard, one pile that both players share" in page


def test_step_4_says_what_is_compared():
    page, _ = book(str(ROOT / "games" / "battlefield_space.cards"))
    heading = re.search(r"#+ [\d.]+ Step “4\) Compare the Columns”", page)      # the section's heading
    assert heading, "no section for step 4"
    assert "compared with the opposing column by total Force: the sum of the Force of its cards" in \
        page[heading.end():heading.end() + 1500]


def test_display_names_reach_the_page():
    game = load_game(str(ROOT / "games" / "battlefield_space.cards"))
    said = E.card_effect_text(game, next(cd for cd in game.cards if cd.name == "K'Totekk War Cry"))
    assert "whose race is K'Totekk get +1 Force" in said and "KTotekk" not in said
    assert E.display_value(game.decls, "CentralConfederation") == "Central Confederation"
    assert E.display_name(game.decls, "zone", "survivors") == "Survivors pile"


def zone_disagreements(page: str, d) -> list[str]:
    """Where the page calls a shared zone one "each player has", or a zone of each player shared."""
    wrong: dict[int, str] = {}          # by where it starts: the longest name found there
    for z in d.zones.values():
        for name in {E.display_name(d, "zone", z.name).lower(), E.human(z.name).lower()}:
            n = re.escape(name)
            if z.per_player:
                pattern = rf"\b(?:the|a|one) shared {n}\b|\bshare (?:the|a) {n}\b"
            else:
                pattern = rf"\b[Ee]ach player has (?:a|an|their own|his own|her own) {n}\b|\b(?:your|their) own {n}\b"
            for m in re.finditer(pattern, page, re.I):
                if len(m.group(0)) > len(wrong.get(m.start(), "")):
                    wrong[m.start()] = m.group(0)
    return [wrong[k] for k in sorted(wrong)]


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_whose_zone_it_is_agrees_everywhere(path):
    """A shared zone is never one "each player has", a zone of each player never "shared", in the
    rulebook's words or the designer's (the review found the Graveyard both ways)."""
    page, _ = book(str(path))
    wrong = zone_disagreements(page, load_game(str(path)).decls)
    assert not wrong, f"{path.name}: {wrong}"


def test_the_review_s_graveyard_sentence_is_caught():
    d = load_game(str(ROOT / "games" / "battlefield_space.cards")).decls
    old = "Each player has a Graveyard for lost cards and a Survivors pile for the cards that won their battle."
    assert zone_disagreements(old, d) == ["Each player has a Graveyard"]
    assert zone_disagreements("All players share the Survivors pile.", d) == ["share the Survivors pile"]
