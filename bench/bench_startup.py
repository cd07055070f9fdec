"""Benchmark: how long `cardsmith check` and `cardsmith play` take to start (issue 9).

Each command is run as a user runs it, in a fresh process (`python -m cardsmith.interpreter.cli`,
the `cardsmith` command's own module), and timed from start to exit, four ways:

* **no cache**: `CARDSMITH_CACHE_DIR=off`: every table and every parse built afresh;
* **cold**:     a cache folder that holds the parser and the dataclasses' compiled methods (as
                after any earlier command), but nothing of this file (its parse, that it checked
                clean): the first command on a new file;
* **edited**:   the same command after an edit of the file: a comment line added in the middle
                of it (so the declaration before it is parsed again and every line below it
                moves down one; the file's last parse is in the cache folder, `_edit`): the
                designer's first check after changing a line;
* **warm**:     the same command again on the same file: its parse comes from the cache, and a
                check that found nothing before says ok at once.

Each run is timed twice: wall-clock, and the CPU seconds (user + system) the command used,
which a loaded machine (other processes waiting for the same cores) does not inflate.

For `play` (random bots, the fewest players, seed 1) what is timed is the start: from starting
the command to the first event of the game printed (the game is then stopped). Python's own
bytecode is cached as for an installed package (PYTHONPYCACHEPREFIX in the temporary folder,
written by a first untimed run), even where PYTHONDONTWRITEBYTECODE is set.

The inputs: games/the_space_war.cards (~600 lines) and a generated 2,000-line game (that file
with copies of its defines and procedures under new names, which check and compile like the
originals; written to a temporary folder, with a copy of the game there, which `edited` edits).
Runs are interleaved (no cache, cold, warm, edited, then the next round) and each figure is the
median of --repeats runs. The last line is a JSON summary.

    python bench/bench_startup.py                 # 5 repeats
    python bench/bench_startup.py --repeats 9

See bench/README.md ("Start-up") for the numbers measured.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GAME_FILE = ROOT / "games" / "the_space_war.cards"
LONG_LINES = 2000


def long_game(text: str, lines: int = LONG_LINES) -> str:
    """`text` grown to at least `lines` lines: copies of its `define` and `procedure`
    declarations appended, every name they declare given the suffix _2, _3, ... in the copy
    (calls among them renamed alike), so that the copies check as the originals do."""
    blocks, current = [], None
    for line in text.split("\n"):
        if line[:1].isalpha():
            current = [line] if re.match(r"(define|procedure) \w+", line) else None
            if current is not None:
                blocks.append(current)
        elif current is not None:
            current.append(line)
    names = [re.match(r"(?:define|procedure) (\w+)", b[0]).group(1) for b in blocks]
    word = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    section = "\n".join("\n".join(b).rstrip("\n") + "\n" for b in blocks)
    out, k = text.rstrip("\n") + "\n", 1
    while out.count("\n") < lines:
        k += 1
        copy = word.sub(lambda m: f"{m.group(1)}_{k}", section)
        out += f"\n# ---------------------------------------------------------------- copy {k}\n\n" + copy
    return out


_FIRST_EVENT = re.compile(r"^ +1  ")      # the log's first event as `play` prints it


def _cpu() -> float:
    """CPU seconds (user + system) used so far by this process's finished children."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def run(args: list[str], cache: str, pycache: Path) -> tuple[float, float]:
    """(wall, cpu): seconds from starting the command to its exit (check), or to the first event
    of the game printed (play: the game is then stopped), and the CPU seconds the command used
    (for play, to when it was stopped, a moment after the first event). On a loaded machine the
    wall time waits for a core and the CPU time does not. Python's bytecode is cached as for an
    installed package (in `pycache`, not in the source tree), whatever PYTHONDONTWRITEBYTECODE says."""
    env = dict(os.environ, CARDSMITH_CACHE_DIR=cache, PYTHONPYCACHEPREFIX=str(pycache))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    command = [sys.executable, "-m", "cardsmith.interpreter.cli", *args]
    cpu = _cpu()
    start = time.perf_counter()
    if args[0] != "play":
        done = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        elapsed = time.perf_counter() - start
        if done.returncode != 0:
            raise SystemExit(f"cardsmith {' '.join(args)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
        return elapsed, _cpu() - cpu
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as proc:
        for line in proc.stdout:
            if _FIRST_EVENT.match(line):
                elapsed = time.perf_counter() - start
                proc.kill()
                break
        else:
            raise SystemExit(f"cardsmith {' '.join(args)} printed no event (exit {proc.wait()})")
    return elapsed, _cpu() - cpu


def _forget_parses(folder: Path) -> None:
    """What the cache folder knows of the files themselves (their parse, that they checked
    clean): as for a file never seen before."""
    for pattern in ("ast-*", "checked-*"):
        for entry in folder.glob(pattern):
            entry.unlink()


def _edit(path: Path, original: str, k: int) -> None:
    """`original` with the comment line `# edit k` added before the declaration nearest its
    middle line, written to `path`."""
    lines = original.split("\n")
    middle = len(lines) // 2
    at = min((i for i, line in enumerate(lines) if line[:1].isalpha()), key=lambda i: abs(i - middle))
    path.write_text("\n".join(lines[:at] + [f"# edit {k}"] + lines[at:]), encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5, help="runs of each command each way (default 5)")
    ap.add_argument("--game", default=str(GAME_FILE), help="the game file (default games/the_space_war.cards)")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="cardsmith-startup-"))
    try:
        source = Path(args.game)
        original = source.read_text(encoding="utf-8")
        if not re.search(r"^(import|extends) ", original, re.M):     # a copy reads no file beside it
            source = work / "game" / source.name
            source.parent.mkdir()
            source.write_text(original, encoding="utf-8")
        long_file = work / "long" / f"{source.stem}_long.cards"
        long_file.parent.mkdir()
        long_file.write_text(long_game(original), encoding="utf-8")
        files = {"game": str(source), "2000 lines": str(long_file)}
        texts = {path: Path(path).read_text(encoding="utf-8") for path in files.values()}
        edits = 0
        sizes = {k: Path(v).read_text(encoding="utf-8").count("\n") for k, v in files.items()}
        cache = work / "cache"
        pycache = work / "pycache"
        run(["check", str(source)], str(cache), pycache)     # tables, compiled methods, bytecode: kept from now on
        run(["play", str(source), "--seed", "1"], "off", pycache)
        commands = {}
        for name, path in files.items():
            commands[f"check {name}"] = ["check", path]
            commands[f"play {name}"] = ["play", path, "--seed", "1"]
        ways = ("no cache", "cold", "edited", "warm")
        times = {(c, way): [] for c in commands for way in ways}
        for _ in range(args.repeats):
            for c, cmd in commands.items():
                times[c, "no cache"].append(run(cmd, "off", pycache))
                _forget_parses(cache)
                times[c, "cold"].append(run(cmd, str(cache), pycache))
                times[c, "warm"].append(run(cmd, str(cache), pycache))
                path = Path(cmd[1])
                if str(path).startswith(str(work)):          # never a file outside the temporary folder
                    edits += 1
                    _edit(path, texts[str(path)], edits)
                    times[c, "edited"].append(run(cmd, str(cache), pycache))
                else:
                    times[c, "edited"].append((float("nan"), float("nan")))
        wall = {k: statistics.median(w for w, _ in v) for k, v in times.items()}
        cpu = {k: statistics.median(c for _, c in v) for k, v in times.items()}
        print(f"cardsmith start-up, median of {args.repeats} runs each, Python {sys.version.split()[0]} "
              f"({', '.join(f'{k}: {n:,} lines' for k, n in sizes.items())}; load average "
              f"{os.getloadavg()[0]:.1f} at the end)")
        for title, med in (("wall-clock seconds", wall), ("CPU seconds (user + system)", cpu)):
            print(title)
            print(f"{'command':<22}{'no cache':>9}{'cold':>8}{'edited':>8}{'warm':>8}{'warm / no cache':>17}")
            for c in commands:
                print(f"{c:<22}{med[c, 'no cache']:9.3f}{med[c, 'cold']:8.3f}{med[c, 'edited']:8.3f}"
                      f"{med[c, 'warm']:8.3f}{med[c, 'warm'] / med[c, 'no cache']:16.2f}x")
        print(json.dumps({"benchmark": "startup", "repeats": args.repeats, "lines": sizes,
                          "seconds": {c: {way: round(wall[c, way], 3) for way in ways} for c in commands},
                          "cpu_seconds": {c: {way: round(cpu[c, way], 3) for way in ways} for c in commands}}))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
