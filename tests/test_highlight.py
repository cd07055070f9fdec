"""Highlighting (dsl/highlight.py): the Pygments lexer and its entry point, HTML for a snippet,
and the VS Code package (dsl/editors/vscode/) whose TextMate grammar must colour every keyword
of grammar/cardsmith.lark.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import Comment, Error, Keyword, Name, String

from cardsmith.dsl.fmt import grammar_keywords
from cardsmith.dsl.highlight import TEXTMATE_PATH, CardsLexer, highlight_html, textmate_json
from cardsmith.dsl.parser import load_grammar

ROOT = Path(__file__).resolve().parent.parent
VSCODE = ROOT / "dsl" / "editors" / "vscode"
GAMES = sorted([*ROOT.glob("games/*.cards"), *ROOT.glob("tests/games/*.cards")])


def lark_keywords() -> set[str]:
    """The words of the grammar as Lark itself sees them: its string terminals, and the words
    of a terminal that is an alternation of words (ROUNDS)."""
    found = set()
    for term in load_grammar().terminals:
        value = term.pattern.value
        if term.pattern.type == "str" and re.fullmatch(r"[a-z]+", value):
            found.add(value)
        elif term.pattern.type == "re":
            inner = re.sub(r"^\(\?:|\)$", "", value)
            if re.fullmatch(r"[a-z]+(\|[a-z]+)+", inner):
                found.update(inner.split("|"))
            elif guarded := re.fullmatch(r"([a-z]+)\(\?!.*", value):   # a keyword unless `(` follows (DESTROY)
                found.add(guarded.group(1))
    return found


def test_the_keywords_read_from_the_grammar_text_are_larks():
    assert grammar_keywords() == lark_keywords()
    assert {"move", "secretly", "rounds", "round", "interpretation"} <= grammar_keywords()


# ---------------------------------------------------------------- the Pygments lexer


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.name)
def test_the_lexer_reads_every_game_whole_without_errors(path):
    text = path.read_text(encoding="utf-8")
    tokens = list(CardsLexer().get_tokens_unprocessed(text))
    assert "".join(value for _, _, value in tokens) == text
    assert not [(i, v) for i, tok, v in tokens if tok in Error], "a lexeme the lexer does not know"


def test_the_lexer_colours_by_kind():
    text = ('# a note\nprocedure refill(p):\n    move top card of p\'s deck to p\'s hand\n'
            'card type Unit:\n    """Prose"""\n    power: number = 3\n')
    kinds = {(tok, value) for tok, value in CardsLexer().get_tokens(text)}
    assert (Comment.Single, "# a note") in kinds
    assert (Name.Function, "refill") in kinds
    assert (Name.Class, "Unit") in kinds
    assert (String.Doc, '"""Prose"""') in kinds
    assert (Keyword, "move") in kinds and (Keyword, "top") in kinds
    assert (Name, "deck") in kinds and (Name, "power") in kinds


def test_a_name_that_starts_with_a_keyword_is_a_name():
    kinds = [(tok, v) for tok, v in CardsLexer().get_tokens("set players_left to moves\n") if v.strip()]
    assert kinds[1] == (Name, "players_left") and kinds[3] == (Name, "moves")


def test_the_entry_point_finds_the_lexer():
    assert isinstance(get_lexer_by_name("cards"), CardsLexer)
    assert isinstance(get_lexer_for_filename("game.cards"), CardsLexer)


def test_pygmentize_dash_l_cards():
    run = subprocess.run([sys.executable, "-m", "pygments", "-l", "cards", "-f", "html"],
                         input="shuffle your deck  # now\n", capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert '<span class="k">shuffle</span>' in run.stdout and '<span class="c1"># now</span>' in run.stdout


def test_highlight_html_escapes_the_text():
    html = highlight_html('say "<script>alert(1)</script> & more"\n')
    assert "<script>" not in html
    assert "&lt;script&gt;" in html and "&amp; more" in html
    assert html.startswith('<div class="cards-code">')


# ---------------------------------------------------------------- the TextMate grammar


def missing_keywords(grammar: dict, words) -> set[str]:
    """The words that no keyword or constant rule of a TextMate grammar matches whole."""
    patterns = []

    def walk(node):
        if isinstance(node, dict):
            if "match" in node and node.get("name", "").startswith(("keyword", "constant.language")):
                patterns.append(re.compile(node["match"]))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(grammar)
    return {w for w in words if not any(p.fullmatch(w) for p in patterns)}


def test_the_textmate_grammar_colours_every_keyword_of_the_grammar():
    grammar = json.loads(TEXTMATE_PATH.read_text(encoding="utf-8"))
    missing = missing_keywords(grammar, lark_keywords())
    assert not missing, (f"words of grammar/cardsmith.lark the VS Code grammar does not colour: {sorted(missing)}; "
                         "regenerate it: python -m cardsmith.dsl.highlight --write-textmate")


def test_the_keyword_test_fails_when_a_keyword_is_missing():
    grammar = json.loads(TEXTMATE_PATH.read_text(encoding="utf-8"))
    before = missing_keywords(grammar, lark_keywords())
    rule = grammar["repository"]["keyword"]
    rule["match"] = re.sub(r"(?<=[:|])secretly(?=[|)])", "", rule["match"]).replace("||", "|")
    assert missing_keywords(grammar, lark_keywords()) - before == {"secretly"}


def test_the_textmate_grammar_is_the_generated_one():
    assert TEXTMATE_PATH.read_text(encoding="utf-8") == textmate_json(), (
        "regenerate it: python -m cardsmith.dsl.highlight --write-textmate")


def test_the_vscode_package_names_its_files():
    package = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    (language,) = package["contributes"]["languages"]
    (grammar,) = package["contributes"]["grammars"]
    assert language["extensions"] == [".cards"] and grammar["language"] == language["id"]
    assert (VSCODE / grammar["path"]).resolve() == TEXTMATE_PATH.resolve()
    assert grammar["scopeName"] == json.loads(TEXTMATE_PATH.read_text(encoding="utf-8"))["scopeName"]
    config = json.loads((VSCODE / language["configuration"]).read_text(encoding="utf-8"))
    assert config["comments"]["lineComment"] == "#"
    assert (VSCODE / package["main"]).is_file()
    assert package["contributes"]["configuration"]["properties"]["cardsmith.command"]["default"] == ["cardsmith", "lsp"]


# ---------------------------------------------------------------- the rulebook's `cards` filter


def test_the_rulebook_templates_colour_rules_with_the_cards_filter(tmp_path):
    from cardsmith.dsl.loader import load_game
    from cardsmith.dsl.publish.rulebook import write_rulebook

    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "book.html.j2").write_text(
        '<div class="rulebox">{{ "move top card of your deck to your hand  # <b>x</b>"|cards }}</div>\n'
        '<p>{{ book.title|cards }}</p>\n', encoding="utf-8")
    game = load_game(str(ROOT / "tests" / "games" / "turn_order.cards"))
    files, _ = write_rulebook(game, tmp_path / "out", "html", templates)
    html = next(f for f in files if str(f).endswith(".html")).read_text(encoding="utf-8")
    assert '<div class="rulebox"><div class="cards-code"><pre>' in html       # not escaped twice
    assert '<span class="k">move</span>' in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<b>x</b>" not in html         # the text is escaped
    assert '<span class="n">Turn</span>' in html
