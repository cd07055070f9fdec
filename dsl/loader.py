"""Load a .cards file: read → parse → AST → check passes → `Game`.

`load_game` raises CardsmithError carrying every diagnostic; `check_file` returns them.
Neither lets a Python exception escape for bad input: an internal failure is itself
reported as a located diagnostic (E0900) so the designer still gets file:line:col.

A game file may come from a stranger, so reading it is bounded (dsl/bounds.py): only regular
files are read, at most MAX_FILE_BYTES each; `extends` / `import` name `.cards` files in the
game's own folder or below (or, when the user names a folder holding the game, `root`, in that
folder or below: a scenario file in a subfolder may extend its game), nested at most MAX_INCLUDE_DEPTH deep, at most MAX_INCLUDED_FILES
files and MAX_TOTAL_BYTES bytes for one game. Each file is parsed once: a file reached a second
time (two files import the same library) adds nothing more, and a file that includes itself,
directly or through others, is an error naming the cycle.
"""
from __future__ import annotations

import functools
import gc
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from . import ast as A
from . import cache
from .bounds import MAX_FILE_BYTES, MAX_INCLUDE_DEPTH, MAX_INCLUDED_FILES, MAX_TOTAL_BYTES
from .checks import bodies, cards, declarations
from .decks import deck_rules
from .diagnostics import CardsmithError, Diagnostic, DiagnosticSink
from .model import Game
from .nesting import deepest_span, room_to_nest
from .source import Source, Span, declaration_chunks, normalise_line_ends

RULES_SUFFIX = ".cards"

# Added to every error that stops an `extends` / `import`: the check passes do not run after
# one (they would report every name the missing file declares as unknown).
_CHECKS_WAIT = ("the rest of the game is checked once every extends / import can be read",)

# Opening a FIFO for reading blocks until a writer comes, unless non-blocking; a terminal
# could become the controlling one. Neither flag changes how a regular file reads.
_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
               | getattr(os, "O_BINARY", 0))


def _not_regular(path: str, mode: int) -> str:
    kind = ("a folder" if stat.S_ISDIR(mode) else "a named pipe" if stat.S_ISFIFO(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not an ordinary file")
    return f"'{path}' is {kind}, not a rules file"


def _read(path: str, sink: DiagnosticSink, at: Span | None, shown: str | None = None) -> tuple[Source, int] | None:
    """The Source of the file at `path` and its size in bytes, or None (reported at `at`).

    Only a regular file is opened (a device such as /dev/zero says its size is 0 and never
    ends; a named pipe blocks), and at most MAX_FILE_BYTES + 1 bytes are read whatever its size
    says (a file in /proc says 0 too)."""
    where = at or Span(path, 1, 1, 1, 2)
    shown = shown or path
    notes = _CHECKS_WAIT if at else ()
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            sink.error("E0908", _not_regular(shown, info.st_mode), where,
                       "give the path of a .cards file", notes)
            return None
        raw = b""
        if info.st_size <= MAX_FILE_BYTES:
            fd = os.open(path, _OPEN_FLAGS)
            with os.fdopen(fd, "rb") as fh:
                mode = os.fstat(fh.fileno()).st_mode
                if not stat.S_ISREG(mode):          # replaced between stat and open
                    sink.error("E0908", _not_regular(shown, mode), where,
                               "give the path of a .cards file", notes)
                    return None
                raw = fh.read(MAX_FILE_BYTES + 1)
        if info.st_size > MAX_FILE_BYTES or len(raw) > MAX_FILE_BYTES:
            sink.error("E0902", f"'{shown}' is larger than {MAX_FILE_BYTES:,} bytes, the most one "
                                "rules file may have (MAX_FILE_BYTES)", where,
                       "split it into several files joined with import", notes)
            return None
    except (OSError, ValueError) as exc:      # ValueError: a NUL in the name
        sink.error("E0901", f"cannot read '{shown}': {getattr(exc, 'strerror', None) or exc}", where,
                   "check the file name and path", notes)
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = normalise_line_ends(raw[: exc.start].decode("utf-8", "replace"))
        line = before.count("\n") + 1
        if at:      # the file's text cannot be shown: point at the include that brought it in
            sink.error("E0903", f"'{shown}' is not UTF-8 text (line {line})", at,
                       "save the file as UTF-8", notes)
        else:
            sink.error("E0903", "this file is not UTF-8 text", Span(path, line, 1, line, 2),
                       "save the file as UTF-8")
        return None
    return Source(path, text), len(raw)


def _module(source: Source, sink: DiagnosticSink) -> A.Module | None:
    """The AST of one file: from the cache folder when this text was parsed before without a
    diagnostic (dsl/cache.py: plain data, keyed by the text, the grammar and the front end's
    code), else parsed (Lark, imported only then) and kept there: declaration by declaration
    (`_by_declarations`), so that after an edit only what changed is parsed again."""
    stored = cache.stored_parses(source)
    module = cache.load_module(source, stored)
    if module is not None:
        return module
    from .parser import parse
    from .transformer import to_ast

    module = _by_declarations(source, stored)
    if module is not None:
        return module
    tree, diags = parse(source)
    sink.items.extend(diags)
    if tree is None:
        return None
    before = len(sink.items)
    module = to_ast(tree, source.path, source.text, sink.items)
    if module is not None and not diags and len(sink.items) == before:
        cache.save_module(source, module)
    return module


def _by_declarations(source: Source, stored: dict) -> A.Module | None:
    """The AST of a file of several declarations put together from each one's (source.py
    declaration_chunks): kept in the cache folder by its text, else parsed alone. None when a
    piece does not parse alone without a diagnostic (a syntax error, a line in column 1 inside
    brackets): the file is then parsed whole, and every error reads as it always has.

    A piece alone is the same tokens as in the file (a declaration starts in column 1, after the
    layout that closed the one before), so its tree is the one the file's parse has there."""
    from .parser import parse
    from .transformer import to_ast

    pieces = declaration_chunks(source.text)
    if len(pieces) < 2:
        return None
    parts, kept = [], []
    for first_line, text in pieces:
        key = cache.digest(text)
        data = stored.get(key)
        found = cache.load_piece(source.path, data, first_line) if data is not None else None
        if found is None:
            tree, diags = parse(Source(source.path, text))
            if tree is None:
                return None
            problems: list = []
            try:
                module = to_ast(tree, source.path, text, problems, first_line)
            except Exception:       # the whole file's parse reports it
                return None
            if problems:
                return None
            found, data = (module, None), cache.encode_piece(module, source.path, first_line)
        parts.append(found)
        kept.append((key, data))
    module = cache.join_pieces(source.path, parts)
    if module is not None:
        cache.save_parses(source, kept)
    return module


@dataclass
class _Includes:
    """What one game has read so far, across all its files: the bounds count here."""

    sink: DiagnosticSink
    sources: dict[str, Source]
    files: int = 1                      # the game's own file
    total_bytes: int = 0
    seen: set[Path] = field(default_factory=set)        # every file read (resolved)
    chain: list[Path] = field(default_factory=list)     # the files being included, outermost first
    stopped: bool = False               # a bound on files or bytes was hit: include no more
    root: Path | None = None            # the folder the user named: includes anywhere below it
    read: list = field(default_factory=list)    # (path as named, path it led to, text) per file included
    modules: list = field(default_factory=list)     # the AST of each file read, the game's own first

    def splice(self, path: Path, module: A.Module) -> A.Module:
        """Splice `extends` / `import`ed files in front of this one's declarations. Only files
        in the same folder or below may be included (an untrusted file cannot read elsewhere);
        an `override` in the including file replaces the base rule of the same name."""
        base_dir = path.parent
        decls: list = []
        overrides = {(type(o.decl).__name__, getattr(o.decl, "name", None)): o
                     for o in module.decls if isinstance(o, A.OverrideDecl)}
        overridden = set(overrides)
        placed: set[int] = set()    # overrides put where the base had the declaration they replace
        self.chain.append(path)
        for d in module.decls:
            if isinstance(d, (A.ImportDecl, A.ExtendsDecl)):
                sub = self._include(d, base_dir)
                if sub is None:
                    continue
                for sd in sub.decls:
                    key = (type(sd).__name__, getattr(sd, "name", None))
                    if key in overridden and isinstance(sd, A.EndCheckDecl) and id(overrides[key]) not in placed:
                        # end checks are checked in their order: the new one takes the old one's place
                        placed.add(id(overrides[key]))
                        decls.append(overrides[key])
                        continue
                    if key in overridden or (isinstance(d, A.ExtendsDecl) and isinstance(sd, A.GameDecl)
                                             and any(isinstance(x, A.GameDecl) for x in module.decls)):
                        continue
                    decls.append(sd)
        self.chain.pop()
        own = [d for d in module.decls if not isinstance(d, (A.ImportDecl, A.ExtendsDecl)) and id(d) not in placed]
        return A.Module(module.span, tuple(decls + own))

    def _include(self, d: A.ImportDecl | A.ExtendsDecl, base_dir: Path) -> A.Module | None:
        """The module `d` names, its own includes spliced in; None when there is nothing to add."""
        sink, rule = self.sink, "extends" if isinstance(d, A.ExtendsDecl) else "import"
        if self.stopped:
            return None
        # The name is checked before anything is resolved or read: `import "secrets.env"` must
        # not show a single line of that file as a syntax error.
        if not d.path.endswith(RULES_SUFFIX) or Path(d.path).name == RULES_SUFFIX:
            sink.error("E0907", f"'{rule}' takes a .cards rules file, not '{d.path}'", d.span,
                       f"{rule} a file whose name ends in .cards", _CHECKS_WAIT)
            return None
        if len(self.chain) > MAX_INCLUDE_DEPTH:
            sink.error("E0904", f"files include each other more than {MAX_INCLUDE_DEPTH} levels deep "
                                "(MAX_INCLUDE_DEPTH)", d.span,
                       "include the deepest files from a file higher up", _CHECKS_WAIT)
            return None
        try:
            target = (base_dir / d.path).resolve()
        except (OSError, ValueError, RuntimeError) as exc:     # a NUL in the name, a link loop
            sink.error("E0901", f"cannot read '{d.path}': {getattr(exc, 'strerror', None) or exc}",
                       d.span, "check the file name and path", _CHECKS_WAIT)
            return None
        if (self.root or base_dir) not in target.parents:
            folder = f"the folder {self.root}" if self.root else "this game's folder"
            sink.error("E0905", f"'{d.path}' is outside {folder}", d.span,
                       "a game may only extend or import files in its own folder or below" + (
                           "" if self.root else "; a file in a subfolder reaches its game above it when "
                           "the command is given the project's folder: --root DIR"), _CHECKS_WAIT)
            return None
        if target.suffix != RULES_SUFFIX:          # a link named x.cards to another file
            sink.error("E0907", f"'{rule}' takes a .cards rules file, but '{d.path}' leads to "
                                f"'{target.name}'", d.span,
                       f"{rule} a file whose name ends in .cards", _CHECKS_WAIT)
            return None
        if target in self.chain:
            cycle = self.chain[self.chain.index(target):] + [target]
            names = " → ".join(os.path.relpath(p, self.chain[0].parent) for p in cycle)
            message = (f"this file {'extends' if rule == 'extends' else 'imports'} itself" if len(cycle) == 2
                       else f"files include each other in a cycle: {names}")
            sink.error("E0909", message, d.span,
                       f"remove this '{rule}', or the one that leads back to this file", _CHECKS_WAIT)
            return None
        if target in self.seen:
            return None     # already included once (two files import the same library)
        if self.files >= MAX_INCLUDED_FILES:
            self.stopped = True
            sink.error("E0910", f"this game reads more than {MAX_INCLUDED_FILES} files "
                                "(MAX_INCLUDED_FILES)", d.span,
                       "merge small files into larger ones", _CHECKS_WAIT)
            return None
        self.files += 1
        self.seen.add(target)
        read = _read(str(target), sink, d.span, d.path)
        if read is None:
            return None
        src, size = read
        self.read.append((str(base_dir / d.path), str(target), src.text))
        self.total_bytes += size
        if self.total_bytes > MAX_TOTAL_BYTES:
            self.stopped = True
            sink.error("E0911", f"with '{d.path}' this game's files add up to more than "
                                f"{MAX_TOTAL_BYTES:,} bytes (MAX_TOTAL_BYTES)", d.span,
                       "a game's files together must stay under this size", _CHECKS_WAIT)
            return None
        src = Source(src.path, normalise_line_ends(src.text))
        self.sources[src.path] = src
        sub = _module(src, sink)
        if sub is None:
            return None
        self.modules.append(sub)
        return self.splice(target, sub)


def _sorted(items: list[Diagnostic], root: str) -> list[Diagnostic]:
    """The game's own file first, then the others by path; each by position."""
    items.sort(key=lambda d: (d.span.path != root, d.span.path, d.span.line, d.span.column))
    return items


def _gc_paused(fn):
    """`fn` with Python's cycle collector paused while it runs: the parser read back, the AST and
    the checks' records are ~10^5 objects made and kept, none of them garbage, which it would
    walk again and again (~5% of a check); what is left is collected as usual after."""
    @functools.wraps(fn)
    def paused(*args, **kwargs):
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            gc.enable()
    return paused


@_gc_paused
@room_to_nest
def check_source(source: Source, sink: DiagnosticSink | None = None,
                 root: str | None = None, read: list | None = None,
                 settle=None, modules: list | None = None) -> tuple[Game | None, list[Diagnostic], dict]:
    """`root`: a folder the user named that holds the game: `extends` / `import` may reach any
    `.cards` file below it, not only below the game's own folder (ignored if it does not hold it).
    `read`: a list given to be filled with (path as named, path it led to, text as read) for
    every file the game includes (what dsl/cache.py save_checked keeps). `settle`: what
    dsl/cache.py load_settled gives: when it fits the files read, what the body checks found
    for this game before is put back and they do not run again. `modules`: a list given to be
    filled with the AST of each file read, the game's own first."""
    sink = sink or DiagnosticSink()
    source = Source(source.path, normalise_line_ends(source.text))
    sources = {source.path: source}
    try:
        size = len(source.text.encode("utf-8", "surrogatepass"))
        if size > MAX_FILE_BYTES:       # text handed in directly (load_text) was not read by _read
            sink.error("E0902", f"this text is larger than {MAX_FILE_BYTES:,} bytes, the most one "
                                "rules file may have (MAX_FILE_BYTES)", Span(source.path, 1, 1, 1, 2),
                       "split it into several files joined with import")
            return None, sink.items, sources
        module = _module(source, sink)
        if module is None:
            return None, sink.items, sources
        includes = _Includes(sink, sources, total_bytes=size)
        if modules is not None:
            includes.modules = modules
        includes.modules.append(module)
        if read is not None:
            includes.read = read
        if root is not None:
            named = Path(root).resolve()
            if named in Path(source.path).resolve().parents:
                includes.root = named
        root = Path(source.path).resolve()
        includes.seen.add(root)
        module = includes.splice(root, module)
        if sink.has_errors:
            # A file that could not be read or parsed, or a literal over a bound: the check
            # passes would only add follow-on errors (every name a missing file declares).
            return None, _sorted(sink.items, source.path), sources
        decls = declarations(module, sink)
        card_defs = cards(decls, sink)
        deck_rules(decls, card_defs, sink)
        if settle is None or sink.items or not settle(decls, includes.read, includes.modules):
            bodies(decls, sink)
    except CardsmithError:
        return None, sink.items, sources
    except RecursionError:
        # the RecursionError does not say where: point at the deepest place of the text read
        sink.error("E0906", "this file nests too deeply to read", deepest_span(sources, source.path),
                   "flatten the deepest nested expression or block")
        return None, sink.items, sources
    except Exception as exc:   # a bug in cardsmith must still reach the designer as a located error
        sink.error("E0900", f"cardsmith could not check this file (internal error: {type(exc).__name__}: {exc})",
                   Span(source.path, 1, 1, 1, 2), "please report this, with the file, to the cardsmith developers")
        return None, sink.items, sources
    _sorted(sink.items, source.path)
    if sink.has_errors:
        return None, sink.items, sources
    g = decls.game
    game = Game(source.path, g.title, g.min_players, g.max_players, g.summary, decls, tuple(card_defs),
                module, sources)
    return game, sink.items, sources


@_gc_paused
def check_file(path: str, root: str | None = None) -> tuple[list[Diagnostic], dict]:
    """Every diagnostic of the file at `path` (and the sources to render them with); `root`: the
    folder the user named, whose files it may include (see check_source)."""
    sink = DiagnosticSink()
    read = _read(path, sink, None)
    if read is None:
        return sink.items, {}
    included: list = []
    modules: list = []
    game, diags, sources = check_source(read[0], sink, root, included, None, modules)
    if game is not None and not diags:
        _remember(path, root, read[0].text, included, modules, game)
    return diags, sources


def _remember(path: str, root: str | None, text: str, included: list, modules: list, game: Game) -> None:
    """A game checked without a diagnostic, in the cache folder (dsl/cache.py): the next
    `cardsmith check` of the same files says ok at once (checked_ok), the next load puts back
    what the body checks found instead of running them (load_settled)."""
    cache.save_checked(path, root, text, included)
    cache.save_settled(path, root, text, included, modules, game.decls)


@_gc_paused
def load_game(path: str, *, fail_fast: bool = False, root: str | None = None) -> Game:
    """The checked Game of the file at `path`; raises CardsmithError with every diagnostic.
    `root`: the folder the user named, whose files it may include (see check_source)."""
    sink = DiagnosticSink(fail_fast=fail_fast)
    read = _read(path, sink, None)
    if read is None:
        raise CardsmithError(sink.items, {})
    text = read[0].text
    # played before without a diagnostic: what the body checks found is read back (dsl/cache.py)
    settle = cache.load_settled(path, root, text)
    included: list = []
    modules: list = []
    game, diags, sources = check_source(read[0], sink, root, included, settle, modules)
    if game is None:
        raise CardsmithError(diags, sources)
    if not diags and not getattr(settle, "applied", False):
        _remember(path, root, text, included, modules, game)
    return game


def load_text(text: str, path: str = "<text>.cards") -> Game:
    """A Game from source text (tests, scenarios in docs)."""
    game, diags, sources = check_source(Source(path, text))
    if game is None:
        raise CardsmithError(diags, sources)
    return game
