"""Errors the runtime raises, as located diagnostics (never a bare Python traceback)."""
from __future__ import annotations

from cardsmith.dsl.diagnostics import CardsmithError, Diagnostic


class RuleError(Exception):
    """A rule did something impossible while running (compile- or run-time); carries its span,
    and the code of the bound it hit, if any (else the machine reports E0802)."""

    def __init__(self, message: str, span, hint: str | None = None, code: str | None = None):
        super().__init__(message)
        self.message, self.span, self.hint, self.code = message, span, hint, code


class GameAborted(CardsmithError):
    """The game could not go on: it ran past its step bound, or a rule failed at run time."""

    def __init__(self, code: str, message: str, span, hint: str | None = None, sources=None):
        super().__init__([Diagnostic(code, message, span, hint)], sources or {})


class IllegalDecision(ValueError):
    """An agent answered a decision with something that is not one of its options."""


def charge(m, items: int, span) -> None:
    """Count `items` of work done by one instruction: a list built item by item, the options of
    a decision, the cards searched for usable actions. One instruction may do thousands of items
    of work, so the step bound alone would not bound a game's time; past `max_steps` items of work
    in all the game stops with E0801, as it does past that many instructions. The count is part of
    the state (`GameState.work`), so a restored game stops where the original would."""
    st = m.st
    st.work += items
    if st.work > m.max_steps:
        raise RuleError(f"the game did more than {m.max_steps:,} items of work (lists built, options "
                        "offered, cards searched: the bound MAX_STEPS counts them as it counts steps)",
                        span, "a rule may loop forever or build ever larger lists: check the loops and the "
                        "end conditions; a long game may raise the bound with --max-steps N", code="E0801")
