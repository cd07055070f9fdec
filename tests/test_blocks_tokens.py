"""blocks._renamed and blocks._localized read generated source with one regular expression
(blocks._tokens) instead of Python's tokenize module: they must give what the tokenize-based
versions they replaced gave (kept below as the reference), for every text the compiler hands
them while it builds and plays the bundled games and the test games, and for hand-made texts
with the tokens that make them refuse (a return, an f-string, a `del`). On a text no compiler
writes (a triple-quoted string, a character that is no Python token) they may refuse where
tokenize read on: refusing is always safe (the procedure is called, not pasted; the env's dict
stays)."""
from __future__ import annotations

from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter import blocks
from cardsmith.interpreter.play import run_game
# the splice of the edits is the module's; what is held to tokenize is which edits are made
from cardsmith.interpreter.source_tokens import edited

ROOT = Path(__file__).resolve().parent.parent
GAMES = [ROOT / "games" / "battlefield_space.cards", ROOT / "games" / "space_race.cards",
         ROOT / "games" / "the_space_war.cards", ROOT / "tests" / "games" / "framed_calls.cards",
         ROOT / "games" / "space_war_in_space.cards"]

_BARRED = blocks._BARRED


def _renamed_before(lines: list, names: dict, barred: frozenset = None):
    """`lines` (source, indented from 0) with every name token in `names` renamed, or None when
    they hold a token that would act otherwise pasted into a block (a return, a loop's break or
    continue, a frame read) or an f-string (whose names are inside a string token)."""
    import io
    import tokenize
    text = "\n".join(lines) + "\n"
    edits: dict = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.NAME:
                if tok.string in (_BARRED if barred is None else barred):
                    return None
                if tok.string in names:
                    edits.setdefault(tok.start[0] - 1, []).append((tok.start[1], tok.end[1], names[tok.string]))
            elif tok.type == tokenize.STRING and "f" in tok.string[:tok.string.find(tok.string[-1])].lower():
                return None
            elif tok.type not in (tokenize.OP, tokenize.NUMBER, tokenize.STRING, tokenize.NEWLINE, tokenize.NL,
                                  tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER, tokenize.COMMENT):
                return None
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    return edited(lines, edits)


def _localized_before(lines: list, env: str, prefix: str):
    """`lines` with every `<env>['key']` made a Python variable `<prefix><nn>` (one per key, in
    the order first met), and {key: variable}; None when `env` appears otherwise (a closure
    given the dict, a key tested with `in`, a `del`): then the dict stays."""
    import ast
    import io
    import tokenize
    text = "\n".join(lines) + "\n"
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    names: dict = {}
    edits: dict = {}
    for i, tok in enumerate(toks):
        if tok.type != tokenize.NAME or tok.string != env:
            continue
        if i + 3 >= len(toks) or (i and toks[i - 1].string in ("del", ".")):
            return None
        a, key, b = toks[i + 1], toks[i + 2], toks[i + 3]
        if (a.string != "[" or key.type != tokenize.STRING or b.string != "]" or key.string[0] not in "'\""
                or b.start[0] != tok.start[0]):
            return None
        name = names.setdefault(ast.literal_eval(key.string), f"{prefix}{len(names):02d}")
        edits.setdefault(tok.start[0] - 1, []).append((tok.start[1], b.end[1], name))
    return edited(lines, edits), names


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_the_compiler_gets_what_tokenize_gave(path, monkeypatch):
    seen = {"renamed": 0, "localized": 0}
    renamed, localized = blocks._renamed, blocks._localized

    def both_renamed(lines, names, barred=None):
        now = renamed(lines, names, barred)
        assert now == _renamed_before(lines, names, barred), lines
        seen["renamed"] += 1
        return now

    def both_localized(lines, env, prefix):
        now = localized(lines, env, prefix)
        assert now == _localized_before(lines, env, prefix), lines
        seen["localized"] += 1
        return now

    monkeypatch.setattr(blocks, "_renamed", both_renamed)
    monkeypatch.setattr(blocks, "_localized", both_localized)
    game = load_game(str(path))
    for seed in range(3):
        run_game(game, game.min_players, seed, log=False)
    assert seen["renamed"] > 0


HAND_MADE = [
    ["x = env['a'] + env2", "return x"],
    ["for p in env['ps']:", "    continue"],
    ["y = f'{env}'", "z = env['b']"],
    ["y = rb'env' + b\"env\" + 'it\\'s env' + \"a \\\"q\\\" env\""],
    ["del env['a']"],
    ["x = m.env['a']"],
    ["model = env['a'] # env['b'] is a comment"],
    ["x = env ['a']"],
    ["x = env[k]"],
    ["x = env['a'] if 'env' in env else 1e18 + 0x1F"],
    ["x = env['a'", "     ]"],
    ["x = '''env'''"],
    ["x = $env"],
    ["x = 'open"],
    ["x = env['a'] ; fr.pc = 3"],
    ["s = 'Kâ€™Totekk' + env['ünï']"],
]


ODD = {"x = '''env'''", "x = $env", "x = 'open"}     # no compiler writes these


@pytest.mark.parametrize("lines", HAND_MADE)
def test_hand_made_lines_are_read_as_tokenize_read_them(lines):
    names = {"env": "_env1", "x": "_x9"}
    odd = lines[0] in ODD
    for now, before in ((blocks._renamed(lines, names), _renamed_before(lines, names)),
                        (blocks._renamed(lines, names, frozenset()), _renamed_before(lines, names, frozenset())),
                        (blocks._localized(lines, "env", "_pv1"), _localized_before(lines, "env", "_pv1"))):
        assert now == before or (odd and now is None), (now, before)
