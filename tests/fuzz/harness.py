"""Run one mutant through everything a stranger's file reaches, in-process, and judge the run.

Targets, in order (each under its own time budget):

    check      check_file + render_all (the diagnostics as data, and as drawn)
    load       load_game, which must agree with check
    play       run_game with random bots, a few seeds (fewest, then most players), a small step
               bound; seed 1 twice (the same file, seed and choices must give the same log)
    scenarios  run_scenarios (`cardsmith test`), with the same step bound
    diagram    draw both diagrams (DOT, and SVG through Graphviz unless the budget says not)
    rulebook   write_rulebook as Markdown and as HTML (diagrams drawn by Graphviz)
    cli        `cardsmith check`, then `play --max-steps` and `test --max-steps`, in-process through
               cli.main with stdout and stderr captured: what a person's terminal receives

What counts as a finding (kind: what went wrong):

    internal          E0900 / E0000, or a Python exception out of a library call (a traceback)
    hang              a target ran past its time budget (the alarm interrupts it)
    memory            MemoryError, or the process' peak memory grew past the budget
    unlocated         a diagnostic not pointing at a line of a file in the game's folder, or whose
                      shown line is not the line the parser counted
    disagree          check_file and load_game disagree on whether the file has errors
    nondeterministic  two plays with the same file, seed and bots differ
    unsafe-output     terminal controls / bidi overrides in what the CLI prints, or a card's
                      markup reaching the HTML rulebook unescaped
    masked            (soft: counted, not a failure) E0804, a Python error inside a rule that the
                      machine turned into a located GameAborted: a gap in the checker

Each finding has a signature, stable across mutants that hit the same defect: the kind, the
target, the error's type and the innermost cardsmith function it came from.
"""
from __future__ import annotations

import io
import json
import re
import resource
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path

from cardsmith.dsl.diagnostics import CardsmithError, DiagnosticSink
from cardsmith.dsl.loader import check_file, check_source, load_game
from cardsmith.dsl.publish import diagrams as D
from cardsmith.dsl.publish import rulebook as R
from cardsmith.dsl.render import render_all
from cardsmith.dsl.source import Source
from cardsmith.interpreter import cli
from cardsmith.interpreter.cli import describe_result
from cardsmith.interpreter.errors import GameAborted
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.scenario import run_scenarios

from .corpus import REPO, Mutant, Workspace

INTERNAL_CODES = ("E0900", "E0000")
MASKED_CODES = ("E0804",)
SOFT_KINDS = frozenset({"masked"})
CODE = re.compile(r"[EW]\d{4}")
# what a terminal must not be sent: C0 controls but tab and newline, DEL, C1, bidi overrides
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
SCRIPT = "<script>alert(1)</script>"       # a mutated name (tests/fuzz/mutators.py TEXTS)
OWN_CODE = tuple(str(REPO / d) + "/" for d in ("dsl", "interpreter"))


@dataclass(frozen=True, slots=True)
class Budget:
    seconds: float = 10.0             # per target; past it the target is interrupted: a hang
    memory_mb: int = 1024             # growth of the process' peak memory over one mutant
    max_steps: int = 20_000           # the step bound of each play
    play_seeds: tuple[int, ...] = (1, 2)
    svg: bool = True                  # the diagrams as SVG through Graphviz (else DOT only);
                                      # the rulebook always draws them
    cli: bool = True                  # also run the commands through cli.main


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str
    target: str
    signature: str
    detail: str


@dataclass
class Outcome:
    accepted: bool = False                   # the mutant checked without errors
    findings: list[Finding] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    rss_growth_kb: int = 0

    def failures(self, known: Callable[[str], bool] = lambda signature: False) -> list[Finding]:
        """The findings that are defects (not soft) and not already known-open."""
        return [f for f in self.findings if f.kind not in SOFT_KINDS and not known(f.signature)]


# ---------------------------------------------------------------- time and memory


class Hang(BaseException):
    """Raised by the alarm in the target that ran too long (a BaseException, so the library's
    own `except Exception` safety nets cannot swallow it)."""


def peak_rss_kb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _vm_bytes() -> int:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[0]) * resource.getpagesize()
    except OSError:
        return 0


@contextmanager
def memory_cap(extra_mb: int) -> Iterator[None]:
    """Cap the address space at what the process uses now plus `extra_mb`, so a runaway
    allocation is a MemoryError (a finding) instead of the machine swapping or the OOM killer."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    now = _vm_bytes()
    cap = now + extra_mb * 2**20 if now else resource.RLIM_INFINITY
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def where(tb) -> str:
    """The innermost cardsmith function of a traceback (`dsl/loader.py:check_source`), or the
    innermost function at all when cardsmith is not on it."""
    last_own = last_any = None
    while tb is not None:
        code = tb.tb_frame.f_code
        last_any = code
        if code.co_filename.startswith(OWN_CODE):
            last_own = code
        tb = tb.tb_next
    code = last_own or last_any
    if code is None:
        return "?"
    name = code.co_filename
    for root in OWN_CODE:
        if name.startswith(root):
            name = name[len(str(REPO)) + 1:]
            break
    else:
        name = Path(name).name
    return f"{name}:{code.co_qualname}"


class Run:
    """One mutant's run: the findings so far and the time each target took."""

    def __init__(self, budget: Budget, outcome: Outcome):
        self.budget, self.outcome = budget, outcome
        self._armed = False

    def add(self, kind: str, target: str, sig: str, detail: str) -> None:
        self.outcome.findings.append(Finding(kind, target, f"{kind}:{target}:{sig}", detail[:500]))

    def _alarm(self, signum, frame) -> None:
        if self._armed:
            self._armed = False
            raise Hang()

    @contextmanager
    def target(self, name: str) -> Iterator[None]:
        """Run a block as target `name`: time it, interrupt it at the budget, and turn anything
        it raises into a finding (the next target still runs)."""
        old = signal.signal(signal.SIGALRM, self._alarm)
        self._armed = True
        signal.setitimer(signal.ITIMER_REAL, self.budget.seconds)
        start = time.perf_counter()
        try:
            yield
        except Hang as err:
            self.add("hang", name, where(err.__traceback__),
                     f"interrupted after {self.budget.seconds:g} s")
        except MemoryError as err:
            self.add("memory", name, where(err.__traceback__), "MemoryError")
        except RecursionError as err:
            self.add("internal", name, f"RecursionError@{where(err.__traceback__)}", "RecursionError")
        except Exception as err:      # noqa: BLE001 - every escape is what we are looking for
            self.add("internal", name, f"{type(err).__name__}@{where(err.__traceback__)}",
                     f"{type(err).__name__}: {err}")
        finally:
            self._armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
            took = time.perf_counter() - start
            self.outcome.seconds[name] = self.outcome.seconds.get(name, 0.0) + took
        if took > self.budget.seconds and not any(f.kind == "hang" and f.target == name
                                                   for f in self.outcome.findings):
            self.add("hang", name, "slow", f"took {took:.1f} s, over {self.budget.seconds:g} s")


# ---------------------------------------------------------------- checks of what came out


class _Capture(DiagnosticSink):
    """A sink that keeps the exception being handled when an internal error is reported, so
    the finding can name the function that failed (the loader keeps only its message)."""

    def __init__(self) -> None:
        super().__init__()
        self.tracebacks: list = []

    def error(self, code, message, span, hint=None, notes=()):
        if code in INTERNAL_CODES:
            self.tracebacks.append(sys.exc_info()[1])
        super().error(code, message, span, hint, notes)


def _internal_where(path: str) -> str:
    """Check the mutant again with a capturing sink, to learn where the internal error was."""
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return "?"
    sink = _Capture()
    try:
        check_source(Source(path, text), sink)
    except BaseException as err:            # noqa: BLE001 - the rerun itself escaped
        return f"{type(err).__name__}@{where(err.__traceback__)}"
    for exc in sink.tracebacks:
        if exc is not None:
            return f"{type(exc).__name__}@{where(exc.__traceback__)}"
    return "?"


def _unsafe(text: str) -> str | None:
    m = UNSAFE.search(text)
    return None if m is None else f"U+{ord(m.group()):04X}"


def _in_folder(path: str, ws: Workspace) -> bool:
    try:
        p = Path(path).resolve()
    except (OSError, ValueError, RuntimeError):
        return False
    return p == ws.path or ws.root in p.parents


def check_diagnostics(run: Run, target: str, diags, sources: dict, ws: Workspace) -> None:
    """Every diagnostic is data a designer can act on: a code, a message, a line of a file in
    the game's folder, and that line is the one shown."""
    for d in diags:
        sp = d.span
        label = f"{d.code} at {sp}: {d.message}"
        if d.code in INTERNAL_CODES:
            run.add("internal", target, f"{d.code}:{_internal_where(str(ws.path))}", label)
            continue
        if not CODE.fullmatch(d.code or "") or not (d.message or "").strip() \
                or d.severity not in ("error", "warning"):
            run.add("unlocated", target, f"{d.code}:malformed", label)
            continue
        if sp is None or not _in_folder(sp.path, ws) or sp.line < 1 or sp.column < 1:
            run.add("unlocated", target, f"{d.code}:outside", label)
            continue
        src = sources.get(sp.path)
        if src is None:
            continue
        lines = src.text.split("\n")           # the lexer counts "\n" only
        if sp.line > len(lines):
            run.add("unlocated", target, f"{d.code}:past-end", f"{label} (the file has {len(lines)} lines)")
            continue
        counted = lines[sp.line - 1].rstrip("\r")
        shown = src.line(sp.line)
        if shown.rstrip("\r") != counted:
            run.add("unlocated", target, f"{d.code}:wrong-line-shown",
                    f"{label}: shows {shown[:60]!r}, the parser means {counted[:60]!r}")


def check_aborted(run: Run, target: str, err: CardsmithError, ws: Workspace) -> None:
    """A game that stopped: the reason is located; E0804 is counted as masked."""
    if not err.diagnostics:
        run.add("unlocated", target, f"{type(err).__name__}:no-diagnostic", str(err))
        return
    d = err.diagnostics[0]
    if d.code in MASKED_CODES:
        inner = err.__context__
        sig = f"{type(inner).__name__}@{where(inner.__traceback__)}" if inner is not None else d.message
        run.add("masked", target, f"{d.code}:{sig}", f"{d.span}: {d.message}")
        if d.span is None or d.span.line < 1:
            run.add("unlocated", target, f"{d.code}:no-span", f"{d.span}: {d.message}")
        return
    check_diagnostics(run, target, err.diagnostics, err.sources or {}, ws)


# ---------------------------------------------------------------- the targets


def run_mutant(mutant: Mutant, ws: Workspace, budget: Budget = Budget()) -> Outcome:
    """Write the mutant into the workspace and run it through every target."""
    outcome = Outcome()
    run = Run(budget, outcome)
    before = peak_rss_kb()
    path = ws.write(mutant)
    try:
        _run_targets(run, path, ws, budget)
    finally:
        ws.clear()
    outcome.rss_growth_kb = peak_rss_kb() - before
    if outcome.rss_growth_kb > budget.memory_mb * 1024:
        run.add("memory", "all", "rss", f"peak memory grew by {outcome.rss_growth_kb // 1024} MB")
    return outcome


def _run_targets(run: Run, path: str, ws: Workspace, budget: Budget) -> None:
    errors = None
    if budget.cli:
        _cli(run, path, None, budget)
    with run.target("check"):
        diags, sources = check_file(path)
        check_diagnostics(run, "check", diags, sources, ws)
        shown = render_all(diags, sources, color=False)
        for d in diags:
            if d.span is not None and d.span.line >= 1 and f"{d.span.path}:{d.span.line}:{d.span.column}" not in shown:
                run.add("unlocated", "check", f"{d.code}:not-rendered", f"{d.span}: {d.message}")
        bad = _unsafe(shown)
        if bad:
            code = next((d.code for d in diags if _unsafe(render_all([d], sources))), "?")
            run.add("unsafe-output", "check", f"{code}:{'bidi' if bad >= 'U+2000' else 'control'}",
                    f"{bad} in the rendered diagnostics")
        errors = any(d.severity == "error" for d in diags)
    if errors is None:
        return
    game = None
    with run.target("load"):
        try:
            game = load_game(path)
        except CardsmithError as err:
            if not errors:
                run.add("disagree", "load", "load-fails", str(err))
            check_diagnostics(run, "load", err.diagnostics, err.sources or {}, ws)
        else:
            if errors:
                run.add("disagree", "load", "load-succeeds", "check found errors, load_game returned a Game")
    if game is None:
        return
    run.outcome.accepted = True

    _play(run, game, ws, budget)
    with run.target("scenarios"):
        for result in run_scenarios(game, seed=0, max_steps=budget.max_steps):
            for failure in result.failures:      # data: the CLI's `test` makes it terminal-safe
                if not re.match(r"\S+:\d+:\d+: ", failure):
                    run.add("unlocated", "scenarios", "failure", failure)
    with run.target("diagram"):
        for kind in D.KINDS:                        # what `cardsmith diagram` does
            try:
                D.draw(game, kind, svg=budget.svg)
            except CardsmithError as err:           # E10xx: too deep, too big, Graphviz failed
                check_aborted(run, "diagram", err, ws)
    with run.target("rulebook"):
        book = ws.root / "book"                     # inside the workspace: cleared with the mutant
        for fmt in ("md", "html"):                  # what `cardsmith rulebook --format md|html` does
            try:
                files, _ = R.write_rulebook(game, book, fmt)
            except CardsmithError as err:
                check_aborted(run, "rulebook", err, ws)
                break
            if fmt == "html" and SCRIPT in files[0].read_text(encoding="utf-8"):
                run.add("unsafe-output", "rulebook", "html-markup", "a card's <script> reached the HTML")
    if budget.cli:
        _cli(run, path, game, budget)


def _play(run: Run, game, ws: Workspace, budget: Budget) -> None:
    """A game per seed (the fewest players first, then the most the game allows), then the first
    one again: the same file, seed and bots must give the same log. Each game has the whole time
    budget."""
    lo, hi = game.min_players, game.max_players
    first = None
    for i, seed in enumerate(budget.play_seeds):
        players = lo if i == 0 else hi
        result = None
        with run.target("play"):
            result = _one_play(run, game, players, seed, ws, budget)
        if first is None:
            first = (players, seed, result)
    if first is not None and first[2] is not None:
        players, seed, result = first
        again = None
        with run.target("play"):
            again = _one_play(run, game, players, seed, ws, budget, judge=False)
        if again is not None and again != result:
            run.add("nondeterministic", "play", "log", f"seed {seed}, {players} players: two runs differ")


def _one_play(run: Run, game, players: int, seed: int, ws: Workspace, budget: Budget,
              judge: bool = True) -> str:
    """One game; its log (or how it stopped) as text, to compare runs."""
    try:
        eng = run_game(game, players, seed, max_steps=budget.max_steps)
    except GameAborted as err:
        if judge:
            check_aborted(run, "play", err, ws)
        d = err.diagnostics[0] if err.diagnostics else None
        return f"aborted {d.code if d else ''} {d.span if d else ''} {d.message if d else err}"
    except CardsmithError as err:
        if judge:
            check_aborted(run, "play", err, ws)
        return f"error {err}"
    return json.dumps(eng.log, sort_keys=True, ensure_ascii=False) + "\n" + describe_result(eng)


def _cli(run: Run, path: str, game, budget: Budget) -> None:
    """The commands a person types, through cli.main: `check` for every mutant; `play` and
    `test` for a game that loads. Exit 3 (an internal error) or a traceback is a finding, and
    so is any terminal control in what they print."""
    if game is None:
        commands = [["check", path]]
    else:
        steps = str(budget.max_steps)
        commands = [["play", path, "--seed", "1", "--players", str(game.min_players), "--max-steps", steps],
                    ["test", path, "--max-steps", steps]]
    for argv in commands:
        out, err = io.StringIO(), io.StringIO()
        code = None
        with run.target("cli"):
            with redirect_stdout(out), redirect_stderr(err):
                code = cli.main(argv)
        if code is None:
            continue                      # the target reported what stopped it
        printed = out.getvalue() + err.getvalue()
        command = argv[0]
        if code == cli.EXIT_INTERNAL and _first_line(err.getvalue()) == "MemoryError":
            run.add("memory", "cli", f"{command}:MemoryError", printed[-400:])
        elif code == cli.EXIT_INTERNAL or "Traceback (most recent call last)" in printed:
            run.add("internal", "cli", f"{command}:exit-{code}:{_first_line(err.getvalue())}", printed[-400:])
        elif code not in (cli.EXIT_OK, cli.EXIT_ERRORS, cli.EXIT_ABORTED):
            run.add("internal", "cli", f"{command}:exit-{code}", printed[-400:])
        bad = _unsafe(printed)
        if bad:
            at = UNSAFE.search(printed).start()
            line = printed[printed.rfind("\n", 0, at) + 1: printed.find("\n", at)]
            run.add("unsafe-output", "cli", f"{command}:{'bidi' if bad >= 'U+2000' else 'control'}",
                    f"{bad} in {line[:100]!r}")


def _first_line(text: str) -> str:
    """The stable part of an internal error's message: its exception type."""
    m = re.search(r"internal error: (\w+)", text)
    return m.group(1) if m else "?"
