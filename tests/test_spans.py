"""AST spans run from a construct's first written token to the end of its last.

Carets under a whole span (dsl/render.py), source sliced by span (explain) and ranges all read
the end of a span: it used to be where Lark's meta ended, after the line end, indentation and
comment lines that close a statement, or before the start for a node closed by a dedent.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from cardsmith.dsl import ast as A
from cardsmith.dsl.parser import parse
from cardsmith.dsl.source import Source, Span
from cardsmith.dsl.transformer import to_ast

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(
    str(p.relative_to(ROOT))
    for folder in ("games", "tests/games", "tests/simulate", "tests/memory", "tests/fuzz/found")
    for p in (ROOT / folder).glob("*.cards"))


def module_of(text: str, path: str = "t.cards") -> A.Module:
    tree, diagnostics = parse(Source(path, text))
    assert tree is not None, diagnostics
    return to_ast(tree, path, text)


def nodes(node, parent=None):
    """(node, nearest enclosing node) for every AST node under `node`, depth first."""
    if dataclasses.is_dataclass(node) and not isinstance(node, Span):
        yield node, parent
        for field in dataclasses.fields(node):
            yield from nodes(getattr(node, field.name), node)
    elif isinstance(node, (tuple, list)):
        for item in node:
            yield from nodes(item, parent)


def sliced(text: str, span: Span) -> str:
    """The source text a span covers (lines and columns are 1-based, the end exclusive)."""
    lines = text.split("\n")
    if span.line == span.end_line:
        return lines[span.line - 1][span.column - 1:span.end_column - 1]
    return "\n".join([lines[span.line - 1][span.column - 1:], *lines[span.line:span.end_line - 1],
                      lines[span.end_line - 1][:span.end_column - 1]])


def span_problems(text: str, module: A.Module) -> list[str]:
    """Every way a span of `module` breaks the rules of this file's docstring."""
    out = []
    for node, parent in nodes(module):
        kind, s = type(node).__name__, node.span
        where = f"{kind} {s.line}:{s.column}-{s.end_line}:{s.end_column}"
        if s.line < 1:
            out.append(f"{where}: no location")
            continue
        if (s.line, s.column) >= (s.end_line, s.end_column):
            out.append(f"{where}: ends before it starts")
            continue
        if parent is not None:
            p = parent.span
            if (s.line, s.column) < (p.line, p.column) or (s.end_line, s.end_column) > (p.end_line, p.end_column):
                out.append(f"{where}: outside its {type(parent).__name__} "
                           f"{p.line}:{p.column}-{p.end_line}:{p.end_column}")
        written = sliced(text, s)
        if written != written.strip():
            out.append(f"{where}: starts or ends with layout: {written!r}")
        if written.rstrip().split("\n")[-1].lstrip().startswith("#"):
            out.append(f"{where}: ends in a comment line: {written!r}")
        expected = {A.Name: lambda n: n.name, A.Num: lambda n: str(n.value),
                    A.Bool: lambda n: "yes" if n.value else "no"}.get(type(node))
        if expected is not None and written != expected(node):
            out.append(f"{where}: covers {written!r}, not {expected(node)!r}")
        if isinstance(node, A.Text) and not (written[:1] == written[-1:] == '"' and len(written) > 1):
            out.append(f"{where}: covers {written!r}, not the quoted text")
    return out


def test_the_files_are_found():
    assert len(FILES) >= 12 and "games/battlefield_space.cards" in FILES


@pytest.mark.parametrize("path", FILES)
def test_every_span_of_every_bundled_file(path):
    text = (ROOT / path).read_text(encoding="utf-8")
    module = module_of(text, path)
    assert span_problems(text, module) == []
    assert sum(1 for _ in nodes(module)) > len(module.decls) > 0     # the walk reaches into them


HEAD = 'game "T":\n    players: 2 to 2\n\nzone pile: shared\n\n'


def test_a_declaration_ends_at_its_last_token_not_at_the_next_one():
    text = HEAD + 'setup:\n    say "a"\n    say "b"\n\n\n# a note about the round\n\nround "R":\n    stop\n'
    module = module_of(text)
    setup, rnd = module.decls[-2:]
    assert isinstance(setup, A.SetupDecl) and isinstance(rnd, A.RoundDecl)
    assert (setup.span.line, setup.span.column, setup.span.end_line, setup.span.end_column) == (6, 1, 8, 12)
    assert sliced(text, setup.span) == 'setup:\n    say "a"\n    say "b"'
    assert (rnd.span.line, rnd.span.end_line, rnd.span.end_column) == (13, 14, 9)
    game = module.decls[0]
    assert sliced(text, game.span) == 'game "T":\n    players: 2 to 2'
    assert span_problems(text, module) == []


def test_nested_blocks_closed_by_dedents_at_the_end_of_a_file_without_a_newline():
    text = HEAD + ('round "R":\n    if 1 = 1:\n        if 2 = 2:\n            say "deep"\n'
                   '    else:\n        say "other"  # a trailing comment\n\n    say "last"')
    module = module_of(text)
    rnd = module.decls[-1]
    outer, last = rnd.body
    assert isinstance(outer, A.IfStmt)
    assert sliced(text, outer.span) == ('if 1 = 1:\n        if 2 = 2:\n            say "deep"\n'
                                        '    else:\n        say "other"')
    inner = outer.branches[0][1][0]
    assert sliced(text, inner.span) == 'if 2 = 2:\n            say "deep"'
    assert sliced(text, last.span) == 'say "last"'
    assert (rnd.span.end_line, rnd.span.end_column) == (last.span.end_line, last.span.end_column)
    assert span_problems(text, module) == []


def test_a_triple_quoted_text_spans_its_lines():
    text = HEAD + 'rule "Long":\n    """\n    first line\n    second line\n    """\n'
    module = module_of(text)
    prose = module.decls[-1]
    assert isinstance(prose, A.ProseDecl)
    assert (prose.span.line, prose.span.end_line, prose.span.end_column) == (6, 10, 8)
    assert sliced(text, prose.span).endswith('second line\n    """')
    assert span_problems(text, module) == []


def test_an_expression_over_several_lines_in_brackets():
    text = HEAD + 'setup:\n    let n be (1 +\n        2)\n    say "done"\n'
    module = module_of(text)
    let = module.decls[-1].body[0]
    assert sliced(text, let.span) == 'let n be (1 +\n        2)'
    assert sliced(text, let.value.span) == '1 +\n        2'
    assert span_problems(text, module) == []


def test_explain_shows_a_rule_from_its_span():
    from cardsmith.dsl.loader import load_text
    from cardsmith.interpreter.explain import explain

    game = load_text('game "T":\n    players: 2 to 2\n\nround "R":\n    say "a"\n\n    say "b"\n'
                     '    # a note after the last statement\n\n# about setup\nsetup:\n    say "c"\n')
    shown = [line.split("│")[0].strip() for line in explain(game, "R").split("\n") if "│" in line]
    assert shown == ["4", "5", "6", "7"]      # blank line 6 inside the rule; not the note on 8
