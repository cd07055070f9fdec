"""`cardsmith lsp` driven over stdio by a real LSP client (pygls' own), through an editing
session: open a game that imports a library, break it, mend it, ask what the names are, rename,
complete, outline and format. Every wait has a timeout, so a hung server fails the test.

The server's diagnostics must be the checker's (`check_source`) rendered by `convert.to_lsp`:
the same objects `cardsmith check` prints.
"""
from __future__ import annotations

import asyncio
import itertools
import os
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types as T
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

from cardsmith.dsl.fmt import format_text
from cardsmith.dsl.loader import check_source
from cardsmith.dsl.lsp import features
from cardsmith.dsl.lsp.convert import from_position, position, span_range, to_lsp
from cardsmith.dsl.lsp.index import Project, build
from cardsmith.dsl.source import Source, Span

ROOT = Path(__file__).resolve().parent.parent
WAIT = 30         # seconds any one answer may take on a busy CI machine

LIB = '''# shared pieces
zone deck: per player, ordered, hidden "Your draw pile."
zone hand: per player, unordered, owner only

procedure refill(p):
    "Draw up to five cards."
    repeat while count(cards in p's hand) < 5 and p's deck is not empty:
        move top card of p's deck to p's hand
'''

GAME = '''import "lib.cards"

game "Editor Test":
    players: 2 to 2
    summary: "A game for the language server test."

enum Colour: red, blue

card type Gem:
    colour: Colour
    worth: number = 1
        "What the gem scores."

player has:
    score: number = 0

zone box: shared, hidden "Gems not yet dealt."

cards Gem in box:
    | name       | colour | worth | copies |
    | "Ruby"     | red    | 3     | 4      |
    | "Sapphire" | blue   | 2     | 4      |

define total(p) as sum(worth of cards in p's hand)

setup:
    shuffle box
    for each p in players:
        repeat 8 times:
            move top card of box to p's deck
        refill(p)

round "Score":
    for each p in players:
        let gained be total(p)
        add gained to p's score
        refill(p)
    if any(players where it's score >= 20):
        first(players where it's score >= 20) wins
'''


def where(text: str, word: str, line_has: str, nth: int = 0) -> T.Position:
    """The LSP position of the `nth` `word` on the first line containing `line_has`."""
    lines = text.split("\n")
    number = next(i for i, line in enumerate(lines) if line_has in line)
    column, start = -1, 0
    for _ in range(nth + 1):
        column = lines[number].index(word, start)
        start = column + 1
    return T.Position(number, column)


class Session:
    """A pygls client talking to `cardsmith lsp` in a child process, collecting diagnostics."""

    def __init__(self, client: LanguageClient):
        self.client = client
        self.diagnostics: dict[str, tuple[int | None, list[T.Diagnostic]]] = {}   # uri -> the last published
        self.arrived = asyncio.Event()
        self.logs: list[str] = []

    async def published(self, uri: str, version: int | None = None) -> list[T.Diagnostic]:
        """The diagnostics published for `uri` (for that version of it, when given)."""
        async def wait():
            while True:
                got = self.diagnostics.pop(uri, None)
                if got is not None and (version is None or got[0] == version):
                    return got[1]
                self.arrived.clear()
                await self.arrived.wait()
        return await asyncio.wait_for(wait(), WAIT)

    async def ask(self, call):
        return await asyncio.wait_for(call, WAIT)


async def _start(folder: Path) -> Session:
    client = LanguageClient("cardsmith-test", "1")
    session = Session(client)

    @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: T.PublishDiagnosticsParams):
        session.diagnostics[params.uri] = (params.version, list(params.diagnostics))
        session.arrived.set()

    @client.feature(T.WINDOW_LOG_MESSAGE)
    def on_log(params: T.LogMessageParams):
        session.logs.append(params.message)

    await client.start_io(sys.executable, "-m", "cardsmith.interpreter.cli", "lsp")
    result = await session.ask(client.initialize_async(T.InitializeParams(
        capabilities=T.ClientCapabilities(), root_uri=from_fs_path(str(folder)), process_id=os.getpid())))
    caps = result.capabilities
    assert caps.hover_provider and caps.definition_provider and caps.references_provider
    assert caps.rename_provider and caps.completion_provider and caps.document_symbol_provider
    assert caps.document_formatting_provider
    client.initialized(T.InitializedParams())
    return session


def _change(client, uri: str, version: int, text: str) -> int:
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[T.TextDocumentContentChangeWholeDocument(text=text)]))
    return version


def _same(server: list[T.Diagnostic], expected: list[T.Diagnostic]) -> None:
    shown = lambda ds: [(d.code, d.range, d.message, d.severity) for d in ds]  # noqa: E731
    assert shown(server) == shown(expected)


def _apply(text: str, edits: list[T.TextEdit]) -> str:
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    def offset(p: T.Position) -> int:
        line, column = from_position(text, p)
        return offsets[line - 1] + column - 1
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


def test_an_editing_session(tmp_path):
    asyncio.run(asyncio.wait_for(_session(tmp_path), 10 * WAIT))


async def _session(tmp_path: Path) -> None:
    (tmp_path / "lib.cards").write_text(LIB, encoding="utf-8")
    game_path = tmp_path / "game.cards"
    game_path.write_text(GAME, encoding="utf-8")
    uri, lib_uri = from_fs_path(str(game_path)), from_fs_path(str(tmp_path / "lib.cards"))
    session = await _start(tmp_path)
    client = session.client
    versions = itertools.count(2)
    try:
        # 1. open a game that checks: no diagnostics
        client.text_document_did_open(T.DidOpenTextDocumentParams(
            text_document=T.TextDocumentItem(uri=uri, language_id="cards", version=1, text=GAME)))
        assert await session.published(uri) == []

        # 2. a misspelt zone: the checker's diagnostic, with its range, code and hint
        broken = GAME.replace("move top card of box to p's deck", "move top card of bx to p's deck")
        got = await session.published(uri, _change(client, uri, next(versions), broken))
        _, diags, _ = check_source(Source(str(game_path), broken))
        _same(got, [to_lsp(d, broken) for d in diags])
        first = got[0]
        assert first.code == "E0201" and first.source == "cardsmith"
        assert first.range.start == where(broken, "bx", "move top card of bx")
        assert first.range.end.character == first.range.start.character + 2
        assert "hint: did you mean 'box'?" in first.message
        # the hint is offered as a quick fix
        actions = await session.ask(client.text_document_code_action_async(T.CodeActionParams(
            text_document=T.TextDocumentIdentifier(uri), range=first.range,
            context=T.CodeActionContext(diagnostics=got))))
        assert [a.title for a in actions] == ["Change to 'box'"]
        assert _apply(broken, actions[0].edit.changes[uri]) == GAME

        # 2b. typing fast: the diagnostics that arrive for the last version are the last text's
        for n in range(5):
            fast = GAME.replace("shuffle box", f"shuffle bo{'x' * n}y")
            last = _change(client, uri, next(versions), fast)
        got = await session.published(uri, last)
        _, diags, _ = check_source(Source(str(game_path), fast))
        _same(got, [to_lsp(d, fast) for d in diags])
        assert "'boxxxxy'" in got[0].message

        # 3. a syntax error while typing: reported, and the rest of the file still answers
        typing = GAME.replace("    shuffle box\n", "    shuffle box (\n")
        got = await session.published(uri, _change(client, uri, next(versions), typing))
        _, diags, _ = check_source(Source(str(game_path), typing))
        _same(got, [to_lsp(d, typing) for d in diags])
        assert got[0].code.startswith("E00")
        found = await session.ask(client.text_document_definition_async(T.DefinitionParams(
            text_document=T.TextDocumentIdentifier(uri), position=where(typing, "total", "let gained be total"))))
        assert [loc.range.start for loc in found] == [where(typing, "total", "define total")]

        # 4. mended: the diagnostics are cleared
        assert await session.published(uri, _change(client, uri, next(versions), GAME)) == []

        # 4b. an error in the imported file is published for that file, and cleared when mended
        (tmp_path / "lib.cards").write_text(LIB.replace("p's deck is not empty", "p's dek is not empty"),
                                            encoding="utf-8")
        assert await session.published(uri, _change(client, uri, next(versions), GAME)) == []
        in_lib = await session.published(lib_uri)
        assert [d.code for d in in_lib] == ["E0206"] and in_lib[0].range.start.line == 6     # unknown zone
        (tmp_path / "lib.cards").write_text(LIB, encoding="utf-8")
        assert await session.published(uri, _change(client, uri, next(versions), GAME)) == []
        assert await session.published(lib_uri) == []

        # 5. hover: a zone declared in the imported file, a field with its doc, a define's type, a card
        doc = T.TextDocumentIdentifier(uri)
        hover = await session.ask(client.text_document_hover_async(T.HoverParams(
            text_document=doc, position=where(GAME, "deck", "move top card of box to p's deck"))))
        assert 'zone deck: per player, ordered, hidden "Your draw pile."' in hover.contents.value
        assert "Your draw pile." in hover.contents.value.split("```")[-1]
        hover = await session.ask(client.text_document_hover_async(T.HoverParams(
            text_document=doc, position=where(GAME, "worth", "sum(worth"))))
        assert "worth: number = 1" in hover.contents.value and "field of Gem" in hover.contents.value
        assert "What the gem scores." in hover.contents.value
        hover = await session.ask(client.text_document_hover_async(T.HoverParams(
            text_document=doc, position=where(GAME, "total", "let gained be total"))))
        assert "define" in hover.contents.value and "gives a number" in hover.contents.value
        hover = await session.ask(client.text_document_hover_async(T.HoverParams(
            text_document=doc, position=where(GAME, "gained", "add gained"))))
        assert "local" in hover.contents.value and "a number" in hover.contents.value
        hover = await session.ask(client.text_document_hover_async(T.HoverParams(
            text_document=doc, position=where(GAME, "Ruby", '"Ruby"'))))
        assert "Gem in box, 4 copies" in hover.contents.value and "| worth | 3 |" in hover.contents.value
        nothing = await session.ask(client.text_document_hover_async(T.HoverParams(
            text_document=doc, position=where(GAME, "shuffle", "shuffle box"))))
        assert nothing is None

        # 6. go to definition across files
        found = await session.ask(client.text_document_definition_async(T.DefinitionParams(
            text_document=doc, position=where(GAME, "refill", "        refill(p)"))))
        assert [(loc.uri, loc.range.start) for loc in found] == [(lib_uri, where(LIB, "refill", "procedure refill"))]

        # 7. find references: every use of the zone `deck`, in both files
        refs = await session.ask(client.text_document_references_async(T.ReferenceParams(
            text_document=doc, position=where(GAME, "deck", "to p's deck"),
            context=T.ReferenceContext(include_declaration=True))))
        assert sorted((r.uri == lib_uri, r.range.start.line) for r in refs) == [
            (False, 29), (True, 1), (True, 6), (True, 7)]

        # 8. completion after `p's`: the per-player zones and the player attributes
        typed = GAME.replace("        add gained to p's score\n", "        add gained to p's \n")
        await session.published(uri, _change(client, uri, next(versions), typed))
        listed = await session.ask(client.text_document_completion_async(T.CompletionParams(
            text_document=doc, position=T.Position(where(typed, "p's", "add gained to p's").line, len("        add gained to p's ")))))
        labels = {item.label for item in listed.items}
        assert {"deck", "hand", "score"} <= labels and "box" not in labels and "refill" not in labels
        assert await session.published(uri, _change(client, uri, next(versions), GAME)) == []

        # 9. rename a procedure everywhere; a word of the language is refused
        edit = await session.ask(client.text_document_rename_async(T.RenameParams(
            text_document=doc, position=where(GAME, "refill", "        refill(p)"), new_name="top_up")))
        assert sorted(edit.changes) == sorted([uri, lib_uri])
        renamed = _apply(GAME, edit.changes[uri])
        renamed_lib = _apply(LIB, edit.changes[lib_uri])
        assert renamed.count("top_up(p)") == 2 and "refill" not in renamed + renamed_lib
        assert "procedure top_up(p):" in renamed_lib
        (tmp_path / "lib.cards").write_text(renamed_lib, encoding="utf-8")
        _, diags, _ = check_source(Source(str(game_path), renamed))
        assert diags == []
        with pytest.raises(Exception, match="word of the language"):
            await session.ask(client.text_document_rename_async(T.RenameParams(
                text_document=doc, position=where(GAME, "total", "define total"), new_name="shuffle")))
        (tmp_path / "lib.cards").write_text(LIB, encoding="utf-8")

        # 10. the outline
        outline = await session.ask(client.text_document_document_symbol_async(
            T.DocumentSymbolParams(text_document=doc)))
        names = [(s.name, s.kind) for s in outline]
        assert ("Colour", T.SymbolKind.Enum) in names and ("Gem", T.SymbolKind.Class) in names
        assert ("total", T.SymbolKind.Function) in names and ("Score", T.SymbolKind.Namespace) in names
        gem = next(s for s in outline if s.name == "Gem" and s.kind == T.SymbolKind.Class)
        assert [c.name for c in gem.children] == ["colour", "worth"]

        # 11. formatting is `cardsmith fmt`
        messy = GAME.replace("    players: 2 to 2", "    players:2 to 2").replace("| name       |", "|name|")
        await session.published(uri, _change(client, uri, next(versions), messy))
        edits = await session.ask(client.text_document_formatting_async(T.DocumentFormattingParams(
            text_document=doc, options=T.FormattingOptions(tab_size=4, insert_spaces=True))))
        assert _apply(messy, edits) == format_text(messy) == format_text(GAME)

        # 12. garbage: every request still answers, nothing crashes
        for text in ['game "x', "(((( [[ \n\t)\x00 '\n", "card type :\n  | |\n", ""]:
            await session.published(uri, _change(client, uri, next(versions), text))
            for pos in (T.Position(0, 0), T.Position(0, 3), T.Position(5, 1)):
                await session.ask(client.text_document_hover_async(T.HoverParams(text_document=doc, position=pos)))
                await session.ask(client.text_document_definition_async(T.DefinitionParams(text_document=doc, position=pos)))
                await session.ask(client.text_document_completion_async(T.CompletionParams(text_document=doc, position=pos)))
            await session.ask(client.text_document_document_symbol_async(
                T.DocumentSymbolParams(text_document=doc)))
            await session.ask(client.text_document_formatting_async(T.DocumentFormattingParams(
                text_document=doc, options=T.FormattingOptions(tab_size=4, insert_spaces=True))))
        assert not [m for m in session.logs if "failed" in m], session.logs
    finally:
        await asyncio.wait_for(client.shutdown_async(None), WAIT)
        client.exit(None)
        await asyncio.wait_for(client.stop(), WAIT)


# ---------------------------------------------------------------- the pieces, without a server


def test_positions_count_utf16_units():
    text = 'say "🂡 ace"\nmove x'
    # the card character is one character in a Span and two UTF-16 units in LSP
    rng = span_range(text, Span("g.cards", 1, 8, 1, 11), "utf-16")
    assert (rng.start.character, rng.end.character) == (8, 11)
    assert span_range(text, Span("g.cards", 1, 8, 1, 11), "utf-32").start.character == 7
    assert from_position(text, T.Position(0, 8)) == (1, 8)
    assert position(text, 2, 6) == T.Position(1, 5)


@pytest.mark.parametrize("path", sorted([*ROOT.glob("games/*.cards"), *ROOT.glob("tests/games/*.cards")]),
                         ids=lambda p: p.name)
def test_every_declared_name_of_every_game_is_found_where_it_is_declared(path):
    text = path.read_text(encoding="utf-8")
    index = build(str(path), text)
    project = Project(index, {str(path): index})
    declared = [s for s in index.all_symbols() if s.kind in (
        "zone", "procedure", "define", "event", "enum", "member", "card type", "field", "player attribute",
        "game attribute", "keyword", "die", "card")]
    assert declared or path.name.endswith(".scenarios.cards")
    for s in declared:
        found = features.definitions(project, str(path), s.line, s.column)
        assert any((d.line, d.column) == (s.line, s.column) for d in found), (s.kind, s.name, s.line)
        refs = features.references(project, str(path), s.line, s.column)
        assert any((r.line, r.column) == (s.line, s.column) for r in refs)
        assert all(r.name == s.name for r in refs)


def _project(name: str) -> tuple[Project, str, list[str]]:
    path = ROOT / "tests" / "games" / name if (ROOT / "tests" / "games" / name).exists() else ROOT / "games" / name
    text = path.read_text(encoding="utf-8")
    index = build(str(path), text)
    return Project(index, {str(path): index}), str(path), text.split("\n")


def _defined(project: Project, path: str, lines: list[str], line_has: str, word: str, nth: int = 0):
    """(kind, line) of each declaration the `nth` `word` on the line containing `line_has` names."""
    number = next(i for i, line in enumerate(lines, 1) if line_has in line)
    column = -1
    for _ in range(nth + 1):
        column = lines[number - 1].index(word, column + 1)
    return sorted((s.kind, s.line) for s in features.definitions(project, path, number, column + 1))


def test_what_names_mean_in_abilities_keywords_cards_and_tables():
    project, path, lines = _project("double_shield.cards")
    assert _defined(project, path, lines, "keyword Armour(2)", "Armour") == [("keyword", 15)]
    # in `instead of damage`, the names are the parameters of the procedure `damage`
    assert _defined(project, path, lines, "damage(target, highest", "amount") == [("parameter", 45)]
    assert _defined(project, path, lines, "damage(target, highest", "points") == [("parameter", 15)]
    assert _defined(project, path, lines, "    rank = 5", "rank") == [("field", 21), ("field", 28)]
    assert _defined(project, path, lines, '| name             | rank | halves |', "halves") == [("field", 22)]
    assert _defined(project, path, lines, 'where name = "Heavy Plate"', "Heavy Plate") == [("card", 31)]
    assert _defined(project, path, lines, "subtract amount from target's life", "life") == [("player attribute", 10)]
    assert _defined(project, path, lines, "subtract amount from", "subtract") == []     # a word of the language

    project, path, lines = _project("fleet_split.cards")
    # the names `orders ... as x` and `chooses N of ... as x` give
    assert _defined(project, path, lines, "for each c in order:", "order") == [("local", 56)]
    assert _defined(project, path, lines, "move bought to", "bought") == [("local", 59)]

    project, path, lines = _project("space_war_in_space.cards")
    # in `when battle_won`, `card` is the event's parameter
    assert _defined(project, path, lines, "when battle_won where card = this and leader", "card") == [("parameter", 67)]
    assert _defined(project, path, lines, "announce leader_victory(you, this)", "leader_victory") == [("event", 68)]


def test_a_half_typed_file_still_answers_after_the_line_being_typed():
    text = (ROOT / "tests" / "games" / "double_shield.cards").read_text(encoding="utf-8")
    typing = text.replace("    rank = 5\n", "    rank = (5 +\n", 1)         # an unclosed bracket
    index = build("g.cards", typing)
    project = Project(index, {"g.cards": index})
    lines = typing.split("\n")
    number = next(i for i, line in enumerate(lines, 1) if "subtract amount from target's life" in line)
    found = features.definitions(project, "g.cards", number, lines[number - 1].index("life") + 1)
    assert [(s.kind, s.line) for s in found] == [("player attribute", 10)]
    assert {s.name for s in index.symbols} >= {"damage", "Armour", "Gear", "Plate", "Blows"}


def test_types_by_place_are_only_those_of_the_text_that_checked(tmp_path):
    from cardsmith.dsl.loader import load_game

    path = tmp_path / "game.cards"
    (tmp_path / "lib.cards").write_text(LIB, encoding="utf-8")
    path.write_text(GAME, encoding="utf-8")
    game = load_game(str(path))
    place = where(GAME, "gained", "add gained")
    line, column = place.line + 1, place.character + 1
    assert features.GameFacts(game, {str(path): GAME}).type_at(str(path), line, column) == "a number"
    edited = "\n" + GAME          # every place has moved one line down
    assert features.GameFacts(game, {str(path): edited}).type_at(str(path), line, column) is None


# ---------------------------------------------------------------- any text at all

_SOURCES = [p.read_text(encoding="utf-8") for p in sorted(ROOT.glob("tests/games/*.cards"))[:6]]


def _mangled(seed: int) -> str:
    """A game cut, repeated and salted at random: what an editor holds mid-edit."""
    import random

    rnd = random.Random(seed)
    text = rnd.choice(_SOURCES)
    for _ in range(rnd.randint(1, 6)):
        a, b = sorted(rnd.randrange(len(text) + 1) for _ in range(2))
        move = rnd.random()
        if move < 0.4:
            text = text[:a] + text[b:]                       # a cut
        elif move < 0.7:
            text = text[:a] + text[a:b] * 2 + text[b:]       # a paste
        else:
            text = text[:a] + rnd.choice(['"', '"""', "(", "[", ")", "\t", "é🂡", "\\\n", ":", "'s", "#"]) + text[a:]
    return text


@settings(max_examples=40, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_every_feature_answers_on_any_text(seed):
    text = _mangled(seed)
    index = build("g.cards", text)
    project = Project(index, {"g.cards": index})
    features.document_symbols(project, "g.cards")
    lines = text.split("\n")
    for number in range(1, len(lines) + 1, max(1, len(lines) // 15)):
        for column in (1, len(lines[number - 1]) // 2 + 1, len(lines[number - 1]) + 1):
            features.hover(project, features.GameFacts(None), "g.cards", number, column)
            features.definitions(project, "g.cards", number, column)
            features.references(project, "g.cards", number, column)
            features.completions(project, "g.cards", number, column)
