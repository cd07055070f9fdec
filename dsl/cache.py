"""The cache directory: what cardsmith builds once and keeps between runs, as Python keeps bytecode.

It holds the parser: Lark's tables (its analysis of grammar/cardsmith.lark, which costs about
half a second to build and is the same for every game), and the parser Lark builds from them
(`parser-*`: the whole object pickled by dsl/parser.py, a third of the time to load that the
tables take, keyed too by the front end's code): `cardsmith check` and `play` load it instead,
so a command starts in a fraction of that. Each entry is named by the SHA-256 of what it was
built from (the grammar's text, Lark's version, Python's version), so a changed grammar or an
upgrade never reads a stale entry.

Where: `$CARDSMITH_CACHE_DIR`, else `$XDG_CACHE_HOME/cardsmith`, else `~/.cache/cardsmith`.
Clear it with `cardsmith cache --clear` (or delete the folder); set `CARDSMITH_CACHE_DIR=off`
to run without one. The folder is made private to its user (mode 0700), and one that is not
the user's own, or that others may write to, is not used: what is in it is loaded as code
(Lark keeps its tables as a pickle), so only its owner may put anything there.

It also keeps the compiled methods of cardsmith's own dataclasses (`fast_dataclasses`): the
standard library writes each dataclass's `__init__`, `__eq__`, `__repr__`, ... as Python source
and compiles it every time the module is imported, about 1 ms a class, and the AST alone has
160 classes. The code objects are kept by their source (marshal, as Python's __pycache__ keeps
bytecode), only for classes of modules named cardsmith.*: source written by the standard
library from cardsmith's own class definitions, never from a game file.

And what cardsmith learnt of each game file, all of it plain JSON data read back with json and
checked field by field (a damaged, foreign or hostile entry is a miss: the work is done again):

* `ast-*`: the file's last AST (load_module), one entry per path (and the front end's code),
  declaration by declaration (source.py declaration_chunks), each by the SHA-256 of its text and
  its lines counted from its own first: after an edit, dsl/loader.py parses only the
  declarations whose text is new, and reads the others back at the lines they now start at;
* `checked-*`: that the file checked without a single diagnostic (checked_ok), keyed by its
  text, `--root` and the checker's code (every module of cardsmith/dsl, the grammar, Python's
  version), listing the files it includes with the SHA-256 of their text: a second
  `cardsmith check` of unchanged files says ok without parsing, checking or importing the front end;
* `settled-*`: what the body checks left in the model for the compiler (load_settled: every
  expression's type, named by its file and place in that file's AST), keyed the same way: a
  second `play` / `simulate` / `test` of unchanged files does not check the bodies again.

Each kind keeps its MAX_PARSES most recently used entries.
"""
from __future__ import annotations

import builtins
import hashlib
import os
import stat
import sys
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
    import shutil

    import dataclasses

    methods = dataclasses.__dict__.get("exec")
    if isinstance(methods, _Methods):       # this process does not write them back at its exit
        methods.path = None
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


def write(path: Path, data: bytes) -> bool:
    """Write an entry whole or not at all (a reader never sees half of one): a temporary file
    in the folder, then renamed over the entry."""
    import tempfile

    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        return False
    return True


# ---------------------------------------------------------------- dataclass methods

_MAX_METHODS = 20_000          # entries kept in one file (old ones go when cardsmith's classes change)


class _Methods:
    """Stands in for `exec` inside the dataclasses module: the source it is given for a method of
    a cardsmith.* class is compiled once and then looked up; anything else is passed on."""

    def __init__(self, path: Path | None, known: dict | None = None):
        self.path = path
        self.known = known          # source -> code, from the file (read at the first use)
        self.used: dict = {}        # source -> code, asked for in this process
        self.missed = 0

    def __call__(self, source, globals=None, locals=None):
        if source.__class__ is str and globals is not None and \
                str(globals.get("__name__", "")).startswith("cardsmith."):
            if self.known is None:
                self.known = _read_methods(self.path)
            code = self.known.get(source)
            if code is None:
                code = compile(source, "<string>", "exec")      # what exec(source) does first
                self.missed += 1
            self.used[source] = code
            source = code
        return builtins.exec(source, globals, locals)

    def save(self) -> None:
        if not self.missed or self.path is None:
            return
        import marshal

        known = self.known or {}
        kept = dict(known) if len(known) + len(self.used) <= _MAX_METHODS else {}
        kept.update(self.used)
        write(self.path, marshal.dumps(kept))


def fast_dataclasses() -> None:
    """Make the dataclasses of cardsmith's modules imported from now on load their compiled
    methods from the cache folder (written at exit when some were new). Call it before those
    modules are imported (the `cardsmith` command does, first thing); without a cache folder it
    does nothing."""
    import dataclasses

    if isinstance(dataclasses.__dict__.get("exec"), _Methods):
        return
    path = entry("dataclasses", sys.version, "marshal", str(_marshal_version()))
    if path is None:
        return
    methods = _Methods(path)            # the file is read when the first class is made
    dataclasses.exec = methods          # a module global shadows the builtin inside dataclasses
    import atexit

    atexit.register(methods.save)


def _read_methods(path: Path | None) -> dict:
    """The compiled methods kept in the file at `path`: source -> code object (nothing else)."""
    if path is None:
        return {}
    try:
        import marshal

        with open(path, "rb") as fh:
            loaded = marshal.loads(fh.read())
        if isinstance(loaded, dict):
            return {k: v for k, v in loaded.items() if isinstance(k, str) and isinstance(v, type(_read_methods.__code__))}
    except (OSError, ValueError, EOFError, TypeError):
        pass
    return {}


def _marshal_version() -> int:
    import marshal

    return marshal.version


# ---------------------------------------------------------------- parsed files

# What a file's AST is made by besides its text: a change to any of these is a new entry.
_FRONT_END = ("ast.py", "transformer.py", "parser.py", "syntax_errors.py", "bounds.py", "source.py")
_AST_FORMAT = "2"
_fingerprint: list = []        # the front end's hash, computed once per process


def front_end() -> str:
    """The SHA-256 of what makes a file's AST besides its text (the front end's code, the
    grammar, Python's version)."""
    if not _fingerprint:
        import importlib.resources

        digest = hashlib.sha256(_AST_FORMAT.encode())
        here = Path(__file__).parent
        for name in _FRONT_END:
            digest.update(name.encode() + b"\0" + (here / name).read_bytes())
        grammar = importlib.resources.files("cardsmith.grammar") / "cardsmith.lark"
        digest.update(b"grammar\0" + grammar.read_bytes())
        digest.update(sys.version.encode())
        _fingerprint.append(digest.hexdigest())
    return _fingerprint[0]


def _ast_entry(source) -> Path | None:
    try:
        return entry("ast", front_end(), source.path)
    except (OSError, ValueError):       # a front-end file unreadable: no cache
        return None


def digest(text: str) -> str:
    """The name a piece of a file's text is kept under (SHA-256)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def stored_parses(source) -> dict:
    """What the cache folder keeps of the last parse of the file at `source.path`: {SHA-256 of
    a piece of its text: that piece's AST as plain data, lines counted from the piece's first}
    (save_parses); {} when nothing is kept or the entry is damaged or foreign."""
    path = _ast_entry(source)
    if path is None:
        return {}
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return {}
    try:
        import json

        stored = json.loads(data)
        if not (isinstance(stored, dict) and stored.get("path") == source.path):
            return {}
        pieces = stored["pieces"]
        out = {}
        for key, module in pieces:
            if key.__class__ is not str or module.__class__ is not list:
                return {}
            out[key] = module
    except Exception:           # a damaged or foreign entry is a miss: the file is parsed again
        return {}
    try:
        os.utime(path)          # recently used: the last to be evicted
    except OSError:
        pass
    return out


def load_piece(path: str, data, first_line: int):
    """(the AST `Module` of one piece of the file at `path` starting at line `first_line`, its
    nodes in node_order) from the plain data stored_parses gave; None when the data is not a
    module (a damaged or hostile entry: the piece is parsed again)."""
    try:
        decoder = _Decoder(path, first_line - 1)
        module = decoder.node(data)
        if module.__class__ is not _ast_classes()["Module"][0]:
            return None
    except Exception:
        return None
    return module, decoder.order


def join_pieces(path: str, parts: list):
    """The `Module` of a file from the modules of its pieces in order [(module, its node_order
    or None)]: its span from the first written token to the end of the last (the parser's)."""
    from .source import Span

    Module = _ast_classes()["Module"][0]
    first, last = parts[0][0].span, parts[-1][0].span
    if not (first.line and last.line):
        return None                     # a piece without a declaration (kept whole instead)
    module = Module(Span(path, first.line, first.column, last.end_line, last.end_column),
                    tuple(d for part, _ in parts for d in part.decls))
    order = [module]
    for part, known in parts:
        order.extend((known or node_order(part))[1:])
    _keep_order(module, order)
    return module


def _keep_order(module, order: list) -> None:
    if len(_orders) >= _ORDERS_KEPT:     # a long-lived process (the language server) reads many
        _orders.pop(next(iter(_orders)))
    _orders[id(module)] = (module, order)


def load_module(source, stored: dict | None = None):
    """The AST (dsl/ast.py `Module`) of `source` as parsed before, or None: kept as plain data
    (JSON: class names, fields, spans), never as a pickle, so reading an entry builds AST nodes
    and nothing else. One entry per file path (its last parse), keyed too by the grammar, the
    front end's code and Python's version, holds the file's pieces (source.py
    declaration_chunks: a declaration each), each by the SHA-256 of its text, lines counted
    from its own first: a file whose every piece is there is read back whole; after an edit
    dsl/loader.py parses only the pieces that changed. Only text parsed without a single
    diagnostic is kept. `stored`: stored_parses(source), when already read."""
    if stored is None:
        stored = stored_parses(source)
    if not stored:
        return None
    whole = stored.get(digest(source.text))         # a file kept as one piece
    if whole is not None:
        found = load_piece(source.path, whole, 1)
        if found is None:
            return None
        _keep_order(*found)
        return found[0]
    from .source import declaration_chunks

    pieces = [(first_line, stored.get(digest(text))) for first_line, text in declaration_chunks(source.text)]
    if any(data is None for _, data in pieces):
        return None         # edited: dsl/loader.py reads back the pieces kept and parses the others
    parts = []
    for first_line, data in pieces:
        found = load_piece(source.path, data, first_line)
        if found is None:
            return None
        parts.append(found)
    return join_pieces(source.path, parts)


def encode_piece(module, path: str, first_line: int = 1):
    """A piece's `Module` as the plain data kept for it, lines counted from `first_line`; None
    when it holds anything but AST nodes (it is then not kept)."""
    try:
        return _encode(module, path, first_line - 1)
    except (_NotPlain, RecursionError):
        return None


def save_parses(source, pieces: list) -> None:
    """Keep the parse of `source`: `pieces` [(SHA-256 of a piece's text, encode_piece of its
    module)], replacing what was kept for its path (see load_module)."""
    path = _ast_entry(source)
    if path is None or any(data is None for _, data in pieces):
        return
    import json

    if write(path, json.dumps({"path": source.path, "pieces": [[k, data] for k, data in pieces]},
                              separators=(",", ":")).encode("utf-8")):
        _evict(path.parent, "ast-", MAX_PARSES)


def save_module(source, module) -> None:
    """Keep the AST of `source`, parsed whole (see load_module); nothing when there is no cache
    folder."""
    save_parses(source, [(digest(source.text), encode_piece(module, source.path))])


MAX_PARSES = 200       # parsed files kept (an editor's language server checks every version of a file)


def _evict(folder: Path, prefix: str, keep: int) -> None:
    """Remove the least recently written entries of a kind beyond `keep`."""
    try:
        entries = [e for e in os.scandir(folder) if e.name.startswith(prefix) and e.is_file(follow_symlinks=False)]
        if len(entries) <= keep:
            return
        entries.sort(key=lambda e: e.stat(follow_symlinks=False).st_mtime)
        for e in entries[:len(entries) - keep]:
            os.unlink(e.path)
    except OSError:
        pass


class _NotPlain(Exception):
    pass


def _encode(v, path: str, shift: int = 0):
    """A value of the AST as JSON data: a node ["N", class, fields...], a span ["S", line,
    column, end line, end column] (["P", path, ...] in another file), a tuple ["T", items...].
    Lines of `path` are written less `shift` (a piece of the file: counted from its first line);
    line 0 (a span of nothing) stays 0."""
    cls = v.__class__
    if v is None or cls is str or cls is int or cls is bool or cls is float:
        return v
    if cls is tuple:
        return ["T", *[_encode(x, path, shift) for x in v]]
    from .source import Span

    if cls is Span:
        if v.path == path:
            if shift and v.line:
                return ["S", v.line - shift, v.column, v.end_line - shift, v.end_column]
            return ["S", v.line, v.column, v.end_line, v.end_column]
        return ["P", v.path, v.line, v.column, v.end_line, v.end_column]
    fields = _ast_classes().get(cls.__name__)
    if fields is None or fields[0] is not cls:
        raise _NotPlain(cls.__name__)
    return ["N", cls.__name__, *[_encode(getattr(v, name), path, shift) for name in fields[1]]]


_classes: dict = {}


def _ast_classes() -> dict:
    """class name → (class, its fields' names) for the dataclasses of dsl/ast.py: the only
    classes an entry can name."""
    if not _classes:
        import dataclasses

        from . import ast as A

        for name, cls in vars(A).items():
            if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == A.__name__:
                _classes[name] = (cls, tuple(f.name for f in dataclasses.fields(cls)))
    return _classes


def _scalar(v):
    if v is None or v.__class__ in (str, int, bool, float):
        return v
    raise ValueError("not AST data")


class _Decoder:
    def __init__(self, path: str, shift: int = 0):
        from .source import Span

        self.path = path
        self.shift = shift          # added to every line of `path` but 0 (load_piece)
        self.span = Span
        self.classes = _ast_classes()
        self.spans: dict = {}
        self.order: list = []       # every node made, in the order made (node_order)

    def node(self, v):
        if v.__class__ is not list:
            if v is None or v.__class__ in (str, int, bool, float):
                return v
            raise ValueError("not AST data")
        tag = v[0]
        if tag == "N":
            cls, names = self.classes[v[1]]
            if len(v) != len(names) + 2:
                raise ValueError(f"{v[1]}: {len(v) - 2} fields, not {len(names)}")
            obj = object.__new__(cls)
            self.order.append(obj)
            node, setattr_ = self.node, object.__setattr__
            for name, x in zip(names, v[2:]):
                # as the frozen class's __init__ does; a list is a node, a tuple or a span
                setattr_(obj, name, node(x) if x.__class__ is list else _scalar(x))
            return obj
        if tag == "T":
            node = self.node
            return tuple([node(x) if x.__class__ is list else _scalar(x) for x in v[1:]])
        if tag == "S" or tag == "P":
            key = tuple(v)
            span = self.spans.get(key)
            if span is None:
                path, at = (self.path, v[1:]) if tag == "S" else (v[1], v[2:])
                if len(at) != 4 or path.__class__ is not str:
                    raise ValueError("not a span")
                line, column, end_line, end_column = at
                if not (line.__class__ is int and column.__class__ is int and end_line.__class__ is int
                        and end_column.__class__ is int):
                    raise ValueError("not a span")
                if tag == "S" and line and self.shift:
                    line, end_line = line + self.shift, end_line + self.shift
                span = self.spans[key] = self.span(path, line, column, end_line, end_column)
            return span
        raise ValueError(f"not AST data: {tag!r}")


# ---------------------------------------------------------------- files checked without a diagnostic

# What decides a check's result besides the files' text: the checker's own code (every module of
# the front end, cardsmith/dsl and below but _NOT_CHECKER), the grammar and Python's version.
_CHECKED_FORMAT = "1"
_checker_fingerprint: list = []
# Folders of cardsmith/dsl that no check imports (the publisher, the language server, editor
# files): a change there keeps the entries (tests/test_cache_checked.py checks that every module
# a check imports is hashed).
_NOT_CHECKER = ("publish", "lsp", "editors")


def _checker() -> str:
    if not _checker_fingerprint:
        import importlib.resources

        digest = hashlib.sha256(_CHECKED_FORMAT.encode())
        here = Path(__file__).parent
        for file in sorted(here.rglob("*.py")):
            if file.relative_to(here).parts[0] in _NOT_CHECKER:
                continue
            digest.update(file.relative_to(here).as_posix().encode() + b"\0" + file.read_bytes() + b"\0")
        grammar = importlib.resources.files("cardsmith.grammar") / "cardsmith.lark"
        digest.update(b"grammar\0" + grammar.read_bytes())
        digest.update(sys.version.encode())
        _checker_fingerprint.append(digest.hexdigest())
    return _checker_fingerprint[0]


def _checked_entry(path: str, root: str | None, text: str) -> Path | None:
    try:
        where = os.path.realpath(path)
        named = os.path.realpath(root) if root is not None else ""
        return entry("checked", _checker(), path, where, named, text)
    except (OSError, ValueError):
        return None


def _plain_read(path: str) -> bytes | None:
    """The bytes of the regular file at `path` if it may be a rules file (dsl/bounds.py
    MAX_FILE_BYTES at most), else None: the full check reads it again and reports why."""
    from .bounds import MAX_FILE_BYTES

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
                     | getattr(os, "O_BINARY", 0))
    except (OSError, ValueError):
        return None
    try:
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return None
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    return data if len(data) <= MAX_FILE_BYTES else None


def checked_ok(path: str, root: str | None = None) -> bool:
    """Whether the file at `path` (checked with `root`, see dsl/loader.py check_file) was checked
    before without a single diagnostic, and neither it, nor any file it includes, nor the
    checker has changed since: `cardsmith check` then says "ok" without parsing or checking
    (nor importing the front end). The entry is plain JSON: the files the game read besides its
    own, each as the path its `extends` / `import` named (joined to the including file's folder),
    where that path led, and the SHA-256 of the text read there. Anything unexpected is a miss."""
    data = _plain_read(path)
    if data is None:
        return False
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    where = _checked_entry(path, root, text)
    if where is None:
        return False
    stored = _stored(where, path)
    if stored is None or not isinstance(stored.get("files"), list):
        return False
    try:
        for item in stored["files"]:
            if not (isinstance(item, list) and len(item) == 3 and all(isinstance(x, str) for x in item)):
                return False
            joined, target, digest = item
            if str(Path(joined).resolve()) != target:
                return False            # a link that now leads elsewhere
            included = _plain_read(target)
            if included is None or hashlib.sha256(included).hexdigest() != digest:
                return False
    except Exception:               # a damaged or foreign entry, an unreadable file: a miss
        return False
    try:
        os.utime(where)             # recently used: the last to be evicted
    except OSError:
        pass
    return True


def save_checked(path: str, root: str | None, text: str, files: list) -> None:
    """Remember that the file at `path`, whose text is `text`, checked without a diagnostic with
    the included `files` [(path as named, path it led to, its text)] (see checked_ok)."""
    where = _checked_entry(path, root, text)
    if where is None:
        return
    import json

    listed = [[joined, target, hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()]
              for joined, target, body in files]
    if write(where, json.dumps({"path": path, "files": listed}, separators=(",", ":")).encode("utf-8")):
        _evict(where.parent, "checked-", MAX_PARSES)


# ---------------------------------------------------------------- what the body checks settled

# A game checked without a diagnostic is played again (`cardsmith play`, `simulate`) without
# running the body checks again: what they leave in the model for the compiler (dsl/model.py
# Declarations: every expression's type and kind, `typing`; param_types; call_types; remembers)
# is kept as plain JSON, each expression named by its file and its place in that file's AST
# (node_order), and put back. Keyed as a checked file is (its text, --root, the checker's code);
# the files it includes must be the same ones with the same text, else the checks run.

_orders: dict = {}          # id(module) -> (module, its nodes in order), for modules read from entries
_ORDERS_KEPT = 64           # the most recently read; an older module's order is walked again


def node_order(module) -> list:
    """Every AST node of `module`, one entry per place it occurs, in a fixed order (depth first,
    each node before its fields, fields in their order): the order load_module makes them in, so
    for a module read from the cache folder the list is already there."""
    kept = _orders.get(id(module))
    if kept is not None and kept[0] is module:
        return kept[1]
    classes = _ast_classes()
    out: list = []
    stack = [module]
    while stack:
        v = stack.pop()
        cls = v.__class__
        if cls is tuple:
            stack.extend(reversed(v))
            continue
        fields = classes.get(cls.__name__)
        if fields is None or fields[0] is not cls:
            continue                    # a span, text, a number, none
        out.append(v)
        if len(out) > _MAX_NODES:
            raise _NotPlain("too many nodes")
        stack.extend(getattr(v, name) for name in reversed(fields[1]))
    return out


_MAX_NODES = 2_000_000


def _plain(v):
    """A type, an instance key or a table of them (strings, numbers, none, tuples, dicts) as JSON."""
    cls = v.__class__
    if v is None or cls is str or cls is int or cls is bool:
        return v
    if cls is tuple:
        return ["T", *[_plain(x) for x in v]]
    if cls is dict:
        return ["D", *[[_plain(k), _plain(x)] for k, x in v.items()]]
    raise _NotPlain(cls.__name__)


def _unplain(v):
    cls = v.__class__
    if v is None or cls is str or cls is int or cls is bool:
        return v
    if cls is list and v and v[0] == "T":
        return tuple([_unplain(x) for x in v[1:]])
    if cls is list and v and v[0] == "D":
        out = {}
        for pair in v[1:]:
            if pair.__class__ is not list or len(pair) != 2:
                raise ValueError("not a table")
            out[_unplain(pair[0])] = _unplain(pair[1])
        return out
    raise ValueError("not settled data")


def _settled_entry(path: str, root: str | None, text: str) -> Path | None:
    try:
        where = os.path.realpath(path)
        named = os.path.realpath(root) if root is not None else ""
        return entry("settled", _checker(), path, where, named, text)
    except (OSError, ValueError):
        return None


def save_settled(path: str, root: str | None, text: str, files: list, modules: list, decls) -> None:
    """Keep what the body checks left in `decls` for the game at `path` (text `text`), checked
    without a diagnostic; `files`: the included files as check_source lists them, `modules`: the
    AST of each file read, the game's own first. Nothing is kept when an expression with a type
    is not found in those ASTs."""
    where = _settled_entry(path, root, text)
    if where is None:
        return
    import json

    try:
        places: dict = {}
        for number, module in enumerate(modules):
            for i, node in enumerate(node_order(module)):
                places.setdefault(id(node), []).append([number, i])

        plain: dict = {}        # the same instances and types recur thousands of times

        def once(v):
            found = plain.get(v, plain)
            if found is plain:
                found = plain[v] = _plain(v)
            return found

        def table(found: dict) -> list:
            rows = []
            for (instance, key), value in found.items():
                at = places.get(key)
                if at is None:
                    raise _NotPlain("a typed expression outside the files' ASTs")
                rows.append([once(instance), at, once(value)])
            return rows

        data = {"path": path,
                "files": [[joined, target, hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()]
                          for joined, target, body in files],
                "types": table(decls.typing.types), "kinds": table(decls.typing.kinds),
                "param_types": _plain(decls.param_types), "call_types": _plain(decls.call_types),
                "remembers": bool(decls.remembers)}
        encoded = json.dumps(data, separators=(",", ":")).encode("utf-8")
    except (_NotPlain, RecursionError, ValueError, TypeError):
        return
    if write(where, encoded):
        _evict(where.parent, "settled-", MAX_PARSES)


def _stored(where, path: str) -> dict | None:
    """The JSON entry at `where` kept for the file at `path`; None when it is unreadable, damaged
    or written for another file (checked_ok and load_settled read theirs so)."""
    import json

    try:
        with open(where, "rb") as fh:
            stored = json.loads(fh.read())
    except Exception:               # a damaged or foreign entry: a miss
        return None
    return stored if isinstance(stored, dict) and stored.get("path") == path else None


def load_settled(path: str, root: str | None, text: str):
    """A function `settle(decls, files, modules) -> bool` that puts back what the body checks
    left for this game when it was checked without a diagnostic (save_settled), if the same files
    are read again (`files`, `modules` as save_settled takes them); None when nothing is kept.
    It returns False, having changed nothing, when anything does not fit: the checks then run."""
    where = _settled_entry(path, root, text)
    if where is None:
        return None
    stored = _stored(where, path)
    if stored is None:
        return None

    def settle(decls, files: list, modules: list) -> bool:
        try:
            listed = [[joined, target, hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()]
                      for joined, target, body in files]
            if listed != stored["files"]:
                return False
            orders = [node_order(m) for m in modules]

            def table(rows) -> dict:
                out = {}
                for instance, at, value in rows:
                    instance, value = _unplain(instance), _unplain(value)
                    for number, i in at:
                        if i.__class__ is not int or number.__class__ is not int or i < 0 or number < 0:
                            raise ValueError("not a place")
                        out[(instance, id(orders[number][i]))] = value
                return out

            types, kinds = table(stored["types"]), table(stored["kinds"])
            param_types, call_types = _unplain(stored["param_types"]), _unplain(stored["call_types"])
            remembers = stored["remembers"]
            if not (param_types.__class__ is dict and call_types.__class__ is dict and remembers.__class__ is bool):
                return False
        except Exception:           # a damaged or foreign entry: the checks run
            return False
        decls.typing.types.update(types)
        decls.typing.kinds.update(kinds)
        decls.param_types = param_types
        decls.call_types = call_types
        decls.remembers = decls.remembers or remembers
        settle.applied = True
        try:
            os.utime(where)
        except OSError:
            pass
        return True

    return settle
