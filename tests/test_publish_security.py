"""Publishing cannot be turned against the machine (issue 8, part A).

A stranger's rulebook templates (`--templates DIR`, fixtures in tests/hostile/templates/) and a
stranger's game text go into the Markdown, the HTML and the PDF. These tests attack each:

* the PDF: Chromium prints a page that tries to read the machine's files, run scripts and call
  a listener on 127.0.0.1; none of it may reach the PDF or the listener, and Chromium runs as
  an unprivileged user when cardsmith runs as root;
* the Markdown: game text cannot make an image, a link or HTML;
* templates that fail in every way Python can fail, or pass a bound, give a located error
  (file, line, the line shown), exit 1, no traceback;
* Graphviz is bounded in time and in boxes; rules nested as deep as the checker allows are
  written out, and deeper ones are a located error.
"""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from cardsmith.dsl.loader import load_game, load_text
from cardsmith.dsl.publish import apart
from cardsmith.dsl.publish import browser as B
from cardsmith.dsl.publish import diagrams as D
from cardsmith.dsl.publish import rulebook as R
from cardsmith.interpreter.cli import main

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "tests" / "hostile" / "templates"
SIGNAL_FIRES = ROOT / "tests" / "games" / "signal_fires.cards"

needs_pdf = pytest.mark.skipif(
    B.find_chromium() is None or shutil.which("pdftotext") is None or shutil.which("pdfimages") is None,
    reason="needs the Debian packages chromium and poppler-utils")
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="needs the Debian package graphviz")


def rulebook(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(["rulebook", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def hostile_templates(name: str, tmp_path: Path, **replace: str) -> Path:
    """A copy of the fixture folder `name`, with its placeholders replaced."""
    folder = tmp_path / f"templates-{name}"
    folder.mkdir()
    for src in (HOSTILE / name).iterdir():
        data = src.read_bytes()
        for key, value in replace.items():
            data = data.replace(key.encode(), value.encode())
        (folder / src.name).write_bytes(data)
    return folder


def pdf_text(pdf: Path) -> str:
    return subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True,
                          timeout=120).stdout


def print_with(templates: Path, tmp_path: Path, capsys) -> str:
    out = tmp_path / "book"
    code, _, err = rulebook([str(SIGNAL_FIRES), "-o", str(out), "--format", "pdf", "--templates", str(templates)],
                            capsys)
    assert code == 0, err
    text = pdf_text(out / "signal_fires.pdf")
    assert "BOOK-PAGE-PRINTED" in text, "the page itself was not printed"
    return text


# ---------------------------------------------------------------- the PDF sees nothing but the page


@needs_pdf
def test_a_template_cannot_print_the_machines_files_into_the_pdf(tmp_path, capsys):
    # a picture of an odd size, to find it among images, that every user of the machine may read
    # (so that only the browser's walls, not file permissions, keep it out of the PDF)
    folder = Path(tempfile.mkdtemp(prefix="cardsmith-secret-"))
    try:
        folder.chmod(0o755)
        secret = folder / "secret.png"
        secret.write_bytes(_png(37, 23))
        secret.chmod(0o644)
        text = print_with(hostile_templates("pdf_files", tmp_path, SECRET_PNG=str(secret)), tmp_path, capsys)
    finally:
        shutil.rmtree(folder)
    passwd = Path("/etc/passwd").read_text(encoding="utf-8", errors="replace")
    first_entry = passwd.splitlines()[0]
    assert first_entry not in text and "root:x:0:0" not in text
    hostname = Path("/etc/hostname").read_text(encoding="utf-8").strip() if Path("/etc/hostname").exists() else ""
    if len(hostname) >= 6:                      # a name long enough not to be in the book by chance
        assert hostname not in text
    images = subprocess.run(["pdfimages", "-list", str(tmp_path / "book" / "signal_fires.pdf")],
                            capture_output=True, text=True, check=True).stdout
    sizes = {tuple(row.split()[3:5]) for row in images.splitlines()[2:]}
    assert ("37", "23") not in sizes, f"the secret picture is in the PDF: {images}"


@needs_pdf
def test_a_templates_scripts_do_not_run_when_the_pdf_is_printed(tmp_path, capsys):
    text = print_with(hostile_templates("pdf_scripts", tmp_path), tmp_path, capsys)
    for mark in ("HEAD-SCRIPT-RAN", "BODY-SCRIPT-RAN", "ONERROR-RAN", "SVG-ONLOAD-RAN", "SRCDOC-RAN",
                 "LINK-RAN", "MODULE-RAN"):
        assert mark not in text
    assert "SCRIPTS-ARE-OFF" in text, "<noscript> is shown only where scripting is off"


class Listener:
    """A TCP listener on 127.0.0.1 that records every connection (the page must make none)."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.seen: list[bytes] = []
        self.running = True
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        while self.running:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            conn.settimeout(1)
            try:
                self.seen.append(conn.recv(200) or b"(connected, sent nothing)")
            except OSError:
                self.seen.append(b"(connected)")
            finally:
                conn.close()

    def close(self) -> None:
        self.running = False
        self.thread.join(timeout=5)
        self.sock.close()


@needs_pdf
def test_the_page_reaches_no_network_not_even_loopback(tmp_path, capsys):
    listener = Listener()
    try:
        # the listener itself works: a connection from here is seen
        with socket.create_connection(("127.0.0.1", listener.port), timeout=5) as probe:
            probe.sendall(b"PROBE")
        deadline = time.monotonic() + 5
        while not listener.seen and time.monotonic() < deadline:
            time.sleep(0.05)
        assert listener.seen == [b"PROBE"]
        templates = hostile_templates("pdf_network", tmp_path, LISTENER=f"127.0.0.1:{listener.port}",
                                      PORT=str(listener.port))
        print_with(templates, tmp_path, capsys)
        time.sleep(1)                           # anything late would have arrived by now
        assert listener.seen == [b"PROBE"], f"the page reached the listener: {listener.seen[1:]}"
    finally:
        listener.close()


def _children_of(pid: int) -> list[int]:
    """The processes whose process group is `pid` (Chromium and its helpers)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pid:
                found.append(int(entry.name))
    return found


def _uid(pid: int) -> int:
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        if row.startswith("Uid:"):
            return int(row.split()[1])
    raise AssertionError("no Uid line")


@needs_pdf
def test_chromium_never_runs_as_root_and_keeps_its_sandbox_where_it_can(tmp_path):
    with B._Browser() as browser:
        pids = _children_of(browser.proc.pid)
        assert browser.proc.pid in pids and len(pids) >= 2
        uids = {pid: _uid(pid) for pid in pids if Path(f"/proc/{pid}").exists()}
        cmdline = Path(f"/proc/{browser.proc.pid}/cmdline").read_bytes().split(b"\0")
    assert 0 not in uids.values(), f"Chromium processes running as root: {uids}"
    if os.geteuid() != 0:
        assert set(uids.values()) == {os.geteuid()}
    assert (b"--no-sandbox" in cmdline) == (B._Browser._sandbox_works is False)
    assert not [p for p in pids if Path(f"/proc/{p}").exists() and _alive(p)], "Chromium outlived its run"


def _alive(pid: int) -> bool:
    try:
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]) != "Z"
    except OSError:
        return False


@needs_pdf
def test_chromium_past_its_time_is_a_located_error_and_is_stopped(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(B, "TIMEOUT", 0.05)
    profiles: list[str] = []
    real = B._profile_folder
    monkeypatch.setattr(B, "_profile_folder", lambda user: profiles.append(real(user)) or profiles[-1])
    code, _, err = rulebook([str(SIGNAL_FIRES), "-o", str(tmp_path), "--format", "pdf"], capsys)
    assert code == 1
    assert "error[E1006]" in err and "CHROMIUM_SECONDS" in err and "book.html.j2:1:1" in err
    assert "Traceback" not in err
    time.sleep(0.5)
    left = [p.name for p in Path("/proc").iterdir() if p.name.isdigit() and any(
        prof.encode() in _cmdline(p) for prof in profiles)]
    assert profiles and not left, f"Chromium processes left running: {left}"
    assert not any(Path(p).exists() for p in profiles), "the profile folder was left behind"


def _cmdline(proc: Path) -> bytes:
    try:
        return (proc / "cmdline").read_bytes()
    except OSError:
        return b""


def test_the_policy_is_the_first_element_after_the_doctype():
    page = "<!-- x -->\n<!DOCTYPE html><html><head><title>t</title>"
    assert B.with_policy(page) == "<!-- x -->\n<!DOCTYPE html>" + B.POLICY_META + "<html><head><title>t</title>"
    assert B.with_policy("<p>no doctype</p>").startswith(B.POLICY_META)
    assert "script-src" not in B.POLICY and "default-src 'none'" in B.POLICY       # scripts fall to 'none'


# ---------------------------------------------------------------- Markdown from game text


MARKDOWN_ATTACKS = '''game "Evil ![img](file:///etc/passwd) [click](javascript:alert(1))":
    players: 2 to 2
    summary: "See ![x](file:///etc/passwd), <img src=file:///etc/passwd>, <http://evil.example/a>, http://evil.example/b and www.evil.example"

zone deck: per player, ordered, hidden

round "R ![r](file:///etc/hostname)":
    step "S [s]":
        """
        [ref]: file:///etc/passwd
        ![ref] and [link][ref] and `code` and <script>alert(1)</script> and *star* _under_ \\\\
        """
        say "hi ![s](javascript:alert(2)) [t](file:///etc/group)"

as soon as count(cards in every deck) = 0:
    the game is a draw
'''


def _tokens(tokens):
    for t in tokens:
        yield t
        if t.children:
            yield from _tokens(t.children)


def test_game_text_makes_no_image_link_or_html_in_the_markdown(tmp_path):
    game = load_text(MARKDOWN_ATTACKS, str(tmp_path / "evil.cards"))
    files, _ = R.write_rulebook(game, tmp_path, "md")
    md = files[0].read_text(encoding="utf-8")
    found = list(_tokens(MarkdownIt("commonmark").enable("table").parse(md)))
    images = [t.attrs.get("src") for t in found if t.type == "image"]
    links = [t.attrs.get("href") for t in found if t.type == "link_open"]
    html = [t.content for t in found if t.type in ("html_inline", "html_block")]
    # the diagrams, the table and the examples' tables are the book's own drawings
    assert all(re.fullmatch(r"evil-(phases|zones|table|example-\d+)\.svg", i) for i in images), images
    assert links and all(h.startswith(("#sec-", "#card-", "#word-", "#term-")) for h in links), links
    assert all(re.fullmatch(r'<a id="[\w-]+">|</a>|<a id="[\w-]+"></a>\n?', h) for h in html), html
    assert re.findall(r"(?<!\\)\]\((?!#sec-|#card-|#word-|#term-|evil-)", md) == []   # every other "](" is escaped
    for raw in ("http://evil", "www.evil", "<img", "<script", "<http"):
        assert raw not in md, raw
    # still readable: the text is there, escaped
    assert r"!\[img\](file:" in md and r"\`code\`" in md and "&lt;script&gt;" in md


def test_a_file_name_cannot_make_a_markdown_link_target():
    assert R.md_path("javascript:alert(1)-phases.svg") == "javascript%3Aalert%281%29-phases.svg"
    assert R.md_path("signal_fires-phases.svg") == "signal_fires-phases.svg"


# ---------------------------------------------------------------- templates that fail


TEMPLATE_FAILURES = [
    # fixture folder, code, line, words the message must have
    ("bad_utf8", "E1003", 3, "not UTF-8"),
    ("range_too_big", "E1002", 2, "Range too big"),
    ("macro_forever", "E1002", 1, "PUBLISH_FRAMES"),
    ("divide_by_zero", "E1002", 3, "division by zero"),
    ("syntax_error", "E1001", 3, "template error"),
    ("page_too_big", "E1004", 2, "MAX_TEMPLATE_OUTPUT"),
    ("power_too_big", "E1002", 3, "bits"),
    ("repeat_too_big", "E1002", 3, "MAX_TEMPLATE_OUTPUT"),
    ("text_doubled", "E1005", 1, "TEMPLATE_MEMORY"),
    ("include_outside", "E1002", 3, "no template named"),
]


@pytest.mark.parametrize("name, code, line, words", TEMPLATE_FAILURES, ids=[c[0] for c in TEMPLATE_FAILURES])
def test_a_failing_template_is_a_located_error(tmp_path, capsys, name, code, line, words):
    templates = HOSTILE / name
    status, out, err = rulebook([str(SIGNAL_FIRES), "-o", str(tmp_path), "--format", "md",
                                 "--templates", str(templates)], capsys)
    assert status == 1, err
    assert f"{templates / 'book.md.j2'}:{line}:" in err and f"error[{code}]" in err, err
    assert words in err
    shown = (templates / "book.md.j2").read_bytes().split(b"\n")[line - 1].decode("utf-8", "replace")
    assert re.search(rf"^ {line} \| {re.escape(shown.rstrip())}\n +\| +\^", err, re.M), err
    assert "= hint:" in err
    assert "Traceback" not in err and "internal error" not in err
    assert not (tmp_path / "signal_fires.md").exists()


def test_templates_past_their_time_are_stopped_with_a_located_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(apart, "TEMPLATE_SECONDS", 1)
    started = time.monotonic()
    status, _, err = rulebook([str(SIGNAL_FIRES), "-o", str(tmp_path), "--format", "md",
                               "--templates", str(HOSTILE / "loops_forever")], capsys)
    assert status == 1 and time.monotonic() - started < 30
    assert "error[E1005]" in err and "TEMPLATE_SECONDS" in err and "loops_forever/book.md.j2:2:" in err
    assert "Traceback" not in err


def test_a_template_that_links_out_of_its_folder_is_refused_and_not_shown(tmp_path, capsys):
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "book.md.j2").symlink_to("/etc/passwd")
    status, _, err = rulebook([str(SIGNAL_FIRES), "-o", str(tmp_path / "out"), "--templates", str(folder),
                               "--format", "md"], capsys)
    assert status == 1 and "error[E1003]" in err and "leads out of its templates folder" in err
    assert "root:" not in err


def test_a_template_that_is_a_pipe_is_refused_without_waiting(tmp_path, capsys):
    folder = tmp_path / "templates"
    folder.mkdir()
    os.mkfifo(folder / "book.md.j2")
    status, _, err = rulebook([str(SIGNAL_FIRES), "-o", str(tmp_path / "out"), "--templates", str(folder),
                               "--format", "md"], capsys)
    assert status == 1 and "error[E1003]" in err and "not a regular file" in err


def test_a_template_too_large_to_read_is_refused(tmp_path, capsys, monkeypatch):
    from cardsmith.dsl.publish import templating

    monkeypatch.setattr(templating, "MAX_TEMPLATE_BYTES", 100)
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "book.md.j2").write_text("# {{ book.title }}\n" + "x" * 200, encoding="utf-8")
    status, _, err = rulebook([str(SIGNAL_FIRES), "-o", str(tmp_path / "out"), "--templates", str(folder),
                               "--format", "md"], capsys)
    assert status == 1 and "error[E1003]" in err and "MAX_TEMPLATE_BYTES" in err


def test_the_default_templates_still_write_the_book_after_a_failed_one(tmp_path, capsys):
    rulebook([str(SIGNAL_FIRES), "-o", str(tmp_path / "x"), "--templates", str(HOSTILE / "divide_by_zero"),
              "--format", "md"], capsys)
    status, out, _ = rulebook([str(SIGNAL_FIRES), "-o", str(tmp_path / "y"), "--format", "md"], capsys)
    assert status == 0 and "signal_fires.md" in out


# ---------------------------------------------------------------- diagrams: bounded in time and size


def many_zones(n: int, moves: bool = True) -> str:
    zones = "".join(f"zone z{i}: shared, public\n" for i in range(n))
    body = "".join(f"        move cards in z{i} to z{(i * 7 + 3) % n}\n" for i in range(n)) if moves else \
        "        say \"nothing moves\"\n"
    return f'''game "Many zones":
    players: 2 to 2
    summary: "zones"

{zones}
round "R":
    step "S":
{body}
as soon as count(cards in z0) = 0:
    the game is a draw
'''


@needs_dot
def test_graphviz_past_its_time_leaves_the_diagram_out_with_a_note(tmp_path, capsys, monkeypatch):
    path = tmp_path / "zones400.cards"
    path.write_text(many_zones(400), encoding="utf-8")
    assert len(path.read_bytes()) > 20_000
    monkeypatch.setattr(D, "GRAPHVIZ_SECONDS", 1e-6)        # no `dot` starts and finishes in that
    status, out, err = rulebook([str(path), "-o", str(tmp_path / "book"), "--format", "md"], capsys)
    assert status == 0, err
    md = (tmp_path / "book" / "zones400.md").read_text(encoding="utf-8")
    assert md.count("*The diagram is not drawn here: Graphviz took longer than 1e-06 seconds") == 2
    assert "](zones400-phases.svg)" not in md and "](zones400-zones.svg)" not in md
    assert "GRAPHVIZ\\_SECONDS" in md and "GRAPHVIZ_SECONDS" in err
    assert (tmp_path / "book" / "zones400-zones.dot").exists()
    assert not (tmp_path / "book" / "zones400-zones.svg").exists()

    code = main(["diagram", str(path), "--kind", "zones", "-o", str(tmp_path / "z.svg")])
    err = capsys.readouterr().err
    assert code == 1 and "error[E1007]" in err and f"{path}:1:" in err and "GRAPHVIZ_SECONDS" in err
    assert "Traceback" not in err


def test_a_diagram_over_its_box_bound_is_left_out_of_the_book_with_a_note(tmp_path, capsys):
    path = tmp_path / "zones2001.cards"
    path.write_text(many_zones(2001, moves=False), encoding="utf-8")
    status, _, err = rulebook([str(path), "-o", str(tmp_path / "book"), "--format", "md"], capsys)
    assert status == 0, err
    md = (tmp_path / "book" / "zones2001.md").read_text(encoding="utf-8")
    assert "*The diagram is not drawn here: it has 2,001 boxes, more than the 2,000" in md
    assert "MAX\\_DIAGRAM\\_NODES" in md and "MAX_DIAGRAM_NODES" in err
    assert not (tmp_path / "book" / "zones2001-zones.svg").exists()

    code = main(["diagram", str(path), "--kind", "zones", "-o", str(tmp_path / "z.svg")])
    err = capsys.readouterr().err
    assert code == 1 and "error[E1008]" in err and "MAX_DIAGRAM_NODES" in err and f"{path}:1:" in err
    assert main(["diagram", str(path), "--kind", "zones", "-o", str(tmp_path / "z.dot")]) == 0   # DOT is fine


# ---------------------------------------------------------------- rules nested as deep as the checker allows


def deep_game(condition: str, value: str) -> str:
    """A game with `condition` in a value, in a step (line 14; the loop under it puts it in the
    phase diagram too) and in an end check, and the arithmetic `value` in a step."""
    return f'''game "Deep":
    players: 2 to 2
    summary: "deep"

zone deck: per player, ordered, hidden

game has:
    total: number = 0

define deep() as {condition}

round "R":
    step "S":
        if {condition}:
            repeat until total > 0:
                set total to {value}

as soon as deep():
    the game is a draw
'''


# 300 nested `not` and a sum of 300 terms (left-nested 299 deep): the checker accepts about 330
NOT_300 = deep_game("not " * 300 + "count(cards in every deck) = 0", " + ".join(["1"] * 300))
# with parentheses the parser's own nesting comes first: the checker accepts about 94 of these
NOT_PARENS_90 = deep_game("not (" * 90 + "count(cards in every deck) = 0" + ")" * 90, "(" * 90 + "1" + " + 1)" * 90)


def test_parenthesised_nesting_as_deep_as_the_checker_allows_is_written_out(tmp_path, capsys):
    path = tmp_path / "parens.cards"
    path.write_text(NOT_PARENS_90, encoding="utf-8")
    assert main(["check", str(path)]) == 0
    status, _, err = rulebook([str(path), "-o", str(tmp_path / "book"), "--format", "md"], capsys)
    assert status == 0, err
    assert "it is not so that " * 89 in (tmp_path / "book" / "parens.md").read_text(encoding="utf-8")
    assert main(["diagram", str(path), "-o", str(tmp_path / "p.dot")]) == 0


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_300_nested_nots_and_deep_arithmetic_are_written_out(tmp_path, capsys, fmt):
    path = tmp_path / "deep.cards"
    path.write_text(NOT_300, encoding="utf-8")
    assert main(["check", str(path)]) == 0
    status, _, err = rulebook([str(path), "-o", str(tmp_path / "book"), "--format", fmt], capsys)
    assert status == 0, err
    book = (tmp_path / "book" / f"deep.{fmt}").read_text(encoding="utf-8")
    assert "it is not so that " * 299 + "the number of cards in every player" in book   # every level
    assert "1 plus " * 299 + "1" in book
    for kind in D.KINDS:
        assert main(["diagram", str(path), "--kind", kind, "-o", str(tmp_path / f"{kind}.dot")]) == 0


def test_rules_deeper_than_the_writers_follow_are_a_located_error(tmp_path, capsys, monkeypatch):
    # 300 levels and the writers held to Python's default 1,000 frames: the book fails as it
    # did before the fix, now with a located error instead of an internal one
    monkeypatch.setattr(apart, "PUBLISH_FRAMES", 1000)
    path = tmp_path / "deep.cards"
    path.write_text(NOT_300, encoding="utf-8")
    # The writers get max(the process's limit, PUBLISH_FRAMES). A limit left raised elsewhere in
    # the run (Hypothesis leaves its own raised limit in place when another thread changed the
    # limit during a test) would give them more room than this test means: pin it for the test.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        status, _, err = rulebook([str(path), "-o", str(tmp_path / "book"), "--format", "md"], capsys)
    finally:
        sys.setrecursionlimit(limit)
    assert status == 1, f"the book was written with 1,000 frames (the process's limit was {limit:,})"
    assert "error[E1009]" in err and f"{path}:14:12:" in err and "PUBLISH_FRAMES" in err
    assert re.search(r"^ 14 \|         if not not .*\n +\| +\^", err, re.M), err
    assert "Traceback" not in err and "internal error" not in err


def test_a_diagram_of_rules_deeper_than_the_writers_follow_is_a_located_error(tmp_path, capsys, monkeypatch):
    # A checker that accepts more than the writers follow (loaded here with more room than the
    # checker has by default) still meets a located error, in `cardsmith diagram` as well.
    path = tmp_path / "deeper.cards"
    path.write_text(deep_game("not " * 2000 + "count(cards in every deck) = 0", "1"), encoding="utf-8")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(40_000)
    try:
        game = apart.deep(load_game, str(path))
    finally:
        sys.setrecursionlimit(limit)
    monkeypatch.setattr(apart, "PUBLISH_FRAMES", 1000)
    monkeypatch.setattr("cardsmith.dsl.loader.load_game", lambda _, **_options: game)
    code = main(["diagram", str(path), "-o", str(tmp_path / "p.dot")])
    err = capsys.readouterr().err
    assert code == 1 and "error[E1009]" in err and f"{path}:14:12:" in err and "(2006 levels" in err, err
    assert "Traceback" not in err


# ---------------------------------------------------------------- helpers


def _png(width: int, height: int) -> bytes:
    """A small valid PNG of one colour."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\0" + b"\xff\x00\x00" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
