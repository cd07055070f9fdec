"""The statement and choice rows of issue 10, end to end: "this turn" memory (`, reset each
turn` / `, reset each round` on attributes) and a choice mixing cards and other options
(`chooses one`). Each has a test game in tests/games/ with scenarios, run here; the tests below
look at what scenarios cannot: which options a player is offered, the log, save and restore
at such a decision, the checker's errors and the rulebook's English."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import load_game, load_text
from cardsmith.dsl.publish import english as E
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.scenario import run_scenario

GAMES = Path(__file__).resolve().parent / "games"
MINE = ("once_per_turn", "mixed_choice", "fleet_split", "shared_victory", "private_look")


def _scenarios():
    for stem in MINE:
        path = GAMES / f"{stem}.scenarios.cards"
        for s in load_game(str(path)).decls.scenarios:
            yield pytest.param(path, s.name, id=f"{stem}: {s.name}")


@pytest.mark.parametrize("path, name", list(_scenarios()))
def test_scenarios_of_the_test_games(path, name):
    result = run_scenario(load_game(str(path)), name)
    assert result.ok, "\n".join(result.failures)


def _answer(eng: Engine, label: str) -> None:
    options = eng.pending.options
    assert label in options, f"{label!r} is not offered: {options}"
    eng.decide(options.index(label))


# ------------------------------------------------------------------ "this turn" memory

@pytest.fixture(scope="module")
def once():
    return load_game(str(GAMES / "once_per_turn.cards"))


def test_a_power_used_this_turn_takes_the_other_power_away_until_the_next_turn(once):
    eng = Engine(once, 2, seed=0)
    assert eng.pending.player == 0
    assert {"Boost: Boost", "Surge: Surge"} <= set(eng.pending.options)
    _answer(eng, "Boost: Boost")
    # the two actions share one attribute: the other power is gone for this turn
    assert "Surge: Surge" not in eng.pending.options
    assert eng.state.players[0]["power_used"] is True
    _answer(eng, "pass")
    assert eng.pending.player == 1          # seat 2's turn: every player's memory was reset
    assert eng.state.players[0]["power_used"] is False
    assert "Surge: Surge" in eng.pending.options
    _answer(eng, "pass")
    assert eng.pending.player == 0
    assert "Surge: Surge" in eng.pending.options


def test_a_card_attribute_goes_back_to_the_cards_own_value_and_the_log_says_so(once):
    eng = Engine(once, 2, seed=0)
    _answer(eng, "Knight: Attack")
    assert "Knight: Attack" not in eng.pending.options      # once a turn
    assert "Scout: Attack" in eng.pending.options
    knight = next(c for c in eng.state.zones["table:0"] if eng.state.cards[c]["name"] == "Knight")
    assert eng.state.cards[knight]["attacked"] is True
    _answer(eng, "pass")
    assert eng.state.cards[knight]["attacked"] is False
    resets = [e for e in eng.log if e["event"] == "reset"]
    assert [e["text"] for e in resets] == ["a new turn: Knight's attacked reset"]
    assert resets[0]["period"] == "turn" and resets[0]["rule"].startswith("once_per_turn.cards:")


def test_a_round_attribute_is_reset_as_the_next_round_begins_not_by_turns(once):
    eng = Engine(once, 2, seed=0)
    _answer(eng, "Knight: Attack")
    _answer(eng, "pass")
    assert eng.state.game["attacks"] == 1           # seat 2's turn began: a round attribute stays
    _answer(eng, "Scout: Attack")
    _answer(eng, "pass")
    assert eng.state.round == 2 and eng.state.game["attacks"] == 0


def test_nothing_is_logged_when_no_value_changes(once):
    eng = Engine(once, 2, seed=0)
    _answer(eng, "pass")
    _answer(eng, "pass")
    assert not [e for e in eng.log if e["event"] == "reset"]


def test_the_rulebook_says_when_an_attribute_is_reset(once):
    ctx = E.make_ctx(once.decls)
    said = E.describe_field(once.decls.player_fields["power_used"], ctx)
    assert said == "yes or no; starts at no; back to where it started as each turn begins"
    assert E.describe_field(once.decls.game_fields["attacks"], ctx).endswith("as each round begins")


def test_reset_each_is_only_turn_or_round():
    with pytest.raises(CardsmithError) as err:
        load_text('game "G":\n    players: 2 to 2\n\nplayer has:\n    x: number = 0, reset each step\n', "g.cards")
    d = err.value.diagnostics[0]
    assert d.span.line == 5 and "turn" in (d.message + (d.hint or ""))


# ------------------------------------------------------------------ `chooses one`

@pytest.fixture(scope="module")
def mixed():
    return load_game(str(GAMES / "mixed_choice.cards"))


def test_one_decision_offers_cards_under_each_label_and_the_other_options(mixed):
    eng = Engine(mixed, 2, seed=0)
    assert eng.pending.prompt == "Your move"
    assert eng.pending.options == ["Play: Ruby", "Discard: Ruby", "Draw a card", "Pass"]
    _answer(eng, "Draw a card")
    # seat 2; then seat 1 again with a Pebble drawn: a Pebble (value 1) cannot be discarded
    _answer(eng, "Pass")
    assert sorted(eng.pending.options) == sorted(["Play: Ruby", "Play: Pebble", "Discard: Ruby", "Draw a card",
                                                  "Pass"])


def test_an_option_whose_condition_fails_is_not_offered(mixed):
    eng = Engine(mixed, 2, seed=0)
    for _ in range(4):
        _answer(eng, "Draw a card")
        _answer(eng, "Pass")
    assert eng.state.zones["deck:0"] == []
    assert "Draw a card" not in eng.pending.options
    assert "Pass" in eng.pending.options


def test_the_chosen_card_is_hidden_in_the_log_of_who_may_not_see_it(mixed):
    eng = Engine(mixed, 2, seed=0)
    _answer(eng, "Discard: Ruby")
    mine = [e["text"] for e in eng.log_seen_by(0) if e["event"] == "choice"]
    theirs = [e["text"] for e in eng.log_seen_by(1) if e["event"] == "choice"]
    assert mine == ["Player 1 chooses Discard: Ruby (Your move)"]
    assert theirs == ["Player 1 chooses Discard: a card (Your move)"]
    # seat 2 is asked now: only seat 2's view shows the decision
    assert eng.pending.player == 1
    assert eng.view(0)["decision"] is None
    assert eng.view(1)["decision"]["options"] == ["Play: Ruby", "Discard: Ruby", "Draw a card", "Pass"]


def test_save_and_restore_at_a_mixed_choice_play_on_the_same(mixed):
    eng = Engine(mixed, 2, seed=5)
    _answer(eng, "Draw a card")
    saved = json.loads(json.dumps(eng.save()))
    other = Engine.restore(mixed, saved)
    assert other.pending == eng.pending
    for _ in range(40):
        if eng.finished:
            break
        k = len(eng.pending.options) - 1
        eng.decide(k)
        other.decide(k)
    assert eng.log[len(eng.log) - 20:] == other.log[len(other.log) - 20:]
    assert eng.state.to_dict() == other.state.to_dict()


def test_two_options_that_read_the_same_are_refused_where_the_second_is():
    text = '''game "G":
    players: 2 to 2

zone hand: per player, unordered, owner only

round "R":
    for each p in players:
        p chooses one:
            c from cards in p's hand:
                stop
            d from cards in p's hand:
                stop
            "Pass":
                stop
            "Pass":
                stop
'''
    with pytest.raises(CardsmithError) as err:
        load_text(text, "g.cards")
    found = [(d.code, d.span.line, d.span.column) for d in err.value.diagnostics]
    assert found == [("E0430", 11, 13), ("E0430", 15, 13)]
    d = err.value.diagnostics[0]
    assert "line 9" in d.message and "label" in d.hint


def test_an_element_option_needs_a_collection():
    text = '''game "G":
    players: 2 to 2

player has:
    score: number = 0

round "R":
    for each p in players:
        p chooses one:
            "Take" n from p's score:
                stop
'''
    with pytest.raises(CardsmithError) as err:
        load_text(text, "g.cards")
    d = err.value.diagnostics[0]
    assert (d.code, d.span.line) == ("E0404", 10)


def test_the_name_of_an_element_option_is_known_in_its_block_only():
    text = '''game "G":
    players: 2 to 2

player has:
    score: number = 0

zone hand: per player, unordered, owner only

round "R":
    for each p in players:
        p chooses one:
            "Play" c from cards in p's hand:
                stop
        move c to p's hand
'''
    with pytest.raises(CardsmithError) as err:
        load_text(text, "g.cards")
    assert err.value.diagnostics[0].span.line == 14


def test_the_rulebook_reads_each_option_with_its_block(mixed):
    ctx = E.make_ctx(mixed.decls)
    rnd = mixed.decls.rounds[0]
    turn = rnd.body[0].body[0]
    lines = E.describe(turn.body[0], ctx.child())
    assert lines[0].text.endswith("chooses one of these options (“Your move”):")
    heads = [c.text for c in lines[0].children]
    assert heads[0].startswith("“Play” with one of the cards in") and heads[0].endswith("hand:")
    assert heads[1].startswith("“Discard” with one of the cards in") and heads[1].endswith(
        "whose value is more than 1:")
    assert heads[2].startswith("“Draw a card”, if ") and heads[2].endswith("deck is not empty:")
    assert heads[3] == "“Pass”:"
    # each option's block is read under it, the chosen card by what it is
    assert [c.text for c in lines[0].children[0].children][1:] == [
        "Move the chosen card to " + lines[0].children[0].children[1].text.split(" to ", 1)[1],
        "Add the chosen card's value to " + lines[0].children[0].children[2].text.split(" to ", 1)[1]]


# ------------------------------------------------------------------ several at once, ordering

@pytest.fixture(scope="module")
def fleet():
    return load_game(str(GAMES / "fleet_split.cards"))


def test_any_number_is_a_pick_at_a_time_with_done_until_done(fleet):
    eng = Engine(fleet, 2, seed=0)
    assert eng.pending.prompt == "Send ships on the raid"
    assert eng.pending.options == ["Cruiser", "Frigate", "Corvette", "done"]
    _answer(eng, "Frigate")
    assert eng.pending.options == ["Cruiser", "Corvette", "done"]       # a pick is not offered again
    _answer(eng, "Cruiser")
    _answer(eng, "Corvette")
    # nothing left to pick: the choice is over without a "done"
    assert eng.pending.prompt == "Keep up to 2 cards"
    assert [eng.state.cards[c]["name"] for c in eng.state.zones["raid:0"]] == ["Frigate", "Cruiser", "Corvette"]
    picks = [e["choice"] for e in eng.log if e["event"] == "choice"]
    assert picks == ["Frigate", "Cruiser", "Corvette"]


def test_up_to_ends_by_itself_and_exactly_has_no_done(fleet):
    eng = Engine(fleet, 2, seed=0)
    _answer(eng, "done")
    assert eng.state.zones["raid:0"] == []
    _answer(eng, "Cruiser")
    _answer(eng, "Frigate")
    assert eng.pending.prompt.startswith("Put back on top")        # no third pick of "up to 2"
    assert "done" not in eng.pending.options                       # ordering: every card is placed
    _answer(eng, "Cruiser")
    # one left: taken without asking, logged as forced
    forced = [e for e in eng.log if e["event"] == "choice"][-1]
    assert (forced["choice"], forced["how"]) == ("Frigate", "forced")
    assert eng.pending.prompt == "Choose 1"                         # the default prompt says how many
    assert eng.pending.options == ["Frigate", "Frigate", "Frigate"]
    _answer(eng, "Frigate")
    assert eng.pending.player == 1 and eng.pending.prompt == "Send ships on the raid"
    assert len(eng.state.zones["market"]) == 2


def test_the_order_picked_is_the_order_of_the_list(fleet):
    eng = Engine(fleet, 2, seed=0)
    _answer(eng, "done")
    _answer(eng, "done")
    _answer(eng, "Frigate")       # then the Cruiser: each goes on top in turn, the Cruiser last
    deck = [eng.state.cards[c]["name"] for c in eng.state.zones["deck:0"]]
    assert deck[-1] == "Cruiser" and deck[-2] == "Frigate"


def test_a_pick_of_a_hidden_card_is_named_only_to_its_chooser(fleet):
    eng = Engine(fleet, 2, seed=0)
    _answer(eng, "done")
    _answer(eng, "Cruiser")
    assert [e["text"] for e in eng.log_seen_by(1) if e["event"] == "choice"][-1] == \
        "Player 1 chooses a card (Keep up to 2 cards)"
    assert [e["text"] for e in eng.log_seen_by(0) if e["event"] == "choice"][-1] == \
        "Player 1 chooses Cruiser (Keep up to 2 cards)"


def test_save_and_restore_between_two_picks(fleet):
    eng = Engine(fleet, 2, seed=3)
    _answer(eng, "Frigate")
    other = Engine.restore(fleet, json.loads(eng.save_json()))
    assert other.pending == eng.pending
    while not eng.finished:
        eng.decide(0)
        other.decide(0)
    assert eng.result == other.result
    assert eng.state.to_dict() == other.state.to_dict()


def test_how_many_must_be_a_number_and_the_options_a_collection():
    head = 'game "G":\n    players: 2 to 2\n\nplayer has:\n    score: number = 0\n\nzone hand: per player, unordered\n\n'
    with pytest.raises(CardsmithError) as err:
        load_text(head + 'setup:\n    seat 1 chooses up to "two" of cards in seat 1\'s hand as kept\n', "g.cards")
    assert err.value.diagnostics[0].span.line == 10
    with pytest.raises(CardsmithError) as err:
        load_text(head + "setup:\n    seat 1 orders seat 1's score as order\n", "g.cards")
    d = err.value.diagnostics[0]
    assert (d.code, d.span.line) == ("E0404", 10)


def test_the_rulebook_says_one_at_a_time(fleet):
    ctx = E.make_ctx(fleet.decls)
    turn = fleet.decls.rounds[0].body[0].body[0]
    said = [E.describe(st, ctx)[0].text.replace(E.EM_OPEN, "").replace(E.EM_CLOSE, "")
            for st in turn.body if isinstance(st, type(turn.body[0]))]
    assert said[0] == ("p chooses any number of the cards in p's fleet, one at a time (raiders) "
                       "(“Send ships on the raid”); they may stop at any time.")
    assert "one at a time" in said[0] and "may stop at any time" in said[0]
    assert "up to 2 of" in said[1]
    assert "in the order of their choice" in said[2]


# ------------------------------------------------------------------ scores and shared victory

@pytest.fixture(scope="module")
def shared():
    return load_game(str(GAMES / "shared_victory.cards"))


def _play(game, n, seed, answers):
    eng = Engine(game, n, seed=seed)
    for a in answers:
        _answer(eng, a)
    return eng


def test_a_tie_for_the_highest_score_is_a_shared_victory_with_scores_and_returns(shared):
    eng = Engine(shared, 4, seed=0)
    for p in (1, 3):
        eng.state.players[p]["points"] = 3
    while not eng.finished:
        _answer(eng, "no")
    r = eng.result
    assert r["winners"] == [1, 3] and r["shared"] is True and r["draw"] is False
    assert r["scores"] == [0, 3, 0, 3]
    assert r["returns"] == [0.0, 0.5, 0.0, 0.5]
    last = eng.log[-1]
    assert last["text"] == ("Player 2 and Player 4 win the game together (scores: Player 1 has 0, "
                            "Player 2 has 3, Player 3 has 0, Player 4 has 3)")
    assert last["scores"] == [0, 3, 0, 3]


def test_a_single_winner_is_not_shared_and_a_team_wins_together(shared):
    eng = Engine(shared, 4, seed=0)
    eng.state.players[0]["points"] = 6
    _answer(eng, "yes")                         # 7 or more: seat 1's colour, red, wins
    r = eng.result
    assert r["winners"] == [0, 2] and r["shared"] is True
    assert eng.state.players[2]["colour"] == "red"
    eng = Engine(shared, 2, seed=0)
    eng.state.players[1]["points"] = 1
    while not eng.finished:
        _answer(eng, "no")
    assert eng.result["winners"] == [1] and "shared" not in eng.result
    assert eng.result["returns"] == [0.0, 1.0]


def test_a_game_without_a_score_keeps_the_result_it_had(mixed):
    eng = Engine(mixed, 2, seed=0)
    while not eng.finished:
        eng.decide(0)
    assert set(eng.result) == {"winners", "draw", "rounds", "steps", "reason"}


def test_the_highest_score_wins_needs_a_declared_score():
    text = 'game "G":\n    players: 2 to 2\n\nround "R":\n    the highest score wins\n'
    with pytest.raises(CardsmithError) as err:
        load_text(text, "g.cards")
    d = err.value.diagnostics[0]
    assert (d.code, d.span.line, d.span.column) == ("E0431", 5, 5) and "score for p as" in d.hint


def test_a_score_that_cannot_be_worked_out_aborts_at_its_declaration():
    text = ('game "G":\n    players: 2 to 2\n\nplayer has:\n    best: player = none\n\n'
            "score for p as p's best's best_score\n")
    with pytest.raises(CardsmithError):
        load_text(text, "g.cards")          # the checker refuses a score that is not a number
    text = ('game "G":\n    players: 2 to 2\n\nplayer has:\n    points: number = none\n\n'
            "score for p as p's points + 1\n\nsetup:\n    seat 1 wins\n")
    from cardsmith.interpreter.engine import GameAborted
    with pytest.raises(GameAborted) as err:
        Engine(load_text(text, "g.cards"), 2, seed=0)
    d = err.value.diagnostics[0]
    assert d.span.line == 7 and "score" in d.message


def test_the_rulebook_says_what_the_score_is_and_how_the_highest_wins(shared):
    ctx = E.make_ctx(shared.decls)
    said = E.describe_score(shared.decls.score, ctx)
    assert said.startswith("A player's score is ") and "gems" in said
    rnd = shared.decls.rounds[0]
    ending = [st for st in rnd.body if isinstance(st, type(rnd.body[-1]))][-1].branches[0][1][0]
    assert E.describe(ending, ctx)[0].text == ("The game ends: the player with the highest score wins; "
                                               "players tied for it share the victory.")


# ------------------------------------------------------------------ a private look

@pytest.fixture(scope="module")
def look():
    return load_game(str(GAMES / "private_look.cards"))


def _names(eng, key, seat):
    return eng.view(seat)["zones"][key]["cards"]


def test_a_look_shows_the_cards_to_the_looker_alone_in_the_view_and_the_log(look):
    eng = Engine(look, 2, seed=1)
    deck = eng.state.zones["deck:0"]
    top2 = [eng.state.cards[c]["name"] for c in reversed(deck[-2:])]
    assert _names(eng, "deck:0", 0) is None                  # a hidden deck: only its count
    _answer(eng, "Look at the top of your deck")
    assert _names(eng, "deck:0", 0) == [None] * (len(deck) - 2) + top2[::-1]
    assert _names(eng, "deck:0", 1) is None
    assert eng.log_seen_by(0)[-1]["text"] == f"Player 1 looks at {top2[0]} and {top2[1]}"
    assert eng.log_seen_by(1)[-1]["text"] == "Player 1 looks at a card and a card"
    assert eng.log[-1]["event"] == "look" and eng.log[-1]["rule"] == "private_look.cards:41:21"


def test_a_card_moved_or_shuffled_is_no_longer_known(look):
    eng = Engine(look, 2, seed=1)
    _answer(eng, "Look at the top of your deck")
    top, second = eng.state.zones["deck:0"][-1], eng.state.zones["deck:0"][-2]
    _answer(eng, "yes")                         # the top card goes to the bottom: it moved
    assert "$seen_by" not in eng.state.cards[top]
    # the move itself was seen by the looker, who knew the card before it moved
    moved = [e for e in eng.log_seen_by(0) if e["event"] == "move"][-2]
    assert moved["text"].startswith(eng.state.cards[top]["name"] + " from Player 1's deck to the bottom")
    hidden = [e for e in eng.log_seen_by(1) if e["event"] == "move"][-2]
    assert hidden["text"].startswith("a card from Player 1's deck")
    # the second card seen was drawn into the hand: it moved, so it is forgotten too
    assert eng.state.card_zone[second] == "hand:0" and "$seen_by" not in eng.state.cards[second]
    # a card seen and not moved is known until its zone is shuffled
    eng.m.look(0, [eng.state.zones["deck:0"][-1]], None)
    assert eng.state.cards[eng.state.zones["deck:0"][-1]]["$seen_by"] == [0]
    eng.m.shuffle("deck:0", None)
    assert not any("$seen_by" in eng.state.cards[c] for c in eng.state.zones["deck:0"])


def test_looking_at_a_hand_and_save_restore_keep_what_was_seen(look):
    eng = Engine(look, 2, seed=2)
    _answer(eng, "Look at the top of your deck")
    _answer(eng, "no")
    _answer(eng, "Look at the other hand")        # seat 2 looks at seat 1's hand
    hand = eng.state.zones["hand:0"]
    assert _names(eng, "hand:0", 1) == [eng.state.cards[c]["name"] for c in hand]
    other = Engine.restore(look, eng.save_json())
    assert other.m.looks and _names(other, "hand:0", 1) == _names(eng, "hand:0", 1)
    assert other.view(0)["zones"]["hand:1"]["cards"] == [None] * len(eng.state.zones["hand:1"])


def test_a_look_is_at_cards_only():
    text = ('game "G":\n    players: 2 to 2\n\nplayer has:\n    points: number = 0\n\n'
            "setup:\n    seat 1 looks at seat 2's points\n")
    with pytest.raises(CardsmithError) as err:
        load_text(text, "g.cards")
    d = err.value.diagnostics[0]
    assert (d.code, d.span.line) == ("E0408", 8) and "looks at" in d.hint


def test_the_rulebook_says_nobody_else_sees(look):
    ctx = E.make_ctx(look.decls)
    turn = look.decls.rounds[0].body[0].body[0]
    menu = turn.body[0]
    said = E.describe(menu.choices[0].body[0], ctx)[0].text
    assert said.endswith("without showing them to anyone else.") and "top 2 cards" in said


# ------------------------------------------------------------------ the random bot, as documented

PICKS = '''game "Picks":
    players: 2 to 2

zone box: shared, unordered, public
zone kept: per player, unordered, public

card type Token:
    n: number = 0

cards Token in box:
    | name | n | copies |
    | "T"  | 1 | 3      |

setup:
    seat 1 chooses any number of cards in box as taken
    move taken to seat 1's kept
'''


def test_the_random_bot_makes_every_count_of_any_number_of_equally_likely():
    """docs/language.md, "What the random bot does": a pick at a time, uniform over the elements
    left and done, so for 3 elements none, one, two and three are picked a quarter of the time
    each (a coin per element would give 1/8, 3/8, 3/8, 1/8)."""
    from cardsmith.interpreter.agents import RandomAgent
    game = load_text(PICKS, "picks.cards")
    counts = [0, 0, 0, 0]
    for seed in range(800):
        eng = Engine(game, 2, seed=seed, log=False)
        bot = RandomAgent(seed)
        while not eng.finished:
            eng.decide(bot.choose(eng.view(eng.pending.player), eng.pending))
        counts[len(eng.state.zones["kept:0"])] += 1
    # 200 expected each; a binomial's standard deviation here is about 12
    assert all(150 <= c <= 250 for c in counts), counts
