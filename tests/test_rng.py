"""The game's random generator (interpreter/rng.py): the fast shuffle draws as the definition does."""
from hypothesis import given, settings, strategies as st

from cardsmith.interpreter import rng


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=(1 << 64) - 1), st.lists(st.integers(), max_size=80))
def test_shuffle_is_fisher_yates_by_below(state, items):
    a, b = list(items), list(items)
    assert rng.shuffle(state, a) == rng._shuffle_by_below(state, b)
    assert a == b and sorted(a) == sorted(items)


def test_a_known_sequence():
    # pinned: a change of generator would change every game's log
    state = rng.seed_state(7)
    deck = list(range(10))
    rng.shuffle(state, deck)
    assert deck == [8, 1, 9, 2, 6, 7, 5, 3, 0, 4]       # as every earlier version shuffled it


def test_every_size_across_the_lane_sets():
    # the draws computed together (`_lanes`: sets of 8, 16, 24, ... lanes, then by eighths) and
    # one at a time are the same, at every size around the sets' edges
    for size in [*range(0, 70), 127, 128, 129, 255, 256, 257, 1000]:
        for state in (0, 1, (1 << 64) - 1, rng.seed_state(size)):
            a, b = list(range(size)), list(range(size))
            assert rng.shuffle(state, a) == rng._shuffle_by_below(state, b), size
            assert a == b


def test_a_draw_that_may_be_rejected_is_drawn_one_at_a_time(monkeypatch):
    # a rejection (a draw past `below`'s limit) is too rare to meet: pretend every draw is close
    # enough to one, and the shuffle must go the one-at-a-time way with the same result
    drawn = []
    monkeypatch.setattr(rng, "_FULL", 0)
    monkeypatch.setattr(rng, "_shuffle_drawn", lambda s, items, f=rng._shuffle_drawn: drawn.append(1) or f(s, items))
    a, b = list(range(40)), list(range(40))
    assert rng.shuffle(5, a) == rng._shuffle_by_below(5, b) and a == b
    assert drawn == [1]
