"""The diagnostic renderer: exact text for a few diagnostics, alignment, color and summary."""
from __future__ import annotations

import re

from cardsmith.dsl.diagnostics import Diagnostic
from cardsmith.dsl.parser import parse
from cardsmith.dsl.render import render_all, render_diagnostic, summary
from cardsmith.dsl.source import NOWHERE, Source, Span

PATH = "games/x.cards"
SOURCE = Source(PATH, "\n".join(["# filler"] * 11 + [
    "    move top card of your dek to your hand",
    "    shuffle your deck",
]) + "\n")
SOURCES = {PATH: SOURCE}

UNKNOWN_ZONE = Diagnostic("E0201", "unknown zone 'dek'", Span(PATH, 12, 27, 12, 30),
                          "did you mean 'deck'?")
UNUSED = Diagnostic("E0301", "this line is never reached", Span(PATH, 12, 5, 13, 22), None,
                    ("it follows a 'stop'", "remove it or move it up"), "warning")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_an_error_with_a_hint():
    assert render_diagnostic(UNKNOWN_ZONE, SOURCES) == (
        "games/x.cards:12:27: error[E0201]: unknown zone 'dek'\n"
        " 12 |     move top card of your dek to your hand\n"
        "    |                           ^^^\n"
        "    = hint: did you mean 'deck'?"
    )


def test_a_warning_spanning_lines_with_notes_and_the_summary():
    assert render_all([UNKNOWN_ZONE, UNUSED], SOURCES) == (
        "games/x.cards:12:27: error[E0201]: unknown zone 'dek'\n"
        " 12 |     move top card of your dek to your hand\n"
        "    |                           ^^^\n"
        "    = hint: did you mean 'deck'?\n"
        "\n"
        "games/x.cards:12:5: warning[E0301]: this line is never reached\n"
        " 12 |     move top card of your dek to your hand\n"
        "    |     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "    = note: it follows a 'stop'\n"
        "    = note: remove it or move it up\n"
        "\n"
        "1 error, 1 warning in games/x.cards\n"
    )


def test_a_syntax_error_from_the_parser():
    source = Source("duel.cards", 'game "Duel"\n    players: 2 to 2\n')
    _, diagnostics = parse(source)
    assert render_all(diagnostics, {source.path: source}) == (
        "duel.cards:1:12: error[E0001]: expected ':' at the end of this line to open a block\n"
        ' 1 | game "Duel"\n'
        "   |            ^\n"
        "   = hint: a line followed by an indented block ends with ':'\n"
        "\n"
        "1 error in duel.cards\n"
    )


def test_tabs_keep_the_carets_under_the_span():
    source = Source("t.cards", "setup:\n\tmove x\tto dek\n")
    d = Diagnostic("E0201", "unknown zone 'dek'", Span("t.cards", 2, 12, 2, 15))
    _, line, carets = render_diagnostic(d, {"t.cards": source}).split("\n")
    assert "\t" not in line
    assert line.index("dek") == carets.index("^^^") and carets.count("^") == 3


def test_wide_and_invisible_characters_keep_the_carets_aligned():
    source = Source("t.cards", 'say "王様" \x00 x\n')
    d = Diagnostic("E0014", "'x'", Span("t.cards", 1, 12, 1, 13))
    _, line, carets = render_diagnostic(d, {"t.cards": source}).split("\n")
    assert "\x00" not in line
    # the two wide characters take two columns each
    assert carets.index("^") == line.index("x") + 2


def test_at_least_one_caret_and_line_ends_as_the_parser_counts_them():
    source = Source("t.cards", "a\fb\nsecond line\n")
    d = Diagnostic("E0019", "this line ends too early", Span("t.cards", 2, 12, 2, 12))
    _, line, carets = render_diagnostic(d, {"t.cards": source}).split("\n")
    assert line == " 2 | second line"
    assert carets == "   |            ^"


def test_without_a_source_line_only_the_header_and_hint_are_drawn():
    d = Diagnostic("E0900", "the rules could not be read", NOWHERE, "try again")
    assert render_diagnostic(d, {}) == ("<builtin>: error[E0900]: the rules could not be read\n"
                                        "  = hint: try again")
    past_the_end = Diagnostic("E0201", "x", Span(PATH, 99, 1, 99, 2))
    assert render_diagnostic(past_the_end, SOURCES) == "games/x.cards:99:1: error[E0201]: x"


def test_color_only_when_asked():
    plain = render_all([UNKNOWN_ZONE, UNUSED], SOURCES)
    colored = render_all([UNKNOWN_ZONE, UNUSED], SOURCES, color=True)
    assert "\x1b[" not in plain
    assert "\x1b[1;31m" in colored and "\x1b[1;33m" in colored
    assert ANSI.sub("", colored) == plain


def test_summary_counts_and_places():
    other = Diagnostic("E0201", "x", Span("games/y.cards", 1, 1, 1, 2))
    assert summary([]) == "no errors"
    assert summary([UNUSED]) == "1 warning in games/x.cards"
    assert summary([UNKNOWN_ZONE, UNKNOWN_ZONE, UNUSED]) == "2 errors, 1 warning in games/x.cards"
    assert summary([UNKNOWN_ZONE, other]) == "2 errors in 2 files"


def test_a_very_long_line_is_shown_around_the_caret():
    from cardsmith.dsl.diagnostics import Diagnostic
    from cardsmith.dsl.render import SHOWN, render_diagnostic
    from cardsmith.dsl.source import Source, Span
    line = "x" * 3000 + "BAD" + "y" * 3000
    src = Source("long.cards", line + "\n")
    shown = render_diagnostic(Diagnostic("E0201", "unknown name 'BAD'", Span("long.cards", 1, 3001, 1, 3004), None),
                              {"long.cards": src})
    text_line, caret_line = shown.splitlines()[1:3]
    assert len(text_line) < SHOWN + 20 and len(caret_line) < SHOWN + 20
    assert text_line.startswith(" 1 | …") and text_line.endswith("…")
    at = caret_line.index("^")
    assert text_line[at:at + 3] == "BAD" and caret_line[at:].rstrip() == "^^^"


def test_a_short_line_is_shown_whole():
    from cardsmith.dsl.diagnostics import Diagnostic
    from cardsmith.dsl.render import render_diagnostic
    from cardsmith.dsl.source import Source, Span
    src = Source("s.cards", "move top card of your dek to your hand\n")
    shown = render_diagnostic(Diagnostic("E0201", "unknown zone 'dek'", Span("s.cards", 1, 23, 1, 26), None),
                              {"s.cards": src})
    assert " 1 | move top card of your dek to your hand" in shown and "…" not in shown
