"""A move laid face down reveals no card, so in a game that listens to `revealed` (a `when revealed`
trigger) a procedure whose moves are all face down is still flat (blocks.flat: run inside the
calling block, no frame through the run loop), unless a window opens after `revealed`, seen cards
are remembered or something replaces `revealed`: there the move's empty `revealed` moment is seen.
A face-up move into a public zone can reveal a card and keeps its procedure off the flat path."""
from __future__ import annotations

import json

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter import blocks
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import program_for

from test_moves_revealed import REVEAL_WINDOW

PROCEDURES = '''
procedure lay_down():
    move top card of deck to pile face down

procedure lay_up():
    move top card of deck to pile face up

'''
WINDOW = '''response window "Quick":
    "After a card is revealed, the players may answer."
    opens after revealed
'''


def _game(tmp_path, window: bool, remember: bool = False):
    text = REVEAL_WINDOW if window else REVEAL_WINDOW.replace(WINDOW, "")
    assert window or WINDOW not in text
    text = text.replace("setup:\n", PROCEDURES + "setup:\n")
    text = text.replace("    step \"Strike\":\n", "    step \"Strike\":\n        lay_down()\n        lay_up()\n")
    # an end check that reads no zone (`any(players where ...)` may: every move would then be watched)
    text = text.replace("as soon as any(players where it's life <= 0):", "as soon as finished:")
    text = text.replace("zone box:", "game has:\n    finished: flag = no\n\nzone box:")
    text = text.replace("                subtract 3 from p's life\n",
                        "                subtract 3 from p's life\n"
                        "                if p's life <= 0:\n"
                        "                    set finished to yes\n")
    assert "as soon as finished:" in text and "set finished to yes" in text
    if remember:
        text = text.replace("    summary:", "    remember seen cards\n    summary:")
    path = tmp_path / f"flat_down_{window}_{remember}.cards"
    path.write_text(text)
    return load_game(str(path))


def _flat(game, name):
    prog = program_for(game)
    (code,) = [c for c in prog.codes if c.name == f"procedure {name}"]
    return blocks.flat(prog, code.id)


def test_a_face_down_move_keeps_its_procedure_flat_where_nothing_sees_an_empty_revealed(tmp_path):
    game = _game(tmp_path, window=False)
    assert _flat(game, "lay_down") is not None
    assert _flat(game, "lay_up") is None            # face up into a public zone: `when revealed` may fire


@pytest.mark.parametrize("window, remember", [(True, False), (False, True)])
def test_a_window_after_revealed_or_remembered_cards_keep_it_off_the_flat_path(tmp_path, window, remember):
    game = _game(tmp_path, window=window, remember=remember)
    assert _flat(game, "lay_down") is None


def _end(game, seed, fused, log):
    was = Machine.fused
    Machine.fused = fused
    try:
        eng = run_game(game, 2, seed, log=log)
    finally:
        Machine.fused = was
    st = eng.m.st
    return json.dumps({"zones": st.zones, "face_up": st.face_up, "cards": st.cards, "players": st.players,
                       "rng": st.rng, "steps": st.steps, "result": eng.result, "log": eng.m.log.events},
                      sort_keys=True, default=str)


def test_the_flat_face_down_procedure_plays_as_every_instruction_one_at_a_time(tmp_path):
    game = _game(tmp_path, window=False)
    for seed in range(6):
        for log in (False, True):
            assert _end(game, seed, True, log) == _end(game, seed, False, log), (seed, log)
