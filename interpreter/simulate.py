"""Many seeded games with random agents, on local cores, summarised for balance testing.

Game ``i`` is played with seed ``seed + i`` and the default random agents, so a game
found odd in a simulation replays with ``cardsmith play FILE --seed S``. Games are
handed to a process pool in chunks; each worker loads the game once (the pool's
initializer). Records come back per chunk and are put back in seed order before the
statistics are taken, so the summary is the same whatever ``jobs`` is; only the
timings (``elapsed_seconds``, ``games_per_second``) vary.
"""
from __future__ import annotations

import os
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed

from cardsmith.dsl.loader import load_game
from .engine import GameAborted
from .play import check_player_count, run_game
from .stats import summarize_games

_worker_game = None
"""The game a pool worker loaded in its initializer."""


def simulate(path: str, games: int, players: int, jobs: int, seed: int,
             progress: bool = True) -> dict:
    """Play ``games`` games of the file at ``path`` and return their statistics.

    ``jobs`` worker processes (``jobs <= 0``: one per core; ``jobs == 1``: in this
    process). The file is loaded here first, so a file with errors raises
    ``CardsmithError`` before any worker starts; a player count the game does not
    allow raises ``PlayerCountError``. Games that run past the engine's step bound
    count as ``aborted``; any other exception in a game counts as ``crashed`` (with
    its seed and traceback among the examples), so one bad game does not lose a run.
    ``progress`` shows a rich progress bar on stderr.
    """
    if games < 0:
        raise ValueError(f"the number of games cannot be negative, got {games}")
    game = load_game(path)
    check_player_count(game, players)
    jobs = resolve_jobs(jobs)
    seeds = list(range(seed, seed + games))
    started = time.perf_counter()
    if jobs == 1 or games <= 1:
        jobs = 1
        records = _run_here(game, players, seeds, progress, game.title)
    else:
        records = _run_pool(path, players, seeds, jobs, progress, game.title)
    elapsed = time.perf_counter() - started
    summary = summarize_games(records, players)
    summary.update({
        "file": path,
        "title": game.title,
        "seed": seed,
        "jobs": jobs,
        "elapsed_seconds": elapsed,
        "games_per_second": games / elapsed if elapsed > 0 else None,
    })
    return summary


def resolve_jobs(jobs: int | None) -> int:
    """``jobs`` itself, or the number of cores for ``None`` and ``jobs <= 0``."""
    if jobs is None or jobs <= 0:
        return os.cpu_count() or 1
    return jobs


def chunk_seeds(seeds: list[int], jobs: int) -> list[list[int]]:
    """Split ``seeds`` into consecutive chunks: about eight per worker, at most 50 games each."""
    size = max(1, min(50, len(seeds) // (jobs * 8)))
    return [seeds[i:i + size] for i in range(0, len(seeds), size)]


def play_one(game, players: int, seed: int) -> dict:
    """Play one game with the default random agents and return its record (see stats)."""
    try:
        eng = run_game(game, players, seed, log=False)
    except GameAborted as err:
        return {"seed": seed, "status": "aborted", "error": str(err)}
    except Exception as err:  # noqa: BLE001 - a crashed game is counted, not fatal
        return {"seed": seed, "status": "crashed", "error": f"{type(err).__name__}: {err}",
                "traceback": traceback.format_exc()}
    result = eng.result
    return {
        "seed": seed,
        "status": "finished",
        "winners": list(result["winners"]),
        "draw": bool(result["draw"]),
        "rounds": result["rounds"],
        "steps": result["steps"],
        "groupings": {int(seat): dict(values) for seat, values in eng.groupings().items()},
        "player_names": list(eng.player_names),
    }


# ---------------------------------------------------------------- running the games


def _run_here(game, players: int, seeds: list[int], progress: bool, title: str) -> list[dict]:
    records = []
    with _Progress(progress, len(seeds), title) as bar:
        for seed in seeds:
            records.append(play_one(game, players, seed))
            bar.advance(1)
    return records


def _run_pool(path: str, players: int, seeds: list[int], jobs: int, progress: bool,
              title: str) -> list[dict]:
    chunks = chunk_seeds(seeds, jobs)
    results: list[list[dict] | None] = [None] * len(chunks)
    workers = min(jobs, len(chunks))
    with ProcessPoolExecutor(max_workers=workers, initializer=_load_in_worker,
                             initargs=(path,)) as pool:
        # Every task is submitted (and, under fork, every worker started) before the
        # progress bar starts its refresh thread.
        futures = {pool.submit(_play_chunk, chunk, players): i for i, chunk in enumerate(chunks)}
        try:
            with _Progress(progress, len(seeds), title) as bar:
                for future in as_completed(futures):
                    index = futures[future]
                    results[index] = future.result()
                    bar.advance(len(chunks[index]))
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return [record for chunk in results for record in chunk or ()]


def _load_in_worker(path: str) -> None:
    global _worker_game
    _worker_game = load_game(path)


def _play_chunk(seeds: list[int], players: int) -> list[dict]:
    return [play_one(_worker_game, players, seed) for seed in seeds]


class _Progress:
    """A rich progress bar on stderr, or nothing when ``enabled`` is false."""

    def __init__(self, enabled: bool, total: int, title: str):
        self.enabled = enabled
        self.total = total
        self.title = title
        self._progress = None
        self._task = None
        self._started = 0.0
        self._done = 0

    def __enter__(self) -> "_Progress":
        if self.enabled:
            from rich.console import Console
            from rich.markup import escape
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                       TimeElapsedColumn, TimeRemainingColumn)

            self._progress = Progress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                console=Console(stderr=True))
            self._task = self._progress.add_task(
                f"simulating {escape(self.title)}", total=self.total, rate="")
            self._progress.start()
        self._started = time.perf_counter()
        return self

    def advance(self, games: int) -> None:
        self._done += games
        if self._progress is not None:
            elapsed = time.perf_counter() - self._started
            rate = f"{self._done / elapsed:,.0f} games/s" if elapsed > 0 else ""
            self._progress.update(self._task, advance=games, rate=rate)

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.stop()
