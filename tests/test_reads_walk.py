"""reads._nodes, the one AST walk (the compiler's facts about a whole game are worked out with
it once per program: every call, the names that may be set to none, the flow's names): it looks
a class's fields up once per class instead of asking `is_dataclass` of every value, and must
give the very nodes, in the very order, of the plain walk it replaced (kept below)."""
from __future__ import annotations

from dataclasses import is_dataclass
from pathlib import Path

import pytest

from cardsmith.dsl import ast as A
from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.reads import _field_names, _nodes

ROOT = Path(__file__).resolve().parent.parent
GAMES = [ROOT / "games" / "the_space_war.cards", ROOT / "games" / "eve_war_for_new_eden.cards",
         ROOT / "games" / "space_race.cards", ROOT / "tests" / "games" / "waystones.cards"]


def _nodes_before(expr, seen=None):
    stack = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, (list, tuple)):
            stack.extend(e)
        elif isinstance(e, dict):
            stack.extend(e.values())
        elif is_dataclass(e) and not isinstance(e, type):
            if seen is not None:
                if id(e) in seen:
                    continue
                seen.add(id(e))
            yield e
            stack.extend(getattr(e, f) for f in _field_names(type(e)))


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_the_walk_gives_the_nodes_the_plain_walk_gave(path):
    game = load_game(str(path))
    root = [v for k, v in game.decls.__dict__.items() if k != "typing"] + [[c.bound for c in game.cards]]
    assert [id(x) for x in _nodes(root, set())] == [id(x) for x in _nodes_before(root, set())]
    assert [id(x) for x in _nodes(root)] == [id(x) for x in _nodes_before(root)]


def test_a_node_with_no_field_but_its_span_is_a_node():
    this = A.This(None) if "span" in A.This.__dataclass_fields__ else A.This()
    assert list(_nodes([this, (this,)])) == [this, this]
    assert list(_nodes(A.This, set())) == []        # a class is no node
