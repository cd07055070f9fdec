"""A file checked clean is remembered (dsl/cache.py `checked_ok` / `save_checked`; issue 9).

`cardsmith check` of the same files a second time says "ok" without parsing, checking or
importing the front end, as long as neither the file, nor any file it includes, nor the checker's
code has changed. The entry is plain JSON (the included files' paths and SHA-256); a damaged,
foreign or hostile entry, an edited or retargeted include, another `--root`: a miss, and the file
is checked again in full.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cardsmith.dsl import cache, loader, parser
from cardsmith.dsl.loader import check_file
from cardsmith.interpreter import cli

ROOT = Path(__file__).resolve().parents[1]
GAME = ROOT / "games" / "space_war_in_space.cards"
SMALL = ROOT / "tests" / "games" / "high_card_duel.cards"


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("CARDSMITH_CACHE_DIR", str(folder))
    parser.load_grammar.cache_clear()
    yield folder
    parser.load_grammar.cache_clear()


@pytest.fixture
def game(tmp_path):
    """A copy of a small game that imports a library, in a folder of its own."""
    folder = tmp_path / "g"
    folder.mkdir()
    (folder / "lib.cards").write_text("define bonus() as 2\n", encoding="utf-8")
    main = folder / "game.cards"
    main.write_text('import "lib.cards"\n' + SMALL.read_text(encoding="utf-8"), encoding="utf-8")
    return main


def _checked(folder: Path) -> list[Path]:
    return sorted(folder.glob("checked-*"))


def _check_refused(monkeypatch):
    """The full check is not run (a hit must not need it)."""
    def refuse(path, root=None):
        raise AssertionError(f"{path} was checked again")
    monkeypatch.setattr(loader, "check_file", refuse)


def test_a_clean_check_is_remembered_and_the_next_one_says_ok_at_once(fresh, game, monkeypatch, capsys):
    assert not cache.checked_ok(str(game))
    assert cli.main(["check", str(game)]) == 0
    assert capsys.readouterr().out == f"{game}: ok\n"
    [entry] = _checked(fresh)
    stored = json.loads(entry.read_text(encoding="utf-8"))       # plain data: the includes and their hashes
    assert stored["path"] == str(game)
    assert [f[1] for f in stored["files"]] == [str((game.parent / "lib.cards").resolve())]
    assert cache.checked_ok(str(game))
    _check_refused(monkeypatch)
    assert cli.main(["check", str(game)]) == 0
    assert capsys.readouterr().out == f"{game}: ok\n"


def test_an_edited_game_or_include_is_checked_again(fresh, game, monkeypatch):
    assert check_file(str(game))[0] == []
    assert cache.checked_ok(str(game))
    text = game.read_text(encoding="utf-8")
    game.write_text(text + "\n", encoding="utf-8")
    assert not cache.checked_ok(str(game))
    game.write_text(text, encoding="utf-8")
    assert cache.checked_ok(str(game))
    lib = game.parent / "lib.cards"
    lib.write_text("define bonus() as 3\n", encoding="utf-8")
    assert not cache.checked_ok(str(game))
    lib.write_text("define bonus() as\n", encoding="utf-8")       # now a syntax error: reported
    diags, _ = check_file(str(game))
    assert diags and diags[0].span.path == str(lib.resolve())
    assert not cache.checked_ok(str(game))


def test_an_include_that_now_leads_elsewhere_is_checked_again(fresh, tmp_path):
    folder = tmp_path / "h"
    folder.mkdir()
    (folder / "a.cards").write_text("define bonus() as 2\n", encoding="utf-8")
    (folder / "b.cards").write_text("define bonus() as\n", encoding="utf-8")
    os.symlink(folder / "a.cards", folder / "lib.cards")
    main = folder / "game.cards"
    main.write_text('import "lib.cards"\n' + SMALL.read_text(encoding="utf-8"), encoding="utf-8")
    assert check_file(str(main))[0] == []
    assert cache.checked_ok(str(main))
    os.unlink(folder / "lib.cards")
    os.symlink(folder / "b.cards", folder / "lib.cards")
    assert not cache.checked_ok(str(main))
    assert check_file(str(main))[0]


def test_a_file_with_errors_is_not_remembered(fresh, tmp_path, capsys):
    bad = tmp_path / "bad.cards"
    bad.write_text(SMALL.read_text(encoding="utf-8").replace("players: 2", "players: 2 to"), encoding="utf-8")
    assert cli.main(["check", str(bad)]) == 1
    first = capsys.readouterr().out
    assert "error" in first and _checked(fresh) == [] and not cache.checked_ok(str(bad))
    assert cli.main(["check", str(bad)]) == 1
    assert capsys.readouterr().out == first


def test_another_checker_or_root_is_another_entry(fresh, game, monkeypatch):
    assert check_file(str(game))[0] == []
    assert not cache.checked_ok(str(game), root=str(game.parent.parent))
    monkeypatch.setattr(cache, "_checker_fingerprint", ["the checker's code changed"])
    assert not cache.checked_ok(str(game))


def test_the_checker_fingerprint_covers_the_checks(fresh):
    """Every module the full check imports is part of the fingerprint (a change to one of them
    must never let an old "ok" stand)."""
    here = Path(cache.__file__).parent
    covered = {p.resolve() for p in here.rglob("*.py") if p.relative_to(here).parts[0] not in cache._NOT_CHECKER}
    done = subprocess.run([sys.executable, "-c", (
        "import sys; from cardsmith.dsl.loader import check_file; [check_file(f) for f in sys.argv[1:]]; "
        "print('\\n'.join(m.__file__ for n, m in sorted(sys.modules.items()) "
        "if n.startswith('cardsmith.') and getattr(m, '__file__', None)))"),
        str(GAME), str(ROOT / "games" / "space_race.cards")],     # one with deck rules
        capture_output=True, text=True, check=True, env={**os.environ, "CARDSMITH_CACHE_DIR": "off"})
    used = {Path(line).resolve() for line in done.stdout.split()}
    grammar_package = {p for p in used if p.parent.name == "grammar"}
    assert used - grammar_package and used - grammar_package <= covered


@pytest.mark.parametrize("stored", [
    b"not json at all",
    b'{"path": "elsewhere.cards", "files": []}',
    b'{"path": "%s", "files": "none"}',
    b'{"path": "%s", "files": [["lib.cards", "/etc/passwd"]]}',
    b'{"path": "%s", "files": [[1, 2, 3]]}',
    b'{"path": "%s", "files": [["/etc/hostname", "/etc/hostname", "0000"]]}',
    b'{"path": "%s"}',
])
def test_a_damaged_or_hostile_entry_is_a_miss(fresh, game, stored):
    assert check_file(str(game))[0] == []
    [entry] = _checked(fresh)
    entry.write_bytes(stored.replace(b"%s", str(game).encode()))
    assert not cache.checked_ok(str(game))
    assert check_file(str(game))[0] == []          # checked in full, and remembered again
    assert cache.checked_ok(str(game))


def test_without_a_cache_folder_nothing_is_kept(monkeypatch, game):
    monkeypatch.setenv("CARDSMITH_CACHE_DIR", "off")
    assert check_file(str(game))[0] == []
    assert not cache.checked_ok(str(game))


def test_a_folder_or_a_missing_file_is_a_miss(fresh, tmp_path):
    assert not cache.checked_ok(str(tmp_path))
    assert not cache.checked_ok(str(tmp_path / "missing.cards"))
