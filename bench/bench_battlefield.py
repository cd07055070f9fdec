"""Battlefield: Space with random bots: games per second of the interpreter (median of repeats).

    python bench/bench_battlefield.py [--games N] [--repeats R] [--log]

There is no hand-written reference for this game (the issue asks for its speed only); the
figure to compare is Space War's in bench_space_war.py, measured the same way.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--log", action="store_true", help="keep the explained log (slower)")
    args = ap.parse_args(argv)
    from cardsmith.dsl.loader import load_game
    from cardsmith.interpreter.play import run_game
    game = load_game(str(ROOT / "games" / "battlefield_space.cards"))
    run_game(game, 2, 0, log=args.log)                       # compile once, outside the timing
    rates, battles = [], []
    seed = 1
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        for _ in range(args.games):
            eng = run_game(game, 2, seed, log=args.log)
            battles.append(eng.result["rounds"])
            seed += 1
        rates.append(args.games / (time.perf_counter() - t0))
    median = statistics.median(rates)
    print(f"Battlefield: Space, 2 players, random bots, log {'on' if args.log else 'off'}: "
          f"{median:.1f} games/s (median of {args.repeats} x {args.games} games), "
          f"{statistics.mean(battles):.1f} battles per game, Python {sys.version.split()[0]}")
    print(json.dumps({"benchmark": "battlefield_space", "games_per_s_median": round(median, 2),
                      "games": args.games, "repeats": args.repeats, "log": args.log,
                      "battles_per_game_mean": round(statistics.mean(battles), 2)}, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
