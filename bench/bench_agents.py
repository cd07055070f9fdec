"""Benchmark: how often ISMCTS wins against random and against greedy (issue 17).

For each game and each pairing (ISMCTS vs random, ISMCTS vs greedy) it plays N games, ISMCTS
sitting in seat 1 for the even games and seat 2 for the odd ones (so a seat's edge cancels
out); game k is played with cardsmith seed `seed + k` and the agents of `agents.seat_agents`.
With ``--baseline`` it also plays random in ISMCTS's seat (same seats and seeds): the win
rate each ISMCTS row compares with, a seat's edge and the game's draws in it. It prints, per
pairing, ISMCTS's wins, draws and losses, its win rate with a 95% Wilson
interval, and the mean time of an ISMCTS decision (decisions with one option are made by
the engine, not the agent, and are not counted).

    python bench/bench_agents.py [--games 200] [--ismcts ismcts:8] [--jobs 2]
                                 [--only battlefield] [--records bench_agents.jsonl]
    python bench/bench_agents.py --costs [--only high_card_duel]

``--costs`` measures instead what a decision costs each agent: milliseconds per decision of
greedy, ISMCTS with 10 and with 100 iterations, over the same positions (decisions met in
seeded random games, 30 at most a game file; 100 iterations are skipped where 10 already
take over a second).

Every finished game is appended to the records file (JSON lines) as it ends, and games already
there are not played again: a run that is stopped goes on where it stopped. Not a test: the
numbers depend on the machine; docs/agents.md quotes a run.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# The bundled Battlefield: Space and the test games where both players make real decisions
# (a test game where one seat decides nothing, or one that never ends, measures nothing here).
GAMES = {
    "battlefield": ("Battlefield: Space", ROOT / "games" / "battlefield_space.cards"),
    "high_card_duel": ("High Card Duel", ROOT / "tests" / "games" / "high_card_duel.cards"),
    "signal_fires": ("Signal Fires", ROOT / "tests" / "games" / "signal_fires.cards"),
    "event_soup": ("Event Soup", ROOT / "tests" / "games" / "event_soup.cards"),
}
OPPONENTS = ("random", "greedy")


class _Timed:
    """Wraps a search agent: adds up the time of its decisions."""

    searches = True

    def __init__(self, agent):
        self.agent = agent
        self.seconds = 0.0
        self.decisions = 0

    def choose_in(self, eng):
        start = time.perf_counter()
        if getattr(self.agent, "searches", False):
            index = self.agent.choose_in(eng)
        else:                       # the baseline: a random agent in ISMCTS's seat
            index = self.agent.choose({}, eng.pending)
        self.seconds += time.perf_counter() - start
        self.decisions += 1
        return index


def play(job: tuple) -> dict:
    """One game: (key, path, ismcts spec, opponent, k, seed) → its record."""
    from cardsmith.dsl.loader import load_game
    from cardsmith.interpreter.agents import seat_agents
    from cardsmith.interpreter.errors import GameAborted
    from cardsmith.interpreter.play import run_game

    key, path, ismcts, opponent, k, seed = job       # ismcts: the agent in the measured seat
    game = _game(path)
    seat = k % 2                                    # ISMCTS's seat
    specs = [opponent, opponent]
    specs[seat] = ismcts
    agents = seat_agents(specs, seed)
    timed = agents[seat] = _Timed(agents[seat])
    started = time.perf_counter()
    try:
        eng = run_game(game, 2, seed, agents, log=False)
        winners = eng.result["winners"]
        outcome = "win" if winners == [seat] else "loss" if winners and seat not in winners else "draw"
    except GameAborted as err:
        outcome = "aborted"
        winners = [str(err).splitlines()[0]]
    return {"game": key, "ismcts": ismcts, "opponent": opponent, "k": k, "seed": seed, "seat": seat,
            "outcome": outcome, "winners": winners, "search_seconds": timed.seconds,
            "search_decisions": timed.decisions, "seconds": time.perf_counter() - started}


_loaded: dict = {}


def _game(path: str):
    from cardsmith.dsl.loader import load_game
    if path not in _loaded:
        _loaded[path] = load_game(path)
    return _loaded[path]


def table(records: list[dict], games: list[str], ismcts: str) -> list[str]:
    from cardsmith.interpreter.stats import wilson_interval

    lines = [f"| game | pairing | games | ISMCTS wins | draws | losses | ISMCTS win rate (95% CI) | ms per ISMCTS decision |",
             "|---|---|---:|---:|---:|---:|---|---:|"]
    for key in games:
        for first, opponent in [("random", "random")] + [(ismcts, o) for o in OPPONENTS]:
            mine = [r for r in records if r["game"] == key and r["opponent"] == opponent and r["ismcts"] == first]
            if not mine:
                continue
            n = len(mine)
            wins = sum(r["outcome"] == "win" for r in mine)
            draws = sum(r["outcome"] == "draw" for r in mine)
            losses = sum(r["outcome"] == "loss" for r in mine)
            aborted = n - wins - draws - losses
            low, high = wilson_interval(wins, n)
            decisions = sum(r["search_decisions"] for r in mine)
            ms = 1000 * sum(r["search_seconds"] for r in mine) / decisions if decisions else 0.0
            extra = f" ({aborted} aborted)" if aborted else ""
            pairing = "random vs random (baseline)" if first == "random" else f"{first} vs {opponent}"
            ms = "—" if first == "random" else f"{ms:.0f}"
            lines.append(f"| {GAMES[key][0]} | {pairing} | {n}{extra} | {wins} | {draws} | {losses} | "
                         f"{100 * wins / n:.1f}% ({100 * low:.1f}% to {100 * high:.1f}%) | {ms} |")
    return lines


def costs(keys: list[str]) -> list[str]:
    """Milliseconds per decision of each agent over positions from seeded random games."""
    import random as _random

    from cardsmith.interpreter.engine import Engine
    from cardsmith.interpreter.greedy import GreedyAgent
    from cardsmith.interpreter.ismcts import ISMCTSAgent

    agents = [("greedy", lambda: GreedyAgent(1)), ("ismcts:10", lambda: ISMCTSAgent(1, iterations=10)),
              ("ismcts:100", lambda: ISMCTSAgent(1, iterations=100))]
    lines = ["| game | positions | " + " | ".join(name for name, _ in agents) + " |",
             "|---|---:|" + "---:|" * len(agents)]
    for key in keys:
        game = _game(str(GAMES[key][1]))
        positions = []
        for seed in range(20):
            eng, rng = Engine(game, 2, seed, log=False), _random.Random(seed)
            while not eng.finished and len(positions) < 30:
                if rng.random() < 0.3:
                    positions.append(eng.clone())
                eng.decide(rng.randrange(len(eng.pending.options)))
        cells, last = [], 0.0
        for name, make in agents:
            if name == "ismcts:100" and last > 1000:      # about ten times as long: not worth the wait
                cells.append("— (10 × the column before)")
                continue
            agent, started = make(), time.perf_counter()
            for eng in positions:
                agent.choose_in(eng)
            last = 1000 * (time.perf_counter() - started) / len(positions)
            cells.append(f"{last:,.0f} ms")
        lines.append(f"| {GAMES[key][0]} | {len(positions)} | " + " | ".join(cells) + " |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per pairing (default 200)")
    parser.add_argument("--ismcts", default="ismcts:8", help="the ISMCTS agent and its budget (default ismcts:8)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game (default 1)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--only", action="append", choices=sorted(GAMES), help="only this game (repeatable)")
    parser.add_argument("--costs", action="store_true", help="measure milliseconds per decision instead")
    parser.add_argument("--baseline", action="store_true",
                        help="also play random in ISMCTS's seat against random: the win rate to compare with")
    parser.add_argument("--records", default=str(HERE / "bench_agents.jsonl"),
                        help="the JSON-lines file of finished games (read to resume, appended to)")
    args = parser.parse_args(argv)
    from cardsmith.interpreter.agents import parse_agent
    if parse_agent(args.ismcts)[0] != "ismcts":
        parser.error("--ismcts names an ISMCTS agent, e.g. ismcts:8 or ismcts:100ms")
    games = args.only or list(GAMES)
    if args.costs:
        print("\n".join(costs(games)))
        return 0
    path = Path(args.records)
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []
    done = {(r["game"], r["ismcts"], r["opponent"], r["seed"]) for r in records}
    pairings = ([("random", "random")] if args.baseline else []) + [(args.ismcts, o) for o in OPPONENTS]
    jobs = [(key, str(GAMES[key][1]), first, opponent, k, args.seed + k)
            for key in games for first, opponent in pairings for k in range(args.games)
            if (key, first, opponent, args.seed + k) not in done]
    print(f"cardsmith agents benchmark: {len(jobs)} games to play ({len(records)} already recorded), "
          f"{args.jobs} job(s), Python {platform.python_version()} on {platform.machine()}", file=sys.stderr)
    started = time.perf_counter()
    with path.open("a", encoding="utf-8") as out:
        if args.jobs > 1:
            with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
                for record in pool.imap_unordered(play, jobs):
                    _keep(record, records, out)
        else:
            for job in jobs:
                _keep(play(job), records, out)
    print(f"played {len(jobs)} games in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    print("\n".join(table(records, games, args.ismcts)))
    return 0


def _keep(record: dict, records: list, out) -> None:
    records.append(record)
    out.write(json.dumps(record, sort_keys=True) + "\n")
    out.flush()
    print(f"  {record['game']} {record['ismcts']} vs {record['opponent']} game {record['k']}: "
          f"{record['outcome']} ({record['seconds']:.1f} s)", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
