"""The fuzz campaign's short run (issue 8: a stranger's game file cannot hurt you).

hypothesis drives the mutators of tests/fuzz/ over the bundled and test games; every mutant
goes through check, load, play, scenarios, diagrams and the rulebook in-process, each under a
time budget and the whole under a memory cap, and must come out with located errors or a
clean run: never an internal error, a traceback, a hang or a runaway allocation. The long run
is bench/fuzz_campaign.py. Then the harness' own tests (it can fail), the mutators' tests,
and the reproducers of tests/fuzz/found/.
"""
from __future__ import annotations

import time
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from cardsmith.dsl.diagnostics import Diagnostic
from cardsmith.dsl.source import Span

import fuzz.harness as H
from fuzz.corpus import MUTANT_NAME, Mutant, Workspace, seed, seeds
from fuzz.found import FOUND, is_known_open
from fuzz.mutators import TEXT_OPS, DataChooser, RandomChooser, mutant_at, mutate

# Small enough for the suite: one play seed (and its replay), a short step bound.
# 20 s a target: the biggest suite seeds publish in ~5 s on a quiet 2-core machine (Space Race's
# scenarios file), and a mutant of one ran past 10 s while simulations shared the cores
BUDGET = H.Budget(seconds=20.0, memory_mb=1024, max_steps=2_000, play_seeds=(1,))
# The real files are checked for findings, not for speed: EVE's rulebook (a 45-place map, an
# example game of twenty rounds) takes ~5 s on a quiet 2-core machine, half the mutants' budget.
BASELINE = H.Budget(seconds=30.0, memory_mb=1024, max_steps=2_000, play_seeds=(1,))
# Deep Stack plays 1,000 responses, and EVE publishes for seconds (seconds per mutant): the bench
# fuzzes them (bench/fuzz_campaign.py), the suite does not.
SUITE_SEEDS = tuple(s for s in seeds() if "deep_stack" not in s.name and "eve_war_for_new_eden" not in s.name)
EXAMPLES = 90


@pytest.fixture(scope="module")
def ws(tmp_path_factory) -> Workspace:
    return Workspace(tmp_path_factory.mktemp("fuzz-ws"))


def explain(mutant: Mutant, outcome: H.Outcome) -> str:
    lines = [f"mutant of {mutant.seed} by {', '.join(mutant.ops)} "
             f"(extras: {', '.join(e.name for e in mutant.extra) or 'none'}):"]
    lines += [f"  {f.signature}: {f.detail}" for f in outcome.failures(is_known_open)]
    return "\n".join(lines)


# ---------------------------------------------------------------- the short campaign


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          # no shrinking: a mutant runs for up to seconds, shrinking one took minutes; the message
          # names the seed, the operations and the findings, and fuzz/minimize.py shrinks by lines
          phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_mutants_are_checked_played_and_published_without_a_crash(ws, data):
    ch = DataChooser(data)
    mutant = mutate(ch, SUITE_SEEDS[ch.integer(0, len(SUITE_SEEDS) - 1)])
    with H.memory_cap(BUDGET.memory_mb * 2):
        outcome = H.run_mutant(mutant, ws, BUDGET)
    event("accepted" if outcome.accepted else "rejected")     # --hypothesis-show-statistics
    assert outcome.failures(is_known_open) == [], explain(mutant, outcome)


@pytest.mark.parametrize("name", [s.name for s in seeds()])
def test_every_seed_passes_the_harness_unmutated(ws, name):
    """The baseline: no finding on the real files, and each is accepted (played and published)."""
    s = seed(name)
    outcome = H.run_mutant(Mutant(s.name, s.text.encode("utf-8")), ws, BASELINE)
    assert outcome.accepted
    assert outcome.findings == [], explain(Mutant(s.name, b""), outcome)
    assert set(outcome.seconds) == {"check", "load", "play", "scenarios", "diagram", "rulebook", "cli"}


# ---------------------------------------------------------------- the harness can fail


def _small(ws) -> Mutant:
    return Mutant("signal_fires", seed("signal_fires.cards").text.encode("utf-8"))


def test_a_target_running_past_its_budget_is_a_hang(ws, monkeypatch):
    def forever(path):
        while True:
            pass
    monkeypatch.setattr(H, "check_file", forever)
    start = time.perf_counter()
    outcome = H.run_mutant(_small(ws), ws, H.Budget(seconds=0.3))
    assert time.perf_counter() - start < 5
    assert [f.kind for f in outcome.findings] == ["hang"]
    assert outcome.findings[0].signature.startswith("hang:check:")


def test_an_exception_out_of_a_target_is_an_internal_error_naming_where(ws, monkeypatch):
    def broken(book, fmt, templates=None):
        raise ZeroDivisionError("planted")
    monkeypatch.setattr(H.R, "render", broken)
    outcome = H.run_mutant(_small(ws), ws, BUDGET)
    assert [f.signature for f in outcome.failures()] == [
        "internal:rulebook:ZeroDivisionError@dsl/publish/rulebook.py:write_rulebook"]


def test_an_internal_error_diagnostic_names_the_check_pass_that_failed(ws, monkeypatch):
    """E0900 carries only a message; the harness reruns the check to find the failing function."""
    from cardsmith.dsl import loader

    def bodies(decls, sink):
        raise KeyError("planted")
    monkeypatch.setattr(loader, "bodies", bodies)
    outcome = H.run_mutant(_small(ws), ws, BUDGET)
    sigs = {f.signature for f in outcome.failures()}
    # the innermost cardsmith function on the traceback (the planted one is not cardsmith's)
    assert "internal:check:E0900:KeyError@dsl/loader.py:check_source" in sigs


def test_two_plays_that_differ_are_nondeterministic(ws, monkeypatch):
    calls = iter(range(10**6))
    real = H.run_game

    def drifting(*args, **kwargs):          # each game's log ends with a different event
        eng = real(*args, **kwargs)
        eng.log.append({"event": "drift", "n": next(calls)})
        return eng
    monkeypatch.setattr(H, "run_game", drifting)
    outcome = H.run_mutant(_small(ws), ws, BUDGET)
    assert [f.signature for f in outcome.failures()] == ["nondeterministic:play:log"]


def test_terminal_escapes_in_what_is_printed_are_unsafe_output(ws, monkeypatch):
    monkeypatch.setattr(H, "render_all", lambda diags, sources, color=False: "\x1b]0;owned\x07")
    outcome = H.run_mutant(_small(ws), ws, BUDGET)
    assert [f.signature for f in outcome.failures()] == ["unsafe-output:check:?:control"]


def test_a_diagnostic_showing_another_line_than_the_parser_counted_is_unlocated(ws, tmp_path):
    class Shifted:       # a source whose line() splits on more than "\n", as str.splitlines does
        path = str(ws.path)
        text = "enum A:\u2028 x\nenum B: y\n"

        def line(self, n):
            return self.text.splitlines()[n - 1]
    d = Diagnostic("E0102", "declared twice", Span(str(ws.path), 2, 1, 2, 5))
    run = H.Run(BUDGET, H.Outcome())
    H.check_diagnostics(run, "check", [d], {str(ws.path): Shifted()}, ws)
    assert [f.signature for f in run.outcome.findings] == ["unlocated:check:E0102:wrong-line-shown"]
    run = H.Run(BUDGET, H.Outcome())
    H.check_diagnostics(run, "check", [Diagnostic("E0102", "x", Span("/elsewhere.cards", 1, 1, 1, 2))], {}, ws)
    assert [f.signature for f in run.outcome.findings] == ["unlocated:check:E0102:outside"]


def test_a_runaway_allocation_under_the_cap_is_a_memory_finding(ws, monkeypatch):
    def greedy(path):
        return [bytearray(2**20) for _ in range(4096)]      # 4 GB, past a 256 MB cap
    monkeypatch.setattr(H, "check_file", greedy)
    with H.memory_cap(256):
        outcome = H.run_mutant(_small(ws), ws, BUDGET)
    assert [f.kind for f in outcome.findings] == ["memory"]


def test_the_minimizer_keeps_only_the_lines_that_show_the_defect(ws, monkeypatch):
    from fuzz.minimize import minimize
    real = H.check_file

    def planted(path):                      # a "defect" that needs one line of the file
        if b"# PLANTED" in open(path, "rb").read():
            raise LookupError("planted")
        return real(path)
    monkeypatch.setattr(H, "check_file", planted)
    lines = seed("signal_fires.cards").text.splitlines(keepends=True)
    big = Mutant("signal_fires", "".join(lines[:20] + ["# PLANTED\n"] + lines[20:]).encode())
    budget = H.Budget(cli=False)
    sig = "internal:check:LookupError@test_fuzz.py:test_the_minimizer_keeps_only_the_lines_that_show_the_defect.<locals>.planted"
    assert sig in {f.signature for f in H.run_mutant(big, ws, budget).findings}
    small = minimize(big, sig, ws, budget, seconds=60)
    assert small.data == b"# PLANTED\n"


# ---------------------------------------------------------------- the mutators


def test_a_campaign_mutant_is_the_same_every_time():
    assert [mutant_at(7, i) for i in range(30)] == [mutant_at(7, i) for i in range(30)]
    assert mutant_at(7, 1) != mutant_at(7, 2)


def test_every_mutation_changes_its_input_for_some_choice():
    import random
    text = seed("space_war_in_space.cards").text
    for op in TEXT_OPS:
        changed = any(op(RandomChooser(random.Random(k)), text)[0] != text for k in range(20))
        assert changed, op.__name__


def test_the_campaign_uses_every_operation_and_every_seed():
    mutants = [mutant_at(1, i) for i in range(600)]
    used = {op for m in mutants for op in m.ops}
    assert {op.__name__ for op in TEXT_OPS} <= used
    assert {"byte_flip", "bom", "utf16"} & used
    assert {m.seed for m in mutants} == {s.name for s in seeds()}
    assert any(e.kind == "fifo" for m in mutants for e in m.extra)
    assert any(MUTANT_NAME.encode() in m.data for m in mutants)     # a file that includes itself


def test_workspace_extras_stay_inside_and_are_cleared(ws):
    from fuzz.corpus import Extra
    m = Mutant("x", b"", extra=(Extra("../escape.cards", b"no"), Extra("sub/in.cards", b"yes")))
    ws.write(m)
    assert not (ws.root.parent / "escape.cards").exists()
    assert (ws.root / "sub" / "in.cards").read_bytes() == b"yes"
    ws.clear()
    assert not (ws.root / "sub").exists() and {p.name for p in ws.root.iterdir()} == ws.base


# ---------------------------------------------------------------- defects found, as regressions


def test_an_enum_of_30000_members_checks_in_linear_time(ws):
    """Found by the campaign (an import of a 1.7 MB enum): duplicate members were found with
    members.count(m), quadratic, so the check of one big enum ran for minutes (30,000: ~20 s,
    past the budget; linear: about a second)."""
    members = ", ".join(f"v{k}" for k in range(30_000))
    text = f'game "Big":\n    players: 2 to 2\n\nenum Big: {members}\n'
    outcome = H.run_mutant(Mutant("enum", text.encode()), ws, H.Budget(seconds=10.0, cli=False))
    assert not [f for f in outcome.findings if f.target in ("check", "load")], outcome.findings


@pytest.mark.parametrize("found", [
    pytest.param(f, id=f.file, marks=[pytest.mark.xfail(strict=True, reason=f.reason)] if f.open else [])
    for f in FOUND])
def test_found_reproducers_run_clean(ws, found):
    outcome = H.run_mutant(found.mutant(), ws, replace(BUDGET, seconds=found.seconds))
    assert not [f for f in outcome.findings if found.matches(f.signature)]
    assert outcome.failures() == [], "\n".join(f"{f.signature}: {f.detail}" for f in outcome.failures())


def test_an_internal_error_in_a_command_is_found_through_the_cli(ws, monkeypatch):
    """cli.main turns an exception into exit 3 and 'internal error: ...': a finding too."""
    from cardsmith.dsl import loader

    def broken(path, root=None):
        raise ValueError("planted")
    monkeypatch.setattr(loader, "check_file", broken)
    # without the cache folder: a file an earlier test checked clean is remembered (checked-*),
    # and `cardsmith check` would say ok without calling check_file
    monkeypatch.setenv("CARDSMITH_CACHE_DIR", "off")
    outcome = H.run_mutant(_small(ws), ws, BUDGET)
    assert "internal:cli:check:exit-3:ValueError" in {f.signature for f in outcome.failures()}
