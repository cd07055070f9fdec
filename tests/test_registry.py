"""One entry per construct, proved complete (dsl/registry.py).

Every statement, expression and ability class of dsl/ast.py, every built-in function and every
built-in event has each handler its kind needs: a construct added without its type rule, check,
compiler, rulebook sentence, diagram walker or `explain` writer fails here, not in a game; and no
table holds a handler that no construct claims. This is the one completeness test: the modules
that hold handlers have tests of what their handlers do, not of whether they are there. The
tests of the test take a handler away (or leave one behind) and show the check names exactly
that construct and handler.
"""
from __future__ import annotations

import importlib
import inspect
import sys
from dataclasses import replace
from typing import get_args

import pytest

from cardsmith.dsl import ast as A
from cardsmith.dsl import model
from cardsmith.dsl import registry as R
from cardsmith.dsl.publish import diagrams, english, phrases
from cardsmith.dsl.types import Scope, Typer
from cardsmith.interpreter import compile_expr, compile_stmt, explain


def test_every_construct_has_every_handler():
    assert R.missing() == []


def test_every_handler_has_its_construct():
    assert R.strays() == []


# Node classes that are parts of declarations or abilities, not statements or expressions
_PARTS = {"Activation", "CardTable", "FieldValue", "KeywordUse", "Module", "OrderKey", "Param", "TableRow",
          "TypeRef", "SortKey", "MenuOption", "DeckRule"}


def test_the_registry_lists_every_ast_statement_expression_and_ability():
    assert set(R.CONSTRUCTS) == set(get_args(A.Expr)) | set(get_args(A.Stmt)) | set(get_args(A.Ability))
    # a new node class that is in no union (so in no registry) is found here
    strays = sorted(name for name, cls in vars(A).items()
                    if isinstance(cls, type) and cls.__module__ == A.__name__ and cls not in R.CONSTRUCTS
                    and not name.endswith("Decl") and name not in _PARTS)
    assert strays == [], f"add {strays} to Expr, Stmt or Ability in dsl/ast.py (and so to the registry)"


def test_each_kind_needs_its_handlers():
    assert R.CONSTRUCTS[A.Arith].needs == ("type", "compile", "english", "listing")
    assert R.CONSTRUCTS[A.MoveStmt].needs == ("check", "compile", "english", "diagram")
    assert R.CONSTRUCTS[A.Triggered].needs == ("english",)


def test_handlers_are_the_ones_the_pipeline_dispatches_to():
    c = R.CONSTRUCTS[A.Compare]
    assert c.handler("type") is Typer.t_Compare
    assert c.handler("compile") is compile_expr.ExprCompiler.x_Compare
    assert c.handler("english") is phrases.describe_Compare
    assert c.handler("listing") is explain.WRITERS["Compare"]
    s = R.CONSTRUCTS[A.IfStmt]
    assert s.handler("compile") is compile_stmt.StmtCompiler.s_IfStmt
    assert s.handler("diagram") is diagrams.walk_IfStmt
    # the compilers dispatch through the registry's tables
    assert compile_expr._COMPILE == R.dispatch("compile", R.EXPRESSION, compile_expr.ExprCompiler)
    assert set(compile_expr._COMPILE) == set(get_args(A.Expr))
    assert compile_stmt._COMPILE == R.dispatch("compile", R.STATEMENT, compile_stmt.StmtCompiler)
    assert set(compile_stmt._COMPILE) == set(get_args(A.Stmt))
    # and so do the typer, the statement checker and `explain`'s writer of operands
    types = sys.modules[Typer.__module__]
    bodies = importlib.import_module("cardsmith.dsl.checks.bodies")
    assert types._TYPE == R.dispatch("type", R.EXPRESSION, Typer)
    assert set(types._TYPE) == set(get_args(A.Expr))
    assert bodies._CHECK == R.dispatch("check", R.STATEMENT, bodies.BodyChecker)
    assert set(bodies._CHECK) == set(get_args(A.Stmt))
    assert explain._WRITE == R.dispatch("listing", R.EXPRESSION, explain.WRITERS)
    assert set(explain._WRITE) == set(get_args(A.Expr))


# ---------------------------------------------------------------- the test of the test


def test_a_missing_expression_compiler_is_named(monkeypatch):
    monkeypatch.delattr(compile_expr.ExprCompiler, "x_Neg")
    assert R.missing() == [("Neg", "compile")]


def test_a_missing_statement_check_is_named(monkeypatch):
    bodies = importlib.import_module("cardsmith.dsl.checks.bodies")     # the package's `bodies` is the pass
    monkeypatch.delattr(bodies.BodyChecker, "s_RollStmt")
    assert R.missing() == [("RollStmt", "check")]


def test_a_missing_type_rule_is_named(monkeypatch):
    monkeypatch.delattr(Typer, "t_IsA")
    assert R.missing() == [("IsA", "type")]


def _english(describers) -> dict:
    return {("english", kind): describers for kind in (R.EXPRESSION, R.STATEMENT, R.ABILITY)}


def test_a_missing_sentence_and_walker_are_named():
    describers = {k: v for k, v in english.DESCRIBERS.items() if k not in ("SayStmt", "Replacement")}
    walkers = {k: v for k, v in diagrams.WALKERS.items() if k != "TurnStmt"}
    gaps = R.missing(hosts={**_english(describers), ("diagram", R.STATEMENT): walkers})
    assert gaps == [("SayStmt", "english"), ("TurnStmt", "diagram"), ("Replacement", "english")]


def test_a_missing_writer_for_explain_is_named():
    writers = {k: v for k, v in explain.WRITERS.items() if k != "TopCards"}
    assert R.missing(hosts={("listing", R.EXPRESSION): writers}) == [("TopCards", "listing")]


def test_a_handler_without_its_construct_is_named(monkeypatch):
    describers = {**english.DESCRIBERS, "Shout": english.DESCRIBERS["SayStmt"]}
    walkers = {**diagrams.WALKERS, "Whisper": diagrams.WALKERS["SayStmt"]}
    writers = {**explain.WRITERS, "Echo": explain.WRITERS["Num"]}
    monkeypatch.setattr(Typer, "t_Murmur", Typer.t_Num, raising=False)
    assert R.strays(hosts={**_english(describers), ("diagram", R.STATEMENT): walkers,
                           ("listing", R.EXPRESSION): writers}) == [
        ("type", "t_Murmur"), ("english", "Shout"), ("listing", "Echo"), ("diagram", "Whisper")]
    # a construct taken away leaves its handlers behind: named, as a construct without one is
    constructs = {cls: c for cls, c in R.CONSTRUCTS.items() if cls is not A.SayStmt}
    monkeypatch.delattr(Typer, "t_Murmur")
    assert R.strays(constructs=constructs) == [
        ("english", "SayStmt"), ("check", "s_SayStmt"), ("compile", "s_SayStmt"), ("diagram", "SayStmt")]


def test_a_new_construct_without_handlers_is_named():
    class Shout:            # as if dsl/ast.py had grown a statement and nothing else
        pass
    constructs = {**R.CONSTRUCTS, Shout: R.Construct(Shout, R.STATEMENT)}
    assert R.missing(constructs=constructs) == [
        ("Shout", "check"), ("Shout", "compile"), ("Shout", "english"), ("Shout", "diagram")]


def test_a_builtin_function_without_its_handlers_is_named(monkeypatch):
    monkeypatch.delattr(compile_expr.ExprCompiler, "b_first")
    sayings = {k: v for k, v in phrases.SAYINGS.items() if k != "say_any"}
    assert R.missing(hosts={("english", R.FUNCTION): sayings}) == [("first", "compile"), ("any", "english")]
    odd = {"twice": R.BuiltinFunction("twice", "numbers", "double", "b_twice", "say_twice", "")}
    assert R.missing(constructs={}, functions=odd, events={}) == [
        ("twice", "gives"), ("twice", "compile"), ("twice", "english")]


def test_a_builtin_event_without_its_english_or_announcer_is_named():
    ev = R.EVENTS["moved"]
    events = {"moved": replace(ev, would=""), "dawn": replace(ev, name="dawn", announcer="cardsmith.interpreter.machine:Machine.dawn")}
    assert R.missing(constructs={}, functions={}, events=events) == [("moved", "would"), ("dawn", "announcer")]


# ---------------------------------------------------------------- built-in functions and events


def test_builtin_functions_are_one_table():
    assert list(R.BUILTIN_FUNCTIONS) == ["count", "sum", "highest", "lowest", "first", "last", "any", "clockwise_from",
                                        "adjacent", "distance"]
    for b in R.BUILTIN_FUNCTIONS.values():
        assert getattr(compile_expr.ExprCompiler, b.compile)
        assert phrases.SAYINGS[b.english]
    # phrases has no saying that no built-in names
    assert set(phrases.SAYINGS) == {b.english for b in R.BUILTIN_FUNCTIONS.values()}


@pytest.mark.parametrize("name, arg, gives", [
    ("count", A.PlayersExpr(span=None), "number"),
    ("any", A.PlayersExpr(span=None), "flag"),
    ("first", A.PlayersExpr(span=None), "player"),
    ("clockwise_from", A.ActivePlayer(span=None), ("list", "player")),
])
def test_a_builtin_types_by_its_entry(name, arg, gives):
    reports = []
    typer = Typer(model.Declarations(), lambda *r: reports.append(r))
    assert typer.infer(A.Call(span=None, name=name, args=(arg,)), Scope()) == gives
    assert reports == []


def test_a_builtin_with_the_wrong_arity_is_reported_with_its_example():
    reports = []
    typer = Typer(model.Declarations(), lambda *r: reports.append(r))
    typer.infer(A.Call(span=None, name="clockwise_from", args=()), Scope())
    assert [(code, hint) for code, _msg, _span, hint in reports] == [
        ("E0302", R.BUILTIN_FUNCTIONS["clockwise_from"].example)]


def _call(name, *args):
    return A.Call(span=None, name=name, args=args)


@pytest.mark.parametrize("call, phrase", [
    (_call("count", A.CardsIn(span=None, zone=A.Name(span=None, name="box"))), "the number of cards in box"),
    (_call("first", A.PlayersExpr(span=None)), "the first player in seat order still in the game"),
    (_call("clockwise_from", A.ActivePlayer(span=None)),
     "the players in clockwise order starting with the active player"),
    (_call("count"), "count()"),        # a built-in with the wrong arity is said as written
])
def test_a_builtin_reads_from_its_saying(call, phrase):
    assert english.plain(english.np(call, english.make_ctx())) == phrase


def test_builtin_events_are_one_table():
    assert model.BUILTIN_EVENTS == {name: ev.params for name, ev in R.EVENTS.items()}
    assert english.BUILTIN_PHRASES == {name: ev.when for name, ev in R.EVENTS.items()}
    assert english.BUILTIN_WOULD == {name: ev.would for name, ev in R.EVENTS.items()}


@pytest.mark.parametrize("name", list(R.EVENTS))
def test_a_builtin_event_is_announced_by_its_announcer(name):
    """The engine function the table names raises the event (by its constant or its name)."""
    ev = R.EVENTS[name]
    source = inspect.getsource(R.announcer(ev))
    constant = next(k for k, v in vars(R).items() if k.isupper() and v == name)
    assert f'"{name}"' in source or constant in source, (name, ev.announcer)
