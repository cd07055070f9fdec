"""Benchmark: what the event log costs (issue 9: log on costs at most 2x log off).

Plays one game file with the default random bots, N games per batch on seeds 0..N-1, three
ways, interleaved in one run (the order rotates every repeat, so a slow patch of a shared
machine hits every side):

* **off**:     `run_game(..., log=False)`, as `simulate` and the speed benchmarks play;
* **on**:      `run_game(..., log=True)`: the engine keeps its explained log (every event, its
               rule, its text and who may read each card's name) but nobody reads it;
* **written**: the same, then the whole log written as `cardsmith play --log` writes it
               (`Engine.log_jsonl()`: the events as dicts, one JSON object a line).

`--clock cpu` times each batch by this process's CPU time (`time.process_time`), leaving out
the time spent waiting for a core on a busy shared machine (default `wall`: `time.perf_counter`).
It prints each side's median time per game and the ratios on/off and written/off: for each
repeat the ratio of that repeat's batches, then the median of those (`median ratio`), beside
the ratio of the medians; and what an event costs (the side's median time beyond off's, per
event logged: `us_per_event`). The last line is a JSON summary.

    python bench/bench_log.py                                  # Space War: in Space!, 2 players
    python bench/bench_log.py --games 30 --repeats 7 --players 4
    python bench/bench_log.py --game games/battlefield_space.cards
    python bench/bench_log.py --clock cpu                      # this process's CPU time

See bench/README.md ("What the log costs") for the numbers measured.
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
SIDES = ("off", "on", "written")
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def _import_cardsmith():
    """The loader and run_game: the installed package, else this source tree (as bench_space_war)."""
    try:
        importlib.import_module("cardsmith")
    except ImportError:
        pkg = types.ModuleType("cardsmith")
        pkg.__path__ = [str(ROOT)]
        sys.modules["cardsmith"] = pkg
    loader = importlib.import_module("cardsmith.dsl.loader")
    play = importlib.import_module("cardsmith.interpreter.play")
    return loader.load_game, play.run_game


def time_batch(run_game, game, players: int, seeds, side: str, clock=time.perf_counter) -> tuple[float, int]:
    """Seconds (by `clock`) for one batch, and the events its logs held (0 with the log off)."""
    events = 0
    log = side != "off"
    start = clock()
    for seed in seeds:
        eng = run_game(game, players, seed, log=log)
        if side == "written":
            eng.log_jsonl()
        if log:
            events += eng.m.st.event_n      # the events numbered (not read: that would make them dicts)
    return clock() - start, events


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default=str(GAME_FILE), help="the game file (default Space War: in Space!)")
    ap.add_argument("--players", type=int, default=2, help="players (default 2)")
    ap.add_argument("--games", type=int, default=40, help="games per batch (default 40)")
    ap.add_argument("--repeats", type=int, default=7, help="batches per side (default 7)")
    ap.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                    help="wall (time.perf_counter, default) or cpu (this process's time.process_time)")
    args = ap.parse_args(argv)
    if args.games < 1 or args.repeats < 1:
        ap.error("--games and --repeats must be at least 1")
    load_game, run_game = _import_cardsmith()
    game = load_game(args.game)
    seeds = range(args.games)
    for side in SIDES:                      # warm-up, untimed: the program's blocks are built here
        time_batch(run_game, game, args.players, range(2), side)

    times: dict[str, list[float]] = {side: [] for side in SIDES}
    events = 0
    for r in range(args.repeats):
        order = SIDES[r % 3:] + SIDES[:r % 3]
        for side in order:
            elapsed, n = time_batch(run_game, game, args.players, seeds, side, CLOCKS[args.clock])
            times[side].append(elapsed)
            events = max(events, n)

    per_game = {side: statistics.median(runs) / args.games * 1000 for side, runs in times.items()}
    ratios = {side: statistics.median(t / o for t, o in zip(times[side], times["off"])) for side in ("on", "written")}
    print(f"{Path(args.game).name}, {args.players} players -- {args.games} games x {args.repeats} repeats, "
          f"random bots, {events / args.games:,.0f} events a game, {args.clock} clock, "
          f"Python {platform.python_version()}")
    # what one event costs: the side's time beyond off's, per event the games logged
    per_event = {side: (per_game[side] - per_game["off"]) * 1000 / (events / args.games) if events else 0.0
                 for side in ("on", "written")}
    print(f"{'side':>8}  {'ms/game':>8}  {'median ratio to off':>19}  {'ratio of medians':>16}  {'us/event beyond off':>19}")
    for side in SIDES:
        ratio = "" if side == "off" else f"{ratios[side]:.2f}x"
        of_medians = "" if side == "off" else f"{per_game[side] / per_game['off']:.2f}x"
        cost = "" if side == "off" else f"{per_event[side]:.2f}"
        print(f"{side:>8}  {per_game[side]:8.2f}  {ratio:>19}  {of_medians:>16}  {cost:>19}")
    print(json.dumps({"benchmark": "log_cost", "game": Path(args.game).name, "players": args.players,
                      "games": args.games, "repeats": args.repeats, "clock": args.clock,
                      "python": platform.python_version(),
                      "events_per_game": round(events / args.games, 1),
                      "ms_per_game": {k: round(v, 3) for k, v in per_game.items()},
                      "ratio_on_over_off": round(ratios["on"], 3),
                      "ratio_written_over_off": round(ratios["written"], 3),
                      "us_per_event": {k: round(v, 3) for k, v in per_event.items()}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
