"""Statistics for simulations, in plain Python (no numpy).

- ``wilson_interval(k, n)``: the 95% Wilson score interval of a proportion;
- ``percentile(values, q)``: linear interpolation between closest ranks (numpy's default);
- ``describe(values)``: count, mean, median, p95, min, max;
- ``summarize_games(records, players)``: the simulation summary from one record per game,
  taken in the order given (the caller passes them in seed order, so the summary does not
  depend on how the games were spread over workers).
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

Z95 = 1.959963984540054
"""The 97.5% quantile of the standard normal distribution."""


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for ``successes`` out of ``trials``.

    >>> [round(x, 4) for x in wilson_interval(5, 10)]
    [0.2366, 0.7634]

    With no trials nothing is known: the interval is (0, 1).
    """
    if trials < 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes} of {trials}")
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return (low, high)


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0-100) by linear interpolation; None for no values.

    >>> percentile([1, 2, 3, 4], 50)
    2.5
    """
    if not 0 <= q <= 100:
        raise ValueError(f"percentile must be between 0 and 100, got {q}")
    ordered = sorted(values)
    if not ordered:
        return None
    rank = (len(ordered) - 1) * q / 100
    below = math.floor(rank)
    above = min(below + 1, len(ordered) - 1)
    fraction = rank - below
    return ordered[below] + (ordered[above] - ordered[below]) * fraction


def describe(values: Iterable[float]) -> dict:
    """count, mean, median, p95, min and max of ``values`` (None where there are none)."""
    data = list(values)
    if not data:
        return {"count": 0, "mean": None, "median": None, "p95": None, "min": None, "max": None}
    return {
        "count": len(data),
        "mean": math.fsum(data) / len(data),
        "median": percentile(data, 50),
        "p95": percentile(data, 95),
        "min": min(data),
        "max": max(data),
    }


def rate(successes: int, trials: int) -> dict:
    """``{"count", "of", "rate", "ci95": [low, high]}`` for a proportion."""
    low, high = wilson_interval(successes, trials)
    return {
        "count": successes,
        "of": trials,
        "rate": successes / trials if trials else None,
        "ci95": [low, high],
    }


def summarize_games(records: Sequence[dict], players: int) -> dict:
    """The statistics of a simulation from one record per game.

    A record is ``{"seed", "status": "finished" | "aborted" | "crashed", ...}`` (aborted
    and crashed ones carry an ``error`` line; their seeds are all listed); a
    finished one also has ``winners`` (seats), ``draw``, ``rounds``, ``steps`` and
    ``groupings`` (seat -> {attribute: value}). Win rates count finished games only:
    a seat's wins over the finished games, a grouping value's wins over the seats
    that held it (two seats of the same faction in one game count twice). A game
    declared a draw counts as a draw and as no seat's win.
    """
    finished = [r for r in records if r["status"] == "finished"]
    aborted = [r for r in records if r["status"] == "aborted"]
    crashed = [r for r in records if r["status"] == "crashed"]

    seat_wins = [0] * players
    draws = 0
    held: dict[str, dict[str, list[int]]] = {}    # attribute -> value -> [games, wins]
    for record in finished:
        winners = set() if record["draw"] else set(record["winners"])
        draws += bool(record["draw"])
        for seat in winners:
            if 0 <= seat < players:
                seat_wins[seat] += 1
        for seat, attributes in sorted(record.get("groupings", {}).items()):
            for attribute, value in sorted(attributes.items()):
                tally = held.setdefault(attribute, {}).setdefault(str(value), [0, 0])
                tally[0] += 1
                tally[1] += int(seat) in winners

    names = _player_names(finished, players)
    seats = [{"seat": seat, "name": names[seat], **_win_rate(seat_wins[seat], len(finished))}
             for seat in range(players)]
    groupings = {
        attribute: {value: {"games": games, **_win_rate(wins, games)}
                    for value, (games, wins) in sorted(values.items())}
        for attribute, values in sorted(held.items())
    }
    return {
        "games": len(records),
        "players": players,
        "finished": len(finished),
        "seats": seats,
        "groupings": groupings,
        "draws": rate(draws, len(finished)),
        "aborted": len(aborted),
        "aborted_examples": [_example(r) for r in aborted[:5]],
        "aborted_seeds": [r["seed"] for r in aborted],      # every one, to replay with `play --seed`
        "crashed": len(crashed),
        "crash_examples": [_example(r) for r in crashed[:5]],
        "crashed_seeds": [r["seed"] for r in crashed],
        "rounds": describe(r["rounds"] for r in finished),
        "steps": describe(r["steps"] for r in finished),
    }


def _win_rate(wins: int, games: int) -> dict:
    low, high = wilson_interval(wins, games)
    return {"wins": wins, "win_rate": wins / games if games else None, "ci95": [low, high]}


def _player_names(finished: Sequence[dict], players: int) -> list[str]:
    for record in finished:
        names = record.get("player_names")
        if names and len(names) == players:
            return list(names)
    return [f"Player {seat + 1}" for seat in range(players)]


def _example(record: dict) -> dict:
    example = {"seed": record["seed"], "error": record.get("error", "")}
    if record.get("traceback"):
        example["traceback"] = record["traceback"]
    return example
