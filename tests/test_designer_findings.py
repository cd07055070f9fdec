"""What a designer new to cardsmith tripped on when writing games from docs/ alone (a docs
trial): each finding fixed as a general improvement, each with a test that failed before."""
from __future__ import annotations

import pytest


from cardsmith.dsl.fmt import format_text
from cardsmith.dsl.loader import load_text
from cardsmith.dsl.publish import rulebook as R

SMALL = """game "Solo Duel":
    players: {players}

player has:
    score: number = 0

setup:
    add 1 to seat 1's score

as soon as any(players where it's score >= 1):
    first(players where it's score >= 1) wins
"""


# ---------------------------------------------------------------- 1. `players: 2`


def test_players_may_be_one_number():
    game = load_text(SMALL.format(players="2"), "solo.cards")
    assert (game.min_players, game.max_players) == (2, 2)
    assert R.players_text(game) == "2 players"


def test_players_as_one_number_is_the_same_game_as_the_range():
    one = load_text(SMALL.format(players="3"), "one.cards")
    two = load_text(SMALL.format(players="3 to 3"), "two.cards")
    assert (one.min_players, one.max_players) == (two.min_players, two.max_players) == (3, 3)


def test_fmt_keeps_players_as_one_number():
    text = SMALL.format(players="2")
    assert format_text(text, "solo.cards") == text
