"""The byte-identical log proof: record what a runtime writes for every game, check another against it.

    python bench/log_equality.py --record FILE.json [--seeds N] [--games GLOB] [--jobs J]
    python bench/log_equality.py --check FILE.json  [--seeds N] [--games GLOB] [--jobs J]

For every game file in games/ and tests/games/ (not the *.scenarios.cards files), for each
player count (the game's least and most, and 3 when the game allows it) and for seeds
0..N-1, the game is played to the end with the default random bots
(`run_game(game, players, seed, log=True)`) and three things are hashed (sha256):

* ``log``: the event log exactly as ``cardsmith play --log FILE.jsonl`` writes it — the CLI's
  own writer (`cli._EventPrinter`) observes the game, as in the CLI, into a string;
* ``result``: the engine's result (winners, draw, rounds, steps, ...), kept as written, not
  hashed, so that a mismatch can say which field moved;
* ``seen``: each player's own log (`Engine.log_seen_by(p)`), as JSON lines, one hash a seat.

A game that aborts (`GameAborted`) records the error's code and message in place of the
result, and the log the CLI writes up to the abort. Every scenario of every game file (the
*.scenarios.cards files and the scenarios written inside test games) is also run the way
`cardsmith test` runs it (`run_scenarios(game, seed=0)`): its pass/fail, failures and log.

``--record`` writes the hashes as JSON; ``--check`` replays every entry of the record (those
matching ``--games`` and below ``--seeds``, when given) on the runtime imported here and prints
every mismatch (game, players, seed, which part differs); exit status 1 on any mismatch.

Which runtime runs is whichever ``cardsmith`` the Python running this script imports; the game
files are always this repository's. Record the baseline with the frozen runtime's venv:

    /tmp/basevenv/bin/python bench/log_equality.py --record bench/log_hashes_3480bad.json
"""
from __future__ import annotations

import argparse
import fnmatch
import hashlib
import io
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GAME_DIRS = ("games", "tests/games")
FORMAT = 1

# Test games that never end on their own: they were written for their scenarios. Played
# as the CLI would play them, each runs until the log bound stops it (E0809, ~300,000 events,
# 1-2 s a game), so only the first UNENDING_SEEDS seeds of them are played; what is
# recorded is the abort and the log up to it.
UNENDING = {
    "tests/games/turn_order.cards": "no end condition: rounds repeat until the log bound (E0809) stops the game; "
                                    "written for its scenarios",
    "tests/games/counterspell_duel.cards": "ends only when a life reaches 0, and random bots pass forever: rounds "
                                           "repeat until the log bound (E0809) stops the game; written for its scenarios",
}
UNENDING_SEEDS = 3


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _jsonl(events) -> str:
    """JSON lines as `cardsmith play --log` writes them (used for the seen logs and scenario
    logs, which the CLI writes nowhere; the full log goes through the CLI's own writer)."""
    return "".join(json.dumps(e, sort_keys=True, ensure_ascii=False) + "\n" for e in events)


def game_files(pattern: str | None = None, root: Path = ROOT) -> list[str]:
    """Every game file under `root`, as a path relative to it (sorted, so records are stable)."""
    out = []
    for folder in GAME_DIRS:
        for path in sorted((root / folder).glob("*.cards")):
            rel = path.relative_to(root).as_posix()
            if pattern is None or fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(path.name, pattern):
                out.append(rel)
    return out


def player_counts(game) -> list[int]:
    counts = {game.min_players, game.max_players}
    if game.min_players <= 3 <= game.max_players:
        counts.add(3)
    return sorted(counts)


def sources_hash(game) -> str:
    """One hash over the text of every file the game was loaded from (a changed file explains a mismatch)."""
    h = hashlib.sha256()
    for path in sorted(game.sources, key=lambda p: Path(p).name):
        src = game.sources[path]
        text = src.text if hasattr(src, "text") else str(src)
        h.update(Path(path).name.encode() + b"\0" + text.encode("utf-8") + b"\0")
    return h.hexdigest()


def key_of(path: str, players: int, seed: int) -> str:
    return f"{path} {players}p seed {seed}"


def scenario_key(path: str, name: str) -> str:
    return f"{path} scenario {name}"


# ---------------------------------------------------------------- playing

_GAMES: dict = {}
_ROOT = [ROOT]      # where game files are read from (--root); set before any game is loaded


def set_root(root: Path) -> None:
    _ROOT[0] = Path(root).resolve()
    _GAMES.clear()


def _load(path: str):
    game = _GAMES.get(path)
    if game is None:
        from cardsmith.dsl.loader import load_game
        game = _GAMES[path] = load_game(str(_ROOT[0] / path))
    return game


def play_one(path: str, players: int, seed: int) -> dict:
    """One game, hashed: {"log", "result" or "aborted", "seen": [one hash a seat]}."""
    from cardsmith.interpreter.cli import _EventPrinter
    from cardsmith.interpreter.errors import GameAborted
    from cardsmith.interpreter.play import run_game

    game = _load(path)
    written = io.StringIO()
    printer = _EventPrinter(io.StringIO(), quiet=True, viewer=None, log_file=written)
    entry: dict = {}
    try:
        eng = run_game(game, players, seed, log=True, observe=printer)
        printer.flush()
        entry["result"] = dict(eng.result)
        event_log = eng.event_log
    except GameAborted as err:
        printer.flush(getattr(err, "event_log", None))
        d = err.diagnostics[0]
        entry["aborted"] = {"code": d.code, "message": d.message}
        event_log = getattr(err, "event_log", None)
    except Exception as err:        # a runtime's own failure: a difference to report, not a stop
        entry["crashed"] = _crash(err)
        event_log = printer.log
    entry["log"] = _sha(written.getvalue())
    entry["events"] = len(event_log.events) if event_log is not None else 0
    entry["seen"] = [_sha(_jsonl(event_log.seen_by(p))) if event_log is not None else None
                     for p in range(players)]
    return entry


def _crash(err: BaseException) -> str:
    """`Type: message (file:line)`: where in the runtime an unexpected exception was raised."""
    import traceback
    last = traceback.extract_tb(err.__traceback__)[-1:] if err.__traceback__ else []
    where = f" ({Path(last[0].filename).name}:{last[0].lineno})" if last else ""
    return f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}{where}"


def run_scenarios_of(path: str) -> dict[str, dict]:
    """Every scenario of one game file, as `cardsmith test` runs them (seed 0)."""
    from cardsmith.interpreter.scenario import run_scenarios

    game = _load(path)
    try:
        results = run_scenarios(game, seed=0)
    except Exception as err:        # a runtime's own failure: a difference to report, not a stop
        return {scenario_key(path, s.name): {"crashed": _crash(err)} for s in game.decls.scenarios}
    return {scenario_key(path, r.name): {"ok": r.ok, "failures": list(r.failures),
                                         "log": _sha(_jsonl(r.log)), "events": len(r.log)}
            for r in results}


@dataclass(frozen=True)
class Job:
    kind: str            # "play" or "scenarios"
    path: str
    players: int = 0
    seed: int = 0


def _run_job(job: Job) -> dict[str, dict]:
    if job.kind == "scenarios":
        return run_scenarios_of(job.path)
    return {key_of(job.path, job.players, job.seed): play_one(job.path, job.players, job.seed)}


def _map(jobs: list[Job], workers: int, progress: bool):
    """Run the jobs (in worker processes when workers > 1); yields each job's entries in job order."""
    if workers <= 1:
        for i, job in enumerate(jobs):
            if progress and i % 200 == 0:
                print(f"  {i}/{len(jobs)} ...", file=sys.stderr, flush=True)
            yield _run_job(job)
        return
    import multiprocessing
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        for i, out in enumerate(pool.imap(_run_job, jobs, chunksize=4)):
            if progress and i % 200 == 0:
                print(f"  {i}/{len(jobs)} ...", file=sys.stderr, flush=True)
            yield out


def plan(paths: list[str], seeds: int, unending_seeds: int = UNENDING_SEEDS, caps: dict[str, int] | None = None,
         per_file: dict[str, int] | None = None) -> tuple[list[Job], dict[str, dict]]:
    """The jobs for these game files, and what is known of each file (player counts, seeds, why
    capped). Seeds per file: `per_file[path]` when given (a check replays its record's), else
    `seeds`, at most `unending_seeds` for a game that never ends on its own, and at most N for
    a file matching a `caps` glob (GLOB -> N)."""
    jobs, files = [], {}
    for path in paths:
        game = _load(path)
        counts = player_counts(game) if not path.endswith(".scenarios.cards") else []
        info = {"source_sha256": sources_hash(game), "players": counts,
                "scenarios": len(game.decls.scenarios)}
        n = seeds
        if path in UNENDING:
            n = min(n, unending_seeds)
            info["not_playable_on_its_own"] = UNENDING[path]
        for pattern, cap in (caps or {}).items():
            if fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(Path(path).name, pattern):
                n = min(n, cap)
        if per_file is not None:
            n = per_file[path]
        info["seeds"] = n if counts else 0
        files[path] = info
        for players in counts:
            jobs.extend(Job("play", path, players, seed) for seed in range(n))
        if game.decls.scenarios:
            jobs.append(Job("scenarios", path))
    return jobs, files


def runtime_name() -> str:
    """Where the runtime under test lives. Importing it here, before any worker is forked, also
    makes every worker run the very code the parent imported, even if the tree changes meanwhile."""
    import cardsmith.interpreter.cli  # noqa: F401  (the writer of the log)
    import cardsmith.interpreter.engine as engine
    import cardsmith.interpreter.play  # noqa: F401
    import cardsmith.interpreter.scenario  # noqa: F401
    return str(Path(engine.__file__).resolve().parent)


def record(paths: list[str], seeds: int, workers: int = 1, progress: bool = False,
           unending_seeds: int = UNENDING_SEEDS, caps: dict[str, int] | None = None,
           per_file: dict[str, int] | None = None) -> dict:
    """Play and hash every job of `plan` (see there for the seeds of each file)."""
    runtime = runtime_name()
    jobs, files = plan(paths, seeds, unending_seeds, caps, per_file)
    entries: dict[str, dict] = {}
    for out in _map(jobs, workers, progress):
        entries.update(out)
    return {"format": FORMAT, "runtime": runtime, "games_root": str(_ROOT[0]), "seeds": seeds,
            "files": files, "entries": entries}


# ---------------------------------------------------------------- comparing


@dataclass(frozen=True)
class Mismatch:
    key: str        # "games/x.cards 2p seed 7" or "games/x.cards scenario NAME"
    part: str       # "log", "result", "aborted", "player 2's log", "scenario", "missing", ...
    detail: str

    def __str__(self) -> str:
        return f"{self.key}: {self.part} differs: {self.detail}"


def _describe(entry: dict) -> str:
    if "crashed" in entry:
        return f"crashed: {entry['crashed']}"
    if "aborted" in entry:
        return f"aborted {entry['aborted']['code']}: {entry['aborted']['message']}"
    if "result" in entry:
        return json.dumps(entry["result"], sort_keys=True)
    return json.dumps({k: entry[k] for k in ("ok", "failures") if k in entry}, sort_keys=True)


def compare_entry(key: str, want: dict, got: dict) -> list[Mismatch]:
    out = []
    if want.get("crashed") != got.get("crashed") or want.get("aborted") != got.get("aborted"):
        out.append(Mismatch(key, "outcome", f"recorded {_describe(want)}; now {_describe(got)}"))
    elif want.get("result") != got.get("result"):
        a, b = want["result"], got["result"]
        fields = sorted(f for f in set(a) | set(b) if a.get(f) != b.get(f))
        out.append(Mismatch(key, "result", ", ".join(f"{f} {a.get(f)!r} -> {b.get(f)!r}" for f in fields)))
    for field in ("ok", "failures"):
        if want.get(field) != got.get(field):
            out.append(Mismatch(key, f"scenario {field}", f"recorded {want.get(field)!r}; now {got.get(field)!r}"))
    if want.get("log") != got.get("log"):
        out.append(Mismatch(key, "log", f"sha256 {want.get('log', '')[:16]}... ({want.get('events')} events) -> "
                                        f"{got.get('log', '')[:16]}... ({got.get('events')} events)"))
    seen_a, seen_b = want.get("seen") or [], got.get("seen") or []
    for p in range(max(len(seen_a), len(seen_b))):
        a = seen_a[p] if p < len(seen_a) else None
        b = seen_b[p] if p < len(seen_b) else None
        if a != b:
            out.append(Mismatch(key, f"player {p + 1}'s log", f"sha256 {str(a)[:16]}... -> {str(b)[:16]}..."))
    return out


def compare(recorded: dict, current: dict) -> list[Mismatch]:
    """Every difference between two records' entries, over the entries of `recorded`."""
    out = []
    for key, want in recorded["entries"].items():
        got = current["entries"].get(key)
        if got is None:
            out.append(Mismatch(key, "entry", "recorded, but not played now"))
            continue
        out.extend(compare_entry(key, want, got))
    return out


def changed_files(recorded: dict, current: dict) -> list[str]:
    """Game files whose text differs from the record's: their logs name other lines, so differ."""
    return [path for path, info in recorded["files"].items()
            if path in current["files"] and current["files"][path]["source_sha256"] != info["source_sha256"]]


def check(recorded: dict, pattern: str | None = None, seeds: int | None = None, workers: int = 1,
          progress: bool = False) -> tuple[dict, list[Mismatch]]:
    """Replay the record's entries (those of files matching `pattern`, seeds below `seeds`) on
    the runtime imported here; returns (the current record, the mismatches)."""
    paths = [p for p in recorded["files"]
             if pattern is None or fnmatch.fnmatch(p, pattern) or fnmatch.fnmatch(Path(p).name, pattern)]
    missing = [p for p in paths if not (_ROOT[0] / p).is_file()]
    paths = [p for p in paths if p not in missing]
    n = recorded["seeds"] if seeds is None else min(seeds, recorded["seeds"])
    per_file = {p: min(n, recorded["files"][p]["seeds"]) for p in paths}
    current = record(paths, n, workers, progress, per_file=per_file)
    wanted = {"format": FORMAT, "seeds": n, "files": {p: recorded["files"][p] for p in paths},
              "entries": {k: v for k, v in recorded["entries"].items()
                          if k.split(" ", 1)[0] in per_file
                          and (" seed " not in k or int(k.rsplit(" ", 1)[1]) < per_file[k.split(" ", 1)[0]])}}
    mismatches = [Mismatch(p, "file", "in the record but not in the repository") for p in missing]
    mismatches += compare(wanted, current)
    return current, mismatches


def dump(data: dict) -> str:
    """The record as JSON, one entry a line (readable diffs, stable bytes)."""
    head = {k: v for k, v in data.items() if k != "entries"}
    lines = [json.dumps(head, sort_keys=True, ensure_ascii=False)[:-1] + ', "entries": {']
    items = sorted(data["entries"].items())
    for i, (key, entry) in enumerate(items):
        comma = "," if i + 1 < len(items) else ""
        lines.append(f"  {json.dumps(key, ensure_ascii=False)}: {json.dumps(entry, sort_keys=True, ensure_ascii=False)}{comma}")
    lines.append("}}")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--record", metavar="FILE", help="play every game and write the hashes as JSON")
    mode.add_argument("--check", metavar="FILE", help="replay a record and print every mismatch (exit 1 on any)")
    ap.add_argument("--seeds", type=int, default=None, help="seeds 0..N-1 per game and player count (default 200; "
                                                           "with --check, the record's)")
    ap.add_argument("--games", metavar="GLOB", default=None, help="only game files matching GLOB (path or name)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--unending-seeds", type=int, default=UNENDING_SEEDS,
                    help=f"with --record: seeds for the games that never end on their own (default {UNENDING_SEEDS})")
    ap.add_argument("--cap", metavar="GLOB=N", action="append", default=[],
                    help="with --record: at most N seeds for the game files matching GLOB (repeatable)")
    ap.add_argument("--root", metavar="DIR", default=str(ROOT),
                    help="read games/ and tests/games/ from DIR (default: this repository), e.g. the frozen "
                         "runtime's checkout when this repository's game files use words it cannot parse")
    args = ap.parse_args(argv)
    set_root(Path(args.root))
    if args.seeds is not None and args.seeds < 1:
        ap.error("--seeds must be at least 1")
    start = time.perf_counter()
    if args.record:
        seeds = 200 if args.seeds is None else args.seeds
        caps = {}
        for item in args.cap:
            pattern, _, n = item.rpartition("=")
            if not pattern or not n.isdigit():
                ap.error(f"--cap takes GLOB=N, not {item!r}")
            caps[pattern] = int(n)
        data = record(game_files(args.games, _ROOT[0]), seeds, args.jobs, progress=True,
                      unending_seeds=args.unending_seeds, caps=caps)
        Path(args.record).write_text(dump(data), encoding="utf-8")
        for path, info in data["files"].items():
            if "not_playable_on_its_own" in info:
                print(f"{path}: {info['seeds']} seeds only: {info['not_playable_on_its_own']}")
            elif info["players"] and info["seeds"] < seeds:
                print(f"{path}: {info['seeds']} seeds only (--cap)")
        print(f"recorded {len(data['entries'])} entries from {len(data['files'])} game files "
              f"({seeds} seeds) with the runtime in {data['runtime']} in {time.perf_counter() - start:.0f} s "
              f"-> {args.record}")
        return 0
    recorded = json.loads(Path(args.check).read_text(encoding="utf-8"))
    current, mismatches = check(recorded, args.games, args.seeds, args.jobs, progress=True)
    changed = changed_files(recorded, current)
    for m in mismatches:
        print(m)
    for path in changed:
        print(f"note: {path} is not the text that was recorded (edited since): if a rule moved, its log "
              f"names other lines and differs; then record again with the reference runtime")
    extra = [p for p in game_files(args.games, _ROOT[0]) if p not in recorded["files"]]
    for path in extra:
        print(f"note: {path} is not in the record (not checked)")
    if mismatches:
        first = next((m.key for m in mismatches if " seed " in m.key), None)
        if first:
            path, players, seed = first.split(" ")[0], first.split(" ")[1][:-1], first.rsplit(" ", 1)[1]
            print(f"to see the first difference: cardsmith play {path} --players {players} --seed {seed} --quiet "
                  f"--log new.jsonl, the same with the recording runtime's cardsmith and --log old.jsonl, "
                  f"then diff old.jsonl new.jsonl")
    print(f"{len(current['entries'])} entries checked with the runtime in {current['runtime']} against "
          f"{args.check} (recorded with {recorded.get('runtime')}): {len(mismatches)} mismatches "
          f"in {time.perf_counter() - start:.0f} s")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
