"""The `cardsmith` command: check, play, simulate, demo; no traceback for bad input."""
from __future__ import annotations

import importlib
import io
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from cardsmith.interpreter.cli import (_EventPrinter, describe_result, format_event, main,
                                       render_summary)
from cardsmith.interpreter.stats import summarize_games

ROOT = Path(__file__).resolve().parents[1]
SPACE_WAR = ROOT / "games" / "space_war_in_space.cards"
SIGNAL_FIRES = ROOT / "tests" / "games" / "signal_fires.cards"
ENGINE_MODULES = ("cardsmith.dsl.loader", "cardsmith.dsl.render", "cardsmith.interpreter.engine")


@pytest.fixture
def engine():
    """Skip while a module of the engine contract is not written yet; any other import error fails."""
    for name in ENGINE_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name != name:
                raise
            pytest.skip(f"{name} is not written yet")


# ---------------------------------------------------------------- the command line itself


def test_help_lists_the_subcommands(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for command in ("check", "play", "simulate", "test", "demo"):
        assert command in out


@pytest.mark.parametrize("argv", [
    [],                                             # no subcommand
    ["play"],                                       # no FILE
    ["fly", "x.cards"],                             # unknown subcommand
    ["simulate", "x.cards", "-n", "0"],             # not a positive count
    ["play", "x.cards", "--agent", "psychic"],
])
def test_a_malformed_command_line_is_a_usage_error(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "usage: cardsmith" in err
    assert "Traceback" not in err


# ---------------------------------------------------------------- output pieces


def test_format_event_puts_the_rule_after_the_explained_line():
    event = {"n": 12, "event": "move", "rule": "space_war_in_space.cards:120:9",
             "text": "Player 1 reveals Axe Pilot."}
    assert format_event(event) == "   12  Player 1 reveals Axe Pilot.  (space_war_in_space.cards:120:9)"


def test_the_log_a_person_reads_hides_what_their_seat_cannot_see():
    """The printer shows the person at seat 1 that player's own log (the engine's visibility
    rule, EventLog.seen_by); the file gets every event whole."""
    from cardsmith.dsl.loader import load_game
    from cardsmith.interpreter.play import run_game

    out, log_file = io.StringIO(), io.StringIO()
    printer = _EventPrinter(out, quiet=False, viewer=0, log_file=log_file)
    eng = run_game(load_game(str(SIGNAL_FIRES)), 2, 3, observe=printer)
    printed = [line.split("  (")[0].strip() for line in out.getvalue().splitlines()]
    assert any(line.endswith("Player 2 makes a secret choice (Pick a signal)") for line in printed)
    assert any(line.endswith("a card from Player 2's hand to Player 2's fire face down") for line in printed)
    assert any("Player 1 secretly chooses " in line for line in printed)           # my own pick
    assert not any("Player 2 secretly chooses" in line for line in printed)
    assert [json.loads(line) for line in log_file.getvalue().splitlines()] == eng.log   # the file keeps all
    assert any(e["text"].startswith("Player 2 secretly chooses") for e in eng.log)
    printer(eng)                                        # nothing new: nothing printed twice
    assert len(out.getvalue().splitlines()) == len(printed)


def _finished_engine(winners, draw=False):
    return SimpleNamespace(
        result={"winners": winners, "draw": draw, "rounds": 57, "steps": 1234},
        player_names=["Player 1", "Player 2", "Player 3"],
        groupings=lambda: {0: {"faction": "Elves"}, 1: {"faction": "Orcs"}, 2: {}})


@pytest.mark.parametrize("winners, draw, expected", [
    ([0], False, "Player 1 (faction Elves) wins after 57 rounds (1234 steps)."),
    ([2], False, "Player 3 wins after 57 rounds (1234 steps)."),
    ([0, 1], False, "Player 1 (faction Elves) and Player 2 (faction Orcs) win after 57 rounds (1234 steps)."),
    ([], True, "The game is a draw after 57 rounds (1234 steps)."),
])
def test_describe_result(winners, draw, expected):
    assert describe_result(_finished_engine(winners, draw)) == expected


def _stats():
    records = [
        {"seed": 1, "status": "finished", "winners": [0], "draw": False, "rounds": 10, "steps": 90,
         "groupings": {0: {"faction": "Elves"}, 1: {"faction": "Orcs"}}},
        {"seed": 2, "status": "finished", "winners": [1], "draw": False, "rounds": 14, "steps": 130,
         "groupings": {0: {"faction": "Orcs"}, 1: {"faction": "Elves"}}},
        {"seed": 3, "status": "crashed", "error": "KeyError: 'x'"},
    ]
    stats = summarize_games(records, players=2)
    stats.update(file="games/x.cards", title="Space [War]", seed=1, jobs=2,
                 elapsed_seconds=0.5, games_per_second=6.0)
    return stats


def test_render_summary_shows_seats_groupings_length_and_speed():
    from rich.console import Console

    out = io.StringIO()
    render_summary(_stats(), Console(file=out, width=120, no_color=True))
    text = out.getvalue()
    assert "Space [War]: 3 games, 2 players, seeds 1 to 3" in text
    assert "Wins by seat" in text and "Wins by faction" in text
    assert "50.0%" in text and "9.5% to 90.5%" in text      # 1 of 2: Wilson 0.0945 to 0.9055
    assert "Rounds" in text and "12.0" in text                # mean of 10 and 14
    assert "Crashed: 1" in text
    assert "replay: cardsmith --debug play games/x.cards --players 2 --seed 3" in text
    assert "6.0 games/s on 2 workers" in text


# ---------------------------------------------------------------- with the engine


def test_check_accepts_space_war(engine, capsys):
    assert main(["check", str(SPACE_WAR)]) == 0
    assert capsys.readouterr().out.strip().endswith(f"{SPACE_WAR}: ok")


def test_check_reports_errors_with_their_location(engine, tmp_path, capsys):
    bad = tmp_path / "bad.cards"
    bad.write_text('game "Broken":\n    players: 2 to 2\n\nzone deck: per player, sideways\n')
    assert main(["check", str(SPACE_WAR), str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"{SPACE_WAR}: ok" in out
    assert "bad.cards:4:" in out
    assert "Traceback" not in out


def test_check_a_missing_file_is_an_error_not_a_traceback(engine, tmp_path, capsys):
    assert main(["check", str(tmp_path / "nowhere.cards")]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err


def test_play_prints_the_explained_log_and_the_result(engine, capsys):
    assert main(["play", str(SPACE_WAR), "--players", "4", "--seed", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Space War: in Space!: 4 players, seed 1")
    assert any("(space_war_in_space.cards:" in line for line in lines[1:-1])
    assert " after " in lines[-1] and (" win" in lines[-1] or "draw" in lines[-1])


def test_play_is_deterministic_for_a_seed(engine, capsys):
    main(["play", str(SPACE_WAR), "--players", "3", "--seed", "7"])
    first = capsys.readouterr().out
    main(["play", str(SPACE_WAR), "--players", "3", "--seed", "7"])
    assert capsys.readouterr().out == first


def test_play_quiet_writes_the_log_as_json_lines(engine, tmp_path, capsys):
    log = tmp_path / "game.jsonl"
    assert main(["play", str(SPACE_WAR), "--players", "2", "--seed", "3", "--quiet", "--log", str(log)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2                      # the header and the result, no log lines
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert events
    assert [e["n"] for e in events] == sorted(e["n"] for e in events)
    assert all({"n", "event", "rule", "text"} <= set(e) for e in events)
    from cardsmith.dsl.loader import load_game
    from cardsmith.interpreter.play import run_game

    replay = run_game(load_game(str(SPACE_WAR)), 2, 3)          # the engine's own JSON lines
    assert log.read_text() == replay.log_jsonl()


def test_play_with_a_person_at_seat_two(engine, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 5000))
    assert main(["play", str(SPACE_WAR), "--players", "2", "--seed", "1",
                 "--agent", "human", "--human-seat", "2"]) == 0
    out = capsys.readouterr().out
    assert "Player 2: what you see" in out
    assert "Player 1: what you see" not in out
    assert "Choose your Faction" in out


def test_a_person_sees_their_hand_but_not_the_secret_choices_of_others(engine, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 200))
    assert main(["play", str(SIGNAL_FIRES), "--players", "2", "--seed", "3", "--agent", "human"]) == 0
    out = capsys.readouterr().out
    assert "Your zones:\n  hand: Red Spark, Red Flame, Red Blaze" in out
    assert "Player 2's zones:\n  hand: 3 cards, hidden" in out
    assert "Player 2 makes a secret choice (Pick a signal)" in out
    assert "Player 2 secretly chooses" not in out


def test_play_a_file_with_errors_renders_diagnostics(engine, tmp_path, capsys):
    bad = tmp_path / "bad.cards"
    bad.write_text('game "Broken":\n    players: 2 to\n')
    assert main(["play", str(bad), "--seed", "1"]) == 1
    err = capsys.readouterr().err
    assert "bad.cards:2:" in err
    assert "Traceback" not in err


def test_play_rejects_a_player_count_the_game_does_not_allow(engine, capsys):
    assert main(["play", str(SPACE_WAR), "--players", "7", "--seed", "1"]) == 1
    assert "is for 2 to 6 players, not 7" in capsys.readouterr().err


def test_play_a_game_that_never_ends_is_aborted(engine, tmp_path, capsys):
    forever = tmp_path / "forever.cards"
    forever.write_text(
        'game "Forever":\n    players: 2 to 2\n\n'
        'player has:\n    score: number = 0\n\n'
        'round "Count":\n    step "Add":\n        for each p in players:\n'
        '            add 1 to p\'s score\n')
    assert main(["check", str(forever)]) == 0, capsys.readouterr().out
    assert main(["play", str(forever), "--seed", "1"]) == 2
    err = capsys.readouterr().err
    assert "forever.cards:" in err
    assert "Traceback" not in err


def test_test_runs_the_scenarios_of_a_file(engine, capsys):
    assert main(["test", str(SIGNAL_FIRES)]) == 0
    out = capsys.readouterr().out
    assert "PASS  " in out and "FAIL" not in out
    assert out.splitlines()[-1] == "4 passed, 0 failed"


def test_test_reports_a_failed_expectation_with_its_line(engine, tmp_path, capsys):
    broken = tmp_path / "signal_fires.cards"
    broken.write_text(SIGNAL_FIRES.read_text() + (
        '\nscenario "Nobody scores in setup" with 2 players:\n'
        '    give seat 1 the choice red\n'
        '    give seat 2 the choice blue\n'
        '    play setup\n'
        '    expect seat 1\'s score = 5\n'))
    assert main(["test", str(broken)]) == 1
    out = capsys.readouterr().out
    assert f"FAIL  {broken}: Nobody scores in setup" in out
    assert "expectation failed" in out
    assert out.splitlines()[-1] == "4 passed, 1 failed"


def test_test_on_a_file_that_does_not_parse_prints_its_located_error_apart_and_fails(tmp_path):
    bad = tmp_path / "bad.cards"
    bad.write_text('game "T":\n    players: 2 to 2\nsetup:\n    say "a" "b"\n')
    run = subprocess.run([sys.executable, "-m", "cardsmith.interpreter.cli", "test", str(bad)], capture_output=True, text=True)
    assert run.returncode == 1
    assert f"{bad}:4:13: error[E0019]" in run.stderr and "^^^" in run.stderr
    assert run.stdout.splitlines() == [f"ERROR {bad}: it has errors, so its scenarios were not run",
                                       "0 passed, 0 failed, 1 file with errors"]
    both = subprocess.run(f"{sys.executable} -m cardsmith.interpreter.cli test {bad} 2>&1", shell=True, capture_output=True,
                          text=True).stdout
    assert all(line.startswith((str(bad), " ", "1 error", "ERROR", "0 passed")) or not line
               for line in both.splitlines()), both


def _timeless(stats: dict) -> dict:
    return {k: v for k, v in stats.items() if k not in ("elapsed_seconds", "games_per_second", "jobs")}


def test_simulate_json_is_the_same_whatever_the_number_of_jobs(engine, capsys):
    argv = ["simulate", str(SPACE_WAR), "-n", "24", "--players", "4", "--seed", "5", "--json"]
    assert main([*argv, "--jobs", "1"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert main([*argv, "--jobs", "3"]) == 0
    three = json.loads(capsys.readouterr().out)
    assert _timeless(one) == _timeless(three)
    assert one["games"] == 24 and len(one["seats"]) == 4
    assert one["finished"] + one["aborted"] + one["crashed"] == 24
    assert "faction" in one["groupings"]
    assert sum(s["wins"] for s in one["seats"]) + one["draws"]["count"] >= one["finished"]


def test_simulate_prints_a_summary_table(engine, capsys):
    assert main(["simulate", str(SPACE_WAR), "-n", "10", "--players", "3", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "Wins by seat" in out and "Wins by faction" in out and "Game length" in out


def test_demo_plays_a_game_then_simulates(engine, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    assert main(["demo", "-n", "12", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "Space War: in Space!: 4 players, seed 1" in out
    assert "(space_war_in_space.cards:" in out
    assert "12 games, 4 players" in out


def test_the_console_script_shows_no_traceback_for_a_bad_file(engine, tmp_path):
    bad = tmp_path / "bad.cards"
    bad.write_text("this is not a game\n")
    done = subprocess.run([sys.executable, "-m", "cardsmith.interpreter.cli", "play", str(bad)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "bad.cards:1:" in done.stderr


def test_version_is_looked_up_only_when_asked(capsys):
    """`--version` prints the installed version; building the command line does not look it up
    (importlib.metadata costs a tenth of a second of every start)."""
    with pytest.raises(SystemExit) as stop:
        main.__globals__["build_parser"]().parse_args(["--version"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("cardsmith ") and out.strip() != "cardsmith"
    done = subprocess.run([sys.executable, "-c", (
        "import sys; from cardsmith.interpreter import cli; cli.build_parser(); "
        "print('importlib.metadata' in sys.modules)")], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False"


def test_players_out_of_range_is_a_usage_error(capsys):
    """play's PlayerCountError reaches the user as a one-line usage error (the play module is
    imported only by the commands that play)."""
    assert main(["play", str(ROOT / "tests" / "games" / "high_card_duel.cards"), "--players", "9"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("cardsmith: ") and "Traceback" not in err
