"""`cardsmith explain`: every compiled instruction has its words, every rule of every bundled game
lists beside its source lines, and an unknown rule is a clear error."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from cardsmith.dsl.loader import check_source, load_game
from cardsmith.dsl.source import Source
from cardsmith.interpreter import explain as X
from cardsmith.interpreter.cli import main
from cardsmith.interpreter.program import program_for

ROOT = Path(__file__).resolve().parents[1]
GAMES = sorted(p for p in (ROOT / "games").glob("*.cards") if not p.name.endswith(".scenarios.cards"))
GAMES += sorted((ROOT / "tests" / "games").glob("*.cards"))
SIGNAL_FIRES = ROOT / "tests" / "games" / "signal_fires.cards"
GOLDEN = ROOT / "tests" / "golden" / "signal_fires.explain.txt"
GOLDEN_RULES = ('"Red Spark".1', "Flare")
# what a listing must never show: an op without its words, a closure, an expression class unwritten
UNDESCRIBED = re.compile(r"\(undescribed\)|<function|lambda|<[A-Z][A-Za-z]*>")


def _ids(paths):
    return [p.name for p in paths]


@pytest.mark.parametrize("path", GAMES, ids=_ids(GAMES))
def test_every_instruction_of_every_code_has_its_words(path):
    prog = program_for(load_game(str(path)))
    for code in prog.codes:
        assert len(code.descs) == len(code.ops), code.name
        missing = [pc for pc, desc in enumerate(code.descs) if not desc]
        assert not missing, f"{code.name}: ops {missing} were emitted without a description"
        for pc in range(len(code.ops)):
            text = X.describe(code, pc, {t: f"L{i}" for i, t in enumerate(X.jump_targets(code), 1)})
            assert not UNDESCRIBED.search(text), f"{code.name} pc {pc}: {text}"


@pytest.mark.parametrize("path", GAMES, ids=_ids(GAMES))
def test_every_rule_lists_with_its_source_lines(path):
    game = load_game(str(path))
    src = X.Sources(game)
    table = X.rules(game)
    assert table, "a game with no rule to explain"
    for name, parts in table.items():
        for part in parts:
            lines = X.listing(game, part)
            text = "\n".join(lines)
            assert not UNDESCRIBED.search(text), f"{name}:\n{text}"
            if part.span is None:
                continue
            last = part.span.end_line       # a rule's span ends on its last written line
            for n in range(part.span.line, last + 1):
                shown = f"{n:>{len(str(last))}} │ {src.line(part.span.path, n)}"
                assert shown in lines, f"{name}: source line {n} is not shown\n{text}"
            if part.code is not None:
                listed = {int(m.group(1)) for m in re.finditer(r"^\s+(?:L\d+)?\s+(\d+)  ", text, re.M)}
                inside = {pc for pc, at in enumerate(part.code.spans) if X._inside(at, part.span, last)}
                assert inside <= listed, f"{name}: instructions {sorted(inside - listed)} not listed"


@pytest.mark.parametrize("path", GAMES, ids=_ids(GAMES))
def test_cli_explains_a_rule_of_each_bundled_game(path, capsys):
    game = load_game(str(path))
    d = game.decls
    rule = "setup" if d.setup is not None else d.rounds[0].name
    assert main(["explain", str(path), rule]) == 0
    out = capsys.readouterr().out
    assert out.startswith("== ") and " │ " in out and "  " in out
    assert not UNDESCRIBED.search(out)


def test_jumps_are_labelled_and_every_label_is_a_target():
    game = load_game(str(SIGNAL_FIRES))
    text = X.explain(game, "Signals")
    used = set(re.findall(r"→ (L\d+)|jump  (L\d+)", text))
    used = {a or b for a, b in used}
    defined = set(re.findall(r"^\s+(L\d+)\s+\d+  ", text, re.M))
    assert used and used == defined, (used, defined)


def test_golden_listing_of_signal_fires():
    game = load_game(str(SIGNAL_FIRES))
    text = "".join(X.explain(game, rule) + "\n" for rule in GOLDEN_RULES)
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.write_text(text, encoding="utf-8")
    assert GOLDEN.exists(), f"no golden file: run UPDATE_GOLDEN=1 pytest {Path(__file__).name}"
    assert text == GOLDEN.read_text(encoding="utf-8")


def test_an_operand_is_written_as_the_designer_wrote_it():
    from cardsmith.dsl import ast as A
    sum_ = A.Arith(span=None, op="+", left=A.Num(span=None, value=2), right=A.Name(span=None, name="x"))
    cond = A.Compare(span=None, op="<", left=sum_, right=A.Neg(span=None, operand=A.Num(span=None, value=1)))
    assert X.written(cond) == "(2 + x) < -1"
    assert X.written(A.Call(span=None, name="count", args=(A.PlayersExpr(span=None),))) == "count(players)"


def test_rule_names_cover_procedures_steps_setup_and_card_abilities():
    game = load_game(str(SIGNAL_FIRES))
    names = set(X.rules(game))
    assert {"setup", "Signals", "Choose", "Flare", '"Red Spark"', '"Red Spark".1'} <= names
    # a card's ability typed without the quotes the shell eats
    assert X.find(game, "Red Spark.1") == X.find(game, '"Red Spark".1')
    assert X.find(game, "Red Spark") == X.find(game, '"Red Spark"')


def test_unknown_rule_says_what_was_meant_and_how_to_list(capsys):
    assert main(["explain", str(SIGNAL_FIRES), "Flair"]) == 1
    err = capsys.readouterr().err
    assert "no rule 'Flair'" in err and "did you mean 'Flare'?" in err
    assert "--list" in err and "Traceback" not in err


@pytest.mark.parametrize("argv, code", [
    (["explain", str(SIGNAL_FIRES), "--list"], 0),
    (["explain", str(SIGNAL_FIRES), "setup"], 0),
    (["explain", str(SIGNAL_FIRES)], 1),                      # neither RULE nor --list
    (["explain", str(SIGNAL_FIRES), "setup", "--list"], 1),   # both
    (["explain", str(SIGNAL_FIRES), "nothing like it"], 1),
    (["explain", str(ROOT / "tests" / "games" / "no_such.cards"), "setup"], 1),
])
def test_exit_codes(argv, code, capsys):
    assert main(argv) == code
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err


def test_list_names_every_rule(capsys):
    assert main(["explain", str(SIGNAL_FIRES), "--list"]) == 0
    out = capsys.readouterr().out
    for name in ("setup", "Signals", "Choose", "Flare", '"Blue Blaze".1'):
        assert re.search(rf"^{re.escape(name)}(\s|$)", out, re.M), name


def test_game_text_goes_through_the_terminal_sanitiser():
    text = SIGNAL_FIRES.read_text(encoding="utf-8").replace(
        "setup:\n", 'setup:\n    say "\x1b[2Jgone\u202e"\n', 1)
    game, diags, _ = check_source(Source("hostile.cards", text))
    assert game is not None, diags
    out = X.explain(game, "setup")
    assert "gone" in out and "\x1b" not in out and "\u202e" not in out


def test_every_emit_of_an_instruction_passes_its_words():
    """A static check over the compilers: an op emitted without a description fails here, even
    when no bundled game uses the construct that emits it."""
    import ast
    sources = [ROOT / "interpreter" / name for name in ("compile_stmt.py", "program.py", "resolver.py")]
    calls = 0
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "emit"):
                continue
            target = node.func.value
            if isinstance(target, ast.Attribute) and target.attr == "log" or \
                    isinstance(target, ast.Name) and target.id == "log":
                continue                                    # the event log's emit, not an instruction
            calls += 1
            # op, span, words, and (for most) the op as source for the fused blocks
            assert len(node.args) + len(node.keywords) in (3, 4), \
                f"{path.name}:{node.lineno}: an instruction emitted without its description"
    assert calls > 40


def test_python_listing_shows_the_generated_blocks_that_run():
    """`explain --python`: the fused blocks of a rule, as the machine compiles and runs them."""
    game = load_game(str(ROOT / "games" / "space_war_in_space.cards"))
    text = X.explain(game, "refill", python=True)
    assert text.startswith("== procedure refill(p)") and "(generated Python)" in text
    blocks = [b for b in text.split("# instructions ")[1:]]
    assert blocks and all("def _b" in b for b in blocks)
    assert "m.move(" in text and "m.shuffle(" in text
    for b in blocks:                     # each is the compiled function's own source
        compile(b.split("\n", 1)[1], "<listing>", "exec")
    # the same functions the machine uses: played after listing, the game is unchanged
    from cardsmith.interpreter.play import run_game
    assert run_game(game, 2, 3, log=False).result == run_game(load_game(str(ROOT / "games" / "space_war_in_space.cards")),
                                                              2, 3, log=False).result
