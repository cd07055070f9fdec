"""The machine's side of scenarios: the events a scenario may ask about, and a round paused at a step.

The rules implemented here are stated in docs/language.md, "Scenarios":

* `expect event moved where ... happened` asks about every event so far, listened to or not:
  a scenario's machine announces every built-in event and keeps each event it announces
  (`history`: name, parameters, how many log events came before it). A game played outside a
  scenario keeps nothing and announces only what something listens to.
* `play until step "Battle"` stops the game where that step (or phase) would begin: the frames
  of the round in progress are set aside (`parked`) and the scenario goes on with its next
  statement; the next `play` puts them back, and the round goes on from that step.

`Scenarios` is mixed into `interpreter/machine.py`'s `Machine`, whose state (`st`, `log`,
`listened`) it reads through `self`.
"""
from __future__ import annotations

from cardsmith.dsl.registry import EVENTS, STEP_STARTED


class Scenarios:
    """Events kept for a scenario, and a round paused at a step (see the module docstring)."""

    history: list | None = None     # [(event, parameters, log events before it)], in a scenario only
    stop_at: tuple | None = None    # (step name, frame depth) a `play until step` waits for
    parked: list | None = None      # the frames set aside where that step would begin
    parked_at: str = ""             # ... and the name of that step

    def expect(self, ok: bool, span, failure: list | None = None) -> None:
        """The log says whether an expectation held; a false one keeps its failure, the lines
        [where, what failed, why ...] (interpreter/compile_scenario.py), for the scenario's report."""
        if self.log.on:
            self.log.emit(self, "expect", span, {"ok": ok}, "expectation met" if ok else "expectation FAILED")
        if not ok:
            self.st.failures.append(failure if failure is not None else [span.short, "expectation failed"])

    def keep_history(self) -> None:
        """From now on every event is announced and kept, whether or not a rule listens to it."""
        self.history = []
        self.listened = set(self.listened) | set(EVENTS)
        self.move_triggers = True
        self.plain_steps = False        # `step_started` is listened to now (Machine.plain_steps)

    def remember(self, event: str, param_sets) -> None:
        at = len(self.log.events)
        for params in param_sets:
            self.history.append((event, {k: v for k, v in params.items() if not k.startswith("$")}, at))

    def park(self) -> bool | None:
        """The step waited for would begin: set the frames above the `play` aside, so that the step
        begins again when they are put back (`resume`). None (go on) when the round was stopped
        at this very step and is put back: the next time it begins is the one waited for."""
        name, depth, again = self.stop_at
        if again:
            self.stop_at = (name, depth, False)
            return None
        self.stop_at = None
        self.plain_steps = STEP_STARTED not in self.listened     # Machine.plain_steps
        self.parked_at = name
        frames = self.st.frames
        frames[-1].pc -= 1                  # the instruction that begins the step runs again
        self.parked = frames[depth:]
        del frames[depth:]
        if self.log.on:
            self.log.emit(self, "paused", None, {"before": name}, f"the scenario stops before {name} begins")
        self.brk = True
        return True

    def resume(self) -> bool:
        """Put the frames set aside back on top: the round goes on from the step it stopped at."""
        parked, self.parked = self.parked, None
        if not parked:
            return False
        self.st.frames.extend(parked)
        self.brk = True
        return True


__all__ = ["Scenarios"]
