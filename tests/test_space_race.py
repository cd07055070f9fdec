"""Space Race (seed 004, games/space_race.cards): its deck rules, read from the game file.

`cardsmith deck check` reports every way games/decks/space_race_bad.deck breaks them, each
at its line in the deck file with the rule it breaks; the two legal decks pass; random legal
decks are built for 3 players; and a game played with the legal decks is dealt into the five
Piles and the Legacy, ends, and keeps every card.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from cardsmith.dsl.decks import check_deck, parse_deck, read_deck
from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.cli import main
from cardsmith.interpreter.decks import random_deck
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.play import run_game

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "games" / "space_race.cards"
DECKS = ROOT / "games" / "decks"
BAD = DECKS / "space_race_bad.deck"
GOOD = [DECKS / "space_race_explorers.deck", DECKS / "space_race_saboteurs.deck"]


@pytest.fixture(scope="module")
def game():
    return load_game(str(GAME))


def test_every_violation_of_the_bad_deck_is_reported_at_its_line(game):
    deck, problems, _ = read_deck(str(BAD))
    assert problems == []          # every line reads: each rule it breaks is judged
    got = [(d.code, d.span.line) for d in check_deck(game, deck)]
    assert got == [
        ("E0613", 1),    # 8 Recruits: exactly 10 (counted at the title line)
        ("E0613", 1),    # 9 Systems: exactly 10
        ("E0616", 12),   # 2 Railgun: the pool has 1
        ("E0614", 12),   # Railgun twice: names are unique except Actions
        ("E0613", 13),   # the 11th Module
        ("E0611", 17),   # Brtbp: no such card
        ("E0617", 30),   # the Complications' Power passes 10 here
        ("E0616", 46),   # 3 Jump: the pool has 2
        ("E0615", 46),   # 3 Jump: at most 2 Actions of a name
        ("E0616", 54),   # 2 Hail Mary: a Unique Action is in the pool once
        ("E0613", 58),   # the 2nd Legacy: at most 1
    ]
    by_line = {(d.code, d.span.line): d for d in check_deck(game, deck)}
    assert by_line[("E0611", 17)].hint == "did you mean 'Brtpb'?"
    assert "adds up to 15; at most 10" in by_line[("E0617", 30)].message
    [note] = by_line[("E0614", 12)].notes
    assert note.startswith("the rule is at space_race.cards:") and note.endswith(": names are unique except Action")
    title_notes = [d.notes[0] for d in check_deck(game, deck) if d.span.line == 1]
    assert [n.split(": ", 1)[1] for n in title_notes] == ["exactly 10 Recruit", "exactly 10 System"]


def test_deck_check_command_reports_every_violation_located_and_exits_1(capsys):
    assert main(["deck", "check", str(GAME), str(BAD)]) == 1
    out = capsys.readouterr().out
    for code in ("E0611", "E0613", "E0614", "E0615", "E0616", "E0617"):
        assert f"error[{code}]" in out, code
    assert f"{BAD}:1:1: error[E0613]: this deck has 8 Recruit cards; the deck rules ask for exactly 10" in out
    assert f"{BAD}:17:1: error[E0611]: no card of the pool is named 'Brtbp'" in out
    assert f"{BAD}:30:1: error[E0617]: the power of this deck's Complication cards adds up to 15; at most 10" in out
    assert f"{BAD}:46:1: error[E0615]: this deck has 3 copies of 'Jump'; at most 2 copies of each Action" in out
    assert "11 errors in" in out


def test_the_legal_decks_pass(game, capsys):
    assert main(["deck", "check", str(GAME)] + [str(p) for p in GOOD]) == 0
    for path in GOOD:
        deck, problems, _ = read_deck(str(path))
        assert problems == [] and check_deck(game, deck) == []
        assert len(deck.names()) == 61


def test_random_decks_for_three_players_are_legal(game):
    for seed in range(6):
        for seat in range(3):
            names = random_deck(game, seed, seat)
            counts = Counter(names)
            deck, problems = parse_deck("".join(f'{n} "{name}"\n' for name, n in counts.items()), "r.deck")
            assert problems == [] and check_deck(game, deck) == [], (seed, seat)
            assert 60 <= len(names) <= 61


def test_a_game_with_the_legal_decks_is_dealt_into_the_piles_and_ends_keeping_every_card(game):
    decks = {i: read_deck(str(p))[0].names() for i, p in enumerate(GOOD)}
    eng = Engine(game, 2, 3, decks=decks)
    g = eng.game
    zones = Counter(c.zone for c in g.cards)
    assert zones["modules:0"] == 10 and zones["recruits:0"] == 10 and zones["complications:1"] == 10
    assert zones["systems:1"] == 10 and zones["actions:0"] == 20 and zones["legacies:1"] == 1
    assert not [c for c in g.cards if c.zone == "collection"]
    done = run_game(game, 2, 3, decks=decks, log=False)
    assert done.finished
    assert sum(len(z) for z in done.state.zones.values()) == len(done.game.cards) == 122
