"""`term "Word": "definition"` and `credit "Role": "Name", ...` (grammar, AST, the declarations
pass): the game's own words for the glossary and who made it, for the rulebook. They change
nothing the game does."""
from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from cardsmith.dsl import ast as A
from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import load_game, load_text
from cardsmith.dsl.publish import rulebook as R
from cardsmith.dsl.render import render_diagnostic
from cardsmith.interpreter.play import run_game

ROOT = Path(__file__).resolve().parents[1]
HEAD = '''game "Words":
    players: 2 to 2
    summary: "A test."
zone deck: per player, hidden
round "R":
    step "S":
        say "hi"
'''


def test_terms_and_credits_are_read_in_order():
    game = load_text(HEAD + 'term "Capture": "Taking the cards."\nterm "Contest": "One round."\n'
                            'credit "Design": "A. Designer"\ncredit "Rules": "B. Writer", "C. Writer"\n', "w.cards")
    terms = game.decls.terms
    assert [t.word for t in terms.values()] == ["Capture", "Contest"]
    assert isinstance(terms["capture"], A.TermDecl) and terms["capture"].text == "Taking the cards."
    assert [(c.role, c.names) for c in game.decls.credits] == [("Design", ("A. Designer",)),
                                                               ("Rules", ("B. Writer", "C. Writer"))]
    assert terms["capture"].span.line == 8


def test_a_term_defined_twice_is_E0102_where_the_second_is():
    text = HEAD + 'term "Capture": "Taking the cards."\nterm "capture": "Again."\n'
    with pytest.raises(CardsmithError) as err:
        load_text(text, "w.cards")
    d = err.value.diagnostics[0]
    assert d.code == "E0102" and d.span.line == 9
    assert "the term 'capture' is defined twice (first at line 8)" in d.message
    shown = render_diagnostic(d, err.value.sources)
    assert 'term "capture": "Again."' in shown and "^" in shown


def test_the_book_shows_them(tmp_path):
    game = load_text(HEAD + 'term "Capture": "Taking <the> cards."\ncredit "Design": "A. Designer"\n',
                     str(tmp_path / "w.cards"))
    md = R.render(R.build_book(game, examples=False), "md")
    assert "**Capture** Taking &lt;the&gt; cards." in md
    assert "- Design: A. Designer." in md


@pytest.mark.parametrize("game_file", sorted(p for p in (ROOT / "games").glob("*.cards")
                                             if not p.name.endswith(".scenarios.cards")), ids=lambda p: p.stem)
def test_the_bundled_games_declare_words_and_credits_that_change_no_game(game_file, tmp_path):
    game = load_game(str(game_file))
    assert len(game.decls.terms) >= 5 and game.decls.credits
    text = game_file.read_text(encoding="utf-8")
    cut = text.index("\n# ---------------------------------------------------------------- the words of the game")
    for folder in game_file.parent.iterdir():     # the modules it imports (games/eve/...)
        if folder.is_dir():
            shutil.copytree(folder, tmp_path / folder.name)
    bare = load_text(text[:cut] + "\n", str(tmp_path / game_file.name))
    assert not bare.decls.terms and not bare.decls.credits
    for seed in (1, 2):
        logs = [run_game(g, game.min_players, seed).log_jsonl() for g in (game, bare)]
        assert hashlib.sha256(logs[0].encode()).digest() == hashlib.sha256(logs[1].encode()).digest()
