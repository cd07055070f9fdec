"""The cache directory: what cardsmith builds once and keeps between runs, as Python keeps bytecode.

Today it holds the parser's tables (Lark's analysis of grammar/cardsmith.lark, which costs about
half a second to build and is the same for every game): `cardsmith check` and `play` load them
instead, so a command starts in a fraction of that. Each entry is named by the SHA-256 of what
it was built from (the grammar's text, Lark's version, Python's version), so a changed grammar
or an upgrade never reads a stale entry.

Where: `$CARDSMITH_CACHE_DIR`, else `$XDG_CACHE_HOME/cardsmith`, else `~/.cache/cardsmith`.
Clear it with `cardsmith cache --clear` (or delete the folder); set `CARDSMITH_CACHE_DIR=off`
to run without one. The folder is made private to its user (mode 0700), and one that is not
the user's own, or that others may write to, is not used: what is in it is loaded as code
(Lark keeps its tables as a pickle), so only its owner may put anything there.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import stat
from pathlib import Path

OFF = "off"


def cache_dir(create: bool = True) -> Path | None:
    """The cache folder, made if missing; None when switched off or not safely usable."""
    where = os.environ.get("CARDSMITH_CACHE_DIR")
    if where is not None and where.strip().lower() == OFF:
        return None
    if where:
        path = Path(where)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        path = Path(base) / "cardsmith"
    try:
        if create:
            path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = path.stat()
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode):
        return None
    if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)):
        return None         # someone else could put code here
    return path


def entry(kind: str, *parts: str) -> Path | None:
    """The path of the cache entry for `kind` built from `parts`, or None without a cache."""
    folder = cache_dir()
    if folder is None:
        return None
    digest = hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:32]
    return folder / f"{kind}-{digest}"


def clear() -> tuple[Path | None, int]:
    """Remove every entry; return the folder and how many entries were removed."""
    folder = cache_dir(create=False)
    if folder is None:
        return None, 0
    removed = 0
    for child in folder.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)
        removed += 1
    return folder, removed
