"""Message Batches through the real SDK against the fake API on 127.0.0.1: the engine, its
journal in files, re-attaching after a kill at each crash point, and the fake's endpoints.
Across every scenario the fake records each custom_id it accepts, and none is ever
submitted twice."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from conftest_fake_api import fake_api  # noqa: F401  (fixture)

from orchestrator.batches import engine as engine_mod, journal as jr
from orchestrator.batches.engine import BatchEngine, BatchItem, Verdict
from orchestrator.providers.base import Request, Usage
from orchestrator.state.fsio import atomic_write
from orchestrator.state.markers import compose, looks_like_marker, read_marker, short_hash
from orchestrator.testing import fake_batches

MODEL = "claude-sonnet-5-5"


class Killed(BaseException):
    """A simulated kill -9: nothing in the engine catches a BaseException that is not its own."""


class Pipeline:
    """What the runner does around the engine: a chapter's draft is made from its research
    report; a result is validated and written through the marker protocol."""

    def __init__(self, root: Path, chapters: list[str]):
        self.root = root
        self.out = root / "output"
        self.chapters = chapters
        self.commits: dict[str, int] = {}
        for ch in chapters:
            self.write_input(ch, f"# Research for {ch}\n\nWidgets, gadgets and sprockets of {ch}.\n")

    def write_input(self, ch: str, text: str) -> None:
        atomic_write(self.out / f"research/{ch}-report.md", text)

    def input_hash(self, ch: str) -> str:
        return short_hash((self.out / f"research/{ch}-report.md").read_bytes())

    def target(self, ch: str) -> str:
        return f"chapters/draft/{ch}-draft.md"

    def item(self, ch: str, feedback: str = "") -> BatchItem:
        report = (self.out / f"research/{ch}-report.md").read_text()
        req = Request("writer", "draft", ch, "You are the writer of a technical book.",
                      f"Draft chapter {ch}.\n\n{report}", model=MODEL, max_tokens=4000,
                      shared="Book context.", feedback=feedback)
        return BatchItem.from_request(req, self.target(ch), self.input_hash(ch))

    def items(self) -> list[BatchItem]:
        return [self.item(ch) for ch in self.chapters]

    # ---- the callbacks
    def is_current(self, it: jr.Item) -> bool:
        return self.input_hash(it.chapter) == it.input_hash

    def commit(self, it: jr.Item, result) -> Verdict:
        path = self.out / it.target
        if path.exists():  # idempotent: a target already marked from these inputs is committed
            mk = read_marker(path)
            if mk is not None and mk.inputs.get("research") == it.input_hash:
                return Verdict(True)
        text = result.text
        if looks_like_marker(text):
            return Verdict(False, "the answer contains text that looks like a completion marker")
        if not text.lstrip().startswith("# "):
            return Verdict(False, "the answer must begin with a `# Title` line")
        atomic_write(path, compose(text, "DRAFT_COMPLETE", {"research": it.input_hash}, "test-run"))
        self.commits[it.target] = self.commits.get(it.target, 0) + 1
        return Verdict(True)

    def rebuild(self, it: jr.Item, feedback: str) -> BatchItem:
        return self.item(it.chapter, feedback)

    def engine(self, **kw) -> BatchEngine:
        self.calls: list[dict] = getattr(self, "calls", [])
        self.progress: list = getattr(self, "progress", [])
        self.notices: list[str] = getattr(self, "notices", [])
        opts = dict(commit=self.commit, is_current=self.is_current, rebuild=self.rebuild,
                    on_call=self.calls.append, on_progress=self.progress.append, notice=self.notices.append,
                    poll_interval=0.02, poll_max=0.1, retry_delay=0.01, retry_max=0.05, search_grace=0.0)
        opts.update(kw)
        return BatchEngine(self.out, **opts)

    def done(self, ch: str) -> bool:
        p = self.out / self.target(ch)
        if not p.exists():
            return False
        mk = read_marker(p)
        return mk is not None and mk.name == "DRAFT_COMPLETE" and \
            mk.inputs.get("research") == self.input_hash(ch)


def run(coro):
    return asyncio.run(coro)


def wave(eng: BatchEngine, items: list[BatchItem] | None = None):
    """engine.run_wave(items) (engine.resume() without items), closing its client after."""
    async def go():
        async with eng:
            return await (eng.run_wave(items) if items is not None else eng.resume())

    return run(go())


@pytest.fixture
def batches(fake_api):  # noqa: F811
    st = fake_batches.store(fake_api)
    st.delay = 0.05
    return st


def no_duplicates(st: fake_batches.BatchStore) -> None:
    assert st.received, "nothing was submitted"
    assert len(st.received) == len(set(st.received)), f"a custom_id was submitted twice: {st.received}"


def journals(p: Pipeline) -> list[jr.Journal]:
    return jr.load_all(p.out)


# ---------------------------------------------------------------------------- the engine

def test_happy_path_commits_every_step_at_the_batch_price(tmp_path, batches):
    from orchestrator.providers.anthropic import cost_usd

    p = Pipeline(tmp_path, ["ch01", "ch02", "ch03", "ch04"])
    rep = wave(p.engine(), p.items())
    assert sorted(it.chapter for it in rep.committed) == p.chapters
    assert rep.to_stream == [] and rep.retry == [] and rep.discarded == []
    assert all(p.done(ch) for ch in p.chapters)
    assert len(batches.batches) == 1  # one wave, one batch
    no_duplicates(batches)
    [j] = journals(p)
    assert j.state == "done" and j.batch_id in batches.batches
    assert all(it.outcome == "committed" and it.custom_id.startswith(j.submission + "-") for it in j.items)
    # each result logged once, as a batch call at half the standard price
    assert len(p.calls) == 4 and all(c["batch"] == 1 and c["error"] is None for c in p.calls)
    assert all(c["status"] == "ok" for c in p.calls)  # as a streamed call's row says it (not NULL)
    for c in p.calls:
        u = Usage(c["input_tokens"], c["output_tokens"], c["cache_creation_tokens"], c["cache_read_tokens"])
        assert c["output_tokens"] > 0
        assert c["cost_usd"] == pytest.approx(cost_usd(u, MODEL) / 2)
    # progress reports the batch's request counts, ending with all succeeded
    last = [pr for pr in p.progress if pr.batch_id == j.batch_id][-1]
    assert last.counts["succeeded"] == 4 and last.counts["processing"] == 0
    # the answers are the fake's streaming answers for the same request
    body = batches.batches[j.batch_id].requests[0]["params"]
    # built by the streaming path's builder (providers.anthropic.build_params): same breakpoints
    assert "stream" not in body and body["system"][-1]["cache_control"] == {"type": "ephemeral"}


def test_errored_and_expired_requests_go_into_the_next_batch(tmp_path, batches):
    p = Pipeline(tmp_path, ["ch01", "ch02", "ch03"])
    batches.outcome("errored", match="ch02", error_type="api_error")
    batches.outcome("expired", match="ch03")
    rep = wave(p.engine(), p.items())
    assert sorted(it.chapter for it in rep.committed) == p.chapters and rep.to_stream == []
    assert len(batches.batches) == 2
    second = list(batches.batches.values())[1]
    assert sorted(r["custom_id"].split("-")[2] for r in second.requests) == ["ch02", "ch03"]
    no_duplicates(batches)
    first = journals(p)[0]
    assert {it.chapter: it.outcome for it in first.items} == {"ch01": "committed", "ch02": "requeued",
                                                               "ch03": "requeued"}
    assert "api_error" in first.items[1].reason
    assert any(c["error"] and "api_error" in c["error"] and c["status"] == "error" for c in p.calls)


def test_requests_that_keep_failing_in_a_batch_are_streamed(tmp_path, batches):
    p = Pipeline(tmp_path, ["ch01", "ch02", "ch03"])
    batches.outcome("errored", match="ch01", times=10)
    batches.outcome("errored", match="ch02", error_type="invalid_request_error")
    rep = wave(p.engine(max_batch_retries=1), p.items())
    assert [it.chapter for it in rep.committed] == ["ch03"]
    handed = {h.chapter: h for h in rep.to_stream}
    assert set(handed) == {"ch01", "ch02"}
    assert "2 tries" in handed["ch01"].reason  # one batch retry, then streaming
    assert "invalid_request_error" in handed["ch02"].reason  # a batch cannot fix an invalid request
    assert len(batches.batches) == 2
    no_duplicates(batches)
    # a later wave does not put a step that was handed to streaming into a batch again
    again = run(p.engine().run_wave([p.item("ch01")]))
    assert [h.chapter for h in again.to_stream] == ["ch01"] and len(batches.batches) == 2


def test_a_result_that_fails_validation_is_reasked_with_the_reason(tmp_path, batches):
    p = Pipeline(tmp_path, ["ch01", "ch02"])
    batches.fake.malformed("Just some words without a title.", match="Draft chapter ch02")
    rep = wave(p.engine(), p.items())
    assert sorted(it.chapter for it in rep.committed) == ["ch01", "ch02"] and p.done("ch02")
    second = list(batches.batches.values())[1]
    [req] = second.requests
    content = req["params"]["messages"][0]["content"]  # build_params: prompt block (cached), feedback block
    user = "".join(b["text"] for b in content)
    assert "## Feedback on your previous answer" in user and "`# Title`" in user
    first = journals(p)[0]
    assert first.items[1].outcome == "rejected" and "Title" in first.items[1].feedback
    assert journals(p)[1].items[0].reask is True
    no_duplicates(batches)


def test_reasks_are_bounded_then_streamed_with_the_feedback(tmp_path, batches):
    p = Pipeline(tmp_path, ["ch01"])
    batches.fake.marker_text(match="Draft chapter ch01", times=5)
    rep = wave(p.engine(max_reasks=1), p.items())
    assert rep.committed == []
    [h] = rep.to_stream
    assert h.chapter == "ch01" and "looks like a completion marker" in h.feedback
    assert len(batches.batches) == 2  # the first ask and one re-ask
    assert not p.done("ch01")
    no_duplicates(batches)


def test_a_result_whose_inputs_changed_meanwhile_is_discarded(tmp_path, batches):
    p = Pipeline(tmp_path, ["ch01", "ch02"])
    batches.delay = 0.3
    eng = p.engine()

    async def go():
        async with eng:
            j = await eng.submit(p.items())
            assert j is not None and j.batch_id
            p.write_input("ch02", "# Research for ch02\n\nA person rewrote this report.\n")
            await eng.drain()
            return j

    j = run(go())
    assert [it.chapter for it in eng.report.discarded] == ["ch02"]
    assert p.done("ch01") and not (p.out / p.target("ch02")).exists()
    assert jr.load(j.path).items[1].outcome == "discarded"


@pytest.mark.slow
def test_endpoint_failures_are_retried_without_a_duplicate(tmp_path, batches):
    """A proxy failing 15 % of batch-endpoint calls, half of the failing writes after the work was
    done (the response lost), and a results download cut off half way."""
    batches.fail_rate = 0.15
    batches.rng.seed(7)
    batches.fail(503, after=True)  # the first create: the batch is made, the answer is lost
    p = Pipeline(tmp_path, [f"ch{n:02d}" for n in range(1, 13)])
    batches.outcome("errored", match="ch05")
    rep = wave(p.engine(endpoint_attempts=20), p.items())
    assert sorted(it.chapter for it in rep.committed) == p.chapters and rep.to_stream == []
    assert all(p.done(ch) for ch in p.chapters)
    no_duplicates(batches)
    failed = [c for c in batches.calls if c[2] >= 500 or c[2] == -1]
    assert failed, "the fault mode injected nothing"
    first = journals(p)[0]
    assert first.note == "re-attached by listing" and first.batch_id in batches.batches
    assert all(n == 1 for n in p.commits.values())


def test_a_create_failing_before_anything_exists_is_sent_again_under_a_new_id(tmp_path, batches):
    batches.fail(502, after=False)  # ambiguous to the client: it must search before sending again
    p = Pipeline(tmp_path, ["ch01", "ch02"])
    rep = wave(p.engine(), p.items())
    assert len(rep.committed) == 2 and len(batches.batches) == 1
    first, second = journals(p)
    assert first.state == "abandoned" and first.batch_id is None and first.listed_at
    assert second.state == "done" and second.submission != first.submission
    no_duplicates(batches)


# ---------------------------------------------------------------------------- kills

def _kill_at(monkeypatch, point: str, nth: int = 1) -> None:
    seen = {"n": 0}

    def hook(where: str, j: jr.Journal) -> None:
        if where == point:
            seen["n"] += 1
            if seen["n"] == nth:
                raise Killed(point)

    monkeypatch.setattr(engine_mod, "crash_hook", hook)


def test_kill_before_create_returns_then_resume(tmp_path, batches, monkeypatch):
    p = Pipeline(tmp_path, ["ch01", "ch02", "ch03"])
    _kill_at(monkeypatch, "before_create")
    with pytest.raises(Killed):
        wave(p.engine(), p.items())
    [j] = journals(p)
    assert j.state == "submitting" and j.batch_id is None and not batches.batches
    assert set(jr.waiting(p.out)) == {("ch01", "draft"), ("ch02", "draft"), ("ch03", "draft")}
    monkeypatch.setattr(engine_mod, "crash_hook", None)
    rep = wave(p.engine())
    assert sorted(it.chapter for it in rep.committed) == p.chapters
    first = jr.load(j.path)
    assert first.state == "abandoned"  # listed: the server had no such batch
    assert len(batches.batches) == 1
    no_duplicates(batches)
    assert jr.waiting(p.out) == {}


def test_kill_right_after_create_returns_reattaches(tmp_path, batches, monkeypatch):
    p = Pipeline(tmp_path, ["ch01", "ch02", "ch03"])
    batches.delay = 0.2
    _kill_at(monkeypatch, "after_create")
    with pytest.raises(Killed):
        wave(p.engine(), p.items())
    [j] = journals(p)
    assert j.state == "submitting" and j.batch_id is None and len(batches.batches) == 1
    monkeypatch.setattr(engine_mod, "crash_hook", None)
    eng = p.engine()
    rep = wave(eng)
    assert sorted(it.chapter for it in rep.committed) == p.chapters
    j = jr.load(j.path)
    assert j.batch_id == next(iter(batches.batches)) and j.note == "re-attached by listing"
    assert len(batches.batches) == 1  # nothing was submitted again
    no_duplicates(batches)
    assert any("re-attached" in n for n in p.notices)


def test_kill_during_results_download_resumes_where_it_stopped(tmp_path, batches, monkeypatch):
    p = Pipeline(tmp_path, ["ch01", "ch02", "ch03", "ch04"])
    _kill_at(monkeypatch, "result", nth=2)
    with pytest.raises(Killed):
        wave(p.engine(), p.items())
    [j] = journals(p)
    assert j.state == "ended" and sum(it.outcome == "committed" for it in j.items) == 2
    monkeypatch.setattr(engine_mod, "crash_hook", None)
    rep = wave(p.engine())
    assert len(rep.committed) == 2  # only the two not yet handled
    assert all(p.done(ch) for ch in p.chapters)
    assert p.commits == {p.target(ch): 1 for ch in p.chapters}  # each written exactly once
    assert len(batches.batches) == 1
    no_duplicates(batches)
    assert len(p.calls) == 4  # each result logged once


def test_a_foreign_batch_of_the_same_size_is_not_taken_for_ours(tmp_path, batches, monkeypatch):
    import anthropic

    p = Pipeline(tmp_path, ["ch01", "ch02"])
    _kill_at(monkeypatch, "before_create")
    with pytest.raises(Killed):
        wave(p.engine(), p.items())

    async def foreign():  # someone else's batch in the same workspace, two requests, just after ours
        c = anthropic.AsyncAnthropic(max_retries=0)
        body = {"model": MODEL, "max_tokens": 100, "messages": [{"role": "user", "content": "hi"}]}
        reqs = [{"custom_id": f"other-{i}", "params": body} for i in (1, 2)]
        b = await c.messages.batches.create(requests=reqs)
        await c.close()
        return b.id

    other = run(foreign())
    monkeypatch.setattr(engine_mod, "crash_hook", None)
    rep = wave(p.engine())
    assert len(rep.committed) == 2
    first, second = journals(p)
    assert first.state == "abandoned" and first.batch_id is None
    assert second.batch_id != other and len(batches.batches) == 2
    no_duplicates(batches)


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_ctrl_c_leaves_the_batch_running_and_resume_collects_it(tmp_path, batches):
    p = Pipeline(tmp_path, ["ch01", "ch02"])
    batches.delay = 0.5
    eng = p.engine()

    async def interrupted():
        async with eng:
            task = asyncio.create_task(eng.run_wave(p.items()))
            while not any(j.batch_id for j in eng.journals):
                await asyncio.sleep(0.01)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    run(interrupted())
    [j] = journals(p)
    assert j.state == "submitted" and j.batch_id in batches.batches
    assert batches.batches[j.batch_id].status == "in_progress"  # not cancelled on the server
    assert any("left running on the server" in n and j.batch_id in n for n in p.notices)
    assert set(jr.waiting(p.out)) == {("ch01", "draft"), ("ch02", "draft")}
    rep = wave(p.engine())
    assert len(rep.committed) == 2 and len(batches.batches) == 1
    no_duplicates(batches)


def test_a_step_already_waiting_in_a_batch_is_not_submitted_again(tmp_path, batches):
    p = Pipeline(tmp_path, ["ch01"])
    batches.delay = 0.3
    eng = p.engine()

    async def go():
        async with eng:
            await eng.submit(p.items())
            assert await eng.submit(p.items()) is None  # the same step, same inputs: it waits already
            assert len(eng.report.skipped) == 1
            await eng.drain()

    run(go())
    assert len(batches.batches) == 1 and p.done("ch01")
    no_duplicates(batches)


def test_cancel_asks_the_server_and_canceled_requests_come_back(tmp_path, batches):
    p = Pipeline(tmp_path, ["ch01"])
    batches.delay = 5.0
    eng = p.engine(max_batch_retries=0)

    async def go():
        async with eng:
            j = await eng.submit(p.items())
            await eng.cancel(j.submission)
            await eng.drain()
            return j

    j = run(go())
    assert jr.load(j.path).items[0].outcome == "to_stream"
    [h] = eng.report.to_stream
    assert h.chapter == "ch01" and "canceled" in h.reason


def test_a_batch_gone_from_the_server_is_asked_again(tmp_path, batches):
    p = Pipeline(tmp_path, ["ch01", "ch02"])
    batches.delay = 0.3
    eng = p.engine()

    async def go():
        async with eng:
            j = await eng.submit(p.items())
            with batches.lock:
                del batches.batches[j.batch_id]  # deleted by a person in the Console, or archived
            await eng.drain()
            return j, await eng._next_round()

    j, again = run(go())
    assert jr.load(j.path).state == "done" and all(it.outcome == "requeued" for it in jr.load(j.path).items)
    assert sorted(bi.chapter for bi in again) == ["ch01", "ch02"]
    assert any("gone from the server" in n for n in p.notices)


def test_feedback_of_a_rejected_answer_survives_a_new_process(tmp_path, batches, monkeypatch):
    p = Pipeline(tmp_path, ["ch01"])
    batches.fake.malformed("no title", match="Draft chapter ch01")
    _kill_at(monkeypatch, "result")  # killed right after the rejection was journaled
    with pytest.raises(Killed):
        wave(p.engine(), p.items())
    monkeypatch.setattr(engine_mod, "crash_hook", None)
    eng = p.engine()
    fb = eng.feedback_for("ch01", "draft", p.input_hash("ch01"))
    assert "`# Title`" in fb
    rep = wave(eng, [p.item("ch01", fb)])  # the pipeline builds the step with that feedback
    assert [it.chapter for it in rep.committed] == ["ch01"] and journals(p)[1].items[0].reask
    no_duplicates(batches)


# ---------------------------------------------------------------------------- the journal

def test_an_unreadable_journal_is_an_error_naming_the_file(tmp_path):
    d = tmp_path / "output" / jr.DIR
    d.mkdir(parents=True)
    (d / "b261130120000-abcd.json").write_text("{not json")
    with pytest.raises(jr.JournalError, match="b261130120000-abcd.json"):
        jr.waiting(tmp_path / "output")
    (d / "b261130120000-abcd.json").write_text(json.dumps({"format": 1, "submission": "b261130120000-abcd",
                                                          "created": "2026-11-30T12:00:00Z", "state": "weird",
                                                          "items": []}))
    with pytest.raises(jr.JournalError, match="unknown state 'weird'"):
        jr.load_all(tmp_path / "output")


def test_custom_ids_follow_the_api_pattern():
    sub = jr.new_submission_id()
    cid = jr.make_custom_id(sub, "ch117", "source_map", "9c1e0a4b77ab")
    assert jr.CUSTOM_ID_RE.match(cid) and cid.startswith(sub + "-") and len(cid) <= 64
    assert jr.CUSTOM_ID_RE.match(jr.make_custom_id(sub, None, "outline", "x/y:z"))


def test_ledger_records_batch_calls_and_cost_splits_them(tmp_path):
    from orchestrator.costs import cost_report
    from orchestrator.state.ledger import Ledger

    led = Ledger.open(tmp_path / "state.db")
    led.log_call(role="writer", chapter="ch01", step="draft", cost_usd=0.5, batch=1)
    led.log_call(role="writer", chapter="ch02", step="draft", cost_usd=1.0)
    rows = led.calls()
    assert [r["batch"] for r in rows] == [1, 0]
    assert cost_report(rows)["by_mode"] == {"stream": {"calls": 1, "cost_usd": 1.0},
                                            "batch": {"calls": 1, "cost_usd": 0.5}}
    led.close()


# ---------------------------------------------------------------------------- the fake's endpoints

def test_fake_lists_newest_first_with_pages_and_refuses_bad_custom_ids(batches):
    import anthropic

    body = {"model": MODEL, "max_tokens": 100, "messages": [{"role": "user", "content": "hi"}]}

    async def go():
        c = anthropic.AsyncAnthropic(max_retries=0)
        ids = [(await c.messages.batches.create(requests=[{"custom_id": f"r{i}", "params": body}])).id
               for i in range(5)]
        listed = [b.id async for b in c.messages.batches.list(limit=2)]
        with pytest.raises(anthropic.BadRequestError, match="custom_id"):
            await c.messages.batches.create(requests=[{"custom_id": "bad id!", "params": body}])
        with pytest.raises(anthropic.BadRequestError, match="not unique"):
            await c.messages.batches.create(requests=[{"custom_id": "x", "params": body}] * 2)
        await c.close()
        return ids, listed

    ids, listed = run(go())
    assert listed == ids[::-1]  # every page followed, newest first
    assert batches.received == [f"r{i}" for i in range(5)]


def test_fake_command_line_takes_the_batch_options():
    import argparse

    from orchestrator.testing.fake_api import FakeAPI

    ap = argparse.ArgumentParser()
    fake_batches.add_arguments(ap)
    fake = FakeAPI()
    fake_batches.configure(fake, ap.parse_args(["--batch-delay", "2.5", "--batch-fail-rate", "0.15",
                                                "--batch-error-rate", "0.05", "--batch-expire-rate", "0.02"]))
    st = fake_batches.store(fake)
    assert (st.delay, st.fail_rate, st.error_rate, st.expire_rate) == (2.5, 0.15, 0.05, 0.02)


def test_random_request_errors_and_expiry_are_requeued(tmp_path, batches):
    batches.error_rate, batches.expire_rate = 0.2, 0.1
    batches.rng.seed(3)
    p = Pipeline(tmp_path, [f"ch{n:02d}" for n in range(1, 11)])
    rep = wave(p.engine(max_batch_retries=5), p.items())
    first = journals(p)[0]
    assert {it.outcome for it in first.items} >= {"committed", "requeued"}
    assert any("random error" in it.reason for it in first.items) and any(it.reason == "expired"
                                                                          for it in first.items)
    assert sorted(it.chapter for it in rep.committed) == p.chapters
    no_duplicates(batches)


def test_inputs_hash_is_stable_and_ignores_absent_inputs():
    a = jr.inputs_hash({"research": "9c1e0a4b77ab", "outline": "77ab9c1e0a4b", "glossary": None})
    assert a == jr.inputs_hash({"outline": "77ab9c1e0a4b", "research": "9c1e0a4b77ab"})
    assert a != jr.inputs_hash({"outline": "77ab9c1e0a4b", "research": "000000000000"})


@pytest.mark.slow
def test_kill_9_while_the_batch_is_processing_then_resume(tmp_path, batches):
    """A real kill -9 of a process waiting on its batch; a new process re-attaches by the journal."""
    import os
    import signal
    import subprocess
    import sys
    import time

    batches.delay = 3.0
    chapters = ["ch01", "ch02", "ch03"]
    driver = (f"import asyncio, sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
              f"import test_batches as tb; from pathlib import Path; "
              f"p = tb.Pipeline(Path({str(tmp_path)!r}), {chapters!r}); "
              f"tb.wave(p.engine(), p.items())")
    proc = subprocess.Popen([sys.executable, "-c", driver], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    jdir = tmp_path / "output" / jr.DIR
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            js = jr.load_all(tmp_path / "output") if jdir.is_dir() else []
            if js and js[0].batch_id:
                break
            assert proc.poll() is None, proc.stderr.read().decode()
            time.sleep(0.05)
        else:
            raise AssertionError("the driver never submitted its batch")
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stderr.close()
    [j] = jr.load_all(tmp_path / "output")
    assert j.state == "submitted" and batches.batches[j.batch_id].status == "in_progress"
    p = Pipeline(tmp_path, chapters)
    rep = wave(p.engine())
    assert sorted(it.chapter for it in rep.committed) == chapters and all(p.done(ch) for ch in chapters)
    assert len(batches.batches) == 1
    no_duplicates(batches)


def test_an_uncertain_create_is_re_attached_by_listing_before_the_grace(tmp_path, batches):
    """The create made the batch but its answer was lost: the server already lists it, so the
    engine re-attaches as soon as it has ended, not after the grace (an hour here)."""
    import time

    batches.fail(503, after=True)
    p = Pipeline(tmp_path, ["ch01", "ch02"])
    t0 = time.monotonic()
    rep = wave(p.engine(search_grace=3600), p.items())
    assert sorted(it.chapter for it in rep.committed) == p.chapters and time.monotonic() - t0 < 30
    [j] = journals(p)
    assert j.note == "re-attached by listing" and j.state == "done" and len(batches.batches) == 1
    no_duplicates(batches)


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_a_create_that_made_nothing_waits_for_the_grace_before_it_is_sent_again(tmp_path, batches):
    """Before the grace an empty listing decides nothing (a create may still land): the
    submission stays unconfirmed, nothing is sent twice."""
    batches.fail(502, after=False)  # ambiguous to the client, and nothing was created
    p = Pipeline(tmp_path, ["ch01"])

    async def go():
        eng = p.engine(search_grace=3600)
        async with eng:
            try:
                await asyncio.wait_for(eng.run_wave(p.items()), 1.0)
            except TimeoutError:
                pass

    run(go())
    [j] = journals(p)
    assert j.state == "searching" and j.batch_id is None and j.listed_at is None and not batches.batches


def test_a_rate_limited_create_is_sent_again_after_a_pause_then_streamed(tmp_path, batches):
    p = Pipeline(tmp_path, ["ch01"])
    batches.fail(429, times=2)  # the API refuses before creating anything: no search needed
    rep = wave(p.engine(search_grace=3600), p.items())  # a search would wait an hour: none happens
    assert [it.chapter for it in rep.committed] == ["ch01"]
    states = [j.state for j in journals(p)]
    assert states == ["abandoned", "abandoned", "done"] and len(batches.batches) == 1
    no_duplicates(batches)
    batches.fail(429, times=10)
    p2 = Pipeline(tmp_path / "two", ["ch02"])
    rep = wave(p2.engine(max_creates=2), p2.items())
    [h] = rep.to_stream
    assert h.chapter == "ch02" and "429" in h.reason and len(journals(p2)) == 2


def test_a_refused_create_hands_every_step_to_streaming(tmp_path, batches):
    p = Pipeline(tmp_path, ["ch01", "ch02"])
    batches.fail(404)  # e.g. a gateway in ANTHROPIC_BASE_URL without the batch endpoints
    rep = wave(p.engine(), p.items())
    assert sorted(h.chapter for h in rep.to_stream) == ["ch01", "ch02"] and rep.committed == []
    assert all("HTTP 404" in h.reason for h in rep.to_stream)
    [j] = journals(p)
    assert j.state == "refused" and not batches.batches and jr.waiting(p.out) == {}


def test_no_journal_holds_the_api_key(tmp_path, batches):
    from conftest_fake_api import DUMMY_KEY

    p = Pipeline(tmp_path, ["ch01"])
    batches.outcome("errored", match="ch01", error_type="api_error", message=f"bad key {DUMMY_KEY} seen")
    wave(p.engine(), p.items())
    first = journals(p)[0]
    assert "bad key *** seen" in first.items[0].reason
    for f in (p.out / jr.DIR).glob("*.json"):
        assert DUMMY_KEY not in f.read_text()
    assert all(DUMMY_KEY not in (c["error"] or "") for c in p.calls)
