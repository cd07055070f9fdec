"""`cardsmith compare BASE VARIANT`: the same seeds, every metric side by side with its test, and
what the variant changes in English (docs/simulate.md, "Comparing a variant")."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter import cli
from cardsmith.interpreter.report import COMPARE_SCHEMA, compare, compare_reports, variant_changes
from cardsmith.interpreter.simulate import simulate
from cardsmith.interpreter.stats import moments, two_proportion_test, welch_test

GAMES = Path(__file__).parent / "games"
BASE = str(GAMES / "designer_report.cards")
VARIANT = str(GAMES / "designer_report_variant.cards")


# ---------------------------------------------------------------- the tests of significance


@pytest.mark.parametrize("a, b, p", [
    # reference p-values from scipy.stats.ttest_ind(a, b, equal_var=False)
    ([1, 2, 3, 4, 5], [2, 4, 6, 8, 10], 0.10753119493062728),
    ([19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0],
     [28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7, 23.2, 17.5, 20.6, 18.0, 23.9, 21.6, 24.3,
      20.4, 23.9, 13.3], 0.035484530830010394),
])
def test_welch_matches_reference_values(a, b, p):
    assert welch_test(moments(a), moments(b)) == pytest.approx(p, rel=1e-9)
    assert welch_test(moments(b), moments(a)) == pytest.approx(p, rel=1e-9)


def test_welch_edge_cases():
    same = moments([3, 3, 3])
    assert welch_test(same, moments([3, 3])) == 1.0
    assert welch_test(same, moments([4, 4])) == 0.0
    assert welch_test(moments([1]), moments([1, 2, 3])) is None       # one value: no spread known


@pytest.mark.parametrize("k1, n1, k2, n2", [(60, 100, 40, 100), (5, 50, 15, 60), (300, 1000, 330, 1000)])
def test_two_proportion_test_is_the_pooled_z_test(k1, n1, k2, n2):
    pooled = (k1 + k2) / (n1 + n2)
    z = abs(k1 / n1 - k2 / n2) / math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    assert two_proportion_test(k1, n1, k2, n2) == pytest.approx(math.erfc(z / math.sqrt(2)), rel=1e-12)


def test_two_proportion_reference_and_edges():
    assert two_proportion_test(60, 100, 40, 100) == pytest.approx(0.004677734981047, rel=1e-9)
    assert two_proportion_test(0, 10, 0, 20) == 1.0
    assert two_proportion_test(3, 0, 1, 4) is None


# ---------------------------------------------------------------- reports side by side


@pytest.fixture(scope="module")
def comparison():
    return compare(BASE, VARIANT, 200, 2, 2, 1)


def test_both_run_on_the_same_seeds(comparison):
    base, variant = comparison["base"], comparison["variant"]
    assert base["seed"] == variant["seed"] == 1 and base["games"] == variant["games"] == 200
    assert base["title"] == "Designer Report" and variant["title"] == "Designer Report: Two Draws"
    assert comparison["schema"] == COMPARE_SCHEMA


def test_every_metric_is_side_by_side(comparison):
    rows = {r["metric"]: r for r in comparison["rows"]}
    for metric in ("Player 1 win rate", "Player 2 score", "Player 1 return", "draws", "rounds per game",
                   "real decisions per game", "forced decisions per game", "Big plays per game",
                   "Cards kept in hand per player", "Side sun win rate", "Crown: played, win rate",
                   "Pebble: drew, win rate"):
        assert metric in rows, metric
    kept = rows["Cards kept in hand per player"]           # 2 cards stay in hand, 4 in the variant
    assert (kept["base"], kept["variant"], kept["difference"]) == (2.0, 4.0, 2.0)
    assert kept["significant"] and kept["p_value"] == 0.0 and kept["test"] == "Welch t"
    rounds = rows["rounds per game"]                        # four rounds in both
    assert rounds["difference"] == 0 and rounds["p_value"] == 1.0 and not rounds["significant"]
    win = rows["Player 1 win rate"]
    base_seat = comparison["base"]["seats"][0]
    assert win["base"] == base_seat["win_rate"] and win["test"] == "two-proportion z"
    assert win["p_value"] == two_proportion_test(base_seat["wins"], comparison["base"]["finished"],
                                                 comparison["variant"]["seats"][0]["wins"],
                                                 comparison["variant"]["finished"])
    assert comparison["significant"] == [r["metric"] for r in comparison["rows"] if r["significant"]]


def test_a_report_against_itself_differs_in_nothing():
    report = simulate(BASE, 40, 2, 1, 3, progress=False)
    same = compare_reports(report, report)
    assert same["rows"] and not same["significant"]
    assert all(r["difference"] in (0, None) for r in same["rows"])
    assert all(r["p_value"] in (1.0, None) for r in same["rows"])


def test_the_variant_changes_are_said_in_english(comparison):
    changes = comparison["changes"]
    assert changes[0] == "Its title is “Designer Report: Two Draws”."
    assert changes[1] == "It adds a definition: A player's table size is the number of cards in their table."
    assert changes[2] == ("It adds the measure “Cards on the table”: for each player, the player's table size "
                          "when the game ends.")
    assert changes[3].startswith("The round “Play” is replaced: For each player, in seat order:")
    assert "Move the top 2 cards of the stack to their hand." in changes[3]
    assert len(changes) == 4                # the scenario changes no rule: it is not said
    assert comparison["only_in_variant"]["measures"] == ["Cards on the table"]


def test_an_overridden_end_check_and_an_added_one():
    changes = variant_changes(load_game(str(GAMES / "bid_row.cards")), load_game(str(GAMES / "bid_row_quick.cards")))
    assert changes[0].startswith("An end check is replaced: as soon as ")
    # the new threshold is the variant's own define (bid_row_quick.cards): said by name, and its value
    assert "(“Twenty points”)" in changes[0] and "at least the quick target" in changes[0]
    assert "It adds a definition: The quick target is 8." in changes
    assert any(c.startswith("It adds an end check: as soon as the rounds played is at least 3") for c in changes)


def test_a_file_that_does_not_extend_the_base_is_another_game():
    changes = variant_changes(load_game(BASE), load_game(str(GAMES / "shared_victory.cards")))
    assert changes == ["The variant does not extend designer_report.cards: it is another game, compared as it is."]


def test_the_command(capsys, monkeypatch):
    monkeypatch.setattr(cli, "_is_terminal", lambda stream: False)
    assert cli.main(["compare", BASE, VARIANT, "-n", "30", "--jobs", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "cardsmith.compare/1"
    assert data["base"]["schema"] == data["variant"]["schema"] == "cardsmith.simulate/1"
    assert data["changes"][3].startswith("The round “Play” is replaced")
    assert cli.main(["compare", BASE, VARIANT, "-n", "30", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    for words in ("What the variant changes", "The round “Play” is replaced", "Cards kept in hand per player",
                  "significant", "Welch t", "two-proportion z"):
        assert words in out, words


def test_a_player_count_one_of_them_does_not_allow_is_refused_before_any_game(tmp_path, monkeypatch):
    from cardsmith.interpreter.play import PlayerCountError

    (tmp_path / "base.cards").write_text(Path(BASE).read_text())
    (tmp_path / "three.cards").write_text('extends "base.cards"\n\ngame "Three":\n    players: 3 to 4\n'
                                          '    summary: "Only for three or four."\n')
    played = []
    monkeypatch.setattr("cardsmith.interpreter.simulate.simulate", lambda *a, **k: played.append(a))
    with pytest.raises(PlayerCountError, match="Three is for 3 to 4 players, not 2"):
        compare(str(tmp_path / "base.cards"), str(tmp_path / "three.cards"), 5, 2, 1, 1)
    assert played == []
