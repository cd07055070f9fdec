"""Small shortcuts of the run, each against what it stands for:

* A trigger's re-check of its condition as it resolves (Program._trigger_code) is written as a
  bare test (`ExprGen.test`: the `and` of its items, without the chain's `True if ... else
  False`: only its truth is asked); what it does, fizzling included, is the closure's, which
  tests/test_codegen.py compares the fused blocks against.
* `Machine.run` and `Machine.call_in` read a frame's code, its blocks, their sizes and its length from one table entry
  (`Machine.tabs`, kept by the program for its games, made longer as codes first run); each
  entry is what the code holds.
* `blocks._located` strips and looks at only the lines holding a marker's "#@"; the others,
  a string literal's "#@" included, are kept as they are; so `blocks._framed_lines` for a
  `#!stop <n>`.
"""
from __future__ import annotations

from pathlib import Path

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.play import run_game

ROOT = Path(__file__).resolve().parent.parent
BATTLEFIELD = ROOT / "games" / "battlefield_space.cards"


def _recheck_line(prog, name_part: str) -> str:
    for code in prog.codes:
        if name_part in code.name and code.srcs and code.srcs[0] is not None:
            first = code.srcs[0].lines[0]
            if isinstance(first, str) and first.startswith("if not ("):
                return first
    raise AssertionError(f"no trigger re-check in a code named like {name_part!r}")


def test_trigger_recheck_is_a_bare_test():
    game = load_game(str(BATTLEFIELD))
    e = run_game(game, 2, 1, log=False)
    line = _recheck_line(e.m.prog, "when revealed")
    assert "True if" not in line and " and " in line, line


def test_run_reads_codes_from_their_table():
    game = load_game(str(BATTLEFIELD))
    e = run_game(game, 2, 1, log=False)
    m = e.m
    tabs = m.tabs
    assert tabs, "the run loop read no code through its table"
    assert tabs is m.prog.__dict__["_run_tabs"]
    for code_id, (code, fast, sizes, n) in enumerate(tabs):
        assert code is m.codes[code_id]
        assert fast is code.fast and sizes is code.sizes and n == len(code.ops)
    # a second game of the same program shares the table
    e2 = run_game(game, 2, 2, log=False)
    assert e2.m.prog is not m.prog or e2.m.tabs is tabs


def test_tab_made_longer_for_a_new_code():
    game = load_game(str(BATTLEFIELD))
    e = run_game(game, 2, 1, log=False)
    m = e.m
    last = len(m.codes) - 1
    del m.tabs[1:]
    code, fast, sizes, n = m._tab(last)
    assert code is m.codes[last] and fast is code.fast and sizes is code.sizes and n == len(code.ops)
    assert len(m.tabs) == last + 1
    assert all(t[0] is m.codes[i] for i, t in enumerate(m.tabs))


def test_call_in_reads_the_table():
    """`Machine.call_in` reads the called code from `Machine.tabs` as `run` does: an entry that
    says the code has no instructions runs none of them."""
    game = load_game(str(BATTLEFIELD))
    e = run_game(game, 2, 1, log=False)
    m = e.m
    cid = next(c.id for c in m.codes if c.name.startswith("procedure") and len(c.ops) > 1)
    m._tab(cid)
    was = m.tabs[cid]
    code = m.codes[cid]
    frames = len(m.st.frames)
    m.tabs[cid] = (code, code.fast, code.sizes, 0)
    try:
        m.left = 10 ** 6
        assert m.call_in(cid, {}) == 0
    finally:
        m.tabs[cid] = was
    assert len(m.st.frames) == frames


class _Unstripped(str):
    """A generated line that fails if `_located` strips it to look for a marker."""
    def lstrip(self, *args):
        raise AssertionError(f"stripped a line without a marker: {self!r}")


def test_located_strips_only_marker_lines():
    from cardsmith.interpreter.blocks import _located
    lines = [_Unstripped("def f(m, fr):"), "    #@3,4", _Unstripped("    x = 1"), "    #@>",
             "    #@5,6", "    y = '#@7,8'", "    #@<", _Unstripped("    z = \x011\x02")]
    table = {}
    src = _located(lines, table, (0, 0))
    assert src == "def f(m, fr):\n    x = 1\n    y = '#@7,8'\n    z = 1\n"
    assert table == {1: (0, 0), 2: (3, 4), 3: (5, 6), 4: (3, 4)}


def test_framed_lines_strip_only_stop_lines():
    from types import SimpleNamespace

    from cardsmith.interpreter.blocks import _framed_lines
    prog = SimpleNamespace(pool=SimpleNamespace(ref=lambda obj, kind: "_kF"))
    body = [_Unstripped("_w = m.move(x)"), "if _w and m.brk:", "    #!stop 2", "y = '#!stop 9'",
            _Unstripped("z = 1")]
    out = _framed_lines(prog, 7, (body, 3), 1, "  ", lambda pad: [f"{pad}return -1"])
    assert out == ["  _env1 = _i", "  _fr1 = _kF(7, 0, _env1)", "  m.st.frames.append(_fr1)", "  _s += 3", "#@>",
                   "  _w = m.move(x)", "  if _w and m.brk:", "      _s -= 1", "      return -1",
                   "  y = '#!stop 9'", "  z = 1", "#@<", "  m.st.frames.pop()"]
