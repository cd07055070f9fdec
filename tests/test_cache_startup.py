"""What the cache folder keeps so that a command starts fast (dsl/cache.py; issue 9, start-up).

* a file's parse: its AST as plain JSON data, one entry per file path (keyed too by the grammar
  and the front end's code) holding each declaration's by the SHA-256 of its text; a second
  `check` or `play` of the same file neither imports Lark nor parses, and after an edit only the
  declarations that changed are parsed. An entry can only ever name dsl/ast.py's classes: a
  damaged, foreign or hostile entry is a miss, and the file is parsed again.
* the compiled methods of cardsmith's dataclasses (marshal, as __pycache__), loaded by the
  `cardsmith` command before its modules are imported.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cardsmith.dsl import cache, loader, parser
from cardsmith.dsl.loader import check_file, load_game
from cardsmith.dsl.source import Source

ROOT = Path(__file__).resolve().parents[1]
GAME = str(ROOT / "games" / "space_war_in_space.cards")
SMALL = str(ROOT / "tests" / "games" / "high_card_duel.cards")


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("CARDSMITH_CACHE_DIR", str(folder))
    parser.load_grammar.cache_clear()
    yield folder
    parser.load_grammar.cache_clear()


def _no_parsing(monkeypatch):
    def refuse(source):
        raise AssertionError(f"{source.path} was parsed again")
    monkeypatch.setattr(parser, "parse", refuse)


def _entries(folder: Path, kind: str) -> list[Path]:
    return sorted(folder.glob(f"{kind}-*"))


def test_a_second_load_reads_the_parse_from_the_cache(fresh, monkeypatch):
    first = load_game(GAME)
    [entry] = _entries(fresh, "ast")
    json.loads(entry.read_text(encoding="utf-8"))       # plain data
    _no_parsing(monkeypatch)
    second = load_game(GAME)
    assert second.module == first.module
    assert second.title == first.title and len(second.cards) == len(first.cards)


def test_every_game_reads_back_the_ast_it_was_parsed_into(fresh):
    files = sorted((ROOT / "games").glob("*.cards")) + sorted((ROOT / "tests" / "games").glob("*.cards"))
    compared = 0
    for path in files:
        source = Source(str(path), path.read_text(encoding="utf-8").replace("\r\n", "\n"))
        tree, diags = parser.parse(source)
        if tree is None:
            continue
        from cardsmith.dsl.transformer import to_ast
        found: list = []
        module = to_ast(tree, source.path, source.text, found)
        if found:
            continue
        cache.save_module(source, module)
        assert cache.load_module(source) == module, path.name
        # parsed declaration by declaration, the same AST; read back from those pieces, the same
        assert loader._by_declarations(source, {}) == module, path.name
        assert cache.load_module(source) == module, path.name
        compared += 1
    assert compared > 40


def _parsed(monkeypatch) -> list:
    """The texts parser.parse is given from now on."""
    calls: list = []
    real = parser.parse
    monkeypatch.setattr(parser, "parse", lambda source: calls.append(source.text) or real(source))
    return calls


def _whole(path: str, text: str):
    """The AST of `text` parsed whole, as without a cache folder."""
    from cardsmith.dsl.transformer import to_ast

    tree, diags = parser.parse(Source(path, text))
    assert not diags
    return to_ast(tree, path, text, [])


def test_an_edited_file_parses_only_the_declaration_that_changed(fresh, tmp_path, monkeypatch):
    game = tmp_path / "g" / "game.cards"
    game.parent.mkdir()
    text = Path(GAME).read_text(encoding="utf-8")
    game.write_text(text, encoding="utf-8")
    load_game(str(game))
    # one line more in the title's declaration: every declaration below it moves down a line
    edited = text.replace('game "Space War: in Space!":', 'game "Space War: in Space, again!":\n    # edited', 1)
    assert edited != text
    game.write_text(edited, encoding="utf-8")
    calls = _parsed(monkeypatch)
    again = load_game(str(game))
    assert again.title == "Space War: in Space, again!"
    assert len(calls) == 1 and '\ngame "Space War: in Space, again!":\n    # edited\n' in calls[0]
    assert again.module == _whole(str(game), edited)        # spans moved down with their lines
    assert len(_entries(fresh, "ast")) == 1                 # the file's last parse
    calls.clear()
    assert load_game(str(game)).module == again.module and calls == []


def test_an_imported_file_is_kept_by_its_own_text(fresh, tmp_path, monkeypatch):
    folder = tmp_path / "g"
    folder.mkdir()
    (folder / "lib.cards").write_text('define bonus() as 2\n', encoding="utf-8")
    main = Path(GAME).read_text(encoding="utf-8")
    (folder / "game.cards").write_text('import "lib.cards"\n' + main, encoding="utf-8")
    load_game(str(folder / "game.cards"))
    assert len(_entries(fresh, "ast")) == 2
    (folder / "lib.cards").write_text('define bonus() as 3\n', encoding="utf-8")
    calls = _parsed(monkeypatch)
    game = load_game(str(folder / "game.cards"))
    assert calls == ['define bonus() as 3\n']
    assert len(_entries(fresh, "ast")) == 2
    assert "bonus" in game.decls.defines


def test_a_declaration_that_does_not_parse_alone_makes_the_file_parse_whole(fresh, tmp_path, monkeypatch):
    """`(` opened on one line and closed on a line that starts in column 1 with a word: the
    pieces cut there do not parse alone; the file does, whole, and is kept whole."""
    game = tmp_path / "g" / "game.cards"
    game.parent.mkdir()
    text = Path(SMALL).read_text(encoding="utf-8").rstrip("\n") + "\ndefine spare(n) as (1 +\nn)\n"
    game.write_text(text, encoding="utf-8")
    calls = _parsed(monkeypatch)
    first = load_game(str(game))
    assert calls[-1] == text
    assert first.module == _whole(str(game), text)
    calls.clear()
    assert load_game(str(game)).module == first.module and calls == []


def test_a_syntax_error_after_an_edit_reads_as_without_a_cache(fresh, tmp_path, monkeypatch):
    game = tmp_path / "g" / "game.cards"
    game.parent.mkdir()
    text = Path(GAME).read_text(encoding="utf-8")
    game.write_text(text, encoding="utf-8")
    assert check_file(str(game))[0] == []
    broken = text.replace("define ", "define define ", 1)
    game.write_text(broken, encoding="utf-8")
    found, _ = check_file(str(game))
    monkeypatch.setenv("CARDSMITH_CACHE_DIR", "off")
    expected, _ = check_file(str(game))
    assert found and found == expected


def test_a_file_with_a_syntax_error_is_not_kept(fresh, tmp_path):
    bad = tmp_path / "bad.cards"
    bad.write_text('game "x":\n  players: 2 to\n', encoding="utf-8")
    diags, _ = check_file(str(bad))
    assert diags and _entries(fresh, "ast") == []
    diags, _ = check_file(str(bad))         # and is reported again, the same way
    assert diags


_MODULE = b'["N", "Module", ["S", 1, 1, 1, 2], ["T"]]'


@pytest.mark.parametrize("stored", [
    b"not json at all",
    b'{"path": "elsewhere.cards", "pieces": [["KEY", %m]]}',
    b'{"path": "%s", "pieces": [["KEY", ["N", "Game", ["S", 1, 1, 1, 2]]]]}',               # not an AST class
    b'{"path": "%s", "pieces": [["KEY", ["N", "__class__", ["S", 1, 1, 1, 2], ["T"]]]]}',
    b'{"path": "%s", "pieces": [["KEY", ["N", "Module", ["S", 1, 1, 1, 2]]]]}',              # a field missing
    b'{"path": "%s", "pieces": [["KEY", ["N", "Module", ["S", "1", 1, 1, 2], ["T"]]]]}',     # a span of text
    b'{"path": "%s", "pieces": [["KEY", ["X", "os.system", "echo hi"]]]}',
    b'{"path": "%s", "pieces": [["KEY", ["N", "Num", ["S", 1, 1, 1, 2], 3]]]}',             # a node, not a module
    b'{"path": "%s", "pieces": [[3, %m]]}',
    b'{"path": "%s", "pieces": {"KEY": %m}}',
    b'{"path": "%s"}',
])
def test_a_damaged_or_hostile_entry_is_a_miss(fresh, monkeypatch, stored):
    """Each piece of the file (KEY: the SHA-256 of its text) or the file as one piece (WHOLE)."""
    first = load_game(SMALL)
    [entry] = _entries(fresh, "ast")
    text = Path(SMALL).read_text(encoding="utf-8")
    calls = _parsed(monkeypatch)
    for key in [cache.digest(text)] + [cache.digest(piece) for _, piece in loader.declaration_chunks(text)]:
        entry.write_bytes(stored.replace(b"%s", SMALL.encode()).replace(b"%m", _MODULE)
                          .replace(b"KEY", key.encode()))
        calls.clear()
        assert load_game(SMALL).module == first.module
        assert calls


def test_the_oldest_parses_go_beyond_the_bound(fresh, monkeypatch):
    monkeypatch.setattr(cache, "MAX_PARSES", 2)
    text = Path(SMALL).read_text(encoding="utf-8")
    sources = [Source(f"{SMALL[:-6]}_{i}.cards", text) for i in range(4)]
    for i, source in enumerate(sources):
        cache.save_module(source, _whole(source.path, source.text))
        os.utime(cache._ast_entry(source), (1000 + i, 1000 + i))     # written in this order
    kept = _entries(fresh, "ast")
    assert len(kept) == 2
    assert cache.load_module(sources[3]) is not None
    assert cache.load_module(sources[0]) is None


def test_without_a_cache_folder_nothing_is_kept(monkeypatch, tmp_path):
    monkeypatch.setenv("CARDSMITH_CACHE_DIR", "off")
    assert cache.load_module(Source(GAME, Path(GAME).read_text(encoding="utf-8"))) is None
    assert load_game(GAME).title == "Space War: in Space!"


_PROBE = """
import dataclasses, sys
from cardsmith.interpreter import cli          # loads the compiled methods first
from cardsmith.dsl import ast as A
from cardsmith.dsl.source import Span
methods = dataclasses.exec
span = Span("x.cards", 1, 2, 3, 4)
a, b = A.Num(span, 3), A.Num(span, 3)
try:
    a.value = 4
    frozen = False
except dataclasses.FrozenInstanceError:
    frozen = True
print(methods.missed, len(methods.used), a == b, hash(a) == hash(b), repr(a), frozen, A.Num.__slots__)
"""


def test_the_dataclasses_methods_are_compiled_once_then_loaded(fresh):
    env = {**os.environ, "CARDSMITH_CACHE_DIR": str(fresh)}
    first = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, check=True)
    assert len(_entries(fresh, "dataclasses")) == 1
    second = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, check=True)
    missed_first, used, *same_first = first.stdout.split(" ", 2)
    missed_second, used_second, *same_second = second.stdout.split(" ", 2)
    assert int(missed_first) > 100 and int(missed_second) == 0 and int(used_second) == int(used) > 100
    assert same_first == same_second
    assert "True True Num(span=Span(path='x.cards', line=1, column=2, end_line=3, end_column=4), value=3) True" \
        in second.stdout


def test_only_cardsmiths_own_classes_are_kept(fresh):
    probe = ("import dataclasses\nfrom cardsmith.interpreter import cli\nfrom cardsmith.dsl import ast\n"
             "m = dataclasses.exec\nused, missed = len(m.used), m.missed\n"
             "@dataclasses.dataclass(frozen=True)\nclass Other:\n    x: int\n"
             "print(len(m.used) == used, m.missed == missed, Other(1) == Other(1))\n")
    env = {**os.environ, "CARDSMITH_CACHE_DIR": str(fresh)}
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "True", "True"]
