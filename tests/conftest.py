"""Shared fixtures: the repository root, the bundled Space War game, and a random-game helper."""
from __future__ import annotations

from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.play import run_game

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository's root folder (holds games/, grammar/, tests/)."""
    return ROOT


@pytest.fixture(scope="session")
def space_war():
    """The loaded `Game` of games/space_war_in_space.cards (immutable, so shared by the session)."""
    return load_game(str(ROOT / "games" / "space_war_in_space.cards"))


def _play(game, players: int, seed: int, log: bool = True):
    """A whole game with the default random bots (one seeded RandomAgent per seat); the Engine."""
    return run_game(game, players, seed, log=log)


@pytest.fixture(scope="session")
def play():
    """`play(game, players, seed, log=True) -> Engine`: a finished random game."""
    return _play
