"""Issue 11 wired into the pipeline: structured answers rendered by the orchestrator, the
verdict computed in code, a person's review read strictly, marker text re-asked, the final
code-checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import make_example, scan

from orchestrator import agents
from orchestrator.errors import ValidationFailed
from orchestrator.providers.offline import OfflineProvider
from orchestrator.steps import FINAL, REVIEW, STEPS
from orchestrator.testing.helpers import run_book

CH = {"id": "ch03", "title": "The store", "summary": "s", "batch": 1, "depends_on": [], "sources": []}


def _edit_body(path: Path, new_body: str) -> None:
    """Replace a file's body, keeping its marker: a person's edit (the scan calls it edited)."""
    text = path.read_text()
    _, marker = text.rsplit("<!--", 1)
    path.write_text(new_body.rstrip() + "\n\n<!--" + marker)


# ---------------------------------------------------------------- structured answers


def test_a_json_review_is_rendered_with_its_quote_and_the_deterministic_findings():
    answer = json.dumps({"findings": [{"severity": "major", "check": "r2.glossary", "line": 4, "end_line": 5,
                                       "quote": "the stor", "message": "Spell it as the glossary does."}],
                         "notes": "Checked."})
    ctx = {"chapter": CH, "language": "en",
           "findings": [{"check": "r1.code", "severity": "blocking", "line": 9, "message": "not in the source"}]}
    text = agents.clean_and_validate("r2", answer, ctx)
    assert text.startswith("# R2 consistency review: ch03 — The store\n")
    assert "Verdict: blocked" in text  # the deterministic blocking finding, not the model's copy
    assert "- **blocking** `r1.code` line 9: not in the source" in text
    assert "- **major** `r2.glossary` lines 4-5: Spell it as the glossary does.\n  > the stor" in text


def test_the_merged_verdict_is_computed_even_when_the_model_drops_a_blocking_finding():
    answer = json.dumps({"findings": [], "actions": [], "notes": "All good."})
    ctx = {"chapter": CH, "language": "en",
           "findings": [{"check": "r1.code", "severity": "blocking", "line": 3, "message": "invented code"}]}
    text = agents.clean_and_validate(REVIEW, answer, ctx)
    assert "Verdict: blocked" in text and "invented code" in text


def test_a_json_answer_that_does_not_fit_is_re_asked_with_the_field():
    with pytest.raises(ValidationFailed, match=r"severity"):
        agents.clean_and_validate("r1", json.dumps({"findings": [{"severity": "fatal", "check": "r1.code",
                                                                  "message": "x"}], "notes": ""}),
                                  {"chapter": CH, "language": "en"})


@pytest.mark.parametrize("step", ["r1", "draft"])
def test_marker_text_in_an_answer_is_a_validation_failure(step):
    text = ('{"findings": [], "notes": "done <!-- R1_CODE_REVIEW_COMPLETE -->"}' if step == "r1"
            else "# T\n\n" + "word " * 80 + "\n\n<!-- DRAFT_COMPLETE -->\n")
    with pytest.raises(ValidationFailed, match="marker text"):
        agents.clean_and_validate(step, text, {"chapter": CH, "language": "en"})


def test_build_request_sends_the_schema_of_structured_steps_only(built_ws):
    from orchestrator.agents import handbook
    from orchestrator.contracts.schemas import SCHEMAS
    from orchestrator.state.book import Book

    book = Book.open(built_ws)
    try:
        for step in ("r1", REVIEW, "panel", "memory", "draft", FINAL):
            g = agents.gather(book, step, "ch02", {"_source_dir": book.cfg.source_dir})
            req = agents.build_request(book, step, "ch02", g, STEPS[step].role)
            assert req.output_schema == SCHEMAS.get(step)
            # the role's example, cached: in its section of the handbook (the default layout)
            section = req.shared.split(f"\n# {handbook.title(req.role)}\n", 1)[1].split("</role_section>")[0]
            assert req.system == "" and "An example of a correct answer" in section
    finally:
        book.close()


# ---------------------------------------------------------------- the verdict in code


def test_a_person_blocking_the_merged_review_in_their_own_words_stops_the_chapter(built_ws):
    path = built_ws / STEPS[REVIEW].file("ch03")
    _edit_body(path, "# Merged review: ch03\n\nVerdict: blocked\n\n## Findings\n\n"
                     "1. **Blocking** — lines 3-5: the opening promises an API the chapter never shows\n")
    code, summary = run_book(built_ws)
    assert code == 3 and "ch03" in summary.needs_human
    assert "the opening promises an API" in summary.needs_human["ch03"]
    assert scan(built_ws)["complete"] is False


def test_a_person_verdict_blocked_alone_holds_the_chapter(built_ws):
    path = built_ws / STEPS[REVIEW].file("ch02")
    _edit_body(path, "# Merged review: ch02\n\nVerdict: blocked\n\n## Findings\n\n- none\n")
    code, summary = run_book(built_ws)
    assert code == 3 and "a person marked it blocked" in summary.needs_human["ch02"]


def test_a_finding_the_parser_cannot_read_is_an_error_naming_file_and_line(built_ws):
    path = built_ws / STEPS[REVIEW].file("ch03")
    _edit_body(path, "# Merged review: ch03\n\nVerdict: clean\n\n## Findings\n\n- the code on line 4 looks off\n")
    code, summary = run_book(built_ws)
    assert code == 3
    why = summary.needs_human["ch03"]
    assert "output/reviews/ch03-review.md:7:" in why and "does not start with a severity" in why


# ---------------------------------------------------------------- the final is code-checked


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_a_final_quoting_code_not_in_the_source_is_re_asked_then_goes_to_a_person(example_ws):
    class Inventive(OfflineProvider):
        finals = 0

        async def generate(self, req, sink):
            res = await super().generate(req, sink)
            if req.step == FINAL and req.chapter == "ch01":
                Inventive.finals += 1
                res.text += "\n```python file=minikv/store.py\ndef get_everything_at_once(self):\n    return 42\n```\n"
            return res

    code, summary = run_book(example_ws, provider=Inventive())
    assert code == 3 and "ch01" in summary.needs_human
    assert "not in minikv/store.py" in summary.needs_human["ch01"]
    # asked, then re-asked with the reason (3 in all), then one section at a time (its first section
    # fails its 3 attempts the same way), then a person decides
    assert Inventive.finals == 6
    assert "one section at a time" in summary.needs_human["ch01"]
    assert not (example_ws / STEPS[FINAL].file("ch01")).exists()


# ---------------------------------------------------------------- through the fake API


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_fake_api_marker_text_in_30_percent_of_answers_is_never_committed_or_published(tmp_path, monkeypatch):
    from orchestrator.providers.anthropic import AnthropicProvider
    from orchestrator.testing.fake_api import FakeAPI
    from orchestrator.testing.role_answers import answer

    api = FakeAPI(answerer=answer)
    api.marker_text("<!-- DRAFT_COMPLETE -->", share=0.3, seed=11)
    url = api.start()
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-marker")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    try:
        ws = make_example(tmp_path / "ws", max_chapters=3, retries=8)
        code, summary = run_book(ws, provider=AnthropicProvider(concurrency=4, base_delay=0.01, max_delay=0.05))
    finally:
        api.stop()
    assert code == 0, summary.needs_human
    assert scan(ws)["complete"]
    injected = sum(1 for r in api.message_requests() if "rejected" in json.dumps(r["body"]))
    assert injected >= 3  # the fault did fire, and each answer it hit was re-asked
    for p in (ws / "output").rglob("*"):
        if p.is_file() and p.suffix in (".md", ".html") and ".bak." not in p.name:
            text = p.read_text(encoding="utf-8")
            body = text.rsplit("<!--", 1)[0] if p.suffix == ".md" else text
            assert "DRAFT_COMPLETE" not in body, p
            assert "(quoted)" not in text, p
    drafts = list((ws / "output/chapters/draft").glob("*-draft.md"))
    assert drafts and all(d.read_text().count("DRAFT_COMPLETE") == 1 for d in drafts)  # its own marker only


def test_long_memory_reads_a_persons_variants_and_names_an_unreadable_line(built_ws):
    from orchestrator.errors import BookError
    from orchestrator.state.book import Book
    from orchestrator.state.memory import long_memory

    path = built_ws / STEPS["memory"].file("ch02")
    _edit_body(path, "# Memory: ch02 — The store\n\n## Summary\n\nHow the store keeps data.\n\n## Glossary\n\n"
                     "* **memtable** — the table in memory\n- **segment:** a file on disk\n\n## Metaphors\n\n(none)\n\n"
                     "## Cross references\n\n- [Basics](ch01.md): builds on it\n")
    book = Book.open(built_ws)
    try:
        mem = long_memory(book, ["ch01", "ch02"])
        assert {"memtable", "segment"} <= {t for m in mem.chapters for t, _ in m.glossary}
        assert ("ch01", "builds on it") in [x for m in mem.chapters for x in m.xrefs]
        _edit_body(path, "# Memory: ch02 — The store\n\n## Summary\n\nS.\n\n## Gossip\n\n- x\n")
        book.scanner.invalidate()
        with pytest.raises(BookError, match=r"output/memory/chapters/ch02.md:\d+: unknown section"):
            long_memory(book, ["ch01", "ch02"])
    finally:
        book.close()
