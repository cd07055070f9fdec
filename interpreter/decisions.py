"""Decisions: where the machine stops for a player to choose, and how the answer comes back.

The rule implemented here is stated in docs/language.md, "Choices: `chooses`, `may`,
`secretly chooses`", and in docs/architecture.md, "Decisions are explicit": a choice stops
the machine with a pending decision (player, prompt, options, labels) kept in the GameState,
so a game can be saved at any decision; `Engine.decide(i)` answers it. From no options the
name is `none` and nobody is asked; one option is taken at once and logged as "forced". A
scenario's `give` scripts answers in advance (docs/language.md, "Scenario statements:
`give`, `expect`, `play`, `stack`"): they are taken in order by the questions that have more than one
option (one with a single option is not asked), and an option may be named by its label; an
answer never used fails the scenario (interpreter/scenario.py).

`Decisions` is mixed into `interpreter/machine.py`'s `Machine`, whose state (`st`, `log`,
`codes`, `where`) it reads through `self`.
"""
from __future__ import annotations

import difflib
import json

from cardsmith.dsl.source import Span

from .errors import GameAborted, RuleError, charge
from .log import is_menu


MAX_LISTED_OPTIONS = 12        # a scripted answer that is no option: the options named, then "and N more"


def _labelled_later(kind, options) -> bool:
    """Whether a question's options are labelled when first read (`Decisions.pending_labels`):
    cards (none of them "nothing"), yes / no, players and an enum's members, whose labels can
    neither fail nor change while the question waits; any other kind's are made when it is asked,
    where making them may fail (a text past its bound)."""
    return (kind == "flag" or kind == "player" or (kind == "card" and None not in options)
            or (kind.__class__ is tuple and kind[0] == "enum"))


def drawing_ask(m, draws: list):
    """`m.ask` where nobody observes (`run_game`: `draws`, per seat, the `getrandbits` of a plain
    random agent, or None; `Machine.drawn` while it is set): the one place a random seat's answer
    is drawn as the machine asks, instead of stopping the machine for `run_game`'s loop to answer
    (RandomAgent.choose: randrange, as Random._randbelow_with_getrandbits draws it, so the same
    index). A question of one option is taken at once. What the machine never changes during a
    game (the draws, the tally, the log, the end checks' mask, the step bound) is read once. With
    the log on, the answer is logged as `decide` logs it (`EventLog.chose`), for a question whose
    labels wait for their first read (making the others may fail: such a question stops, as for
    any agent). Every other question, and one whose answer would wait (an end check to look at
    first, a scenario's script for that seat), goes to `Decisions.ask`."""
    general = m.__class__.ask.__get__(m)
    tally, mask, bound = m.tally, m.prog.check_mask, m.max_steps
    chose = m.log.chose if m.log.on else None

    def ask(player, prompt, options, var, kind, span, secret=False):
        if player is not None:
            n = len(options)
            if n > 1:
                draw = draws[player]
                st = m.st
                if (draw is not None and not (st.script and st.script.get(str(player))) and not m.dirty & mask
                        and (chose is None or _labelled_later(kind, options))):
                    st.work += n            # labelling the options is work (`Decisions.ask`)
                    if st.work > bound:
                        charge(m, 0, span)
                    k = n.bit_length()
                    index = draw(k)
                    while index >= n:
                        index = draw(k)
                    value = st.frames[-1].env[var] = options[index]
                    if tally is not None:
                        tally.real += 1
                    if chose is not None:
                        chose(m, player, prompt, value, span, "chosen", secret, kind)
                    return None
            elif n:                         # one option: taken at once (`Decisions.ask`)
                value = m.st.frames[-1].env[var] = options[0]
                if tally is not None:
                    tally.forced += 1
                if chose is not None:
                    chose(m, player, prompt, value, span, "forced", False, kind)
                return None
        return general(player, prompt, options, var, kind, span, secret)
    return ask


class Decisions:
    """The machine's decisions and the scenario's scripted answers (see the module docstring)."""

    # per seat, the `getrandbits` of a plain random agent whose answers `drawing_ask` draws as the
    # machine asks, or None (run_game sets both while it plays a game nobody observes)
    drawn: list | None = None

    def ask(self, player, prompt: str, options: list, var: str, kind, span, secret: bool = False) -> bool | None:
        """Stop at a decision, or settle it at once when there is at most one option."""
        st = self.st
        if player is None or not options:
            st.frames[-1].env[var] = None
            return
        n = len(options)
        if n == 1:                  # not asked: a scripted answer waits for a real question
            st.frames[-1].env[var] = options[0]
            if self.tally is not None:      # a simulation counts the forced decisions
                self.tally.forced += 1
            if self.log.on:
                self._log_choice(player, prompt, options[0], span, "forced", kind=kind)
            return
        if st.script:               # a scenario's answers, by seat (empty in a game)
            scripted = st.script.get(str(player))
            if scripted:
                self._scripted(player, prompt, options, var, kind, span, scripted)
                return
        st.work += n                # labelling the options is work, not one step (`charge`)
        if st.work > self.max_steps:
            charge(self, 0, span)   # past the bound: its located error
        # labels made when first read, or now (`_labelled_later`)
        labels = None if _labelled_later(kind, options) else self.log.option_labels(self, options, kind, span, player)
        self.brk = True
        st.pending = {"player": player, "prompt": prompt, "options": list(options), "labels": labels,
                      "var": var, "kind": kind if kind.__class__ is str else list(kind),
                      "rule": span.short, "line": span.line, "secret": secret}
        if self.tally is not None:          # ... and those a player is asked
            self.tally.real += 1
        return True

    def _scripted(self, player, prompt: str, options: list, var: str, kind, span, scripted: list) -> None:
        """A scenario's answer, given in advance (`give`), taken by the question `ask` asks."""
        value, given, shown, *at = scripted.pop(0)
        if value not in options and isinstance(value, str):
            # a scenario may name an option by its label ("Bolt: Cast it")
            wanted = value.casefold()
            # (by the referee's label, which names every card, or by the chooser's)
            value = next((o for who in (None, player) for o in options
                          if self.log.option_label(self, o, kind, None, who).casefold() == wanted),
                         value)
        if value not in options and is_menu(kind):
            # `chooses one`: a scenario may give the element itself (a card) for its option
            value = next((o for o in options if len(o) > 1 and o[1] == value), value)
        if value not in options:
            self._not_an_option(player, prompt, options, kind, span, shown, at)
        self.st.frames[-1].env[var] = value
        self._log_choice(player, prompt, value, span, "scripted", kind=kind)

    def pending_labels(self) -> list[str]:
        """The labels of the pending decision's options, as its chooser reads them: made at the
        first read and kept in the state (`GameState.pending["labels"]`; `ask` leaves None where
        they are made at the first read). Every reader of the labels reads them here (the engine's
        `pending`, `view`, `decide`'s error and `save`)."""
        pend = self.st.pending
        labels = pend["labels"]
        if labels is None:
            labels = pend["labels"] = self.log.option_labels(self, pend["options"], pend["kind"], None,
                                                             pend["player"])
        return labels

    def decide(self, index: int) -> None:
        pend = self.st.pending
        value = pend["options"][index]
        self.st.frames[-1].env[pend["var"]] = value
        self.st.pending = None
        if not self.log.on:         # nothing else to do: logging the choice is all that follows
            return
        code, pc = self.codes[self.st.frames[-1].code_id], self.st.frames[-1].pc - 1
        span = code.spans[pc]
        kind = pend["kind"] if isinstance(pend["kind"], str) else tuple(pend["kind"])
        try:            # logging the choice meets the text and log bounds: a located abort, as in run
            self._log_choice(pend["player"], pend["prompt"], value, span, "chosen",
                             secret=pend.get("secret", False), kind=kind)
        except RuleError as err:
            raise GameAborted(err.code or "E0802", err.message, err.span or self.where(code, pc), err.hint) from None

    def _log_choice(self, player, prompt, value, span, how, secret=False, kind=None) -> None:
        if self.log.on:
            self.log.chose(self, player, prompt, value, span, how, secret, kind)

    def _not_an_option(self, player, prompt, options, kind, span, shown, at) -> None:
        """A scripted answer that is none of the options: the scenario stops at its `give` line,
        naming the question (where it is asked, its prompt), the options offered and the closest."""
        charge(self, len(options), span)
        labels = self.log.option_labels(self, options, kind, span)
        listed = ", ".join(labels[:MAX_LISTED_OPTIONS])
        if len(labels) > MAX_LISTED_OPTIONS:
            listed += f" and {len(labels) - MAX_LISTED_OPTIONS} more"
        asked = f" ({json.dumps(prompt, ensure_ascii=False)})" if prompt else ""
        near = difflib.get_close_matches(str(shown).strip('"').casefold(),
                                         [lab.casefold() for lab in labels], n=1, cutoff=0.5)
        pick = labels[[lab.casefold() for lab in labels].index(near[0])] if near else labels[0]
        seat = f"seat {player + 1}"
        said = json.dumps(pick, ensure_ascii=False)
        hint = (f"did you mean {said}? write: give {seat} the choice {said}" if near else
                f"give one of the options by its name, e.g. give {seat} the choice {said}")
        where = Span(*at[0]) if at and isinstance(at[0], list) and len(at[0]) == 5 else span
        raise RuleError(f"the scenario gives {self.log.player_name(player)} the choice {shown}, which is not "
                        f"one of the options of the question at {span.short}{asked}: {listed}", where, hint)

    def give(self, player, choice, span, t=None) -> None:
        """A scenario's `give`: the player's next answer, taken in order by the next question with more
        than one option; kept with where it was given, for a scenario that ends with it unused."""
        shown = self.log.typed(self, choice, t)
        shown = json.dumps(shown, ensure_ascii=False) if isinstance(shown, str) and choice is not None \
            else str(self.log.value(self, shown))
        # where it was given, in full: an answer that is no option stops the scenario at this line
        at = [span.path, span.line, span.column, span.end_line, span.end_column]
        self.st.script.setdefault(str(player), []).append([choice, span.short, shown, at])
