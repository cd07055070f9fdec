"""Load a .cards file: read → parse → AST → check passes → `Game`.

`load_game` raises CardsmithError carrying every diagnostic; `check_file` returns them.
Neither lets a Python exception escape for bad input: an internal failure is itself
reported as a located diagnostic (E0900) so the designer still gets file:line:col.
"""
from __future__ import annotations

import os
from pathlib import Path

from . import ast as A
from .checks import bodies, cards, declarations
from .diagnostics import CardsmithError, Diagnostic, DiagnosticSink
from .model import Game
from .parser import parse
from .source import Source, Span
from .transformer import to_ast

MAX_FILE_BYTES = 2_000_000      # a rules file larger than this is refused, not parsed
MAX_INCLUDE_DEPTH = 8


def _read(path: str, sink: DiagnosticSink, at: Span | None) -> Source | None:
    where = at or Span(path, 1, 1, 1, 2)
    try:
        size = os.path.getsize(path)
        if size > MAX_FILE_BYTES:
            sink.error("E0902", f"'{path}' is {size} bytes; rules files are limited to {MAX_FILE_BYTES}", where, None)
            return None
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        sink.error("E0901", f"cannot read '{path}': {exc.strerror or exc}", where, "check the file name and path")
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        sink.error("E0903", "this file is not UTF-8 text", Span(path, line, 1, line, 2),
                   "save the file as UTF-8")
        return None
    return Source(path, text)


def _module(source: Source, sink: DiagnosticSink) -> A.Module | None:
    tree, diags = parse(source)
    sink.items.extend(diags)
    if tree is None:
        return None
    return to_ast(tree, source.path, source.text)


def _include(path: str, module: A.Module, sources: dict, sink: DiagnosticSink, depth: int) -> A.Module:
    """Splice `extends` / `import`ed files in front of this one's declarations. Only files in
    the same folder or below may be included (an untrusted file cannot read elsewhere);
    an `override` in the including file replaces the base rule of the same name."""
    base_dir = Path(path).resolve().parent
    decls: list = []
    overridden = {(type(o.decl).__name__, getattr(o.decl, "name", None))
                  for o in module.decls if isinstance(o, A.OverrideDecl)}
    for d in module.decls:
        if not isinstance(d, (A.ImportDecl, A.ExtendsDecl)):
            continue
        target = (base_dir / d.path).resolve()
        if depth >= MAX_INCLUDE_DEPTH:
            sink.error("E0904", "files include each other too deeply", d.span, "remove the cycle of extends / import")
            continue
        if base_dir not in target.parents:
            sink.error("E0905", f"'{d.path}' is outside this game's folder", d.span,
                       "a game may only extend or import files in its own folder or below")
            continue
        src = _read(str(target), sink, d.span)
        if src is None:
            continue
        sources[src.path] = src
        sub = _module(src, sink)
        if sub is None:
            continue
        sub = _include(src.path, sub, sources, sink, depth + 1)
        for sd in sub.decls:
            key = (type(sd).__name__, getattr(sd, "name", None))
            if key in overridden or (isinstance(d, A.ExtendsDecl) and isinstance(sd, A.GameDecl)
                                     and any(isinstance(x, A.GameDecl) for x in module.decls)):
                continue
            decls.append(sd)
    own = [d for d in module.decls if not isinstance(d, (A.ImportDecl, A.ExtendsDecl))]
    return A.Module(module.span, tuple(decls + own))


def check_source(source: Source, sink: DiagnosticSink | None = None) -> tuple[Game | None, list[Diagnostic], dict]:
    sink = sink or DiagnosticSink()
    sources = {source.path: source}
    try:
        module = _module(source, sink)
        if module is None:
            return None, sink.items, sources
        module = _include(source.path, module, sources, sink, 0)
        decls = declarations(module, sink)
        card_defs = cards(decls, sink)
        bodies(decls, sink)
    except CardsmithError:
        return None, sink.items, sources
    except RecursionError:
        sink.error("E0906", "this file nests too deeply to read", Span(source.path, 1, 1, 1, 2),
                   "flatten the deepest nested expression or block")
        return None, sink.items, sources
    except Exception as exc:   # a bug in cardsmith must still reach the designer as a located error
        sink.error("E0900", f"cardsmith could not check this file (internal error: {type(exc).__name__}: {exc})",
                   Span(source.path, 1, 1, 1, 2), "please report this, with the file, to the cardsmith developers")
        return None, sink.items, sources
    sink.items.sort(key=lambda d: (d.span.path != source.path, d.span.path, d.span.line, d.span.column))
    if sink.has_errors:
        return None, sink.items, sources
    g = decls.game
    game = Game(source.path, g.title, g.min_players, g.max_players, g.summary, decls, tuple(card_defs),
                module, sources)
    return game, sink.items, sources


def check_file(path: str) -> tuple[list[Diagnostic], dict]:
    """Every diagnostic of the file at `path` (and the sources to render them with)."""
    sink = DiagnosticSink()
    src = _read(path, sink, None)
    if src is None:
        return sink.items, {}
    _, diags, sources = check_source(src, sink)
    return diags, sources


def load_game(path: str, *, fail_fast: bool = False) -> Game:
    """The checked Game of the file at `path`; raises CardsmithError with every diagnostic."""
    sink = DiagnosticSink(fail_fast=fail_fast)
    src = _read(path, sink, None)
    if src is None:
        raise CardsmithError(sink.items, {})
    game, diags, sources = check_source(src, sink)
    if game is None:
        raise CardsmithError(diags, sources)
    return game


def load_text(text: str, path: str = "<text>.cards") -> Game:
    """A Game from source text (tests, scenarios in docs)."""
    game, diags, sources = check_source(Source(path, text))
    if game is None:
        raise CardsmithError(diags, sources)
    return game
