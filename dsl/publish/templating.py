"""The rulebook's templates, safe to take from a stranger.

* Jinja's `SandboxedEnvironment` (no Python internals, `range` at most 100,000 long), with
  autoescaping for HTML and StrictUndefined, plus bounds on the operators that make big values
  at once: `"x" * 10**10`, `9 ** 9 ** 9`, a text added to itself.
* `FolderLoader`: a template is a regular file inside a templates folder (a link may not lead
  out of it: `book.md.j2 -> /etc/shadow` would print the file into the book), at most
  `MAX_TEMPLATE_BYTES`, UTF-8.
* `render`: runs in a child process (`apart.in_child`: `TEMPLATE_SECONDS`, `TEMPLATE_MEMORY`)
  and stops at `MAX_TEMPLATE_OUTPUT` characters. Every failure is a located `PublishError`
  (errors.py): the template's file and line, whatever Python exception the template caused.
"""
from __future__ import annotations

import os
import stat
import traceback
from pathlib import Path

from jinja2 import BaseLoader, StrictUndefined, TemplateNotFound, TemplateSyntaxError
from jinja2.loaders import split_template_path
from jinja2.sandbox import SandboxedEnvironment, SecurityError

from ..bounds import MAX_TEMPLATE_BYTES, MAX_TEMPLATE_OUTPUT, PUBLISH_FRAMES, TEMPLATE_MEMORY, TEMPLATE_SECONDS
from . import apart
from . import errors as X

MAX_NUMBER_BITS = 10_000        # a number a template computes: about 3,000 digits


class TemplateFileError(Exception):
    """A template file that may not be read (where, and why)."""

    def __init__(self, path: str, message: str, hint: str, line: int = 1, column: int = 1, quote: bool = False):
        super().__init__(message)
        self.path, self.message, self.hint, self.line, self.column = path, message, hint, line, column
        self.quote = quote          # whether its line may be shown (only a regular file's, in the folder)


class TooMuchOutput(Exception):
    """The page passed MAX_TEMPLATE_OUTPUT characters."""


# ---------------------------------------------------------------- reading templates


def _inside(root: str, path: str) -> bool:
    return os.path.commonpath([root, path]) == root


def _utf8_error(path: str, data: bytes, err: UnicodeDecodeError) -> TemplateFileError:
    line_start = data.rfind(b"\n", 0, err.start) + 1
    line = data.count(b"\n", 0, err.start) + 1
    column = len(data[line_start:err.start].decode("utf-8", "replace")) + 1
    return TemplateFileError(path, f"this template is not UTF-8 text (byte 0x{data[err.start]:02x})",
                             "save the file as UTF-8 in your editor", line, column, quote=True)


class FolderLoader(BaseLoader):
    """Templates from the folders given, the first that has the name winning (a designer's
    folder before the package's own), read as the module says."""

    def __init__(self, folders: list[str]):
        self.folders = [str(f) for f in folders]
        self.files: set[str] = set()        # every template file read, for locating errors

    def path_of(self, name: str) -> str:
        """Where template `name` is (or would be): for errors that know no better line."""
        try:
            pieces = split_template_path(name)
        except TemplateNotFound:
            return name
        for folder in self.folders:
            path = os.path.join(folder, *pieces)
            if os.path.lexists(path):
                return path
        return os.path.join(self.folders[-1], *pieces)

    def get_source(self, environment, template: str):
        pieces = split_template_path(template)      # refuses '..'
        for folder in self.folders:
            path = os.path.join(folder, *pieces)
            if os.path.lexists(path):
                text = self._read(folder, path)
                self.files.add(path)
                return text, path, lambda: True
        raise TemplateNotFound(template)

    @staticmethod
    def _read(folder: str, path: str) -> str:
        root, real = os.path.realpath(folder), os.path.realpath(path)
        if not _inside(root, real):
            raise TemplateFileError(path, "this template is a link that leads out of its templates folder",
                                    "copy the file into the templates folder instead of linking to it")
        try:
            info = os.stat(real)
        except OSError as err:
            raise TemplateFileError(path, f"this template cannot be read ({err.strerror})",
                                    "check that the file exists and can be read") from None
        if not stat.S_ISREG(info.st_mode):
            raise TemplateFileError(path, "this template is not a regular file",
                                    "a template is a text file; folders, devices and pipes are refused")
        if info.st_size > MAX_TEMPLATE_BYTES:
            raise TemplateFileError(path, f"this template is larger than {MAX_TEMPLATE_BYTES:,} bytes "
                                          "(the bound MAX_TEMPLATE_BYTES)", "split it with {% include %}")
        try:
            with open(real, "rb") as f:
                data = f.read(MAX_TEMPLATE_BYTES + 1)
        except OSError as err:
            raise TemplateFileError(path, f"this template cannot be read ({err.strerror})",
                                    "check that the file can be read") from None
        if len(data) > MAX_TEMPLATE_BYTES:
            raise TemplateFileError(path, f"this template is larger than {MAX_TEMPLATE_BYTES:,} bytes "
                                          "(the bound MAX_TEMPLATE_BYTES)", "split it with {% include %}")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise _utf8_error(path, data, err) from None


# ---------------------------------------------------------------- the sandbox


def _size(value) -> int | None:
    return len(value) if isinstance(value, (str, list, tuple)) else None


def _bits(value) -> int:
    return abs(value).bit_length() if isinstance(value, int) else 0


class BoundedSandbox(SandboxedEnvironment):
    """Jinja's sandbox, and the operators that can make a huge value in one step bounded."""

    intercepted_binops = frozenset({"*", "**", "+"})

    def call_binop(self, context, operator, left, right):
        if operator == "**" and isinstance(left, int) and isinstance(right, int) and abs(left) > 1 \
                and right > 0 and right * _bits(left) > MAX_NUMBER_BITS:
            raise SecurityError(f"{left} ** {right} would be a number of more than {MAX_NUMBER_BITS:,} bits")
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                if _size(seq) is not None and isinstance(times, int) and _size(seq) * times > MAX_TEMPLATE_OUTPUT:
                    raise SecurityError(f"repeating a value {times:,} times would make it longer than "
                                        f"{MAX_TEMPLATE_OUTPUT:,} (the bound MAX_TEMPLATE_OUTPUT)")
            if isinstance(left, int) and isinstance(right, int) and _bits(left) + _bits(right) > MAX_NUMBER_BITS:
                raise SecurityError(f"the product would be a number of more than {MAX_NUMBER_BITS:,} bits")
        if operator == "+" and _size(left) is not None and _size(right) is not None \
                and _size(left) + _size(right) > MAX_TEMPLATE_OUTPUT:
            raise SecurityError(f"the sum would be longer than {MAX_TEMPLATE_OUTPUT:,} (the bound MAX_TEMPLATE_OUTPUT)")
        return super().call_binop(context, operator, left, right)


def environment(folders: list, filters: dict) -> BoundedSandbox:
    """The sandboxed environment over `folders` (searched in order) with the book's filters."""
    env = BoundedSandbox(
        loader=FolderLoader(folders),
        autoescape=lambda name: bool(name) and name.endswith((".html.j2", ".html")),
        undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters.update(filters)
    return env


# ---------------------------------------------------------------- rendering, and its errors


def _template_line(tb, files: set[str]) -> tuple[str, int] | None:
    """The innermost template file and line in a traceback: a frame of a template's compiled
    code (its Python line mapped back), or a frame Jinja rewrote to show the template line."""
    found = None
    for frame, lineno in traceback.walk_tb(tb):
        template = frame.f_globals.get("__jinja_template__")
        if template is not None and template.filename:
            found = (template.filename, template.get_corresponding_lineno(lineno))
        elif frame.f_code.co_filename in files:
            found = (frame.f_code.co_filename, lineno)
    return found


def _frame_line(frame, files: set[str]) -> tuple[str, int] | None:
    """The innermost template file and line on a thread's stack, from its top frame."""
    while frame is not None:
        template = frame.f_globals.get("__jinja_template__")
        if template is not None and template.filename:
            return template.filename, template.get_corresponding_lineno(frame.f_lineno)
        if frame.f_code.co_filename in files:
            return frame.f_code.co_filename, frame.f_lineno
        frame = frame.f_back
    return None


def _generator_line(gen) -> tuple[str, int] | None:
    """Where a template generator stands now (the innermost template it is inside)."""
    found = None
    while gen is not None:
        frame = getattr(gen, "gi_frame", None)
        if frame is not None:
            template = frame.f_globals.get("__jinja_template__")
            if template is not None and template.filename:
                found = (template.filename, template.get_corresponding_lineno(frame.f_lineno))
        gen = getattr(gen, "gi_yieldfrom", None)
    return found


def _error(code: str, message: str, where: tuple[str, int] | None, default: str, hint: str | None,
           column: int = 1, quote: bool = True) -> dict:
    path, line = where if where else (default, 1)
    return {"code": code, "message": message, "path": path, "line": line, "column": column, "hint": hint,
            "quote": quote}


def _describe(exc: BaseException, files: set[str], default: str) -> dict:
    """A failure of the templates as a located error (data: it crosses from the child)."""
    if isinstance(exc, TemplateFileError):
        return _error(X.TEMPLATE_FILE, exc.message, (exc.path, exc.line), default, exc.hint, exc.column, exc.quote)
    if isinstance(exc, TemplateSyntaxError):
        where = (exc.filename, exc.lineno or 1) if exc.filename else None
        return _error(X.TEMPLATE_SYNTAX, f"template error: {exc.message}", where, default,
                      "see https://jinja.palletsprojects.com/templates/ for the template language")
    where = _template_line(exc.__traceback__, files)
    if isinstance(exc, TooMuchOutput):
        return _error(X.TEMPLATE_OUTPUT, f"the rulebook page grew past {MAX_TEMPLATE_OUTPUT:,} characters "
                      "(the bound MAX_TEMPLATE_OUTPUT)", exc.args[0] if exc.args else None, default,
                      "a loop in the template repeats too much")
    if isinstance(exc, apart.Alarm):
        where = _frame_line(exc.frame, files) or where
        return _error(X.TEMPLATE_LIMITS, f"the templates took longer than {TEMPLATE_SECONDS:g} seconds "
                      "(the bound TEMPLATE_SECONDS)", where, default, "a loop in the template runs too long")
    if isinstance(exc, MemoryError):
        return _error(X.TEMPLATE_LIMITS, f"the templates needed more than {TEMPLATE_MEMORY:,} bytes of memory "
                      "(the bound TEMPLATE_MEMORY)", where, default, "a value in the template grows too large")
    if isinstance(exc, RecursionError):
        return _error(X.TEMPLATE_FAILED, "template error: macros call each other too deeply (more than "
                      f"{PUBLISH_FRAMES:,} frames, the bound PUBLISH_FRAMES)", where, default,
                      "a macro that calls itself needs a condition that stops it")
    if isinstance(exc, TemplateNotFound):
        return _error(X.TEMPLATE_FAILED, f"template error: no template named '{exc.name}'", where, default,
                      "templates are looked up in --templates and then among cardsmith's own")
    text = str(exc)[:300] or type(exc).__name__
    kind = "" if isinstance(exc, (SecurityError,)) or type(exc).__module__.startswith("jinja2") \
        else f"{type(exc).__name__}: "
    return _error(X.TEMPLATE_FAILED, f"template error: {kind}{text}", where, default, _HINTS.get(type(exc)))


_HINTS = {
    ZeroDivisionError: "check the divisor before dividing",
    OverflowError: "a number or a range in the template is too large",
    SecurityError: "templates may only use the book's data, not Python's internals",
}


def _render_here(env: BoundedSandbox, name: str, context: dict) -> str | dict:
    """Render in this process (the child), counting the output as it comes."""
    loader: FolderLoader = env.loader
    default = loader.path_of(name)
    gen = None
    try:
        gen = env.get_template(name).generate(**context)
        parts, size = [], 0
        for chunk in gen:
            size += len(chunk)
            if size > MAX_TEMPLATE_OUTPUT:
                raise TooMuchOutput(_generator_line(gen))
            parts.append(chunk)
        return "".join(parts)
    except BaseException as exc:  # noqa: BLE001 - every failure of a template is reported, located
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return _describe(exc, loader.files, default)


def render(folders: list, filters: dict, name: str, context: dict) -> str:
    """Template `name` rendered with `context`, in a bounded child; a located PublishError if
    it fails."""
    env = environment(folders, filters)
    default = env.loader.path_of(name)

    def on_alarm(alarm: BaseException) -> dict:
        return _describe(alarm, env.loader.files, default)

    try:
        # the child forks from here; inside it the template gets deep()'s room for macros
        result = apart.in_child(lambda: apart.deep(_render_here, env, name, context), on_alarm)
    except apart.ChildLimit as limit:
        if limit.what == "time":
            raise X.at(X.TEMPLATE_LIMITS, f"the templates took longer than {TEMPLATE_SECONDS:g} seconds "
                       "(the bound TEMPLATE_SECONDS) and were stopped", default,
                       hint="a loop in the template runs too long") from None
        raise X.at(X.TEMPLATE_LIMITS, f"the templates needed more than {TEMPLATE_MEMORY:,} bytes of memory "
                   "(the bound TEMPLATE_MEMORY) and were stopped", default,
                   hint="a value in the template grows too large") from None
    if isinstance(result, dict):
        raise X.at(result["code"], result["message"], result["path"], result["line"], result["column"],
                   result["hint"], result["quote"])
    return result


def package_folder() -> Path:
    return Path(__file__).resolve().parent / "templates"


def copy_defaults(target: Path) -> list[tuple[Path, bool]]:
    """Copy the built-in templates into `target` for a designer to change (`cardsmith rulebook
    --print-templates DIR`); a file already there is kept. Returns (path, copied) per template."""
    target.mkdir(parents=True, exist_ok=True)
    out = []
    for source in sorted(package_folder().iterdir()):
        if not source.is_file() or source.name.startswith("."):
            continue
        path = target / source.name
        if path.exists():
            out.append((path, False))
            continue
        path.write_bytes(source.read_bytes())
        out.append((path, True))
    return out
