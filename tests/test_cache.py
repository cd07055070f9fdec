"""The cache folder (dsl/cache.py): the parser is built once and loaded after (the whole built
parser, else the tables Lark keeps)."""
from __future__ import annotations

import logging
import os
import stat
import subprocess
import sys

import pytest

from cardsmith.dsl import cache, parser
from cardsmith.dsl.loader import load_game


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("CARDSMITH_CACHE_DIR", str(folder))
    parser.load_grammar.cache_clear()
    yield folder
    parser.load_grammar.cache_clear()


def _lark_says(caplog) -> list[str]:
    return [r.getMessage().split(":")[0] for r in caplog.records if r.name == "lark"]


def _tree(text: str):
    return parser.load_grammar().parse(parser._prepare(text))


_GAME = "games/space_war_in_space.cards"


def test_the_tables_are_built_once_then_loaded(fresh, caplog):
    caplog.set_level(logging.DEBUG, logger="lark")
    parser.load_grammar()
    assert _lark_says(caplog) == ["Saving grammar to cache"]
    entries = sorted(e.name.split("-")[0] for e in fresh.iterdir())
    assert entries == ["grammar", "parser"]
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o700
    with open(_GAME, encoding="utf-8") as fh:
        text = fh.read()
    built = _tree(text)
    caplog.clear()
    parser.load_grammar.cache_clear()
    parser.load_grammar()
    assert _lark_says(caplog) == []             # the built parser, read back whole
    assert _tree(text) == built
    next(fresh.glob("parser-*")).unlink()
    parser.load_grammar.cache_clear()
    parser.load_grammar()
    assert _lark_says(caplog) == ["Loading grammar from cache"]     # the tables, not rebuilt
    assert _tree(text) == built
    # and the loaded parser parses as the built one does
    assert load_game(_GAME).title == "Space War: in Space!"


@pytest.mark.parametrize("kind", ["grammar", "parser"])
def test_a_damaged_entry_is_rebuilt(fresh, caplog, kind):
    parser.load_grammar()
    for entry in fresh.iterdir():       # both, or the one of `kind` (the other is read instead)
        if kind == "grammar" or entry.name.startswith(kind):
            first_line = entry.read_bytes().split(b"\n", 1)[0]
            entry.write_bytes(first_line + b"\nnot a pickle at all")
    parser.load_grammar.cache_clear()
    caplog.set_level(logging.DEBUG, logger="lark")
    assert parser.load_grammar() is not None
    if kind == "grammar":
        assert "Saving grammar to cache" in _lark_says(caplog)
    else:
        assert _lark_says(caplog) == ["Loading grammar from cache"]
    assert load_game(_GAME) is not None


def test_an_entry_that_is_not_a_parser_is_not_used(fresh):
    import pickle

    parser.load_grammar()
    next(fresh.glob("parser-*")).write_bytes(pickle.dumps({"not": "a parser"}))
    parser.load_grammar.cache_clear()
    assert isinstance(parser.load_grammar(), parser.Lark)
    assert load_game(_GAME) is not None


def test_a_folder_others_may_write_to_is_not_used(fresh):
    fresh.mkdir(mode=0o700)
    assert cache.cache_dir() == fresh
    os.chmod(fresh, 0o777)
    assert cache.cache_dir() is None
    parser.load_grammar.cache_clear()
    assert parser.load_grammar() is not None and list(fresh.iterdir()) == []


def test_switched_off(monkeypatch):
    monkeypatch.setenv("CARDSMITH_CACHE_DIR", "off")
    assert cache.cache_dir() is None and cache.entry("grammar", "x") is None


def test_cardsmith_cache_clear(fresh):
    env = {**os.environ, "CARDSMITH_CACHE_DIR": str(fresh)}
    run = [sys.executable, "-m", "cardsmith.interpreter.cli"]
    subprocess.run(run + ["check", "games/space_war_in_space.cards"], check=True, env=env, capture_output=True)
    # the parser's tables, the dataclasses' compiled methods, the file's parse, that it checked
    # clean and what its body checks found (dsl/cache.py)
    kinds = sorted(entry.name.split("-")[0] for entry in fresh.iterdir())
    assert kinds == ["ast", "checked", "dataclasses", "grammar", "parser", "settled"]
    out = subprocess.run(run + ["cache", "--clear"], check=True, env=env, capture_output=True, text=True).stdout
    assert "6 entries removed" in out and list(fresh.iterdir()) == []
