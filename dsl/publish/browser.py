"""A headless Chromium: the rulebook's HTML printed to PDF, and pages checked for the tests.

Debian's `chromium` package provides the browser (the README's set-up command installs it).
Every run gets a fresh, throw-away profile folder and no network services, and is bounded in
time. Page numbers come from the stylesheet's `@page` margin boxes ("Page 3 of 21"), which
Chromium prints since version 131 (Debian's chromium is newer); `--no-pdf-header-footer` turns
off Chromium's own header and footer (date, title, file URL). An older Chromium gets its own
footer instead, which numbers the pages too ("3/21").
"""
from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
         "--mute-audio")
TIMEOUT = 180
MARGIN_BOXES = 131          # the first Chromium that prints @page margin boxes


class BrowserMissing(RuntimeError):
    """No Chromium to render with."""


def find_chromium() -> str | None:
    for name in NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def major_version() -> int | None:
    exe = find_chromium()
    if exe is None:
        return None
    try:
        done = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.search(r"(\d+)\.\d+\.\d+", done.stdout)
    return int(found.group(1)) if found else None


def _run(args: list[str], url: str, timeout: int = TIMEOUT) -> subprocess.CompletedProcess:
    exe = find_chromium()
    if exe is None:
        raise BrowserMissing("the PDF is printed by Chromium, which is not installed "
                             "(install the Debian package 'chromium')")
    with tempfile.TemporaryDirectory(prefix="cardsmith-chromium-") as profile:
        cmd = [exe, *FLAGS, f"--user-data-dir={profile}", *args, url]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)


def print_pdf(html: Path, pdf: Path, timeout: int = TIMEOUT) -> None:
    """Print a local HTML file to PDF (paper size and margins from its CSS `@page`)."""
    pdf = Path(pdf).resolve()
    if pdf.exists():
        pdf.unlink()
    version = major_version()
    own_footer = version is not None and version < MARGIN_BOXES
    flags = [f"--print-to-pdf={pdf}"] + ([] if own_footer else ["--no-pdf-header-footer"])
    done = _run(flags, Path(html).resolve().as_uri(), timeout)
    if not pdf.exists() or pdf.stat().st_size == 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise RuntimeError(f"Chromium did not write {pdf} (exit {done.returncode}):\n{tail}")


def dump_dom(html: Path, width: int = 794, height: int = 1123, timeout: int = TIMEOUT) -> str:
    """The page's DOM after its scripts ran (the tests add a script that writes its findings)."""
    done = _run([f"--window-size={width},{height}", "--virtual-time-budget=5000", "--dump-dom"],
                Path(html).resolve().as_uri(), timeout)
    return done.stdout


def screenshot(html: Path, png: Path, width: int = 794, height: int = 1123, timeout: int = TIMEOUT) -> None:
    png = Path(png).resolve()
    _run([f"--window-size={width},{height}", f"--screenshot={png}"], Path(html).resolve().as_uri(), timeout)
    if not png.exists():
        raise RuntimeError(f"Chromium did not write {png}")
