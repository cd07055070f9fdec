"""Machine instructions per game, the interpreter's beside the hand-written reference's: the
ratio of issue 9 counted instead of timed (valgrind's callgrind), so two trees or two runs on a
busy shared machine compare exactly.

    python bench/instructions.py GAME PLAYERS GAMES [--warm N] [--side both|interp|ref]

GAME is games/space_war_in_space.cards or games/battlefield_space.cards (the two with a
reference in bench/). Each side runs in its own process under callgrind with instrumentation
off: it plays seeds 0..N-1 (--warm, default 5: the program and the blocks a game reaches built,
as in a long simulation), then turns counting on (`callgrind_control -i on`) and plays seeds
N..N+GAMES-1, log off, default random bots; the reference plays its own rules and random policy
on the same seeds. It prints instructions per game for each side and their ratio. The two sides
do not replay identical games (different random streams): over enough games (40 or more) the work
is equal statistically, as in the timed benches. Needs valgrind (`apt-get install valgrind`);
PYTHONHASHSEED is fixed, so a tree's count repeats to within a fraction of a percent.

Instructions are not time: the timed benches' ratios (bench_space_war.py, bench_battlefield.py)
stay the goal, and cache misses and branch mispredictions make the interpreter's time ratio
higher than its instruction ratio. But unlike opcount.py's bytecodes, instructions see the cost
of C-level work (a `sorted`, a set built, a dict made), so a change that cuts bytecodes while
costing more in C shows here.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _child(kind: str, game_path: str, players: int, warm: int, games: int) -> None:
    """Run inside callgrind: warm up uncounted, then count `games` games."""
    sys.path.insert(0, str(HERE))
    if kind == "interp":
        from cardsmith.dsl.loader import load_game
        from cardsmith.interpreter.play import run_game
        game = load_game(game_path)

        def play(seed):
            run_game(game, players, seed, log=False)
    elif "space_war" in game_path:
        import reference_space_war

        def play(seed):
            reference_space_war.play_game(players, seed)
    else:
        import reference_battlefield

        def play(seed):
            reference_battlefield.play_game(seed)
    for seed in range(warm):
        play(seed)
    subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], capture_output=True, check=False)
    for seed in range(warm, warm + games):
        play(seed)


def count(kind: str, game_path: str, players: int, warm: int, games: int) -> int:
    """The instructions `games` games of one side took (callgrind's program total)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        env = dict(os.environ, PYTHONHASHSEED="0")
        subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
                        sys.executable, __file__, "--child", kind, game_path, str(players), str(games),
                        "--warm", str(warm)], env=env, capture_output=True, check=True)
        text = subprocess.run(["callgrind_annotate", out], capture_output=True, text=True, check=True).stdout
    found = re.search(r"([0-9,]+) \(100\.0%\)\s+PROGRAM TOTALS", text) or re.search(r"([0-9,]+)\s+PROGRAM TOTALS", text)
    if found is None:
        raise SystemExit("callgrind_annotate printed no program total")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("players", type=int)
    ap.add_argument("games", type=int)
    ap.add_argument("--warm", type=int, default=5)
    ap.add_argument("--side", choices=("both", "interp", "ref"), default="both")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(args.child, args.game, args.players, args.warm, args.games)
        return
    sides = ("interp", "ref") if args.side == "both" else (args.side,)
    per_game = {}
    for kind in sides:
        per_game[kind] = count(kind, args.game, args.players, args.warm, args.games) / args.games
        print(f"{kind:>6}: {per_game[kind] / 1e6:,.2f} M instructions a game "
              f"({args.games} games after {args.warm})")
    if len(per_game) == 2:
        print(f" ratio: {per_game['interp'] / per_game['ref']:.2f}x (interpreter / reference)")


if __name__ == "__main__":
    main()
