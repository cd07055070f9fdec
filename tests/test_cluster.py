"""simulate on a Dask cluster (`--scheduler`): the same results as `--jobs` for the same seeds.

The clusters here are `distributed.LocalCluster`s started by the tests, sized for a 2-core CI:
threads in this process (processes=False) for most tests, and one worker process for the test
that the workers get the game's text, not this process's loaded game.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

from cardsmith.interpreter import cluster
from cardsmith.interpreter.cli import main
from cardsmith.interpreter.simulate import simulate

ROOT = Path(__file__).resolve().parent.parent
DUEL = ROOT / "tests" / "games" / "high_card_duel.cards"
SPACE_WAR = ROOT / "games" / "space_war_in_space.cards"
TIMINGS = {"elapsed_seconds", "games_per_second", "jobs"}


def _results(summary: dict) -> dict:
    """The summary less what may differ between two runs of the same seeds (timings, workers)."""
    return {k: v for k, v in summary.items() if k not in TIMINGS}


@pytest.fixture(scope="module")
def threads_cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0", worker_dashboard_address=":0") as local:
        yield local.scheduler_address


def test_the_same_results_as_local_workers(threads_cluster):
    """Seeds 5..64 on the cluster and on two local worker processes: the same summary."""
    there = simulate(str(DUEL), 60, 2, 2, 5, progress=False, scheduler=threads_cluster)
    here = simulate(str(DUEL), 60, 2, 2, 5, progress=False)
    assert here["jobs"] == 2 and there["jobs"] == 2       # the cluster's two worker threads
    assert there["games"] == 60 and there["finished"] == 60
    assert _results(there) == _results(here)


def test_a_game_with_groupings_and_several_seats(threads_cluster):
    there = simulate(str(SPACE_WAR), 6, 3, 1, 11, progress=False, scheduler=threads_cluster)
    here = simulate(str(SPACE_WAR), 6, 3, 1, 11, progress=False)
    assert there["groupings"] and _results(there) == _results(here)


def test_named_agents_travel_with_the_task(threads_cluster):
    there = simulate(str(DUEL), 8, 2, 1, 3, progress=False, agents=["greedy", "random"],
                     scheduler=threads_cluster)
    here = simulate(str(DUEL), 8, 2, 1, 3, progress=False, agents=["greedy", "random"])
    assert there["agents"] == ["greedy", "random"]
    assert _results(there) == _results(here)


def test_aborted_games_name_the_callers_file(threads_cluster):
    """Every game stops at a tiny step bound: the error names the file as the caller gave it,
    not the worker's temporary folder, exactly as local workers say it."""
    there = simulate(str(DUEL), 4, 2, 1, 1, progress=False, max_steps=30, scheduler=threads_cluster)
    here = simulate(str(DUEL), 4, 2, 1, 1, progress=False, max_steps=30)
    assert there["aborted"] == 4
    assert str(DUEL) in there["aborted_examples"][0]["error"]
    assert "cardsmith-cluster-" not in json.dumps(there)
    assert _results(there) == _results(here)


def test_a_game_in_several_files_is_sent_whole(tmp_path, threads_cluster):
    """A variant that extends a base game in a subfolder: both files go to the worker, with
    their layout, so the extends resolves there."""
    (tmp_path / "base").mkdir()
    shutil.copy(DUEL, tmp_path / "base" / "duel.cards")
    variant = tmp_path / "variant.cards"
    variant.write_text('extends "base/duel.cards"\n\ngame "Duel Variant":\n    players: 2 to 2\n',
                       encoding="utf-8")
    from cardsmith.dsl.loader import load_game

    bundle = cluster.game_bundle(load_game(str(variant)))
    assert bundle["root"] == "variant.cards"
    assert sorted(bundle["files"]) == ["base/duel.cards", "variant.cards"]
    there = simulate(str(variant), 10, 2, 1, 20, progress=False, scheduler=threads_cluster)
    here = simulate(str(variant), 10, 2, 1, 20, progress=False)
    assert there["title"] == "Duel Variant" and there["finished"] == 10
    assert _results(there) == _results(here)


def test_a_worker_with_another_cardsmith_plays_nothing():
    """The bundle carries the caller's code digest: a worker whose own differs says so for each
    game of its chunk instead of playing games that may not be the caller's."""
    from cardsmith.dsl.loader import load_game

    bundle = cluster.game_bundle(load_game(str(DUEL)))
    assert bundle["code"] == cluster.code_fingerprint() and len(bundle["code"]) == 16
    records = cluster._play_chunk(dict(bundle, code="0123456789abcdef"), 2, [4, 5], None, None)
    assert [r["seed"] for r in records] == [4, 5]
    assert all(r["status"] == "crashed" and "runs another cardsmith" in r["error"] for r in records)
    assert [r["status"] for r in cluster._play_chunk(bundle, 2, [4, 5], None, None)] == ["finished"] * 2


def test_a_bundle_cannot_write_outside_its_folder():
    bundle = {"root": "../evil.cards", "files": {"../evil.cards": "game \"x\":\n"},
              "names": {"../evil.cards": "evil.cards"}, "digest": "outside"}
    game, error, _ = cluster._load_bundle(bundle)
    assert game is None and "outside the game's folder" in error


def test_a_bundle_that_does_not_load_names_the_callers_file():
    """A worker that cannot load the game (CardsmithError, the loader's only failure) reports its
    first diagnostic, with the caller's path in place of the worker's temporary folder."""
    bundle = {"root": "broken.cards", "files": {"broken.cards": "game \"x\":\n  players: two\n"},
              "names": {"broken.cards": "/home/me/broken.cards"}, "digest": "broken"}
    game, error, _ = cluster._load_bundle(bundle)
    assert game is None and error.startswith("the worker could not load the game: E")
    assert "/home/me/broken.cards" in error and "cardsmith-cluster-" not in error


def test_a_failed_chunk_counts_its_games_as_crashed(monkeypatch, threads_cluster):
    """A task that fails outside the games (here: the worker's task raises for seed 3's chunk)
    costs its chunk's games, each recorded as crashed with its seed; the others are played."""
    monkeypatch.setattr(cluster, "_play_chunk", _flaky_chunk)
    summary = simulate(str(DUEL), 12, 2, 1, 1, progress=False, scheduler=threads_cluster)
    assert summary["games"] == 12 and summary["crashed"] >= 1
    assert 3 in summary["crashed_seeds"]
    assert summary["workers_lost"] >= 1
    assert "worker lost its disk" in summary["crash_examples"][0]["error"]
    assert summary["finished"] == 12 - summary["crashed"]


_REAL_CHUNK = cluster._play_chunk


def _flaky_chunk(bundle, players, chunk, max_steps, agents):
    """A task (sent by reference, like the real one) that fails for the chunk holding seed 3."""
    if 3 in chunk:
        raise RuntimeError("worker lost its disk")
    return _REAL_CHUNK(bundle, players, chunk, max_steps, agents)


def test_worker_processes_load_the_game_from_its_text(tmp_path):
    """A worker in another process: it never saw this process's Game; the game file is moved
    away after loading here, so the worker can only have played the text it was sent."""
    game_file = tmp_path / "duel.cards"
    shutil.copy(DUEL, game_file)
    here = simulate(str(game_file), 12, 2, 1, 40, progress=False)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", worker_dashboard_address=":0") as local:
        from cardsmith.dsl.loader import load_game

        game = load_game(str(game_file))
        game_file.rename(tmp_path / "moved.cards")
        records: dict = {}
        failed, threads = cluster.run_on_cluster(local.scheduler_address, game, 2, list(range(40, 52)),
                                                 None, records, _NoBar())
    assert (failed, threads) == (0, 1)
    assert sorted(records) == list(range(40, 52))
    assert [records[s]["status"] for s in sorted(records)] == ["finished"] * 12
    assert [records[s]["winners"] for s in sorted(records)] == [
        r for r in _winners_by_seed(str(tmp_path / "moved.cards"), range(40, 52))]
    assert here["finished"] == 12


def _winners_by_seed(path: str, seeds) -> list:
    from cardsmith.dsl.loader import load_game
    from cardsmith.interpreter.simulate import play_one

    game = load_game(path)
    return [play_one(game, 2, seed)["winners"] for seed in seeds]


class _NoBar:
    def advance(self, games: int) -> None:
        pass

    def refresh(self) -> None:
        pass


def test_cli_scheduler_json(capsys, threads_cluster):
    code = main(["simulate", str(DUEL), "-n", "10", "--seed", "2", "--scheduler", threads_cluster,
                 "--json", "--no-progress"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["games"] == 10 and out["jobs"] == 2
    assert _results(out) == _results(simulate(str(DUEL), 10, 2, 1, 2, progress=False))


def test_cli_unreachable_scheduler_is_a_usage_error(monkeypatch, capsys):
    monkeypatch.setattr(cluster, "_CONNECT_SECONDS", 1)
    code = main(["simulate", str(DUEL), "-n", "3", "--scheduler", "tcp://127.0.0.1:9", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 1
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in err
    assert "Traceback" not in err


class _StopAfter(_NoBar):
    """A progress bar that is told of ^C after `games` games (as the terminal would raise it)."""

    def __init__(self, games: int):
        self.left = games

    def advance(self, games: int) -> None:
        self.left -= games
        if self.left <= 0:
            raise KeyboardInterrupt


def test_interrupting_a_cluster_run_keeps_what_was_played(threads_cluster):
    """^C while chunks are still queued: run_on_cluster lets the KeyboardInterrupt through (the
    summary is simulate's), cancels what is queued, and the records hold whole finished games."""
    from cardsmith.dsl.loader import load_game

    records: dict = {}
    with pytest.raises(KeyboardInterrupt):
        cluster.run_on_cluster(threads_cluster, load_game(str(DUEL)), 2, list(range(1, 201)), None,
                               records, _StopAfter(5))
    assert 5 <= len(records) < 200
    assert all(records[s]["status"] == "finished" for s in records)
    # the cluster is free again: a new run plays every seed
    again = simulate(str(DUEL), 10, 2, 1, 1, progress=False, scheduler=threads_cluster)
    assert again["games"] == 10 and again["finished"] == 10


def test_compare_on_the_cluster_is_the_same_as_on_local_workers(threads_cluster):
    from cardsmith.interpreter.report import compare

    base = ROOT / "tests" / "games" / "designer_report.cards"
    variant = ROOT / "tests" / "games" / "designer_report_variant.cards"
    there = compare(str(base), str(variant), 16, 2, 1, 4, scheduler=threads_cluster)
    here = compare(str(base), str(variant), 16, 2, 2, 4)
    for run in ("base", "variant"):
        assert there[run]["jobs"] == 2 and there[run]["finished"] == 16
        assert _results(there[run]) == _results(here[run])
    assert there["rows"] == here["rows"] and there["changes"] == here["changes"]


def test_cli_compare_scheduler(capsys, threads_cluster):
    base = ROOT / "tests" / "games" / "designer_report.cards"
    variant = ROOT / "tests" / "games" / "designer_report_variant.cards"
    code = main(["compare", str(base), str(variant), "-n", "8", "--scheduler", threads_cluster, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["base"]["games"] == 8 and out["variant"]["jobs"] == 2
