"""The one seeded random generator of a game: SplitMix64.

Its whole state is one integer kept in the GameState, so a saved game resumes the
same random sequence, and results do not depend on the Python version's `random`.
"""
from __future__ import annotations

import sys

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
    """Fisher-Yates in place, from the last item down; returns the new state. The same draws as
    `below` for each i (`_shuffle_by_below`, the definition), worked out all at once: SplitMix64's
    k-th next state is the state plus k times its constant, so each draw is `next64` of a state
    known in advance, and the draws of a shuffle are computed together, each in a 128-bit lane of
    one big integer (`_lanes`): a lane's product with a 64-bit constant fits in its lane, and the
    bits a shift moves into the lane below are masked off. A draw `below` would reject (at or past
    its limit, less than n short of 2**64) is within k + 1 of 2**64; if any draw is, the shuffle
    is done one draw at a time (`_shuffle_drawn`), which rejects it and draws again as `below` does."""
    k = len(items) - 1
    if k < _PACKED or _BIG_ENDIAN:
        return _shuffle_drawn(state, items)
    ones, ramp, lane, size = _lanes(k)
    z = (state * ones + ramp) & lane            # lane i: the state of draw i + 1
    z = ((z ^ ((z >> 30) & lane)) * 0xBF58476D1CE4E5B9) & lane
    z = ((z ^ ((z >> 27) & lane)) * 0x94D049BB133111EB) & lane
    z ^= (z >> 31) & lane
    draws = memoryview(z.to_bytes(size, "little")).cast("Q")[0:2 * k:2].tolist()
    if max(draws) >= _FULL - k - 1:           # some draw may be rejected: one at a time
        return _shuffle_drawn(state, items)
    for i, x in zip(range(k, 0, -1), draws):
        j = x % (i + 1)
        items[i], items[j] = items[j], items[i]
    return (state + k * 0x9E3779B97F4A7C15) & MASK


_FULL = 1 << 64
_PACKED = 12                # fewer draws than this: one at a time is as quick
_BIG_ENDIAN = sys.byteorder != "little"     # the lanes are read as native 64-bit words
_LANE_SETS: dict = {}       # lane count -> lanes (`_lanes`)


def _lanes(k: int) -> tuple:
    """(1 in every lane, lane i holding (i + 1) times the state's constant, 2**64 - 1 in every
    lane, the bytes of the lanes) for at least k lanes of 128 bits: k rounded up to an eighth of
    its power of two (at least 8), so that a game's shuffles of many sizes share a few sets and
    a shuffle computes at most about an eighth more draws than it uses."""
    step = 1 << max(3, k.bit_length() - 3)
    n = -(-k // step) * step
    got = _LANE_SETS.get(n)
    if got is None:
        ones = sum(1 << (128 * i) for i in range(n))
        ramp = sum((i + 1) << (128 * i) for i in range(n)) * 0x9E3779B97F4A7C15
        got = _LANE_SETS[n] = (ones, ramp, ones * MASK, 16 * n)
    return got


def _shuffle_drawn(state: int, items: list) -> int:
    """`shuffle` one draw at a time, with `next64` written out in the loop."""
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
