"""A `modify` ability's `while` whose leading conjuncts read only printed fields that nothing
writes (Program._fixed_filter): the cards for which they are false are left out of the
modifier's entry once, when the program is built, so the machine never looks at them. Which
cards are left out, which conditions are never filtered, and that a game plays the same, log for
log, with the filter as without it."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import Program, program_for

ROOT = Path(__file__).resolve().parent.parent
BONUSES = ROOT / "tests" / "games" / "standing_bonuses.cards"
BATTLEFIELD = ROOT / "games" / "battlefield_space.cards"


def _entries(game):
    prog = program_for(game)
    return {(key, e.ability.span.line): [game.cards[c].name for c in e.cards]
            for key, es in prog.modifiers.items() for e in es}


def test_a_fixed_flag_leaves_out_the_cards_without_it_and_a_written_one_leaves_none():
    game = load_game(str(BONUSES))
    by_cond = {str(e.ability.cond.name): [game.cards[c].name for c in e.cards]
               for es in program_for(game).modifiers.values() for e in es if e.ability.cond is not None}
    assert by_cond["banner"] == ["Standard"]              # printed, never set: only the card with it
    assert by_cond["wild"] == ["Wildling"]
    # `set drilled to yes` (the Drill action) writes drilled: every unit stays
    assert by_cond["drilled"] == ["Standard", "Pikeman", "Archer", "Wildling"]


def test_battlefield_keeps_the_ships_with_the_flag_and_every_card_of_a_zone_condition():
    game = load_game(str(BATTLEFIELD))
    prog = program_for(game)
    for e in prog.modifiers["force"]:
        cond = e.ability.cond
        first = cond.items[0] if hasattr(cond, "items") else cond
        carrying = [c.id for c in game.cards if any(ab is e.ability for ab, _ in c.bound)]
        if hasattr(first, "name") and first.name in ("column_bonus", "kin_in_column", "kin_in_battle", "race_leader"):
            assert e.cards == [c for c in carrying if game.cards[c].values[first.name]], first.name
            assert 0 < len(e.cards) < len(carrying)
        else:                   # `while this is in your beside`: where a card is changes, nothing left out
            assert e.cards == carrying


GAME = '''
game "Filters":
    players: 2 to 2
    summary: "Cards lift each other by conditions of every kind."

player has:
    score: number = 0

game has:
    lifted: flag = no

zone box: shared, hidden
zone table: per player, unordered, public

enum Colour: red, blue

card type Unit:
    power: number = 1
    lift: number = 0
    colour: Colour = red
    bright: flag = no
    marked: flag = no

    modify power of cards in zone of this by lift while lift > 0 and colour = blue
    modify power of cards in zone of this by 1 while bright and this is in your table
    modify power of this by 2 while marked
    modify power of this by 3 while lifted and bright
    modify power of this by 4 while this is in your table and bright
    modify power of this by 5 while not bright or lift > 1

    action "Mark" from table, in your turn, if not marked:
        "It is marked."
        set marked to yes

cards Unit in box:
    | name  | lift | colour | bright |
    | "A"   | 1    | blue   | yes    |
    | "B"   | 2    | red    | no     |
    | "C"   | 0    | blue   | yes    |
    | "D"   | 3    | blue   | no     |

setup:
    move first(cards in box where name = "A") to seat 1's table face up
    move first(cards in box where name = "B") to seat 1's table face up
    move first(cards in box where name = "C") to seat 2's table face up
    move first(cards in box where name = "D") to seat 2's table face up

round "Turns":
    for each p in players:
        turn of p:
            p may take actions
            add sum(u's power for each u in cards in p's table) to p's score

as soon as any(players where it's score >= 40):
    first(players where it's score >= 40) wins
'''


@pytest.fixture
def filters(tmp_path):
    path = tmp_path / "filters.cards"
    path.write_text(GAME)
    return path


def test_which_conditions_are_filtered(filters):
    entries = list(_entries(load_game(str(filters))).values())
    assert entries == [
        ["A", "D"],                 # lift > 0 and colour = blue: two printed fields
        ["A", "C"],                 # bright, then where it is: the fixed first conjunct filters
        ["A", "B", "C", "D"],       # marked: the Mark action sets it
        ["A", "B", "C", "D"],       # a game attribute first: not a card's printed field
        ["A", "B", "C", "D"],       # a zone first: a fixed conjunct after it is not used
        ["B", "D"],                 # not bright or lift > 1
    ]


def _log(path, seed, filtered, monkeypatch):
    with monkeypatch.context() as mp:
        if not filtered:
            mp.setattr(Program, "_fixed_filter", lambda self, ab, sc, extra, cards: cards)
        game = load_game(str(path))         # a fresh Game: its program is built anew
        eng = run_game(game, 2, seed, log=True)
    return json.dumps(eng.m.log.events, sort_keys=True, default=str), eng.result


@pytest.mark.parametrize("which", ["filters", "bonuses", "battlefield"])
def test_a_game_plays_the_same_with_the_filter_as_without(which, filters, monkeypatch):
    path = {"filters": filters, "bonuses": BONUSES, "battlefield": BATTLEFIELD}[which]
    for seed in range(4 if which == "battlefield" else 12):
        assert _log(path, seed, True, monkeypatch) == _log(path, seed, False, monkeypatch), (which, seed)
