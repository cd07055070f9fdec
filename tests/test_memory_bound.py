"""The memory bound (MAX_GAME_MEMORY, interpreter/memory.py): a game that outgrows it stops with a
located E0810, and the process gets its own limit back afterwards."""
import subprocess
import sys
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter import memory
from cardsmith.interpreter.engine import GameAborted
from cardsmith.interpreter.play import run_game

resource = pytest.importorskip("resource")
CHATTER = Path(__file__).parent / "memory" / "chatter.cards"
HOARDERS = Path(__file__).parent / "memory" / "hoarders.cards"
needs_proc = pytest.mark.skipif(memory.address_space() is None, reason="no /proc/self/statm here")


# Played in a fresh interpreter: how much address space a process already holds (and may reuse)
# depends on everything it ran before, so the bound is measured where nothing else ran first.
PLAY_BOUNDED = """
import sys
from cardsmith.dsl.loader import load_game
from cardsmith.interpreter import memory
from cardsmith.interpreter.engine import GameAborted
from cardsmith.interpreter.play import run_game
game = load_game(sys.argv[1])
try:
    with memory.memory_bound(40_000_000):
        run_game(game, 2, seed=1, log=True)
except GameAborted as err:
    d = err.diagnostics[0]
    print(d.code, d.span.path, d.span.line, d.message, sep="|")
    big = list(range(5_000_000))        # the limit is given back once the game is over
    print("after", len(big), sep="|")
"""


@needs_proc
def test_a_game_that_outgrows_the_bound_stops_with_a_located_error():
    done = subprocess.run([sys.executable, "-c", PLAY_BOUNDED, str(HOARDERS)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    code, path, line, message = done.stdout.splitlines()[0].split("|")
    assert code == "E0810"
    assert path.endswith("hoarders.cards") and int(line) in (19, 20, 21)
    assert "MAX_GAME_MEMORY" in message
    assert done.stdout.splitlines()[1] == "after|5000000"


@needs_proc
def test_without_the_memory_bound_the_log_bound_stops_the_same_game():
    # the same game under the default bound grows its log to MAX_LOG_BYTES first: E0809, not E0810
    game = load_game(str(CHATTER))
    with pytest.raises(GameAborted) as caught:
        with memory.memory_bound():
            run_game(game, 2, seed=1, log=True)
    assert caught.value.diagnostics[0].code == "E0809"


@needs_proc
def test_the_limit_is_given_back_after_the_game():
    before = resource.getrlimit(resource.RLIMIT_AS)
    with memory.memory_bound(100_000_000):
        inside = resource.getrlimit(resource.RLIMIT_AS)
    assert inside[0] != before[0] and inside[0] <= memory.address_space() + 100_000_000
    assert resource.getrlimit(resource.RLIMIT_AS) == before


@needs_proc
def test_a_tighter_limit_already_set_is_kept():
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    tight = memory.address_space() + 500_000_000
    resource.setrlimit(resource.RLIMIT_AS, (tight, hard))
    try:
        with memory.memory_bound(10**12):
            assert resource.getrlimit(resource.RLIMIT_AS)[0] == tight
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
