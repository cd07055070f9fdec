"""Reading a stranger's file is bounded (issue 8, part C): what the loader reads, how many files
and bytes, and the literals a file may write. Each test is a defect the attack campaign found.

Small fixed files live in tests/hostile/files/; files that must be made at run time (named pipes,
links, dozens of files, CR line ends that an editor would convert) are written to tmp_path.
"""
from __future__ import annotations

import os
import signal
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from cardsmith.dsl import loader
from cardsmith.dsl.bounds import (MAX_CARD_COPIES, MAX_CARDS, MAX_INCLUDED_FILES, MAX_NUMBER, MAX_PLAYERS,
                                  MAX_STRING_LENGTH)
from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import check_file, check_source, load_game, load_text
from cardsmith.dsl.parser import parse
from cardsmith.dsl.render import render_all
from cardsmith.dsl.source import Source

FILES = Path(__file__).resolve().parent / "hostile" / "files"
HEAD = 'game "T":\n    players: 2 to 2\n'
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="named pipes, devices and /proc")


class Expired(BaseException):
    """Not an Exception: the loader's and the parser's catch-alls must not swallow it."""


@contextmanager
def deadline(seconds: int):
    """Fail (instead of hanging the suite) if the block blocks, as reading a pipe did."""
    def expired(signum, frame):
        raise Expired(f"still running after {seconds} s")
    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def codes(diags) -> list[str]:
    return [d.code for d in diags]


def write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")


def checked(text: str):
    _, diags, sources = check_source(Source("t.cards", text))
    return diags, sources


# ---------------------------------------------------------------- 1. only .cards files are included

def test_importing_a_secrets_file_is_refused_without_reading_it(monkeypatch):
    opened = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda path, *a, **k: opened.append(str(path)) or real_open(path, *a, **k))
    game = FILES / "frontend_secrets" / "game.cards"
    diags, sources = check_file(str(game))
    assert [(d.code, d.span.line, d.span.column) for d in diags] == [("E0907", 2, 1)]
    assert "'import'" in diags[0].message and ".config/secrets.env" in diags[0].message
    shown = render_all(diags, sources)
    assert "cardsmith-test-key" not in shown and "cardsmith-test-password" not in shown
    assert not any("secrets.env" in path for path in opened)


def test_any_extension_and_extends_are_refused(tmp_path):
    for name in ("notes.txt", "keys", ".cards", "x.cards.bak", "x.CARDS"):
        write(tmp_path, {name: "enum Side: up, down\n",
                         "game.cards": f'extends "{name}"\n' + HEAD})
        diags, _ = check_file(str(tmp_path / "game.cards"))
        assert codes(diags) == ["E0907"], name
        assert "'extends'" in diags[0].message


def test_a_link_named_cards_to_another_file_is_refused(tmp_path):
    write(tmp_path, {"secrets.env": "PASSWORD=cardsmith-test-password\n",
                     "game.cards": 'import "rules.cards"\n' + HEAD})
    (tmp_path / "rules.cards").symlink_to(tmp_path / "secrets.env")
    diags, sources = check_file(str(tmp_path / "game.cards"))
    assert codes(diags) == ["E0907"] and "secrets.env" in diags[0].message
    assert "cardsmith-test-password" not in render_all(diags, sources)


# ---------------------------------------------------------------- 2. only regular files are read

@posix_only
def test_a_device_is_refused_not_read_forever():
    with deadline(20):
        diags, _ = check_file("/dev/zero")
    assert codes(diags) == ["E0908"] and "device" in diags[0].message


@posix_only
def test_a_named_pipe_is_refused_before_it_is_opened(tmp_path, monkeypatch):
    pipe = tmp_path / "pipe.cards"
    os.mkfifo(pipe)
    write(tmp_path, {"game.cards": 'import "pipe.cards"\n' + HEAD})
    opened = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda path, *a, **k: opened.append(str(path)) or real_open(path, *a, **k))
    with deadline(20):
        top, _ = check_file(str(pipe))
        included, _ = check_file(str(tmp_path / "game.cards"))
    assert codes(top) == ["E0908"] and "named pipe" in top[0].message
    assert [(d.code, d.span.line) for d in included] == [("E0908", 1)]
    assert str(pipe) not in opened


def test_a_folder_is_refused(tmp_path):
    (tmp_path / "lib.cards").mkdir()
    write(tmp_path, {"game.cards": 'import "lib.cards"\n' + HEAD})
    diags, _ = check_file(str(tmp_path / "game.cards"))
    assert codes(diags) == ["E0908"] and "folder" in diags[0].message


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="needs Linux /proc")
def test_no_more_than_the_bound_is_read_whatever_the_size_says(monkeypatch):
    """/proc files are regular and say they hold 0 bytes: the read itself is bounded."""
    assert os.stat("/proc/self/status").st_size == 0
    monkeypatch.setattr(loader, "MAX_FILE_BYTES", 16)
    diags, _ = check_file("/proc/self/status")
    assert codes(diags) == ["E0902"] and "MAX_FILE_BYTES" in diags[0].message


def test_text_handed_in_directly_is_bounded_too():
    diags, _ = checked("#" * 2_000_001 + "\n" + HEAD)
    assert codes(diags) == ["E0902"]


# ---------------------------------------------------------------- 3. fan-out, repeats, cycles, cascades

def counted(parses: list):
    """loader._module, recording each file it is asked for: a file's tree is made once, parsed
    or taken from the cache folder (dsl/cache.py), so counting parses alone would miss a hit."""
    real = loader._module
    return lambda source, sink: parses.append(source.path) or real(source, sink)


def test_a_file_importing_itself_five_times_is_parsed_once(monkeypatch):
    parses = []
    monkeypatch.setattr(loader, "_module", counted(parses))
    with deadline(30):
        diags, _ = check_file(str(FILES / "frontend_self_import.cards"))
    assert [(d.code, d.span.line) for d in diags] == [("E0909", n) for n in range(2, 7)]
    assert diags[0].message == "this file imports itself"
    assert len(parses) == 1


def test_a_cycle_through_other_files_is_named(tmp_path):
    write(tmp_path, {"a.cards": 'import "b.cards"\n' + HEAD, "b.cards": 'import "sub/c.cards"\n',
                     "sub/c.cards": 'import "../a.cards"\n'})
    diags, _ = check_file(str(tmp_path / "a.cards"))
    # sub/c.cards may not reach its parent folder (E0905); from a.cards' folder the cycle closes
    assert codes(diags) == ["E0905"]
    write(tmp_path, {"b.cards": 'import "c.cards"\n', "c.cards": 'import "a.cards"\n'})
    diags, _ = check_file(str(tmp_path / "a.cards"))
    assert codes(diags) == ["E0909"]
    assert diags[0].message.endswith("a.cards → b.cards → c.cards → a.cards")
    assert Path(diags[0].span.path).name == "c.cards"


def test_a_library_imported_twice_counts_once():
    game = load_game(str(FILES / "frontend_diamond" / "game.cards"))
    assert list(game.decls.enums) == ["Colour"]
    assert set(game.decls.events) >= {"left_done", "right_done"}


def test_a_wide_fan_of_imports_parses_each_file_once(tmp_path, monkeypatch):
    """11 small files with 4 imports each took 25 s (each file parsed once per path to it)."""
    def imports(i: int) -> range:       # four each (fewer near the end); at most 6 levels deep
        return range(1, 5) if i == 0 else range(i + 2, min(i + 6, 11))
    files = {f"f{i}.cards": "".join(f'import "f{j}.cards"\n' for j in imports(i))
             + f"enum E{i}: a{i}, b{i}\n" for i in range(11)}
    files["f0.cards"] = files["f0.cards"] + HEAD
    write(tmp_path, files)
    parses = []
    monkeypatch.setattr(loader, "_module", counted(parses))
    started = time.perf_counter()
    game = load_game(str(tmp_path / "f0.cards"))
    elapsed = time.perf_counter() - started
    assert sorted(game.decls.enums) == sorted(f"E{i}" for i in range(11))
    assert len(parses) == 11 and len(set(parses)) == 11
    assert elapsed < 10, f"{elapsed:.1f} s"


def test_too_many_files_is_one_located_error(tmp_path):
    many = MAX_INCLUDED_FILES + 5
    files = {f"part{i}.cards": f"enum E{i}: x{i}\n" for i in range(many)}
    files["game.cards"] = "".join(f'import "part{i}.cards"\n' for i in range(many)) + HEAD
    write(tmp_path, files)
    diags, _ = check_file(str(tmp_path / "game.cards"))
    # the game itself is one file: part0 .. part62 are read, part63 is one too many
    assert [(d.code, d.span.line) for d in diags] == [("E0910", MAX_INCLUDED_FILES)]
    assert "MAX_INCLUDED_FILES" in diags[0].message


def test_too_many_bytes_across_files_is_one_located_error(tmp_path, monkeypatch):
    monkeypatch.setattr(loader, "MAX_TOTAL_BYTES", 2_000)
    padding = "# " + "x" * 600 + "\n"
    files = {f"part{i}.cards": padding + f"enum E{i}: x{i}\n" for i in range(6)}
    files["game.cards"] = "".join(f'import "part{i}.cards"\n' for i in range(6)) + HEAD
    write(tmp_path, files)
    parses = []
    monkeypatch.setattr(loader, "_module", counted(parses))
    diags, _ = check_file(str(tmp_path / "game.cards"))
    assert [(d.code, d.span.line) for d in diags] == [("E0911", 3)]     # 3 x 620 bytes + the game
    assert "MAX_TOTAL_BYTES" in diags[0].message
    assert len(parses) == 3         # the game and two parts: the third part is read, never parsed


def test_a_failed_include_does_not_cascade_into_unknown_names():
    diags, sources = check_file(str(FILES / "frontend_cascade.cards"))
    assert [(d.code, d.span.line) for d in diags] == [("E0901", 2)]
    assert "once every extends / import can be read" in diags[0].notes[0]
    assert "1 error" in render_all(diags, sources)


def test_a_syntax_error_in_an_included_file_does_not_cascade(tmp_path):
    write(tmp_path, {"base.cards": "zone deck: per player\nenum Side up, down\n",
                     "game.cards": 'import "base.cards"\n' + HEAD + "setup:\n    shuffle deck\n"})
    diags, _ = check_file(str(tmp_path / "game.cards"))
    assert [Path(d.span.path).name for d in diags] == ["base.cards"] and diags[0].code.startswith("E00")


# ---------------------------------------------------------------- 4-7. literals over a bound

def test_a_number_of_5000_digits_is_a_located_error_not_an_internal_one():
    diags, sources = checked(HEAD + "define huge() as 1 + " + "9" * 5000 + "\n")
    assert [(d.code, d.span.line, d.span.column, d.span.end_column) for d in diags] == [
        ("E0108", 3, 22, 5022)]
    assert "5,000-digit" in diags[0].message and "MAX_NUMBER" in diags[0].message
    assert "9" * 100 not in diags[0].message
    render_all(diags, sources)


def test_numbers_up_to_the_bound_are_fine_and_one_more_is_not():
    load_text(HEAD + f"define big() as {MAX_NUMBER}\ndefine small() as -{MAX_NUMBER}\n")
    for text in (f"define big() as {MAX_NUMBER + 1}\n", f"define small() as -{MAX_NUMBER + 1}\n",
                 f"define big() as 000{MAX_NUMBER + 1}\n"):
        diags, _ = checked(HEAD + text)
        assert codes(diags) == ["E0108"], text
        assert diags[0].span.line == 3


def test_a_huge_copies_count_is_an_error_at_once():
    table = (HEAD + "zone box: shared\ncard type Unit:\n    power: number\n"
             "cards Unit in box:\n    | name | power | copies |\n    | \"A\" | 1 | COPIES |\n")
    started = time.perf_counter()
    with deadline(20):
        diags, _ = checked(table.replace("COPIES", "99999999999999999999"))
        assert [(d.code, d.span.line) for d in diags] == [("E0108", 8)]
        diags, _ = checked(table.replace("COPIES", str(MAX_NUMBER)))
    assert [(d.code, d.span.line, d.span.column) for d in diags] == [("E0508", 8, 17)]
    assert "MAX_CARD_COPIES" in diags[0].message
    assert time.perf_counter() - started < 10
    game = load_text(table.replace("COPIES", str(MAX_CARD_COPIES)))
    assert len(game.cards) == MAX_CARD_COPIES


def test_more_cards_than_the_bound_is_reported_once_where_it_is_crossed():
    rows = MAX_CARDS // MAX_CARD_COPIES
    text = (HEAD + "zone box: shared\ncard type Unit:\n    power: number\ncards Unit in box:\n"
            "    | name | power | copies |\n"
            + "".join(f'    | "C{i}" | 1 | {MAX_CARD_COPIES} |\n' for i in range(rows + 2))
            + 'card "Extra": Unit in box\n    power = 1\n')
    diags, _ = checked(text)
    assert [(d.code, d.span.line) for d in diags] == [("E0509", 8 + rows)]
    assert "MAX_CARDS" in diags[0].message
    exact = text.split("\n")
    del exact[8 + rows - 1: 8 + rows + 1]       # the two rows past the bound
    assert codes(checked("\n".join(exact))[0]) == ["E0509"]         # the card block is one too many
    assert len(load_text("\n".join(exact[:-3]) + "\n").cards) == MAX_CARDS


def test_players_over_the_bound():
    diags, _ = checked('game "T":\n    players: 2 to 99999999999999999999\n')
    assert codes(diags) == ["E0108"]                   # one error for one number
    diags, _ = checked(f'game "T":\n    players: 2 to {MAX_PLAYERS + 1}\n')
    assert [(d.code, d.span.line, d.span.column) for d in diags] == [("E0110", 2, 19)]
    assert "MAX_PLAYERS" in diags[0].message
    assert load_text(f'game "T":\n    players: 2 to {MAX_PLAYERS}\n').max_players == MAX_PLAYERS
    diags, _ = checked(HEAD + 'scenario "Crowd" with 1000 players:\n    play setup\n')
    assert [(d.code, d.span.line) for d in diags] == [("E0110", 3)]


def test_a_text_over_the_bound_is_a_located_error():
    long_name = "R" * 1_000_000
    diags, _ = checked(HEAD + f'round "{long_name}":\n    say "hi"\n')
    assert [(d.code, d.span.line, d.span.column) for d in diags] == [("E0109", 3, 7)]
    assert "1,000,000 characters" in diags[0].message and "MAX_STRING_LENGTH" in diags[0].message
    load_text(HEAD + 'setup:\n    say "' + "x" * MAX_STRING_LENGTH + '"\n')
    diags, _ = checked(HEAD + 'rule "Long":\n    """\n' + "y" * (MAX_STRING_LENGTH + 1) + '\n    """\n')
    assert [(d.code, d.span.line) for d in diags] == [("E0109", 4)]


def test_a_name_over_the_bound_is_a_located_error():
    diags, _ = checked(HEAD + "enum " + "N" * (MAX_STRING_LENGTH + 1) + ": a, b\n")
    assert [(d.code, d.span.line, d.span.column) for d in diags] == [("E0109", 3, 6)]


# ---------------------------------------------------------------- 8-9. line ends and quotes

def test_cr_only_line_ends_read_like_lf(tmp_path):
    text = HEAD + "zone box: shared\nsetup:\n    move top card of box to dek\n"
    for newline in ("\r", "\r\n"):
        path = tmp_path / "old_mac.cards"
        path.write_bytes(text.replace("\n", newline).encode("utf-8"))
        diags, sources = check_file(str(path))
        assert [(d.code, d.span.line, d.span.column) for d in diags] == [("E0201", 5, 29)], repr(newline)
        shown = render_all(diags, sources)
        assert " 5 |     move top card of box to dek\n" in shown
    path.write_bytes((HEAD + "zone box: shared\n").replace("\n", "\r").encode("utf-8"))
    assert load_game(str(path)).title == "T"


def test_an_unclosed_triple_quote_before_a_declaration_is_e0003():
    diags, _ = checked('"""A game for two.\n\n' + HEAD)
    assert [(d.code, d.span.line, d.span.column) for d in diags][:1] == [("E0003", 1, 1)]
    diags, _ = checked(HEAD + 'enum Side: up, down\n"""notes\n')
    assert [(d.code, d.span.line) for d in diags] == [("E0003", 4)]


def test_source_lines_end_only_at_newline_as_for_the_parser():
    source = Source("t.cards", "a\fb\x0bc\u2028d\x1ce\nsecond\r\nthird")
    assert source.line(1) == "a\fb\x0bc\u2028d\x1ce"
    assert source.line(2) == "second\r"
    assert source.line(3) == "third" and source.line(4) == ""
    # a diagnostic after a form feed points at the line the parser meant
    diags, sources = checked(HEAD + "# page\f break\nzone box: shared\nsetup:\n    move top card of box to dek\n")
    assert [(d.code, d.span.line) for d in diags] == [("E0201", 6)]
    assert " 6 |     move top card of box to dek" in render_all(diags, sources)


def test_a_name_with_a_nul_is_a_located_error(tmp_path):
    write(tmp_path, {"game.cards": 'import "a\x00.cards"\n' + HEAD})
    diags, _ = check_file(str(tmp_path / "game.cards"))
    assert [(d.code, d.span.line) for d in diags] == [("E0901", 1)]


def test_library_callers_of_to_ast_get_a_cardsmith_error_not_a_clipped_value():
    from cardsmith.dsl.transformer import to_ast
    tree, _ = parse(Source("t.cards", HEAD + "define huge() as " + "9" * 30 + "\n"))
    with pytest.raises(CardsmithError) as info:
        to_ast(tree, "t.cards")
    assert info.value.diagnostics[0].code == "E0108"
