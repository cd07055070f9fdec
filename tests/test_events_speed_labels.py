"""A decision's labels made at the first read (interpreter/decisions.py `pending_labels`) are those
made when it is asked, for every reader: the engine's `pending`, `view`, a save (and so a restore,
a clone, the search agents' samples) and `decide`'s error; and `run_game`'s random agents drawn
from the number of options alone (agents.py `random_bits`) answer as `RandomAgent.choose` does."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter import decisions
from cardsmith.interpreter.agents import RandomAgent
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.errors import IllegalDecision
from cardsmith.interpreter.play import run_game

ROOT = Path(__file__).resolve().parents[1]
# cards seen and unseen (hands, face-down places, backs that show fields, looked-at cards), yes / no
GAMES = [("games/battlefield_space.cards", 2), ("games/space_war_in_space.cards", 3),
         ("games/the_space_war.cards", 2), ("tests/games/event_soup.cards", 2),
         ("tests/games/waiting_triggers.cards", 2), ("tests/games/private_look.cards", 2),
         ("tests/games/seen_cards.cards", 2), ("games/eve_war_for_new_eden.cards", 2)]


class _Asking(RandomAgent):
    """RandomAgent's choice, asked the usual way (a subclass: `run_game` hands it the decision)."""


@pytest.mark.parametrize("path,players", GAMES)
def test_labels_read_later_are_those_made_when_asked(path, players, monkeypatch):
    game = load_game(str(ROOT / path))
    made = []
    ask = decisions.Decisions.ask

    def asking(m, player, prompt, options, var, kind, span, secret=False):
        asked = ask(m, player, prompt, options, var, kind, span, secret)
        if asked:       # what `ask` made before the labels waited for their first read
            made.append(m.log.option_labels(m, options, kind, span, player))
        return asked
    monkeypatch.setattr(decisions.Decisions, "ask", asking)
    for seed in range(2):
        eng = Engine(game, players, seed, log=seed == 0)
        rng = random.Random(seed)
        read = []
        while not eng.finished:
            if rng.random() < 0.3:      # a view first, or a save, or neither
                view = eng.view(eng.pending.player)
                assert view["decision"]["options"] == made[len(read)]
            elif rng.random() < 0.3:
                saved = json.loads(json.dumps(eng.save()))
                assert saved["state"]["pending"]["labels"] == made[len(read)]
                back = Engine.restore(game, saved, log=False)
                assert back.pending == eng.pending
            read.append(eng.pending.options)
            eng.decide(rng.randrange(len(read[-1])))
        assert read == made[:len(read)] and len(read) == len(made)
        made.clear()


def test_a_wrong_answer_names_the_labels():
    game = load_game(str(ROOT / "games/battlefield_space.cards"))
    eng = Engine(game, 2, 1, log=False)
    with pytest.raises(IllegalDecision) as err:
        eng.decide(99)
    assert ", ".join(eng.pending.options) in str(err.value)


@pytest.mark.parametrize("log", [True, False], ids=["log", "no_log"])
@pytest.mark.parametrize("path,players", GAMES)
def test_random_agents_drawn_from_the_count_answer_as_choose_does(path, players, log):
    """Drawn as the machine asks (`Decisions.ask`), with the log on too (each answer logged as
    `decide` logs it: the same lines, and the same for each player's own log)."""
    game = load_game(str(ROOT / path))
    for seed in range(3):
        fast = run_game(game, players, seed, log=log)
        asked = run_game(game, players, seed, agents=[_Asking(seed * 1000 + s) for s in range(players)], log=log)
        assert fast.log_jsonl() == asked.log_jsonl()
        assert [fast.log_seen_by(p) for p in range(players)] == [asked.log_seen_by(p) for p in range(players)]
        assert fast.result == asked.result
        assert fast.state.to_dict() == asked.state.to_dict()


def test_with_the_log_on_random_answers_are_drawn_where_the_machine_asks(monkeypatch):
    """Battlefield's picks of cards (secret ones too) are drawn in `ask` with the log on: the
    play loop decides none of the chosen ones but the first (asked while the engine starts,
    before `run_game` hands the machine its draws)."""
    decided = []
    decide = decisions.Decisions.decide
    monkeypatch.setattr(decisions.Decisions, "decide", lambda m, i: (decided.append(i), decide(m, i))[1])
    eng = run_game(load_game(str(ROOT / "games/battlefield_space.cards")), 2, 1, log=True)
    chosen = [e for e in eng.event_log.events if e["event"] == "choice" and e["how"] == "chosen"]
    assert len(chosen) > 20 and any(e["secret"] for e in chosen)
    assert len(decided) == 1


def test_a_game_aborted_between_random_answers_ends_its_log_as_before():
    """The step bound stops the game inside run_game's own loop (the random agents' path): the
    error carries the sources and the log, whose last event says why, as Engine._run does."""
    from cardsmith.interpreter.errors import GameAborted
    game = load_game(str(ROOT / "games/battlefield_space.cards"))
    got = []
    for agents in (None, [_Asking(5000 + s) for s in range(2)]):
        with pytest.raises(GameAborted) as err:
            run_game(game, 2, 5, agents=agents, log=True, max_steps=3000)
        log = err.value.event_log
        assert log.events[-1]["event"] == "aborted" and err.value.sources
        got.append(log.to_jsonl())
    assert got[0] == got[1]


@pytest.mark.parametrize("path,players", GAMES)
def test_random_seats_answered_as_the_machine_asks_play_the_same_game(path, players):
    """With the log off and nobody observing, run_game's random seats answer inside
    decisions.drawing_ask (`Machine.drawn`): the same end state (steps, work, generator included), result
    and tally as when each decision stops the machine and is answered from run_game's loop, and
    the step bound stops the game on the same instruction."""
    from cardsmith.interpreter.errors import GameAborted
    from cardsmith.interpreter.report import Tally
    from cardsmith.interpreter.simulate import counted_events
    game = load_game(str(ROOT / path))

    def play(seed, agents, max_steps=None):
        tally = Tally(counted_events(game))
        try:
            eng = run_game(game, players, seed, agents=agents, log=False, max_steps=max_steps, tally=tally)
        except GameAborted as err:
            return "aborted", str(err), tally.real, tally.forced
        assert eng.m.drawn is None
        return eng.result, eng.state.to_dict(), tally.real, tally.forced, tally.events, tally.played
    for seed in range(2):
        for bound in (None, 900):
            asked = [_Asking(seed * 1000 + s) for s in range(players)]
            mixed = [(RandomAgent if s % 2 else _Asking)(seed * 1000 + s) for s in range(players)]
            want = play(seed, asked, bound)
            assert play(seed, None, bound) == want, (path, seed, bound)
            assert play(seed, mixed, bound) == want, (path, seed, bound)
