"""`cardsmith lsp`: the language server, on stdio (pygls).

Diagnostics as you type are the checker's own (`dsl.loader.check_source` on the editor's
text, with the game's folder for its imports), turned into LSP's by `convert.to_lsp`: the
objects `cardsmith check` renders. Everything else reads the index of the text
(dsl/lsp/index.py) and, for types and card values, the last game that checked
(dsl/lsp/features.py).

A designer's file is half-typed most of the time, so no request may bring the server down:
every handler catches what goes wrong, logs it to the editor and answers "nothing".
"""
from __future__ import annotations

import asyncio
import functools
import logging
import os
from dataclasses import dataclass

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from ..bounds import MAX_INCLUDED_FILES
from ..diagnostics import DiagnosticSink
from ..loader import check_source
from ..source import Source
from . import features
from .convert import from_position, position, to_lsp
from .index import FileIndex, Project, build

_NAME = "cardsmith"
DEBOUNCE_S = 0.15       # a check of the text starts once typing pauses this long


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cardsmith")
    except PackageNotFoundError:      # run from a checkout that is not installed
        return "0"


@dataclass
class _Checked:
    version: int | None
    project: Project
    facts: features.GameFacts


class CardsServer(LanguageServer):
    """The server's state: per open file, its last index and the last game that checked."""

    def __init__(self):
        super().__init__(_NAME, _version(), text_document_sync_kind=T.TextDocumentSyncKind.Incremental)
        self.checked: dict[str, _Checked] = {}
        self.games: dict[str, object] = {}                 # uri -> last game that checked
        self.published: dict[str, set[str]] = {}           # uri -> uris it published diagnostics to
        self.pending: dict[str, asyncio.Task] = {}         # uri -> its check waiting to run

    # ------------------------------------------------------------ documents

    def path_of(self, uri: str) -> str:
        path = to_fs_path(uri) if uri.startswith("file:") else None
        return path or uri

    def text_of(self, uri: str) -> str:
        return self.workspace.get_text_document(uri).source

    @property
    def encoding(self) -> str:
        enc = getattr(self.server_capabilities, "position_encoding", None)
        return str(getattr(enc, "value", enc) or "utf-16")

    def project(self, uri: str) -> Project:
        """The index of the open file and of the files it includes (open ones as typed)."""
        doc = self.workspace.get_text_document(uri)
        cached = self.checked.get(uri)
        if cached is not None and cached.version == doc.version:
            return cached.project
        path = self.path_of(uri)
        root = build(path, doc.source)
        files = {path: root}
        self._include(root, files)
        project = Project(root, files)
        texts = {p: f.text for p, f in files.items()}
        self.checked[uri] = _Checked(doc.version, project, features.GameFacts(self.games.get(uri), texts))
        return project

    def _include(self, index: FileIndex, files: dict, home: str | None = None) -> None:
        """Index the files `index` imports or extends, as the loader would read them: only
        .cards files in the game's folder or below (E0905 otherwise), at most MAX_INCLUDED_FILES."""
        folder = os.path.dirname(index.path)
        home = home or os.path.realpath(folder)
        for written, _ in index.includes:
            if len(files) >= MAX_INCLUDED_FILES:
                return
            target = os.path.normpath(os.path.join(folder, written))
            real = os.path.realpath(target)
            if target in files or not real.endswith(".cards") or not real.startswith(home + os.sep):
                continue
            text = self._read(target)
            if text is None:
                continue
            sub = build(target, text)
            files[target] = sub
            self._include(sub, files, home)

    def _read(self, path: str) -> str | None:
        """An included file as the editor has it, else from disk (within the loader's bounds)."""
        uri = from_fs_path(path)
        if uri in self.workspace.text_documents:
            return self.workspace.text_documents[uri].source
        from ..loader import _read

        read = _read(path, DiagnosticSink(), None)
        return read[0].text if read else None

    def facts(self, uri: str) -> features.GameFacts:
        self.project(uri)
        return self.checked[uri].facts

    # ------------------------------------------------------------ diagnostics

    def schedule_check(self, uri: str, delay: float = DEBOUNCE_S) -> None:
        """Check the file once typing pauses for `delay` seconds, in a worker thread, so that
        a long check (a big game with its scenarios takes most of a second) neither runs at
        every keystroke nor keeps hover and completion waiting."""
        pending = self.pending.pop(uri, None)
        if pending is not None:
            pending.cancel()
        self.pending[uri] = asyncio.get_running_loop().create_task(self._check_later(uri, delay))

    async def _check_later(self, uri: str, delay: float) -> None:
        try:
            await asyncio.sleep(delay)
            doc = self.workspace.get_text_document(uri)
            text, version = doc.source, doc.version
            result = await asyncio.to_thread(check_source, Source(self.path_of(uri), text))
            if self.workspace.get_text_document(uri).version == version:    # else a newer check comes
                self.publish(uri, text, version, *result)
        except asyncio.CancelledError:
            raise
        except Exception as exc:   # a check must never take the server down
            _log_failure(self, "check", exc)

    def publish(self, uri: str, text: str, version, game, diagnostics, sources) -> None:
        """Publish the checker's diagnostics, per file (an imported file's under its own name)."""
        path = self.path_of(uri)
        if game is not None:
            self.games[uri] = game
            self.checked.pop(uri, None)
        by_uri: dict[str, list] = {uri: []}
        for d in diagnostics:
            elsewhere = d.span.path != path and os.path.isabs(d.span.path)     # an imported file
            target = (from_fs_path(d.span.path) or uri) if elsewhere else uri
            source = sources.get(d.span.path)
            shown = source.text if source is not None and target != uri else text
            by_uri.setdefault(target, []).append(to_lsp(d, shown, self.encoding))
        for stale in self.published.get(uri, set()) - set(by_uri):
            self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=stale, diagnostics=[]))
        self.published[uri] = set(by_uri)
        for target, items in by_uri.items():
            self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
                uri=target, diagnostics=items, version=version if target == uri else None))

    def where(self, uri: str, pos: T.Position) -> tuple[str, int, int]:
        line, column = from_position(self.text_of(uri), pos, self.encoding)
        return self.path_of(uri), line, column

    def location(self, project: Project, path: str, line: int, column: int, end_column: int) -> T.Location:
        f = project.files.get(path)
        text = f.text if f else ""
        return T.Location(uri=from_fs_path(path) if os.path.isabs(path) else path,
                          range=T.Range(position(text, line, column, self.encoding),
                                        position(text, line, end_column, self.encoding)))


server = CardsServer()


def _log_failure(ls: CardsServer, what: str, exc: Exception) -> None:
    logging.getLogger(__name__).error("cardsmith lsp: %s failed", what, exc_info=exc)
    try:
        ls.window_log_message(T.LogMessageParams(
            type=T.MessageType.Error, message=f"cardsmith: {what} failed: {type(exc).__name__}: {exc}"))
    except Exception:
        pass


def _guarded(default=None):
    """A handler that never brings the server down: what goes wrong is logged to the editor."""
    def wrap(handler):
        @functools.wraps(handler)
        def run(ls: CardsServer, params):
            try:
                return handler(ls, params)
            except Exception as exc:   # a half-typed file must never crash the server
                _log_failure(ls, handler.__name__, exc)
                return default
        return run
    return wrap


@server.feature(T.TEXT_DOCUMENT_DID_OPEN)
@_guarded()
def did_open(ls: CardsServer, params: T.DidOpenTextDocumentParams):
    ls.schedule_check(params.text_document.uri, 0)


@server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
@_guarded()
def did_change(ls: CardsServer, params: T.DidChangeTextDocumentParams):
    ls.schedule_check(params.text_document.uri)


@server.feature(T.TEXT_DOCUMENT_DID_SAVE)
@_guarded()
def did_save(ls: CardsServer, params: T.DidSaveTextDocumentParams):
    ls.schedule_check(params.text_document.uri, 0)     # an imported file may have changed on disk


@server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
@_guarded()
def did_close(ls: CardsServer, params: T.DidCloseTextDocumentParams):
    uri = params.text_document.uri
    pending = ls.pending.pop(uri, None)
    if pending is not None:
        pending.cancel()
    for target in ls.published.pop(uri, {uri}):
        ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=target, diagnostics=[]))
    ls.checked.pop(uri, None)
    ls.games.pop(uri, None)


@server.feature(T.TEXT_DOCUMENT_HOVER)
@_guarded()
def hover(ls: CardsServer, params: T.HoverParams):
    uri = params.text_document.uri
    path, line, column = ls.where(uri, params.position)
    text = features.hover(ls.project(uri), ls.facts(uri), path, line, column)
    if text is None:
        return None
    return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=text))


@server.feature(T.TEXT_DOCUMENT_DEFINITION)
@_guarded(default=[])
def definition(ls: CardsServer, params: T.DefinitionParams):
    uri = params.text_document.uri
    project = ls.project(uri)
    found = features.definitions(project, *ls.where(uri, params.position))
    return [ls.location(project, s.path, s.line, s.column, s.end_column) for s in found]


@server.feature(T.TEXT_DOCUMENT_REFERENCES)
@_guarded(default=[])
def references(ls: CardsServer, params: T.ReferenceParams):
    uri = params.text_document.uri
    project = ls.project(uri)
    found = features.references(project, *ls.where(uri, params.position),
                                declaration=params.context.include_declaration)
    return [ls.location(project, o.path, o.line, o.column, o.end_column) for o in found]


@server.feature(T.TEXT_DOCUMENT_PREPARE_RENAME)
@_guarded()
def prepare_rename(ls: CardsServer, params: T.PrepareRenameParams):
    uri = params.text_document.uri
    path, line, column = ls.where(uri, params.position)
    project = ls.project(uri)
    occ = project.occurrence_at(path, line, column)
    if occ is None or not features.definitions(project, path, line, column):
        return None
    return ls.location(project, occ.path, occ.line, occ.column, occ.end_column).range


@server.feature(T.TEXT_DOCUMENT_RENAME)
def rename(ls: CardsServer, params: T.RenameParams):
    uri = params.text_document.uri
    project = ls.project(uri)
    try:
        edits = features.rename(project, *ls.where(uri, params.position), params.new_name)
    except features.RenameRefused:
        raise       # answered as an error the editor shows ("... is a word of the language")
    except Exception:
        logging.getLogger(__name__).exception("cardsmith lsp: rename failed")
        return None
    changes = {}
    for path, items in edits.items():
        target = from_fs_path(path) if os.path.isabs(path) else path
        changes[target] = [T.TextEdit(range=ls.location(project, o.path, o.line, o.column, o.end_column).range,
                                      new_text=text) for o, text in items]
    return T.WorkspaceEdit(changes=changes)


@server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=["."]))
@_guarded()
def completion(ls: CardsServer, params: T.CompletionParams):
    uri = params.text_document.uri
    items = features.completions(ls.project(uri), *ls.where(uri, params.position))
    return T.CompletionList(is_incomplete=False, items=items)


@server.feature(T.TEXT_DOCUMENT_CODE_ACTION,
                T.CodeActionOptions(code_action_kinds=[T.CodeActionKind.QuickFix]))
@_guarded(default=[])
def code_action(ls: CardsServer, params: T.CodeActionParams):
    """The checker's "did you mean 'x'?" hints, offered as a fix of the name they are about."""
    uri = params.text_document.uri
    doc = ls.workspace.get_text_document(uri)
    actions = []
    for d in params.context.diagnostics:
        hint = (d.data or {}).get("hint") if isinstance(d.data, dict) else None
        if d.source != _NAME or d.range.start.line != d.range.end.line:
            continue
        name = features.quick_fix(hint, doc.text_in_client_range(d.range))
        if name is None:
            continue
        actions.append(T.CodeAction(
            title=f"Change to '{name}'", kind=T.CodeActionKind.QuickFix, diagnostics=[d], is_preferred=True,
            edit=T.WorkspaceEdit(changes={uri: [T.TextEdit(range=d.range, new_text=name)]})))
    return actions


@server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@_guarded(default=[])
def document_symbol(ls: CardsServer, params: T.DocumentSymbolParams):
    uri = params.text_document.uri
    return features.document_symbols(ls.project(uri), ls.path_of(uri), ls.encoding)


@server.feature(T.TEXT_DOCUMENT_FORMATTING)
@_guarded()
def formatting(ls: CardsServer, params: T.DocumentFormattingParams):
    uri = params.text_document.uri
    text = ls.text_of(uri)
    formatted = features.formatting(text, ls.path_of(uri))
    if formatted is None or formatted == text:
        return [] if formatted is not None else None
    lines = text.split("\n")
    end = position(text, len(lines), len(lines[-1]) + 1, ls.encoding)
    return [T.TextEdit(range=T.Range(T.Position(0, 0), end), new_text=formatted)]


def serve() -> None:
    """Speak LSP on stdin / stdout until the editor says exit."""
    logging.basicConfig(level=logging.WARNING, format="cardsmith lsp: %(message)s")   # on stderr
    server.start_io()
