"""`player toward a player has:` (docs/language.md, "Attributes toward each other player"): an
attribute each player keeps apart for each other player, read and changed as `the intel of p on
q`; targeting a player raises `targeted` (with `target` the player); and a response window that
opens after `action_used` alone waits below the `targeted` triggers of the same use.
tests/games/spy_network.cards plays all three."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import load_game, load_text
from cardsmith.dsl.publish.rulebook import build_book, render
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.scenario import run_scenarios

GAMES = Path(__file__).resolve().parent / "games"
HEAD = 'game "T":\n    players: 2 to 3\n'


@pytest.fixture(scope="module")
def spies():
    return load_game(str(GAMES / "spy_network.cards"))


def test_the_scenarios_of_spy_network_pass():
    results = run_scenarios(load_game(str(GAMES / "spy_network.scenarios.cards")))
    assert len(results) == 6
    assert [(r.name, r.failures) for r in results if not r.ok] == []


def test_the_declaration_is_kept_apart_from_player_attributes(spies):
    d = spies.decls
    assert list(d.toward_fields) == ["intel"]
    assert "intel" not in d.player_fields
    assert d.toward_defaults == {"intel": 0}
    f = d.toward_fields["intel"]
    assert (f.at_least, f.at_most) == (0, 5)


def test_a_view_shows_each_players_intel_on_each_other_player(spies):
    eng = Engine(spies, 3, seed=1)
    players = eng.view(0)["players"]
    assert [sorted(k for k in p if k.startswith("intel.")) for p in players] == [
        ["intel.2", "intel.3"], ["intel.1", "intel.3"], ["intel.1", "intel.2"]]
    assert players[0]["intel.2"] == 0


@pytest.mark.parametrize("expr, code", [
    ("the intel of seat 1 on 3", "E0408"),       # toward a player, not a number
    ("the intel of 3 on seat 2", "E0408"),
    ("the intell of seat 1 on seat 2", "E0245"),  # no such attribute: the closest is suggested
])
def test_bad_reads_are_located(expr, code):
    text = (HEAD + "player toward a player has:\n    intel: number = 0, at least 0\n"
            f"setup:\n    let x be {expr}\n")
    with pytest.raises(CardsmithError) as err:
        load_text(text, "game.cards")
    first = err.value.diagnostics[0]
    assert (first.code, first.span.line) == (code, 6)
    assert first.hint
    if code == "E0245":
        assert "intel" in first.hint


def test_an_attribute_declared_twice_is_an_error():
    text = HEAD + "player toward a player has:\n    intel: number = 0\n    intel: number = 1\n"
    with pytest.raises(CardsmithError) as err:
        load_text(text, "game.cards")
    assert err.value.diagnostics[0].code == "E0102"
    assert err.value.diagnostics[0].span.line == 5


def test_random_games_end_the_same_way_fused_or_not_and_intel_stays_within_bounds(spies, monkeypatch):
    logs = []
    for seed in range(6):
        eng = run_game(spies, 3, seed=seed)
        st = eng.m.st
        assert st.result is not None
        values = [v for p in st.players for k, v in p.items() if k.startswith("intel.")]
        assert all(0 <= v <= 5 for v in values)
        logs.append(json.dumps(eng.log, sort_keys=True))
    assert any('"targeted"' in log for log in logs)
    monkeypatch.setattr(Machine, "fused", False)
    assert [json.dumps(run_game(spies, 3, seed=seed).log, sort_keys=True) for seed in range(6)] == logs


def test_the_rulebook_lists_the_attribute_and_says_the_targeting_of_a_player(spies):
    text = render(build_book(spies, examples=False), "md")
    assert "What each player has toward each other player" in text
    assert "Add 1 to your Intel on" in text
    assert "When you become the target of an action" in text
    assert "Each card or player chosen becomes the target" in text


def test_an_attribute_toward_players_that_resets_is_located_with_a_fix():
    text = HEAD + "player toward a player has:\n    intel: number = 0, reset each turn\n"
    with pytest.raises(CardsmithError) as err:
        load_text(text, "game.cards")
    first = err.value.diagnostics[0]
    assert (first.code, first.span.line) == ("E0113", 4)
    assert "player has:" in first.hint


def test_a_name_both_toward_players_and_a_board_mark_is_an_error():
    text = (HEAD + "player toward a player has:\n    fame: number = 0\n"
            "board m:\n    places: A, B\n    player on a place has:\n        fame: number = 0\n")
    with pytest.raises(CardsmithError) as err:
        load_text(text, "game.cards")
    first = err.value.diagnostics[0]
    assert (first.code, first.span.line) == ("E0102", 4)


def test_the_language_server_lists_the_attributes_toward_players():
    from cardsmith.dsl.lsp.index import build
    path = GAMES / "spy_network.cards"
    idx = build(str(path), path.read_text(encoding="utf-8"))
    toward = [s for s in idx.symbols if s.name == "player toward a player has"]
    assert [(c.name, c.kind) for c in toward[0].children] == [("intel", "attribute toward each other player")]


def test_go_to_definition_finds_the_attribute_toward_players():
    from cardsmith.dsl.lsp.features import definitions
    from cardsmith.dsl.lsp.index import Project, build
    path = str(GAMES / "spy_network.cards")
    text = (GAMES / "spy_network.cards").read_text(encoding="utf-8")
    idx = build(path, text)
    lines = text.split("\n")
    use = next(i for i, ln in enumerate(lines) if "add 1 to the intel of you on o" in ln)
    found = definitions(Project(idx, {path: idx}), path, use + 1, lines[use].index("intel") + 1)
    declared = next(i for i, ln in enumerate(lines) if ln.strip().startswith("intel "))
    assert [(s.name, s.line) for s in found] == [("intel", declared + 1)]
