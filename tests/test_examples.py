"""Examples of play (dsl/publish/examples.py): moments picked from a seeded game's log by what
happens in it, never by a game's names; narrated from the log; the table replayed from the log
agrees with the engine's own zones."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game, load_text
from cardsmith.dsl.publish import examples as X
from cardsmith.dsl.publish import rulebook as R

ROOT = Path(__file__).resolve().parents[1]
SPACE_WAR = ROOT / "games" / "space_war_in_space.cards"
BATTLEFIELD = ROOT / "games" / "battlefield_space.cards"
SIGNAL_FIRES = ROOT / "tests" / "games" / "signal_fires.cards"
# games that end under random play (the others run to EXAMPLE_STEPS: test_a_game_that_never_ends...)
ENDING = [SPACE_WAR, BATTLEFIELD] + [ROOT / "tests" / "games" / f"{n}.cards" for n in
                                     ("double_shield", "event_soup", "high_card_duel", "relics", "signal_fires")]


@pytest.fixture(scope="module")
def space_war():
    return load_game(str(SPACE_WAR))


@pytest.fixture(scope="module")
def space_war_examples(space_war):
    return X.examples(space_war)


def test_the_tie_is_found_in_the_log_and_named_by_its_step(space_war_examples):
    kinds = {m.kind: m for m in space_war_examples.moments}
    assert set(kinds) == {"typical", "rule", "responses", "end"}
    war = kinds["rule"]
    assert war.title == "A rule at work: “War”"
    headings = [ln["heading"] for ln in war.lines if "heading" in ln]
    assert "Step “War”" in headings
    # the War's face-down cards are told without their names (they are face down)
    assert any(re.fullmatch(r"(A card goes|2 cards go, one at a time,) from Ann's deck to Ann's battlefield, face down\.",
                            ln.get("text", "")) for ln in war.lines), war.lines


def test_a_typical_round_runs_no_rare_rule(space_war_examples, space_war):
    eng, _ = X.play(space_war, space_war_examples.seed, space_war_examples.players)
    chosen = {kind: (a, b, rare) for kind, _, a, b, _, rare in X.pick(eng.log)}
    a, b, rare = chosen["typical"]
    assert not ({ev["rule"] for ev in eng.log[a:b]} & rare)
    a, b, rare = chosen["rule"]
    assert {ev["rule"] for ev in eng.log[a:b]} & rare


def test_the_responses_example_is_the_round_where_most_abilities_trigger(space_war_examples, space_war):
    eng, _ = X.play(space_war, space_war_examples.seed, space_war_examples.players)
    rounds = X._rounds(eng.log)
    triggers = [sum(1 for ev in eng.log[a:b] if ev["event"] in X.RESPONSES) for _, a, b in rounds]
    moment = next(m for m in space_war_examples.moments if m.kind == "responses")
    assert triggers[moment.round - 1] == max(triggers) >= 2
    assert sum("triggers" in ln.get("text", "") for ln in moment.lines) >= 2


@pytest.mark.parametrize("game_file", ENDING, ids=lambda p: p.stem)
def test_the_replayed_table_holds_what_the_engine_holds(game_file):
    """Replaying every move and flip of the log ends with each zone holding the cards the
    engine's own state holds (by name, in order where the order is known: no shuffle)."""
    game = load_game(str(game_file))
    players = X._players(game)
    eng, _ = X.play(game, 1, players)
    table = X.Table(game, players)
    for ev in eng.log:
        table.apply(ev)
    state = eng.state
    for key, cards in state.zones.items():
        want = sorted(game.cards[c].name for c in cards)
        got = sorted(table.names[c] for c in table.zones[key])
        assert got == want, f"{game_file.stem}: zone {key}"


def test_the_examples_are_the_same_every_time(space_war):
    one, two = X.examples(space_war), X.examples(space_war)
    assert [(m.kind, m.round, m.lines, m.table) for m in one.moments] == \
           [(m.kind, m.round, m.lines, m.table) for m in two.moments]


def test_a_game_stopped_before_a_whole_round_leaves_a_note_not_an_error(monkeypatch):
    game = load_game(str(SIGNAL_FIRES))
    monkeypatch.setattr(X, "EXAMPLE_STEPS", 10)
    found = X.examples(game)
    assert found.moments == []
    assert found.note.startswith("the sample game stopped before a whole round was played (E0801: ")
    book = R.render(R.build_book(game), "md")
    assert "This book has no examples of play: the sample game stopped before a whole round" in book


def test_a_game_that_never_ends_still_gives_the_rounds_it_played():
    game = load_game(str(ROOT / "tests" / "games" / "turn_order.cards"))
    with pytest.raises(X.Stopped) as stopped:
        X.play(game, 1, X._players(game))
    assert stopped.value.why.startswith("E0801: ") and stopped.value.log
    found = X.examples(game)
    assert found.moments and "end" not in {m.kind for m in found.moments}


def test_names_from_the_file_are_text_in_the_examples(tmp_path):
    hostile = SIGNAL_FIRES.read_text(encoding="utf-8").replace('"Red Spark"', '"<img src=x onerror=alert(1)>"')
    game = load_text(hostile, str(tmp_path / "hostile.cards"))
    html = R.render(R.build_book(game), "html")
    section = html.split("Examples of play")[2]
    assert "<img src=x" not in section
    assert "&lt;img src=x onerror=alert(1)&gt;" in section


@pytest.mark.parametrize("game_file", [SPACE_WAR, BATTLEFIELD], ids=lambda p: p.stem)
def test_a_step_is_called_rare_only_when_few_rounds_play_it(game_file):
    game = load_game(str(game_file))
    found = X.examples(game)
    eng, _ = X.play(game, found.seed, found.players)
    rounds = X._rounds(eng.log)
    moment = next(m for m in found.moments if m.kind == "rule")
    named = re.findall(r"the steps? ((?:“[^”]+”(?:, | and )?)+), which few", moment.intro)
    playing = {}
    for _, a, b in rounds:
        for name in {ev["name"] for ev in eng.log[a:b] if ev["event"] == "step"}:
            playing[name] = playing.get(name, 0) + 1
    for group in named:
        for step in re.findall(r"“([^”]+)”", group):
            assert playing[step] <= max(1, X.RARE * len(rounds)), f"{step} is played in {playing[step]} rounds"
    if game_file == BATTLEFIELD:        # every step is played every round there: the rare rule is told instead
        assert not named and "it runs a rule few rounds need" in moment.intro
    else:
        assert named == ["“War”"]
