"""A book about this repository (issue 21 part 7): its `orchestrator/` and `prompts/` hold the
tool's own marker words in code, docstrings and templates, and the book still builds, offline
and through the fake Messages API. Marker-like text quoted inside code (a fenced block or a code
span) is the source's, committed as it is; the scan trusts only each file's own last line."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import scan
from conftest_fake_api import DUMMY_KEY

from orchestrator.providers.anthropic import AnthropicProvider
from orchestrator.state.markers import read_marker
from orchestrator.testing.fake_api import FakeAPI
from orchestrator.testing.helpers import make_example, run_book
from orchestrator.testing.role_answers import answer

REPO = Path(__file__).resolve().parents[1]
MARKER_WORDS = re.compile(r"CHAPTER_FINAL|NEEDS_HUMAN_REVIEW|[A-Z0-9]+_COMPLETE")


def self_book(tmp_path: Path, chapters: int) -> Path:
    ws = make_example(tmp_path / "ws", gates="off", max_chapters=chapters)
    shutil.rmtree(ws / "src")
    shutil.copytree(REPO / "orchestrator", ws / "src" / "orchestrator", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "prompts", ws / "src" / "prompts")
    # The front door chapter 1 quotes: the repository's README shows shell commands only, so the
    # source gets a README whose usage example is in the source's language (the library's own calls).
    (ws / "src" / "README.md").write_text(README, encoding="utf-8")
    return ws


README = """# book

Writes a technical book about a source repository with a team of LLM agents; the file system is the state.

```python
from pathlib import Path

from orchestrator.testing.helpers import make_example, run_book

ws = make_example(Path("demo"))
code, summary = run_book(ws)
```
"""


def _bodies_with_marker_words(ws: Path) -> list[Path]:
    out = []
    out_dir = ws / "output"
    for p in sorted(x for d in ("research", "chapters", "reviews") for x in (out_dir / d).rglob("*.md")):
        text = p.read_text(encoding="utf-8")
        mk = read_marker(p)
        body = text[: mk.offset] if mk is not None else text
        if MARKER_WORDS.search(body):
            out.append(p)
    return out


@pytest.mark.slow
def test_a_book_about_this_repository_builds_offline(tmp_path):
    ws = self_book(tmp_path, 12)
    code, summary = run_book(ws)
    assert code == 0, summary.needs_human
    rep = scan(ws)
    assert rep["complete"] and rep["half_finished"] == [] and rep["edited"] == []
    quoting = _bodies_with_marker_words(ws)
    # the research quotes the source's marker words, and a final chapter does too: committed, whole
    assert any("research" in str(p) for p in quoting) and any("final" in str(p) for p in quoting), quoting
    for p in quoting:
        assert read_marker(p) is not None, p


@pytest.fixture
def fake_api(monkeypatch):
    api = FakeAPI(answerer=answer)  # each role's answer, JSON for the schema roles
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.start())
    monkeypatch.setenv("ANTHROPIC_API_KEY", DUMMY_KEY)
    yield api
    api.stop()


@pytest.mark.slow
def test_a_book_about_this_repository_builds_through_the_fake(fake_api, tmp_path):
    ws = self_book(tmp_path, 6)
    code, summary = run_book(ws, provider=AnthropicProvider(concurrency=8, base_delay=0.01, max_delay=0.05))
    assert code == 0, summary.needs_human
    rep = scan(ws)
    assert rep["complete"] and rep["half_finished"] == []
    # the prompts carried the repository's marker words (R1 and the researcher read the sources)
    turns = [str(r["body"]["messages"]) for r in fake_api.message_requests()]
    assert any(MARKER_WORDS.search(t) and "file=orchestrator/" in t for t in turns)
