"""Benchmark: the cardsmith interpreter vs a hand-written Python reference.

Plays "Space War: in Space!" with random bots, N games per batch, for 2 and 4
players, R repeats, interleaving reference and interpreter batches in one run,
and prints the median speed of each plus the slowdown factor.

    python bench/bench_space_war.py [--games N] [--repeats R] [--log] [--clock cpu] [--floor]

See bench/README.md for how to read the numbers.
"""
from __future__ import annotations

import argparse
import importlib
import json
import platform
import statistics
import sys
import time
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GAME_FILE = ROOT / "games" / "space_war_in_space.cards"
PLAYER_COUNTS = (2, 4)

sys.path.insert(0, str(HERE))
from reference_space_war import play_game as reference_play  # noqa: E402
from floor_space_war import play_game as floor_play  # noqa: E402


def _import_cardsmith():
    """Import the interpreter's entry points.

    Uses the installed package (`pip install -e .`); if `cardsmith` is not
    installed, maps it onto this source tree (pyproject maps cardsmith.dsl,
    cardsmith.interpreter and cardsmith.grammar onto dsl/, interpreter/ and
    grammar/, so a namespace package rooted at the repository does the same).
    """
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

    def __init__(self, log: bool = False):
        self.log = log              # the reference keeps no log, so by default neither does this side
        self.error = None
        self.game = None
        self.run_game = None
        try:
            load_game, self.run_game = _import_cardsmith()
            self.game = load_game(str(GAME_FILE))   # loaded once, outside the timing
        except Exception as exc:  # ImportError, or a load error while it's being written
            self.error = _error(exc)

    def play(self, players: int, seed: int) -> int:
        eng = self.run_game(self.game, players, seed, log=self.log)
        return eng.result["rounds"]

    def warm_up(self, players: int) -> None:
        if self.error is None:
            try:
                self.play(players, 0)
            except Exception as exc:
                self.error = _error(exc)


def _reference_rounds(players: int, seed: int) -> int:
    return reference_play(players, seed)["rounds"]


def _floor_rounds(players: int, seed: int) -> int:
    return floor_play(players, seed)["rounds"]


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def time_batch(play, players: int, seeds: range, clock=time.perf_counter) -> tuple[float, int]:
    """Play one game per seed; returns (seconds by `clock`, total contests)."""
    rounds = 0
    start = clock()
    for seed in seeds:
        rounds += play(players, seed)
    return clock() - start, rounds


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200, help="games per batch (default 200)")
    ap.add_argument("--repeats", type=int, default=5, help="batches per side (default 5)")
    ap.add_argument("--log", action="store_true", help="let the interpreter keep its event log (default off)")
    ap.add_argument("--floor", action="store_true",
                    help="time a third side too: the reference's rules hand-written on cardsmith's state model "
                         "(floor_space_war.py), the best a compiler keeping that model could do")
    ap.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                    help="wall: elapsed time (default); cpu: this process's CPU time, which leaves out the "
                         "time spent waiting for a core on a busy shared machine")
    args = ap.parse_args(argv)
    if args.games < 1 or args.repeats < 1:
        ap.error("--games and --repeats must be at least 1")

    seeds = range(args.games)   # the same seeds for both sides and every repeat
    interp = Interpreter(log=args.log)
    for n in PLAYER_COUNTS:
        reference_play(n, 0)    # warm-up, untimed
        if args.floor:
            floor_play(n, 0)
        interp.warm_up(n)       # first run: any exception marks the side unavailable

    times = {("ref", n): [] for n in PLAYER_COUNTS}
    times.update({("interp", n): [] for n in PLAYER_COUNTS})
    if args.floor:
        times.update({("floor", n): [] for n in PLAYER_COUNTS})
    rounds = {key: 0 for key in times}
    for r in range(args.repeats):
        for n in PLAYER_COUNTS:
            sides = [("ref", _reference_rounds)] + ([("floor", _floor_rounds)] if args.floor else []) \
                + [("interp", None)]
            if r % 2:                       # alternate which side goes first
                sides.reverse()
            for side, play in sides:
                if side == "interp":
                    if interp.error is not None:
                        continue
                    play = interp.play
                try:
                    elapsed, contests = time_batch(play, n, seeds, CLOCKS[args.clock])
                except Exception as exc:
                    if side != "interp":
                        raise
                    interp.error = _error(exc)
                    for m in PLAYER_COUNTS:     # report no partial interpreter numbers
                        times["interp", m].clear()
                        rounds["interp", m] = 0
                    continue
                times[side, n].append(elapsed)
                rounds[side, n] += contests

    def gps(side, n):
        runs = times[side, n]
        return args.games / statistics.median(runs) if runs else None

    summary = {
        "benchmark": "space_war_in_space",
        "games": args.games,
        "repeats": args.repeats,
        "interpreter_log": args.log,
        "clock": args.clock,
        "python": platform.python_version(),
        "interpreter_error": interp.error,
        "results": {},
    }
    print(f"Space War: in Space! -- {args.games} games x {args.repeats} repeats, "
          f"random bots, interpreter log {'on' if args.log else 'off'}, {args.clock} clock, "
          f"Python {platform.python_version()}")
    header = (f"{'players':>7}  {'reference g/s':>13}  {'interpreter g/s':>15}  "
              f"{'slowdown':>9}  {'contests/game ref / interp':>26}")
    print(header)
    print("-" * len(header))
    for n in PLAYER_COUNTS:
        ref = gps("ref", n)
        itp = gps("interp", n)
        ratio = ref / itp if itp else None
        ref_mean = rounds["ref", n] / (args.games * len(times["ref", n]))
        itp_mean = (rounds["interp", n] / (args.games * len(times["interp", n]))
                    if times["interp", n] else None)
        itp_col = f"{itp:15.1f}" if itp else f"{'n/a':>15}"
        ratio_col = f"{ratio:8.1f}x" if ratio else f"{'n/a':>9}"
        contests_col = f"{ref_mean:.1f} / " + (f"{itp_mean:.1f}" if itp_mean else "n/a")
        print(f"{n:>7}  {ref:13.1f}  {itp_col}  {ratio_col}  {contests_col:>26}")
        summary["results"][str(n)] = {
            "reference_games_per_s": round(ref, 2),
            "interpreter_games_per_s": round(itp, 2) if itp else None,
            "ratio_interp_over_ref_time": round(ratio, 2) if ratio else None,
            "reference_contests_per_game": round(ref_mean, 1),
            "interpreter_contests_per_game": round(itp_mean, 1) if itp_mean else None,
        }
        if args.floor:
            flo = gps("floor", n)
            summary["results"][str(n)].update({
                "floor_games_per_s": round(flo, 2),
                "ratio_floor_over_ref_time": round(ref / flo, 2),
                "ratio_interp_over_floor_time": round(flo / itp, 2) if itp else None,
            })
            print(f"{'':>7}  floor (the reference's rules on cardsmith's state model): {flo:.1f} g/s, "
                  f"{ref / flo:.2f}x the reference" + (f"; the interpreter {flo / itp:.2f}x the floor" if itp else ""))
    if interp.error is not None:
        print(f"interpreter not available: {interp.error}")
    print(json.dumps(summary, sort_keys=True))
    return summary


if __name__ == "__main__":
    main()
