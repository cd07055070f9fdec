"""Reproducers of defects the fuzzer found: regression inputs for tests/test_fuzz.py.

Each entry names a reproducer in this folder (the mutated file; the harness writes it as
mutant.cards beside the seed files, so `extends "space_war_in_space.cards"` still works), the
signature the harness gives the defect, and why it is wrong. While a defect is open its test is
xfail(strict=True) and the short fuzz run tolerates that one signature; the fix makes the test
pass, strict xfail turns that into a failure, and whoever fixed it sets open=False: from then on
the reproducer is an ordinary regression test and the signature is no longer tolerated.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..corpus import Extra, Mutant

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True, slots=True)
class Found:
    file: str                    # the reproducer, in this folder
    signature: str               # what the harness reports for it (tests/fuzz/harness.py)
    reason: str                  # the defect, in one line (the xfail reason while open)
    open: bool = True
    extra: tuple[Extra, ...] = ()

    def mutant(self) -> Mutant:
        return Mutant(f"tests/fuzz/found/{self.file}", (HERE / self.file).read_bytes(), ("found",), self.extra)


FOUND: tuple[Found, ...] = (
)


def known_open() -> frozenset[str]:
    """The signatures of the defects still open (the short fuzz run tolerates these only)."""
    return frozenset(f.signature for f in FOUND if f.open)
