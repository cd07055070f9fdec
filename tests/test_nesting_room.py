"""How deep a file may nest does not depend on who calls the front end (dsl/nesting.py,
`room_to_nest`): the CLI, a test runner or a language server, a few frames up or hundreds. And
when Python's recursion runs out while the parse tree is converted, it is E0906 at the deepest
place, never an internal error wrapped by lark."""
import sys

import pytest

from cardsmith.dsl.loader import load_text
from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.parser import parse
from cardsmith.dsl.source import Source
from cardsmith.dsl.transformer import to_ast


def nested(levels: int) -> str:
    """A game whose one definition nests `levels` parentheses deep."""
    condition = "not (" * levels + "count(cards in every deck) = 0" + ")" * levels
    return f'''game "Deep":
    players: 2 to 2
    summary: "deep"

zone deck: per player, ordered, hidden

define deep() as {condition}

round "R":
    step "S":
        if deep():
            the game is a draw
'''


def verdict(text: str) -> str:
    try:
        load_text(text, "deep.cards")
    except CardsmithError as err:
        return ",".join(sorted({d.code for d in err.diagnostics}))
    return "ok"


def called_from(depth: int, fn):
    """`fn()` called with `depth` more frames below it."""
    return fn() if depth == 0 else called_from(depth - 1, fn)


@pytest.fixture(autouse=True)
def no_cache(monkeypatch):
    # each call parses and checks afresh: a cached parse would hide the converter's recursion
    monkeypatch.setenv("CARDSMITH_CACHE_DIR", "off")


@pytest.fixture(autouse=True)
def default_limit():
    # Python's default limit, whatever a test before this one left: a caller's higher limit
    # gives the front end more room (room_to_nest only ever raises it), not this test's case
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    yield
    sys.setrecursionlimit(before)


def test_the_same_file_gets_the_same_verdict_from_any_depth():
    # around the deepest nesting the front end accepts: the boundary itself must not move
    verdicts = {}
    for levels in (20, 60, 94, 95, 96, 400):
        text = nested(levels)
        seen = {called_from(depth, lambda: verdict(text)) for depth in (0, 150, 600)}
        assert len(seen) == 1, (levels, seen)
        verdicts[levels] = seen.pop()
    assert verdicts[20] == "ok" and verdicts[400] == "E0906"
    assert "ok" in verdicts.values() and list(verdicts.values()).count("E0906") >= 2


def test_the_recursion_limit_is_put_back():
    before = sys.getrecursionlimit()
    assert before == 1000
    called_from(600, lambda: verdict(nested(30)))
    called_from(600, lambda: verdict(nested(400)))
    assert sys.getrecursionlimit() == before


def test_recursion_running_out_in_the_converter_is_not_wrapped(monkeypatch):
    # where the frames run out is up to the tree: say it is inside a rule's own method, the
    # place lark wraps every other exception in a VisitError
    from cardsmith.dsl.transformer import ToAst

    def too_deep(*args):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(ToAst, "zone_decl", too_deep)
    text = nested(3)
    tree, diags = parse(Source("deep.cards", text))
    assert tree is not None and not diags
    with pytest.raises(RecursionError):
        to_ast(tree, "deep.cards", text)
    # and through the loader: E0906, located, not the internal error E0900
    assert verdict(text) == "E0906"
