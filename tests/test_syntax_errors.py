"""Friendly syntax errors: every example of the table yields its own code, in plain words."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from cardsmith.dsl.parser import parse
from cardsmith.dsl.source import Source
from cardsmith.dsl.syntax_errors import PROBLEMS, TABLE

DOCS = Path(__file__).resolve().parent.parent / "docs" / "errors.md"
EXAMPLES = [(p.code, text) for p in TABLE for text in p.examples]
# Lark's own vocabulary, which must never reach a designer.
TERMINAL_NAME = re.compile(r"\$END|\b_?(NL|INDENT|DEDENT|NAME|STRING|INT|LPAR|RPAR|LSQB|RSQB|"
                           r"COLON|VBAR|EQUAL|__ANON_\d+|[A-Z]{3,}_[A-Z_]+)\b")


def first(text: str):
    tree, diagnostics = parse(Source("t.cards", text))
    assert tree is None and diagnostics, f"{text!r} parsed"
    return diagnostics[0]


@pytest.mark.parametrize("code, text", EXAMPLES, ids=[f"{c}-{i}" for i, (c, _) in enumerate(EXAMPLES)])
def test_every_example_yields_its_own_code(code, text):
    d = first(text)
    assert d.code == code, f"{text!r}: got {d.code} {d.message!r}"
    assert d.message and d.hint
    assert not TERMINAL_NAME.search(d.message + " " + d.hint), d
    lines = text.split("\n")
    assert 1 <= d.span.line <= len(lines) and d.span.end_line == d.span.line
    assert d.span.column < d.span.end_column <= len(lines[d.span.line - 1]) + 2


def test_codes_are_unique_and_every_code_has_examples():
    assert len(PROBLEMS) == len(TABLE)
    assert all(p.examples for p in TABLE)
    assert [p.code for p in TABLE] == sorted(p.code for p in TABLE)


# ---------------------------------------------------------------- docs/errors.md

def doc_sections() -> dict[str, str]:
    text = DOCS.read_text(encoding="utf-8")
    parts = re.split(r"^### (E\d{4})\b.*$", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def test_every_syntax_code_is_documented():
    assert set(PROBLEMS) <= set(doc_sections())
    text = DOCS.read_text(encoding="utf-8")
    # the syntax codes come first, the checker's after the marker
    assert text.index("### E0020") < text.index("<!-- checker codes below -->") < text.index("### E0101")


@pytest.mark.parametrize("code", sorted(PROBLEMS))
def test_the_documented_example_yields_its_code(code):
    blocks = re.findall(r"```\n(.*?)```", doc_sections()[code], flags=re.S)
    assert blocks, f"{code} has no example in docs/errors.md"
    assert first(blocks[0]).code == code


# ---------------------------------------------------------------- wording and places

def test_missing_colon_points_just_after_the_last_word():
    d = first('setup  # deal the cards\n    stop\n')
    assert (d.code, d.span.line, d.span.column, d.span.end_column) == ("E0001", 1, 6, 7)


def test_unknown_declaration_word_suggests_the_closest_one():
    d = first("procdure deal():\n    stop\n")
    assert d.code == "E0010" and d.hint == "did you mean 'procedure'?"
    assert "card type" in d.notes[0] and "order simultaneous triggers" in d.notes[0]
    assert (d.span.column, d.span.end_column) == (1, 9)


def test_an_unknown_word_without_a_close_match_lists_the_declarations():
    d = first("xyzzy\n")
    assert d.code == "E0010" and "'card'" in d.hint


def test_generic_errors_translate_expected_terminals_into_words():
    assert first("enum Side up, down\n").hint == "expected ':'"
    assert first("enum Side:\n").hint == "expected a name"
    d = first('event start "x" "y"\n')
    assert d.message == 'the text "y" isn\'t expected here'
    assert d.hint == "expected the end of the line"


def test_generic_errors_list_at_most_six_alternatives():
    d = first("zone deck: per player, shuffled\n")
    assert d.code == "E0019" and d.message == "'shuffled' isn't expected here"
    assert d.hint.startswith("expected ") and d.hint.endswith("other words")
    assert len(re.findall(r"'[^']*'", d.hint)) <= 6


def test_a_line_that_ends_too_early_says_so():
    d = first("setup:\n    move x to\n")
    assert (d.code, d.message) == ("E0019", "this line ends too early")
    assert "a value" in d.hint


def test_unclosed_text_is_underlined_to_the_end_of_the_line():
    d = first('setup:\n    say "hello there   \n')
    assert (d.code, d.span.column, d.span.end_column) == ("E0003", 9, 21)


def test_unclosed_bracket_is_reported_where_it_opens():
    d = first("setup:\n    deal(3, your deck\n    stop\n")
    assert (d.code, d.span.line, d.span.column, d.message) == ("E0012", 2, 9, "this '(' is never closed")


def test_invisible_characters_are_named():
    d = first("enum Side:\u00a0up\n")
    assert d.code == "E0014" and "U+00A0" in d.message and "non-breaking space" in d.hint
    assert "U+0000" in first("setup:\n    stop\x00\n").message


def test_a_dedent_in_a_tab_indented_file_counts_in_tabs():
    d = first("setup:\n\t\tstop\n\tstop\n")
    assert (d.code, d.span.line, d.span.column) == ("E0008", 3, 2)
    assert d.hint.endswith("by 0 or 2 tabs")
