"""Issue 10, the rows "`instead of` an engine event replaces only its announcement, not the move
or flip" and "response windows open only after named events, never 'at any moment'".

`instead of` the engine's own events replaces the thing itself (docs/language.md, "`instead
of`: replacement effects"), and `response window ...: opens at any moment` opens after every
event and as each step begins, whenever someone can answer (docs/language.md, "`response
window`"). Each has test games in tests/games/ with scenarios, run here; the tests below look
at what scenarios cannot: what is decided once from the file (a game without such a
replacement or window pays nothing), the log, save and restore at such a window, and the
rulebook's words."""
from __future__ import annotations

from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game, load_text
from cardsmith.dsl.publish import english as E
from cardsmith.dsl.publish import rulebook as R
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.program import program_for
from cardsmith.interpreter.scenario import run_scenario
from cardsmith.interpreter.triggers import replaceable

GAMES = Path(__file__).resolve().parent / "games"
MINE = ("warded_moves", "replaced_flow", "stubborn_spells", "quick_hands")


def _scenarios():
    for stem in MINE:
        path = GAMES / f"{stem}.cards"
        for s in load_game(str(path)).decls.scenarios:
            yield pytest.param(path, s.name, id=f"{stem}: {s.name}")


@pytest.mark.parametrize("path, name", list(_scenarios()))
def test_scenarios_of_the_test_games(path, name):
    result = run_scenario(load_game(str(path)), name)
    assert result.ok, "\n".join(result.failures)


def _game(stem):
    return load_game(str(GAMES / f"{stem}.cards"))


def _log(stem, scenario):
    result = run_scenario(_game(stem), scenario)
    assert result.ok, result.failures
    return result.log


# ------------------------------------------------------------------ decided once, from the file

def test_a_game_without_such_a_replacement_moves_and_flips_as_before():
    for stem in ("signal_fires", "double_shield", "counterspell_duel"):
        eng = Engine(_game(stem), 2, seed=0)
        assert eng.m.move_rep is None and eng.m.flip_rep is None
        # the class's own move and flip: nothing is asked before a card moves
        assert "move" not in vars(eng.m) and "flip" not in vars(eng.m)


def test_which_cards_moves_are_asked_about_is_decided_from_the_index_of_replacements():
    prog = program_for(_game("warded_moves"))
    # the Warden's replacement is not pinned to its own card: any card's move is asked about
    assert replaceable(prog, "moved") is True
    # the Shade's and the Mule's are written `where card = this`: only their own cards
    shade = {c.id for c in prog.game.cards if c.name == "Shade"}
    mule = {c.id for c in prog.game.cards if c.name == "Mule"}
    assert replaceable(prog, "revealed") == frozenset(shade)
    assert replaceable(prog, "flipped") == frozenset(mule)
    assert replaceable(prog, "eliminated") is None
    eng = Engine(prog.game, 2, seed=0)
    assert vars(eng.m)["move"].__func__ is Machine.replaceable_move


def test_each_card_of_one_move_is_looked_at_alone_and_its_replacement_runs_after_the_others_move():
    log = _log("warded_moves", "Each card of one move is looked at alone: the Warden leaves, the others stay")
    kinds = [(e["event"], e.get("cards")) for e in log if e["event"] in ("instead", "move")]
    # in the round: both Soldiers' moves are replaced (decided before anything moves), then the
    # Warden moves alone, as one move
    round_part = kinds[kinds.index(("instead", None)):]
    assert round_part[:3] == [("instead", None), ("instead", None), ("move", ["Warden"])]


def test_a_replacement_that_does_the_replaced_thing_again_is_not_applied_to_it_twice():
    log = _log("warded_moves", "An Ambusher enters face down; its own move is not replaced a second time")
    insteads = [e for e in log if e["event"] == "instead"]
    moves = [e for e in log if e["event"] == "move" and e["cards"] == ["Ambusher"]]
    assert len(insteads) == 1
    assert moves[-1]["face"] == "down" and moves[-1]["to"] == "board:1"


def test_a_game_event_announced_inside_its_own_replacement_is_not_replaced_by_it_again():
    game = load_text('''game "Echo":
    players: 2 to 2
player has:
    pings: number = 0
    echoes: number = 0
zone box: shared, hidden
zone table: per player, unordered, public
event ping(n: number)
card type Bell:
    instead of ping where n > 0:
        add 1 to your echoes
        announce ping(n + 1)
    when ping:
        add 1 to your pings
cards Bell in box:
    | name   |
    | "Bell" |
scenario "The echo rings once" with 2 players:
    move first(cards in box) to seat 1's table
    announce ping(1)
    expect seat 1's echoes = 1
    expect seat 1's pings = 1
''')
    result = run_scenario(game, "The echo rings once")
    assert result.ok, result.failures


# ------------------------------------------------------------------ the flow replaced

def test_replaced_round_turn_step_and_elimination_in_the_log():
    eng = Engine(_game("replaced_flow"), 2, seed=0)
    seq = [(e["event"], e["text"]) for e in eng.log]
    texts = [t for _, t in seq]
    # setup: the elimination is replaced (a life lost, seat 2 stays); the first round is called
    # off before it begins, so the first round played is round 1
    assert texts.index("instead of eliminated: Life of Player 2 applies") < texts.index("Player 2's lives becomes 0")
    assert not [e for e in eng.log if e["event"] == "eliminate"]
    at = texts.index("instead of round_started: Truce of Player 1 applies")
    assert seq[at + 2] == ("round", "round 1: Turns")
    # round 1: seat 1's turn does not happen (no turn, no Draw step); seat 2's Draw step does not either
    one = [t for e, t in seq[at + 2:] if e in ("turn", "step", "instead")][:3]
    assert one == ["instead of turn_started: Sleep of Player 1 applies", "Player 2's turn",
                   "instead of step_started: Fast of Player 2 applies"]
    assert eng.result["winners"] == [0] and eng.state.out == [False, False]


def test_the_replaced_flow_plays_the_same_fused_and_one_instruction_at_a_time():
    from cardsmith.interpreter.play import run_game
    game = _game("replaced_flow")
    logs = []
    for fused in (True, False):
        was, Machine.fused = Machine.fused, fused
        try:
            logs.append(run_game(game, 2, 3, log=True).m.log.events)
        finally:
            Machine.fused = was
    assert logs[0] == logs[1]
    assert any(e["event"] == "instead" for e in logs[0])


# ------------------------------------------------------------------ at any moment

def test_a_window_at_any_moment_listens_to_every_event_and_other_games_pay_nothing():
    from cardsmith.dsl.model import BUILTIN_EVENTS
    quick = program_for(_game("quick_hands"))
    assert set(BUILTIN_EVENTS) <= set(quick.windows_after)
    duel = program_for(_game("counterspell_duel"))
    assert set(duel.windows_after) == {"action_used"}


def test_nobody_able_to_answer_opens_nothing_and_asks_nothing():
    log = _log("quick_hands", "Nobody can answer: no window opens, nobody is asked")
    assert not [e for e in log if e["event"] in ("window", "choice")]


def test_at_any_moment_a_player_is_asked_as_the_step_begins_and_the_game_saves_there():
    game = _game("quick_hands")
    eng = Engine(game, 2, seed=0)
    d = eng.pending
    assert d.prompt == "Respond in Quick?" and d.player == 1
    assert "Shield: Raise a shield" in d.options
    assert eng.state.step_path == ["Strike"]
    assert [e["event"] for e in eng.log[-2:]] == ["step", "window"]
    copy = Engine.restore(game, eng.save())
    for e in (eng, copy):
        e.decide(e.pending.options.index("pass"))
    # the next moment: the coin turned up, in the middle of the step, before its damage
    assert eng.pending.prompt == copy.pending.prompt == "Respond in Quick?"
    assert eng.state.players[0]["life"] == 10
    assert eng.save()["state"] == copy.save()["state"]


def test_a_window_opens_once_for_a_moment_that_raises_two_events():
    game = load_text('''game "Once a Moment":
    players: 2 to 2
zone box: shared, hidden
zone hand: per player, unordered, owner only
zone table: per player, unordered, public
card type Trick:
    action "Wink" from hand, at any time, if this is not in the stack:
        say "wink"
cards Trick in box:
    | name    |
    | "Wink"  |
    | "Coin"  |
response window "Answers":
    opens after moved, revealed
scenario "A move that reveals asks once" with 2 players:
    give seat 2 the choice none
    give seat 2 the choice none
    move first(cards in box where name = "Wink") to seat 2's hand
    move first(cards in box where name = "Coin") to seat 1's table face up
''')
    result = run_scenario(game, "A move that reveals asks once")
    assert result.ok, result.failures
    # one window after the Wink reached the hand, one after the Coin was moved and revealed
    assert [e["text"] for e in result.log if e["event"] == "window"].count("response window Answers opens") == 2


def test_the_rulebook_says_what_any_moment_and_a_replaced_step_end_mean(tmp_path):
    files, _ = R.write_rulebook(_game("quick_hands"), tmp_path, "md")
    text = files[0].read_text(encoding="utf-8")
    assert "It opens at any moment: as each step begins and after anything happens" in text
    game = load_text('''game "Quiet End":
    players: 2 to 2
player has:
    quiet: number = 0
zone box: shared, hidden
card type Charm:
    instead of step_ended where step = "Play":
        add 1 to your quiet
''')
    ab = game.decls.card_types["Charm"].abilities[0]
    ctx = E.make_ctx(game.decls, param_types=E.param_types(game.decls))
    text = E.plain(E.flatten([E.describe(ab, E.ability_ctx(ctx, "Charm"))]))
    assert text.startswith("When a step ends"), text
    assert "it does not" not in text
