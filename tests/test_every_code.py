"""Every code documented in docs/errors.md is raised by a test: one table, CASES.

Each case is the smallest input that makes cardsmith report one code: a .cards text for the
parser and the checker, files on disk for the loader (sizes, encodings, includes), a game
played until it aborts for the runtime (E07xx, E08xx). The test asserts that the code is the
first diagnostic, at the expected file and line, with a message, and that dsl/render.py shows
that line with a caret under it — what a designer sees.

Two codes only a bug in cardsmith can raise (E0000 the parser's explainer failed, E0900 a check
pass failed) and one the checker is meant to make unreachable (E0804 a rule could not be
carried out) are triggered by making an internal function raise: the case proves the guard
turns an internal exception into a located diagnostic instead of a traceback.

A code added to docs/errors.md without a case here fails `test_every_documented_code_has_a_case`.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from cardsmith.dsl import fmt, loader, syntax_errors
from cardsmith.dsl.bounds import (MAX_CARD_COPIES, MAX_CARDS, MAX_DIAGRAM_NODES, MAX_FILE_BYTES,
                                  MAX_INCLUDE_DEPTH, MAX_INCLUDED_FILES, MAX_NUMBER, MAX_PLAYERS, MAX_STRING_LENGTH,
                                  MAX_TOTAL_BYTES)
from cardsmith.dsl.diagnostics import CardsmithError, Diagnostic
from cardsmith.dsl.loader import check_file, check_source, load_text
from cardsmith.dsl.render import render_diagnostic
from cardsmith.dsl.source import Source
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game

ROOT = Path(__file__).resolve().parent.parent
GAME = "game.cards"
HEAD = 'game "T":\n    players: 2 to 2\n'          # lines 1-2 of most cases: the smallest game

Result = tuple[list[Diagnostic], Mapping[str, object]]
Trigger = Callable[[Path, pytest.MonkeyPatch], Result]


@dataclass(frozen=True)
class Case:
    code: str
    line: int               # where the diagnostic must point
    trigger: Trigger
    file: str = GAME        # the name of the file it must point into


# ---------------------------------------------------------------- ways to trigger a code

def checked(text: str) -> Trigger:
    """Check `text` as the file game.cards."""
    def run(tmp_path, monkeypatch) -> Result:
        _, diags, sources = check_source(Source(GAME, text))
        return diags, sources
    return run


def on_disk(files: Mapping[str, str | bytes], main: str = GAME) -> Trigger:
    """Write `files` under a fresh folder and check its `main` file from disk."""
    def run(tmp_path, monkeypatch) -> Result:
        for name, content in files.items():
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        return check_file(str(tmp_path / main))
    return run


def played(text: str, players: int = 2, max_steps: int | None = None) -> Trigger:
    """Check `text`, then play it with random bots; the diagnostics of the abort."""
    def run(tmp_path, monkeypatch) -> Result:
        game = load_text(text, GAME)
        try:
            run_game(game, players, seed=0, max_steps=max_steps)
        except CardsmithError as err:       # GameAborted, or the engine refusing to start
            return err.diagnostics, err.sources
        return [], game.sources
    return run


def scenario_run(text: str, name: str = "s", players: int = 2) -> Trigger:
    """Check `text`, then run its scenario `name` as `cardsmith test` does; the diagnostics of the abort."""
    def run(tmp_path, monkeypatch) -> Result:
        from cardsmith.interpreter.program import program_for
        game = load_text(text, GAME)
        try:
            Engine(game, players, 0, _start=program_for(game).scenarios[name], _scenario=True)
        except CardsmithError as err:
            return err.diagnostics, err.sources
        return [], game.sources
    return run


def played_in(extra_bytes: int, text: str) -> Trigger:
    """`played`, with the memory bound set to `extra_bytes` over what the process holds."""
    def run(tmp_path, monkeypatch) -> Result:
        from cardsmith.interpreter.memory import memory_bound
        with memory_bound(extra_bytes):
            return played(text)(tmp_path, monkeypatch)
    return run


def patched(owner: object, name: str, trigger: Trigger) -> Trigger:
    """Run `trigger` with `owner.name` replaced by a function that raises (a bug in cardsmith)."""
    def raises(*args, **kwargs):
        raise KeyError("a bug planted by tests/test_every_code.py")

    def run(tmp_path, monkeypatch) -> Result:
        monkeypatch.setattr(owner, name, raises)
        return trigger(tmp_path, monkeypatch)
    return run


def formatted(text: str) -> Trigger:
    """`cardsmith fmt` of `text` (dsl/fmt.py): the diagnostics it refuses with."""
    def run(tmp_path, monkeypatch) -> Result:
        try:
            fmt.format_text(text, GAME)
        except CardsmithError as err:
            return err.diagnostics, err.sources
        return [], {}
    return run


def _chips(visibility: str, name: str) -> str:
    """Lines 3-8: a zone `box` and 400 copies of one card named `name` in it."""
    return (f"zone box: shared, {visibility}\ncard type C:\n    v: number = 0\ncards C in box:\n"
            f'    | name | copies |\n    | "{name}" | 400 |\n')


def _include_chain(levels: int) -> dict[str, str]:
    """level0.cards (the game) imports level1.cards, which imports level2.cards, and so on."""
    files = {f"level{i}.cards": f'import "level{i + 1}.cards"\n' for i in range(levels)}
    files["level0.cards"] += HEAD
    files[f"level{levels}.cards"] = "enum Side: up, down\n"
    return files


def _table(header: str, row: str, field: str = "power: number", zone: str = "zone box: shared") -> str:
    """HEAD, a card type Unit with one field, a zone and a one-row card table (the row is line 8)."""
    return HEAD + f"card type Unit:\n    {field}\n{zone}\ncards Unit in box:\n    {header}\n    {row}\n"


def _deck_game(*rules: str, head: str = "decks from pool into deck:") -> str:
    """HEAD, a pool and a deck zone, a card type C (cost, tag), the deck rules on line 8 and their
    lines from line 9, then the pool: "A" (cost 1, 2 copies) and "B" (cost 2, 1 copy)."""
    return (HEAD + "zone pool: shared, hidden\nzone deck: per player, hidden\ncard type C:\n"
            "    cost: number = 1\n    tag: flag = no\n" + head + "\n" + "".join(f"    {r}\n" for r in rules)
            + 'cards C in pool:\n    | name | cost | copies |\n    | "A" | 1 | 2 |\n    | "B" | 2 | 1 |\n')


def deck_checked(game: str, deck: str) -> Trigger:
    """`cardsmith deck check` of the deck file red.deck (text `deck`) against the game `game`."""
    def run(tmp_path, monkeypatch) -> Result:
        from cardsmith.dsl.decks import check_deck, parse_deck
        loaded = load_text(game, GAME)
        parsed, problems = parse_deck(deck, "red.deck")
        return problems or check_deck(loaded, parsed), {**loaded.sources, "red.deck": parsed.source}
    return run


LONGEST = "x" * MAX_STRING_LENGTH       # the longest text a file may hold
# MAX_CARDS cards in full copies (rows from line 8), then one card more: on line TOO_MANY_AT
TOO_MANY_AT = 8 + MAX_CARDS // MAX_CARD_COPIES
_FULL_ROWS = "".join(f'    | "C{i}" | 1 | {MAX_CARD_COPIES} |\n' for i in range(MAX_CARDS // MAX_CARD_COPIES))
TOO_MANY_CARDS = (HEAD + "card type Unit:\n    power: number\nzone box: shared\ncards Unit in box:\n"
                  "    | name | power | copies |\n" + _FULL_ROWS + '    | "Last" | 1 | 1 |\n')
# files of this size: four fit in MAX_TOTAL_BYTES (with the game's own file), five do not
_QUARTER = "#" * (MAX_TOTAL_BYTES // 4 - 100_000) + "\n"
assert len(_QUARTER) <= MAX_FILE_BYTES


def published(templates: Mapping[str, str | bytes], text: str = HEAD, fmt: str = "md",
              setup: Callable[[pytest.MonkeyPatch], None] | None = None) -> Trigger:
    """Write the rulebook of `text` (game.cards) with `templates` in a --templates folder."""
    def run(tmp_path, monkeypatch) -> Result:
        from cardsmith.dsl.publish.rulebook import write_rulebook

        folder = tmp_path / "templates"
        folder.mkdir()
        for name, content in templates.items():
            (folder / name).write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
        game = load_text(text, str(tmp_path / GAME))
        if setup:
            setup(monkeypatch)
        try:
            write_rulebook(game, tmp_path / "out", fmt, folder)
        except CardsmithError as err:
            return err.diagnostics, err.sources
        return [], game.sources
    return run


def drawn(text: str, setup: Callable[[pytest.MonkeyPatch], None] | None = None) -> Trigger:
    """Draw the zone diagram of `text` (game.cards) as `cardsmith diagram` does."""
    def run(tmp_path, monkeypatch) -> Result:
        from cardsmith.dsl.publish.diagrams import draw

        game = load_text(text, str(tmp_path / GAME))
        if setup:
            setup(monkeypatch)
        try:
            draw(game, "zones")
        except CardsmithError as err:
            return err.diagnostics, err.sources
        return [], game.sources
    return run


def _chromium_fails(monkeypatch) -> None:
    from cardsmith.dsl.publish import browser

    def fails(*args, **kwargs):
        raise browser.BrowserFailed("Chromium took longer than 120 seconds to print the rulebook")
    monkeypatch.setattr(browser, "print_html", fails)


def _graphviz_fails(monkeypatch) -> None:
    from cardsmith.dsl.publish import diagrams

    def fails(*args, **kwargs):
        raise diagrams.DiagramFailed("Graphviz took longer than 60 seconds to lay it out")
    monkeypatch.setattr(diagrams, "to_svg", fails)


def _templates_get_a_second(monkeypatch) -> None:
    from cardsmith.dsl.publish import apart
    monkeypatch.setattr(apart, "TEMPLATE_SECONDS", 1)


def _writers_get_python_default(monkeypatch) -> None:
    from cardsmith.dsl.publish import apart
    monkeypatch.setattr(apart, "PUBLISH_FRAMES", 1000)


MANY_ZONES = HEAD + "".join(f"zone z{i}: shared\n" for i in range(MAX_DIAGRAM_NODES + 1))
LOOPS = "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}"


# ---------------------------------------------------------------- the table

CASES: tuple[Case, ...] = (
    # --- syntax (dsl/syntax_errors.py) ---
    Case("E0000", 4, patched(syntax_errors, "_explain", checked(HEAD + "setup:\n    let total = 3\n"))),
    Case("E0001", 3, checked(HEAD + "setup\n    shuffle every deck\n")),
    Case("E0002", 5, checked(HEAD + 'cards Unit in box:\n    | name    | power |\n    | "Scout" | 1\n')),
    Case("E0003", 4, checked(HEAD + 'setup:\n    say "hello\n')),
    Case("E0004", 4, checked(HEAD + "setup:\n    move top card of your deck\n")),
    Case("E0005", 4, checked(HEAD + "setup:\n    let total = 3\n")),
    Case("E0006", 4, checked(HEAD + "setup:\n    if:\n        stop\n")),
    Case("E0007", 5, checked(HEAD + "setup:\n    shuffle every deck\n        stop\n")),
    Case("E0008", 6, checked(HEAD + 'round "Turn":\n    step "Draw":\n        stop\n      stop\n')),
    Case("E0009", 5, checked(HEAD + "setup:\n    shuffle every deck\n\tstop\n")),
    Case("E0010", 3, checked(HEAD + "procdure deal():\n    stop\n")),
    Case("E0011", 3, checked(HEAD + "setup:\nstop\n")),
    Case("E0012", 4, checked(HEAD + "setup:\n    deal(3, your deck\n    stop\n")),
    Case("E0013", 3, checked(HEAD + "define total() as 3)\n")),
    Case("E0014", 3, checked(HEAD + "enum Colour: red, gr\u00fcn\n")),
    Case("E0015", 4, checked(HEAD + "setup:\n    set your score = 0\n")),
    Case("E0016", 3, checked(HEAD + "procedure deal:\n    stop\n")),
    Case("E0017", 4, checked(HEAD + "cards Unit in box:\n    | name | power |\n")),
    Case("E0018", 3, checked(HEAD + 'card "Scout": Unit in deck:\n    power = 1\n')),
    Case("E0019", 3, checked(HEAD + "zone deck: per player, shuffled\n")),
    Case("E0020", 4, checked(HEAD + "setup:\n    if x == 3:\n        stop\n")),
    Case("E0021", 4, checked(HEAD + "card type Unit:\n    when: number\n")),
    Case("E0022", 3, checked(HEAD + "keyword Swift():\n    \"Moves first.\"\n")),
    # --- declarations (dsl/checks/declarations.py) ---
    Case("E0101", 3, checked(HEAD + "keyword Farsight(x: nunber):\n    when round_started:\n        stop\n")),
    Case("E0102", 4, checked(HEAD + "enum Side: up, down\nenum Side: left, right\n")),
    # points at the players: line it is about, not the game block's first line
    Case("E0103", 2, checked('game "T":\n    players: 6 to 2\n')),
    Case("E0104", 4, checked(HEAD + "card type Unit:\n    name: text\n")),
    Case("E0105", 1, checked("enum Side: up, down\n")),
    Case("E0106", 5, checked(HEAD + 'round "A":\n    say "a"\nround "B":\n    say "b"\n')),
    Case("E0107", 4, checked(HEAD + "keyword Farsight(x: number):\n    range: number\n")),
    Case("E0108", 4, checked(HEAD + f"game has:\n    n: number = {MAX_NUMBER + 1}\n")),
    Case("E0109", 4, checked(HEAD + f'setup:\n    say "{LONGEST}x"\n')),
    Case("E0110", 2, checked(f'game "T":\n    players: 2 to {MAX_PLAYERS + 1}\n')),
    Case("E0111", 3, checked(HEAD + "override as soon as count(players) = 1:\n    first(players) wins\n")),
    Case("E0112", 3, checked(HEAD + "zone pool: shared, face down known to its owner\n")),
    Case("E0113", 4, checked(HEAD + "player toward a player has:\n    intel: number = 0, reset each turn\n")),
    Case("E0120", 5, checked(HEAD + "card type System:\n    tier: number\n    back shows: teir\n")),
    Case("E0135", 5, checked(HEAD + "card type System:\n    tier: number\n    parts tier: 2\n        built: flag = no\n")),
    # --- names (dsl/types.py, dsl/checks/) ---
    Case("E0201", 4, checked(HEAD + 'setup:\n    for each p in playerz:\n        say "hi"\n')),
    Case("E0202", 3, checked(HEAD + "as soon as frist(players) = none:\n    the game is a draw\n")),
    Case("E0203", 6, checked(HEAD + "player has:\n    score: number = 0\nsetup:\n    set seat 1.scroe to 1\n")),
    Case("E0204", 6, checked(_table("| name | pwr |", '| "A" | 1 |'))),
    Case("E0205", 5, checked(HEAD + "zone box: shared\nsetup:\n    shuffle seat 1's box\n")),
    Case("E0206", 5, checked(HEAD + "zone deck: per player\nsetup:\n    shuffle seat 1's dek\n")),
    Case("E0207", 5, checked(HEAD + 'card type Unit:\n    power: number\ncards Unit in bx:\n'
                                     '    | name | power |\n    | "A" | 1 |\n')),
    Case("E0208", 4, checked(HEAD + "setup:\n    flip this face up\n")),
    Case("E0209", 4, checked(HEAD + 'zone box: shared\ncards Unt in box:\n    | name |\n    | "A" |\n')),
    Case("E0210", 4, checked(HEAD + "setup:\n    announce boom()\n")),
    Case("E0211", 4, checked(HEAD + "setup:\n    deal()\n")),
    Case("E0212", 4, checked(HEAD + "setup:\n    roll 3 White dice as r\n")),
    # dice pools and limited supplies (tests/test_dice_pools_and_supply.py)
    Case("E0130", 3, checked(HEAD + "zone hold: shared, discard down into slag\nzone slag: shared\n")),
    Case("E0131", 3, checked(HEAD + "zone hold: per player, at most 2, discard down into slog\nzone slag: shared\n")),
    Case("E0460", 6, checked(HEAD + "die D: [one]\nsetup:\n    let attack be 3\n    roll 1 D dice into attack\n")),
    Case("E0461", 6, checked(HEAD + "die D: [one]\nsetup:\n    roll 2 D dice as pool attack\n    reroll 1 in attack\n")),
    Case("E0462", 6, checked(HEAD + "die D: [one]\nsetup:\n    roll 2 D dice as pool attack\n"
                                     "    turn first(attack) in attack to [two]\n")),
    Case("E0463", 6, checked(HEAD + "player has:\n    gold: number = 0\nsetup:\n"
                                     "    give out 2 gold from bank to each player starting with seat 1\n")),
    Case("E0213", 8, checked(HEAD + 'zone box: shared\ncard type Unit:\n    power: number\n'
                                     'card "A": Unit in box\n    power = 1\n    keyword Farsigt(2)\n')),
    Case("E0214", 6, checked(HEAD + "player has:\n    score: number = 0\nsetup:\n    add 1 to your score\n")),
    Case("E0215", 4, checked(HEAD + 'procedure heal(p):\n    for each p in players:\n        say "x"\n'
                                     "setup:\n    heal(seat 1)\n")),
    # --- arity ---
    Case("E0301", 6, checked(HEAD + 'procedure deal(p):\n    say "x"\nsetup:\n    deal()\n')),
    Case("E0302", 3, checked(HEAD + "as soon as count(players, players) = 0:\n    the game is a draw\n")),
    Case("E0303", 6, checked(HEAD + 'procedure refill(p):\n    say "x"\nsetup:\n    let x be refill(1)\n')),
    # --- types ---
    Case("E0401", 4, checked(HEAD + "zone pile: shared\nas soon as count(pile) = 0:\n    the game is a draw\n")),
    Case("E0402", 3, checked(HEAD + "as soon as 3.strength = 0:\n    the game is a draw\n")),
    Case("E0403", 5, checked(HEAD + "zone deck: per player\nsetup:\n"
                                     "    move top card of seat 1's deck to seat 1\n")),
    Case("E0404", 4, checked(HEAD + 'setup:\n    for each p in 3:\n        say "x"\n')),
    Case("E0405", 3, checked(HEAD + 'as soon as "a" > 2:\n    the game is a draw\n')),
    Case("E0406", 3, checked(HEAD + "as soon as seat 1 = 3:\n    the game is a draw\n")),
    Case("E0407", 3, checked(HEAD + "as soon as 3 is empty:\n    the game is a draw\n")),
    Case("E0408", 6, checked(HEAD + "player has:\n    score: number = 0\nsetup:\n"
                                     "    add \"x\" to seat 1's score\n")),
    Case("E0409", 5, checked(HEAD + "zone deck: per player\nsetup:\n    move seat 1 to seat 1's deck\n")),
    Case("E0410", 5, checked(HEAD + "setup:\n    let x be 1\n    set x to 2\n")),
    Case("E0411", 4, checked(HEAD + "setup:\n    stop\n")),
    Case("E0412", 4, checked(HEAD + "setup:\n    seat 0 wins\n")),
    Case("E0413", 4, checked(HEAD + "setup:\n    play setup\n")),
    Case("E0414", 4, checked(HEAD + "setup:\n    none wins\n")),
    Case("E0415", 4, checked(HEAD + "enum Suit: cups, coins\nas soon as item 3 of Suit = cups:\n    the game is a draw\n")),
    Case("E0431", 4, checked(HEAD + "setup:\n    the highest score wins\n")),
    Case("E0430", 7, checked(HEAD + 'setup:\n    seat 1 chooses one:\n        "Pass":\n            say "a"\n'
                                    '        "Pass":\n            say "b"\n')),
    Case("E0450", 4, checked(HEAD + 'card type Gun:\n    action "Fire" target t from 3:\n        say "bang"\n')),
    Case("E0451", 4, checked(HEAD + 'card type Gun:\n    action "Fire" target t from players, target t from players:\n'
                             '        say "bang"\n')),
    Case("E0440", 10, checked(_table("| name | power |", '| "A" | 1 |')
                              + "setup:\n    resolve the text of first(cards in box)\n")),
    # --- card values (dsl/checks/cards.py) ---
    Case("E0501", 8, checked(_table("| name | power |", '| "A" | many |'))),
    Case("E0502", 8, checked(_table("| name | power |", '| "A" | 0 |', field="power: number, at least 1"))),
    Case("E0503", 9, checked("enum Colour: red, blue\n" + _table("| name | colour |", '| "A" | bleu |',
                                                                  field="colour: Colour"))),
    Case("E0504", 6, checked(_table("| name | power |", '| "A" | 1 |', zone="zone deck: per player")
                             .replace("cards Unit in box", "cards Unit in deck"))),
    Case("E0505", 6, checked(_table("| power |", "| 1 |"))),
    Case("E0506", 8, checked(_table("| name | power |", '| "A" |'))),
    # an empty cell (none) is no value; a missing column would give the field's default (0)
    Case("E0507", 8, checked(_table("| name | power |", '| "A" | none |'))),
    Case("E0508", 8, checked(_table("| name | power | copies |", f'| "A" | 1 | {MAX_CARD_COPIES + 1} |'))),
    Case("E0509", TOO_MANY_AT, checked(TOO_MANY_CARDS)),
    Case("E0510", 11, checked(_table("| name | power |", '| "A" | 1 |\n        text:\n            say "a"\n'
                                                          '        text:\n            say "b"'))),
    Case("E0511", 9, checked(_table("| name | home |", '| "A" | camp |', field="home: zone",
                                    zone="zone box: shared\nzone camp: per player"))),
    Case("E0530", 9, checked(_table("| name | belts |", '| "A" | 500 |', field="parts belts: 2\n        built: flag = no"))),
    Case("E0520", 8, checked(_table("| name | escort |", '| "A" | ["A"] |', field="escort: list of Unit"))),
    # --- decks (dsl/decks.py, interpreter/decks.py) ---
    Case("E0601", 8, checked(_deck_game("exactly 2 C", head="decks from deck into deck:"))),
    Case("E0602", 8, checked(_deck_game("exactly 2 C", head="decks from pool:"))),
    Case("E0603", 9, checked(_deck_game("the tag of C cards adds up to at most 3"))),
    Case("E0604", 10, checked(_deck_game("exactly 2 C", "at most 1 C"))),
    Case("E0610", 2, deck_checked(_deck_game("exactly 2 C"), 'title: Red\n3\n'), file="red.deck"),
    Case("E0611", 2, deck_checked(_deck_game("exactly 2 C"), '1 "A"\n1 "Q"\n1 "B"\n'), file="red.deck"),
    Case("E0613", 1, deck_checked(_deck_game("exactly 2 C"), '1 "A"\n'), file="red.deck"),
    Case("E0614", 1, deck_checked(_deck_game("exactly 2 C", "names are unique"), '2 "A"\n'), file="red.deck"),
    Case("E0615", 1, deck_checked(_deck_game("at most 1 copies of each C"), '2x A\n'), file="red.deck"),
    Case("E0616", 1, deck_checked(_deck_game("exactly 2 C"), '2 "B"\n'), file="red.deck"),
    Case("E0617", 2, deck_checked(_deck_game("the cost of C cards adds up to at most 2"), 'A\nB\n'),
         file="red.deck"),
    Case("E0618", 8, played(_deck_game("exactly 3 C", "names are unique"))),
    # --- running a game (interpreter/) ---
    Case("E0701", 1, lambda tmp_path, monkeypatch: _start(HEAD, players=3)),
    # every instruction the game runs is the call on line 4, so the bound lands there
    Case("E0801", 4, played(HEAD + "procedure again():\n    again()\nsetup:\n    again()\n", max_steps=100)),
    Case("E0802", 6, played(HEAD + "game has:\n    n: number = 0\nsetup:\n    set n to 1 / 0\n")),
    # a value defined by itself: Python's recursion runs out before the frame bound is met
    Case("E0803", 7, played(HEAD + "game has:\n    n: number = 0\ndefine f(x) as f(x) + 1\nsetup:\n"
                                    "    set n to f(1)\n")),
    Case("E0804", 4, patched(Machine, "say", played(HEAD + 'setup:\n    say "hello"\n'))),
    # the bounds of a running game (dsl/bounds.py); tests/test_runtime_bounds.py has more of each
    Case("E0805", 5, played(HEAD + "die D: [one]\nsetup:\n    roll 100000000 D dice as r\n")),
    Case("E0840", 7, played(HEAD + "die D: [one]\ndie E: [two]\nsetup:\n    roll 2 D dice as pool attack\n"
                                    "    turn first(attack) in attack to [two]\n")),
    Case("E0806", 6, played(HEAD + "setup:\n    let x be 2\n    repeat 40 times:\n        let x be x * x\n")),
    # 400 copies of a 400-card zone: 160,000 items
    Case("E0811", 4, played(HEAD + "setup:\n    let xs be numbers from 1 to 20000\n")),
    # 2^17 - 1 subsets of 17 numbers
    Case("E0820", 4, played(HEAD + "setup:\n    let xs be the subsets of numbers from 1 to 17\n")),
    Case("E0807", 10, played(HEAD + _chips("hidden", "C") + "setup:\n"
                                     "    let heap be cards in box for each c in cards in box\n")),
    # one log line naming 400 cards of 500 characters
    Case("E0808", 11, played(HEAD + _chips("public", "C" * 500) + "event heap(cards: list of card)\n"
                                     "setup:\n    announce heap(cards in box)\n")),
    Case("E0218", 7, checked(HEAD + 'round "R":\n    step "Reveal":\n        say "r"\nscenario "s":\n'
                             '    play until step "Reveel"\n')),
    # --- boards (dsl/checks/boards.py, dsl/board_types.py, interpreter/compile_boards.py) ---
    Case("E0240", 5, checked(HEAD + "board m:\n    places: A, B\n    links: A - C\n")),
    Case("E0241", 3, checked(HEAD + "board m:\n    place has:\n        t: number = 0\n")),
    Case("E0242", 3, checked(HEAD + "board m:\n    places: " + ", ".join(f"p{i}" for i in range(10_001)) + "\n")),
    Case("E0243", 7, checked(HEAD + "zone box: shared\nboard m:\n    places: A\nsetup:\n"
                                    "    let xs be the places adjacent to box\n")),
    Case("E0244", 4, checked(HEAD + "setup:\n    let xs be the places of nowhere\n")),
    Case("E0246", 7, checked(HEAD + "board m:\n    places: A\n    values:\n        | place | tier |\n"
                                    "        | A     | 1    |\n")),
    Case("E0245", 6, checked(HEAD + "board m:\n    places: A\nsetup:\n    let x be the fame of seat 1 on A\n")),
    # entities (docs/language.md, "entity")
    Case("E0140", 3, checked(HEAD + "entity ship: per player\n")),
    Case("E0141", 6, checked(HEAD + "entity ship: per player, at most 1\n    has:\n        speed: number = 0\n" + "zone crew: per shp\n")),
    Case("E0250", 7, checked(HEAD + "entity ship: per player, at most 1\n    has:\n        speed: number = 0\n" + "setup:\n    create a shp for seat 1\n")),
    Case("E0251", 8, checked(HEAD + "entity ship: per player, at most 1\n    has:\n        speed: number = 0\n" + "setup:\n    create a ship for seat 1 as s\n    set s's sped to 1\n")),
    Case("E0860", 8, played(HEAD + "entity ship: per player, at most 1\n    has:\n        speed: number = 0\n" + "setup:\n    create a ship for seat 1\n    create a ship for seat 1\n")),
    Case("E0861", 9, played(HEAD + "entity ship: per player, at most 1\n    has:\n        speed: number = 0\n" + "setup:\n    create a ship for seat 1 as s\n    destroy s\n"
                                   "    set s's speed to 1\n")),
    Case("E0850", 8, played(HEAD + "zone box: shared\nboard m:\n    places: A\nsetup:\n    let z be box\n"
                                   "    let xs be the places adjacent to z\n")),
    Case("E0830", 9, scenario_run(HEAD + 'zone box: shared, hidden\ncard type T:\n    v: number\n'
                                  'card "A": T in box\n    v = 1\nscenario "s":\n'
                                  '    stack box with "B" on top\n')),
    Case("E0809", 5, played(HEAD + 'setup:\n    repeat:\n        say "' + "z" * 9000 + '"\n')),
    Case("E0810", 10, played_in(40_000_000, HEAD + _chips("hidden", "Chip").replace("400", "10000")
                                + "procedure hoard(d):\n    let kept be (d * 1000000 + v of c for each c in cards in box)\n"
                                  "    hoard(d + 1)\nround \"R\":\n    hoard(1)\n")),
    # --- files (dsl/loader.py) ---
    Case("E0900", 1, patched(loader, "bodies", checked(HEAD + 'setup:\n    say "hello"\n'))),
    Case("E0901", 1, on_disk({GAME: 'import "missing.cards"\n' + HEAD})),
    Case("E0902", 1, on_disk({GAME: 'import "big.cards"\n' + HEAD,
                              "big.cards": "#" * (MAX_FILE_BYTES + 1) + "\n"})),
    Case("E0903", 1, on_disk({GAME: 'import "latin1.cards"\n' + HEAD,
                              "latin1.cards": 'enum Colour: red\n# gr\xfcn\n'.encode("latin-1")})),
    Case("E0904", 1, on_disk(_include_chain(MAX_INCLUDE_DEPTH + 2), main="level0.cards"),
         file=f"level{MAX_INCLUDE_DEPTH}.cards"),
    Case("E0905", 1, on_disk({"game/" + GAME: 'import "../outside.cards"\n' + HEAD,
                              "outside.cards": "enum Side: up, down\n"}, main="game/" + GAME)),
    # the deep expression is on line 1, where the guard points (it cannot tell which line)
    Case("E0906", 1, checked("define f() as " + "(" * 5000 + "1" + ")" * 5000 + "\n" + HEAD)),
    # the name is refused before anything is read
    Case("E0907", 1, on_disk({GAME: 'import "secrets.env"\n' + HEAD, "secrets.env": "KEY=1\n"})),
    Case("E0908", 1, on_disk({GAME: 'import "folder.cards"\n' + HEAD, "folder.cards/x.cards": "enum A: b\n"})),
    Case("E0909", 1, on_disk({GAME: 'import "lib.cards"\n' + HEAD, "lib.cards": 'import "game.cards"\n'}),
         file="lib.cards"),
    # the game's own file counts: the last of these imports is one file too many
    Case("E0910", MAX_INCLUDED_FILES, on_disk({
        GAME: "".join(f'import "f{i}.cards"\n' for i in range(MAX_INCLUDED_FILES)) + HEAD,
        **{f"f{i}.cards": f"enum E{i}: a{i}\n" for i in range(MAX_INCLUDED_FILES)}})),
    Case("E0911", 5, on_disk({GAME: "".join(f'import "big{i}.cards"\n' for i in range(5)) + HEAD,
                              **{f"big{i}.cards": _QUARTER for i in range(5)}})),
    Case("E0912", 1, patched(fmt, "_layout", formatted(HEAD))),
    # publishing (dsl/publish/): the templates' errors point into the template, E1006-E1009 into the game
    Case("E1001", 2, published({"book.md.j2": "# {{ book.title }}\n{% if %}\n"}), file="book.md.j2"),
    Case("E1002", 2, published({"book.md.j2": "# {{ book.title }}\n{{ 1 / 0 }}\n"}), file="book.md.j2"),
    Case("E1003", 2, published({"book.md.j2": "# {{ book.title }}\ncaf\xe9\n".encode("latin-1")}),
         file="book.md.j2"),
    Case("E1004", 2, published({"book.md.j2": "# x\n{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}\n"}),
         file="book.md.j2"),
    Case("E1005", 2, published({"book.md.j2": "# x\n" + LOOPS + "\n"}, setup=_templates_get_a_second),
         file="book.md.j2"),
    Case("E1006", 1, published({}, fmt="pdf", setup=_chromium_fails), file="book.html.j2"),
    Case("E1007", 1, drawn(HEAD + "zone box: shared\n", setup=_graphviz_fails)),
    Case("E1008", 1, drawn(MANY_ZONES)),
    Case("E1009", 3, published({}, HEAD + "define deep() as " + "not " * 300 + "yes\n",
                               setup=_writers_get_python_default)),
)


def _start(text: str, players: int) -> Result:
    game = load_text(text, GAME)
    try:
        Engine(game, players=players)
    except CardsmithError as err:
        return err.diagnostics, err.sources
    return [], game.sources


# ---------------------------------------------------------------- the tests

def _codes_in_docs() -> set[str]:
    return set(re.findall(r"^#{2,3} (E\d{4})", (ROOT / "docs" / "errors.md").read_text(encoding="utf-8"), re.M))


def _shown(diags: list[Diagnostic]) -> list[str]:
    return [f"{d.code} {d.span} {d.message}" for d in diags]


@pytest.mark.parametrize("case", CASES, ids=[c.code for c in CASES])
def test_code_is_raised(case: Case, tmp_path, monkeypatch):
    diags, sources = case.trigger(tmp_path, monkeypatch)
    assert diags, f"{case.code}: nothing was reported"
    first = diags[0]
    assert first.code == case.code, f"expected {case.code} first, got {_shown(diags)}"
    assert Path(first.span.path).name == case.file, _shown(diags)
    assert first.span.line == case.line, _shown(diags)
    assert first.span.column >= 1
    assert first.message.strip()

    drawn = render_diagnostic(first, sources)
    assert f"error[{case.code}]" in drawn
    lines = drawn.split("\n")
    source_row = next((i for i, row in enumerate(lines) if re.match(rf" {case.line} \|", row)), None)
    assert source_row is not None, f"the line is not shown:\n{drawn}"
    assert re.fullmatch(r" +\| +\^+", lines[source_row + 1]), f"no caret under the line:\n{drawn}"


def test_every_documented_code_has_a_case():
    missing = _codes_in_docs() - {c.code for c in CASES}
    assert not missing, f"codes in docs/errors.md that no case in CASES raises: {sorted(missing)}"


def test_every_case_is_a_documented_code():
    codes = [c.code for c in CASES]
    assert len(codes) == len(set(codes)), "one case per code"
    unknown = set(codes) - _codes_in_docs()
    assert not unknown, f"cases for codes docs/errors.md does not document: {sorted(unknown)}"
