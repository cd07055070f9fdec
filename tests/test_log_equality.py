"""Same file, seed and choices give the same log, byte for byte, as the runtime of commit 3480bad.

Issue 9 replaces the interpreter's insides and must not change a single byte of any log. The
full proof (every game in games/ and tests/games/, 200 seeds per player count, every scenario)
is `bench/log_equality.py` against `bench/log_hashes_3480bad.json`; this test keeps it on a
smaller sample: `tests/golden/log_hashes.json`, recorded by the frozen 3480bad runtime with

    /tmp/basevenv/bin/python bench/log_equality.py --record tests/golden/log_hashes.json \\
        --seeds 6 --unending-seeds 1 --cap 'deep_stack*=1' --root /tmp/baseline

(6 seeds per game and player count, 1 for the stress game deep_stack and for the two test
games that only stop at the log bound, and every scenario), checked here against the runtime
under test. What is hashed: the event log as `cardsmith play --log` writes it, the result,
each player's own log, and each scenario's outcome and log.
"""
from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "log_hashes.json"


@pytest.fixture(scope="module")
def tool():
    """bench/log_equality.py, imported from its path (bench/ is not a package)."""
    spec = importlib.util.spec_from_file_location("log_equality", ROOT / "bench" / "log_equality.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("log_equality", module)     # its dataclasses look their module up
    spec.loader.exec_module(module)
    module.set_root(ROOT)
    return module


@pytest.fixture(scope="module")
def recorded() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def checked(tool, recorded):
    """(the record of the runtime under test, its mismatches against the golden)."""
    return tool.check(recorded)


def test_every_log_is_the_one_recorded(tool, recorded, checked):
    current, mismatches = checked
    changed = tool.changed_files(recorded, current)
    why = (f"\n(game files edited since the golden was recorded: {', '.join(changed)}; if a rule moved, "
           f"its log names other lines: record the golden again, see this module's docstring)" if changed else "")
    assert not mismatches, (f"{len(mismatches)} differences from the logs of the 3480bad runtime:\n"
                            + "\n".join(str(m) for m in mismatches[:30]) + why)


def test_the_golden_covers_every_recorded_game(tool, recorded, checked):
    """Every file of the golden is played at each of its player counts for its seeds, and each
    of its scenarios is run: a check that silently played less would prove nothing."""
    current, _ = checked
    assert {"games/battlefield_space.cards", "games/space_war_in_space.cards",
            "games/battlefield_space.scenarios.cards"} <= set(recorded["files"])
    for path, info in recorded["files"].items():
        plays = [k for k in recorded["entries"] if k.startswith(path + " ") and " seed " in k]
        scenarios = [k for k in recorded["entries"] if k.startswith(path + " scenario ")]
        assert len(plays) == len(info["players"]) * info["seeds"], path
        assert len(scenarios) == info["scenarios"], path
        assert info["seeds"] >= 1 or not info["players"], path
    assert set(recorded["entries"]) <= set(current["entries"])
    scenario_runs = [e for k, e in current["entries"].items() if " scenario " in k]
    assert len(scenario_runs) > 40 and all(e["ok"] for e in scenario_runs)


def _some_key(entries: dict, want) -> str:
    return next(k for k, e in sorted(entries.items()) if want(k, e))


def test_a_changed_log_is_reported(tool, checked):
    """The comparison can fail: one byte of one hash changed in a copy is reported, as that
    entry and that part only."""
    current, _ = checked
    base = {"entries": current["entries"]}

    def differences(change) -> list[tuple[str, str]]:
        altered = copy.deepcopy(base)
        key = change(altered["entries"])
        return key, [(m.key, m.part) for m in tool.compare(base, altered)]

    def flip(text: str) -> str:
        return ("0" if text[0] != "0" else "1") + text[1:]

    def log(entries):
        key = _some_key(entries, lambda k, e: " seed " in k and "result" in e)
        entries[key]["log"] = flip(entries[key]["log"])
        return key
    key, found = differences(log)
    assert found == [(key, "log")]

    def seen(entries):
        key = _some_key(entries, lambda k, e: " seed " in k and len(e.get("seen", [])) >= 2)
        entries[key]["seen"][1] = flip(entries[key]["seen"][1])
        return key
    key, found = differences(seen)
    assert found == [(key, "player 2's log")]

    def steps(entries):
        key = _some_key(entries, lambda k, e: "result" in e)
        entries[key]["result"]["steps"] += 1
        return key
    key, found = differences(steps)
    assert found == [(key, "result")]

    def abort(entries):
        key = _some_key(entries, lambda k, e: "aborted" in e)
        entries[key]["aborted"]["message"] += "!"
        return key
    key, found = differences(abort)
    assert found == [(key, "outcome")]

    def scenario(entries):
        key = _some_key(entries, lambda k, e: " scenario " in k)
        entries[key]["ok"] = not entries[key]["ok"]
        return key
    key, found = differences(scenario)
    assert found == [(key, "scenario ok")]

    def gone(entries):
        key = _some_key(entries, lambda k, e: " seed " in k)
        del entries[key]
        return key
    key, found = differences(gone)
    assert found == [(key, "entry")]


def test_the_log_hashed_is_the_file_the_cli_writes(tool, tmp_path):
    """The `log` hash is of the very bytes `cardsmith play --log FILE` writes."""
    from cardsmith.interpreter.cli import main

    out = tmp_path / "game.jsonl"
    assert main(["play", str(ROOT / "tests/games/signal_fires.cards"), "--players", "3", "--seed", "4",
                 "--quiet", "--log", str(out)]) == 0
    entry = tool.play_one("tests/games/signal_fires.cards", 3, 4)
    assert entry["log"] == hashlib.sha256(out.read_bytes()).hexdigest()
    assert entry["events"] == len(out.read_bytes().splitlines())
