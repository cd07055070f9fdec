"""Many seeded games with random agents, on local cores, summarised for balance testing.

Game ``i`` is played with seed ``seed + i`` and the default random agents, so a game
found odd in a simulation replays with ``cardsmith play FILE --seed S``. Records are put
back in seed order before the statistics are taken, so the summary is the same whatever
``jobs`` is; only the timings (``elapsed_seconds``, ``games_per_second``) and ``jobs`` vary.

A run survives what happens to it (docs/security.md, "Simulations that survive interruption"):

* The workers are our own processes (not a ProcessPoolExecutor, whose manager thread keeps
  feeding work after ^C and hangs on a second one). Each gets a chunk of seeds down its own
  pipe and sends back one record per game as soon as the game ends, so at any moment the
  parent holds every game finished so far.
* SIGINT (^C) or SIGTERM in the parent kills the workers at once and raises
  ``SimulationInterrupted`` carrying the summary of the games finished so far. Workers ignore
  SIGINT (the terminal sends it to the whole process group: the parent decides) and die with
  the parent even when it is SIGKILLed (``prctl(PR_SET_PDEATHSIG)`` on Linux, a watchdog on
  the parent's pid elsewhere), so no run leaves processes behind.
* A worker that dies (killed, out of memory) costs one game: the game it was playing is
  recorded as crashed with its seed, the rest of its chunk goes back in the queue and a new
  worker takes the place of the lost one.
* ``--jobs`` is capped at the usable cores times ``MAX_JOBS_OVER_CORES`` unless forced.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import time
import traceback
from collections import deque
from contextlib import contextmanager
from multiprocessing.connection import wait

from cardsmith.dsl.bounds import MAX_JOBS_OVER_CORES
from cardsmith.dsl.loader import load_game
from .agents import parse_agents, seat_agents
from .engine import GameAborted
from .play import check_player_count, run_game
from .memory import memory_bound
from .report import Tally, build_report, counted_events, declared, end_of_game

_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}
_PR_SET_PDEATHSIG = 1               # from <linux/prctl.h>
_POLL_SECONDS = 0.1                 # how often the parent wakes to redraw the progress bar
_JOIN_SECONDS = 1.0                 # how long a finished worker may take to exit before it is killed

_inherited: tuple[str, object] | None = None
"""(path, Game) loaded by the parent; a forked worker uses it instead of loading the file again."""


class SimulationInterrupted(KeyboardInterrupt):
    """A simulation stopped by SIGINT or SIGTERM before its last game.

    ``summary`` is the summary of the games that ended before the signal (its
    ``interrupted`` is true, ``games_requested`` says how many were asked); ``signum`` is
    the signal. A subclass of KeyboardInterrupt, so code that knows nothing of simulations
    still treats it as the user's request to stop.
    """

    def __init__(self, summary: dict, signum: int):
        super().__init__(f"interrupted after {summary['games']} of {summary['games_requested']} games")
        self.summary = summary
        self.signum = signum


class _Stopped(KeyboardInterrupt):
    """Raised in the parent by the SIGTERM handler simulate() installs for the run."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def simulate(path: str, games: int, players: int, jobs: int, seed: int,
             progress: bool = True, *, max_steps: int | None = None,
             force_jobs: bool = False, agents: list[str] | None = None,
             scheduler: str | None = None, decks: dict | None = None, root: str | None = None) -> dict:
    """Play ``games`` games of the file at ``path`` and return their statistics.

    ``jobs`` worker processes (``jobs <= 0``: one per usable core; ``jobs == 1``: in this
    process), capped as ``plan_jobs`` says unless ``force_jobs``. The file is loaded here
    first, so a file with errors raises ``CardsmithError`` before any worker starts; a
    player count the game does not allow raises ``PlayerCountError``. Games that stop
    with a ``GameAborted`` count as ``aborted``; any other exception in a game, or the
    death of the worker playing it, counts as ``crashed`` (with its seed among the
    examples), so one bad game does not lose a run. ``max_steps`` is each game's step
    bound (default: the engine's). ``progress`` shows a rich progress bar on stderr.
    ``agents`` names one agent per seat (``agents.parse_agents``: ``["ismcts", "random"]``);
    default: random agents at every seat. ``scheduler``: the address of a Dask scheduler
    (``tcp://host:8786``) whose workers play the games instead (interpreter/cluster.py; the
    same records, ``jobs`` is then the cluster's worker threads). ``decks``: for a game with deck
    rules, card names by seat (from 0) that seat plays every game with; the other seats get a
    random legal deck per game (interpreter/decks.py). ``root``: a folder holding the game whose
    ``.cards`` files it may extend or import (dsl/loader.py, `cardsmith play --root`); the
    workers load it so too.

    SIGINT or SIGTERM during the run stop it at once: ``SimulationInterrupted`` is raised
    with the summary of the games finished so far.
    """
    if games < 0:
        raise ValueError(f"the number of games cannot be negative, got {games}")
    game = load_game(path, root=root)
    check_player_count(game, players)
    if agents is not None:
        agents = parse_agents(",".join(agents), players)
    jobs, _ = plan_jobs(jobs, force_jobs)
    seeds = list(range(seed, seed + games))
    if jobs == 1 or games <= 1:
        jobs = 1
    records: dict[int, dict] = {}       # seed -> record, filled as games end
    lost = 0
    stopped_by: int | None = None
    started = time.perf_counter()
    with _sigterm_stops_the_run():
        try:
            with _Progress(progress, len(seeds), game.title) as bar:
                if scheduler is not None:
                    from .cluster import run_on_cluster
                    lost, jobs = run_on_cluster(scheduler, game, players, seeds, max_steps, records, bar, agents)
                elif jobs == 1:
                    _run_here(game, players, seeds, max_steps, records, bar, agents, decks)
                else:
                    lost = _Workers(path, game, players, max_steps, jobs, records, bar, agents, decks,
                                    root).run(seeds)
        except KeyboardInterrupt as stop:     # ^C, or SIGTERM through _Stopped
            stopped_by = getattr(stop, "signum", signal.SIGINT)
    elapsed = time.perf_counter() - started
    summary = build_report([records[s] for s in sorted(records)], players, declared(game))
    summary.update({
        "file": path,
        "title": game.title,
        "seed": seed,
        "agents": list(agents) if agents is not None else ["random"] * players,
        "games_requested": games,
        "interrupted": stopped_by is not None,
        "stopped_by": signal.Signals(stopped_by).name if stopped_by is not None else None,
        "workers_lost": lost,
        "jobs": jobs,
        "elapsed_seconds": elapsed,
        "games_per_second": len(records) / elapsed if elapsed > 0 else None,
    })
    if stopped_by is not None:
        raise SimulationInterrupted(summary, stopped_by)
    return summary


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def plan_jobs(jobs: int | None, force: bool = False) -> tuple[int, str | None]:
    """The number of workers to start for ``--jobs jobs``, and a note when it was capped.

    ``None`` or ``jobs <= 0`` means one per usable core. More than the usable cores times
    ``MAX_JOBS_OVER_CORES`` is capped there unless ``force``: a typo like ``--jobs 300``
    must not start 300 processes.
    """
    cores = usable_cores()
    if jobs is None or jobs <= 0:
        return cores, None
    limit = max(1, cores * MAX_JOBS_OVER_CORES)
    if jobs > limit and not force:
        return limit, (f"--jobs {jobs} is more than this machine's {cores} core{'s' * (cores != 1)} "
                       f"allow: using {limit} worker process{'es' * (limit != 1)} "
                       f"(add --force-jobs to start {jobs})")
    return jobs, None


def resolve_jobs(jobs: int | None) -> int:
    """``jobs`` itself, or the number of usable cores for ``None`` and ``jobs <= 0`` (never capped)."""
    return plan_jobs(jobs, force=True)[0]


def chunk_seeds(seeds: list[int], jobs: int) -> list[list[int]]:
    """Split ``seeds`` into consecutive chunks: about eight per worker, at most 50 games each."""
    size = max(1, min(50, len(seeds) // (jobs * 8)))
    return [seeds[i:i + size] for i in range(0, len(seeds), size)]


def play_one(game, players: int, seed: int, max_steps: int | None = None,
             agents: list[str] | None = None, cards: bool = True, decks: dict | None = None) -> dict:
    """Play one game and return its record (see stats and report): the agents ``agents`` names,
    one per seat (``agents.seat_agents``), or the default random agents. The record carries the
    game's decisions, measures, groups, and (``cards``) who had, drew and played which card."""
    try:
        with memory_bound():
            seats = seat_agents(agents, seed) if agents is not None else None
            tally = Tally(counted_events(game), cards=cards)
            eng = run_game(game, players, seed, seats, log=False, max_steps=max_steps, tally=tally,
                           **({"decks": decks} if decks else {}))
            ends = end_of_game(eng, tally)
    except GameAborted as err:
        return {"seed": seed, "status": "aborted", "error": _first_line(err)}
    except Exception as err:  # noqa: BLE001 - a crashed game is counted, not fatal
        return {"seed": seed, "status": "crashed", "error": _first_line(f"{type(err).__name__}: {err}"),
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
        **ends,
    }


def _play_one(game, players: int, seed: int, max_steps: int | None, agents: list[str] | None,
              decks: dict | None = None) -> dict:
    """play_one, named agents (and given decks) passed only when there are any (a caller may stand
    in for play_one with the older four-argument form)."""
    if decks:
        return play_one(game, players, seed, max_steps, agents, decks=decks)
    if agents is None:
        return play_one(game, players, seed, max_steps)
    return play_one(game, players, seed, max_steps, agents)


def _first_line(err) -> str:
    """The first line of an error: the code, place and message of a GameAborted."""
    code = getattr(err, "diagnostics", None)
    text = str(err).strip()
    line = text.splitlines()[0] if text else type(err).__name__
    return f"{code[0].code} {line}" if code else line


# ---------------------------------------------------------------- in this process


def _run_here(game, players: int, seeds: list[int], max_steps: int | None,
              records: dict[int, dict], bar: "_Progress", agents: list[str] | None = None,
              decks: dict | None = None) -> None:
    for seed in seeds:
        records[seed] = _play_one(game, players, seed, max_steps, agents, decks)
        bar.advance(1)


# ---------------------------------------------------------------- in worker processes


class _Worker:
    """One worker process, our end of its pipe, and the seeds it still owes us."""

    __slots__ = ("process", "conn", "owed")

    def __init__(self, process, conn, owed: deque):
        self.process = process
        self.conn = conn
        self.owed = owed


class _Workers:
    """Worker processes that play chunks of seeds and stream one record per game back.

    ``run`` fills ``records`` as games end and returns how many workers were lost. Whatever
    way it leaves (done, ^C, SIGTERM, an error), every worker it started is dead or
    joined when it returns: its ``finally`` kills the ones still running.
    """

    def __init__(self, path: str, game, players: int, max_steps: int | None, jobs: int,
                 records: dict[int, dict], bar: "_Progress", agents: list[str] | None = None,
                 decks: dict | None = None, root: str | None = None):
        self.path = path
        self.root = root
        self.agents = agents
        self.decks = decks
        self.game = game
        self.players = players
        self.max_steps = max_steps
        self.jobs = jobs
        self.records = records
        self.bar = bar
        self.context = _context()
        self.queue: deque[list[int]] = deque()
        self.active: list[_Worker] = []
        self.started: list = []         # every process started, to be sure none outlives the run
        self.lost = 0

    def run(self, seeds: list[int]) -> int:
        global _inherited
        self.queue.extend(chunk_seeds(seeds, self.jobs))
        workers = min(self.jobs, len(self.queue))
        _inherited = (self.path, self.game)
        finished = False
        try:
            while self.queue and len(self.active) < workers:
                self._start(self.queue.popleft())
            while self.active:
                ready = set(wait([w.conn for w in self.active]
                                 + [w.process.sentinel for w in self.active], timeout=_POLL_SECONDS))
                for worker in list(self.active):
                    self._serve(worker, ready)
                # a lost worker's seeds went back in the queue: someone must play them
                while self.queue and len(self.active) < workers:
                    self._start(self.queue.popleft())
                self.bar.refresh()
            finished = True
        finally:
            _inherited = None
            # a second ^C must not cut this short and leave workers running: it waits until
            # they are dead (a fraction of a second), then stops what comes after
            with _stop_signals_blocked():
                self._end_all(gently=finished)
        return self.lost

    def _start(self, chunk: list[int]) -> None:
        ours, theirs = self.context.Pipe()
        process = self.context.Process(
            target=_worker_main, args=(theirs, self.path, self.players, self.max_steps, os.getpid(),
                                       self.agents, self.decks, self.root),
            name="cardsmith-simulate", daemon=True)
        # ^C must not reach the child before it ignores SIGINT, nor land in the parent between
        # the fork and the moment the process is on our list (then nothing would kill it).
        with _stop_signals_blocked():
            process.start()
            self.started.append(process)
            self.active.append(_Worker(process, ours, deque(chunk)))
        theirs.close()
        try:
            ours.send(chunk)
        except OSError:             # it died at once: its death is seen next round, the chunk blamed
            pass

    def _serve(self, worker: _Worker, ready: set) -> None:
        died = worker.process.sentinel in ready     # seen before draining: all it sent is in the pipe
        alive = self._drain(worker) if (died or worker.conn in ready) else True
        if died or not alive:
            self._lose(worker)
        elif not worker.owed:
            self._next_chunk(worker)

    def _drain(self, worker: _Worker) -> bool:
        """Take every record waiting in the worker's pipe; False once the pipe is closed."""
        try:
            while worker.conn.poll():
                seed, record = worker.conn.recv()
                if seed in worker.owed:
                    worker.owed.remove(seed)
                    self.records[seed] = record
                    self.bar.advance(1)
        except (EOFError, OSError):
            return False
        return True

    def _next_chunk(self, worker: _Worker) -> None:
        chunk = self.queue.popleft() if self.queue else None
        try:
            worker.conn.send(chunk)
        except OSError:             # it died after its last record: its death is seen next round
            if chunk is not None:
                self.queue.appendleft(chunk)
            return
        if chunk is None:           # no more work: it exits on its own, joined at the end
            self.active.remove(worker)
            worker.conn.close()
        else:
            worker.owed.extend(chunk)

    def _lose(self, worker: _Worker) -> None:
        """A worker died (or closed its pipe): the game it was playing crashed, the rest go back."""
        worker.process.kill()
        worker.process.join(_JOIN_SECONDS)
        worker.conn.close()
        self.active.remove(worker)
        self.lost += 1
        if not worker.owed:
            return
        seed = worker.owed.popleft()
        self.records[seed] = {"seed": seed, "status": "crashed",
                              "error": _death(worker.process.exitcode)}
        self.bar.advance(1)
        if worker.owed:
            self.queue.appendleft(list(worker.owed))

    def _end_all(self, gently: bool) -> None:
        """Finished: give the workers a moment to exit. Stopped or failing: kill them now."""
        for worker in self.active:
            worker.conn.close()
        for process in self.started:
            if gently:
                process.join(_JOIN_SECONDS)
            if process.exitcode is None:
                process.kill()
        for process in self.started:
            process.join(_JOIN_SECONDS)
        self.active.clear()


def _death(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            how = f"was killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            how = f"was killed by signal {-exitcode}"
    else:
        how = f"exited with status {exitcode}"
    return (f"the worker process playing this game {how}; "
            "replay the seed with `cardsmith play` to see whether the game itself is the cause")


def _context():
    """fork where it is safe (the parent has loaded the game already), spawn elsewhere."""
    import multiprocessing

    if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _worker_main(conn, path: str, players: int, max_steps: int | None, parent_pid: int,
                 agents: list[str] | None = None, decks: dict | None = None, root: str | None = None) -> None:
    """A worker: play each chunk of seeds it is sent, one record per game back; None ends it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # the parent stops us; ^C goes to the group
    signal.signal(signal.SIGTERM, signal.SIG_DFL)    # not the parent's handler, inherited by fork
    _die_with_parent(parent_pid)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    status = 0
    try:
        game, failure = _worker_game(path, root)
        while True:
            chunk = conn.recv()
            if chunk is None:
                break
            for seed in chunk:
                if game is None:
                    record = {"seed": seed, "status": "crashed", "error": failure}
                else:
                    record = _play_one(game, players, seed, max_steps, agents, decks)
                conn.send((seed, record))
    except (EOFError, BrokenPipeError):     # the parent closed its end: nothing left to do
        pass
    except BaseException:  # noqa: BLE001 - the parent records the death; no traceback on its terminal
        status = 1
    # os._exit: a forked worker must not run the parent's atexit handlers or flush its buffers
    os._exit(status)


def _worker_game(path: str, root: str | None = None):
    """The game to play: the parent's (fork), or loaded here (spawn), with the folder `root` its
    files may include from, as the parent loaded it; (None, error) if that fails."""
    if _inherited is not None and _inherited[0] == path:
        return _inherited[1], None
    try:
        return load_game(path, root=root), None
    except Exception as err:  # noqa: BLE001 - every game of this worker is reported as crashed
        return None, f"the worker could not load the game: {_first_line(err)}"


def _die_with_parent(parent_pid: int) -> None:
    """Make sure this worker does not outlive the parent, even one killed with SIGKILL."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0:
                if os.getppid() != parent_pid:     # it died before prctl took effect
                    os._exit(1)
                return
        except (OSError, AttributeError):
            pass
    threading.Thread(target=_watch_parent, args=(parent_pid,), name="parent-watchdog",
                     daemon=True).start()


def _watch_parent(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(0.5)
    os._exit(1)


# ---------------------------------------------------------------- signals in the parent


@contextmanager
def _sigterm_stops_the_run():
    """During the run, SIGTERM stops it like ^C (workers killed, summary kept); then as before."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) is signal.SIG_IGN):   # whoever ignores it means it
        yield
        return

    def stop(signum, frame):
        raise _Stopped(signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


@contextmanager
def _stop_signals_blocked():
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


# ---------------------------------------------------------------- progress


class _Progress:
    """A rich progress bar on stderr, or nothing when ``enabled`` is false.

    It refreshes only when told (``advance``, ``refresh``), never from a thread of its own:
    the parent forks workers during the run, and a fork while another thread holds a lock
    (the console's, stderr's) would leave that lock held forever in the child.
    """

    _EVERY = 0.1                    # seconds between two redraws

    def __init__(self, enabled: bool, total: int, title: str, console=None):
        self.enabled = enabled
        self.console = console          # where to draw (default: a rich Console on stderr)
        self.total = total
        self.title = title
        self._progress = None
        self._task = None
        self._started = 0.0
        self._drawn = 0.0
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
                console=self.console or Console(stderr=True), auto_refresh=False)
            self._task = self._progress.add_task(
                f"simulating {escape(self.title)}", total=self.total, rate="")
            self._progress.start()
        self._started = time.perf_counter()
        return self

    def advance(self, games: int) -> None:
        self._done += games
        if self._progress is not None:
            self._progress.update(self._task, advance=games)
            self.refresh()

    def refresh(self) -> None:
        now = time.perf_counter()
        if self._progress is not None and now - self._drawn >= self._EVERY:
            self._drawn = now
            elapsed = now - self._started
            rate = f"{self._done / elapsed:,.0f} games/s" if elapsed > 0 else ""
            self._progress.update(self._task, rate=rate)
            self._progress.refresh()

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.refresh()
            self._progress.stop()
