"""Every example in docs/language.md parses, so the reference cannot drift from the grammar.

A fenced block whose info string starts with `cards` is an example:

    ```cards               a whole .cards file (or a few declarations), parsed as it is
    ```cards ability       lines of a card type: wrapped in `card type Example:`
    ```cards statements    lines of a rule body: wrapped in `procedure example():`
    ```cards expression    one expression per line: each wrapped in `define example_N() as ...`

Each block is one test, named after the heading it sits under. The section "The hardest
rule of each seed" must hold a whole-file example for every seed rulebook, and the list of
the language's words must match the keywords of the grammar.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "language.md"
GRAMMAR = ROOT / "grammar" / "cardsmith.lark"

SEED_SECTION = "The hardest rule of each seed"
WORDS_SECTION = "Words of the language"
SEEDS = ("000", "001", "002", "003", "004")
KINDS = ("", "ability", "statements", "expression")

_FENCE = re.compile(r"^```(.*)$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")


class Example(NamedTuple):
    kind: str          # "" (a whole file), "ability", "statements" or "expression"
    text: str
    line: int          # line of the opening fence in docs/language.md
    heading: str       # the nearest heading above it
    section: str       # the level-2 heading above it
    subsection: str    # the level-3 heading above it ("" if none since the level-2 one)


def examples(markdown: str) -> list[Example]:
    """The ```cards blocks of `markdown`, with where they sit."""
    found: list[Example] = []
    heading = section = subsection = ""
    lines = markdown.split("\n")
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if fence:
            info = fence.group(1).strip().split()
            start = i
            i += 1
            body = []
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            if info and info[0] == "cards":
                kind = " ".join(info[1:])
                found.append(Example(kind, "\n".join(body), start + 1, heading, section, subsection))
        else:
            head = _HEADING.match(lines[i])
            if head:
                heading = head.group(2)
                level = len(head.group(1))
                if level == 2:
                    section, subsection = heading, ""
                elif level == 3:
                    subsection = heading
        i += 1
    return found


def wrap(example: Example) -> str:
    """The example as a whole .cards text."""
    def indented(text: str) -> str:
        return "\n".join(("    " + line) if line.strip() else "" for line in text.split("\n"))

    if example.kind == "":
        return example.text + "\n"
    if example.kind == "ability":
        return "card type Example:\n" + indented(example.text) + "\n"
    if example.kind == "statements":
        return "procedure example():\n" + indented(example.text) + "\n"
    if example.kind == "expression":
        exprs = [line.strip() for line in example.text.split("\n")
                 if line.strip() and not line.strip().startswith("#")]
        return "".join(f"define example_{n}() as {e}\n" for n, e in enumerate(exprs))
    raise AssertionError(f"line {example.line}: unknown kind of example '{example.kind}'; "
                         f"use one of: {', '.join(repr(k) for k in KINDS)}")


def parse_errors(text: str, name: str) -> list[str]:
    """The parser's complaints about `text` ([] when it parses)."""
    try:
        from cardsmith.dsl.parser import parse
        from cardsmith.dsl.source import Source
    except ImportError:
        return _parse_errors_with_lark(text)
    tree, diagnostics = parse(Source(name, text))
    if tree is None and not diagnostics:
        return ["the parser returned no tree and no diagnostic"]
    return [f"{d.span.line}:{d.span.column}: {d.code} {d.message}" for d in diagnostics]


@lru_cache(maxsize=1)
def _lark_parser():
    """The grammar loaded directly (only used when cardsmith.dsl.parser is not importable)."""
    from lark import Lark
    from lark.indenter import Indenter

    class CardsIndenter(Indenter):
        NL_type = "_NL"
        OPEN_PAREN_types = ["LPAR", "LSQB"]
        CLOSE_PAREN_types = ["RPAR", "RSQB"]
        INDENT_type = "_INDENT"
        DEDENT_type = "_DEDENT"
        tab_len = 4

    return Lark(GRAMMAR.read_text(encoding="utf-8"), parser="lalr", postlex=CardsIndenter(),
                propagate_positions=True, maybe_placeholders=False)


def _parse_errors_with_lark(text: str) -> list[str]:
    # Comment-only lines are emptied first, as the real parser does: the grammar ignores
    # comments but not their indentation.
    text = re.sub(r"(?m)^[ \t]*#.*$", "", text)
    try:
        _lark_parser().parse(text if text.endswith("\n") else text + "\n")
    except Exception as error:   # any Lark failure is a finding here
        return [str(error)]
    return []


# ---------------------------------------------------------------- the examples

DOC_TEXT = DOC.read_text(encoding="utf-8")
EXAMPLES = examples(DOC_TEXT)


def _ids(items: list[Example]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for ex in items:
        base = ex.heading or "(no heading)"
        seen[base] = seen.get(base, 0) + 1
        out.append(base if seen[base] == 1 else f"{base} ({seen[base]})")
    return out


@pytest.mark.parametrize("example", EXAMPLES, ids=_ids(EXAMPLES))
def test_example_parses(example):
    errors = parse_errors(wrap(example), f"docs/language.md:{example.line}")
    assert errors == [], (f"the example at docs/language.md line {example.line} "
                          f"({example.heading}) does not parse:\n" + "\n".join(errors))


def test_the_document_has_examples_of_every_kind():
    kinds = {ex.kind for ex in EXAMPLES}
    assert kinds == set(KINDS), f"kinds of examples found: {sorted(kinds)}"


def test_every_seed_has_a_whole_file_example():
    seed_examples = [ex for ex in EXAMPLES if ex.section == SEED_SECTION and ex.kind == ""]
    assert len(seed_examples) >= 5
    for seed in SEEDS:
        assert any(ex.subsection.startswith(seed) for ex in seed_examples), (
            f"no whole-file example under a heading starting with {seed} in '{SEED_SECTION}'")


def test_seed_examples_are_whole_games():
    for ex in EXAMPLES:
        if ex.section == SEED_SECTION and ex.kind == "":
            assert re.search(r'(?m)^game "', ex.text), f"line {ex.line}: a seed example declares its game"


def test_a_broken_example_is_caught():
    """The checks above can fail: a malformed example is reported."""
    broken = Example("statements", "let x = 3", 1, "broken", "", "")
    assert parse_errors(wrap(broken), "broken.cards")
    assert parse_errors("card type X:\n    action \"A\" cost exhaust:\n        stop\n", "broken.cards")


def test_the_fallback_parser_agrees_on_a_seed_example():
    pytest.importorskip("lark")
    seed = next(ex for ex in EXAMPLES if ex.section == SEED_SECTION and ex.kind == "")
    assert _parse_errors_with_lark(wrap(seed)) == []
    assert _parse_errors_with_lark("setup:\n    let x = 3\n")


# ---------------------------------------------------------------- examples the runtime runs

# Whole-file examples that must run today (docs/language.md, "Status"): they must load
# without a diagnostic, play a seeded game to its end with random bots, and pass their
# scenarios. A name matches an example's heading, or the start of the level-3 heading it sits
# under (so "004" takes both of 004's examples). Every seed example is one of them.
RUNNABLE = ("The shape of a file", "000", "001", "002", "003", "004")


def _matches(ex: Example, name: str) -> bool:
    return ex.heading == name or ex.subsection.startswith(name)


def _runnable() -> list[Example]:
    return [ex for ex in EXAMPLES if ex.kind == "" and any(_matches(ex, name) for name in RUNNABLE)]


@pytest.mark.parametrize("example", _runnable(), ids=lambda ex: ex.heading)
def test_runnable_example_checks_plays_and_passes_its_scenarios(example):
    from cardsmith.dsl.loader import load_text
    from cardsmith.interpreter.play import run_game
    from cardsmith.interpreter.scenario import run_scenarios

    game = load_text(wrap(example), f"docs/language.md:{example.line}")
    engine = run_game(game, players=game.min_players, seed=1, log=False)
    assert engine.finished
    results = run_scenarios(game)
    if example.section == SEED_SECTION:
        assert results, f"the seed example at line {example.line} ({example.heading}) has no scenario"
    for result in results:
        assert result.ok, f"scenario '{result.name}': {result.failures}"


def test_every_runnable_example_is_found():
    found = _runnable()
    for name in RUNNABLE:
        assert any(_matches(ex, name) for ex in found), f"no whole-file example found for '{name}'"
    seeds = [ex for ex in EXAMPLES if ex.section == SEED_SECTION and ex.kind == ""]
    assert all(ex in found for ex in seeds), "every seed example must be one that runs"
    assert len(found) >= len(RUNNABLE) + 1      # 004 has two


# ---------------------------------------------------------------- the words of the language

def grammar_keywords() -> set[str]:
    """Every word the grammar spells out literally ("move", "secretly", "rounds", ...)."""
    from lark import Lark
    from lark.lexer import PatternRE, PatternStr

    grammar = Lark(GRAMMAR.read_text(encoding="utf-8"), parser="lalr", lexer="contextual")
    words: set[str] = set()
    for term in grammar.terminals:
        pattern = term.pattern
        if isinstance(pattern, PatternStr) and re.fullmatch(r"[a-z]+", pattern.value):
            words.add(pattern.value)
        elif isinstance(pattern, PatternRE):
            alternatives = re.fullmatch(r"\(\?:([a-z|]+)\)", pattern.value)
            if alternatives:
                words.update(alternatives.group(1).split("|"))
            elif guarded := re.fullmatch(r"([a-z]+)\(\?!.*", pattern.value):   # a keyword unless `(` follows
                words.add(guarded.group(1))
    return words


def documented_words() -> set[str]:
    start = DOC_TEXT.index(f"## {WORDS_SECTION}")
    end = DOC_TEXT.find("\n## ", start + 1)
    section = DOC_TEXT[start:end if end != -1 else len(DOC_TEXT)]
    return set(re.findall(r"`([a-z]+)`", section))


def test_the_words_of_the_language_are_listed():
    missing = grammar_keywords() - documented_words()
    extra = documented_words() - grammar_keywords()
    assert not missing, f"words of the grammar missing from '{WORDS_SECTION}': {sorted(missing)}"
    assert not extra, f"words listed in '{WORDS_SECTION}' that the grammar does not have: {sorted(extra)}"
