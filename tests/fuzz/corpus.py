"""The fuzzer's seeds and the folder its mutants are written into.

The seeds are the bundled games and the test games: together they use every part of the
language, so mutating them reaches every part of the front end, the interpreter and the
publisher. Their words (plus the grammar's keywords) are the vocabulary a token mutation draws
from, so a replaced token is usually a real keyword or name and the mutant gets past the parser.
"""
from __future__ import annotations

import functools
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SEED_GLOBS = ("games/*.cards", "tests/games/*.cards")
GRAMMAR = REPO / "grammar" / "cardsmith.lark"
MUTANT_NAME = "mutant.cards"        # the mutated file's name inside the workspace

TOKEN = re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*"""|"(?:[^"\\\n]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*|\d+|\S')
NUMBER = re.compile(r"(?<![A-Za-z_0-9])\d+(?![A-Za-z_0-9])")
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


@dataclass(frozen=True, slots=True)
class Seed:
    """One corpus file: its path relative to the repository and its text."""
    name: str
    text: str


@functools.cache
def seeds() -> tuple[Seed, ...]:
    found = sorted(p for g in SEED_GLOBS for p in REPO.glob(g))
    out = tuple(Seed(str(p.relative_to(REPO)), p.read_text(encoding="utf-8")) for p in found)
    names = [Path(s.name).name for s in out]
    # the workspace holds them side by side (a scenarios file extends its game by base name)
    assert len(set(names)) == len(names), f"two seed files share a name: {names}"
    return out


def seed(name: str) -> Seed:
    return next(s for s in seeds() if s.name == name or Path(s.name).name == name)


@functools.cache
def vocabulary() -> tuple[str, ...]:
    """Every distinct token of the corpus and every keyword of the grammar, sorted."""
    words: set[str] = set()
    for s in seeds():
        words.update(TOKEN.findall(s.text))
    words.update(re.findall(r'"([a-z_\']+)"', GRAMMAR.read_text(encoding="utf-8")))
    # long texts make poor replacements; short ones are the tokens that matter to the parser
    return tuple(sorted(w for w in words if len(w) <= 40))


@dataclass(frozen=True, slots=True)
class Extra:
    """A file beside the mutant: text/bytes, a folder, a symbolic link or a named pipe."""
    name: str
    data: bytes = b""
    kind: str = "file"          # "file" | "dir" | "symlink" | "fifo"
    target: str = ""            # where a symlink points


@dataclass(frozen=True, slots=True)
class Mutant:
    """A mutated file (written as MUTANT_NAME), the seed it came from, the operations applied
    and any files put beside it (targets of extends / import)."""
    seed: str
    data: bytes
    ops: tuple[str, ...] = ()
    extra: tuple[Extra, ...] = ()


class Workspace:
    """A folder holding every seed file side by side, where one mutant at a time is written.

    The seeds stay, so a mutated scenarios file still extends its (pristine) game; a mutant's
    extras are removed before the next mutant is written.
    """

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root).resolve()
        self.root.mkdir(parents=True, exist_ok=True)
        for s in seeds():
            shutil.copyfile(REPO / s.name, self.root / Path(s.name).name)
        # a game's modules live in a folder beside it (`import "eve/military.cards"`)
        for glob in SEED_GLOBS:
            for folder in sorted(p for p in (REPO / glob).parent.iterdir() if p.is_dir()):
                if any(folder.rglob("*.cards")):
                    shutil.copytree(folder, self.root / folder.name, dirs_exist_ok=True)
        self.base = {p.name for p in self.root.iterdir()}
        self.path = self.root / MUTANT_NAME

    def write(self, mutant: Mutant) -> str:
        self.clear()
        for e in mutant.extra:
            self._make(e)
        self.path.write_bytes(mutant.data)
        return str(self.path)

    def _make(self, e: Extra) -> None:
        target = self.root / e.name
        if self.root not in target.resolve().parents and target.resolve() != self.root:
            return          # an extra is always inside the workspace; mutators never ask otherwise
        target.parent.mkdir(parents=True, exist_ok=True)
        if e.kind == "dir":
            target.mkdir(exist_ok=True)
        elif e.kind == "symlink":
            os.symlink(e.target, target)
        elif e.kind == "fifo":
            os.mkfifo(target)
        else:
            target.write_bytes(e.data)

    def clear(self) -> None:
        """Remove everything but the seeds (the last mutant and its extras)."""
        for p in self.root.iterdir():
            if p.name in self.base:
                continue
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink(missing_ok=True)
