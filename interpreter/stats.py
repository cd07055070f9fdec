"""Statistics for simulations, in plain Python (no numpy).

- ``wilson_interval(k, n)``: the 95% Wilson score interval of a proportion;
- ``percentile(values, q)``: linear interpolation between closest ranks (numpy's default);
- ``describe(values)``: count, mean, median, p95, min, max;
- ``summarize_games(records, players)``: the simulation summary from one record per game,
  taken in the order given (the caller passes them in seed order, so the summary does not
  depend on how the games were spread over workers);
- ``moments(values)``: ``describe`` with the total and the sample standard deviation;
- ``two_proportion_test(k1, n1, k2, n2)`` and ``welch_test(a, b)``: the two-sided p-values
  ``cardsmith compare`` reports (a pooled z test for rates; Welch's unequal-variance t test
  for means, its t distribution from the regularised incomplete beta function).
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


def grouping_label(value) -> str:
    """A grouping value as the designer writes it: an enum member by its name, a list of them in
    brackets (`[sun, moon]`), never Python's `['sun', 'moon']`."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(grouping_label(v) for v in value) + "]"
    return str(value)


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
                tally = held.setdefault(attribute, {}).setdefault(grouping_label(value), [0, 0])
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


def moments(values: Iterable[float]) -> dict:
    """``describe`` plus ``total`` (the sum) and ``sd`` (the sample standard deviation, None
    for fewer than two values): what a Welch test needs to compare two runs."""
    data = list(values)
    out = describe(data)
    out["total"] = math.fsum(data) if data else 0
    if len(data) >= 2:
        mean = out["mean"]
        out["sd"] = math.sqrt(math.fsum((x - mean) ** 2 for x in data) / (len(data) - 1))
    else:
        out["sd"] = None
    return out


def normal_sf(z: float) -> float:
    """P(Z > z) for a standard normal Z."""
    return 0.5 * math.erfc(z / math.sqrt(2))


def two_proportion_test(k1: int, n1: int, k2: int, n2: int) -> float | None:
    """The two-sided p-value of the pooled two-proportion z test of k1/n1 against k2/n2.

    >>> round(two_proportion_test(60, 100, 40, 100), 4)
    0.0047

    None when either side has no trials; 1.0 when both rates are 0 or both 1 (nothing differs).
    """
    if n1 <= 0 or n2 <= 0:
        return None
    pooled = (k1 + k2) / (n1 + n2)
    if pooled in (0.0, 1.0):
        return 1.0
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    z = abs(k1 / n1 - k2 / n2) / se
    return min(1.0, 2 * normal_sf(z))


def welch_test(a: dict, b: dict) -> float | None:
    """The two-sided p-value of Welch's t test for two samples given as ``moments`` (count,
    mean, sd). None with fewer than two values on a side. Two samples without spread: 1.0 when
    their means are equal, else 0.0 (every value differs)."""
    n1, n2 = a.get("count", 0), b.get("count", 0)
    if n1 < 2 or n2 < 2 or a.get("sd") is None or b.get("sd") is None:
        return None
    v1, v2 = a["sd"] ** 2 / n1, b["sd"] ** 2 / n2
    diff = a["mean"] - b["mean"]
    if v1 + v2 == 0:
        return 1.0 if diff == 0 else 0.0
    t = abs(diff) / math.sqrt(v1 + v2)
    df = (v1 + v2) ** 2 / (v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1))
    # P(|T| > t) = I_{df / (df + t^2)}(df / 2, 1 / 2)
    return min(1.0, max(0.0, _betainc(df / 2, 0.5, df / (df + t * t))))


def _betainc(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b) (Numerical Recipes' continued fraction)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1 - x) / b


_BETACF_ITERATIONS = 300        # the continued fraction converges in far fewer for these arguments


def _betacf(a: float, b: float, x: float) -> float:
    tiny, eps = 1e-300, 3e-16
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, _BETACF_ITERATIONS + 1):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1) < eps:
            break
    return h


HISTOGRAM_BINS = 30
"""The most bins ``histogram`` makes (whole-number values: one bin per value when they fit)."""


def histogram(values: Iterable[int], bins: int = HISTOGRAM_BINS) -> dict:
    """Whole-number ``values`` counted in at most ``bins`` bins of one width: ``start`` (the
    lowest value), ``width`` and ``counts`` (bin i counts start + i*width to start + (i+1)*width,
    that end left out). One bin per value when the range fits; no values: no bins.

    >>> histogram([3, 4, 4, 6])
    {'start': 3, 'width': 1, 'counts': [1, 2, 0, 1]}
    >>> histogram(range(100), bins=10)['counts']
    [10, 10, 10, 10, 10, 10, 10, 10, 10, 10]
    """
    data = [int(v) for v in values]
    if not data:
        return {"start": 0, "width": 1, "counts": []}
    low, high = min(data), max(data)
    width = max(1, -(-(high - low + 1) // bins))
    counts = [0] * ((high - low) // width + 1)
    for v in data:
        counts[(v - low) // width] += 1
    return {"start": low, "width": width, "counts": counts}
