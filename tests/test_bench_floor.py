"""The floor of bench/bench_space_war.py --floor plays the reference's games (issue 9).

bench/floor_space_war.py writes the reference's rules on cardsmith's state model, to tell how
much of the interpreter's distance from the reference the state's shape costs. That comparison
means something only if both play the same games: the same random calls in the same order, so
the same winner after the same number of contests, seed for seed, at every player count.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


@pytest.fixture(scope="module")
def sides():
    sys.path.insert(0, str(BENCH))
    try:
        import floor_space_war
        import reference_space_war
    finally:
        sys.path.remove(str(BENCH))
    return reference_space_war, floor_space_war


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_the_floor_plays_the_references_games(sides, players):
    reference, floor = sides
    for seed in range(25):
        assert floor.play_game(players, seed) == reference.play_game(players, seed), (players, seed)


def test_the_floor_keeps_every_card_once_and_where_it_lies(sides):
    _reference, floor = sides
    for seed in range(10):
        game = floor.SpaceWar(3, seed)
        game.play()
        seen = [c for cards in game.zones.values() for c in cards]
        assert sorted(seen) == list(range(len(game.cards)))
        assert all(game.card_zone[c] == key for key, cards in game.zones.items() for c in cards)
