"""Python bytecodes executed per round of a game, by function: a deterministic measure of the
interpreter's work, unlike time on a shared, noisy machine (the benches' ratios stay the goal).

    python bench/opcount.py GAME PLAYERS GAMES [--top N] [--log]

Plays seed 0 first (the program and its blocks built), then seeds 1..GAMES with the log off
(`--log`: on) and the default random bots, counting every opcode event (sys.settrace with f_trace_opcodes) by the
function it ran in. Prints opcodes per game and per round, then the top functions per round.
A game dealt random decks (`decks from` rules) builds its program per deal, so its count
includes that build. Tracing makes the games ~50x slower: use a few games.
"""
from __future__ import annotations

import argparse
import collections
import sys

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.play import run_game


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("players", type=int)
    ap.add_argument("games", type=int)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--log", action="store_true", help="play with the log on (what the log costs)")
    args = ap.parse_args()
    game = load_game(args.game)
    run_game(game, args.players, 0, log=args.log)
    counts: collections.Counter = collections.Counter()

    def trace(frame, event, arg):
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        key = (frame.f_code.co_filename.rsplit("/", 1)[-1], frame.f_code.co_name)

        def local(frame, event, arg):
            if event == "opcode":
                counts[key] += 1
            return local
        return local

    rounds = 0
    sys.settrace(trace)
    try:
        for seed in range(1, args.games + 1):
            rounds += run_game(game, args.players, seed, log=args.log).m.st.round
    finally:
        sys.settrace(None)
    total = sum(counts.values())
    print(f"{total / args.games:.0f} opcodes/game, {total / max(rounds, 1):.0f}/round, "
          f"rounds/game {rounds / args.games:.1f}")
    for (where, name), n in counts.most_common(args.top):
        print(f"{n / max(rounds, 1):10.1f}  {where}:{name}")


if __name__ == "__main__":
    main()
