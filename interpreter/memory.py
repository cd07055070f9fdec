"""The memory bound on playing games (`MAX_GAME_MEMORY` in dsl/bounds.py).

Every other runtime bound (instructions, numbers, collections, texts, the log) keeps a game
small one way at a time; this one is the backstop for what they cannot foresee. While a game is
played by `play`, `test` or a `simulate` worker, the process's address space may grow by at most
the bound: past it Python raises MemoryError, which the machine turns into a located abort
(E0810). Only the soft limit is set, and it is put back afterwards, so a library caller or a test
runner that plays a game in-process keeps its own limits once the game is over.
"""
from __future__ import annotations

import contextlib
import os

from cardsmith.dsl import bounds

try:
    import resource
except ImportError:          # not on this platform: the other bounds still hold
    resource = None


def address_space() -> int | None:
    """The bytes of address space this process holds now (Linux: /proc/self/statm), or None."""
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            pages = int(fh.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")


@contextlib.contextmanager
def memory_bound(extra: int | None = None):
    """Within the block, the process may take at most `extra` (default MAX_GAME_MEMORY) more bytes
    of address space than it holds on entry; a limit already lower than that is kept."""
    extra = bounds.MAX_GAME_MEMORY if extra is None else extra
    held = address_space()
    if resource is None or held is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    wanted = held + extra
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft <= wanted:
        yield                            # someone already bounds us more tightly
        return
    resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))
    _lifted.append((soft, hard))
    try:
        yield
    finally:
        _lifted.pop()
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


_lifted: list = []          # the limits memory_bound replaced, innermost last


def lift() -> None:
    """Give the process its memory back at once (the limit from before the innermost bound): the
    machine calls this when a game hits the bound, so that reporting the error — and anything the
    caller does before the bound's block ends — never itself runs out of memory."""
    if resource is not None and _lifted:
        resource.setrlimit(resource.RLIMIT_AS, _lifted[-1])
