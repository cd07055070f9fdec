"""Running publishing work where it cannot hurt the rest of cardsmith.

`deep(fn)`: the English and diagram writers, and Jinja's macros, recurse once per level of
nesting. A file the checker accepts can nest a few hundred levels (`not not not … x`), more
than Python's default 1,000 frames allow those writers, so they run in a thread with a large
stack and a recursion limit of `PUBLISH_FRAMES`; past that a `RecursionError` still comes back
to the caller, who turns it into a located error.

`in_child(fn)`: the templates run in a forked process with an address-space limit
(`TEMPLATE_MEMORY` above what cardsmith already holds) and a timer (`TEMPLATE_SECONDS`), killed
if it does not stop. Jinja's sandbox keeps a template away from Python's internals, but not from
`"x" * 10**10`, a string doubled in a recursive macro or loops nested three deep; in the child
those end as a MemoryError or a timeout with a template line, or at worst a killed child, never
as a frozen or swapping cardsmith.
"""
from __future__ import annotations

import json
import os
import resource
import select
import signal
import sys
import threading
import time
from typing import Callable

from ..bounds import PUBLISH_FRAMES, TEMPLATE_MEMORY, TEMPLATE_SECONDS

STACK_BYTES = 512 * 1024 * 1024     # address space only; pages are used as frames need them
KILL_GRACE = 5                      # seconds past TEMPLATE_SECONDS before the child is killed

_lock = threading.Lock()            # the recursion limit is one per process
_inside = threading.local()


def deep(fn: Callable, *args, **kwargs):
    """`fn(*args, **kwargs)` with room for `PUBLISH_FRAMES` frames; its result or its exception."""
    if getattr(_inside, "deep", False):
        return fn(*args, **kwargs)
    result: dict = {}

    def work() -> None:
        _inside.deep = True
        try:
            result["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller's thread
            result["error"] = exc

    with _lock:
        old_limit = sys.getrecursionlimit()
        old_stack = threading.stack_size()
        try:
            threading.stack_size(STACK_BYTES)
            worker = threading.Thread(target=work, name="cardsmith-publish", daemon=True)
        finally:
            threading.stack_size(old_stack)
        sys.setrecursionlimit(max(old_limit, PUBLISH_FRAMES))
        try:
            worker.start()
            try:
                worker.join()
            except BaseException as stop:       # ^C, or a caller's own timer (SIGALRM)
                _interrupt(worker, type(stop))
                raise
        finally:
            sys.setrecursionlimit(old_limit)
    if "error" in result:
        error = result["error"]
        raise error.with_traceback(None) if isinstance(error, RecursionError) else error
    return result["value"]


def _interrupt(worker: threading.Thread, kind: type) -> None:
    """Stop `worker` with an exception of `kind`, as the caller was stopped: a signal only
    reaches the main thread, and the work must not go on behind the caller's back."""
    import ctypes

    if worker.ident is not None and worker.is_alive():
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(worker.ident), ctypes.py_object(kind))
        worker.join(timeout=1)


class ChildLimit(Exception):
    """The templates' child ran out of time (`TEMPLATE_SECONDS`) or memory (`TEMPLATE_MEMORY`)."""

    def __init__(self, what: str):
        super().__init__(what)
        self.what = what


class Alarm(BaseException):
    """The child's timer went off (a BaseException, so that no `except Exception` in Jinja
    swallows it); `frame` is where the work stood then, in whichever thread it ran."""

    def __init__(self, frame=None):
        super().__init__("time")
        self.frame = frame


def _vm_bytes() -> int:
    """The address space this process already uses (Linux; 0 where unknown)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for row in f:
                if row.startswith("VmSize:"):
                    return int(row.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def in_child(fn: Callable[[], object], on_alarm: Callable[[BaseException], object]) -> object:
    """`fn()` run in a forked child under the template bounds; its result (JSON data: the child
    hands back data, never objects). Call it from a process with one thread (fork copies only
    the calling thread); `fn` may use `deep` inside the child.

    `fn` turns its own failures into results (a located error is data). `on_alarm(exc)` makes
    the result for the child's timer going off (an Alarm, with the frame the work was at).
    Raises ChildLimit when the child dies or must be killed. Where fork is missing, `fn` runs
    here, without the bounds."""
    if not hasattr(os, "fork"):
        return fn()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:                                    # the child: never returns
        status = 0
        try:
            os.close(read_end)
            used = _vm_bytes()
            if used:
                soft, hard = resource.getrlimit(resource.RLIMIT_AS)
                limit = used + TEMPLATE_MEMORY
                if soft != resource.RLIM_INFINITY:
                    limit = min(limit, soft)        # a caller's own, lower cap stays
                resource.setrlimit(resource.RLIMIT_AS, (limit, hard))

            here = threading.get_ident()

            def ring(signum, frame):
                # the work may run in a thread of `deep`: report where that thread stands
                others = [f for ident, f in sys._current_frames().items() if ident != here]
                raise Alarm(others[0] if others else frame)

            signal.signal(signal.SIGALRM, ring)
            signal.setitimer(signal.ITIMER_REAL, TEMPLATE_SECONDS)
            try:
                result = fn()
            except Alarm as alarm:
                result = on_alarm(alarm)
            signal.setitimer(signal.ITIMER_REAL, 0)
            data = json.dumps(result, ensure_ascii=False).encode("utf-8")
            view = memoryview(data)
            while view:
                view = view[os.write(write_end, view):]
        except BaseException:  # noqa: BLE001 - the parent reports a child that gave nothing
            status = 1
        finally:
            os._exit(status)
    os.close(write_end)
    chunks: list[bytes] = []
    deadline = time.monotonic() + TEMPLATE_SECONDS + KILL_GRACE
    killed = False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                killed = True
                break
            ready, _, _ = select.select([read_end], [], [], left)
            if ready:
                chunk = os.read(read_end, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
    except BaseException:                           # ^C, or a caller's own timer: no orphan
        os.kill(pid, signal.SIGKILL)
        raise
    finally:
        os.close(read_end)
        _, status = os.waitpid(pid, 0)
    if killed:
        raise ChildLimit("time")
    if not chunks or status != 0:
        # killed by the kernel (out of memory) or failed to hand back its result
        raise ChildLimit("memory")
    return json.loads(b"".join(chunks).decode("utf-8"))
