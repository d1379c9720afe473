"""`book watch`: a live view of the workspace while people and runs change it.

It watches `output/` (the outline is inside it) and the source tree with `watchfiles`, and on
every debounced batch of changes:

- works out what the changes can affect (`affected`, a pure function of the changed paths and
  the outline), makes the scanner forget those files and rescans only those chapters: a hand
  edit shows as `edited` and what was made from it as `stale`; a source file change makes the
  research and R1 of the chapters that cite it stale (the scanner's input hashes say so);
- records each hand edit in the ledger (`hand_edit`, once per distinct body);
- rewrites `output/memory/checkpoint.md` when what it shows changed and no run holds the lock;
- redraws a compact table on stderr, or with `--json` prints one JSON line per batch on stdout:
  `{"changed": [paths], "chapters": {chNN: {step: status}} (the chapters affected),
    "edited": [...], "stale": [...] (the whole book, as `book scan`), "transitions":
    ["ch01 draft: done → edited", ...], "hand_edits": [paths recorded], "phase": N, "batch": N}`.

The watcher's own writes (checkpoint.md, the ledger under `output/.book/`, temp files) are
ignored, so it never wakes itself up."""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import sys
import time
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Any

from . import steps as step_registry
from .errors import ConfigError
from .state.board import checkpoint_text, write_checkpoint
from .state.book import Book
from .state.fsio import Lock
from .state.scan import status_word
from .state.spend import NAME as _SPEND
from .steps import BOOK_STEPS, CHECKPOINT, LOCK, ORDER, STATE_DB, STEPS, chapter_sort_key, step_of_path
from .views import SHORT

_REPLAN = (BOOK_STEPS[step_registry.OUTLINE].path, BOOK_STEPS[step_registry.STYLE_GUIDE].path)
_BOOK_PATHS = {s.path: k for k, s in BOOK_STEPS.items()}
_BOOK_DIR = STATE_DB.rsplit("/", 1)[0] + "/"  # output/.book/
_TMP_RE = re.compile(r"\.tmp\.[^/]*$")  # atomic_write's `.<name>.tmp.<pid>`, editors' `x.tmp.123`
# Directories that hold chapter-step files, and their ancestors: an event on one of these (a
# directory made, removed or renamed) may stand for files whose own events were not reported.
_STEP_DIRS = {s.path.rsplit("/", 1)[0] for s in STEPS.values()}
_DIR_EVENTS = {"/".join(d.split("/")[:i]) for d in _STEP_DIRS for i in range(1, d.count("/") + 2)}


# ---------------------------------------------------------------- pure: which changes matter


SPEND_JOURNAL = f"output/{_SPEND}"  # the spend journal: written with each paid call


def ignored(rel: str) -> bool:
    """Paths (relative to the workspace, posix) whose changes say nothing about the book's state,
    or that the watcher writes itself."""
    name = rel.rsplit("/", 1)[-1]
    return (name.endswith(".partial") or bool(_TMP_RE.search(name)) or ".bak." in name or ".corrupt." in name
            or rel in (CHECKPOINT, LOCK, SPEND_JOURNAL) or rel.startswith(LOCK + ".")  # .lock.stale.<pid>
            or rel.startswith(_BOOK_DIR) or rel + "/" == _BOOK_DIR)


def _source_sub(rel: str, source_rel: str | None) -> str | None:
    """`src/minikv/wal.py` -> `minikv/wal.py` when the source tree is `src`; None if not a source file."""
    if source_rel is None or rel.startswith("output/") or rel == "output":
        return None
    base = PurePosixPath(source_rel).as_posix()
    if base in ("", "."):
        return rel
    if rel.startswith(base + "/"):
        return rel[len(base) + 1:]
    return None


def affected(changes: Iterable[tuple[str, str]], outline, source_rel: str | None) -> dict[str, Any]:
    """What a batch of changes `[(kind, rel path)]` can affect, from the paths and the outline
    alone (`kind` is added / modified / deleted and does not matter: a file's state is re-read).

    Returns a dict:
      changed   the relevant changed paths (ignored ones dropped), sorted
      files     workspace files the scanner must re-read (chapter-step and book-level files)
      sources   changed paths inside the source tree, relative to it (their hashes are forgotten)
      chapters  chapters whose statuses must be recomputed, in chapter order
      all       True when every chapter must be recomputed: the outline or the style guide changed,
                or a directory of chapter files was made, removed or renamed
      checkpoint True when checkpoint.md may show something new (any relevant change)
    """
    changed: set[str] = set()
    files: set[str] = set()
    sources: set[str] = set()
    chapters: set[str] = set()
    everything = False
    known = [c.id for c in outline.chapters] if outline is not None else []
    for _kind, rel in changes:
        rel = PurePosixPath(rel).as_posix()
        if ignored(rel):
            continue
        changed.add(rel)
        if rel in _DIR_EVENTS:
            everything = True
            continue
        found = step_of_path(rel)
        if found is not None:
            ch, step = found
            files.add(rel)
            chapters.add(ch)
            if STEPS[step].long_memory and outline is not None:
                # R2 of every chapter that can see this one reads its long memory.
                chapters |= {c for c in known if c != ch and ch in outline.visible(c)}
            continue
        if rel in _BOOK_PATHS:
            files.add(rel)
            if rel in _REPLAN:  # every entry, source list, batch; every draft and R2
                everything = True
            continue
        sub = _source_sub(rel, source_rel)
        if sub is not None:
            sources.add(sub)
            if outline is not None:
                chapters |= {c.id for c in outline.chapters if sub in c.sources}
    if everything:
        chapters |= set(known)
    return {
        "changed": sorted(changed),
        "files": sorted(files),
        "sources": sorted(sources),
        "chapters": sorted(chapters, key=chapter_sort_key),
        "all": everything,
        "checkpoint": bool(changed),
    }


def diff(old: dict[str, dict[str, str]], new: dict[str, dict[str, str]]) -> list[str]:
    """Status changes between two matrices `{chapter: {step: status}}`, one line each,
    `ch01 draft: done → edited`. A chapter or step that is absent counts as `missing`."""
    out: list[str] = []
    keys = set(old) | set(new)
    order = {k: i for i, k in enumerate(ORDER)}
    for ch in sorted(keys, key=lambda c: chapter_sort_key(c) if re.match(r"^ch\d+$", c) else (10**9, c)):
        a, b = old.get(ch, {}), new.get(ch, {})
        for step in sorted(set(a) | set(b), key=lambda s: (order.get(s, len(order)), s)):
            was, now = a.get(step, "missing"), b.get(step, "missing")
            if was != now:
                out.append(f"{ch} {step}: {was} → {now}")
    return out


# ---------------------------------------------------------------- the watcher


def lock_held(root: Path) -> bool:
    """A run is writing: another process holds the kernel lock on `output/.lock`."""
    return Lock(root / LOCK).holder() is not None


def _matrix(snap) -> dict[str, dict[str, str]]:
    return {ch: {k: status_word(s) for k, s in steps.items()} for ch, steps in snap.chapters.items()}


def _book_row(snap) -> dict[str, str]:
    return {k: status_word(s) for k, s in snap.book.items()}


_UPDATED_RE = re.compile(r"^(Last updated|最后更新): .*$", re.M)


def _same_checkpoint(a: str, b: str) -> bool:
    return _UPDATED_RE.sub("", a) == _UPDATED_RE.sub("", b)


_SHORT_HEAD = {step_registry.RESEARCH: "res", step_registry.REVIEW: "rev", step_registry.MEMORY: "mem"}


class _View:
    """The compact table on stderr: rich when it is a terminal, plain text otherwise."""

    def __init__(self, out, root: Path):
        self.out = out
        self.root = root
        self.sym = SHORT
        self.live = None
        self.recent: list[str] = []
        isatty = getattr(out, "isatty", None)
        if callable(isatty) and isatty():
            from rich.console import Console
            from rich.live import Live

            self.live = Live(console=Console(file=out), auto_refresh=False, transient=False)
            self.live.start()

    def _plain(self, snap) -> str:
        lines = ["chapter batch " + " ".join(f"{k[:6]:>6}" for k in ORDER)]
        for ch, steps in snap.chapters.items():
            b = snap.batch_of(ch)
            lines.append(f"{ch:<7} {str(b or '-'):>5} " + " ".join(f"{self._cell(s):>6}" for s in steps.values()))
        return "\n".join(lines)

    def _cell(self, s) -> str:
        w = status_word(s)
        if w == "edited" and s.stale:
            return self.sym["edited"] + "🔄"
        return self.sym.get(w, "?")

    def _rich(self, snap, note: str):
        from rich import box
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text

        batch = f", batch {snap.batch}" if snap.batch else ""
        t = Table(title=f"book watch — {self.root.name}: phase {snap.phase}{batch}", box=box.SIMPLE_HEAD,
                  caption="✅ done ✍ by hand 🔄 stale ⚠️ half-finished · missing — Ctrl-C stops", expand=False)
        t.add_column("ch")
        t.add_column("b", justify="right")
        for k in ORDER:
            t.add_column(_SHORT_HEAD.get(k, k), justify="center")
        for ch, steps in snap.chapters.items():
            t.add_row(ch, str(snap.batch_of(ch) or "-"), *[self._cell(s) for s in steps.values()])
        return Group(t, Text(note))

    def show(self, snap, header: str, transitions: list[str], first: bool = False) -> None:
        stamp = _dt.datetime.now().strftime("%H:%M:%S")
        if self.live is not None:
            if header:
                self.recent = ([f"[{stamp}] {header}"] + [f"    {t}" for t in transitions] + self.recent)[:12]
            self.live.update(self._rich(snap, "\n".join(self.recent)), refresh=True)
            return
        w = self.out.write
        if header:
            w(f"[{stamp}] {header}\n")
        for t in transitions:
            w(f"    {t}\n")
        if first or transitions:
            w(self._plain(snap) + "\n")
        self.out.flush()

    def message(self, msg: str) -> None:
        if self.live is not None:
            self.live.console.print(msg)
        else:
            self.out.write(msg + "\n")
            self.out.flush()

    def close(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None


class Watcher:
    """The state between batches: the open book, the last matrix, the hand edits recorded."""

    def __init__(self, book, as_json: bool, out, jsonout):
        self.book = book
        self.root: Path = book.root
        self.scanner = book.scanner
        self.as_json = as_json
        self.jsonout = jsonout
        self.view = None if as_json else _View(out, self.root)
        from watchfiles import DefaultFilter

        self._default = DefaultFilter()
        self.out = out
        src = self.scanner.source_dir
        self.source_dir: Path | None = src if src is not None and src.is_dir() else None
        self.source_rel = (Path(os.path.relpath(self.source_dir, self.root)).as_posix()
                           if self.source_dir is not None else None)
        self.recorded: set[tuple[str, str]] = {
            (e["detail"].get("path"), e["detail"].get("body")) for e in book.ledger.events(type="hand_edit")}
        self.snap = book.snapshot()
        self.matrix = _matrix(self.snap)
        self.book_row = _book_row(self.snap)

    # ------------------------------------------------------------ paths

    def paths(self) -> list[Path]:
        out, src = self.root / "output", self.source_dir
        if src is None or src == out or out in src.parents:  # no source tree, or one inside output/
            return [out]
        if src in out.parents:  # the source tree holds the workspace (`source: .`)
            return [src]
        return [out, src]

    def rel(self, path: str) -> str | None:
        p = Path(path)
        try:
            return p.relative_to(self.root).as_posix()
        except ValueError:
            pass
        if self.source_dir is not None:
            try:
                return f"{self.source_rel}/{p.relative_to(self.source_dir).as_posix()}"
            except ValueError:
                pass
        return None

    def keep(self, _change, path: str) -> bool:
        """watchfiles' filter: editors' noise and the watcher's own writes are dropped."""
        if not self._default(_change, path):
            return False
        rel = self.rel(path)
        return rel is not None and not ignored(rel) and (
            rel == "output" or rel.startswith("output/") or _source_sub(rel, self.source_rel) is not None)

    # ------------------------------------------------------------ one batch

    def say(self, msg: str) -> None:
        if self.view is not None:
            self.view.message(msg)
        else:
            print(msg, file=self.out, flush=True)

    def start(self) -> None:
        self.refresh_checkpoint()
        self.say(f"watching {', '.join(str(p) for p in self.paths())} (Ctrl-C to stop)")
        for msg in self.book.warnings:  # e.g. an unreadable ledger: hand edits are then not recorded
            self.say(f"warning: {msg}")
        if self.view is not None:
            self.view.show(self.snap, "", [], first=True)

    def batch(self, raw: Iterable[tuple[Any, str]]) -> dict[str, Any] | None:
        changes = []
        for change, path in raw:
            rel = self.rel(path)
            if rel is not None:
                changes.append((getattr(change, "name", str(change)), rel))
        sc = self.scanner
        aff = affected(changes, sc.outline, self.source_rel)
        if not aff["changed"]:
            return None
        for sub in aff["sources"]:
            if self.source_dir is not None:
                sc.cache.forget(str(self.source_dir / sub))
        for rel in aff["changed"]:
            if rel.startswith("output/"):
                sc.cache.forget(str(self.root / rel))
        # a source change: the claims' checks read its lines again (the scanner keeps the source's
        # lines once read, for every chapter citing it), so everything is looked at afresh
        if aff["all"] or aff["sources"]:
            sc.invalidate(None)
        else:
            for rel in aff["files"]:
                sc.invalidate(rel)
            for ch in aff["chapters"]:
                for k in ORDER:
                    sc.invalidate(STEPS[k].file(ch))
            for s in BOOK_STEPS.values():  # audit/index/source map: cheap to re-check every time
                if not s.replans:
                    sc.invalidate(s.path)
        snap = self.book.snapshot()
        matrix, book_row = _matrix(snap), _book_row(snap)
        transitions = diff(self.matrix, matrix) + diff({"book": self.book_row}, {"book": book_row})
        shown = set(aff["chapters"]) | {t.split(" ", 1)[0] for t in transitions}
        if aff["all"]:
            shown |= set(matrix)
        edits = self.record_hand_edits(aff["changed"], snap)
        self.snap, self.matrix, self.book_row = snap, matrix, book_row
        self.refresh_checkpoint()
        self.book.save_cache()
        doc = {
            "changed": aff["changed"],
            "chapters": {ch: matrix[ch] for ch in sorted(shown & set(matrix), key=chapter_sort_key)},
            "edited": snap.edited,
            "stale": snap.stale,
            "transitions": transitions,
            "hand_edits": edits,
            "phase": snap.phase,
            "batch": snap.batch,
        }
        if self.as_json:
            self.jsonout.write(json.dumps(doc, ensure_ascii=False) + "\n")
            self.jsonout.flush()
        elif self.view is not None:
            n = len(aff["changed"])
            names = ", ".join(aff["changed"][:3]) + (f" and {n - 3} more" if n > 3 else "")
            what = "" if transitions else " — no status change"
            self.view.show(snap, f"{names}{what}", transitions)
        return doc

    def record_hand_edits(self, changed: list[str], snap) -> list[str]:
        out = []
        for rel in changed:
            found = step_of_path(rel)
            if found is not None:
                ch, step = found
                state = snap.chapters.get(ch, {}).get(step)
            elif rel in _BOOK_PATHS:
                ch, step = None, _BOOK_PATHS[rel]
                state = snap.book.get(step)
            else:
                continue
            if state is None or state.status != "edited":
                continue
            body = self.scanner.body_hash(rel)
            if (rel, body) in self.recorded:
                continue
            self.recorded.add((rel, body))
            self.book.ledger.event("hand_edit", None, ch, step, path=rel, body=body)
            out.append(rel)
        return out

    def refresh_checkpoint(self) -> bool:
        """Rewrite checkpoint.md if it no longer shows the files' state and no run is writing."""
        if not self.snap.chapters and not (self.root / CHECKPOINT).exists():
            return False
        if lock_held(self.root):
            return False
        text = checkpoint_text(self.book, self.snap)
        try:
            have = (self.root / CHECKPOINT).read_text(encoding="utf-8", errors="replace")
        except OSError:
            have = None
        if have is not None and _same_checkpoint(have, text):
            return False

        lock = Lock(self.root / LOCK)
        if not lock.try_acquire():  # a run started meanwhile: it rewrites checkpoint.md itself
            return False
        try:  # held only for the instant of the write
            write_checkpoint(self.book, self.snap)
        finally:
            lock.release()
        return True

    def close(self) -> None:
        if self.view is not None:
            self.view.close()


def _wait_for(path: Path, stop, out) -> bool:
    """Wait until `path` exists (True) or we are told to stop (False)."""
    told = False
    while not path.is_dir():
        if not told:
            print(f"waiting for {path} to appear (`book run` creates it; Ctrl-C to stop)", file=out, flush=True)
            told = True
        if stop is not None and stop.is_set():
            return False
        time.sleep(0.2)
    return True


def watch_workspace(root: str | os.PathLike[str], *, as_json: bool = False, debounce_ms: int = 300, stop=None,
                    out=None, jsonout=None) -> int:
    """Watch the workspace until Ctrl-C or `stop` (anything with `is_set()`) is set; returns the
    exit code (0). A workspace without book.yaml is watched too (output/ only)."""
    import watchfiles

    out = out if out is not None else sys.stderr
    jsonout = jsonout if jsonout is not None else sys.stdout
    root = Path(root).resolve()
    if not root.is_dir():
        raise ConfigError(f"workspace {root} does not exist", fix="pass --workspace DIR, or run `book init DIR`")
    w = None
    book = None
    try:
        if not _wait_for(root / "output", stop, out):
            return 0
        book = Book.open(root, require_config=False, repair=False)  # never moves a run's ledger aside
        w = Watcher(book, as_json, out, jsonout)
        w.start()
        # A batch is yielded once the tree has been quiet for `debounce_ms` (an editor's save is
        # several writes), or after 4x that while something keeps writing (a run's .partial files).
        quiet = max(10, int(debounce_ms))
        for raw in watchfiles.watch(*w.paths(), watch_filter=w.keep, debounce=4 * quiet, step=quiet,
                                    stop_event=stop, raise_interrupt=True):
            try:
                w.batch(raw)
            except KeyboardInterrupt:
                raise
            except Exception as e:  # a watcher reports and goes on; the next batch starts afresh
                book.scanner.invalidate(None)
                w.say(f"warning: {type(e).__name__}: {e}")
    except KeyboardInterrupt:
        pass
    finally:
        if w is not None:
            w.close()
        if book is not None:
            book.close()
    return 0
