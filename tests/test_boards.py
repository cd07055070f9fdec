"""Boards (docs/language.md, "board" and "Places on a board"): places that are zones, links
listed or laid out as a grid or hex rows, the searches over them, a place's fields and the
players' marks, the rulebook's drawing, and tests/games/waystones.cards played to its end."""
from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardsmith.dsl import ast as A
from cardsmith.dsl.checks.boards import Board
from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import load_game, load_text
from cardsmith.dsl.publish import diagrams as D
from cardsmith.dsl.publish.board import board_source, place_rows
from cardsmith.dsl.publish.layout import table_svg
from cardsmith.dsl.publish.rulebook import build_book
from cardsmith.interpreter.compile_boards import distances, path
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.scenario import run_scenarios

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "tests" / "games"
HEAD = 'game "T":\n    players: 2 to 2\n'


@pytest.fixture(scope="module")
def waystones():
    return load_game(str(GAMES / "waystones.cards"))


def _board(text: str, name: str = "m") -> Board:
    return load_text(HEAD + text).decls.boards[name]


def _names(board: Board, i: int) -> list[str]:
    return [board.places[j] for j in board.adjacent[i]]


# ---------------------------------------------------------------- the declaration


def test_places_are_shared_public_unordered_zones_of_their_board(waystones):
    d = waystones.decls
    for place in ("Camp", "Ford", "Peak", "y1", "h6"):
        z = d.zones[place]
        assert (z.per_player, z.ordered, z.visibility) == (False, False, "public")
        assert z.board in ("valley", "yard", "hive")
    assert d.zones["box"].board is None
    assert d.zones["Camp"].label == "Base Camp"
    assert d.boards["valley"].labels["Camp"] == "Base Camp"


def test_links_listed_are_both_ways_and_once():
    b = _board("board m:\n    places: A, B, C\n    links: A - B, B - A, C - B\n")
    assert b.links == ((0, 1), (1, 2))
    assert _names(b, 1) == ["A", "C"]
    assert _names(b, 0) == ["B"]


def test_a_grid_links_across_sides_and_skips_holes():
    b = _board("board m:\n    grid:\n        | a | b | c |\n        | d |   | f |\n        | g | h | i |\n")
    assert b.coords["f"] == (2, 1)
    assert _names(b, b.index["a"]) == ["b", "d"]
    assert _names(b, b.index["h"]) == ["g", "i"]          # the hole above h links nothing
    assert _names(b, b.index["f"]) == ["c", "i"]


def test_a_hex_shifts_its_odd_rows_half_a_place_right():
    b = _board("board m:\n    hex:\n        | a | b | c |\n        | d | e | f |\n        | g | h | i |\n")
    # e (1, 1), an odd row: the row above at columns 1 and 2, the row below likewise
    assert _names(b, b.index["e"]) == ["b", "c", "d", "f", "h", "i"]
    # d (0, 1): a and b above, g and h below
    assert _names(b, b.index["d"]) == ["a", "b", "e", "g", "h"]
    # a (0, 0), an even row: only d below (column -1 does not exist)
    assert _names(b, b.index["a"]) == ["b", "d"]


def test_fields_and_marks_with_their_defaults(waystones):
    b = waystones.decls.boards["valley"]
    assert b.defaults == {"tier": 0, "watched": False, "explorer": None}
    assert b.mark_defaults == {"influence": 0}
    assert b.marks["influence"].at_most == 3


@pytest.mark.parametrize("text, code, line", [
    ("board m:\n    places: A, B\n    links: A - Q\n", "E0240", 5),
    ("board m:\n    places: A, B\n    links: A - A\n", "E0240", 5),
    ("board m:\n    place has:\n        t: number\n", "E0241", 3),
    ("zone A: shared\nboard m:\n    places: A\n", "E0102", 5),
    ("board m:\n    places: A\nboard n:\n    places: A\n", "E0102", 6),
    ("board m:\n    places: A\n    place has:\n        t: number\n    player on a place has:\n        t: number\n",
     "E0104", 8),
    ("board m:\n    places: A\n    place has:\n        t: nunber\n", "E0101", 6),
])
def test_bad_declarations_are_located(text, code, line):
    with pytest.raises(CardsmithError) as err:
        load_text(HEAD + text, "game.cards")
    first = err.value.diagnostics[0]
    assert (first.code, first.span.line) == (code, line)
    assert first.hint


def test_a_link_to_a_missing_place_suggests_the_closest():
    with pytest.raises(CardsmithError) as err:
        load_text(HEAD + "board m:\n    places: Ridge, Keep\n    links: Ridge - Kep\n", "game.cards")
    assert "Keep" in err.value.diagnostics[0].hint


@pytest.mark.parametrize("expr, code", [
    ("the places adjacent to 3", "E0408"),
    ("the distance from seat 1 to A", "E0408"),
    ("the places within yes of A", "E0408"),
    ("the places of mm", "E0244"),
    ("the fame of seat 1 on A", "E0245"),
    ("the influence of A on A", "E0408"),
    ("A's fame", "E0402"),
    ("distance(A)", "E0302"),
    ("adjacent(A, B)", "E0302"),
    ("adjacent(seat 1)", "E0408"),
])
def test_bad_expressions_are_located(expr, code):
    text = (HEAD + "board m:\n    places: A, B\n    player on a place has:\n        influence: number = 0\n"
            f"setup:\n    let x be {expr}\n")
    with pytest.raises(CardsmithError) as err:
        load_text(text, "game.cards")
    first = err.value.diagnostics[0]
    assert (first.code, first.span.line) == (code, 8)


# ---------------------------------------------------------------- the searches


def _random_board(n: int, pairs: list[tuple[int, int]]) -> Board:
    names = [f"p{i}" for i in range(n)]
    links = " , ".join(f"{names[a]} - {names[b]}" for a, b in pairs if a != b)
    text = f"board m:\n    places: {', '.join(names)}\n" + (f"    links: {links}\n" if links else "")
    return _board(text)


def _brute_paths(board: Board, a: int, b: int) -> list[list[int]]:
    """Every simple path from a to b, by trying every order of the other places (tiny boards)."""
    out = []
    others = [i for i in range(len(board.places)) if i not in (a, b)]
    for k in range(len(others) + 1):
        for mid in itertools.permutations(others, k):
            walk = [a, *mid, b] if a != b else [a]
            if all(y in board.adjacent[x] for x, y in zip(walk, walk[1:])):
                out.append(walk)
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=9),
    st.integers(0, n - 1), st.integers(0, n - 1))))
def test_distance_and_shortest_path_agree_with_brute_force(case):
    n, pairs, a, b = case
    board = _random_board(n, pairs)
    walks = _brute_paths(board, a, b)
    got = path(board, a, b)
    d = distances(board, a)[b]
    if not walks:
        assert got == [] and d == -1
        return
    shortest = min(len(w) for w in walks)
    assert d == shortest - 1
    # the tie-break: of the shortest, the one with the earliest declared place at each step
    assert got == min(w for w in walks if len(w) == shortest)


# ---------------------------------------------------------------- the game


def test_the_scenarios_of_waystones_pass():
    game = load_game(str(GAMES / "waystones.scenarios.cards"))
    results = run_scenarios(game)
    assert len(results) >= 12
    failed = [(r.name, r.failures) for r in results if not r.ok]
    assert failed == []


@pytest.mark.parametrize("players", [2, 3])
def test_random_games_end_and_marks_stay_within_their_bounds(waystones, players):
    for seed in range(12):
        eng = run_game(waystones, players, seed=seed, log=False)
        st_ = eng.m.st
        assert st_.result is not None
        marks = {k: v for k, v in st_.game.items() if k.count(".") == 2}
        assert marks, "someone gained influence on some place"
        assert all(0 <= v <= 3 for v in marks.values())
        # tiles are conserved: five tiles lie on the five places other than the camp
        tiles = [c for c, zone in enumerate(st_.card_zone) if st_.cards[c]["type"] == "Tile"]
        assert sorted(st_.card_zone[c] for c in tiles) == ["Ford", "Marsh", "Mill", "Peak", "Tower"]


def test_a_game_is_the_same_log_for_the_same_seed_fused_or_not(waystones, monkeypatch):
    first = json.dumps(run_game(waystones, 3, seed=5).log, sort_keys=True)
    again = json.dumps(run_game(waystones, 3, seed=5).log, sort_keys=True)
    assert first == again
    monkeypatch.setattr(Machine, "fused", False)
    assert json.dumps(run_game(waystones, 3, seed=5).log, sort_keys=True) == first


def test_save_and_restore_keep_fields_and_marks(waystones):
    eng = Engine(waystones, players=2, seed=1)
    for _ in range(6):
        if eng.pending is None:
            break
        eng.decide(0)
    saved = eng.save_json()
    copy = Engine.restore(waystones, saved)
    assert copy.m.st.game == eng.m.st.game
    while eng.pending is not None:
        eng.decide(0)
        copy.decide(0)
    assert copy.m.st.to_dict() == eng.m.st.to_dict()


def test_a_zone_that_is_no_place_stops_the_game_at_the_rule():
    game = load_text(HEAD + "zone box: shared\nboard m:\n    places: A\nsetup:\n    let z be box\n"
                     "    let xs be the places adjacent to z\n", "game.cards")
    with pytest.raises(CardsmithError) as err:
        run_game(game, 2, seed=0)
    first = err.value.diagnostics[0]
    assert (first.code, first.span.line) == ("E0850", 8)


def test_a_place_of_another_board_without_the_field_stops_the_game():
    game = load_text(HEAD + "board m:\n    places: A\n    place has:\n        t: number = 2\n"
                     "board n:\n    places: B\nsetup:\n    let x be A's t\n    let y be B's t\n", "game.cards")
    with pytest.raises(CardsmithError) as err:
        run_game(game, 2, seed=0)
    first = err.value.diagnostics[0]
    assert (first.code, first.span.line) == ("E0850", 11)
    assert "no field 't'" in first.message


def test_a_search_counts_as_work(waystones):
    game = load_text(HEAD + "board m:\n    places: A, B, C\n    links: A - B, B - C\nsetup:\n"
                     "    let d be the distance from A to C\n", "game.cards")
    eng = run_game(game, 2, seed=0)
    assert eng.m.st.work >= 3 + 2       # places plus links, once


# ---------------------------------------------------------------- the rulebook and diagrams


def test_the_board_is_drawn_from_its_declaration(waystones):
    source, boxes = board_source(waystones.decls.boards["hive"])
    assert boxes == 6
    assert 'layout=neato' in source and "shape=hexagon" in source
    assert source.count(" -- ") == 10              # 9 links of the shape, 1 listed
    assert 'pos="0.70,-1.22!"' in source           # h4: the odd row, half a place to the right
    valley, _ = board_source(waystones.decls.boards["valley"])
    assert 'label="Base Camp"' in valley and "pos=" not in valley


def test_the_zone_diagram_draws_each_board_as_a_cluster(waystones):
    dot = D.dot_source(waystones.decls, "zones")
    assert "subgraph cluster_board_valley" in dot
    assert 'z_Camp -> z_Ford [color="#7f7f7f" constraint=false dir=none style=dashed]' in dot
    assert 'z_Ford [label=Ford fillcolor="#ffffff" shape=ellipse' in dot
    assert "(shared, public)" not in dot.split("subgraph cluster_board_valley")[1].split("}")[0]


def test_the_table_picture_has_an_area_per_board(waystones):
    svg = table_svg(waystones.decls, ["Each player"])
    assert "The valley (a board)" in svg and "Base Camp" in svg


def test_the_rulebook_has_a_section_per_board_with_its_places(waystones):
    book = build_book(waystones, examples=False)
    tables = [s for s in book.chapters if s.title == "Reference tables"][0]
    boards = [s for s in tables.sections if s.title.startswith("Board: ")]
    assert [s.title for s in boards] == ["Board: The valley", "Board: The yard", "Board: The hive"]
    places = [b for b in boards[0].blocks if getattr(b, "title", "") == "The places"][0]
    assert places.columns == ["Place", "Linked to", "watched", "tier"]
    assert ["Ford", "Base Camp, Mill, Marsh", "no", "0"] in places.rows
    assert ["Tower", "Mill, Marsh, Peak", "yes", "0"] in places.rows
    assert place_rows(waystones.decls.boards["yard"])[0] == ["y1", "y2, y4"]     # no values: no more columns
    zones = [s for s in tables.sections if s.title == "Zones"][0]
    listed = [row[0] for b in zones.blocks if getattr(b, "kind", "") == "table" and b.title == "Zones"
              for row in b.rows]
    assert "Ford" not in listed and listed


def test_the_rulebook_says_the_board_expressions(waystones):
    from cardsmith.dsl.publish import english as E
    book = build_book(waystones, examples=False)
    text = json.dumps([str(x) for x in _all_lines(book)])
    assert "the places one link away from" in text
    assert "the influence of the player on" in text
    assert E.DESCRIBERS["ShortestPath"] and E.DESCRIBERS["PlacesWithin"]


def _all_lines(book):
    stack = list(book.chapters)
    while stack:
        s = stack.pop()
        stack.extend(s.sections)
        for b in s.blocks:
            lines = list(getattr(b, "lines", None) or [])
            while lines:
                line = lines.pop()
                if hasattr(line, "children"):
                    lines.extend(line.children)
                    yield line.text
                else:
                    yield line
            yield from (getattr(b, "texts", None) or [])


def test_the_ast_nodes_are_expressions(waystones):
    from typing import get_args
    for cls in (A.PlacesAdjacent, A.PlacesWithin, A.PlacesOf, A.DistanceBetween, A.ShortestPath, A.PlaceMark):
        assert cls in get_args(A.Expr)


def test_cardsmith_diagram_draws_a_board(tmp_path):
    from cardsmith.interpreter.cli import main
    out = tmp_path / "hive.dot"
    assert main(["diagram", str(GAMES / "waystones.cards"), "--kind", "board", "--board", "hive", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith("graph board_hive {")
    assert main(["diagram", str(GAMES / "waystones.cards"), "--kind", "board", "--board", "moon",
                 "-o", str(tmp_path / "x.dot")]) != 0


def test_the_language_server_knows_boards_places_fields_and_marks():
    from cardsmith.dsl.lsp import features as F
    from cardsmith.dsl.lsp.index import Project, build
    path = str(GAMES / "waystones.cards")
    text = (GAMES / "waystones.cards").read_text(encoding="utf-8")
    index = build(path, text)
    project = Project(index, {path: index})
    lines = text.split("\n")

    def defined(line_has: str, word: str):
        number = next(i for i, line in enumerate(lines, 1) if line_has in line)
        column = lines[number - 1].index(word) + 1
        return [(s.kind, s.line) for s in F.definitions(project, path, number, column)]
    assert defined("        | Tower | yes", "Tower") == [("zone", 12)]
    assert defined("move p's scout to Camp", "Camp") == [("zone", 12)]
    assert defined("add 1 to the influence", "influence") == [("mark", 19)]
    assert defined("if s's explorer is none", "explorer") == [("place field", 17)]
    assert defined("the places of valley where", "valley") == [("board", 10)]
    assert defined("    links: h1 - h6", "h6") == [("zone", 33)]


def test_card_flows_onto_a_board_end_at_its_cluster(waystones):
    dot = D.dot_source(waystones.decls, "zones")
    assert "z_tiles -> z_Camp [label=setup lhead=cluster_board_valley]" in dot
    # one board: a place chosen from the places adjacent to anything is one of its places
    game = load_text(HEAD + "zone box: shared\nboard m:\n    places: A, B\n    links: A - B\n"
                     "card type T:\n    v: number = 0\ncard \"t\": T in box\n    v = 1\n"
                     "setup:\n    move top card of box to A\n    for each p in players:\n"
                     "        p chooses s from the places adjacent to A\n"
                     "        move cards in A to s\n", "game.cards")
    zd = D.ZoneDiagram(game.decls, numbered=True)
    dot = zd.build().source
    assert "z_A -> z_A [label=2" in dot and "lhead=cluster_board_m" in dot
    assert [(src, dst) for _i, src, dst, _r in zd.flows()] == [("box", "A"), ("A", "board:m")]
    assert D.flow_label(game.decls, "board:m") == "a place of m"


def test_values_give_places_their_own_starting_values(waystones):
    b = waystones.decls.boards["valley"]
    assert b.values == {"Tower": {"watched": True}, "Peak": {"tier": 1}}
    assert (b.start("Tower", "watched"), b.start("Mill", "watched"), b.start("Peak", "tier")) == (True, False, 1)
    assert place_rows(b, str)[4] == ["Tower", "Mill, Marsh, Peak", "True", "0"]


@pytest.mark.parametrize("table, code, line", [
    ("        | where | tier |\n        | A     | 1    |\n", "E0246", 9),
    ("        | place | size |\n        | A     | 1    |\n", "E0246", 9),
    ("        | place | tier |\n        | Q     | 1    |\n", "E0240", 9),
    ("        | place | tier |\n        | A     | 1    |\n        | A     | 2    |\n", "E0246", 10),
    ("        | place | tier |\n        | A     | no   |\n", "E0501", 9),
    ("        | place | tier |\n        | A     | 1    | 2 |\n", "E0246", 9),
])
def test_a_values_table_that_does_not_fit_is_located(table, code, line):
    text = HEAD + "board m:\n    places: A, B\n    place has:\n        tier: number = 0\n    values:\n" + table
    with pytest.raises(CardsmithError) as err:
        load_text(text, "game.cards")
    first = err.value.diagnostics[0]
    assert (first.code, first.span.line) == (code, line)
