"""Benchmark: the cardsmith interpreter vs a hand-written Python reference, on Battlefield: Space.

Plays "Battlefield: Space" (a game for 2 players) with random bots, N games per batch, R
repeats, interleaving reference and interpreter batches in one run, and prints the median
speed of each, the slowdown factor, and the battles per game of each side (with its standard
error) to check that both play the same game.

    python bench/bench_battlefield.py [--games N] [--repeats R] [--log] [--exact] [--clock cpu]

``--exact``: the reference shuffles with the interpreter's own generator (SplitMix64), so both
sides play the very same games seed for seed; the run then also counts the seeds whose winner
or number of battles differ (it should be 0). See bench/README.md for how to read the numbers.
"""
from __future__ import annotations

import argparse
import importlib
import json
import math
import platform
import statistics
import sys
import time
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GAME_FILE = ROOT / "games" / "battlefield_space.cards"
PLAYER_COUNTS = (2,)

sys.path.insert(0, str(HERE))
from reference_battlefield import Battlefield  # noqa: E402


def _import_cardsmith():
    """The interpreter's entry points: the installed package, else this source tree (as
    bench_space_war.py does)."""
    try:
        importlib.import_module("cardsmith")
    except ImportError:
        pkg = types.ModuleType("cardsmith")
        pkg.__path__ = [str(ROOT)]
        sys.modules["cardsmith"] = pkg
    loader = importlib.import_module("cardsmith.dsl.loader")
    play = importlib.import_module("cardsmith.interpreter.play")
    return loader.load_game, play.run_game


def _error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}".splitlines()[0]


class Interpreter:
    """The interpreter side; `error` is set (and the side skipped) if it fails."""

    def __init__(self, log: bool = False, game_file: Path = GAME_FILE):
        self.log = log
        self.error = None
        try:
            load_game, self.run_game = _import_cardsmith()
            self.game = load_game(str(game_file))   # loaded once, outside the timing
        except Exception as exc:  # ImportError, or a load error while it's being written
            self.error = _error(exc)

    def play(self, players: int, seed: int) -> tuple:
        result = self.run_game(self.game, players, seed, log=self.log).result
        return tuple(result["winners"]), result["rounds"]

    def warm_up(self, players: int) -> None:
        if self.error is None:
            try:
                self.play(players, 0)
            except Exception as exc:
                self.error = _error(exc)


class Reference:
    def __init__(self, exact: bool):
        self.exact = exact

    def play(self, players: int, seed: int) -> tuple:
        game = Battlefield(seed, self.exact)
        winner = game.play()
        return ((winner,) if winner is not None else ()), game.battles


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def time_batch(play, players: int, seeds: range, clock=time.perf_counter) -> tuple[float, list]:
    """Play one game per seed; returns (seconds by `clock`, [(winners, battles) per seed])."""
    out = []
    start = clock()
    for seed in seeds:
        out.append(play(players, seed))
    return clock() - start, out


def mean_and_error(values: list) -> tuple[float, float]:
    """The mean and its standard error (sample standard deviation / sqrt(n))."""
    m = statistics.fmean(values)
    se = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return m, se


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100, help="games per batch (default 100)")
    ap.add_argument("--repeats", type=int, default=5, help="batches per side (default 5)")
    ap.add_argument("--log", action="store_true", help="let the interpreter keep its event log (default off)")
    ap.add_argument("--exact", action="store_true",
                    help="the reference shuffles with the interpreter's generator: both sides play the same games")
    ap.add_argument("--game", metavar="FILE", default=str(GAME_FILE),
                    help="the interpreter's copy of the game (default games/battlefield_space.cards; e.g. an "
                         "older checkout's, to time an older runtime that cannot read this one)")
    ap.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                    help="wall: elapsed time (default); cpu: this process's CPU time, which leaves out the "
                         "time spent waiting for a core on a busy shared machine")
    args = ap.parse_args(argv)
    if args.games < 1 or args.repeats < 1:
        ap.error("--games and --repeats must be at least 1")

    seeds = range(args.games)   # the same seeds for both sides and every repeat
    ref = Reference(args.exact)
    interp = Interpreter(log=args.log, game_file=Path(args.game))
    for n in PLAYER_COUNTS:
        ref.play(n, 0)          # warm-up, untimed
        interp.warm_up(n)       # first run: any exception marks the side unavailable

    times = {(side, n): [] for side in ("ref", "interp") for n in PLAYER_COUNTS}
    games = {key: None for key in times}      # one batch's per-seed results (every repeat is the same)
    for r in range(args.repeats):
        for n in PLAYER_COUNTS:
            sides = ["ref", "interp"]
            if r % 2:                       # alternate which side goes first
                sides.reverse()
            for side in sides:
                if side == "interp" and interp.error is not None:
                    continue
                play = ref.play if side == "ref" else interp.play
                try:
                    elapsed, played = time_batch(play, n, seeds, CLOCKS[args.clock])
                except Exception as exc:
                    if side == "ref":
                        raise
                    interp.error = _error(exc)
                    for m in PLAYER_COUNTS:     # report no partial interpreter numbers
                        times["interp", m].clear()
                        games["interp", m] = None
                    continue
                times[side, n].append(elapsed)
                games[side, n] = played

    def gps(side, n):
        runs = times[side, n]
        return args.games / statistics.median(runs) if runs else None

    summary = {
        "benchmark": "battlefield_space",
        "games": args.games,
        "repeats": args.repeats,
        "interpreter_log": args.log,
        "exact": args.exact,
        "clock": args.clock,
        "python": platform.python_version(),
        "interpreter_error": interp.error,
        "results": {},
    }
    print(f"Battlefield: Space -- {args.games} games x {args.repeats} repeats, random bots, interpreter log "
          f"{'on' if args.log else 'off'}, reference shuffles {'SplitMix64 (exact)' if args.exact else 'random.Random'}, "
          f"{args.clock} clock, Python {platform.python_version()}")
    header = (f"{'players':>7}  {'reference g/s':>13}  {'interpreter g/s':>15}  "
              f"{'slowdown':>9}  {'battles/game ref / interp (± s.e.)':>36}")
    print(header)
    print("-" * len(header))
    notes = []
    for n in PLAYER_COUNTS:
        ref_gps, itp_gps = gps("ref", n), gps("interp", n)
        ratio = ref_gps / itp_gps if itp_gps else None
        ref_b, ref_se = mean_and_error([b for _, b in games["ref", n]])
        itp = games["interp", n]
        itp_b, itp_se = mean_and_error([b for _, b in itp]) if itp else (None, None)
        itp_col = f"{itp_gps:15.1f}" if itp_gps else f"{'n/a':>15}"
        ratio_col = f"{ratio:8.2f}x" if ratio else f"{'n/a':>9}"
        battles_col = f"{ref_b:.2f} ± {ref_se:.2f} / " + (f"{itp_b:.2f} ± {itp_se:.2f}" if itp else "n/a")
        print(f"{n:>7}  {ref_gps:13.1f}  {itp_col}  {ratio_col}  {battles_col:>36}")
        row = {
            "reference_games_per_s": round(ref_gps, 2),
            "interpreter_games_per_s": round(itp_gps, 2) if itp_gps else None,
            "ratio_interp_over_ref_time": round(ratio, 2) if ratio else None,
            "reference_battles_per_game": round(ref_b, 2),
            "reference_battles_se": round(ref_se, 3),
            "interpreter_battles_per_game": round(itp_b, 2) if itp else None,
            "interpreter_battles_se": round(itp_se, 3) if itp else None,
        }
        if itp:
            gap = abs(ref_b - itp_b)
            joint = math.hypot(ref_se, itp_se)
            row["battles_gap_in_se"] = round(gap / joint, 2) if joint else None
            if joint and gap > 3 * joint:
                notes.append(f"{n} players: battles per game differ by {gap / joint:.1f} standard errors: "
                             f"the two sides may not play the same rules")
            if args.exact:
                differ = [seed for seed, a, b in zip(seeds, games["ref", n], itp) if a != b]
                row["seeds_that_differ"] = len(differ)
                notes.append(f"{n} players, exact mode: {len(differ)} of {args.games} seeds differ "
                             f"(winner or battles)" + (f", first {differ[:5]}" if differ else ""))
        summary["results"][str(n)] = row
    for note in notes:
        print(note)
    if interp.error is not None:
        print(f"interpreter not available: {interp.error}")
    print(json.dumps(summary, sort_keys=True))
    return summary


if __name__ == "__main__":
    main()
