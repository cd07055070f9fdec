"""Diagnostics are data: a stable code, severity, message, span, notes and a hint.

Rendering lives in dsl/render.py; this module only defines the data and the
exception that carries a list of diagnostics out of the library.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .source import Span


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str            # stable, documented in docs/errors.md, e.g. "E0201"
    message: str         # one line, designer's words: "unknown zone 'dek'"
    span: Span
    hint: str | None = None          # "did you mean 'deck'?"
    notes: tuple[str, ...] = ()
    severity: str = "error"          # "error" | "warning"


class CardsmithError(Exception):
    """Raised by the library when a file has errors; carries every diagnostic found."""

    def __init__(self, diagnostics: list[Diagnostic], sources: dict[str, "object"] | None = None):
        self.diagnostics = list(diagnostics)
        self.sources = sources or {}
        first = self.diagnostics[0] if self.diagnostics else None
        super().__init__(f"{first.span}: {first.message}" if first else "cardsmith error")


@dataclass
class DiagnosticSink:
    """Collects diagnostics from the check passes (all of them, by default)."""

    items: list[Diagnostic] = field(default_factory=list)
    fail_fast: bool = False

    def error(self, code: str, message: str, span: Span, hint: str | None = None,
              notes: tuple[str, ...] = ()) -> None:
        self.items.append(Diagnostic(code, message, span, hint, notes))
        if self.fail_fast:
            raise CardsmithError(self.items)

    def warning(self, code: str, message: str, span: Span, hint: str | None = None) -> None:
        self.items.append(Diagnostic(code, message, span, hint, (), "warning"))

    @property
    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.items)
