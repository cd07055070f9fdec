"""`--root DIR` means one thing on every command that reads a game: the folder whose `.cards`
files the game may extend or import (E0905 past it). A variant kept in a subfolder of the
project, `extends "../game.cards"`, is checked, played, simulated (in worker processes too),
compared, published and explained alike with `--root` naming the project, and refused alike
without it."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardsmith.interpreter import cluster
from cardsmith.interpreter.cli import main

ROOT = Path(__file__).resolve().parents[1]
BASE = (ROOT / "games" / "space_war_in_space.cards").read_text(encoding="utf-8")

VARIANT = '''extends "../space_war.cards"

game "Space War: Quick":
    players: 2 to 6
    summary: "The same war, with a variant's title."
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "variants").mkdir(parents=True)
    (project / "space_war.cards").write_text(BASE, encoding="utf-8")
    (project / "variants" / "quick.cards").write_text(VARIANT, encoding="utf-8")
    return project


def run(capsys, *argv: str) -> tuple[int, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out + err


# every command that reads one game, with the arguments it needs besides the file
COMMANDS = [
    ("check", []),
    ("play", ["--players", "2", "--seed", "3", "--quiet"]),
    ("simulate", ["-n", "4", "--players", "2", "--jobs", "1", "--no-progress", "--json"]),
    ("explain", ["--list"]),
    ("diagram", ["-o", "{tmp}/phases.dot"]),
    ("rulebook", ["-o", "{tmp}/book", "--format", "md"]),
    ("cards", ["-o", "{tmp}/cards.html"]),
]


@pytest.mark.parametrize("command,extra", COMMANDS, ids=[c for c, _ in COMMANDS])
def test_a_variant_in_a_subfolder_needs_the_project_folder_on_every_command(project, tmp_path, capsys,
                                                                              command, extra):
    variant = str(project / "variants" / "quick.cards")
    extra = [x.replace("{tmp}", str(tmp_path)) for x in extra]
    status, text = run(capsys, command, variant, *extra)
    assert status != 0 and "E0905" in text, text
    status, text = run(capsys, command, variant, *extra, "--root", str(project))
    assert status == 0, text
    assert "E0905" not in text


def test_simulate_workers_and_compare_load_the_variant_as_the_parent_did(project, capsys):
    variant = str(project / "variants" / "quick.cards")
    base = str(project / "space_war.cards")
    status, text = run(capsys, "simulate", variant, "-n", "6", "--players", "2", "--jobs", "2",
                       "--force-jobs", "--no-progress", "--json", "--root", str(project))
    assert status == 0, text
    stats = json.loads(text[text.index("{"):])
    assert stats["games"] == 6 and stats["crashed"] == 0 and stats["title"] == "Space War: Quick"
    status, text = run(capsys, "compare", base, variant, "-n", "4", "--players", "2", "--jobs", "1",
                       "--no-progress", "--json", "--root", str(project))
    assert status == 0, text
    status, text = run(capsys, "compare", base, variant, "-n", "4", "--players", "2", "--jobs", "1",
                       "--no-progress", "--json")
    assert status != 0 and "E0905" in text


def test_spawned_workers_load_the_variant_with_its_root(project, monkeypatch):
    # where workers are spawned (no fork), each loads the game itself: with the parent's root
    from cardsmith.interpreter import simulate as sim

    variant = str(project / "variants" / "quick.cards")
    monkeypatch.setattr(sim, "_inherited", None)
    game, failure = sim._worker_game(variant, str(project))
    assert failure is None and game.title == "Space War: Quick"
    game, failure = sim._worker_game(variant)
    assert game is None and "E0905" in failure, failure


def test_a_cluster_worker_loads_a_bundle_whose_game_reaches_up_a_folder(project):
    from cardsmith.dsl.loader import load_game

    game = load_game(str(project / "variants" / "quick.cards"), root=str(project))
    bundle = cluster.game_bundle(game)
    assert sorted(bundle["files"]) == ["space_war.cards", "variants/quick.cards"]
    loaded, failure, _names = cluster._load_bundle(bundle)
    assert failure is None and loaded.title == "Space War: Quick"
