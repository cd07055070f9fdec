"""Statistics for simulations: Wilson intervals, percentiles, the game summary."""
from __future__ import annotations

import math
import random

import pytest

from cardsmith.interpreter.stats import (Z95, describe, percentile, rate, summarize_games,
                                         wilson_interval)

# ---------------------------------------------------------------- Wilson


@pytest.mark.parametrize("successes, trials, low, high", [
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion",
    # Statistics in Medicine 17:857-872: its worked examples, method 3 (Wilson score interval
    # without continuity correction).
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
    # Symmetric and boundary cases.
    (5, 10, 0.2366, 0.7634),
    (50, 100, 0.4038, 0.5962),
    (0, 10, 0.0, 0.2775),
    (10, 10, 0.7225, 1.0),
])
def test_wilson_interval_matches_known_values(successes, trials, low, high):
    got = wilson_interval(successes, trials)
    assert got == (pytest.approx(low, abs=5e-5), pytest.approx(high, abs=5e-5))


def _quadratic_bounds(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson bounds as the roots of (p_hat - p)^2 = z^2 p (1 - p) / n, solved directly."""
    p_hat = k / n
    a = 1 + z * z / n
    b = -(2 * p_hat + z * z / n)
    c = p_hat * p_hat
    root = math.sqrt(b * b - 4 * a * c)
    return ((-b - root) / (2 * a), (-b + root) / (2 * a))


def test_wilson_interval_solves_the_score_equation():
    rng = random.Random(7)
    for _ in range(200):
        n = rng.randint(1, 5000)
        k = rng.randint(0, n)
        low, high = wilson_interval(k, n)
        want_low, want_high = _quadratic_bounds(k, n)
        assert low == pytest.approx(max(0.0, want_low), abs=1e-9)
        assert high == pytest.approx(min(1.0, want_high), abs=1e-9)
        assert 0.0 <= low <= k / n <= high <= 1.0


def test_wilson_interval_narrows_with_more_trials():
    widths = [high - low for low, high in (wilson_interval(n // 4, n) for n in (20, 200, 2000))]
    assert widths == sorted(widths, reverse=True)


def test_wilson_interval_without_trials_is_the_whole_range():
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize("successes, trials", [(-1, 10), (11, 10), (1, -1)])
def test_wilson_interval_rejects_impossible_counts(successes, trials):
    with pytest.raises(ValueError):
        wilson_interval(successes, trials)


def test_rate_reports_count_rate_and_interval():
    assert rate(5, 10) == {"count": 5, "of": 10, "rate": 0.5,
                           "ci95": [pytest.approx(0.2366, abs=5e-5), pytest.approx(0.7634, abs=5e-5)]}
    assert rate(0, 0)["rate"] is None


# ---------------------------------------------------------------- percentiles


@pytest.mark.parametrize("values, q, expected", [
    ([1, 2, 3, 4], 50, 2.5),
    ([3, 1, 2], 50, 2),                   # unsorted input
    (list(range(1, 101)), 95, 95.05),     # numpy.percentile(range(1, 101), 95)
    (list(range(1, 101)), 50, 50.5),
    ([10, 20, 30, 40, 50], 25, 20),
    ([10, 20, 30, 40, 50], 90, 46),
    ([7], 95, 7),
    ([4, 9, 1], 0, 1),
    ([4, 9, 1], 100, 9),
])
def test_percentile_interpolates_linearly(values, q, expected):
    assert percentile(values, q) == pytest.approx(expected)


def test_percentile_of_nothing_is_none():
    assert percentile([], 50) is None


@pytest.mark.parametrize("q", [-1, 100.5])
def test_percentile_rejects_out_of_range(q):
    with pytest.raises(ValueError):
        percentile([1, 2], q)


def test_describe():
    assert describe([4, 1, 3, 2]) == {"count": 4, "mean": 2.5, "median": 2.5,
                                      "p95": pytest.approx(3.85), "min": 1, "max": 4}
    assert describe([]) == {"count": 0, "mean": None, "median": None, "p95": None,
                            "min": None, "max": None}


# ---------------------------------------------------------------- the summary


def _finished(seed, winners, rounds, factions, draw=False):
    return {"seed": seed, "status": "finished", "winners": winners, "draw": draw,
            "rounds": rounds, "steps": rounds * 10,
            "groupings": {seat: {"faction": f} for seat, f in enumerate(factions)},
            "player_names": ["Ann", "Bob"]}


RECORDS = [
    _finished(1, [0], 10, ["Elves", "Orcs"]),
    _finished(2, [1], 20, ["Orcs", "Elves"]),
    _finished(3, [0], 30, ["Orcs", "Orcs"]),
    _finished(4, [], 40, ["Elves", "Orcs"], draw=True),
    {"seed": 5, "status": "aborted", "error": "space.cards:3:1: the game ran past 10000 steps"},
    {"seed": 6, "status": "crashed", "error": "KeyError: 'x'", "traceback": "Traceback ..."},
]


def test_summary_counts_wins_per_seat_over_finished_games():
    summary = summarize_games(RECORDS, players=2)
    assert summary["games"] == 6
    assert summary["finished"] == 4
    assert [(s["seat"], s["name"], s["wins"]) for s in summary["seats"]] == [(0, "Ann", 2), (1, "Bob", 1)]
    assert summary["seats"][0]["win_rate"] == 0.5
    assert summary["seats"][0]["ci95"] == list(wilson_interval(2, 4))


def test_summary_counts_wins_per_grouping_value_per_seat_held():
    faction = summarize_games(RECORDS, players=2)["groupings"]["faction"]
    assert list(faction) == ["Elves", "Orcs"]
    # Elves held 3 times (games 1, 2, 4), won twice; Orcs held 5 times (twice in game 3), won once.
    assert (faction["Elves"]["games"], faction["Elves"]["wins"]) == (3, 2)
    assert (faction["Orcs"]["games"], faction["Orcs"]["wins"]) == (5, 1)
    assert faction["Orcs"]["ci95"] == list(wilson_interval(1, 5))


def test_summary_counts_draws_aborted_and_crashed_apart():
    summary = summarize_games(RECORDS, players=2)
    assert summary["draws"]["count"] == 1 and summary["draws"]["of"] == 4
    assert summary["aborted"] == 1
    assert summary["aborted_examples"] == [{"seed": 5, "error": RECORDS[4]["error"]}]
    assert summary["crashed"] == 1
    assert summary["crash_examples"][0]["seed"] == 6
    assert "Traceback" in summary["crash_examples"][0]["traceback"]


def test_a_declared_draw_is_no_seats_win():
    records = [_finished(1, [0, 1], 5, ["Elves", "Orcs"], draw=True)]
    summary = summarize_games(records, players=2)
    assert [s["wins"] for s in summary["seats"]] == [0, 0]
    assert summary["draws"]["count"] == 1


def test_summary_game_length_uses_finished_games_only():
    summary = summarize_games(RECORDS, players=2)
    assert summary["rounds"] == {"count": 4, "mean": 25.0, "median": 25.0,
                                 "p95": pytest.approx(38.5), "min": 10, "max": 40}
    assert summary["steps"]["max"] == 400


def test_summary_of_no_finished_games_has_no_rates():
    summary = summarize_games([RECORDS[4]], players=3)
    assert [s["name"] for s in summary["seats"]] == ["Player 1", "Player 2", "Player 3"]
    assert summary["seats"][0]["win_rate"] is None
    assert summary["rounds"]["mean"] is None
    assert summary["groupings"] == {}
