"""The published site in a real browser: headless Chromium, pages loaded from file://,
driven over the DevTools protocol on a pipe (stdlib only: no websocket library).

Checks: no console error or exception on any page (a CSP violation is one), search finds
the one chapter that has a word (Latin and Chinese), previous/next and glossary links
resolve to files that exist, ← → keys navigate, the sidebar collapses on a phone-sized
screen, and no request leaves file:// (DNS is mapped to nothing as well)."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import shutil
import struct
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from orchestrator import publish
from orchestrator.publish import ChapterDoc, Site
from orchestrator.resources import builtin

pytestmark = pytest.mark.slow

CHROMIUM = "/usr/bin/chromium"
TEMPLATES = builtin("templates")


def _find_chromium() -> str:
    """The browser, installed once with apt-get if missing; skip with a reason otherwise."""
    found = shutil.which("chromium") or (CHROMIUM if os.path.exists(CHROMIUM) else None)
    if found:
        return found
    try:
        # A fresh machine's package lists may be empty: update them once, then install.
        subprocess.run(["apt-get", "update", "-q"], capture_output=True, text=True, timeout=600)
        r = subprocess.run(
            ["apt-get", "install", "-y", "-q", "chromium"], capture_output=True, text=True, timeout=900
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        pytest.skip(f"chromium is not installed and `apt-get install -y chromium` could not run: {e}")
    found = shutil.which("chromium") or (CHROMIUM if os.path.exists(CHROMIUM) else None)
    if r.returncode != 0 or not found:
        pytest.skip(
            f"chromium is not installed and `apt-get install -y chromium` failed "
            f"(exit {r.returncode}): {(r.stderr or r.stdout).strip()[-300:]}"
        )
    return found


class Browser:
    """A minimal DevTools client over --remote-debugging-pipe (fd 3: commands in, fd 4:
    responses and events out, each message a JSON text ended by NUL)."""

    def __init__(self, exe: str, profile: Path, log: Path):
        cmd_r, self._cmd_w = os.pipe()
        self._res_r, res_w = os.pipe()
        args = [
            exe,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-default-apps",
            "--metrics-recording-only",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            f"--user-data-dir={profile}",
            "--remote-debugging-pipe",
            "about:blank",
        ]
        # A tiny Python trampoline puts our pipe ends on the fds 3 and 4 that Chromium expects
        # (portable: no shell needed, and no preexec_fn).
        trampoline = (
            f"import os, sys; os.dup2({cmd_r}, 3); os.dup2({res_w}, 4); os.execv(sys.argv[1], sys.argv[1:])"
        )
        self._log = open(log, "wb")  # noqa: SIM115  (closed in close(), it outlives this method)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", trampoline, *args],
            pass_fds=(cmd_r, res_w),
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
        )
        os.close(cmd_r)
        os.close(res_w)
        self._next_id = 0
        self._inbox: queue.Queue[dict] = queue.Queue()
        self.events: list[dict] = []
        threading.Thread(target=self._reader, daemon=True).start()
        try:
            target = self.call("Target.createTarget", url="about:blank")["targetId"]
            self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
            for domain in ("Page", "Runtime", "Log", "Network"):
                self.call(f"{domain}.enable", session=True)
        except Exception:
            self.close()
            raise

    def _reader(self) -> None:
        buf = b""
        while True:
            try:
                chunk = os.read(self._res_r, 1 << 16)
            except OSError:
                return
            if not chunk:
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                self._inbox.put(json.loads(raw))

    def _pump(self, timeout: float) -> dict | None:
        try:
            msg = self._inbox.get(timeout=timeout)
        except queue.Empty:
            return None
        if "method" in msg:
            self.events.append(msg)
        return msg

    def call(self, method: str, session: bool = False, timeout: float = 30, **params) -> dict:
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            reply = self._pump(0.2)
            if reply is not None and reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
        raise TimeoutError(method)

    def wait_event(self, method: str, since: int, timeout: float = 15) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for ev in self.events[since:]:
                if ev["method"] == method:
                    return ev
            self._pump(0.1)
        raise TimeoutError(method)

    def goto(self, url: str) -> None:
        mark = len(self.events)
        self.call("Page.navigate", session=True, url=url)
        self.wait_event("Page.loadEventFired", mark)

    def js(self, expression: str):
        r = self.call(
            "Runtime.evaluate", session=True, expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in r:
            raise RuntimeError(r["exceptionDetails"])
        return r["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.js(expression)
            if value:
                return value
            self._pump(0.1)
        raise TimeoutError(expression)

    def set_search(self, text: str) -> None:
        self.js(
            f"(() => {{ const i = document.getElementById('Search'); i.value = {json.dumps(text)}; "
            "i.dispatchEvent(new Event('input')); })()"
        )

    def key(self, key: str, code: str, text: str = "", vk: int = 0) -> None:
        for kind in ("keyDown", "keyUp"):
            params = {"type": kind, "key": key, "code": code, "windowsVirtualKeyCode": vk}
            if text and kind == "keyDown":
                params["text"] = text
            self.call("Input.dispatchKeyEvent", session=True, **params)

    def errors(self) -> list[str]:
        out = []
        for ev in self.events:
            p = ev.get("params", {})
            if ev["method"] == "Runtime.exceptionThrown":
                out.append(json.dumps(p.get("exceptionDetails", {}))[:300])
            elif ev["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append(json.dumps(p.get("args", []))[:300])
            elif ev["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append(p["entry"].get("text", "")[:300])
        return out

    def requests(self) -> list[str]:
        return [
            ev["params"]["request"]["url"]
            for ev in self.events
            if ev["method"] == "Network.requestWillBeSent"
        ]

    def close(self) -> None:
        with contextlib.suppress(Exception):  # already gone: the wait below returns at once
            self.call("Browser.close", timeout=5)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._cmd_w)
        self._log.close()


EN_CHAPTERS = (
    ChapterDoc(
        "ch01",
        "Storing keys",
        "How a write reaches the disk.",
        1,
        "# Storing keys\n\nEvery put goes to the write-ahead log first.\n\n## The log\n\n"
        "```python file=minikv/store.py\n"
        "def put(self, key, value):\n    self.log.append((key, value))\n```\n\n"
        "See [compaction](ch02.md#compaction) and [the spec](https://example.org/spec).\n",
    ),
    ChapterDoc(
        "ch02",
        "Compaction",
        "Merging segments.",
        1,
        "# Compaction\n\n## Compaction\n\nOld segments are merged by the zanzibarite merger.\n",
    ),
    ChapterDoc(
        "ch03",
        "Reading",
        "Finding a key.",
        2,
        "# Reading\n\nA read checks the memtable, then each segment.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
        "![the read path](figures/read-path.png)\n",
    ),
)
EN_GLOSSARY = (
    ("write-ahead log", "A log written before the data.", "ch01"),
    ("segment", "An immutable sorted file.", "ch02"),
    ("memtable", "Recent writes in memory.", "ch03"),
)

ZH_CHAPTERS = (
    ChapterDoc(
        "ch01",
        "存储引擎",
        "写入如何落盘。",
        1,
        "# 存储引擎\n\n存储引擎先写预写日志。\n\n## 写入路径\n\n数据先进入内存表。\n",
    ),
    ChapterDoc("ch02", "压缩", "合并段文件。", 1, "# 压缩\n\n后台线程合并段文件，清理墓碑标记。\n"),
)


def _png() -> bytes:
    """A 2×2 PNG, made here so that the test needs no binary fixture."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\0" + b"\x20\x60\xa0" * 2 for _ in range(2))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def _publish(site: Site, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    (out / "figures").mkdir(exist_ok=True)
    (out / "figures" / "read-path.png").write_bytes(_png())
    files, problems = publish.render_site(site)
    assert problems == []
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    exe = _find_chromium()
    tmp = tmp_path_factory.mktemp("browser")
    b = Browser(exe, tmp / "profile", tmp / "chromium.log")
    try:
        yield b
    finally:
        b.close()


@pytest.fixture(scope="module")
def en_site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("en")
    site = Site("Inside minikv", "en", "developers", EN_CHAPTERS, EN_GLOSSARY, (TEMPLATES,), root=out)
    return _publish(site, out)


@pytest.fixture(scope="module")
def zh_site(tmp_path_factory) -> Path:
    site = Site(
        "深入 minikv", "zh", "开发者", ZH_CHAPTERS, (("预写日志", "先写的日志。", "ch01"),), (TEMPLATES,)
    )
    return _publish(site, tmp_path_factory.mktemp("zh"))


# The hrefs of the chapters a search lists, once there are any.
HIT_HREFS = """(() => {
    const a = Array.from(document.querySelectorAll('#SearchList .search-hit-title'));
    return a.length ? a.map(x => x.getAttribute('href')) : null; })()"""


def _file_of(url: str) -> Path:
    u = urlparse(url)
    assert u.scheme == "file", url
    return Path(unquote(u.path))


def test_pages_load_without_errors_and_without_network(browser, en_site):
    pages = ["index.html", "ch01.html", "ch02.html", "ch03.html", "glossary.html", "print.html"]
    for name in pages:
        browser.goto((en_site / name).as_uri())
        assert browser.js("document.documentElement.classList.contains('js')"), (
            f"book.js did not run on {name}"
        )
        # Everything a page loads is relative; only reader-clicked links may point outside.
        loaded = browser.js("""Array.from(document.querySelectorAll('[src], link[href]'))
            .map(e => e.getAttribute('src') || e.getAttribute('href'))""")
        assert loaded and all("://" not in u and not u.startswith("//") for u in loaded), (name, loaded)
        # (cssRules cannot be read from file://: look at a computed style instead)
        assert browser.js("getComputedStyle(document.querySelector('.topbar')).position") == "sticky", (
            f"book.css not applied on {name}"
        )
    # A local image loads under the page's Content-Security-Policy.
    browser.goto((en_site / "ch03.html").as_uri())
    assert (
        browser.wait_for(
            "document.querySelector('main img').complete && document.querySelector('main img').naturalWidth"
        )
        == 2
    )
    # Open the search so the lazily loaded index is fetched too.
    browser.goto((en_site / "ch01.html").as_uri())
    browser.js("document.getElementById('Search').focus()")
    browser.wait_for("!!window.BOOK_SEARCH")
    assert browser.errors() == []
    requests = browser.requests()
    assert requests, "no request was seen at all: the network log is not working"
    assert all(u.startswith("file://") for u in requests), [
        u for u in requests if not u.startswith("file://")
    ]


def test_search_lists_the_chapter_that_has_the_word(browser, en_site):
    browser.goto((en_site / "ch01.html").as_uri())
    browser.key("/", "Slash", "/", 191)  # the shortcut focuses the search box
    assert browser.js("document.activeElement && document.activeElement.id") == "Search"
    browser.call("Input.insertText", session=True, text="zanzibarite")
    hits = browser.wait_for(HIT_HREFS)
    assert hits == ["ch02.html"]
    assert browser.js("document.getElementById('SearchResults').hidden") is False
    assert "zanzibarite" in browser.js("document.querySelector('#SearchList mark').textContent").lower()
    # A prefix finds it too, and a title word ranks its chapter first.
    browser.set_search("")
    browser.call("Input.insertText", session=True, text="zanzib")
    assert (
        browser.wait_for("""(() => { const a = document.querySelector('#SearchList .search-hit-title');
        return a && a.getAttribute('href'); })()""")
        == "ch02.html"
    )
    browser.set_search("reading")
    assert (
        browser.wait_for("""(() => { const a = document.querySelector('#SearchList .search-hit-title');
        return a && a.textContent.includes('Reading') && a.getAttribute('href'); })()""")
        == "ch03.html"
    )
    # Enter opens the best result.
    mark = len(browser.events)
    browser.key("Enter", "Enter", "\r", 13)
    browser.wait_event("Page.loadEventFired", mark)
    assert browser.js("location.pathname").endswith("/ch03.html")
    assert browser.errors() == []


def test_search_works_for_chinese(browser, zh_site):
    browser.goto((zh_site / "ch01.html").as_uri() + "?search=墓碑")
    hits = browser.wait_for(HIT_HREFS)
    assert hits == ["ch02.html"]
    browser.set_search("写入路径")
    section = browser.wait_for("""(() => { const a = document.querySelector('#SearchList .search-sections a');
        return a && a.getAttribute('href'); })()""")
    assert section == "ch01.html#写入路径"
    assert browser.js("document.documentElement.lang") == "zh"
    assert browser.errors() == []


def test_navigation_links_resolve_and_arrow_keys_move(browser, en_site):
    browser.goto((en_site / "ch02.html").as_uri())
    prev = browser.js("document.querySelector('a[rel=prev]').href")
    nxt = browser.js("document.querySelector('a[rel=next]').href")
    assert _file_of(prev).name == "ch01.html" and _file_of(prev).is_file()
    assert _file_of(nxt).name == "ch03.html" and _file_of(nxt).is_file()
    # Every glossary link names a file that exists and an id in it.
    browser.goto((en_site / "ch01.html").as_uri())
    terms = browser.js("Array.from(document.querySelectorAll('a.glossary-term')).map(a => a.href)")
    assert terms
    glossary = (en_site / "glossary.html").read_text(encoding="utf-8")
    for url in terms:
        assert _file_of(url).is_file()
        assert f'id="{unquote(urlparse(url).fragment)}"' in glossary
    # Every link the page holds to a file of the site exists.
    local = browser.js("""Array.from(document.querySelectorAll('a[href]')).map(a => a.href)
        .filter(h => h.startsWith('file:'))""")
    assert local and all(_file_of(u).is_file() for u in local), [
        u for u in local if not _file_of(u).is_file()
    ]
    # → goes to the next chapter, ← comes back.
    mark = len(browser.events)
    browser.key("ArrowRight", "ArrowRight", "", 39)
    browser.wait_event("Page.loadEventFired", mark)
    assert browser.js("location.pathname").endswith("/ch02.html")
    mark = len(browser.events)
    browser.key("ArrowLeft", "ArrowLeft", "", 37)
    browser.wait_event("Page.loadEventFired", mark)
    assert browser.js("location.pathname").endswith("/ch01.html")
    assert browser.errors() == []


def test_phone_layout_collapses_the_sidebar(browser, en_site):
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        session=True,
        width=390,
        height=800,
        deviceScaleFactor=2,
        mobile=True,
    )
    try:
        browser.goto((en_site / "ch01.html").as_uri())
        hidden = "getComputedStyle(document.getElementById('Sidebar')).visibility"
        assert browser.js(hidden) == "hidden"
        assert browser.js("document.getElementById('SidebarToggle').getAttribute('aria-expanded')") == "false"
        browser.js("document.getElementById('SidebarToggle').click()")
        assert browser.wait_for(f"{hidden} === 'visible'")
        assert browser.js("document.getElementById('SidebarToggle').getAttribute('aria-expanded')") == "true"
        # The text fits the screen: nothing but code blocks scrolls sideways.
        assert browser.js("document.documentElement.scrollWidth <= window.innerWidth + 1")
    finally:
        browser.call("Emulation.clearDeviceMetricsOverride", session=True)
    assert browser.errors() == []


def test_dark_mode_follows_the_system_preference(browser, en_site):
    background = "getComputedStyle(document.body).backgroundColor"
    keyword = "getComputedStyle(document.querySelector('.highlight .k')).color"
    browser.goto((en_site / "ch01.html").as_uri())
    light = browser.js(background), browser.js(keyword)
    browser.call(
        "Emulation.setEmulatedMedia",
        session=True,
        features=[{"name": "prefers-color-scheme", "value": "dark"}],
    )
    try:
        dark = browser.js(background), browser.js(keyword)
    finally:
        browser.call("Emulation.setEmulatedMedia", session=True, features=[])
    assert light[0] == "rgb(255, 255, 255)"
    assert dark[0] != light[0] and dark[1] != light[1]  # the page and the code colours both change
    assert sum(int(v) for v in re.findall(r"\d+", dark[0])[:3]) < 150  # and the page is dark
