"""Issue 14, items 3 and 5: dice pools whose dice keep their identity (`roll ... as pool`,
`roll ... into`, `reroll`, `turn`, `remove`, a cap on the dice rolled that later dice
may pass) and a limited supply given out one at a time around the table into a capped number
(`give out`). The test game is tests/games/dice_pools.cards with its scenarios, run here; the
tests below look at what scenarios cannot: the options a player is offered, the log, determinism,
save and restore at a choice of a die, random games that keep every number within its bounds,
the checker's errors and the rulebook's English."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import load_game, load_text
from cardsmith.dsl.publish import english as E
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.scenario import run_scenario

GAMES = Path(__file__).resolve().parent / "games"
HEAD = 'game "G":\n    players: 2 to 3\n'
DICE = "die W: [], [hit], [hit, hit]\ndie B: [crit], [hit]\n"


@pytest.fixture(scope="module")
def pools():
    return load_game(str(GAMES / "dice_pools.cards"))


def _scenarios():
    path = GAMES / "dice_pools.scenarios.cards"
    for s in load_game(str(path)).decls.scenarios:
        yield pytest.param(path, s.name, id=s.name)


@pytest.mark.parametrize("path, name", list(_scenarios()))
def test_scenarios_of_the_test_game(path, name):
    result = run_scenario(load_game(str(path)), name)
    assert result.ok, "\n".join(result.failures)


def _play(text: str, players: int = 2, seed: int = 0) -> Engine:
    return run_game(load_text(text, "g.cards"), players, seed=seed)


def _texts(eng: Engine) -> list[str]:
    return [ev["text"] for ev in eng.log]


# ------------------------------------------------------------------ pools at run time

def test_the_cap_takes_the_dice_past_it_from_the_last_kinds_and_the_log_says_so():
    eng = _play(HEAD + DICE + "setup:\n    roll 2 W dice and 3 B dice as pool p, at most 4\n"
                "    say \"kinds\", die of p\n")
    said = _texts(eng)
    rolled = next(t for t in said if t.startswith("a pool of"))
    assert rolled.startswith("a pool of 4 dice is rolled (at most 4 of 5): W die 1 (")
    assert "B die 4 (" in rolled and "die 5" not in rolled
    assert "kinds W, W, B and B" in said      # `say` writes a list in words


def test_dice_rolled_into_a_pool_are_numbered_on_and_may_pass_the_cap():
    eng = _play(HEAD + DICE + "setup:\n    roll 3 W dice as pool p, at most 2\n    roll 2 B dice into p\n"
                "    remove first(p) from p\n    roll 1 W dice into p\n    say \"n\", count(p)\n")
    said = _texts(eng)
    assert any(t.startswith("2 B dice are rolled into the pool: B die 3 (") for t in said), said
    # die 1 was taken out: the next die is 5, never a number a die had
    assert any(t.startswith("1 W die is rolled into the pool: W die 5 (") for t in said), said
    assert "n 4" in said


def test_a_second_reroll_of_a_die_leaves_it_and_the_log_says_why():
    eng = _play(HEAD + DICE + "setup:\n    roll 1 W dice as pool p\n    let d be first(p)\n"
                "    reroll d in p\n    reroll d in p\n")
    said = _texts(eng)
    assert sum(1 for t in said if "is re-rolled:" in t) == 1
    assert any(t.endswith(", re-rolled) was re-rolled before and stays") for t in said), said


def test_the_same_seed_rolls_the_same_dice_and_another_seed_may_not(pools):
    logs = [json.dumps(run_game(pools, 3, seed=s).log) for s in (11, 11, 12)]
    assert logs[0] == logs[1]
    assert logs[0] != logs[2]


def test_a_player_chooses_a_die_by_its_label_and_save_restore_keeps_the_pool(pools):
    eng = Engine(pools, 2, seed=3)
    assert eng.pending.options == ["yes", "no"]          # "Re-roll a die" for seat 1
    eng.decide(0)
    options = eng.pending.options
    assert options and all(" die " in o and o.endswith(")") for o in options), options
    assert any(o.startswith("White die 1 (") for o in options)
    saved = json.loads(json.dumps(eng.save()))
    other = Engine.restore(pools, saved)
    assert other.pending == eng.pending
    for _ in range(200):
        if eng.finished:
            break
        k = len(eng.pending.options) - 1
        eng.decide(k)
        other.decide(k)
    assert eng.finished and other.finished
    assert eng.log[-30:] == other.log[-30:]
    assert eng.state.to_dict() == other.state.to_dict()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_end_and_keep_minerals_and_the_supply_within_their_bounds(pools, players):
    seen = []

    def observe(eng):
        st = eng.state
        seen.append(st.game["mineral_supply"])
        for p in st.players:
            assert 0 <= p["minerals"] <= 5, p
        assert st.game["mineral_supply"] >= 0

    for seed in range(25):
        eng = run_game(pools, players, seed=seed, log=False, observe=observe)
        assert eng.finished and eng.result["reason"] != "aborted", eng.result
    assert seen and min(seen) == 0          # the supply did run short in some games


def test_a_die_no_longer_in_the_pool_stops_the_game_at_the_rule():
    text = HEAD + DICE + "setup:\n    roll 2 W dice as pool p\n    let d be first(p)\n    remove d from p\n    reroll d in p\n"
    with pytest.raises(CardsmithError) as err:
        _play(text)
    d = err.value.diagnostics[0]
    assert (d.code, d.span.line) == ("E0840", 9)
    assert "is not a die of this pool" in d.message


def test_a_face_only_another_die_has_stops_the_game():
    text = HEAD + DICE + "setup:\n    roll 1 W dice as pool p\n    turn first(p) in p to [crit]\n"
    with pytest.raises(CardsmithError) as err:
        _play(text)
    d = err.value.diagnostics[0]
    assert d.code == "E0840" and "has no face crit" in d.message and "the faces of W are" in d.hint


# ------------------------------------------------------------------ the supply

def test_a_supply_runs_out_one_at_a_time_from_the_player_named():
    text = (HEAD + "player has:\n    gold: number = 0, at most 9\ngame has:\n    bank: number = 5\n"
            "setup:\n    give out 3 gold from bank to each player starting with seat 3\n")
    eng = _play(text, players=3)
    st = eng.state
    assert [p["gold"] for p in st.players] == [2, 1, 2]     # seat 3, 1, 2, 3, 1: then empty
    assert st.game["bank"] == 0
    assert any(t.endswith("Player 3 2 of 3, Player 1 2 of 3, Player 2 1 of 3; 0 left") for t in _texts(eng))


# ------------------------------------------------------------------ the checker

@pytest.mark.parametrize("body, code, line, hint", [
    ("    let p be 3\n    roll 1 W dice into p\n", "E0460", 7, "roll the pool first"),
    ("    roll 1 W dice as pool attack\n    reroll first(attack) in atack\n", "E0460", 7, "did you mean 'attack'?"),
    ("    roll 1 W dice as pool p\n    remove 3 from p\n", "E0461", 7, "you chooses d from attack"),
    ("    roll 1 W dice as pool p\n    turn first(p) in p to [hits]\n", "E0462", 7, "did you mean '[hit]'?"),
    ("    roll 1 W dice as pool p\n    say \"x\", first(p).colour\n", "E0402", 7, "face"),
    ("    roll 1 Q dice as pool p\n", "E0212", 6, "declare it first"),
])
def test_the_checker_points_at_the_line_with_a_hint(body, code, line, hint):
    with pytest.raises(CardsmithError) as err:
        load_text(HEAD + DICE + "setup:\n" + body, "g.cards")
    d = err.value.diagnostics[0]
    assert (d.code, d.span.line) == (code, line), d
    assert hint in (d.hint or ""), d.hint


def test_a_supply_that_is_not_a_number_of_the_game_is_refused():
    text = (HEAD + "player has:\n    gold: number = 0\ngame has:\n    bank: flag = no\n"
            "setup:\n    give out 3 gold from bank to each player starting with seat 1\n")
    with pytest.raises(CardsmithError) as err:
        load_text(text, "g.cards")
    d = err.value.diagnostics[0]
    assert (d.code, d.span.line) == ("E0463", 8) and "cannot be a supply" in d.message


# ------------------------------------------------------------------ the rulebook

def _said(game, stmt) -> str:
    ctx = E.make_ctx(game.decls)
    return E.plain(E.flatten(E.describe(stmt, ctx)))


def _walk(block):
    for st in block:
        yield st
        for name in ("body", "else_body"):
            inner = getattr(st, name, None)
            if isinstance(inner, tuple):
                yield from _walk(inner)
        for _, body in getattr(st, "branches", ()):
            yield from _walk(body)


def test_the_rulebook_says_the_cap_the_re_roll_once_and_the_supply(pools):
    rnd = pools.decls.rounds[0]
    stmts = list(_walk(rnd.body))
    by = {type(s).__name__: s for s in stmts}
    pool = _said(pools, by["RollPoolStmt"])
    assert pool.startswith("Roll ") and "as one pool, attack, but no more than 10 dice in all" in pool
    assert "dice added later may go past it" in pool
    assert "even past the most it was rolled with" in _said(pools, by["RollIntoStmt"])
    assert "re-rolled once at most" in _said(pools, by["RerollStmt"])
    assert _said(pools, by["TurnDieStmt"]).endswith("to its face Hit.")
    give = _said(pools, by["HandOutStmt"])
    assert give.startswith("Give out ") and "one at a time" in give and "runs out" in give


# ------------------------------------------------------------------ discarding down past a cap

@pytest.fixture(scope="module")
def cargo():
    return load_game(str(GAMES / "cargo_hold.cards"))


def _cargo_scenarios():
    path = GAMES / "cargo_hold.scenarios.cards"
    for s in load_game(str(path)).decls.scenarios:
        yield pytest.param(path, s.name, id=s.name)


@pytest.mark.parametrize("path, name", list(_cargo_scenarios()))
def test_scenarios_of_the_discard_down_game(path, name):
    result = run_scenario(load_game(str(path)), name)
    assert result.ok, "\n".join(result.failures)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_keep_every_hold_within_its_cap_but_while_its_owner_discards(cargo, players):
    asked = []

    def observe(eng):
        st = eng.state
        pending = eng.pending
        discarding = pending is not None and pending.prompt == "Discard down to 4"
        asked.append(discarding)
        for seat in range(players):
            held = len(st.zones[f"hold:{seat}"])
            if eng.finished:        # the move that emptied the supply ended the game at once
                continue
            if discarding and pending.player == seat:
                assert held > 4
                assert set(pending.options) == {"Pyerite", "Tritanium"} or len(set(pending.options)) == 1
            else:
                assert held <= 4, (seat, held)

    for seed in range(15):
        eng = run_game(cargo, players, seed=seed, log=False, observe=observe)
        assert eng.finished and eng.result["reason"] != "aborted", eng.result
    assert any(asked)


def test_save_and_restore_while_discarding_down(cargo):
    eng = Engine(cargo, 2, seed=1)
    for _ in range(100):
        if eng.pending.prompt == "Discard down to 4":
            break
        eng.decide(0)
    assert eng.pending.prompt == "Discard down to 4"
    other = Engine.restore(cargo, json.loads(eng.save_json()))
    assert other.pending == eng.pending
    for _ in range(300):
        if eng.finished:
            break
        eng.decide(0)
        other.decide(0)
    assert eng.finished
    assert eng.state.to_dict() == other.state.to_dict()


def test_a_zone_without_a_cap_or_an_owner_cannot_discard_down_and_the_zone_must_exist():
    base = HEAD + "zone slag: shared\n"
    with pytest.raises(CardsmithError) as err:
        load_text(base + "zone hold: per player, discard down into slag\n", "g.cards")
    d = err.value.diagnostics[0]
    assert (d.code, d.span.line) == ("E0130", 4) and "not capped" in d.message
    with pytest.raises(CardsmithError) as err:
        load_text(base + "zone hold: per player, at most 3, discard down into slug\n", "g.cards")
    d = err.value.diagnostics[0]
    assert (d.code, d.span.line) == ("E0131", 4) and d.hint == "did you mean 'slag'?"


def test_a_capped_zone_without_discarding_still_refuses_a_move_past_it():
    text = (HEAD + "zone box: shared\nzone hold: per player, at most 1\ncard type T:\n    v: number = 0\n"
            "cards T in box:\n    | name | copies |\n    | \"A\"  | 3      |\nsetup:\n    move top 2 cards of box to seat 1's hold\n")
    with pytest.raises(CardsmithError) as err:
        _play(text)
    assert err.value.diagnostics[0].code == "E0802"


def test_the_rulebook_says_who_discards_and_where(cargo):
    from cardsmith.dsl.publish.rulebook import build_book, render
    text = render(build_book(cargo, diagrams={}, examples=False), "md")
    assert "at most 4 (past 4, its owner chooses cards to put into" in text


def test_cards_are_given_out_only_into_a_zone_of_each_player():
    base = HEAD + "zone box: shared\nzone pile: shared\nzone hand: per player\nsetup:\n"
    for line, code in (("give out 2 cards from box to each player's pile starting with seat 1", "E0205"),
                       ("give out 2 cards from box to each player's hnad starting with seat 1", "E0207"),
                       ("give out 2 cards from seat 1 to each player's hand starting with seat 1", "E0403")):
        with pytest.raises(CardsmithError) as err:
            load_text(base + "    " + line + "\n", "g.cards")
        d = err.value.diagnostics[0]
        assert (d.code, d.span.line) == (code, 7), (line, d)


def test_the_rulebook_says_cards_are_given_out_one_at_a_time(cargo):
    said = _said(cargo, cargo.decls.setup.body[2])
    assert said.startswith("Give out 2 cards from the supply into each player's hold, face up, one at a time")
    assert "until everyone has had their cards or the supply is empty" in said


def test_a_cap_that_is_none_stops_the_game_rather_than_rolling_every_die():
    text = HEAD + DICE + "game has:\n    most: number\nsetup:\n    set most to none\n    roll 3 W dice as pool p, at most most\n"
    with pytest.raises(CardsmithError) as err:
        _play(text)
    d = err.value.diagnostics[0]
    assert (d.code, d.span.line) == ("E0802", 9) and "needs a number" in d.message


def test_the_editor_knows_the_names_a_pool_and_give_out_give():
    from cardsmith.dsl.lsp.index import build
    text = (HEAD + DICE + "player has:\n    gold: number = 0\ngame has:\n    bank: number = 9\nsetup:\n"
            "    roll 2 W dice as pool attack\n"
            "    give out q's gold + 1 gold from bank to each player q starting with seat 1\n")
    load_text(text, "g.cards")         # a real statement, checked clean
    names = set().union(*(seg.locals for seg in build("g.cards", text).segments))
    assert {"attack", "q"} <= names


@pytest.mark.parametrize("supply, want, start, expected, left", [
    (10, 5, 2, [3, 4, 3], 0),                   # seat 2, 3, 1, 2, 3, 1, 2, 3, 1, 2
    (1_000_000_000, 300_000_000, 1, [300_000_000] * 3, 100_000_000),     # whole rounds at once
    (7, 3, 3, [2, 2, 3], 0),
])
def test_a_supply_given_out_matches_one_at_a_time_and_a_large_one_takes_no_time(supply, want, start, expected, left):
    text = (HEAD + f"player has:\n    gold: number = 0\ngame has:\n    bank: number = {supply}\n"
            f"setup:\n    give out {want} gold from bank to each player starting with seat {start}\n")
    st = _play(text, players=3).state
    assert [p["gold"] for p in st.players] == expected
    assert st.game["bank"] == left
