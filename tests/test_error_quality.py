"""Errors that say how to fix them, where they point (issue 7 item 6).

tests/test_every_code.py proves each code can be raised; this file holds what a helper found by
reading those diagnostics: a type name nobody checked (E0101 only for keyword parameters),
messages with no hint in their smallest case, a slip in the words of a type, and two codes that
pointed away from the line they are about (E0103 at the game line, E0906 always at 1:1).
Each row: the source, the code that must come first, its line and column, and words its hint
must contain.
"""
from __future__ import annotations

import glob
from dataclasses import dataclass
from pathlib import Path

import pytest

from cardsmith.dsl.diagnostics import CardsmithError, Diagnostic
from cardsmith.dsl.loader import check_file, check_source, load_text
from cardsmith.dsl.source import Source
from cardsmith.interpreter.play import run_game

ROOT = Path(__file__).resolve().parent.parent
HEAD = 'game "T":\n    players: 2 to 2\n'


@dataclass(frozen=True)
class Row:
    name: str
    source: str
    code: str
    line: int
    column: int
    hint_words: tuple[str, ...]
    message_words: tuple[str, ...] = ()
    played: bool = False        # a run-time error: play the game until it aborts


def _table(field: str) -> str:
    """A card type Unit with one field (line 4) and one card of it (line 8)."""
    return (HEAD + f"card type Unit:\n    {field}\nzone box: shared\ncards Unit in box:\n"
            '    | name | power |\n    | "A" | 0 |\n')


ROWS = (
    # --- E0101: every type name written in a file is checked where it is declared
    Row("player attribute", HEAD + "player has:\n    strength: nunber\n", "E0101", 4, 15, ("'number'",)),
    Row("game attribute", HEAD + "game has:\n    pot: nunber = 0\n", "E0101", 4, 10, ("'number'",)),
    Row("list of a typo", HEAD + "game has:\n    names: list of txt\n", "E0101", 4, 12, ("'text'",)),
    Row("card type field", HEAD + "card type Unit:\n    power: nmber\n", "E0101", 4, 12, ("'number'",)),
    Row("enum-typed field", HEAD + "enum Side: up, down\ncard type Unit:\n    side: Sid\n", "E0101", 5, 11,
        ("'Side'",)),
    Row("event parameter", HEAD + "event boom(x: nunber)\n", "E0101", 3, 15, ("'number'",)),
    Row("keyword parameter", HEAD + 'keyword K(y: nunber):\n    "K."\n', "E0101", 3, 14, ("'number'",)),
    Row("nothing close", HEAD + "player has:\n    mood: Feeling\n", "E0101", 4, 11,
        ("number", "enum", "card type")),
    # --- hints where nothing close is declared
    Row("E0201", HEAD + 'setup:\n    for each p in playerz:\n        say "hi"\n', "E0201", 4, 19,
        ("let", "game has:")),
    Row("E0209 table", HEAD + 'zone box: shared\ncards Unt in box:\n    | name |\n    | "A" |\n', "E0209", 4, 1,
        ("card type Unt:",)),
    Row("E0209 is a", HEAD + "setup:\n    if top card of box is a Hero:\n        stop\nzone box: shared\n",
        "E0209", 4, 8, ("card type Hero:",)),
    Row("E0212", HEAD + "setup:\n    roll 3 White dice as r\n", "E0212", 4, 5, ("die White:",)),
    Row("E0402", HEAD + "as soon as 3.strength = 0:\n    the game is a draw\n", "E0402", 3, 12,
        ("player has:", "card type")),
    Row("E0402 player attribute", HEAD + "player has:\n    score: number = 0\nas soon as 3.score = 0:\n"
        "    the game is a draw\n", "E0402", 5, 12, ("seat 1's score",)),
    Row("E0404 for each", HEAD + 'setup:\n    for each p in 3:\n        say "x"\n', "E0404", 4, 19,
        ("for each p in players", "repeat N times")),
    Row("E0404 is in", HEAD + "as soon as 3 is in 4:\n    the game is a draw\n", "E0404", 3, 20,
        ("collection", "=")),
    Row("E0405", HEAD + 'as soon as "a" > 2:\n    the game is a draw\n', "E0405", 3, 12, ("numbers only", "=")),
    Row("E0406", HEAD + "as soon as seat 1 = 3:\n    the game is a draw\n", "E0406", 3, 12,
        ("same kind", "a player with a player")),
    Row("E0407", HEAD + "as soon as 3 is empty:\n    the game is a draw\n", "E0407", 3, 12,
        ("your hand is empty", "= 0")),
    Row("E0408 expected", HEAD + "player has:\n    score: number = 0\nsetup:\n    add \"x\" to seat 1's score\n",
        "E0408", 6, 9, ("give a number",)),
    # the words of a type: "a list of texts", never "a list of a texts"
    Row("E0408 set a list", HEAD + "game has:\n    names: list of text\nsetup:\n    set names to [players]\n",
        "E0408", 6, 18, ("set it to a collection",), ("cannot set a list of texts to a list of lists",)),
    Row("E0408 add to", HEAD + 'game has:\n    word: text = "a"\nsetup:\n    add 1 to word\n', "E0408", 6, 14,
        ("add 1 to your score", "move")),
    Row("E0502 at least", _table("power: number, at least 1"), "E0502", 8, 13, ("at least 1", "line 4")),
    Row("E0502 range", _table("power: number, at least 1, at most 5"), "E0502", 8, 13, ("from 1 to 5",)),
    # --- run time
    Row("E0802 division by zero", HEAD + "game has:\n    n: number = 0\nsetup:\n    set n to 1 / 0\n", "E0802", 6, 14,
        ("divisor", "if d > 0:"), ("division by zero",), played=True),
    Row("E0803", HEAD + "game has:\n    n: number = 0\ndefine f(x) as f(x) + 1\nsetup:\n    set n to f(1)\n",
        "E0803", 7, 5, ("'if'", "stops"), played=True),
    # --- where they point
    Row("E0103 at players:", 'game "T":\n    players: 6 to 2\n', "E0103", 2, 5, ("smaller number first",)),
    Row("E0906 brackets", HEAD + "define f() as " + "(" * 5000 + "1" + ")" * 5000 + "\n", "E0906", 3, 5014,
        ("flatten",)),
    Row("E0906 lists", HEAD + "define f() as " + "[" * 3000 + "1" + "]" * 3000 + "\n", "E0906", 3, 3014,
        ("flatten",)),
    Row("E0906 a long chain", HEAD + "setup:\n    say \"x\"\ndefine f() as " + "1 + " * 5000 + "1\n", "E0906", 5, 1,
        ("flatten",)),
    Row("E0906 blocks", HEAD + "game has:\n    n: number = 0\nsetup:\n"
        + "".join("    " * (i + 1) + "if yes:\n" for i in range(600)) + "    " * 601 + "set n to 1\n",
        "E0906", 606, 2405, ("flatten",)),
)


def _first(row: Row) -> Diagnostic:
    if row.played:
        game = load_text(row.source, "game.cards")
        with pytest.raises(CardsmithError) as err:
            run_game(game, 2, seed=0)
        diags = err.value.diagnostics
    else:
        _, diags, _ = check_source(Source("game.cards", row.source))
    assert diags, f"{row.name}: no diagnostic"
    return diags[0]


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_error_says_how_to_fix_it_where_it_is(row: Row):
    d = _first(row)
    assert (d.code, d.span.line, d.span.column) == (row.code, row.line, row.column), d
    assert d.hint, f"{row.name}: {d.code} has no hint"
    for words in row.hint_words:
        assert words in d.hint, f"{row.name}: {words!r} not in the hint {d.hint!r}"
    for words in row.message_words:
        assert words in d.message, f"{row.name}: {words!r} not in the message {d.message!r}"


def test_an_unknown_type_is_reported_once():
    """The keyword parameter was checked by the body pass too; now only where it is declared."""
    _, diags, _ = check_source(Source("game.cards", HEAD + 'keyword K(y: nunber):\n    "K."\n'))
    assert [d.code for d in diags] == ["E0101"]


def test_a_field_of_unknown_type_no_longer_takes_any_value():
    """Before, `power: nmber` let a card say `power = "lots"` and the game check clean."""
    text = HEAD + 'card type Unit:\n    power: nmber\nzone box: shared\ncard "A": Unit in box\n    power = "lots"\n'
    _, diags, _ = check_source(Source("game.cards", text))
    assert "E0101" in [d.code for d in diags]


@pytest.mark.parametrize("path", sorted(glob.glob(str(ROOT / "games" / "*.cards"))
                                    + glob.glob(str(ROOT / "tests" / "games" / "*.cards"))),
                         ids=lambda p: Path(p).name)
def test_every_bundled_game_still_checks(path: str):
    diags, _ = check_file(path)
    assert not [d for d in diags if d.severity == "error"], [str(d.span) + " " + d.message for d in diags]
