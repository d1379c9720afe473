"""Opening a workspace: its config (optional for read-only commands), the ledger, the hash
cache and a scanner over the files, plus the views every command shares (`scan_report`)."""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from .. import config as config_mod
from ..errors import ConfigError, ValidationFailed
from ..repo.summary import recorded_summary
from ..steps import (
    BOOK_STEPS,
    CHECKPOINT,
    CORRECTIONS,
    GATE_MODES,
    LOCK,
    NEEDS_HUMAN,
    OUTLINE,
    RESUME,
    REVIEW,
    SOURCE_MAP,
    STATE_DB,
)
from . import statemachine
from .fsio import Workspace
from .hashcache import HashCache
from .ledger import Ledger
from .markers import short_hash
from .scan import Scanner, Snapshot, snapshot, status_word


@dataclass
class Book:
    ws: Workspace
    cfg: config_mod.Config
    ledger: Ledger
    cache: HashCache
    scanner: Scanner
    warnings: list[str] = field(default_factory=list)
    lock: Any = None  # the writer's fsio.Lock, released by close()
    # What a command computes once from files it does not write (the source tree's R1 index
    # and map, the checks of a draft): kept for the life of this Book, i.e. one run.
    memo: dict[Any, Any] = field(default_factory=dict)
    # When the command began (state.lock.command_start: the file system's clock), before it read
    # anything: a marker-less file saved since is a person's, our writer never makes one
    started_ns: int = 0

    @property
    def root(self) -> Path:
        return self.ws.root

    @classmethod
    def open(cls, root: str | os.PathLike[str], require_config: bool = True, repair: bool = True) -> Book:
        """`repair=False` (scan): a damaged ledger is reported and left alone."""
        from .lock import command_start

        started = command_start()  # before anything is read: a save from this instant on is during the command
        root = Path(root).resolve()
        if not root.is_dir():
            raise ConfigError(f"workspace {root} does not exist", fix="pass --workspace DIR, or run `book init DIR`")
        cfg = config_mod.load(root, require=require_config, check_source=require_config)
        from .fsio import Lock, refuse_directories  # a writer's: not on the scan's path

        lock = None
        if repair:  # a writer: it holds the lock from before it touches the ledger until close()
            lock = Lock(root / LOCK)
            lock.acquire()  # a second writer changes nothing, not even the ledger
        try:
            if repair:
                refuse_directories(root, [CHECKPOINT, NEEDS_HUMAN, RESUME])
            db = root / STATE_DB
            if not repair and not (root / "output").is_dir():
                ledger = Ledger(None, db, [])  # a scan of a tree with no output/ creates nothing
            else:
                ledger = Ledger.open(db, repair=repair)
            cache = HashCache(ledger.load_hashes())
            src = cfg.source_dir if cfg.file is not None else None
            scanner = Scanner(root, cache, src, config_hash=style_hash(cfg) if cfg.file is not None else None)
            scanner.site_hash = site_hash(cfg) if cfg.file is not None else None
            scanner.evidence_min = cfg.evidence_min if cfg.file is not None else None
            scanner.gates = cfg.gates if cfg.file is not None else None
            scanner.gate_grain = cfg.gate_grain if cfg.file is not None else None
        except BaseException:
            if lock is not None:
                lock.release()
            raise
        book = cls(Workspace(root), cfg, ledger, cache, scanner, list(ledger.warnings), lock, started_ns=started)
        if cfg.file is not None:
            scanner.quality_hash = _quality_input(weakref.ref(book))
        return book

    def snapshot(self) -> Snapshot:
        return snapshot(self.scanner)

    def save_cache(self) -> None:
        self.ledger.store_hashes(self.cache.dirty)
        self.cache.dirty.clear()

    def __del__(self) -> None:
        # A Book dropped without close() (a quick look in a script or a test) lets go of the
        # lock, so that the next writer in another process is not refused.
        lock = getattr(self, "lock", None)
        if lock is not None:
            try:
                lock.release()
            except Exception:  # at interpreter exit: the kernel releases it anyway
                pass

    def close(self) -> None:
        try:
            self.save_cache()
            self.ledger.close()
        finally:
            if self.lock is not None:
                self.lock.release()
                self.lock = None

    def needs_human(self) -> dict[str, str]:
        """Chapters listed in output/memory/needs-human.md (a file: it survives a lost ledger)."""
        p = self.root / NEEDS_HUMAN
        out: dict[str, str] = {}
        try:
            for line in p.read_text(encoding="utf-8").splitlines():
                if line.startswith("- ch") and ":" in line:
                    ch, _, why = line[2:].partition(":")
                    out[ch.strip()] = why.strip()
        except OSError:
            pass
        return out


def _quality_input(ref: weakref.ref) -> Callable[[], str | None]:
    """The audit's `quality` input, asked by the scanner of this Book (a weak reference: a Book
    dropped without close() still lets go of its lock)."""
    def ask() -> str | None:
        book = ref()
        if book is None:
            return None
        from .quality_view import input_hash

        return input_hash(book)
    return ask


def require_book(workspace: str | os.PathLike[str]) -> None:
    """A reading command (scan, log, cost, replay, watch) outside a book exits 2 naming the
    directory, as `book run` does, rather than printing an empty answer. A bare tree of files
    (an `output/` without book.yaml) is a book to scan."""
    root = Path(workspace)
    if not root.is_dir():
        raise ConfigError(f"workspace {root} does not exist", fix="pass --workspace DIR, or run `book init DIR`")
    if not (root / "book.yaml").exists() and not (root / "output").exists():
        raise ConfigError("no book here: neither book.yaml nor output/", str(root.resolve()),
                          fix="run `book init` to create one, or pass --workspace DIR")


def chapter_state(book: Book, ch: str, steps, needs: dict[str, str] | None = None, retries: int = 0):
    """The state machine's view of a chapter, derived from its files and the gate cards."""
    review = steps[REVIEW]
    blocked = ""
    verdict = review.marker.extra.get("verdict") if review.marker and review.status == "done" else None
    if verdict == "clean":
        pass  # the orchestrator's verdict, for this very body: no need to read the file
    elif review.fresh:  # read once per version of the file (the hash cache keeps the answer)
        blocked = book.cache.verdict(f"{book.root}/{review.path}", "blocked", partial(_blocked, review.path),
                                     (review.size, review.mtime_ns) if review.mtime_ns else None) or ""
    from .evidence_view import chapter_evidence

    ev = chapter_evidence(book, ch, steps)
    state = statemachine.derive(steps, review_blocked=blocked, needs_human=(needs or {}).get(ch, ""), retries=retries,
                                evidence=ev.state, evidence_reason=ev.reason(book.cfg.evidence_min))
    gate = statemachine.GATE_BEFORE.get(state.phase)
    approval = "not_required"
    if gate and book.cfg.file is not None and gate in GATE_MODES.get(book.cfg.gates, ()):
        from . import gatecards

        seen = []
        for g in gatecards.gates_held(book, state.phase, gate, book.cfg.gates):
            card = gatecards.read_card(book, g, ch)
            if card is None or card.artifact_hash != gatecards.current_hash(book, g, ch):
                seen.append("pending")
            else:
                seen.append({"approved": "approved", "pending": "pending"}.get(card.decision, "rejected"))
        # every gate that holds this phase: one rejected or waiting is the chapter's approval
        approval = next((a for a in ("rejected", "pending") if a in seen), "approved" if seen else "not_required")
    return state.with_approval(approval)


def _blocked(rel: str, data: bytes) -> str:
    """Why the merged review `rel` (its bytes) holds the chapter for a person; "" if it does not."""
    if b"block" not in data.lower():  # cheap test first (any spelling a person uses): most reviews are clean
        return ""
    from ..contracts import review_state

    try:  # read strictly; the verdict computed from the findings and a person's Verdict: line
        rs = review_state(data.decode("utf-8", "replace"), file=rel)
        return (rs.reason or "blocked") if rs.verdict == "blocked" else ""
    except ValidationFailed as e:  # unreadable: held for a person, with file and line
        return f"the merged review cannot be read: {e}"


def _live_statuses(book: Book) -> dict[tuple[str, str], str]:
    """`running` (a live run holds the lock and started the step) and `failed` (the ledger's
    last word on a step whose file is not there): the statuses that need more than
    the files. A bare tree has neither lock nor ledger, so a scan of it never reports them."""
    out = {(w.chapter, w.step): "in_batch" for w in _in_batch(book) if w.chapter}
    last = book.ledger.last_step_events()
    if not last:
        return out

    from .fsio import Lock

    live_run = None
    if Lock(book.root / LOCK).live_owner() is not None:
        starts = book.ledger.events(type="run_start", limit=1)
        live_run = starts[-1]["run"] if starts else None
    for key, (typ, run) in last.items():
        if key in out:
            continue  # waiting in a Message Batch says more than the ledger's last event
        if typ == "step_failed":
            out[key] = "failed"
        elif typ == "step_start" and live_run is not None and run == live_run:
            out[key] = "running"
    return out


def _in_batch(book: Book) -> list[Any]:
    """Steps waiting in a Message Batch (the journals under output/.book/batches/), oldest first."""
    if not (book.root / "output/.book/batches").is_dir():  # never batched: keep the journal code off the scan
        return []
    from ..batches import journal

    try:
        return list(journal.waiting(book.root / "output").values())
    except (OSError, journal.JournalError) as e:
        book.warnings.append(f"the Message Batches journals could not be read: {e}")
        return []


def style_hash(cfg: config_mod.Config) -> str:
    # Not the title: the site takes it from book.yaml when it publishes, and a new title must
    # not make the style guide, and so every draft, stale.
    return short_hash(f"{cfg.language}\n{cfg.audience}")


def site_hash(cfg: config_mod.Config) -> str:
    """What the published pages show from book.yaml: a new title republishes, redrafts nothing."""
    return short_hash(f"{cfg.title}\n{cfg.language}\n{cfg.audience}")


def order_warning(snap: Snapshot) -> list[str]:
    moved = snap.outline.listed_out_of_order if snap.outline else None
    if not moved:
        return []
    a, b = moved
    return [f"{BOOK_STEPS[OUTLINE].path} lists {a} before {b}, but the book reads its chapters in the order of "
            f"their numbers ({b} before {a}): listing them in another order changes nothing; to move a chapter, "
            "swap the ids of the entries (a chapter whose entry changes is written again)"]


def _corrections_problems(root: Path) -> list[str]:
    """What cannot be read in a person's corrections.md (its parser loads only when there is one)."""
    if not (root / CORRECTIONS).exists():
        return []
    from . import corrections

    return corrections.load(root).problems


def scan_report(book: Book, snap: Snapshot | None = None) -> dict[str, Any]:
    """The document of `book scan --json` (its keys are a public contract)."""
    from .evidence_view import chapter_evidence, citation_warnings, claim_health, follow_view, revision
    from .person_files import kept_files, not_utf8, unreadable_memory
    from .quality_view import scan_object as quality_object

    snap = snap or book.snapshot()
    needs = book.needs_human()
    retries = book.ledger.retry_counts()
    waiting: list[str] = []
    live = _live_statuses(book)
    if book.cfg.file is not None and (book.root / "output/gates").is_dir():
        from . import gatecards

        for c in gatecards.pending(book, list(snap.chapters)):
            waiting.append(c.path)
            for ch in ([c.chapter] if c.chapter else c.waiting()):  # a group card: each chapter still waiting
                live.setdefault((ch, gatecards.holds(c.gate, gatecards.grain_of(book))), "needs_human")
    chapters = {}
    for ch, steps in snap.chapters.items():
        state = chapter_state(book, ch, steps, needs, retries.get(ch, 0))
        # status_word, inline (a big book has tens of thousands of states)
        words = {k: "stale" if s.status == "done" and s.stale else s.status for k, s in steps.items()}
        if live:
            for k, w in words.items():  # what only the lock, the ledger and the cards can tell
                if w in ("missing", "half_finished") and (ch, k) in live:
                    words[k] = live[(ch, k)]
        chapters[ch] = {"batch": snap.batch_of(ch), **state.as_dict(), "steps": words,
                        "claims": chapter_evidence(book, ch, steps).as_dict()}
    discrepancies: list[str] = []
    cp = book.root / CHECKPOINT
    if cp.exists():
        from . import checkpoint

        try:
            discrepancies = checkpoint.compare(snap, cp.read_text(encoding="utf-8", errors="replace"), book.cfg.language)
        except OSError as e:
            discrepancies = [f"checkpoint.md unreadable: {e}"]
    elif snap.chapters:
        discrepancies = ["checkpoint.md is missing; `book scan --rebuild` or `book resume` rewrites it"]
    return {
        "workspace": str(book.root),
        "phase": snap.phase,
        "batch": snap.batch,
        "complete": snap.complete,
        "book": {k: status_word(s) for k, s in snap.book.items()},
        "chapters": chapters,
        "half_finished": snap.half_finished,
        "kept_for_person": kept_files(book, snap) if snap.half_finished else {},  # marker-less but complete
        "stale": snap.stale,
        "edited": snap.edited,
        "needs_human": sorted(needs),
        "gates_waiting": waiting,
        "waiting_in_batch": [{"chapter": w.chapter, "step": w.step, "submission": w.submission,
                              "batch_id": w.batch_id, "state": w.state} for w in _in_batch(book)],
        "discrepancies": discrepancies,
        "outline_error": snap.outline_error,
        "warnings": (book.warnings + order_warning(snap) + not_utf8(book.root, snap.edited + snap.half_finished, book.cache, snap.versions)
                     + (unreadable_memory(book, snap) if snap.edited else []) + _corrections_problems(book.root)
                     + citation_warnings(book, snap)),
        "source": recorded_summary(book.root / BOOK_STEPS[SOURCE_MAP].path),  # the last walk's, from source-map.md
        "revision": revision(book).as_dict() if book.cfg.file is not None else None,
        "claim_health": claim_health(book, snap),
        "follow": follow_view(book, snap) if book.cfg.file is not None else {},  # the last section rewrites
        "quality": quality_object(book),  # the audit's figures as last measured (state.quality_view)
    }



def init_workspace(dest: str | os.PathLike[str], source: str | None = None, example: bool = False,
                   title: str | None = None, language: str | None = None) -> list[str]:
    """`book init`: write book.yaml (every key, its default, a comment); with `example`, also a
    small sample source tree to write about. Refuses to overwrite an existing book.yaml."""
    import shutil

    from ..resources import builtin
    from .fsio import atomic_write

    root = Path(dest).resolve()
    if source is not None and not example:  # checked before anything is made
        # as people type it: relative to where the command runs; stored relative to the book
        # when it lies inside or beside it, so that the book moves with its source
        src = Path(os.path.abspath(source))
        config_mod.check_source_dir(src, source)
        config_mod.check_source_has_files(src, source)
        source = config_mod.stored_source(root, src)
    root.mkdir(parents=True, exist_ok=True)
    made: list[str] = []
    cfg = root / "book.yaml"
    if cfg.exists():
        raise ConfigError("book.yaml already exists; nothing was changed", str(cfg),
                          fix="edit it, or choose another directory")
    if example:
        # the sample goes where book.yaml will point: --source, else src/
        source = source or "./src"
        target = root / source
        if target.exists():
            raise ConfigError(f"{target} already exists; nothing was changed",
                              fix="use --source with your own tree, or another --source for the sample")
        shutil.copytree(builtin("example"), target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        made.append(source.removeprefix("./").rstrip("/") + "/")
        title = title or ("minikv 源码解读：一个小型键值存储" if language == "zh"
                          else "Inside minikv: a small key-value store, explained")
    elif source is None:
        source = "./src"  # not there yet, maybe: book.yaml says where to point it
    if title is None and (root / source).is_dir():  # the project's own name, from its manifest or README
        from ..authoring.project import project_name

        title = config_mod.DEFAULT_TITLES.get(language or "en", config_mod.DEFAULT_TITLES["en"]).format(
            name=project_name(root / source))
    atomic_write(cfg, config_mod.render_default(title=title, source=source, language=language,
                                                project=root / source if (root / source).is_dir() else None))
    made.insert(0, "book.yaml")
    return made
