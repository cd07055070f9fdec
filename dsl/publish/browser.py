"""A headless Chromium that sees nothing but the page: the rulebook's HTML printed to PDF, and
pages checked for the tests.

Debian's `chromium` package provides the browser (the README's set-up command installs it).
The HTML may come from a stranger's templates, so the browser is walled in, each wall on its own
enough to stop what the others stop:

* The page is never a file. Chromium starts on `about:blank` and gets the HTML over the
  DevTools pipe (`Page.setDocumentContent`), so the page's origin is opaque: Chromium refuses
  it every `file://` URL (an `<iframe src="file:///etc/passwd">`, an image, a `<meta>` refresh)
  whatever the files' permissions are. There is no page folder to read around either.
* JavaScript is off for printing (`Emulation.setScriptExecutionDisabled`), and the page gets a
  Content-Security-Policy as its very first element (`POLICY`): no scripts, frames, objects,
  fetches or fonts from anywhere; styles inline and images as `data:` URLs only.
* No network: every request goes to a proxy on a loopback port that we hold closed, loopback
  included (`--proxy-bypass-list=<-loopback>`), and every host name resolves to nothing
  (`--host-resolver-rules`).
* Never root without a sandbox: run as root, Chromium runs as `nobody`, with its own sandbox
  where the kernel allows one (user namespaces) and without it only as that unprivileged user.
* Bounded in time (`CHROMIUM_SECONDS`): the whole process group is killed past it.

Page numbers come from the stylesheet's `@page` margin boxes ("Page 3 of 21"), which Chromium
prints since version 131 (Debian's chromium is newer). An older Chromium prints a footer of ours
instead, which numbers the pages too ("3/21").
"""
from __future__ import annotations

import base64
import fcntl
import json
import os
import pwd
import re
import select
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import time
from pathlib import Path

from ..bounds import CHROMIUM_SECONDS

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ("--headless", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--disable-extensions", "--disable-default-apps", "--disable-breakpad",
         "--no-first-run", "--no-default-browser-check", "--hide-scrollbars", "--mute-audio",
         "--block-new-web-contents", "--host-resolver-rules=MAP * ~NOTFOUND",
         "--proxy-bypass-list=<-loopback>", "--remote-debugging-pipe")
TIMEOUT = CHROMIUM_SECONDS
MARGIN_BOXES = 131          # the first Chromium that prints @page margin boxes
UNPRIVILEGED = "nobody"     # who Chromium runs as when cardsmith runs as root

# The page's first element. 'self' is not needed: the page is self-contained (inline styles,
# inline SVG) and its origin is opaque, so 'self' would match nothing anyway.
POLICY = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:; "
          "base-uri 'none'; form-action 'none'")
POLICY_META = f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">'
_DOCTYPE = re.compile(r"\A(?:\ufeff)?\s*(?:<!--.*?-->\s*)*<!doctype[^>]*>", re.I | re.S)

# Our own footer for a Chromium without @page margin boxes (no date, no title, no file URL).
FOOTER = ('<div style="font-size:8px;width:100%;text-align:center;font-family:sans-serif">'
          '<span class="pageNumber"></span>/<span class="totalPages"></span></div>')


class BrowserMissing(RuntimeError):
    """No Chromium to render with."""


class BrowserFailed(RuntimeError):
    """Chromium could not print the page: it failed, or ran past `CHROMIUM_SECONDS`."""


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


def with_policy(html: str) -> str:
    """`html` with our Content-Security-Policy as its first element (after a doctype, which must
    stay first or the page would fall into quirks mode). A policy the page adds itself can only
    narrow ours: every policy of a page applies."""
    found = _DOCTYPE.match(html)
    at = found.end() if found else 0
    return html[:at] + POLICY_META + html[at:]


# ---------------------------------------------------------------- who runs it


def _unprivileged() -> tuple[int, int] | None:
    """The uid and gid Chromium runs as: `nobody` when we are root, else None (ourselves)."""
    if os.geteuid() != 0:
        return None
    try:
        who = pwd.getpwnam(UNPRIVILEGED)
        return who.pw_uid, who.pw_gid
    except KeyError:
        return 65534, 65534


def _open_to_others(folder: Path) -> bool:
    """Whether another user can reach `folder` (every folder above it is searchable by all)."""
    for part in [folder, *folder.parents]:
        try:
            if not part.stat().st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
    return True


def _profile_folder(user: tuple[int, int] | None) -> str:
    """A fresh, empty profile folder for one run, owned by the user Chromium runs as."""
    base = Path(tempfile.gettempdir())
    if user is not None and not _open_to_others(base):
        base = next((Path(p) for p in ("/tmp", "/dev/shm", "/var/tmp") if _open_to_others(Path(p))), base)
    folder = tempfile.mkdtemp(prefix="cardsmith-chromium-", dir=base)
    if user is not None:
        os.chown(folder, *user)
    return folder


def _environment(home: str) -> dict:
    """A small environment: nothing of ours (tokens, keys) reaches the browser."""
    env = {"HOME": home, "XDG_CONFIG_HOME": f"{home}/.config", "XDG_CACHE_HOME": f"{home}/.cache",
           "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    for name, value in os.environ.items():
        if name in ("LANG", "TZ") or name.startswith(("LC_", "FONTCONFIG_")):
            env[name] = value
    return env


def _above_nine(fd: int) -> int:
    """`fd` moved to a number above 9 (close-on-exec, as Python's descriptors are)."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


# ---------------------------------------------------------------- the DevTools pipe


class _Pipe:
    """Chromium's DevTools protocol over `--remote-debugging-pipe`: JSON messages ending in a
    NUL byte, Chromium reading from its fd 3 and writing to its fd 4."""

    def __init__(self, read_fd: int, write_fd: int, deadline: float):
        self.read_fd, self.write_fd, self.deadline = read_fd, write_fd, deadline
        self.buffer = bytearray()
        self.next_id = 0
        self.events: list[dict] = []
        self.handlers: dict = {}        # event name -> function answering it at once

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> int:
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        while data:
            self._wait(write=True)
            data = data[os.write(self.write_fd, data):]
        return self.next_id

    def _wait(self, write: bool = False) -> None:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        fds = ([], [self.write_fd]) if write else ([self.read_fd], [])
        ready = select.select(*fds, [], left)
        if not ready[0] and not ready[1]:
            raise TimeoutError

    def receive(self) -> dict:
        start = 0
        while True:
            end = self.buffer.find(b"\0", start)
            if end >= 0:
                message = bytes(self.buffer[:end])
                del self.buffer[:end + 1]
                return json.loads(message)
            start = len(self.buffer)
            self._wait()
            chunk = os.read(self.read_fd, 1 << 20)
            if not chunk:
                raise EOFError("Chromium closed its DevTools pipe")
            self.buffer += chunk

    def _event(self, message: dict) -> None:
        handler = self.handlers.get(message["method"])
        if handler is not None:
            handler(message)
        else:
            self.events.append(message)

    def call(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        sent = self.send(method, params, session)
        while True:
            message = self.receive()
            if message.get("id") == sent:
                if "error" in message:
                    raise BrowserFailed(f"Chromium refused {method}: {message['error'].get('message')}")
                return message.get("result", {})
            if "method" in message:
                self._event(message)

    def wait_for(self, event: str) -> dict:
        while True:
            for i, message in enumerate(self.events):
                if message.get("method") == event:
                    return self.events.pop(i)
            message = self.receive()
            if "method" in message:
                self._event(message)


class _Browser:
    """One Chromium process with one page, walled in as the module says; a context manager."""

    _sandbox_works: bool | None = None       # found out once per process

    def __init__(self, timeout: float | None = None):
        exe = find_chromium()
        if exe is None:
            raise BrowserMissing("the PDF is printed by Chromium, which is not installed "
                                 "(install the Debian package 'chromium')")
        self.exe, self.timeout = exe, TIMEOUT if timeout is None else timeout
        self.deadline = time.monotonic() + self.timeout
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> "_Browser":
        try:
            return self._open()
        except BaseException:
            self._stop()
            raise

    def _open(self) -> "_Browser":
        user = _unprivileged()
        if _Browser._sandbox_works is not False:
            try:
                self._start(user, sandbox=True)
                _Browser._sandbox_works = True
                return self
            except EOFError:
                said = self._stderr()
                self._stop()
                if "sandbox" not in said.lower():
                    raise BrowserFailed(self._failure("Chromium did not start", said)) from None
            # No usable sandbox here (a container without user namespaces): Chromium runs
            # without it, but still as an unprivileged user when we are root.
            _Browser._sandbox_works = False
        try:
            self._start(user, sandbox=False)
        except EOFError:
            said = self._stderr()
            self._stop()
            raise BrowserFailed(self._failure("Chromium did not start", said)) from None
        return self

    def __exit__(self, *exc) -> None:
        self._stop()

    def _start(self, user: tuple[int, int] | None, sandbox: bool) -> None:
        self.profile = _profile_folder(user)
        self.log = tempfile.TemporaryFile()
        # A port we hold bound but never listen on: connecting to it is refused at once.
        self.dead = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.dead.bind(("127.0.0.1", 0))
        proxy = f"--proxy-server=http://127.0.0.1:{self.dead.getsockname()[1]}"
        flags = [*FLAGS, proxy, f"--user-data-dir={self.profile}"] + ([] if sandbox else ["--no-sandbox"])
        to_browser, self.to_browser = os.pipe()
        self.from_browser, from_here = os.pipe()
        # The child's ends above fd 9, so that moving them to 3 and 4 overwrites neither and
        # dup2 always makes a new, inheritable descriptor (dup2 of an fd onto itself would not).
        to_browser, from_here = (_above_nine(fd) for fd in (to_browser, from_here))

        def pipes_as_3_and_4() -> None:          # in the child, before exec (os.dup2: inheritable)
            os.dup2(to_browser, 3)
            os.dup2(from_here, 4)

        self.pipe = _Pipe(self.from_browser, self.to_browser, self.deadline)
        try:
            self.proc = subprocess.Popen(
                [self.exe, *flags, "about:blank"], stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                preexec_fn=pipes_as_3_and_4, close_fds=False, start_new_session=True,
                env=_environment(self.profile), cwd=self.profile,
                **({"user": user[0], "group": user[1], "extra_groups": []} if user else {}))
        except OSError as err:
            raise BrowserFailed(f"Chromium could not be started: {err}") from None
        finally:
            os.close(to_browser)
            os.close(from_here)
        try:
            target = self.pipe.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            self.session = self.pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        except TimeoutError:
            raise BrowserFailed(self._timed_out("start")) from None

    def _stderr(self) -> str:
        try:
            self.log.seek(0)
            return self.log.read(1 << 20).decode("utf-8", "replace")
        except (AttributeError, OSError, ValueError):
            return ""

    @staticmethod
    def _failure(what: str, said: str) -> str:
        lines = [ln for ln in said.splitlines() if "dbus" not in ln and ln.strip()]
        tail = "\n".join(lines[-5:])
        return what + (f":\n{tail}" if tail else "")

    def _timed_out(self, doing: str) -> str:
        what = {"start": "to start", "print": "to print the rulebook", "check": "to load the page",
                "draw": "to draw the page"}.get(doing, doing)
        return (f"Chromium took longer than {self.timeout:g} seconds {what} (the bound CHROMIUM_SECONDS); "
                "a very large page, or a template that makes one, can cause it")

    def _stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            try:
                if proc.poll() is None:
                    self.pipe.send("Browser.close")
                    proc.wait(timeout=5)
            except (OSError, TimeoutError, EOFError, subprocess.TimeoutExpired):
                pass
            try:                                    # the renderers and helpers too
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        for fd in ("to_browser", "from_browser"):
            if getattr(self, fd, None) is not None:
                try:
                    os.close(getattr(self, fd))
                except OSError:
                    pass
                setattr(self, fd, None)
        if getattr(self, "dead", None) is not None:
            self.dead.close()
            self.dead = None
        if getattr(self, "profile", None):
            shutil.rmtree(self.profile, ignore_errors=True)
            self.profile = None
        if getattr(self, "log", None) is not None:
            self.log.close()
            self.log = None

    # ---------------------------------------------------------------- what a page can do

    def run(self, method: str, params: dict | None = None, doing: str = "print") -> dict:
        try:
            return self.pipe.call(method, params, self.session)
        except TimeoutError:
            raise BrowserFailed(self._timed_out(doing)) from None
        except EOFError:
            raise BrowserFailed(self._failure("Chromium stopped", self._stderr())) from None

    def _stop_request(self, message: dict) -> None:
        """Every request the page makes is stopped in the browser, before any network code: a
        navigation (`<meta http-equiv="refresh">`) is answered 204 No Content, which leaves the
        page where it is; anything else fails."""
        params = message["params"]
        self.blocked.append(params.get("request", {}).get("url", ""))
        if params.get("resourceType") == "Document":
            self.pipe.send("Fetch.fulfillRequest", {"requestId": params["requestId"], "responseCode": 204},
                           message.get("sessionId"))
        else:
            self.pipe.send("Fetch.failRequest", {"requestId": params["requestId"], "errorReason": "BlockedByClient"},
                           message.get("sessionId"))

    def _navigated(self, message: dict) -> None:
        frame = message["params"].get("frame", {})
        if not frame.get("parentId") and self.loaded:
            self.left_for = frame.get("url", "")

    def load(self, html: str, scripts: bool, width: int | None = None, height: int | None = None,
             doing: str = "print") -> None:
        """Put `html` into the page (scripts off unless asked) and wait for its load event."""
        self.blocked: list[str] = []
        self.loaded, self.left_for = False, None
        self.pipe.handlers["Fetch.requestPaused"] = self._stop_request
        self.pipe.handlers["Page.frameNavigated"] = self._navigated
        self.run("Fetch.enable", {"patterns": [{"urlPattern": "*"}]}, doing)
        self.run("Emulation.setScriptExecutionDisabled", {"value": not scripts}, doing)
        if width and height:
            self.run("Emulation.setDeviceMetricsOverride",
                     {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, doing)
        self.run("Page.enable", {}, doing)
        frame = self.run("Page.getFrameTree", {}, doing)["frameTree"]["frame"]["id"]
        self.run("Page.setDocumentContent", {"frameId": frame, "html": html}, doing)
        try:
            self.pipe.wait_for("Page.loadEventFired")
            self.loaded = True
        except TimeoutError:
            raise BrowserFailed(self._timed_out(doing)) from None
        except EOFError:
            raise BrowserFailed(self._failure("Chromium stopped", self._stderr())) from None


def print_html(html: str, pdf: Path, timeout: float | None = None) -> None:
    """Print an HTML page (its text) to PDF; paper size and margins come from its CSS `@page`.
    The PDF gets bookmarks from the page's headings (`generateDocumentOutline`, Chromium 123
    and later; an older one ignores it)."""
    pdf = Path(pdf).resolve()
    if pdf.exists():
        pdf.unlink()
    version = major_version()
    own_footer = version is not None and version < MARGIN_BOXES
    options = {"printBackground": True, "preferCSSPageSize": True, "displayHeaderFooter": own_footer,
               "generateDocumentOutline": True}
    if own_footer:
        options.update(headerTemplate="<span></span>", footerTemplate=FOOTER)
    with _Browser(timeout) as browser:
        browser.load(with_policy(html), scripts=False)
        try:
            data = browser.run("Page.printToPDF", options).get("data", "")
        except BrowserFailed as err:
            if browser.left_for is not None:
                raise BrowserFailed(f"the page replaced itself with '{browser.left_for[:100]}' (a <meta "
                                    "http-equiv=\"refresh\">?), so there was nothing left to print") from None
            raise err
    content = base64.b64decode(data) if data else b""
    if not content:
        raise BrowserFailed("Chromium printed an empty PDF")
    pdf.write_bytes(content)


def print_pdf(html: Path, pdf: Path, timeout: float | None = None) -> None:
    """Print a local HTML file to PDF (read here: Chromium itself never opens a file)."""
    print_html(Path(html).read_text(encoding="utf-8"), pdf, timeout)


def dump_dom(html: Path, width: int = 794, height: int = 1123, timeout: float | None = None) -> str:
    """The page's DOM after its scripts ran, for the tests, which add a script that writes its
    findings. Scripts run here, so only pages of our own templates belong here (the page is
    still walled in: no files, no network)."""
    with _Browser(timeout) as browser:
        browser.load(Path(html).read_text(encoding="utf-8"), scripts=True, width=width, height=height,
                     doing="check")
        found = browser.run("Runtime.evaluate", {"expression": "document.documentElement.outerHTML",
                                                 "returnByValue": True}, "check")
    return found.get("result", {}).get("value", "")


def screenshot(html: Path, png: Path, width: int = 794, height: int = 1123, timeout: float | None = None) -> None:
    """A PNG of the page's first `width` × `height` pixels, scripts off."""
    with _Browser(timeout) as browser:
        browser.load(with_policy(Path(html).read_text(encoding="utf-8")), scripts=False, width=width,
                     height=height, doing="draw")
        data = browser.run("Page.captureScreenshot", {"format": "png"}, "draw").get("data", "")
    if not data:
        raise BrowserFailed(f"Chromium did not draw {png}")
    Path(png).write_bytes(base64.b64decode(data))


# ---------------------------------------------------------------- reading the printed PDF back

_OBJ = re.compile(rb"(?:^|[\r\n])(\d+) 0 obj\s*")
_REF = re.compile(rb"(\d+) 0 R")


def _objects(data: bytes) -> dict[int, bytes]:
    """Each object's text up to its `endobj` (streams' bytes included, unparsed)."""
    starts = [(int(m.group(1)), m.end()) for m in _OBJ.finditer(data)]
    out = {}
    for num, at in starts:
        end = data.find(b"endobj", at)
        out[num] = data[at:end if end >= 0 else len(data)]
    return out


def _pages(objects: dict[int, bytes], node: int, seen: set) -> list[int]:
    """The page objects under a page-tree node, in order."""
    if node in seen or node not in objects:
        return []
    seen.add(node)
    body = objects[node]
    kids = re.search(rb"/Kids\s*\[([^\]]*)\]", body)
    if kids is None or re.search(rb"/Type\s*/Page(?!s)", body):
        return [node]
    out = []
    for m in _REF.finditer(kids.group(1)):
        out += _pages(objects, int(m.group(1)), seen)
    return out


def named_pages(data: bytes) -> dict[str, int]:
    """The printed page (from 1) of each named destination of a PDF printed by Chromium: the
    elements with an id that a link of the page points at (the contents, `§` references).
    Chromium writes these as plain objects (`/Dests` in the catalog), read here without a PDF
    library; an empty result when the PDF holds none."""
    objects = _objects(data)
    catalog = next((body for body in objects.values() if re.search(rb"/Type\s*/Catalog", body)), None)
    if catalog is None:
        return {}
    root = re.search(rb"/Pages\s+(\d+) 0 R", catalog)
    dests = re.search(rb"/Dests\s+(\d+) 0 R", catalog)
    if root is None or dests is None:
        return {}
    number = {obj: i + 1 for i, obj in enumerate(_pages(objects, int(root.group(1)), set()))}
    out = {}
    for m in re.finditer(rb"/([^\s/\[\]<>()]+)\s*\[\s*(\d+) 0 R", objects.get(int(dests.group(1)), b"")):
        name = re.sub(rb"#([0-9A-Fa-f]{2})", lambda h: bytes([int(h.group(1), 16)]), m.group(1))
        page = number.get(int(m.group(2)))
        if page is not None:
            out[name.decode("utf-8", "replace")] = page
    return out
