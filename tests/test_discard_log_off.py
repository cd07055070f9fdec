"""Discarding down (`at most N, discard down into Z`, interpreter/caps.py) happens with the log
off as with it on: a game with a capped zone and no `moved` / `revealed` listener still asks its
owner to discard down, since the machine listens to `moved` for the cap (Machine.__init__), so a
move there never takes the "nobody watches" fast path of Machine.move."""
from __future__ import annotations

from pathlib import Path

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.play import run_game

GAME = Path(__file__).resolve().parent / "games" / "cargo_hold.cards"


def _play(game, players, seed, log):
    asked = []

    def observe(eng):
        pending = eng.m.st.pending
        if pending is not None:
            asked.append(str(pending.get("prompt")))
    eng = run_game(game, players, seed, log=log, observe=observe)
    return eng.result, {k: list(v) for k, v in eng.m.zones.items()}, asked, eng.m.move_triggers


def test_capped_zones_discard_down_with_the_log_off():
    game = load_game(str(GAME))
    discards = 0
    for players in (2, 3):
        for seed in range(4):
            off = _play(game, players, seed, False)
            assert off == _play(game, players, seed, True), (players, seed)
            assert off[3] is True        # moves are watched for the cap, log or no log
            discards += sum(prompt.startswith("Discard down to 4") for prompt in off[2])
    assert discards > 0
