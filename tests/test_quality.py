"""Issue 24 item 6: the book's quality measured by itself — claim health, citation coverage, the
map's top-ranked symbols the book teaches, diagram validity — computed in code, in the audit, in
`book scan --json` and in the checkpoint; the audit is stale when a figure moves, not otherwise."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import make_example, scan

from orchestrator.checks.code import name_checks, source_index
from orchestrator.checks.diagrams import diagram_problems
from orchestrator.evidence.quality import Quality, Symbol, measure, render, with_quality
from orchestrator.evidence.revision import Revision
from orchestrator.state.book import Book
from orchestrator.state.quality_view import CACHE
from orchestrator.testing.cli import run_cli
from orchestrator.testing.helpers import run_book

STORE = '''class Store:
    """A store."""

    def put(self, key, value):
        self.data[key] = value

    def get(self, key):
        return self.data.get(key)


def compact(store):
    return store
'''


def _measure(tmp_path: Path, final: str, top: list[Symbol]) -> Quality:
    src = tmp_path / "src"
    (src / "kv").mkdir(parents=True, exist_ok=True)
    (src / "kv" / "store.py").write_text(STORE)
    symbol_problem, path_exists = name_checks(src, source_index(src))
    return measure({"ch01": final}, src, claims={"ch01": None}, revision=Revision("tree", "tree:x"), top=top,
                   diagram_problems=lambda code: diagram_problems(code, symbol_problem, path_exists))


TOP = [Symbol("kv/store.py", "Store", "Store", 1, 9), Symbol("kv/store.py", "put", "Store.put", 4, 5),
       Symbol("kv/store.py", "get", "Store.get", 7, 8), Symbol("kv/store.py", "compact", "compact", 11, 12)]


def test_the_figures_are_counted_from_the_text_and_the_source(tmp_path):
    final = """# The store

`Store.put` writes the value [kv/store.py:4-5](source:kv/store.py#L4-L5). It keeps it in a dict.

`Store.get` reads it back [kv/store.py:1-2](source:kv/store.py#L1-L2).

A paragraph about `compact` with no citation.

| name | what |
|---|---|
| `compact` | listed only in a table |

```python file=kv/store.py lines=1-2
class Store:
    \"\"\"A store.\"\"\"
```

```mermaid
flowchart LR
    a["Store.put"] --> b["Store.get"]
```

```mermaid
flowchart LR
    a["Store.nothing"]
```
"""
    q = _measure(tmp_path, final, TOP)
    # four claim paragraphs as R1 counts them (the table names code too), two cite; the second
    # citation's lines lack `get`
    assert (q.claim_paragraphs, q.claim_paragraphs_cited) == (4, 2)
    assert (q.citations, q.citations_resolving) == (2, 1)
    assert q.unresolved and "line 5" in q.unresolved[0]
    # two cited sentences and one quote; the sentence whose lines lack `get` is not supported (one test: issue 34)
    assert (q.claims_all, q.claims_supported) == (3, 2)
    # Store is quoted, put and get named in prose; compact is named in prose too (a table alone would not count)
    assert (q.top_symbols, q.top_taught) == (4, 4)
    assert (q.diagrams, q.diagrams_valid) == (2, 1) and "Store.nothing" in q.invalid_diagrams[0]


def test_a_symbol_only_in_a_table_or_a_heading_is_not_taught(tmp_path):
    final = "# The store\n\n## `compact`\n\n| name | what |\n|---|---|\n| `compact` | compacts |\n\nText.\n"
    q = _measure(tmp_path, final, TOP[3:])
    assert (q.top_taught, q.untaught) == (0, ["compact"])


def test_a_name_teaches_its_symbol_by_its_class_or_its_module_not_by_another_owner(tmp_path):
    top = [Symbol("minikv/wal.py", "append", "append", 3, 9), Symbol("middleware/logger.go", "Logger", "Logger", 1, 5),
           Symbol("kv/store.py", "get", "Store.get", 7, 8), Symbol("kv/other.py", "x", "Other.x", 1, 2)]
    final = "# T\n\nIt calls `wal.append`, `middleware.Logger`, `Store.get` and `y.x`.\n"
    q = _measure(tmp_path, final, top)
    assert (q.top_taught, q.untaught) == (3, ["Other.x"])


def test_the_section_is_the_tool_s_and_replaces_one_written_before():
    q = Quality(claims_supported=3, claims_all=4, claim_paragraphs=5, claim_paragraphs_cited=4, citations=6,
                citations_resolving=6, top_symbols=20, top_taught=15, diagrams=2, diagrams_valid=2, untaught=["X.y"])
    body = "# Book audit: B\n\n## Findings\n\n- none\n\n## Quality\n\n- claims: 99/99 (a model's guess)\n\n## Notes\n\nOk.\n"
    out = with_quality(body, q)
    assert "99/99" not in out and out.count("## Quality") == 1 and "## Notes\n\nOk." in out
    assert "3/4 (75%)" in out and "15/20 (75%)" in out and "`X.y`" in out
    zh = render(q, "zh")
    assert zh.startswith("## 质量") and "在当前源码下成立的论断：3/4 (75%)" in zh and "`X.y`" in zh


def _audit_figures(ws: Path) -> dict[str, str]:
    text = (ws / "output/reviews/book-audit.md").read_text()
    return dict(re.findall(r"^- (.+?): (\d+/\d+) \(", text.split("## Quality", 1)[1], re.M))


def _audit_calls(ws: Path) -> int:
    book = Book.open(ws, repair=False)
    try:
        return sum(1 for e in book.ledger.events(type="step_start") if e.get("step") == "audit")
    finally:
        book.close()


def test_the_audit_scan_and_checkpoint_carry_the_same_figures(built_ws):
    rep = scan(built_ws)
    q = rep["quality"]
    assert q["current"] and q["chapters"] == len(rep["chapters"]) and q["top_symbols"] == 20
    assert q["claims_all"] > 0 and q["citations"] > 0 and q["diagrams"] > 0
    fig = _audit_figures(built_ws)
    assert fig["claims supported at the source as it is"] == f"{q['claims_supported']}/{q['claims_all']}"
    assert fig["citations that resolve"] == f"{q['citations_resolving']}/{q['citations']}"
    assert fig["of the map's 20 top-ranked symbols, taught"] == f"{q['top_taught']}/{q['top_symbols']}"
    assert fig["diagrams that render and name only the source"] == f"{q['diagrams_valid']}/{q['diagrams']}"
    checkpoint = (built_ws / "output/memory/checkpoint.md").read_text()
    assert f"top symbols taught {q['top_taught']}/{q['top_symbols']}" in checkpoint.split("## Phase 4", 1)[1]
    resume = (built_ws / "RESUME.md").read_text().split("## Evidence", 1)[1].split("\n## ", 1)[0]
    assert f"- Book quality: claims {q['claims_supported']}/{q['claims_all']}" in resume


def test_a_source_change_that_moves_no_figure_costs_no_audit(built_ws):
    calls, before = _audit_calls(built_ws), scan(built_ws)["quality"]
    (built_ws / "src/NOTES.txt").write_text("a file the book does not cite\n")  # a new revision of the tree
    cache = built_ws / "src/minikv/cache.py"
    cache.write_text(cache.read_text() + "\n# a comment added at the end\n")  # a cited file, its lines in place
    assert scan(built_ws)["stale"] == []
    code, _ = run_book(built_ws)
    assert code == 0 and _audit_calls(built_ws) == calls
    # claims and citations measured again by the scan, the map's figures as last measured: the same
    now = scan(built_ws)["quality"]
    assert not now["current"] and {**now, "current": True} == before


def test_a_figure_that_moves_makes_the_audit_stale(built_ws):
    before = scan(built_ws)["quality"]
    cache = built_ws / "src/minikv/cache.py"
    cache.write_text(cache.read_text().replace("def get(", "def fetch(", 1))  # a cited definition renamed
    rep = scan(built_ws)
    assert "output/reviews/book-audit.md" in rep["stale"]
    assert rep["quality"]["claims_supported"] < before["claims_supported"] and not rep["quality"]["current"]
    out = run_cli("run", "--dry-run", "--workspace", built_ws)
    assert re.search(r"audit\s+stale: .*quality changed", out.stdout + out.stderr)


def test_a_lost_cache_is_measured_again_by_the_run_without_an_audit(built_ws):
    calls = _audit_calls(built_ws)
    (built_ws / CACHE).unlink()
    assert "output/reviews/book-audit.md" in scan(built_ws)["stale"] and scan(built_ws)["quality"] is None
    code, _ = run_book(built_ws)
    assert code == 0 and _audit_calls(built_ws) == calls and scan(built_ws)["stale"] == []
    assert json.loads((built_ws / CACHE).read_text())["figures"]["top_symbols"] == 20


@pytest.mark.slow
def test_approving_the_finals_costs_no_audit(tmp_path):
    ws = make_example(tmp_path / "ws", gates="fast")
    assert run_book(ws)[0] == 3  # the outline gate
    assert run_cli("approve", "outline", "--workspace", ws).returncode == 0
    run_book(ws)  # to the final gates; the audit reads the complete finals, approved or not
    calls = _audit_calls(ws)
    assert calls == 1
    assert run_cli("approve", "final", "--all", "--workspace", ws).returncode == 0
    code, _ = run_book(ws)
    assert code == 0 and _audit_calls(ws) == calls and scan(ws)["complete"]


@pytest.mark.slow
def test_the_claude_auditor_s_file_carries_the_tool_s_figures(tmp_path, monkeypatch):
    """Through the fake Messages API: the auditor's prompt shows the figures (not to restate them),
    its JSON answer is rendered and the tool's section added, the same figures as the scan's."""
    from orchestrator.providers.anthropic import AnthropicProvider
    from orchestrator.testing.fake_api import FakeAPI
    from orchestrator.testing.role_answers import answer, role_of

    api = FakeAPI(answerer=answer)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-dummy")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.start())
    try:
        ws = make_example(tmp_path / "ws")
        code, summary = run_book(ws, provider=AnthropicProvider(concurrency=8, base_delay=0.01, max_delay=0.05))
        assert code == 0, summary.needs_human
        audits = [r["body"] for r in api.message_requests() if role_of(r["body"]) == "auditor"]
    finally:
        api.stop()
    assert len(audits) == 1 and audits[0].get("output_config")  # a JSON answer, rendered by the tool
    prompt = json.dumps(audits[0]["messages"])
    assert "The book's quality, measured by the tool" in prompt and "never restate or recount them" in prompt
    q = scan(ws)["quality"]
    assert q["current"] and q["citations"] > 0
    fig = _audit_figures(ws)
    assert fig["claims supported at the source as it is"] == f"{q['claims_supported']}/{q['claims_all']}"
    assert fig["of the map's 20 top-ranked symbols, taught"] == f"{q['top_taught']}/{q['top_symbols']}"
