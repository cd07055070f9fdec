"""The memory bound (MAX_GAME_MEMORY, interpreter/memory.py): a game that outgrows it stops with a
located E0810, and the process gets its own limit back afterwards."""
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


@needs_proc
def test_a_game_that_outgrows_the_bound_stops_with_a_located_error():
    game = load_game(str(HOARDERS))
    with pytest.raises(GameAborted) as caught:
        with memory.memory_bound(40_000_000):
            run_game(game, 2, seed=1, log=True)
    diag = caught.value.diagnostics[0]
    assert diag.code == "E0810"
    assert diag.span.path.endswith("hoarders.cards") and diag.span.line in (19, 20, 21)
    assert "MAX_GAME_MEMORY" in diag.message


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
