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
