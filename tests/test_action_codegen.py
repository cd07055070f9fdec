"""Actions' conditions, pay costs and target collections are generated functions
(resolver.build_actions, ExprGen.function / collection_function): which they are, and that games
with actions play the same, log for log, as with the closures (ExprCompiler) they mirror."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter import resolver
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import program_for

ROOT = Path(__file__).resolve().parent.parent
GAMES = [ROOT / "games" / "the_space_war.cards", ROOT / "tests" / "games" / "standing_bonuses.cards",
         ROOT / "tests" / "games" / "sharpshooters.cards"]


def test_conditions_costs_and_targets_are_generated():
    prog = program_for(load_game(str(GAMES[0])))
    files = {fn.__code__.co_filename for e in prog.actions for fn in e.conds}
    assert files == {"<cardsmith action condition>"}
    costs = [c[1] for e in prog.actions for c in e.costs if c[0] == "pay"]
    assert costs and {fn.__code__.co_filename for fn in costs} == {"<cardsmith action cost>"}
    prog = program_for(load_game(str(GAMES[2])))
    colls = [t[1] for e in prog.actions for t in e.targets]
    assert colls and {fn.__code__.co_filename for fn in colls} == {"<cardsmith action target>"}


def _closures(prog):
    """build_actions as before generated code: closures of the expression compiler."""
    real = prog.exprs

    class Closures:
        def __getattr__(self, name):
            return getattr(real, name)

    gen = prog.gen

    class Gen:
        def __getattr__(self, name):
            return getattr(gen, name)

        def function(self, e, sc, label):
            return real.compile(e, sc)

        def collection_function(self, e, sc, label):
            return real.collection(e, sc)

    prog.gen = Gen()
    try:
        return _build(prog)
    finally:
        prog.gen = gen


_build = resolver.build_actions


def _log(path, seed, generated, monkeypatch):
    with monkeypatch.context() as mp:
        if not generated:
            mp.setattr(resolver, "build_actions", _closures)
        eng = run_game(load_game(str(path)), 2, seed, log=True)     # a fresh Game, a new program
        kinds = {fn.__code__.co_filename for e in eng.m.prog.actions for fn in e.conds}
    return json.dumps(eng.m.log.events, sort_keys=True, default=str), eng.result, kinds


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_games_with_actions_play_the_same_generated_as_with_closures(path, monkeypatch):
    for seed in range(3 if "space_war" in path.stem else 8):
        gen_log, gen_result, gen_kinds = _log(path, seed, True, monkeypatch)
        old_log, old_result, old_kinds = _log(path, seed, False, monkeypatch)
        assert (gen_log, gen_result) == (old_log, old_result), (path.stem, seed)
        assert "<cardsmith action condition>" not in old_kinds      # the comparison compared something


def test_in_cards_of_every_zone_and_in_the_stack_are_generated():
    """`c is in cards in every hand` and `this is not in the stack` (The Space War's `playable` and
    its actions' conditions) are written as source, not called as closures."""
    eng = run_game(load_game(str(GAMES[0])), 2, 1, log=False)
    sources = eng.m.prog.pool.sources
    assert any("_in_zones(m, " in s for s in sources)
    assert any("in m.stacked_cards()) != True" in s for s in sources)
