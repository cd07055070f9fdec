"""Simulations on a Dask cluster: ``cardsmith simulate FILE --scheduler tcp://host:8786``.

The narrow interface to ``simulate.py`` is one function, ``run_on_cluster``: it plays the
same seeds as ``--jobs`` would, with the same function (``simulate._play_one``) and the same
arguments, and fills the same ``records`` dict (seed → record), so the summary, taken in seed
order, is the same as a run on local cores; only the timings and ``jobs`` differ.

What travels to the workers is data, never a pickled closure or a loaded ``Game``:

* the game's text: every file it reads (the file itself and what it ``extends`` or
  ``import``s), as ``{relative path: text}`` (``game_bundle``), scattered once to every
  worker. A worker writes the files into a private temporary folder, with the same layout,
  loads and checks them there (once per worker process and bundle: ``_WORKER_GAMES``), and
  plays;
* per task, a chunk of seeds, the player count, the step bound and the agents' names.

The task itself is named by reference (``cardsmith.interpreter.cluster._play_chunk``), so the
workers need the same cardsmith installed (docs/simulate.md, "Running on a cluster"); the bundle
carries a digest of the caller's source files (``code_fingerprint``), and a worker whose own
differs plays nothing: its chunks' games count as crashed, saying so. A
worker's records name the files as the caller's machine does: the temporary folder in an error
message is put back as the path the caller gave.

Games on one worker process are played one at a time (``_PLAYING``): the memory bound of a game
(``memory.memory_bound``) is a limit of the whole process, which two threads cannot share; start
workers with ``--nthreads 1`` and as many processes as cores (``--nworkers``).

A chunk whose task fails (an exception outside the games, which ``play_one`` catches, or a
worker lost more often than the scheduler's ``allowed-failures``) counts every game of it as
crashed, with its seed, as a lost local worker does.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path

_CONNECT_SECONDS = 30            # how long to wait for the scheduler to answer
_GAMES_KEPT = 4                  # bundles a worker keeps loaded (a few simulations in a row)

_WORKER_GAMES: "OrderedDict[str, tuple]" = OrderedDict()
"""In a worker process: bundle digest → (Game or None, error, {worker path: caller's path})."""
_LOADING = threading.Lock()
_PLAYING = threading.Lock()


class ClusterUnreachable(ConnectionError):
    """The scheduler named by ``--scheduler`` could not be reached (or dask is not installed)."""


def game_bundle(game) -> dict:
    """What a worker needs to load ``game``: ``root`` (the game file, relative) and ``files``
    (every source file's text by its path relative to the folder that holds them all), and
    ``names`` (relative path → the path the caller's spans use), ``digest`` (of the texts)."""
    resolved = {key: Path(key).resolve() for key in game.sources}
    base = Path(os.path.commonpath([str(p.parent) for p in resolved.values()]))
    files, names = {}, {}
    for key, source in game.sources.items():
        relative = resolved[key].relative_to(base).as_posix()
        files[relative] = source.text
        names[relative] = key
    root = resolved[game.path].relative_to(base).as_posix()
    digest = hashlib.sha256(repr((root, sorted(files.items()))).encode("utf-8", "surrogatepass")).hexdigest()
    return {"root": root, "files": files, "names": names, "digest": digest, "code": code_fingerprint()}


_FINGERPRINT: list[str] = []


def code_fingerprint() -> str:
    """A digest of the cardsmith that runs here: every source file of its grammar, front end and
    interpreter (path and bytes). A worker whose own differs would not play the same games."""
    if not _FINGERPRINT:
        import cardsmith.dsl
        import cardsmith.grammar
        import cardsmith.interpreter

        digest = hashlib.sha256()
        for package in (cardsmith.grammar, cardsmith.dsl, cardsmith.interpreter):
            folder = Path(next(iter(package.__path__))).resolve()
            for path in sorted(folder.rglob("*")):
                if path.suffix in (".py", ".lark") and "__pycache__" not in path.parts:
                    digest.update(f"{package.__name__}/{path.relative_to(folder).as_posix()}\0".encode())
                    digest.update(path.read_bytes())
        _FINGERPRINT.append(digest.hexdigest()[:16])
    return _FINGERPRINT[0]


def run_on_cluster(address: str, game, players: int, seeds: list[int], max_steps: int | None,
                   records: dict[int, dict], bar, agents: list[str] | None = None) -> tuple[int, int]:
    """Play ``seeds`` on the Dask cluster whose scheduler is at ``address``; fill ``records``
    (seed → record) as chunks end, advancing ``bar`` (simulate's progress bar). Returns how many
    chunks failed as a whole (their games count as crashed) and how many worker threads the
    cluster had (the run's ``jobs``). ^C cancels what is still queued and
    leaves ``records`` holding every chunk finished so far."""
    from .simulate import chunk_seeds

    try:
        from distributed import Client, as_completed
    except ImportError as err:      # pragma: no cover - dask is a dependency; a broken install
        raise ClusterUnreachable(f"--scheduler needs Dask: pip install 'cardsmith[cluster]' ({err})") from None
    try:
        client = Client(address, timeout=_CONNECT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as err:
        raise ClusterUnreachable(f"cannot reach the Dask scheduler at {address}: {err}") from None
    futures = []
    try:
        threads = sum(client.nthreads().values()) or 1
        bundle = client.scatter(game_bundle(game), broadcast=True, hash=False)
        chunks = {}
        for chunk in chunk_seeds(seeds, threads):
            future = client.submit(_play_chunk, bundle, players, chunk, max_steps, agents, pure=False)
            chunks[future] = chunk
            futures.append(future)
        failed = 0
        for future in as_completed(futures, loop=client.loop):
            try:
                for record in future.result():
                    records[record["seed"]] = record
                    bar.advance(1)
            # Dask re-raises the task's own exception, whatever its type: the chunk's games are crashed
            except Exception as err:  # noqa: BLE001 - the run goes on
                failed += 1
                for seed in chunks[future]:
                    records[seed] = {"seed": seed, "status": "crashed", "error": _chunk_failed(err)}
                    bar.advance(1)
            bar.refresh()
        return failed, threads
    finally:
        if futures:
            client.cancel(futures)
        client.close()


def _chunk_failed(err: BaseException) -> str:
    first = (str(err).strip().splitlines() or [""])[0]
    return (f"the cluster could not play this chunk of games ({type(err).__name__}: {first}); "
            "replay the seed with `cardsmith play` to see whether the game itself is the cause")


# ---------------------------------------------------------------- on a worker


def _play_chunk(bundle: dict, players: int, chunk: list[int], max_steps: int | None,
                agents: list[str] | None) -> list[dict]:
    """A task: the records of the games ``chunk`` names, in its order (runs on a worker)."""
    from .simulate import _play_one

    if bundle.get("code") != code_fingerprint():
        failure = (f"this worker runs another cardsmith (its code {code_fingerprint()}, the caller's "
                   f"{bundle.get('code')}): install the same version on every worker")
        return [{"seed": seed, "status": "crashed", "error": failure} for seed in chunk]
    game, failure, names = _worker_game(bundle)
    out = []
    with _PLAYING:
        for seed in chunk:
            if game is None:
                out.append({"seed": seed, "status": "crashed", "error": failure})
            else:
                out.append(_named_back(_play_one(game, players, seed, max_steps, agents), names))
    return out


def _worker_game(bundle: dict) -> tuple:
    """The bundle's game, loaded once per worker process (a few bundles kept)."""
    with _LOADING:
        kept = _WORKER_GAMES.get(bundle["digest"])
        if kept is not None:
            _WORKER_GAMES.move_to_end(bundle["digest"])
            return kept
        kept = _load_bundle(bundle)
        _WORKER_GAMES[bundle["digest"]] = kept
        while len(_WORKER_GAMES) > _GAMES_KEPT:
            _WORKER_GAMES.popitem(last=False)
        return kept


def _load_bundle(bundle: dict) -> tuple:
    """Write the bundle's files into a fresh folder, load the game, remove the folder (the Game
    keeps its sources' text). (game, None, names) or (None, error, names)."""
    from cardsmith.dsl.diagnostics import CardsmithError
    from cardsmith.dsl.loader import load_game

    from .simulate import _first_line

    folder = Path(tempfile.mkdtemp(prefix="cardsmith-cluster-")).resolve()
    names = {}
    try:
        for relative, text in bundle["files"].items():
            target = (folder / relative).resolve()
            if folder not in target.parents:        # a bundle names only files below its folder
                return None, f"the cluster was sent a file outside the game's folder: {relative!r}", names
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8", newline="\n")
            names[str(target)] = bundle["names"][relative]
        root = folder / bundle["root"]
        names[str(root)] = bundle["names"][bundle["root"]]
        try:
            # the bundle's folder holds every file the game reads, and nothing else: the game
            # may include from all of it, as it did from the folder the caller named (`--root`)
            return load_game(str(root), root=str(folder)), None, names
        except CardsmithError as err:   # load_game's only failure: a bug in it is a located error too
            return None, _named_back(f"the worker could not load the game: {_first_line(err)}", names), names
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _named_back(value, names: dict):
    """``value`` with the worker's file paths put back as the caller's (in every text in it)."""
    if isinstance(value, str):
        for worker_path, caller_path in sorted(names.items(), key=lambda kv: -len(kv[0])):
            if worker_path in value:
                value = value.replace(worker_path, caller_path)
        return value
    if isinstance(value, dict):
        return {k: _named_back(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_named_back(v, names) for v in value]
    return value
