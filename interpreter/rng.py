"""The one seeded random generator of a game: SplitMix64.

Its whole state is one integer kept in the GameState, so a saved game resumes the
same random sequence, and results do not depend on the Python version's `random`.
"""
from __future__ import annotations

MASK = (1 << 64) - 1


def next64(state: int) -> tuple[int, int]:
    """(new state, 64-bit output)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def below(state: int, n: int) -> tuple[int, int]:
    """(new state, a uniform integer in [0, n)) — rejection sampling, no modulo bias."""
    if n <= 1:
        return state, 0
    limit = (1 << 64) - ((1 << 64) % n)
    while True:
        state, x = next64(state)
        if x < limit:
            return state, x % n


def shuffle(state: int, items: list) -> int:
    """Fisher-Yates in place; returns the new state. The same draws as `below` for each i, with
    `next64` written out in the loop: a shuffle is most of the generator's use, and two calls
    per card were most of a shuffle's cost."""
    full = 1 << 64
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        limit = full - (full % n)
        while True:
            state = (state + 0x9E3779B97F4A7C15) & MASK
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
            z ^= z >> 31
            if z < limit:
                break
        j = z % n
        items[i], items[j] = items[j], items[i]
    return state


def _shuffle_by_below(state: int, items: list) -> int:
    """The definition `shuffle` is written out from (tests/test_rng.py holds them equal)."""
    for i in range(len(items) - 1, 0, -1):
        state, j = below(state, i + 1)
        items[i], items[j] = items[j], items[i]
    return state


def seed_state(seed: int) -> int:
    state, _ = next64(seed & MASK)
    return state
