"""Issue 24 item 2: the researcher sees its sources with their real line numbers, in a form a model
copies correctly (`12→code`: the code after the arrow), so that its excerpts and citations, and the
writer's citations copied from them, resolve in the source. The numbers count against the budgets
that cut sources by rank; a quoted block never carries them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import make_example

from orchestrator.agents import source_context
from orchestrator.agents.validation import clean_and_validate
from orchestrator.errors import ValidationFailed
from orchestrator.evidence.cite import citations
from orchestrator.evidence.resolve import resolve
from orchestrator.providers.anthropic import AnthropicProvider
from orchestrator.testing.fake_api import FakeAPI
from orchestrator.testing.helpers import run_book
from orchestrator.testing.role_answers import answer, role_of


def test_numbers_are_the_lines_a_citation_counts():
    text = "\ufeffa = 1\r\nb = 2\n\n" + "x\n" * 8
    out = source_context.numbered(text)
    assert out.splitlines()[:3] == [" 1→a = 1", " 2→b = 2", " 3→"] and out.splitlines()[-1] == "11→x"
    assert source_context.numbered("") == ""


def test_a_cut_file_keeps_its_real_numbers_and_the_limit_counts_them(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    body = "".join(f"def helper_{i}(x):\n    return x + {i}\n\n\n" for i in range(1500))
    (src / "a.py").write_text(body)
    (src / "b.py").write_text(body.replace("helper_", "b_helper_"))
    (src / "main.py").write_text("from a import helper_900\n\n\ndef main():\n    return helper_900(1)\n")
    p = source_context.load_project(src, None)
    limit = len(body) + 10_000
    ctx = source_context.chapter_context(p, ["a.py", "b.py"], limit=limit)
    # the numbers are inside the limit, at their cost in tokens (more than their characters)
    shown_size = sum(source_context.size(t) for t in ctx["sources"].values())
    assert shown_size <= limit + 1_000 and shown_size > sum(len(t) for t in ctx["sources"].values())
    shown = 0
    for rel, text in ctx["sources"].items():  # every number shown is the line's real one
        lines = (src / rel).read_text().split("\n")
        for ln in text.splitlines():
            if "→" in ln:
                n, code = ln.split("→", 1)
                assert lines[int(n) - 1] == code, ln
                shown += 1
    assert shown > 1000
    assert "3601→def helper_900(x):" in ctx["sources"]["a.py"]  # the used definition, at its own line


RESEARCH = """# Research: ch01 — Store

## Sources

- `kv/store.py`: the store.

## Excerpts

### `Store.put` — kv/store.py:4-5

It writes [kv/store.py:4-5](source:kv/store.py#L4-L5).

```python file=kv/store.py lines=4-5
{code}
```
"""


def test_an_excerpt_that_kept_the_numbers_is_asked_again():
    bad = RESEARCH.format(code="4→    def put(self, key, value):\n5→        self.data[key] = value")
    with pytest.raises(ValidationFailed, match="carries the prompt's line numbers"):
        clean_and_validate("research", bad, {"language": "en"})
    good = RESEARCH.format(code="    def put(self, key, value):\n        self.data[key] = value")
    assert clean_and_validate("research", good, {"language": "en"}).startswith("# Research")


def _text(content) -> str:
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


@pytest.mark.slow
def test_through_the_fake_api_the_numbers_reach_the_researcher_and_its_citations_resolve(tmp_path, monkeypatch):
    api = FakeAPI(answerer=answer)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-dummy")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.start())
    try:
        ws = make_example(tmp_path / "ws")
        code, summary = run_book(ws, provider=AnthropicProvider(concurrency=8, base_delay=0.01, max_delay=0.05))
        assert code == 0, summary.needs_human
        bodies = [r["body"] for r in api.message_requests()]
    finally:
        api.stop()
    src = ws / "src"
    research = [b for b in bodies if role_of(b) == "researcher"]
    r1 = [b for b in bodies if role_of(b) == "r1"]
    assert research and r1
    shown = {}
    for b in research + r1:  # every numbered line the researcher and R1 are shown is that line of the file
        prompt = _text(b["messages"][0]["content"])
        shown[id(b)] = 0
        for m in re.finditer(r"^(`{3,})\w* file=(\S+)\n(.*?)^\1[ \t]*$", prompt, re.M | re.S):
            shown[id(b)] += 1
            lines = (src / m.group(2)).read_text().split("\n")
            rows = [ln for ln in m.group(3).split("\n") if ln]
            assert rows and all(re.match(r"^ *\d+→", ln) for ln in rows), m.group(2)
            for ln in rows:
                n, code_ = ln.split("→", 1)
                assert lines[int(n) - 1] == code_
    assert all(shown.values())  # each of them was shown at least one numbered file
    # R1 checks the draft's ranges and the writer cites lines: both are shown numbered lines too (issue 36)
    for b in [b for b in bodies if role_of(b) in ("r1", "writer")]:
        assert re.search(r"^ *\d+→", _text(b["messages"][0]["content"]), re.M), role_of(b)
    reports = sorted((ws / "output/research").glob("ch*-report.md"))
    drafts = sorted((ws / "output/chapters/draft").glob("ch*-draft.md"))
    cited = 0
    for f in reports + drafts:
        text = f.read_text()
        probs, _uncited, _cov = resolve(text, src)
        assert probs == [], (f.name, probs)
        cited += len(citations(text))
        for block in re.findall(r"^```\w* file=\S+[^\n]*\n(.*?)^```", text, re.M | re.S):
            assert not re.search(r"^ *\d+→", block, re.M), f.name  # a quoted block never carries them
    assert cited >= len(reports) + len(drafts)
    reviews = "".join(p.read_text() for p in (ws / "output/reviews").glob("ch*-r1.md"))
    assert "r1.cite" not in reviews and "r1.code" not in reviews


def test_the_prompt_says_how_to_cite_the_numbers():
    from test_prompts import ctx_for

    from orchestrator import agents

    ctx = ctx_for("researcher", "en", "ch05")
    ctx["sources"] = {"pkg/a.py": source_context.numbered("def f():\n    return 1\n")}
    p = agents.render_layout(None, "researcher", ctx, layout="roles")
    text = p.system + p.prompt
    assert "1→def f():" in text and "2→    return 1" in text
    assert "never the number" in text and "(source:path#La-Lb)" in text


def test_the_example_report_cites_as_the_prompt_asks(tmp_path: Path):
    from orchestrator.contracts.examples import EXAMPLES

    assert "(source:throttle/bucket.py#L41-L46)" in EXAMPLES["researcher"]
