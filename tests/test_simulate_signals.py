"""`cardsmith simulate` survives what happens to it: ^C, a second ^C, SIGTERM, a killed worker,
a killed parent, a typo in --jobs, a game whose every play aborts (issue 8, part B).

The signal tests run the real command in a subprocess, with real worker processes and real
signals, each bounded in time. The games they play live in tests/simulate/: slow_count (every
game counts for about a second), sixes_are_slow (a six makes a game count for seconds, other
rolls end it at once), sometimes_aborts (a six divides by zero) and always_aborts.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cardsmith.dsl.bounds import MAX_JOBS_OVER_CORES
from cardsmith.interpreter.cli import main
from cardsmith.interpreter.simulate import SimulationInterrupted, plan_jobs, simulate, usable_cores

HERE = Path(__file__).resolve().parent / "simulate"
SLOW_COUNT = HERE / "slow_count.cards"
SIXES_ARE_SLOW = HERE / "sixes_are_slow.cards"
SOMETIMES_ABORTS = HERE / "sometimes_aborts.cards"
ALWAYS_ABORTS = HERE / "always_aborts.cards"

LINUX = sys.platform.startswith("linux")
needs_proc = pytest.mark.skipif(not LINUX, reason="finds the worker processes through /proc")
BOUND = 60          # no subprocess here may run longer than this, whatever goes wrong
PROMPT = 5.0        # seconds a stopped run may take to exit (it takes a fraction of one)


# ---------------------------------------------------------------- helpers


# A shell's background job (`pytest &` with no job control) starts with SIGINT ignored, and
# every child inherits that, so ^C would be ignored as it should be in a background job. The
# command here runs as in the foreground, where ^C reaches it: Python's own handler first.
_FOREGROUND = ("import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
               "runpy.run_module('cardsmith.interpreter.cli', run_name='__main__', alter_sys=True)")


def _start(*args: str) -> subprocess.Popen:
    """`cardsmith simulate ...` in its own session, so a signal to its group is like ^C at a terminal."""
    return subprocess.Popen([sys.executable, "-c", _FOREGROUND, "simulate", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def _children(pid: int) -> list[int]:
    """The live processes whose parent is ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()     # after "pid (comm) "
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting for whoever adopted it counts as dead)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def _until(predicate, timeout: float = 30.0, every: float = 0.02):
    """Poll ``predicate`` until it returns something true; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    pytest.fail(f"gave up after {timeout} s waiting for {predicate}")


def _workers(proc: subprocess.Popen, count: int) -> list[int]:
    """Wait until ``proc`` has ``count`` worker processes; their pids."""
    return _until(lambda: (lambda kids: kids if len(kids) >= count else None)(_children(proc.pid)))


def _finish(proc: subprocess.Popen, timeout: float = BOUND) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"the simulation did not exit within {timeout} s")
    return proc.returncode, out, err


def _none_alive(pids: list[int]) -> None:
    _until(lambda: not any(_alive(pid) for pid in pids), timeout=PROMPT)


# ---------------------------------------------------------------- ^C, a second ^C, SIGTERM, SIGKILL


@needs_proc
def test_ctrl_c_stops_the_workers_at_once_and_prints_what_was_played():
    proc = _start(str(SIXES_ARE_SLOW), "-n", "40", "--jobs", "2", "--json", "--no-progress")
    workers = _workers(proc, 2)
    time.sleep(1.0)                 # the quick games are over; the workers are counting on sixes
    os.killpg(proc.pid, signal.SIGINT)          # ^C at a terminal reaches the whole group
    stopped = time.monotonic()
    code, out, err = _finish(proc)
    assert time.monotonic() - stopped < PROMPT
    assert code == 130
    stats = json.loads(out)
    assert stats["interrupted"] is True and stats["stopped_by"] == "SIGINT"
    assert stats["games_requested"] == 40
    assert 1 <= stats["games"] < 40                 # the games finished before ^C, and only those
    assert stats["finished"] == stats["games"] and stats["crashed"] == 0
    assert "interrupted (SIGINT) after" in err and "Traceback" not in err
    _none_alive(workers)


@needs_proc
def test_the_text_summary_says_it_was_interrupted():
    proc = _start(str(SLOW_COUNT), "-n", "8", "--jobs", "2", "--no-progress")
    workers = _workers(proc, 2)
    os.killpg(proc.pid, signal.SIGINT)
    code, out, err = _finish(proc)
    assert code == 130
    assert "of 8 games (interrupted)" in out
    assert "Interrupted (SIGINT) after" in out
    assert "Traceback" not in err
    _none_alive(workers)


@needs_proc
def test_a_second_ctrl_c_exits_promptly():
    proc = _start(str(SLOW_COUNT), "-n", "20", "--jobs", "2", "--json", "--no-progress")
    workers = _workers(proc, 2)
    os.killpg(proc.pid, signal.SIGINT)
    time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGINT)
    stopped = time.monotonic()
    code, _, err = _finish(proc, timeout=20)
    assert time.monotonic() - stopped < PROMPT
    # 130 when both land before the run is stopped; killed by SIGINT (the shell shows 130 too)
    # when the second lands after it, while the summary is printed or Python shuts down
    assert code in (130, -signal.SIGINT)
    assert "Traceback" not in err
    _none_alive(workers)


@needs_proc
def test_sigterm_stops_the_run_and_leaves_no_process_behind():
    proc = _start(str(SLOW_COUNT), "-n", "20", "--jobs", "2", "--json", "--no-progress")
    workers = _workers(proc, 2)
    os.kill(proc.pid, signal.SIGTERM)           # to the parent alone, as `kill PID` does
    stopped = time.monotonic()
    code, out, err = _finish(proc)
    assert time.monotonic() - stopped < PROMPT
    assert code == 128 + signal.SIGTERM
    stats = json.loads(out)
    assert stats["interrupted"] is True and stats["stopped_by"] == "SIGTERM"
    assert stats["games"] < stats["games_requested"] == 20
    assert "Traceback" not in err
    _none_alive(workers)


@needs_proc
def test_workers_die_with_a_parent_killed_by_sigkill():
    proc = _start(str(SLOW_COUNT), "-n", "20", "--jobs", "2", "--json", "--no-progress")
    workers = _workers(proc, 2)
    os.kill(proc.pid, signal.SIGKILL)           # no handler runs: the workers must notice alone
    _finish(proc)
    _none_alive(workers)


# ---------------------------------------------------------------- a worker lost


@needs_proc
def test_a_killed_worker_costs_one_game_and_the_run_goes_on():
    proc = _start(str(SLOW_COUNT), "-n", "4", "--jobs", "2", "--json", "--no-progress")
    victim = _workers(proc, 2)[0]
    time.sleep(0.3)                 # well inside its first game (each takes about a second)
    os.kill(victim, signal.SIGKILL)
    code, out, err = _finish(proc)
    assert code == 3                # a crashed game, as before; but the run was not lost
    stats = json.loads(out)
    assert stats["games"] == 4 and stats["interrupted"] is False
    assert stats["crashed"] == 1 and stats["finished"] == 3
    assert stats["workers_lost"] == 1
    [seed] = stats["crashed_seeds"]
    assert stats["crash_examples"][0]["seed"] == seed
    assert "SIGKILL" in stats["crash_examples"][0]["error"]
    assert "Traceback" not in err
    _none_alive(_children(proc.pid) + [victim])


# ---------------------------------------------------------------- --jobs


def test_jobs_are_capped_at_the_cores_unless_forced():
    cores = usable_cores()
    limit = cores * MAX_JOBS_OVER_CORES
    assert plan_jobs(0) == (cores, None)
    assert plan_jobs(limit) == (limit, None)
    jobs, note = plan_jobs(300 + limit)
    assert jobs == limit
    assert f"--jobs {300 + limit}" in note and "--force-jobs" in note
    assert plan_jobs(300 + limit, force=True) == (300 + limit, None)


def test_simulate_caps_jobs_in_the_library_too():
    stats = simulate(str(ALWAYS_ABORTS), 2, 2, 300 + usable_cores(), 1, progress=False)
    assert stats["jobs"] == usable_cores() * MAX_JOBS_OVER_CORES


def test_the_command_says_on_stderr_when_it_caps_jobs(capsys):
    asked = usable_cores() * MAX_JOBS_OVER_CORES + 298
    assert main(["simulate", str(SOMETIMES_ABORTS), "-n", "3", "--jobs", str(asked), "--json",
                 "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert f"--jobs {asked} is more than" in captured.err
    assert json.loads(captured.out)["jobs"] == usable_cores() * MAX_JOBS_OVER_CORES


def test_force_jobs_starts_as_many_workers_as_asked(capsys):
    asked = usable_cores() * MAX_JOBS_OVER_CORES + 1
    assert main(["simulate", str(SOMETIMES_ABORTS), "-n", str(asked), "--jobs", str(asked),
                 "--force-jobs", "--json", "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "more than" not in captured.err
    assert json.loads(captured.out)["jobs"] == asked


# ---------------------------------------------------------------- aborted games


def test_a_run_where_every_game_aborted_fails(capsys):
    assert main(["simulate", str(ALWAYS_ABORTS), "-n", "4", "--jobs", "1", "--json", "--no-progress"]) == 1
    captured = capsys.readouterr()
    stats = json.loads(captured.out)
    assert stats["finished"] == 0 and stats["aborted"] == 4
    assert stats["aborted_seeds"] == [1, 2, 3, 4]
    assert "no game finished normally (4 aborted, 0 crashed)" in captured.err
    assert main(["simulate", str(ALWAYS_ABORTS), "-n", "3", "--jobs", "2", "--no-progress"]) == 1
    assert "No game finished normally: 3 aborted, 0 crashed" in capsys.readouterr().out


def _timeless(stats: dict) -> dict:
    return {k: v for k, v in stats.items() if k not in ("elapsed_seconds", "games_per_second", "jobs")}


def test_aborted_games_are_counted_with_seed_and_error_whatever_the_jobs():
    one = simulate(str(SOMETIMES_ABORTS), 24, 2, 1, 1, progress=False)
    two = simulate(str(SOMETIMES_ABORTS), 24, 2, 2, 1, progress=False)
    assert _timeless(one) == _timeless(two)
    assert 0 < one["aborted"] < 24 and one["finished"] == 24 - one["aborted"]
    assert len(one["aborted_seeds"]) == one["aborted"]
    first = one["aborted_examples"][0]
    assert first["seed"] == one["aborted_seeds"][0]
    assert first["error"].startswith("E0802 ")
    assert "sometimes_aborts.cards:" in first["error"] and "division by zero" in first["error"]
    assert "\n" not in first["error"]


def test_interrupting_the_library_raises_with_the_partial_summary(monkeypatch):
    """^C during an in-process run: SimulationInterrupted carries the games played before it."""
    from cardsmith.interpreter import simulate as module

    real = module.play_one
    played = []

    def play_then_interrupt(game, players, seed, max_steps=None):
        if len(played) == 3:
            raise KeyboardInterrupt
        played.append(seed)
        return real(game, players, seed, max_steps)

    monkeypatch.setattr(module, "play_one", play_then_interrupt)
    with pytest.raises(SimulationInterrupted) as stop:
        simulate(str(SOMETIMES_ABORTS), 10, 2, 1, 1, progress=False)
    summary = stop.value.summary
    assert stop.value.signum == signal.SIGINT
    assert summary["interrupted"] is True and summary["games_requested"] == 10
    assert summary["games"] == 3 and played == [1, 2, 3]
