"""Shrink a failing mutant while it still shows the same defect (its signature).

Line-based delta debugging, greedy and time-bounded: drop halves, then quarters, ... then
single lines, keeping every cut after which the signature is still found; then drop the
extras the signature does not need. A reproducer of a few lines is what goes into found/.
"""
from __future__ import annotations

import time
from dataclasses import replace

from .corpus import Mutant, Workspace
from .harness import Budget, run_mutant


def reproduces(mutant: Mutant, signature: str, ws: Workspace, budget: Budget) -> bool:
    return any(f.signature == signature for f in run_mutant(mutant, ws, budget).findings)


def minimize(mutant: Mutant, signature: str, ws: Workspace, budget: Budget = Budget(),
             seconds: float = 120.0) -> Mutant:
    deadline = time.monotonic() + seconds
    lines = mutant.data.splitlines(keepends=True)
    best = mutant
    chunk = max(len(lines) // 2, 1)
    while chunk >= 1 and time.monotonic() < deadline:
        i = 0
        while i < len(lines) and time.monotonic() < deadline:
            cut = lines[:i] + lines[i + chunk:]
            candidate = replace(best, data=b"".join(cut))
            if cut != lines and reproduces(candidate, signature, ws, budget):
                lines, best = cut, candidate
            else:
                i += chunk
        chunk //= 2
    for e in best.extra:
        if time.monotonic() >= deadline:
            break
        candidate = replace(best, extra=tuple(x for x in best.extra if x is not e))
        if reproduces(candidate, signature, ws, budget):
            best = candidate
    return replace(best, ops=best.ops + ("minimized",))
