"""Agents answer decisions. They see only a player's view, never the game state.

An agent is any object with ``choose(view, decision) -> int``: ``view`` is the
JSON-able dict from ``Engine.view(player)`` and ``decision`` the engine's pending
``Decision`` (player, prompt, option labels, rule). The answer is an index into
``decision.options``. An agent whose ``needs_view`` is false never looks at the view;
``run_game`` then hands it an empty dict rather than build one for every decision.
Three agents ship with cardsmith:

- ``RandomAgent``: uniform choice from its own seeded generator (bots, simulation);
- ``HumanAgent``: a person at a terminal, shown their own view only;
- ``ScriptedAgent``: answers from a script, strict: a decision the script does not
  cover is an error (scenario tests).

Two more look ahead, in their own modules (docs/agents.md): ``GreedyAgent``
(interpreter/greedy.py) and ``ISMCTSAgent`` (interpreter/ismcts.py). Their ``searches`` is
true: ``run_game`` calls their ``choose_in(engine)``, and they read the game only through
``interpreter/determinize.py``, which deals again every card their player cannot see. The
agents by name (``random``, ``greedy``, ``ismcts:500``, ``human``) are at the end of this
module: ``parse_agent``, ``parse_agents``, ``seat_agents``.
"""
from __future__ import annotations

import random
import sys
from collections import deque
from typing import TYPE_CHECKING, Any, Iterable, Protocol, TextIO

from cardsmith.dsl.bounds import MAX_ANSWER_CHARS
from cardsmith.dsl.terminal import for_terminal

if TYPE_CHECKING:
    from .engine import Decision


class AgentError(Exception):
    """An agent could not answer a decision (script exhausted, input closed, quit)."""


class ScriptError(AgentError):
    """A scripted agent met a decision its script does not answer."""


class PlayerQuit(AgentError):
    """The person at the terminal chose to leave the game."""


class InputEnded(AgentError):
    """The person's input ended (end of file, a closed or unreadable stdin): the game ends."""


class Agent(Protocol):
    def choose(self, view: dict, decision: "Decision") -> int: ...


def _no_options(decision: "Decision") -> AgentError:
    return AgentError(f"the decision has no options: {decision.prompt}")


class RandomAgent:
    """Picks an option uniformly at random from its own ``random.Random(seed)``."""

    needs_view = False

    def __init__(self, seed: int | None = None):
        self.seed = seed
        self.rng = random.Random(seed)

    def choose(self, view: dict, decision: "Decision") -> int:
        if not decision.options:
            raise _no_options(decision)
        return self.rng.randrange(len(decision.options))

    def __repr__(self) -> str:
        return f"RandomAgent(seed={self.seed!r})"


def random_bits(agent):
    """For an agent whose answer is `RandomAgent.choose`'s, read off the number of options alone:
    its generator's `getrandbits`, with which `run_game` draws the same index `randrange` would
    (`Random._randbelow_with_getrandbits`, written out: `getrandbits(n.bit_length())` until
    below n), without building the decision's labels; None for any other agent (a subclass, a
    generator of another class, a Python whose `randrange` draws otherwise), asked as usual."""
    if type(agent) is not RandomAgent or type(agent.rng) is not random.Random \
            or random.Random._randbelow is not random.Random._randbelow_with_getrandbits:
        return None
    return agent.rng.getrandbits


class ScriptedAgent:
    """Answers from a script: each entry is an option index (int) or an option label (str).

    Strict choice: a decision left when the script is empty, a label that is not
    among the options, or an index out of range raises ``ScriptError`` naming the
    prompt, so a scenario test fails at the decision it did not foresee.
    """

    def __init__(self, choices: Iterable[int | str]):
        self.script: deque[int | str] = deque(choices)
        self.answered: list[tuple[str, str]] = []   # (prompt, label), in order

    @property
    def remaining(self) -> list[int | str]:
        return list(self.script)

    def choose(self, view: dict, decision: "Decision") -> int:
        if not self.script:
            raise ScriptError(f"the script has no answer for: {decision.prompt}")
        answer = self.script.popleft()
        options = list(decision.options)
        if isinstance(answer, bool) or not isinstance(answer, (int, str)):
            raise ScriptError(
                f"the script answer {answer!r} is neither an option number nor a label "
                f"(for: {decision.prompt})")
        if isinstance(answer, int):
            if not 0 <= answer < len(options):
                raise ScriptError(
                    f"the script answer {answer} is out of range for: {decision.prompt} "
                    f"(options 0 to {len(options) - 1}: {_listing(options)})")
            index = answer
        else:
            if answer not in options:
                raise ScriptError(
                    f"the script answer {answer!r} is not an option for: {decision.prompt} "
                    f"(options: {_listing(options)})")
            index = options.index(answer)
        self.answered.append((decision.prompt, options[index]))
        return index


def _listing(options: list[str]) -> str:
    return ", ".join(repr(o) for o in options) if options else "none"


# ---------------------------------------------------------------- the terminal


class HumanAgent:
    """A person at a terminal: shows their view, the prompt and numbered options.

    Reads a 1-based number in ASCII digits (or an option's exact label, ignoring case)
    and asks again on anything else, a line over MAX_ANSWER_CHARS included; ``q`` leaves
    the game (``PlayerQuit``); the end of the input ends it (``InputEnded``). It receives
    only the player's ``view``, so it cannot show other players' hidden information.
    Everything it prints passes the terminal sanitiser (the game's names are a stranger's).
    Uses rich when ``output`` is a terminal, plain text otherwise.
    """

    def __init__(self, input: TextIO | None = None, output: TextIO | None = None):
        self.input = input if input is not None else sys.stdin
        self.output = output if output is not None else sys.stdout

    # -- the dialogue

    def choose(self, view: dict, decision: "Decision") -> int:
        options = list(decision.options)
        if not options:
            raise _no_options(decision)
        self._show(view, decision)
        while True:
            self._write(f"Your choice (1-{len(options)}, q to quit): ", end="")
            line = self._read_line()
            if line is None:
                raise InputEnded(f"no more input: the input ended before an answer to: {for_terminal(decision.prompt)}")
            if not _is_terminal(self.input):     # piped answers: echo them, so the transcript reads
                self._write(line.rstrip("\n"))
            if len(line.rstrip("\r\n")) > MAX_ANSWER_CHARS:
                self._write(f"That answer is too long. Please answer with a number from 1 to {len(options)}.")
                continue
            index = _parse_answer(line, options)
            if index is not None:
                return index
            if line.strip().lower() in ("q", "quit", "exit"):
                raise PlayerQuit(f"{_player_label(view, decision)} left the game")
            self._write(f"Please answer with a number from 1 to {len(options)}.")

    def _read_line(self) -> str | None:
        """One line of input, at most MAX_ANSWER_CHARS + 1 characters kept (the rest of a longer
        line is read and dropped); None when the input is over, closed or unreadable."""
        try:
            line = self.input.readline(MAX_ANSWER_CHARS + 1)
            if line == "":
                return None
            rest = line
            while len(rest) == MAX_ANSWER_CHARS + 1 and not rest.endswith("\n"):
                rest = self.input.readline(MAX_ANSWER_CHARS + 1)    # drop the rest of a long line
            return line
        except (AttributeError, OSError, ValueError, UnicodeDecodeError):
            return None         # stdin closed (None, or a closed file) or not text

    def _show(self, view: dict, decision: "Decision") -> None:
        who = _player_label(view, decision)
        if _is_terminal(self.output):
            self._show_rich(view, decision, who)
            return
        self._write("")
        self._write(f"== {who}: what you see ==")
        for line in format_view(view):
            self._write(line)
        self._write("")
        self._write(f"{who}: {decision.prompt}")
        for number, label in enumerate(decision.options, 1):
            self._write(f"  {number}. {label}")

    def _show_rich(self, view: dict, decision: "Decision", who: str) -> None:
        from rich.console import Console
        from rich.markup import escape
        from rich.panel import Panel

        def safe(text) -> str:
            return escape(for_terminal(text))

        console = Console(file=self.output, highlight=False)
        body = "\n".join(safe(line) for line in format_view(view)) or "(nothing to see)"
        console.print(Panel(body, title=safe(f"{who}: what you see"), expand=False))
        console.print(f"[bold]{safe(who)}:[/bold] {safe(decision.prompt)}")
        for number, label in enumerate(decision.options, 1):
            console.print(f"  [cyan]{number}.[/cyan] {safe(label)}")

    def _write(self, text: str, end: str = "\n") -> None:
        self.output.write(for_terminal(text) + end)
        self.output.flush()


def _parse_answer(line: str, options: list[str]) -> int | None:
    text = line.strip()
    if text.isascii() and text.isdigit():     # not '²' or '٣': int() would take some, not others
        number = int(text) if len(text) <= 9 else 0
        return number - 1 if 1 <= number <= len(options) else None
    folded = [o.casefold() for o in options]
    if text and text.casefold() in folded:
        return folded.index(text.casefold())
    return None


def _is_terminal(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _player_label(view: dict, decision: "Decision") -> str:
    if _is_engine_view(view):
        return str(view["players"][view["you"]]["name"])
    for key in ("name", "player_name"):
        if isinstance(view.get(key), str):
            return view[key]
    return f"Player {decision.player + 1}"


# ---------------------------------------------------------------- the view as text


def format_view(view: dict) -> list[str]:
    """A player's view as text lines: the engine's view laid out for a person, else ``view_lines``.

    The engine's view is ``{"you": seat, "round", "players": [{"name", "out", attr...}],
    "game": {attr...}, "zones": {"deck:0": {"zone", "owner", "count", "cards"}}, ...}``;
    ``cards`` lists the names this player may see (None for a card they may not), or is
    None for a hidden zone. The decision is shown by the agent, so it is left out here.
    """
    if not _is_engine_view(view):
        return view_lines(view)
    you = view["you"]
    players = view["players"]
    lines = [f"Round {view.get('round', 0)}. You are {players[you]['name']}."]
    lines.append("Players:")
    for seat, player in enumerate(players):
        attributes = ", ".join(f"{str(k).replace('_', ' ')} {_inline(v)}"
                               for k, v in player.items() if k not in ("name", "out"))
        marks = " (you)" if seat == you else ""
        marks += " (out)" if player.get("out") else ""
        lines.append(f"  {player['name']}{marks}: {attributes}" if attributes
                     else f"  {player['name']}{marks}")
    if view.get("game"):
        lines.append("Game: " + ", ".join(f"{str(k).replace('_', ' ')} {_inline(v)}"
                                          for k, v in view["game"].items()))
    by_owner: dict[Any, list[dict]] = {}
    for key, zone in view["zones"].items():
        if "/" not in str(key):         # an entity's zone (`cargo:0/1`) is shown under the entity, below
            by_owner.setdefault(zone.get("owner"), []).append(zone)
    entities: dict[Any, list[dict]] = {}
    for ent in view.get("entities") or []:
        if isinstance(ent, dict):
            entities.setdefault(ent.get("owner"), []).append(ent)
    order = [you] + [seat for seat in range(len(players)) if seat != you] + [None]
    for owner in order:
        zones = by_owner.get(owner)
        if zones:
            heading = ("Your zones" if owner == you else "Shared zones" if owner is None
                       else f"{players[owner]['name']}'s zones")
            lines.append(f"{heading}:")
            lines.extend(f"  {zone['zone']}: {_zone_contents(zone)}" for zone in zones)
        for ent in entities.get(owner, []):     # each entity in play: its name, attributes, zones
            lines.extend(_entity_lines(view, ent, owner == you))
    if view.get("stack"):
        lines.append("The stack (top first):")
        lines.extend(f"  {_stack_item(item)}" for item in view["stack"])
    return lines


def _entity_lines(view: dict, ent: dict, yours: bool) -> list[str]:
    """``Your Caravan 1: town Bazaar, trips 0`` and, indented, each of its zones as the player
    may see it (the view's `zones` under the zone's own visibility)."""
    name = ent.get("name") or ent.get("label") or ent.get("kind")
    title = f"Your {name}" if yours and ent.get("name") else str(ent.get("label") or name)
    attributes = ", ".join(f"{str(k).replace('_', ' ')} {_inline(v)}" for k, v in (ent.get("attributes") or {}).items())
    out = [f"{title}: {attributes}" if attributes else f"{title}:"]
    for zone, key in (ent.get("zones") or {}).items():
        held = view["zones"].get(key)
        if held is not None:
            out.append(f"  {zone}: {_zone_contents(held)}")
    return out


def _stack_item(item: dict) -> str:
    """``Player 1: Bolt: Cast it`` or, for a card this player may not see, ``Player 2: a card
    from Player 2's hand``."""
    used = f"{item['card']}: {item['action']}" if item.get("card") is not None \
        else f"a card from {item.get('from', 'somewhere')}"
    return f"{item.get('player')}: {used}" + (" (negated)" if item.get("negated") else "")


def _is_engine_view(view: Any) -> bool:
    return (isinstance(view, dict) and isinstance(view.get("you"), int)
            and isinstance(view.get("players"), list) and isinstance(view.get("zones"), dict)
            and 0 <= view["you"] < len(view["players"])
            and all(isinstance(z, dict) and "zone" in z and "count" in z for z in view["zones"].values()))


def _zone_contents(zone: dict) -> str:
    count = zone["count"]
    cards = zone.get("cards")
    if count == 0:
        return "empty"
    noun = "card" if count == 1 else "cards"
    if cards is None:
        return f"{count} {noun}, hidden"
    seen = [str(c) for c in cards if c is not None]
    unseen = count - len(seen)
    if not seen:
        return f"{count} {noun}, hidden"
    shown = ", ".join(seen)
    return f"{shown} (and {unseen} hidden)" if unseen else shown


def view_lines(view: Any, indent: int = 0) -> list[str]:
    """A player's view as indented text lines, whatever its exact shape.

    Mappings become ``key: value`` lines (nested ones indented), lists of plain
    values are joined with commas, lists of mappings become one line per item
    (a card ``{"name": "Blue Flame", "number": 5}`` reads ``Blue Flame (number 5)``).
    """
    pad = "  " * indent
    if isinstance(view, dict):
        lines: list[str] = []
        for key, value in view.items():
            label = str(key).replace("_", " ")
            if _is_plain(value) or _is_flat_list(value) or _is_flat_dict_small(value):
                lines.append(f"{pad}{label}: {_inline(value)}")
            else:
                lines.append(f"{pad}{label}:")
                lines.extend(view_lines(value, indent + 1))
        return lines
    if isinstance(view, (list, tuple)):
        if not view:
            return [f"{pad}(none)"]
        lines = []
        for item in view:
            if _is_plain(item) or isinstance(item, dict) and all(_is_plain(v) or _is_flat_list(v) for v in item.values()):
                lines.append(f"{pad}- {_inline(item)}")
            else:
                lines.append(f"{pad}-")
                lines.extend(view_lines(item, indent + 1))
        return lines
    return [f"{pad}{_inline(view)}"]


def _is_plain(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _is_flat_list(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and all(_is_plain(v) for v in value)


def _is_flat_dict_small(value: Any) -> bool:
    return isinstance(value, dict) and 0 < len(value) <= 4 and all(_is_plain(v) for v in value.values())


def _inline(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if _is_plain(value):
        return str(value)
    if isinstance(value, (list, tuple)):
        return ", ".join(_inline(v) for v in value) if value else "(none)"
    if isinstance(value, dict):
        name = value.get("name")
        rest = [f"{str(k).replace('_', ' ')} {_inline(v)}" for k, v in value.items() if k != "name"]
        if isinstance(name, str):
            return f"{name} ({', '.join(rest)})" if rest else name
        return ", ".join(rest) if rest else "(none)"
    return str(value)


# ---------------------------------------------------------------- agents by name

AGENT_KINDS = ("random", "greedy", "ismcts", "human")
DEFAULT_ISMCTS_ITERATIONS = 200


class AgentSpecError(ValueError):
    """An agent's name on the command line is not one cardsmith knows; says what is."""


def parse_agent(spec: str) -> tuple[str, dict]:
    """``random``, ``greedy``, ``human``, ``ismcts``, ``ismcts:500`` (iterations per decision)
    or ``ismcts:250ms`` (milliseconds per decision) → (kind, options for the agent)."""
    text = spec.strip().lower()
    kind, _, budget = text.partition(":")
    if kind not in AGENT_KINDS:
        raise AgentSpecError(f"unknown agent '{spec}': the agents are {', '.join(AGENT_KINDS)} "
                             "(ismcts takes a budget: ismcts:500 iterations or ismcts:250ms)")
    if not budget:
        return kind, {}
    if kind != "ismcts":
        raise AgentSpecError(f"the {kind} agent takes no budget: write '{kind}', not '{spec}'")
    number = budget[:-2] if budget.endswith("ms") else budget
    if not (number.isascii() and number.isdigit()) or len(number) > 9 or int(number) < 1:
        raise AgentSpecError(f"the budget in '{spec}' must be a whole number of iterations (ismcts:500) "
                             "or of milliseconds (ismcts:250ms), at least 1")
    if budget.endswith("ms"):
        return kind, {"milliseconds": int(number)}
    return kind, {"iterations": int(number)}


def parse_agents(text: str, players: int) -> list[str]:
    """``ismcts,random`` → one agent name per seat; one name alone plays every seat."""
    specs = [s.strip() for s in text.split(",")]
    for spec in specs:
        parse_agent(spec)
    if len(specs) == 1:
        specs = specs * players
    if len(specs) != players:
        raise AgentSpecError(f"--agents names {len(specs)} agents for {players} seats: "
                             "give one per seat, in seat order, or one for every seat")
    return specs


def make_agent(spec: str, seed: int):
    """The agent `spec` names (see ``parse_agent``), seeded with `seed`."""
    kind, options = parse_agent(spec)
    if kind == "random":
        return RandomAgent(seed)
    if kind == "human":
        return HumanAgent()
    if kind == "greedy":
        from .greedy import GreedyAgent
        return GreedyAgent(seed)
    from .ismcts import ISMCTSAgent
    options.setdefault("iterations", DEFAULT_ISMCTS_ITERATIONS)
    return ISMCTSAgent(seed, **options)


def seat_agents(specs: list[str], seed: int) -> list:
    """One agent per seat from their names; seat k's agent is seeded ``seed * 1000 + k`` (as
    the default random agents are), so a game with the same names and seed replays identically."""
    return [make_agent(spec, seed * 1000 + seat) for seat, spec in enumerate(specs)]
