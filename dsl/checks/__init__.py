"""The check passes, run in this order by dsl/loader.py. Each is one module with one function
of the same name; each reports into a DiagnosticSink and never raises for bad input."""
from .bodies import bodies
from .cards import cards
from .declarations import declarations

PASSES = ("declarations", "cards", "bodies")

__all__ = ["PASSES", "bodies", "cards", "declarations"]
