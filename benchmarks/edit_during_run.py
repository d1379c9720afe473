#!/usr/bin/env python3
"""Random edits during a run (issue 22, item 1): N trials, each a `book run` (in-process, the
offline provider) over a copy of a built two-chapter book, during which a person saves one model
step's file at a random instant: while its model call goes, or just before the k-th file-system
mutation of the run (any instant among the run's writes: before the step starts, between its set-
aside and its commit, inside the commit), from a timer thread at a random time, or at the run's
start (just before it takes the workspace's lock, just after, or a timer within its first
milliseconds). The step's file was missing, stale (an upstream file edited), or redone (`book
redo`); the save keeps the marker and adds a line, drops the marker line (a whole-chapter paste),
creates the file, or leaves a text cut short (a chapter saved half-written, no marker).
A trial loses a byte when the file does not end the run holding exactly what the person saved;
it moves the person's file aside when a `.bak` beside it holds what they saved. `--strategy`
runs every trial under that recovery strategy (aggressive continues a half-finished text).

usage: python benchmarks/edit_during_run.py [TRIALS] [--seed S] [--strategy conservative|aggressive]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

from orchestrator.providers.offline import OfflineProvider
from orchestrator.state import fsio
from orchestrator.state.lock import Lock
from orchestrator.steps import STEPS, Node
from orchestrator.testing.helpers import make_example, run_book

MODEL_STEPS = [k for k, s in STEPS.items() if s.model]
UPSTREAM = {"draft": "research", "r1": "draft", "r2": "draft", "r3": "draft", "review": "r1", "panel": "draft",
            "memory": "draft", "final": "review"}


def _add_line(text: str, line: str) -> str:
    """A sentence added above the marker line (the marker kept)."""
    head, sep, marker = text.rpartition("\n<!--")
    return (head.rstrip() + f"\n\n{line}\n" + sep + marker) if sep else text + f"\n{line}\n"


def _without_marker(text: str) -> str:
    head, sep, _ = text.rpartition("\n<!--")
    return (head if sep else text).rstrip() + "\n"


class Person:
    """One save of one file, once; what it saved is what the file must hold at the end."""

    def __init__(self, path: Path, how: str, rename: bool, rng: random.Random):
        self.path, self.how, self.rename, self.rng = path, how, rename, rng
        self.saved: str | None = None
        self.when = ""
        self.lock = threading.Lock()

    def save(self, when: str) -> None:
        with self.lock:
            if self.saved is not None:
                return
            try:
                old = self.path.read_text(encoding="utf-8")
            except OSError:
                old = ""
            note = f"A person's sentence {self.rng.randrange(10**9)}."
            if self.how == "keep_marker" and "<!--" in old:
                text = _add_line(old, note)
            elif self.how == "drop_marker" and old.strip():
                text = _without_marker(_add_line(old, note))
            elif self.how == "cut_short":  # half-written: no marker, it stops mid-sentence
                body = _without_marker(old).rstrip() if old.strip() else "# A chapter a person is writing"
                text = f"{body}\n\n{note} It goes on, and the person is still typing the rest of this"
            else:  # a new file, pasted: a whole chapter without a marker line
                text = f"# A chapter a person wrote\n\n{note} It is complete and ends with a full stop.\n"
            if self.rename:  # an editor's save: write beside, rename over
                tmp = self.path.with_name(f".{self.path.name}.swp")
                tmp.write_text(text, encoding="utf-8")
                os.replace(tmp, self.path)
            else:
                self.path.write_text(text, encoding="utf-8")
            self.saved, self.when = text, when


def trial(base: Path, ws: Path, rng: random.Random, mutations_hint: int, strategy: str) -> tuple[bool, bool, str]:
    """(no byte lost, the person's file not moved aside, what the trial did)."""
    shutil.copytree(base, ws)
    ch = rng.choice(["ch01", "ch02"])
    step = rng.choice(MODEL_STEPS)
    instant = rng.choice(["call", "mutation", "timer", "start"])
    # a redo replaces the file by request: its saves are aimed at the step itself, not at the run's start
    starts = ["missing", "stale"] if step in UPSTREAM else ["missing"]
    start = rng.choice(starts if instant == "start" else [*starts, "redo"])
    path = ws / STEPS[step].file(ch)
    redo: set[Node] = set()
    if start == "missing":
        path.unlink()
    elif start == "stale":
        up = ws / STEPS[UPSTREAM[step]].file(ch)
        up.write_text(_add_line(up.read_text(encoding="utf-8"), "An upstream edit, before the run."), encoding="utf-8")
    else:
        redo = {Node(ch, step)}
    person = Person(path, rng.choice(["keep_marker", "drop_marker", "new_file", "cut_short"]), rng.random() < 0.5, rng)
    at_start = rng.choice(["before the lock", "after the lock", "timer"]) if instant == "start" else ""
    k = rng.randrange(max(1, mutations_hint))
    count = [0]
    started = [False]

    def hook(kind: str, p: Path) -> None:
        if kind == "partial" and p.name == path.name + ".partial":
            started[0] = True
        # a redo replaces the file by request: the person's save counts from the step's start
        if instant == "mutation" and (started[0] or start != "redo"):
            count[0] += 1
            if count[0] == k:
                person.save(f"before mutation {k} ({kind} {p.name})")

    class AtTheKeyboard(OfflineProvider):
        async def generate(self, req, sink):
            if instant == "call" and (req.chapter, req.step) == (ch, step):
                person.save("during its model call")
            return await super().generate(req, sink)

    acquire = Lock.acquire

    def at_the_lock(self, wait=None):  # the run's first moments: opening the workspace
        if at_start == "before the lock":
            person.save("just before the run took its lock")
        acquire(self, wait)
        if at_start == "after the lock":
            person.save("just after the run took its lock")

    timer = None
    if at_start == "timer":
        timer = threading.Timer(rng.uniform(0, 0.02), lambda: person.save("in the run's first milliseconds"))
        timer.start()
    if instant == "timer":
        def later() -> None:
            while start == "redo" and not started[0]:
                time.sleep(0.001)
                if done.is_set():
                    return
            person.save("from a timer")
        done = threading.Event()
        time.sleep(0)
        timer = threading.Timer(rng.uniform(0, 0.6), later)
        timer.start()
    fsio.mutation_hook = hook
    Lock.acquire = at_the_lock  # type: ignore[method-assign]
    try:
        code, _ = run_book(ws, provider=AtTheKeyboard(), strategy=strategy, redo=redo)
    finally:
        Lock.acquire = acquire  # type: ignore[method-assign]
        fsio.mutation_hook = None
        if timer is not None:
            if instant == "timer":
                done.set()
            timer.cancel()
            timer.join()
    what = f"{ch} {step} ({start}, {person.how}{', rename' if person.rename else ''}, {instant}: {person.when or 'no save'})"
    if person.saved is None:
        return True, True, what + " -> no save landed"
    try:
        now = path.read_text(encoding="utf-8")
    except OSError:
        now = None
    moved = [b.name for b in path.parent.glob(path.name + ".bak*") if _holds(b, person.saved)]
    return now == person.saved, not moved, what + f" -> exit {code}" + (f", moved to {moved[0]}" if moved else "")


def _holds(p: Path, text: str) -> bool:
    try:
        return p.read_text(encoding="utf-8") == text
    except (OSError, UnicodeDecodeError):
        return False


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("trials", nargs="?", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=22)
    ap.add_argument("--strategy", default="conservative", choices=["conservative", "aggressive"])
    a = ap.parse_args()
    os.environ.setdefault("BOOK_OFFLINE_LATENCY", "0.01")  # calls take a moment: a timer can land in one
    rng = random.Random(a.seed)
    tmp = Path(tempfile.mkdtemp(prefix="edit-during-run-"))
    base = make_example(tmp / "base", max_chapters=2, batch_size=1)
    assert run_book(base)[0] == 0
    n_mut = [0]
    probe = tmp / "probe"
    shutil.copytree(base, probe)
    (probe / STEPS["draft"].file("ch01")).unlink()
    fsio.mutation_hook = lambda kind, p: n_mut.__setitem__(0, n_mut[0] + 1)
    try:
        run_book(probe)
    finally:
        fsio.mutation_hook = None
    lost, aside, landed, t0 = 0, 0, 0, time.monotonic()
    for t in range(a.trials):
        ok, kept, what = trial(base, tmp / f"t{t}", rng, n_mut[0], a.strategy)
        landed += "no save landed" not in what
        lost += not ok
        aside += not kept
        if not (ok and kept):
            print(f"trial {t}: {'LOST' if not ok else 'MOVED ASIDE'} {what}", flush=True)
        elif t % 50 == 0:
            print(f"trial {t}: ok {what}", flush=True)
        shutil.rmtree(tmp / f"t{t}", ignore_errors=True)
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"{a.trials} trials, strategy {a.strategy} ({landed} with a save during the run) in "
          f"{time.monotonic() - t0:.0f} s: {lost} lost a byte of a person's text, {aside} moved a person's file to .bak")
    return 1 if lost or aside else 0


if __name__ == "__main__":
    sys.exit(main())
