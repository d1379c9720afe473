"""kill -9 of a real `book run --message-batches` process at each instant of a batch's life,
then `book resume` through the CLI: the book completes and no custom_id is ever submitted twice.

The instants, each a real SIGKILL of the `book` process:
- before the create call: the journal says "submitting", the server has nothing (a crash point
  in the engine, in the child process, that kills it there);
- before the create returns: the server has made the batch and holds its response (the fake's
  `hold("create")`), the test kills the process waiting for it;
- right after the create returned, before its batch id is journaled (crash point);
- during the results download: half the results received, the rest held by the fake.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import make_example, scan

from orchestrator.batches import journal as jr
from orchestrator.state.book import Book
from orchestrator.testing import fake_batches
from orchestrator.testing.fake_api import FakeAPI
from orchestrator.testing.role_answers import answer

BOOK = str(Path(sys.executable).parent / "book")
RUN = ["run", "--provider", "anthropic", "--message-batches", "-q"]


@pytest.fixture
def fake(monkeypatch):
    api = FakeAPI(answerer=answer)
    url = api.start()
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-kills")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    monkeypatch.setenv("BOOK_BATCH_POLL_SECONDS", "0.05")
    # the fake's creates land at once: a resume need not wait the real API's 60 s before it may
    # decide from the list that a submission's batch does not exist
    monkeypatch.setenv("BOOK_BATCH_SEARCH_GRACE", "1")
    yield api
    for h in fake_batches.store(api).holds:
        h.release()
    api.stop()


def crash_child(ws: Path, point: str, nth: int) -> subprocess.Popen:
    """`book run` in a child process whose batch engine SIGKILLs itself at the nth `point`."""
    script = textwrap.dedent(f"""
        import os, signal, sys
        from orchestrator.batches import engine
        seen = [0]
        def hook(where, journal):
            if where == {point!r}:
                seen[0] += 1
                if seen[0] == {nth}:
                    os.kill(os.getpid(), signal.SIGKILL)
        engine.crash_hook = hook
        sys.argv = ["book", *{RUN!r}, "--workspace", {str(ws)!r}]
        from orchestrator.main import main
        main()
    """)
    return subprocess.Popen([sys.executable, "-c", script], env=dict(os.environ),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def killed(p: subprocess.Popen, timeout: float = 120) -> None:
    assert p.wait(timeout) == -signal.SIGKILL


def resume_completes(fake: FakeAPI, ws: Path) -> None:
    st = fake_batches.store(fake)
    n_before = len(st.received)
    r = subprocess.run([BOOK, "resume", "--provider", "anthropic", "-q", "--workspace", str(ws)],
                       env=dict(os.environ), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert scan(ws)["complete"]
    assert len(st.received) == len(set(st.received)) >= n_before  # no custom_id twice
    assert not jr.waiting(ws / "output")
    book = Book.open(ws)
    try:  # every step's answer was paid for once: one ended call per committed step and attempt
        ended = [c for c in book.ledger.calls() if c["status"] != "started" and c["batch"]]
        keys = [(c["chapter"], c["step"], c["attempt"]) for c in ended]
        assert len(keys) == len(set(keys))
    finally:
        book.close()


def journals(ws: Path) -> list[jr.Journal]:
    return jr.load_all(ws / "output")


@pytest.mark.slow
def test_kill_before_the_create_call_then_resume(fake, tmp_path):
    ws = make_example(tmp_path / "ws", max_chapters=2)
    killed(crash_child(ws, "before_create", nth=2))  # the chapters' first wave: research of both
    st = fake_batches.store(fake)
    js = [j for j in journals(ws) if j.batch_id is None]
    assert len(js) == 1 and js[0].state == "submitting" and len(js[0].items) == 2
    assert len(st.batches) == 1  # only the outline's batch reached the server
    resume_completes(fake, ws)


@pytest.mark.slow
def test_kill_while_the_create_call_has_not_returned_then_resume(fake, tmp_path):
    """The server made the batch; the process dies waiting for the response that carries its
    id. The resume finds it by listing the batches and collects it: nothing is submitted again."""
    ws = make_example(tmp_path / "ws", max_chapters=2)
    st = fake_batches.store(fake)
    held = st.hold("create", min_requests=2)
    p = subprocess.Popen([BOOK, *RUN, "--workspace", str(ws)], env=dict(os.environ),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert held.reached.wait(120), "no batch of two requests was created"
    finally:
        p.send_signal(signal.SIGKILL)
        killed(p)
        held.release()
    [j] = [j for j in journals(ws) if j.batch_id is None]
    assert j.state == "submitting" and len(st.batches) == 2
    resume_completes(fake, ws)
    j = jr.load(j.path)
    assert j.batch_id in st.batches and j.note == "re-attached by listing"  # the batch the server had


@pytest.mark.slow
def test_kill_right_after_the_create_returned_then_resume(fake, tmp_path):
    ws = make_example(tmp_path / "ws", max_chapters=2)
    st = fake_batches.store(fake)
    st.delay = 0.3
    killed(crash_child(ws, "after_create", nth=2))
    [j] = [j for j in journals(ws) if j.batch_id is None]
    assert j.state == "submitting" and len(st.batches) == 2  # made on the server, its id not journaled
    st.delay = 0.0
    resume_completes(fake, ws)
    j = jr.load(j.path)
    assert j.batch_id in st.batches and j.note == "re-attached by listing"  # not sent again


@pytest.mark.slow
def test_kill_during_the_results_download_then_resume(fake, tmp_path):
    """Half of a batch's results downloaded (and maybe committed), the process dies: the resume
    downloads the results again, commits only what is not committed, submits nothing again."""
    ws = make_example(tmp_path / "ws", max_chapters=2)
    st = fake_batches.store(fake)
    held = st.hold("results", min_requests=2)
    p = subprocess.Popen([BOOK, *RUN, "--workspace", str(ws)], env=dict(os.environ),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert held.reached.wait(120), "no batch of two results was downloaded"
        time.sleep(0.3)  # the client reads what it was sent
    finally:
        p.send_signal(signal.SIGKILL)
        killed(p)
        held.release()
    [j] = [j for j in journals(ws) if j.open]  # the interrupted batch: its results not all handled
    assert j.batch_id in st.batches and any(it.outcome is None for it in j.items)
    n_batches = len(st.batches)
    resume_completes(fake, ws)
    assert not jr.load(j.path).open
    assert len(st.batches) > n_batches  # the later waves only


@pytest.mark.slow
def test_kill_after_some_results_were_committed_then_resume(fake, tmp_path):
    """The engine's crash point after one result of a two-request batch was committed and
    journaled: the resume commits the other one only."""
    ws = make_example(tmp_path / "ws", max_chapters=2)
    killed(crash_child(ws, "result", nth=2))  # the outline's result, then the first of the research wave
    [j] = [j for j in journals(ws) if j.open]
    assert sum(it.outcome == "committed" for it in j.items) == 1 and len(j.items) == 2
    resume_completes(fake, ws)
    book = Book.open(ws)
    try:
        research = [c for c in book.ledger.calls() if c["step"] == "research" and c["status"] != "started"]
        assert len(research) == 2  # each chapter's research paid once
    finally:
        book.close()
