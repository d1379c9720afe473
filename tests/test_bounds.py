"""Issue 22 (items 4-8): what a run says and settles at the edges: a reordered outline named by
`book run` as by `book scan`, a pasted final accepted, an audit that read a missing final,
file names the walker accepts, and a signal during the plan of a huge tree."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import scan
from conftest_fake_api import DUMMY_KEY

from orchestrator.steps import BOOK_STEPS, STEPS
from orchestrator.testing.cli import run_cli
from orchestrator.testing.fake_api import FakeAPI
from orchestrator.testing.helpers import run_book


def test_a_run_warns_of_an_outline_listed_out_of_order_as_the_scan_does(built_ws: Path):
    outline = built_ws / BOOK_STEPS["outline"].path
    text = outline.read_text()
    a, b, end = text.index("- id: ch02"), text.index("- id: ch03"), text.index("- id: ch04")
    outline.write_text(text[:a] + text[b:end] + text[a:b] + text[end:])
    proc = run_cli("run", "--workspace", str(built_ws))
    assert proc.returncode == 0, proc.stderr
    assert "outline.md lists ch03 before ch02" in proc.stderr and "swap the ids" in proc.stderr


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_accepting_a_final_that_only_lost_its_marker_settles_it(built_ws: Path):
    final = built_ws / STEPS["final"].file("ch03")
    lines = final.read_text().rstrip("\n").split("\n")
    assert lines[-1].startswith("<!-- CHAPTER_FINAL")
    final.write_text("\n".join(lines[:-1]) + "\n")  # a whole-file paste without the marker line
    code, _ = run_book(built_ws)
    assert code == 3  # kept for the person: it waits for `book accept`
    proc = run_cli("accept", "ch03", "final", "--workspace", str(built_ws))
    assert proc.returncode == 0, proc.stderr
    rep = scan(built_ws)
    assert rep["chapters"]["ch03"]["steps"]["final"] == "edited"
    assert "ch03" not in (built_ws / "output/memory/needs-human.md").read_text()
    code, summary = run_book(built_ws)
    assert code == 0, summary.needs_human
    assert scan(built_ws)["complete"]


ODD_NAMES = ("a b.py", 'q"uote.py', "it's.py", "ünï.py", "{{ jinja }}.py")
REFUSED = {"new\nline.py": "new\\nline.py", " lead.py": " lead.py", "tick`s.py": "tick's.py"}


def _odd_source(ws: Path) -> Path:
    pkg = ws / "src" / "odd"
    pkg.mkdir(parents=True)
    for i, name in enumerate(ODD_NAMES + tuple(REFUSED)):
        (pkg / name).write_text(f'"""Odd module {i}."""\n\n\nclass Odd{i}:\n    """The odd thing {i}."""\n\n'
                                f"    def size(self) -> int:\n        return {i}\n\n\n"
                                f"def odd_{i}(x: int) -> int:\n    \"\"\"Odd helper {i}.\"\"\"\n"
                                + "".join(f"    x += {k}\n" for k in range(40)) + "    return x\n")
    return pkg


def _planned_sources(ws: Path) -> set[str]:
    from orchestrator.outline import load

    o = load(ws)
    assert o is not None
    return {s for c in o.chapters for s in c.sources}


def _check_odd_names_round_trip(ws: Path, code: int, summary) -> None:
    assert code == 0, summary.needs_human
    planned = _planned_sources(ws)
    for name in ODD_NAMES:
        assert f"odd/{name}" in planned, (name, sorted(planned))
    assert not planned & {f"odd/{name}" for name in REFUSED}
    source_map = (ws / "output/memory/source-map.md").read_text()
    for shown in REFUSED.values():  # the walk names each refused file, a newline escaped
        assert f"odd/{shown}" in source_map and "rename it" in source_map
    assert scan(ws)["complete"]


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_odd_file_names_round_trip_offline_or_are_named_at_the_walk(tmp_path: Path):
    from orchestrator.testing.helpers import make_example

    ws = make_example(tmp_path / "ws", max_chapters=40)
    _odd_source(ws)
    code, summary = run_book(ws)
    _check_odd_names_round_trip(ws, code, summary)


@pytest.fixture
def fake(monkeypatch):
    from orchestrator.testing.role_answers import answer

    api = FakeAPI(answerer=answer)
    monkeypatch.setenv("ANTHROPIC_API_KEY", DUMMY_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.start())
    yield api
    api.stop()


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_odd_file_names_round_trip_through_the_planner_prompt_and_claude(tmp_path: Path, fake):
    from orchestrator.providers.anthropic import AnthropicProvider
    from orchestrator.testing.helpers import make_example

    ws = make_example(tmp_path / "ws", max_chapters=40)
    _odd_source(ws)
    code, summary = run_book(ws, provider=AnthropicProvider(concurrency=8, base_delay=0.01, max_delay=0.05))
    _check_odd_names_round_trip(ws, code, summary)


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.5, 1.5, 3.0, 6.0])
def test_a_sigint_at_any_moment_of_the_plan_of_source_root_exits_within_a_second(tmp_path: Path, delay: float):
    """`source: /`: the walk (bounded at 20,000 files), the map, the ranking and the offline
    planner all take seconds; a signal in any of them ends the run within a second, exit 130."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from orchestrator.state.book import init_workspace

    ws = tmp_path / "ws"
    init_workspace(ws, source="/")
    book = str(Path(sys.executable).parent / "book")
    proc = subprocess.Popen([book, "run", "--workspace", str(ws)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "ANTHROPIC_API_KEY": ""})
    time.sleep(delay)
    if proc.poll() is not None:  # a quiet machine plans `/` in a few seconds: this moment is past
        err = proc.communicate()[1]
        assert proc.returncode in (0, 3), err[-800:]
        pytest.skip(f"the plan of / ended before {delay} s")
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        err = proc.communicate(timeout=10)[1]
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    took, rc = time.monotonic() - sent, proc.returncode
    assert rc == 130, err[-800:]
    # the goal, 1 s (issue 22). benchmarks/sigint_root.py, 20 signals at random moments on this 2-core
    # machine shared with other jobs: max 0.44 s, and with a busy process on each core max 0.49 s
    # (median 0.19 s): the bound leaves twice the loaded worst for a slower CI machine
    assert took < 1.0, f"exit took {took:.2f} s after SIGINT at {delay} s"
    assert "book resume" in err


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_an_audit_that_read_no_final_of_a_chapter_is_stale_once_that_final_is_accepted(built_ws: Path):
    final = built_ws / STEPS["final"].file("ch03")
    lines = final.read_text().rstrip("\n").split("\n")
    final.write_text("\n".join(lines[:-1]) + "\n\nA paragraph the person added.\n")  # pasted, changed, no marker
    (built_ws / BOOK_STEPS["audit"].path).unlink()  # the next audit is made while ch03 has no complete final
    code, _ = run_book(built_ws)
    assert code == 3
    assert (built_ws / BOOK_STEPS["audit"].path).exists()  # audited without ch03, which waits for the person
    assert scan(built_ws)["chapters"]["ch03"]["steps"]["final"] != "edited"
    proc = run_cli("accept", "ch03", "final", "--workspace", str(built_ws))
    assert proc.returncode == 0, proc.stderr
    assert BOOK_STEPS["audit"].path in scan(built_ws)["stale"]  # it never read ch03's final: redone
    code, summary = run_book(built_ws)
    assert code == 0, summary.needs_human
    assert scan(built_ws)["complete"]


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_a_signal_while_the_pages_are_published_stops_the_run(tmp_path: Path, monkeypatch):
    """The pages and the index are derived steps that never wait: a SIGINT during them used
    to print "stopping cleanly", publish to the end and exit 0."""
    import os
    import signal

    from orchestrator.errors import Interrupted
    from orchestrator.pipeline import publishing
    from orchestrator.testing.helpers import make_example

    ws = make_example(tmp_path / "ws")
    published: list[str] = []
    real = publishing.publish_chapter

    def publish_then_signal(runner, ch: str, **kw) -> list[str]:
        published.append(ch)
        if len(published) == 1:
            os.kill(os.getpid(), signal.SIGINT)  # a person's Ctrl-C while the first page is written
        return real(runner, ch, **kw)

    monkeypatch.setattr(publishing, "publish_chapter", publish_then_signal)
    with pytest.raises(Interrupted):
        run_book(ws)
    assert 1 <= len(published) <= 2  # the page being written when the signal came, at most one more
    assert not (ws / "output/publish/index.html").exists()
    monkeypatch.setattr(publishing, "publish_chapter", real)
    code, summary = run_book(ws)  # and the next run publishes the rest
    assert code == 0, summary.needs_human
    assert scan(ws)["complete"]


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_a_wide_directory_plans_fast_and_keeps_every_file(tmp_path: Path):
    """3,000 modules of one directory (the merging was cubic: 1,000 took 45 s, 2,000 never ended):
    every code file in exactly one chapter, within the chapter bound, in seconds."""
    import sys
    import time

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from bench_plan_wide import make_wide

    from orchestrator.authoring import plan, project

    p = project.load(make_wide(tmp_path / "src", 3000))
    t0 = time.perf_counter()
    groups = plan.group_files(p, 12)
    took = time.perf_counter() - t0
    files = [f for g in groups for f in g]
    assert sorted(files) == p.code_files() and len(files) == len(set(files)) == 3001
    assert 1 <= len(groups) <= 12 and all(groups)
    assert took < 10, f"group_files took {took:.1f} s"


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_a_signal_while_the_loop_s_own_thread_walks_the_tree_ends_that_walk_within_entries(tmp_path: Path, monkeypatch):
    """The first checkpoint hashes the source tree (no git: its content hash) on the loop's thread,
    where the loop cannot hear a signal until it is done: seconds on a huge tree. The stop flag
    set by the signal's own handler ends it within a hundred entries, and the run stops, exit 130."""
    import asyncio
    import os
    import signal
    import threading

    from orchestrator.errors import Interrupted
    from orchestrator.repo import walk as walk_mod
    from orchestrator.testing.helpers import make_example

    ws = make_example(tmp_path / "ws")
    wide = ws / "src" / "wide"
    wide.mkdir()
    for i in range(3000):
        (wide / f"m{i:04}.py").write_text(f"def f{i}():\n    return {i}\n")
    real = walk_mod._Walker._entry
    on_loop: list[int] = []

    def entry(self, *a):
        if threading.current_thread() is threading.main_thread() and asyncio._get_running_loop() is not None:
            on_loop.append(1)
            if len(on_loop) == 10:
                os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while the loop's thread walks
        return real(self, *a)

    monkeypatch.setattr(walk_mod._Walker, "_entry", entry)
    with pytest.raises(Interrupted):
        run_book(ws)
    assert 10 <= len(on_loop) <= 10 + 2 * walk_mod.STOP_CHECK_EVERY  # not the 3,000 entries of the tree
    assert "interrupted" in (ws / "RESUME.md").read_text()
    code, summary = run_book(ws)  # and the stop flag is not left set: the next run walks the tree
    assert code == 0, summary.needs_human


def test_a_cancelled_daemon_worker_stops_computing():
    """A worker that checks no flag (a ranking, a planner) is abandoned at its next bytecode once
    the task awaiting it is cancelled: it would otherwise hold the interpreter during the stop."""
    import asyncio
    import threading

    from orchestrator.signals import in_daemon_thread

    ended = threading.Event()

    def busy() -> None:
        try:
            n = 0
            while True:
                n += 1
        finally:
            ended.set()

    async def main() -> None:
        task = asyncio.create_task(in_daemon_thread(busy))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert ended.wait(2)


def test_a_worker_that_has_left_its_work_is_never_hit(monkeypatch):
    """Once a worker leaves its work, abandoning it sends nothing: the system gives an ended
    thread's id to the next thread started, and `Stopping` raised in a thread before it says it has
    started leaves `Thread.start` waiting forever (a full run of the suite hung so once)."""
    import threading

    from orchestrator import signals

    sent: list[tuple[int, object]] = []
    monkeypatch.setattr(signals, "_set_async_exc", lambda ident, exc: sent.append((ident, exc)))
    gate = signals._Gate()
    worker = threading.Thread(target=gate.leave)
    worker.start()
    worker.join()
    gate.abandon(worker)
    assert [exc for _, exc in sent] == [None]  # only the worker's own "take back", no Stopping

    inside = signals._Gate()
    busy = threading.Thread(target=threading.Event().wait, args=(0.2,))
    busy.start()
    inside.abandon(busy)
    busy.join()
    assert sent[-1] == (busy.ident, signals.Stopping)


def test_cancelling_daemon_workers_while_threads_start_never_hangs_a_start():
    """Many workers abandoned as they finish, while other threads are being started: every start
    returns (with the id-reuse race, one of them could wait forever)."""
    import asyncio
    import threading

    from orchestrator.signals import in_daemon_thread

    async def round_() -> None:
        task = asyncio.create_task(in_daemon_thread(sum, range(2_000)))
        await asyncio.sleep(0)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass

    async def main() -> None:
        for _ in range(200):
            await round_()
            t = threading.Thread(target=lambda: None, daemon=True)
            t.start()  # hangs if a stray `Stopping` hit it before it said it started
            t.join(2)
            assert not t.is_alive()

    asyncio.run(main())


def test_watch_stop_sets_the_flag_at_once_and_undoes_itself():
    import signal

    from orchestrator.repo.walk import WalkStopped, walk
    from orchestrator.signals import stop_requested, watch_stop

    before = signal.getsignal(signal.SIGINT)
    undo = watch_stop()
    try:
        assert not stop_requested()
        signal.raise_signal(signal.SIGINT)  # no KeyboardInterrupt: the flag's handler took it
        assert stop_requested()
        with pytest.raises(WalkStopped):
            walk(Path(__file__).parent)
    finally:
        undo()
    assert not stop_requested() and signal.getsignal(signal.SIGINT) is before
