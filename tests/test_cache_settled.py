"""What the body checks found is read back when the same game is loaded again (dsl/cache.py
`save_settled` / `load_settled`; issue 9, a second `play` starts fast).

A game loaded without a diagnostic keeps, as plain JSON, what its body checks left in the model
for the compiler: every expression's type and kind (named by file and place in that file's AST),
the procedures' parameter types, the calls' agreed types and `remembers`. The next load of the
same files, by the same checker, puts them back instead of checking the bodies again. The game
then plays the same, log for log; an edited include, a damaged or hostile entry: the checks run.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardsmith.dsl import cache, loader, parser
from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.play import run_game

ROOT = Path(__file__).resolve().parents[1]
GAMES = [ROOT / "games" / "space_war_in_space.cards", ROOT / "tests" / "games" / "high_card_duel.cards",
         ROOT / "games" / "the_space_war.cards"]
SMALL = ROOT / "tests" / "games" / "high_card_duel.cards"


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("CARDSMITH_CACHE_DIR", str(folder))
    parser.load_grammar.cache_clear()
    yield folder
    parser.load_grammar.cache_clear()


def _no_body_checks(monkeypatch):
    def refuse(decls, sink):
        raise AssertionError("the body checks ran again")
    monkeypatch.setattr(loader, "bodies", refuse)


def _counting_body_checks(monkeypatch) -> list:
    ran: list = []
    real = loader.bodies
    monkeypatch.setattr(loader, "bodies", lambda decls, sink: ran.append(1) or real(decls, sink))
    return ran


def _canonical(game):
    """The model's checked facts with each expression named by its place in the game's AST."""
    places: dict = {}
    for i, node in enumerate(cache.node_order(game.module)):
        places.setdefault(id(node), i)
    d = game.decls
    return (sorted((repr(i), places[k], repr(t)) for (i, k), t in d.typing.types.items()),
            sorted((repr(i), places[k], repr(t)) for (i, k), t in d.typing.kinds.items()),
            repr(d.param_types), repr(d.call_types), d.remembers)


def _logs(game, seeds=range(3)) -> list[str]:
    return [run_game(game, players, seed, log=True).event_log.to_jsonl()
            for players in sorted({game.min_players, game.max_players}) for seed in seeds]


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.name)
def test_a_second_load_reads_the_checks_back_and_plays_the_same(fresh, monkeypatch, path):
    first = load_game(str(path))
    [entry] = sorted(fresh.glob("settled-*"))
    json.loads(entry.read_text(encoding="utf-8"))          # plain data
    _no_body_checks(monkeypatch)
    second = load_game(str(path))
    assert _canonical(second) == _canonical(first)
    assert second.decls.typing.types and len(second.decls.typing.types) == len(first.decls.typing.types)
    assert _logs(second) == _logs(first)


def test_an_edited_include_checks_the_bodies_again(fresh, tmp_path, monkeypatch):
    folder = tmp_path / "g"
    folder.mkdir()
    lib = folder / "lib.cards"
    lib.write_text("define bonus() as 2\n", encoding="utf-8")
    main = folder / "game.cards"
    main.write_text('import "lib.cards"\n' + SMALL.read_text(encoding="utf-8"), encoding="utf-8")
    ran = _counting_body_checks(monkeypatch)
    load_game(str(main))
    load_game(str(main))
    assert ran == [1]
    lib.write_text('define bonus() as "two"\n', encoding="utf-8")
    game = load_game(str(main))
    assert ran == [1, 1]
    assert "text" in repr(game.decls.typing.types.values())
    load_game(str(main))
    assert ran == [1, 1]


def test_a_file_with_errors_keeps_nothing(fresh, tmp_path):
    bad = tmp_path / "bad.cards"
    bad.write_text(SMALL.read_text(encoding="utf-8").replace("define other(p) as", "define other(p) as p +"),
                   encoding="utf-8")
    with pytest.raises(Exception):
        load_game(str(bad))
    assert list(fresh.glob("settled-*")) == []


@pytest.mark.parametrize("change", [
    lambda d: b"not json",
    lambda d: json.dumps({**d, "path": "elsewhere.cards"}).encode(),
    lambda d: json.dumps({**d, "types": [[None, [[0, 10 ** 9]], "number"]]}).encode(),     # no such node
    lambda d: json.dumps({**d, "types": [[None, [[0, -1]], "number"]]}).encode(),
    lambda d: json.dumps({**d, "types": [[["X", "os.system"], [[0, 1]], "number"]]}).encode(),
    lambda d: json.dumps({**d, "param_types": "none"}).encode(),
    lambda d: json.dumps({**d, "remembers": "yes"}).encode(),
    lambda d: json.dumps({**d, "files": [["a.cards", "/etc/hostname", "00"]]}).encode(),
    lambda d: json.dumps({k: v for k, v in d.items() if k != "kinds"}).encode(),
])
def test_a_damaged_or_hostile_entry_is_a_miss(fresh, monkeypatch, change):
    first = load_game(str(SMALL))
    [entry] = sorted(fresh.glob("settled-*"))
    entry.write_bytes(change(json.loads(entry.read_text(encoding="utf-8"))))
    ran = _counting_body_checks(monkeypatch)
    second = load_game(str(SMALL))
    assert ran == [1]
    assert _canonical(second) == _canonical(first)


def test_without_a_cache_folder_nothing_is_kept(monkeypatch):
    monkeypatch.setenv("CARDSMITH_CACHE_DIR", "off")
    ran = _counting_body_checks(monkeypatch)
    load_game(str(SMALL))
    load_game(str(SMALL))
    assert ran == [1, 1]


def test_node_order_is_the_order_an_entry_is_read_in(fresh):
    """A module read back from the cache folder lists its nodes in the order they were made; the
    same module parsed afresh walks to the same classes in the same order."""
    from cardsmith.dsl.source import Source
    from cardsmith.dsl.transformer import to_ast

    text = (ROOT / "games" / "the_space_war.cards").read_text(encoding="utf-8")
    source = Source("x.cards", text)
    tree, _ = parser.parse(source)
    parsed = to_ast(tree, source.path, source.text, [])
    cache.save_module(source, parsed)
    read = cache.load_module(source)
    walked = cache.node_order(parsed)
    made = cache.node_order(read)
    assert made is cache._orders[id(read)][1]
    assert [type(n).__name__ for n in walked] == [type(n).__name__ for n in made]
    assert all(a == b for a, b in zip(walked, made)) and len(walked) > 1000


def test_the_orders_kept_are_bounded(fresh, monkeypatch):
    """A long-lived process (the language server) reads many versions of a file: only the most
    recent modules' node orders are kept; an older module's is walked again, the same."""
    from cardsmith.dsl.source import Source

    monkeypatch.setattr(cache, "_orders", {})
    monkeypatch.setattr(cache, "_ORDERS_KEPT", 3)
    text = SMALL.read_text(encoding="utf-8")
    modules = []
    for k in range(5):
        source = Source(f"v{k}.cards", text + f"\n# version {k}\n")
        tree, _ = parser.parse(source)
        from cardsmith.dsl.transformer import to_ast
        cache.save_module(source, to_ast(tree, source.path, source.text, []))
        modules.append(cache.load_module(source))
    assert len(cache._orders) == 3
    first = modules[0]
    assert id(first) not in cache._orders
    assert [type(n).__name__ for n in cache.node_order(first)] == \
        [type(n).__name__ for n in cache.node_order(modules[-1])]
