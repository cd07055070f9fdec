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
    signature: str               # what the harness reports for it; a hang's may end in "*" (where
                                 # the alarm lands varies), matched as a prefix
    reason: str                  # the defect, in one line (the xfail reason while open)
    open: bool = True
    extra: tuple[Extra, ...] = ()
    seconds: float = 10.0        # the time budget per target to run it under

    def matches(self, signature: str) -> bool:
        if self.signature.endswith("*"):
            return signature.startswith(self.signature[:-1])
        return signature == self.signature

    def mutant(self) -> Mutant:
        return Mutant(f"tests/fuzz/found/{self.file}", (HERE / self.file).read_bytes(), ("found",), self.extra)


FOUND: tuple[Found, ...] = (
    Found("decision_with_10000_options.cards", "hang:play:interpreter/resolver.py:*",
          "a decision over 10,000 cards is one step but ~10 ms of work (usable actions, option "
          "labels): MAX_STEPS does not bound a game's time", seconds=2.0,
          open=False),        # fixed: items of work count against MAX_STEPS (interpreter/errors.py charge)
)


def is_known_open(signature: str) -> bool:
    """Whether a signature is a defect still open (the short fuzz run tolerates these only)."""
    return any(f.open and f.matches(signature) for f in FOUND)
