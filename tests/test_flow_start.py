"""The flow's shortcuts change nothing a game can see: a game starts from copies of a start worked
out once per game and player count (engine.initial_state), a new round finds in one pass whether
an attribute needs resetting (Machine.reset_memory), and an event only triggers can answer is
announced without the scenario's and the tally's steps (Triggers.announce_all, EventPlan.plain)."""
from __future__ import annotations

import json
from pathlib import Path

from cardsmith.dsl.loader import load_game, load_text
from cardsmith.interpreter import engine as E
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.report import Tally
from cardsmith.interpreter.triggers import plan_of

ROOT = Path(__file__).resolve().parent.parent
SPACE_WAR = str(ROOT / "games" / "space_war_in_space.cards")


def test_a_start_is_the_same_whatever_the_games_before_it_did():
    game = load_game(SPACE_WAR)
    before = E.initial_state(game, 4, 3).to_dict()
    run_game(game, 4, 1, log=False)         # plays from its own copies of the kept start
    run_game(game, 4, 2, log=False)
    assert E.initial_state(game, 4, 3).to_dict() == before
    # and the same as from a game loaded anew, whose start is worked out again
    assert E.initial_state(load_game(SPACE_WAR), 4, 3).to_dict() == before


def test_two_starts_share_no_list_or_dict_a_game_changes():
    game = load_game(SPACE_WAR)
    a, b = E.initial_state(game, 2, 0), E.initial_state(game, 2, 0)
    for field in ("zones", "card_zone", "face_up", "cards", "owner", "players", "out", "game", "checks"):
        assert getattr(a, field) is not getattr(b, field), field
    assert all(x is not y for x, y in zip(a.zones.values(), b.zones.values()))
    assert all(x is not y for x, y in zip(a.cards, b.cards))
    assert all(x is not y for x, y in zip(a.players, b.players))
    assert list(a.zones) == list(b.zones)           # the zones in the same order


RESET_DECLS = '''game "Resets":
    players: {players}

player has:
    tries: number = 0, reset each round
    marks: list of number = [], reset each round

game has:
    calm: flag = no, reset each round
    played: number = 0

'''

RESETS = RESET_DECLS.format(players=2) + '''round "R":
    add 1 to played
    if played = 1:
        add 2 to seat 1's tries
    if played = 2:
        set calm to yes
    if played = 4:
        first(players) wins
'''


def test_a_round_resets_what_changed_and_logs_it_as_before():
    game = load_text(RESETS, path="resets.cards")
    eng = run_game(game, 2, 0, log=True)
    resets = [(e["round"], e["text"]) for e in eng.log if e["event"] == "reset"]
    assert resets == [(2, "a new round: Player 1's tries reset"), (3, "a new round: calm reset")]
    assert eng.m.st.players[0]["tries"] == 0 and eng.m.st.game["calm"] is False


def test_nothing_to_reset_changes_no_version():
    game = load_text(RESETS, path="resets.cards")
    eng = run_game(game, 2, 0, log=False)
    m = eng.m
    ver = m.ver
    m.reset_memory("round", None)
    assert m.ver == ver
    m.st.players[1]["marks"] = [3]
    m.reset_memory("round", None)
    assert m.ver == ver + 1 and m.st.players[1]["marks"] == []


def test_an_event_announced_the_short_way_sets_off_what_the_long_way_does():
    """Space War's own events are declared (a log line each) and only triggers answer them: the
    short way (no history, no tally) and the long one (a tally counting them) play the same game."""
    game = load_game(SPACE_WAR)
    from cardsmith.interpreter.program import program_for
    prog = program_for(game)
    assert plan_of(prog, "battle_won").plain and plan_of(prog, "battle_won").declared
    for seed in range(3):
        plain = run_game(game, 4, seed, log=True)
        tallied = run_game(game, 4, seed, log=True, tally=Tally(events=["battle_won", "before_battle"]))
        assert json.dumps(plain.log, sort_keys=True) == json.dumps(tallied.log, sort_keys=True)
        assert plain.result == tallied.result


MANY_RESETS = RESET_DECLS.format(players=3) + '''round "R":
    add 1 to played
    if played = 1:
        add 2 to seat 3's tries
        set seat 2's marks to [5]
        add 1 to seat 1's tries
        set calm to yes
    if played = 3:
        set seat 1's marks to [7]
    if played = 4:
        first(players) wins
'''


def test_several_resets_at_once_are_named_in_the_declared_order():
    # the attributes that changed are found from the one pass's reads (Machine.reset_memory):
    # named as the declarations order them, not as the round changed them
    eng = run_game(load_text(MANY_RESETS, path="resets.cards"), 3, 0, log=True)
    resets = [(e["round"], e["text"]) for e in eng.log if e["event"] == "reset"]
    assert resets == [(2, "a new round: calm, Player 1's tries, Player 3's tries, Player 2's marks reset"),
                      (4, "a new round: Player 1's marks reset")]
    players = eng.m.st.players
    assert [p["marks"] for p in players] == [[], [], []]
    assert players[0]["marks"] is not players[1]["marks"]      # each reset list its own
