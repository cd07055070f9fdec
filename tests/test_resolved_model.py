"""The checker's output is the model the compiler, the runtime and the publisher read (issue 7,
item 2): every expression's type and every bare name's meaning are recorded by the body checks
(`Declarations.typing`), the defaults by the card checks; nothing after the checker types an
expression again or swallows an exception to guess.
"""
from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from cardsmith.dsl import ast as A
from cardsmith.dsl import types as T
from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import load_game, load_text
from cardsmith.dsl.publish import diagrams as D
from cardsmith.dsl.publish import rulebook as R
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.errors import GameAborted
from cardsmith.interpreter.program import Program

B = importlib.import_module("cardsmith.dsl.checks.bodies")     # the package exports its function
ROOT = Path(__file__).resolve().parents[1]
GAMES = sorted(p for p in [*(ROOT / "games").glob("*.cards"), *(ROOT / "tests" / "games").glob("*.cards")]
               if not p.name.endswith(".scenarios.cards"))


def _forbid(*_args, **_kwargs):
    raise AssertionError("the checker ran again after the game was loaded")


@pytest.fixture
def no_checker(monkeypatch):
    """After this, building a Typer or a BodyChecker, or typing an expression, fails the test."""
    def install():
        monkeypatch.setattr(T.Typer, "__init__", _forbid)
        monkeypatch.setattr(T.Typer, "infer", _forbid)
        monkeypatch.setattr(T.Typer, "resolve_name", _forbid)
        monkeypatch.setattr(B.BodyChecker, "__init__", _forbid)
        monkeypatch.setattr(B, "bodies", _forbid)
    return install


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.name)
def test_compiling_running_and_publishing_never_run_the_checker(path, no_checker):
    game = load_game(str(path))
    no_checker()
    prog = Program(game)                        # not the cached one: compiled here, under the ban
    game._cache["program"] = prog
    assert prog.codes
    try:                                        # a few decisions: the compiled rules run
        engine = Engine(game, game.min_players, seed=3, log=False, max_steps=50_000)
        for _ in range(30):
            if engine.pending is None:
                break
            engine.decide(0)
    except GameAborted as err:                  # a game that goes on without decisions: its bound
        assert err.diagnostics[0].code == "E0801", err
    book = R.build_book(game)
    assert R.render(book, "md").startswith("# ")
    for kind in D.KINDS:
        assert D.dot_source(game.decls, kind).startswith(f"digraph {kind} {{")


# ---------------------------------------------------------------- every expression has a type

EXPRESSIONS = tuple(getattr(A, name[2:]) for name in dir(T.Typer) if name.startswith("t_") and hasattr(A, name[2:]))


def _rule_roots(d):
    """Every place of a game that holds rules (not card tables or declarations' literals)."""
    yield from d.defines.values()
    yield from d.procedures.values()
    yield from ([d.setup] if d.setup else [])
    yield from d.rounds
    yield from d.end_checks
    for ct in d.card_types.values():
        yield ct.abilities
        if ct.blank_unless is not None:
            yield ct.blank_unless
    for cd in d.cards:
        yield cd.abilities
    for kw in d.keywords.values():
        yield kw.abilities
    if d.trigger_order:
        yield tuple(k.expr for k in d.trigger_order.keys if k.expr is not None)
    yield tuple(w.order for w in d.windows if w.order is not None)
    yield from d.scenarios


def _expressions(node):
    if isinstance(node, EXPRESSIONS):
        yield node
    if isinstance(node, (tuple, list)):
        for x in node:
            yield from _expressions(x)
    elif hasattr(node, "__dataclass_fields__"):
        for name in node.__dataclass_fields__:
            if name != "span":
                yield from _expressions(getattr(node, name))


ALL_GAMES = sorted([*(ROOT / "games").glob("*.cards"), *(ROOT / "tests" / "games").glob("*.cards")])


@pytest.mark.parametrize("path", ALL_GAMES, ids=lambda p: p.name)
def test_every_expression_of_every_bundled_game_has_a_recorded_type(path):
    d = load_game(str(path)).decls
    typed = {key for (_instance, key) in d.typing.types}
    seen = 0
    for root in _rule_roots(d):
        for e in _expressions(root):
            seen += 1
            assert id(e) in typed, f"no type recorded for {type(e).__name__} at {e.span}"
            if isinstance(e, A.Name):
                assert d.typing.kind_merged(e) is not None, f"'{e.name}' at {e.span} resolves to nothing"
    assert seen > 20


def test_the_expression_classes_walked_are_the_typers():
    assert {c.__name__ for c in EXPRESSIONS} >= {"Name", "Call", "Compare", "Possessive", "WhereExpr", "You"}


# ---------------------------------------------------------------- one type per call signature

TWO_KINDS = '''game "Two kinds":
    players: 2 to 2

player has:
    life: number = 20

zone deck: per player, ordered, hidden
zone pile: shared, public

card type Token:
    power: number

cards Token in pile:
    | name   | power | copies |
    | "Chip" | 2     | 1      |

define worth(x) as x's life
define value(x) as x.power

procedure mark(x):
    let seen be x

setup:
    mark(seat 1)
    mark(top card of pile)
    set seat 1's life to worth(seat 2)
    set seat 2's life to value(top card of pile)
    seat 1 wins
'''


def test_a_body_called_with_a_player_and_with_a_card_has_a_type_for_each():
    game = load_text(TWO_KINDS)
    d = game.decls
    proc = d.procedures["mark"]
    let = proc.body[0]
    assert d.typing.type_of(let.value, ("procedure", "mark", (T.PLAYER,))) == T.PLAYER
    assert d.typing.type_of(let.value, ("procedure", "mark", (T.CARD,))) == T.CARD
    assert d.typing.merged(let.value) == T.ANY         # the rulebook cannot call it either one
    prog = Program(game)
    assert prog.procedure_code("mark", (T.PLAYER,)) != prog.procedure_code("mark", (T.CARD,))
    engine = Engine(game, 2, seed=1, log=False)
    assert engine.m.st.players[0]["life"] == 20 and engine.m.st.players[1]["life"] == 2


def test_a_type_the_checker_never_recorded_is_an_internal_error_not_a_guess():
    game = load_text(TWO_KINDS)
    stranger = A.Num(game.decls.game.span, 3)
    with pytest.raises(LookupError, match="recorded no type for Num"):
        game.decls.typing.type_of(stranger)


# ---------------------------------------------------------------- defaults, computed once

def test_attribute_defaults_are_computed_by_the_checker_and_read_by_the_engine():
    game = load_text(TWO_KINDS.replace("player has:\n    life: number = 20",
                                       "player has:\n    life: number = 20\n    bonus: number, at least 1\n"
                                       "    ready: flag\n    note: text"))
    assert game.decls.player_defaults == {"life": 20, "bonus": 1, "ready": False, "note": ""}
    state = Engine(game, 2, seed=1, log=False).m.st
    assert state.players[1]["bonus"] == 1 and state.players[1]["ready"] is False


def test_a_default_of_the_wrong_kind_is_a_located_error():
    with pytest.raises(CardsmithError) as err:
        load_text(TWO_KINDS.replace("life: number = 20", 'life: number = "lots"'))
    [diag] = [x for x in err.value.diagnostics if x.code == "E0501"]
    assert "the default of 'life'" in diag.message and diag.span.line == 5


# ---------------------------------------------------------------- no guessing anywhere

ALLOWED = {   # file -> why its catch-all is there (each re-raises as a located diagnostic or is the top guard)
    "dsl/loader.py": "a bug in the checker reaches the designer as a located error",
    "dsl/transformer.py": ("Lark's own _call_userfunc, with each rule's method looked up once: an error in a rule's "
                           "method is re-raised as Lark's VisitError, as Lark does, never swallowed"),
    "dsl/cache.py": ("a cached tree that cannot be decoded (damaged, written by another version, or planted) is a miss: "
                     "the file is parsed again, which is always right"),
    "dsl/fmt.py": "a bug in the formatter reaches the designer as E0912, and the file is left as it is",
    "dsl/lsp/server.py": "the language server's guard: a request about a half-typed file answers nothing, never kills the server",
    "dsl/parser.py": "every parse failure is explained as a diagnostic",
    "dsl/syntax_errors.py": "explaining a syntax error never turns one error into a crash",
    "interpreter/cli.py": "the CLI's top-level guard: an internal error line, never a traceback",
    "interpreter/simulate.py": "a crashed game is counted and reported, not fatal to the run",
    "interpreter/cluster.py": ("a remote task's failure: Dask re-raises the worker's exception with whatever type "
                               "it had (a bug, a lost worker, a worker's full disk); the chunk's games are recorded "
                               "as crashed with that type and message, and the run goes on, as for a lost local worker"),
}


def test_no_exception_is_swallowed_to_guess_again():
    for folder in ("dsl", "interpreter"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
                if re.search(r"^\s*except Exception\b", line):
                    assert rel in ALLOWED, f"{rel}:{n}: catches every exception: {line.strip()}"
    for rel in ("dsl/publish/words.py", "interpreter/program.py", "interpreter/compile_expr.py",
                "interpreter/compile_stmt.py", "interpreter/engine.py"):
        text = (ROOT / rel).read_text(encoding="utf-8")
        assert "Typer" not in text and "BodyChecker" not in text, f"{rel} re-runs the checker"
