"""One entry per construct, proved complete (dsl/registry.py).

Every statement and expression class of dsl/ast.py, every built-in function and every built-in
event has each handler its kind needs: a construct added without its type rule, check,
compiler, rulebook sentence or diagram walker fails here, not in a game. The tests of the test
take a handler away and show the check names exactly that construct and handler.
"""
from __future__ import annotations

import importlib
import inspect
from dataclasses import replace
from typing import get_args

import pytest

from cardsmith.dsl import ast as A
from cardsmith.dsl import model
from cardsmith.dsl import registry as R
from cardsmith.dsl.publish import diagrams, english, phrases
from cardsmith.dsl.types import Scope, Typer
from cardsmith.interpreter import compile_expr, compile_stmt


def test_every_construct_has_every_handler():
    assert R.missing() == []


# Node classes that are parts of declarations or abilities, not statements or expressions
_PARTS = {"Activation", "CardTable", "FieldValue", "KeywordUse", "Module", "OrderKey", "Param", "TableRow",
          "TypeRef"}


def test_the_registry_lists_every_ast_statement_and_expression():
    assert set(R.CONSTRUCTS) == set(get_args(A.Expr)) | set(get_args(A.Stmt))
    # a new node class that is in neither union (so in no registry) is found here
    others = set(get_args(A.Ability))
    strays = sorted(name for name, cls in vars(A).items()
                    if isinstance(cls, type) and cls.__module__ == A.__name__ and cls not in R.CONSTRUCTS
                    and cls not in others and not name.endswith("Decl") and name not in _PARTS)
    assert strays == [], f"add {strays} to Expr or Stmt in dsl/ast.py (and so to the registry)"


def test_each_kind_needs_its_handlers():
    assert R.CONSTRUCTS[A.Arith].needs == ("type", "compile", "english")
    assert R.CONSTRUCTS[A.MoveStmt].needs == ("check", "compile", "english", "diagram")


def test_handlers_are_the_ones_the_pipeline_dispatches_to():
    c = R.CONSTRUCTS[A.Compare]
    assert c.handler("type") is Typer.t_Compare
    assert c.handler("compile") is compile_expr.ExprCompiler.x_Compare
    assert c.handler("english") is phrases.describe_Compare
    s = R.CONSTRUCTS[A.IfStmt]
    assert s.handler("compile") is compile_stmt.StmtCompiler.s_IfStmt
    assert s.handler("diagram") is diagrams.walk_IfStmt
    # the compilers dispatch through the registry's tables
    assert compile_expr._COMPILE == R.dispatch("compile", R.EXPRESSION, compile_expr.ExprCompiler)
    assert set(compile_expr._COMPILE) == set(get_args(A.Expr))
    assert compile_stmt._COMPILE == R.dispatch("compile", R.STATEMENT, compile_stmt.StmtCompiler)
    assert set(compile_stmt._COMPILE) == set(get_args(A.Stmt))


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


def test_a_missing_sentence_and_walker_are_named():
    describers = {k: v for k, v in english.DESCRIBERS.items() if k != "SayStmt"}
    walkers = {k: v for k, v in diagrams.WALKERS.items() if k != "TurnStmt"}
    gaps = R.missing(hosts={("english", R.STATEMENT): describers, ("english", R.EXPRESSION): describers,
                            ("diagram", R.STATEMENT): walkers})
    assert gaps == [("SayStmt", "english"), ("TurnStmt", "diagram")]


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
    assert list(R.BUILTIN_FUNCTIONS) == ["count", "sum", "highest", "lowest", "first", "any", "clockwise_from"]
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
    (_call("first", A.PlayersExpr(span=None)), "the first of the players"),
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
