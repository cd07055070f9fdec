"""The parser: the grammar loads strictly, real games parse, and no text makes it raise."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardsmith.dsl.parser import MAX_ERRORS, load_grammar, parse
from cardsmith.dsl.render import render_all
from cardsmith.dsl.source import Source
from cardsmith.dsl.syntax_errors import PROBLEMS

ROOT = Path(__file__).resolve().parent.parent
SPACE_WAR = ROOT / "games" / "space_war_in_space.cards"
BASE = SPACE_WAR.read_text(encoding="utf-8")


def diagnostics_of(text: str, path: str = "t.cards"):
    tree, diagnostics = parse(Source(path, text))
    assert (tree is None) == bool(diagnostics)
    return diagnostics


def codes(text: str) -> list[str]:
    return [d.code for d in diagnostics_of(text)]


# ---------------------------------------------------------------- the grammar

def test_grammar_loads_with_strict_terminal_checks():
    pytest.importorskip("interegular")   # without it, strict mode cannot see collisions
    parser = load_grammar(strict=True)
    assert parser.options.strict and parser.options.parser == "lalr"


def test_grammar_is_loaded_once():
    assert load_grammar() is load_grammar()


def test_packaged_grammar_is_the_repository_file():
    import importlib.resources

    packaged = importlib.resources.files("cardsmith.grammar") / "cardsmith.lark"
    assert packaged.read_text(encoding="utf-8") == (ROOT / "grammar" / "cardsmith.lark").read_text(
        encoding="utf-8")


@pytest.mark.parametrize("path", sorted((ROOT / "games").glob("*.cards")), ids=lambda p: p.name)
def test_bundled_games_parse_without_diagnostics(path):
    tree, diagnostics = parse(Source(str(path), path.read_text(encoding="utf-8")))
    assert diagnostics == []
    assert tree is not None and tree.data == "start"


def test_space_war_parses_with_positions():
    tree, diagnostics = parse(Source("space_war.cards", BASE))
    assert diagnostics == []
    game = next(tree.find_data("game_decl"))
    assert (game.meta.line, game.meta.column) == (BASE.split("\n").index(
        'game "Space War: in Space!":') + 1, 1)


# ---------------------------------------------------------------- text details

def test_a_missing_final_newline_is_fine():
    assert codes("enum Side: up, down") == []
    assert codes("setup:\n    stop") == []


def test_empty_and_blank_files_parse():
    assert codes("") == []
    assert codes("\n\n   \n# only a comment\n") == []


def test_a_comment_line_does_not_count_for_indentation():
    text = ("setup:\n    stop\n# a note in the first column\n        # and an indented one\n"
            "    stop  # trailing\n")
    assert codes(text) == []


def test_a_hash_inside_text_is_not_a_comment():
    text = 'rule "Hash":\n    """\n# this line is text, not a comment\n    """\n'
    tree, diagnostics = parse(Source("t.cards", text))
    assert diagnostics == []
    assert "# this line is text" in str(next(tree.find_data("doc_item")).children[0])


def test_crlf_line_ends_and_a_byte_order_mark_parse():
    assert codes("\ufeffenum Side: up, down\r\nsetup:\r\n    stop\r\n") == []


def test_tabs_alone_are_a_valid_indentation():
    assert codes("setup:\n\tif yes:\n\t\tstop\n\tstop\n") == []


def test_mixing_tabs_and_spaces_is_reported_on_the_offending_line():
    (d,) = diagnostics_of("setup:\n    stop\n\tstop\n")
    assert (d.code, d.span.line, d.span.column) == ("E0009", 3, 2)
    assert "line 2" in d.message


def test_a_bad_dedent_is_a_diagnostic_not_an_exception():
    (d,) = diagnostics_of("setup:\n        stop\n    stop\n")
    assert (d.code, d.span.line, d.span.column, d.span.end_column) == ("E0008", 3, 5, 9)
    assert "0 or 8 spaces" in d.hint


# ---------------------------------------------------------------- recovery

def test_independent_mistakes_in_separate_declarations_are_all_reported():
    text = ('game "Duel"\n    players: 2 to 2\n\n'
            "enum Side: up, down\n\n"
            "setup:\n    let x = 3\n\n"
            "frobnicate\n\n"
            "procedure deal():\n    stop\n")
    found = [(d.code, d.span.line) for d in diagnostics_of(text)]
    assert found == [("E0001", 1), ("E0005", 7), ("E0010", 9)]


def test_a_mistake_is_reported_once():
    assert codes("\nfrobnicate\n") == ["E0010"]
    assert codes("enum Side: up, down\nfrobnicate x\n") == ["E0010"]


def test_recovery_stops_after_max_errors():
    text = "setup:\n    let x = 3\n" * (MAX_ERRORS + 5)
    assert len(diagnostics_of(text)) == MAX_ERRORS


# ---------------------------------------------------------------- never raises

STRANGE_TEXTS = [
    "\x00", "\r", "\r\r\n", "\f", "\v", "\u2028", "\ufeff", "\ufeff\ufeff", "é", "🂡 card",
    '"', '"""', '""""', "(", ")", "[", "]", "((((", "]]]]", "|", "\\", "\\\n", "#", "'s",
    "\t", " \t", "\n\t\n    \n\t", "game", "game \"x\":", "card type", "cards X in y:\n    |",
    "setup:\n" + "    " * 200 + "stop", "setup:\n    say " + "(" * 3000 + "1" + ")" * 3000,
    "define f() as " + "-" * 3000 + "1", "setup:\n" + "    stop\n" * 2000,
    "\udcff", BASE[: len(BASE) // 2], BASE.replace("    ", "\t", 7), BASE.replace(":\n", "\n", 3),
]


@pytest.mark.parametrize("text", STRANGE_TEXTS, ids=range(len(STRANGE_TEXTS)))
def test_strange_texts_give_diagnostics_not_exceptions(text):
    check_never_raises(text)


def check_never_raises(text: str) -> None:
    source = Source("fuzz.cards", text)
    tree, diagnostics = parse(source)
    assert (tree is None) == bool(diagnostics)
    line_count = max(text.count("\n") + 1, 1)
    for d in diagnostics:
        assert d.code in PROBLEMS, d          # E0000, the internal-error code, is not in the table
        assert d.message and d.hint
        assert d.span.path == "fuzz.cards"
        assert 1 <= d.span.line <= line_count and d.span.end_line == d.span.line
        assert 1 <= d.span.column < d.span.end_column
    render_all(diagnostics, {source.path: source})


@given(st.text(max_size=200))
@settings(max_examples=150, deadline=None)
def test_arbitrary_short_text_never_raises(text):
    check_never_raises(text)


SNIPPETS = ["move", "to", "let", "be", "if", "else", "for each", "where", ":", "(", ")", "[",
            "]", "|", '"', '"""', "#", "\t", "    ", "\n", "\n    ", "=", "==", "'s", "card",
            "cards", "setup", "round", "step", "when", "é", "\x00", "\r", "\\"]


@st.composite
def mutated_space_war(draw) -> str:
    text = BASE
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "insert", "truncate", "swap"]))
        at = draw(st.integers(0, len(text)))
        if kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 80)):]
        elif kind == "insert":
            piece = draw(st.one_of(st.sampled_from(SNIPPETS), st.text(min_size=1, max_size=5)))
            text = text[:at] + piece + text[at:]
        elif kind == "truncate":
            text = text[:at]
        else:
            lines = text.split("\n")
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
    return text


@pytest.mark.slow
@given(mutated_space_war())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_mutated_space_war_never_raises(text):
    check_never_raises(text)
