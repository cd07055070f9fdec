"""`cardsmith simulate`'s report end to end: the same for any --jobs, JSON with its schema, the
terminal's tables, and the progress bar only where someone watches (docs/simulate.md)."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from cardsmith.interpreter import cli
from cardsmith.interpreter.report import SCHEMA
from cardsmith.interpreter.simulate import _Progress, simulate

ROOT = Path(__file__).parent.parent
GAME = str(ROOT / "tests" / "games" / "designer_report.cards")
SPACE_WAR = str(ROOT / "games" / "space_war_in_space.cards")
TIMINGS = ("jobs", "elapsed_seconds", "games_per_second")


def _without_timings(report: dict) -> dict:
    return {k: v for k, v in report.items() if k not in TIMINGS}


@pytest.mark.parametrize("path, players, games", [(GAME, 3, 60), (SPACE_WAR, 4, 12)])
def test_the_report_is_the_same_whatever_the_jobs(path, players, games):
    one = simulate(path, games, players, 1, 5, progress=False)
    for jobs in (2, 3):
        many = simulate(path, games, players, jobs, 5, progress=False, force_jobs=True)
        assert many["jobs"] == jobs
        assert json.dumps(_without_timings(many), sort_keys=True) == json.dumps(_without_timings(one), sort_keys=True)
    assert one["schema"] == SCHEMA
    assert one["finished"] == games
    assert one["cards"], "the cards' win rates are in the report"


def test_the_crown_decides_games_and_the_report_says_so():
    report = simulate(GAME, 300, 2, 2, 1, progress=False)
    crown, pebble = report["cards"]["Crown"], report["cards"]["Pebble"]
    seat_rate = sum(s["wins"] for s in report["seats"]) / (2 * report["finished"])
    # a player who played the Crown (worth 12 against at most 8 of the rest on a table) always wins
    assert crown["played"]["win_rate"] == 1.0 and crown["played"]["seats"] > 50
    assert crown["played"]["ci95"][0] > seat_rate
    assert pebble["had"]["ci95"][0] <= seat_rate <= pebble["had"]["ci95"][1] + 0.05
    assert report["measures"]["Cards kept in hand"]["per_player"]["mean"] == 2.0
    assert report["decisions"]["real"]["mean"] == 8.0 and report["decisions"]["forced"]["mean"] == 0.0


def test_json_output_has_the_schema_and_no_progress_bar(capsys, monkeypatch):
    monkeypatch.setattr(cli, "_is_terminal", lambda stream: True)      # even on a terminal
    seen = {}
    real = simulate

    def spy(*args, **kwargs):
        seen["progress"] = kwargs.get("progress")
        return real(*args, **kwargs)
    monkeypatch.setattr("cardsmith.interpreter.simulate.simulate", spy)
    code = cli.main(["simulate", GAME, "-n", "20", "--players", "2", "--jobs", "1", "--json"])
    out, err = capsys.readouterr()
    assert code == 0
    data = json.loads(out)
    assert data["schema"] == "cardsmith.simulate/1"
    assert set(data["measures"]) == {"Big plays", "Cards left on the stack", "Cards kept in hand"}
    assert seen["progress"] is False
    assert err == ""


@pytest.mark.parametrize("terminals, flags, shown", [
    ((True, True), [], True),
    ((True, True), ["--no-progress"], False),
    ((True, True), ["--json"], False),
    ((True, False), [], False),         # stdout into a file or a pipe
    ((False, True), [], False),         # stderr not a terminal
])
def test_the_progress_bar_only_where_someone_watches(monkeypatch, capsys, terminals, flags, shown):
    out_tty, err_tty = terminals
    monkeypatch.setattr(cli, "_is_terminal", lambda s: out_tty if s is cli.sys.stdout else err_tty)
    seen = {}

    def fake(path, games, players, jobs, seed, progress=True, **kwargs):
        seen["progress"] = progress
        return simulate(path, games, players, 1, seed, progress=False)
    monkeypatch.setattr("cardsmith.interpreter.simulate.simulate", fake)
    assert cli.main(["simulate", GAME, "-n", "3", "--jobs", "1", *flags]) == 0
    capsys.readouterr()
    assert seen["progress"] is shown


def test_the_progress_bar_shows_games_per_second_and_time_left():
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=120)
    with _Progress(True, 10, "A Game", console=console) as bar:
        for _ in range(10):
            bar.advance(1)
            bar._drawn = 0.0        # draw every time, however fast the loop
            bar.refresh()
    text = buffer.getvalue()
    assert "simulating A Game" in text
    assert "games/s" in text
    assert "10/10" in text
    assert "0:00:00" in text        # time elapsed and time left


def test_the_terminal_report_shows_every_section(capsys, monkeypatch):
    monkeypatch.setattr(cli, "_is_terminal", lambda stream: False)
    assert cli.main(["simulate", GAME, "-n", "40", "--players", "3", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    for words in ("Wins by seat", "Mean score", "Mean return", "Wins by Side", "Decisions asked",
                  "Decisions forced", "Measures", "Big plays", "Cards kept in hand", "Crown",
                  "the win rate of the players who had, drew or played each"):
        assert words in out, words


def test_a_game_file_cannot_inject_markup_into_the_report(tmp_path, capsys, monkeypatch):
    text = Path(GAME).read_text().replace('measure "Big plays"', 'measure "[bold red]Big[/] \x1b[31m"')
    path = tmp_path / "hostile.cards"
    path.write_text(text)
    monkeypatch.setattr(cli, "_is_terminal", lambda stream: False)
    assert cli.main(["simulate", str(path), "-n", "5", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "[bold red]Big[/]" in out          # shown as written, not as markup
    assert "\x1b[31m" not in out
