"""Tests of the prompt templates (prompts/*.md.j2): every role renders with StrictUndefined in
English and Chinese, the cached `system` part holds nothing chapter-specific (two chapters of
one batch get the same system), the `prompt` part carries the chapter and the deterministic
findings, the output formats the tool parses are asked for, and a workspace's own template
wins over the built-in one."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
from conftest import make_example

from orchestrator import agents
from orchestrator.errors import ConfigError
from orchestrator.resources import builtin
from orchestrator.steps import BOOK_STEPS, PHASE3, STEPS

LANGS = ("en", "zh")
CHAPTER_ROLES = ("researcher", "writer", "r1_code", "r2_consistency", "r3_content", "merger", "reader_panel",
                 "memory_keeper", "editor")
ALL_ROLES = ("planner",) + CHAPTER_ROLES + ("auditor",)

PERSONAS = ["newcomer: knows Python, has never seen this codebase",
            "maintainer: knows the codebase, checks that nothing is wrong or missing",
            "architect: wants the design decisions and their trade-offs"]

OUTLINE_YAML = """title: 'Inside minikv'
chapters:
- id: ch01
  title: Records on disk
  batch: 1
  summary: How a record is encoded.
  depends_on: []
  sources:
  - minikv/record.py
- id: ch04
  title: The memtable
  batch: 2
  summary: Recent writes in memory.
  depends_on: [ch01]
  sources:
  - minikv/memtable.py
- id: ch05
  title: Sorted string tables
  batch: 2
  summary: Immutable sorted files.
  depends_on: [ch01, ch04]
  sources:
  - minikv/sstable.py
- id: ch06
  title: The write-ahead log
  batch: 2
  summary: Durable writes before they are applied.
  depends_on: [ch01]
  sources:
  - minikv/wal.py
"""

CHAPTERS = {
    "ch01": {"id": "ch01", "title": "Records on disk", "batch": 1, "summary": "How a record is encoded.",
             "depends_on": [], "sources": ["minikv/record.py"]},
    "ch04": {"id": "ch04", "title": "The memtable", "batch": 2, "summary": "Recent writes in memory.",
             "depends_on": ["ch01"], "sources": ["minikv/memtable.py"]},
    "ch05": {"id": "ch05", "title": "Sorted string tables", "batch": 2, "summary": "Immutable sorted files.",
             "depends_on": ["ch01", "ch04"], "sources": ["minikv/sstable.py"]},
    "ch06": {"id": "ch06", "title": "The write-ahead log", "batch": 2,
             "summary": "Durable writes before they are applied.", "depends_on": ["ch01"], "sources": ["minikv/wal.py"]},
}

SOURCES = {
    "minikv/record.py": 'def encode(key: bytes) -> bytes:\n    """Encode."""\n    return key\n',
    "minikv/memtable.py": "class MemTable:\n    pass\n",
    "minikv/sstable.py": 'def write_table(path):\n    """SSTABLE-SOURCE-MARK"""\n    return 1\n',
    "minikv/wal.py": 'def append(record):\n    """WAL-SOURCE-MARK"""\n    return None\n',
}

# Long memory as gather gives it: ch01 (batch 1) is visible to every chapter of batch 2; ch04
# (batch 2) only to ch05, which depends on it. Shared entries belong in the system part,
# same-batch ones in the prompt part.
MEM_SHARED = {"glossary": [["Record", "One mutation of one key.", "ch01"]],
              "summaries": [["ch01", "Records on disk", "Records have a CRC."]],
              "metaphors": [["a coat check", "hand it over, get a ticket", "ch01"]]}
MEM_CH04 = {"glossary": [["MemTable", "SAMEBATCH-GLOSSARY sorted map in memory.", "ch04"]],
            "summaries": [["ch04", "The memtable", "SAMEBATCH-SUMMARY of the memtable."]],
            "metaphors": [["a front desk", "SAMEBATCH-METAPHOR one place to ask", "ch04"]]}

FINDINGS = {
    "r1_code": [{"check": "r1.code", "severity": "blocking", "line": 12,
                 "message": "code block at line 12 is not in minikv/sstable.py: FINDING-MARK"}],
    "r2_consistency": [{"check": "r2.glossary", "severity": "minor", "line": 3,
                        "message": "writes 'record' for the glossary term 'Record'; use 'Record' FINDING-MARK"}],
    "r3_content": [{"check": "r3.length", "severity": "major", "line": 0,
                    "message": "the chapter is 153 words long; the minimum is 300 FINDING-MARK"}],
    "merger": [{"check": "r1.code", "severity": "blocking", "line": 12, "message": "not in the source FINDING-MARK"},
               {"check": "r3.length", "severity": "major", "line": 0, "message": "too short FINDING-MARK"}],
    "auditor": [{"check": "audit.link", "severity": "major", "line": 7,
                 "message": "link to ch09.md points to a chapter that is not in this book FINDING-MARK"}],
}


def draft_of(ch: str) -> str:
    return (f"# {CHAPTERS[ch]['title']}\n\nDRAFT-MARK-{ch} opening paragraph.\n\n## Part\n\n"
            "```python file=minikv/sstable.py\ndef write_table(path):\n```\n\nExplained.\n\n## Summary\n\nDone.\n")


def planner_ctx(files: dict[str, str], budget: int = 60_000) -> dict:
    """The planner's view of `files` as gather builds it: the listing and the ranked map."""
    from orchestrator.agents.source_context import planner_context_of
    from orchestrator.repo.map import build_map

    kinds = {p: "code" if p.endswith(".py") else "doc" for p in files}
    m = build_map([(p, "python" if p.endswith(".py") else None, kinds[p]) for p in files], read=files.__getitem__)
    return planner_context_of(kinds, m, f"{len(files)} files", budget)


def ctx_for(role: str, language: str = "en", ch: str | None = "ch05") -> dict:
    """A context as agents.gather builds it for `role` (keys per its docstring)."""
    ctx = {
        "book": {"title": "Inside minikv", "language": language, "audience": "developers new to the code",
                 "brief": "Explain the store module by module."},
        "language": language,
        "personas": list(PERSONAS),
        "style_guide": "# Style guide: Inside minikv\n\n## Voice\n- Plain words.\n" if role != "planner" else "",
        "chapters": [{k: c[k] for k in ("id", "title", "batch", "summary")} for c in CHAPTERS.values()],
        "outline_yaml": OUTLINE_YAML,
        "_source_dir": "/nonexistent", "source_name": "./src",
    }
    if role == "planner":
        ctx["chapters"], ctx["outline_yaml"] = [], ""
        ctx |= planner_ctx(dict(SOURCES, **{"README.md": "# minikv\n\n```console\n$ run\n```\n",
                                            "minikv/big.py": "".join(f"line_{i} = {i}\n" for i in range(1, 501))}))
        ctx["limits"] = {"max_chapters": 7, "batch_size": 2}
        return ctx
    mem = copy.deepcopy(MEM_SHARED)
    if role == "auditor":
        for k in mem:
            mem[k] += copy.deepcopy(MEM_CH04[k])
        ctx["memory"] = mem
        ctx["finals"] = {c: draft_of(c).replace("DRAFT-MARK", "FINAL-MARK") for c in CHAPTERS}
        ctx["findings"] = copy.deepcopy(FINDINGS["auditor"])
        return ctx
    assert ch is not None
    if "ch04" in CHAPTERS[ch]["depends_on"]:  # visible: earlier batches + own dependencies
        for k in mem:
            mem[k] += copy.deepcopy(MEM_CH04[k])
    ctx["memory"] = mem
    ctx["chapter"] = copy.deepcopy(CHAPTERS[ch])
    if role in ("researcher", "r1_code"):
        ctx["sources"] = {p: SOURCES[p] for p in CHAPTERS[ch]["sources"]}
    if role == "researcher":
        ctx["imports_from"] = {p: c for c, e in CHAPTERS.items() if c != ch for p in e["sources"]}
        ctx["related_map"] = "minikv/record.py:\ndef encode(key: bytes) -> bytes  # RELATED-MAP-MARK"
        ctx["tests_map"] = "tests/test_sstable.py:\ndef test_write_table()  # TESTS-MAP-MARK"
        ctx["related_files"], ctx["test_files"] = ["minikv/record.py"], ["tests/test_sstable.py"]
    if role == "writer":
        ctx["research"] = f"# Research: {ch}\n\n## Sources\n\n- RESEARCH-MARK-{ch}\n"
    if role not in ("researcher", "writer"):
        ctx["draft"] = draft_of(ch)
    if role in FINDINGS:
        ctx["findings"] = copy.deepcopy(FINDINGS[role])
    if role == "r1_code":
        ctx["verified_blocks"] = ["minikv/sstable.py"]
    if role == "merger":
        for k in ("r1", "r2", "r3"):
            ctx[k] = f"# {k}\n\nVerdict: clean\n\n## Findings\n\n- none\n\n## Notes\n\nREVIEW-MARK-{k}-{ch}\n"
        ctx["blocked"] = True
    if role in ("reader_panel", "editor"):
        ctx["review"] = f"# Merged review: {ch}\n\nVerdict: clean\n\n## Findings\n\n- none\n\nMERGED-MARK-{ch}\n"
    if role == "editor":
        ctx["panel"] = f"# Reader panel: {ch}\n\n## newcomer\n\n- PANEL-MARK-{ch}\n"
    return ctx


def render(role, ctx, root: Path | None = None):
    return agents.render_prompt(root, role, ctx)


def finding_line(f: dict) -> str:
    return f"- **{f['severity']}** `{f['check']}`" + (f" line {f['line']}" if f["line"] else "") + f": {f['message']}"


CHAPTER_MARKS = ("DRAFT-MARK", "RESEARCH-MARK", "REVIEW-MARK", "MERGED-MARK", "PANEL-MARK", "FINDING-MARK",
                 "SAMEBATCH-", "SSTABLE-SOURCE-MARK", "WAL-SOURCE-MARK", "INSTRUCTION-MARK")


# ---------------------------------------------------------------- every role renders


@pytest.mark.parametrize("language", LANGS)
@pytest.mark.parametrize("role", ALL_ROLES)
def test_every_role_renders_both_parts(role, language):
    ch = None if role in ("planner", "auditor") else "ch05"
    system, prompt = render(role, ctx_for(role, language, ch))
    assert len(system) > 500 and len(prompt) > 100
    from orchestrator.contracts.examples import EXAMPLES

    structured = role not in ("researcher", "writer", "editor")
    assert ("one JSON object" in system) if structured else ("no preamble" in system)
    # the exemplary answer is part of the cached instructions when the context carries it
    system_ex, _ = render(role, dict(ctx_for(role, language, ch), example=EXAMPLES[role]))
    assert EXAMPLES[role].strip()[:200] in system_ex
    assert "Simplified Chinese" in system if language == "zh" else "Simplified Chinese" not in system
    assert "{{" not in system + prompt and "{%" not in system + prompt


def test_every_step_role_has_a_template():
    roles = {s.role for s in STEPS.values() if s.model} | {s.role for s in BOOK_STEPS.values() if s.model}
    assert roles == set(ALL_ROLES)


# ---------------------------------------------------------------- the cached prefix


@pytest.mark.parametrize("language", LANGS)
@pytest.mark.parametrize("role", CHAPTER_ROLES)
def test_system_is_the_same_for_every_chapter_of_a_batch(role, language):
    s5, p5 = render(role, ctx_for(role, language, "ch05"))
    s6, p6 = render(role, ctx_for(role, language, "ch06"))
    assert s5 == s6
    assert p5 != p6
    for mark in CHAPTER_MARKS:
        assert mark not in s5, f"{role}: chapter-specific text {mark!r} in the system part"
    # The chapter's own outline entry text is in the prompt, never outside the outline block.
    assert "Immutable sorted files." not in s5.replace(OUTLINE_YAML.strip(), "")


@pytest.mark.parametrize("role", ["writer", "r2_consistency", "memory_keeper", "editor"])
def test_memory_of_earlier_batches_in_system_same_batch_dependencies_in_prompt(role):
    system, prompt = render(role, ctx_for(role, "en", "ch05"))
    assert "**Record** (ch01)" in system
    assert "a coat check" in system
    assert "SAMEBATCH-GLOSSARY" in prompt and "SAMEBATCH-GLOSSARY" not in system
    assert "SAMEBATCH-METAPHOR" in prompt
    _, prompt6 = render(role, ctx_for(role, "en", "ch06"))
    assert "SAMEBATCH" not in prompt6  # ch06 does not see ch04


# ---------------------------------------------------------------- the chapter-specific part


@pytest.mark.parametrize("language", LANGS)
@pytest.mark.parametrize("role", CHAPTER_ROLES)
def test_prompt_names_the_chapter(role, language):
    ctx = ctx_for(role, language, "ch05")
    _, prompt = render(role, ctx)
    assert "ch05" in prompt and "Sorted string tables" in prompt
    assert "Immutable sorted files." in prompt
    if role in ("researcher", "r1_code"):
        assert "```python file=minikv/sstable.py\n" in prompt and "SSTABLE-SOURCE-MARK" in prompt
        assert "WAL-SOURCE-MARK" not in prompt
    if role == "writer":
        assert "RESEARCH-MARK-ch05" in prompt
    if role not in ("researcher", "writer", "merger"):
        assert "DRAFT-MARK-ch05" in prompt
    if role == "merger":
        assert all(f"REVIEW-MARK-{k}-ch05" in prompt for k in ("r1", "r2", "r3"))
    if role in ("reader_panel", "editor"):
        assert "MERGED-MARK-ch05" in prompt
    if role == "editor":
        assert "PANEL-MARK-ch05" in prompt


@pytest.mark.parametrize("language", LANGS)
@pytest.mark.parametrize("role", ["r1_code", "r2_consistency", "r3_content", "merger", "auditor"])
def test_prompt_carries_every_deterministic_finding(role, language):
    ctx = ctx_for(role, language, None if role == "auditor" else "ch05")
    system, prompt = render(role, ctx)
    for f in ctx["findings"]:
        assert finding_line(f) in prompt
    assert "FINDING-MARK" not in system


@pytest.mark.parametrize("role", ["r1_code", "r2_consistency", "r3_content", "merger", "auditor"])
def test_no_findings_is_said_as_none(role):
    ctx = ctx_for(role, "en", None if role == "auditor" else "ch05")
    ctx["findings"] = []
    if role == "merger":
        ctx["blocked"] = False
    _, prompt = render(role, ctx)
    assert "\n- none\n" in prompt


def test_auditor_names_the_chapter_of_a_finding_when_it_is_known():
    ctx = ctx_for("auditor")
    ctx["findings"][0]["chapter"] = "ch04"
    _, prompt = render("auditor", ctx)
    assert "- **major** `audit.link` ch04 line 7: link to ch09.md" in prompt
    assert all(f"<chapter id=\"{c}\"" in prompt for c in CHAPTERS)
    assert "FINAL-MARK-ch06" in prompt


@pytest.mark.parametrize("role", ["r1_code", "r2_consistency", "r3_content", "reader_panel"])
def test_reviewers_see_the_draft_with_line_numbers(role):
    _, prompt = render(role, ctx_for(role, "en", "ch05"))
    assert "   1 | # Sorted string tables\n" in prompt
    assert "   3 | DRAFT-MARK-ch05 opening paragraph.\n" in prompt


@pytest.mark.parametrize("role", ["merger", "editor", "memory_keeper"])
def test_merger_and_editor_see_the_draft_with_line_numbers(role):
    """The review's line numbers are those of the numbered draft: the merger writes its actions
    against them, the editor applies them (issue 11 part 3)."""
    _, prompt = render(role, ctx_for(role, "en", "ch05"))
    for n, line in enumerate(draft_of("ch05").rstrip("\n").split("\n"), 1):
        assert f"{n:4d} | {line}\n" in prompt


def test_the_memory_keeper_reads_the_same_numbered_draft_as_the_reviewers():
    """The memory keeper's draft is the chapter's material the reviewers read, byte for byte (one
    cached block for all of them when it goes first), numbered like theirs."""
    _, prompt = render("memory_keeper", ctx_for("memory_keeper", "en", "ch05"))
    assert "   3 | DRAFT-MARK-ch05 opening paragraph.\n" in prompt


def test_merger_is_told_when_the_chapter_is_blocked():
    _, prompt = render("merger", ctx_for("merger"))
    assert "one is blocking, so the chapter is blocked" in prompt
    ctx = ctx_for("merger")
    ctx["blocked"] = False
    _, prompt = render("merger", ctx)
    assert "chapter is blocked)" not in prompt


@pytest.mark.parametrize("role", ALL_ROLES)
def test_instructions_are_used_only_when_given(role):
    ch = None if role in ("planner", "auditor") else "ch05"
    ctx = ctx_for(role, "en", ch)
    _, without = render(role, ctx)
    assert "<instructions>" not in without
    ctx["instructions"] = "INSTRUCTION-MARK: shorten the second section"
    system, prompt = render(role, ctx)
    assert "INSTRUCTION-MARK: shorten the second section" in prompt
    assert "INSTRUCTION-MARK" not in system


# ---------------------------------------------------------------- output formats


# What each role's instructions must name: the Markdown roles their file's format, the JSON
# roles (the request carries a schema) the JSON fields; tests/test_prompt_contracts.py checks
# that neither contradicts the schema or the validator.
FORMAT_TOKENS = {
    "planner": ["`title`", "`intro`", "`chapters`", "`id`", "`batch`", "`summary`", "`goals`", "`depends_on`",
                "`sources`"],
    "researcher": ["file=", "## "],
    "writer": ["file=", "**term**: definition", "(chNN.md)", "# <chapter title>"],
    "r1_code": ["`findings`", "`notes`", "`blocking`", "`major`", "`minor`", "`severity`", "`check`", "`message`",
                "`quote`", "`line`", "There is no verdict field"],
    "r2_consistency": ["`findings`", "`notes`", "`r2.`"],
    "r3_content": ["`findings`", "`notes`", "`r3.`"],
    "merger": ["`findings`", "`actions`", "`change`", "`settles`", "`notes`"],
    "reader_panel": ["`readers`", "`persona`", "`verdict`", "`score`", "`questions`", "`confusions`",
                     "`newcomer`", "`maintainer`", "`architect`"],
    "memory_keeper": ["`summary`", "`terms`", "`term`", "`definition`", "`metaphors`", "`phrase`", "`meaning`",
                      "`cross_references`", "`chapter`", "`reason`"],
    "editor": ["file=", "**term**: definition"],
    "auditor": ["`findings`", "`chapter`", "`notes`", "`audit.`"],
}
LOCALISED = {  # (en, zh) headings the Markdown roles write in the book's language, as the offline provider does
    "researcher": ("# Research: chNN", "# 研究报告: chNN"),
    "writer": ("## Summary", "## 小结"),
    "editor": ("## Summary", "## 小结"),
}


@pytest.mark.parametrize("language", LANGS)
@pytest.mark.parametrize("role", ALL_ROLES)
def test_system_asks_for_the_output_format(role, language):
    ch = None if role in ("planner", "auditor") else "ch05"
    system, _ = render(role, ctx_for(role, language, ch))
    for tok in FORMAT_TOKENS[role]:
        assert tok in system, f"{role}/{language}: {tok!r} missing from the system part"
    if role in LOCALISED:
        assert LOCALISED[role][language == "zh"] in system
        assert "<!-- DRAFT_COMPLETE -->" in system  # told never to write markers
    else:
        assert "Never write HTML comments or completion markers in any field" in system


@pytest.mark.parametrize("language", LANGS)
@pytest.mark.parametrize("role", ["writer", "editor", "r2_consistency", "r3_content", "auditor"])
def test_judging_and_writing_roles_get_the_style_guide_and_outline(role, language):
    system, _ = render(role, ctx_for(role, language, None if role == "auditor" else "ch05"))
    assert "<style_guide>\n# Style guide: Inside minikv" in system
    assert "```yaml\n" + OUTLINE_YAML.strip() + "\n```" in system


@pytest.mark.parametrize("role", ["writer", "editor", "r3_content"])
def test_conventions_are_spelled_out(role):
    system, _ = render(role, ctx_for(role, "en", "ch05"))
    for tok in ("```` ```python file=", "copied exactly", "`...`", "**term**: definition", "[its title](chNN.md)",
                "one metaphor", "TODO", "## Summary"):
        assert tok in system, tok


def test_reader_panel_names_every_persona():
    ctx = ctx_for("reader_panel")
    ctx["personas"] = ["ops engineer: runs it in production", "student"]
    system, prompt = render("reader_panel", ctx)
    assert "(`ops engineer`, `student`)" in system
    assert "**ops engineer**: runs it in production" in system
    assert "in this order: `ops engineer`, `student`." in prompt


# ---------------------------------------------------------------- the planner


@pytest.mark.parametrize("language", LANGS)
def test_planner_lists_every_file_and_shows_the_ranked_map(language):
    ctx = ctx_for("planner", language, None)
    system, prompt = render("planner", ctx)
    for f in ctx["source_files"]:
        lines = f", {f['lines']} lines" if f["lines"] else ""
        assert f"- `{f['path']}` ({f['kind']}{lines})" in prompt
    assert "- `minikv/big.py` (code, 500 lines)" in prompt
    # signatures and doc lines from the map, never the files' bodies
    assert "def encode(key: bytes) -> bytes" in prompt and "return key" not in prompt
    assert "$ run" not in prompt  # a doc file is listed, not shown
    assert "At most 7 chapters" in prompt and "At most 2 chapters per batch" in prompt
    assert "Inside minikv" in prompt and "developers new to the code" in prompt


def test_the_planners_map_keeps_its_budget_for_a_large_tree():
    ctx = ctx_for("planner", "en", None)
    files = {f"pkg/m{i:03d}.py": "".join(f"def f{j}_{i}(x):\n    return x\n" for j in range(100)) for i in range(120)}
    ctx |= planner_ctx(files, budget=8_000)
    _, prompt = render("planner", ctx)
    assert len(ctx["repo_map"]) <= 8_000 and "def f0_0(x)" in prompt
    assert prompt.count("- `pkg/m") == 120  # the listing is complete; the map is what is bounded


# ---------------------------------------------------------------- overrides


def test_a_workspace_template_overrides_the_built_in_one(tmp_path):
    ws = tmp_path / "ws"
    (ws / "prompts").mkdir(parents=True)
    (ws / "prompts" / "writer.md.j2").write_text(
        "{% block system %}{% import '_common.md.j2' as c with context %}OVERRIDE-SYSTEM {{ c.t('en', 'zh') }}"
        "{% endblock %}\n{% block prompt %}OVERRIDE-PROMPT {{ chapter.id }}{% endblock %}\n")
    system, prompt = render("writer", ctx_for("writer", "zh", "ch05"), ws)
    assert system.endswith("\n\nOVERRIDE-SYSTEM zh")  # after the shared book context; it may import the macros
    assert prompt == "OVERRIDE-PROMPT ch05"
    # other roles still come from the built-in templates
    system, _ = render("editor", ctx_for("editor", "en", "ch05"), ws)
    assert "You are the editor" in system
    # and the built-in writer is unchanged for a workspace without an override
    system, _ = render("writer", ctx_for("writer", "en", "ch05"), tmp_path)
    assert "You are the writer" in system


def test_a_broken_override_is_a_config_error(tmp_path):
    ws = tmp_path / "ws2"
    (ws / "prompts").mkdir(parents=True)
    (ws / "prompts" / "writer.md.j2").write_text("{% block system %}{{ no_such_key }}{% endblock %}"
                                                 "{% block prompt %}x{% endblock %}")
    with pytest.raises(ConfigError):
        render("writer", ctx_for("writer"), ws)


# ---------------------------------------------------------------- the real contexts


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
@pytest.mark.parametrize("language", LANGS)
def test_contexts_gathered_from_a_built_book_render(tmp_path, language):
    """The templates against agents.gather itself, on the example book built offline."""
    from orchestrator.state.book import Book
    from orchestrator.testing.helpers import run_book

    ws = make_example(tmp_path / f"ws-{language}", language=f'"{language}"')
    code, _ = run_book(ws)
    assert code == 0
    book = Book.open(ws)
    try:
        o = book.scanner.outline
        extra = {"_source_dir": book.cfg.source_dir, "source_name": book.cfg.source}
        for step in ("outline", "audit"):
            g = agents.gather(book, step, None, extra)
            system, prompt = agents.render_prompt(book.root, BOOK_STEPS[step].role, g.context)
            assert system and prompt
        materials: dict[str, set[str]] = {}
        for step in PHASE3 + ("final",):
            systems = {}
            for c in o.chapters:
                g = agents.gather(book, step, c.id, extra)
                parts = agents.render_layout(book.root, STEPS[step].role, g.context)
                # the role's instructions are the same for every chapter of a batch; the chapter's
                # material (when it goes first) is the same for every role that reads the draft
                system, prompt = parts.shared + "\n\n" + parts.system, parts.material + "\n\n" + parts.prompt
                if g.context.get("draft"):
                    materials.setdefault(c.id, set()).add(parts.material)
                assert c.id in prompt
                for f in g.context.get("findings", []):
                    assert f["message"].replace("\n", " ") in prompt
                if g.context.get("draft"):
                    assert g.context["draft"].splitlines()[0][2:] in prompt  # the draft's title
                systems.setdefault(c.batch, set()).add(system)
            for batch, found in systems.items():
                assert len(found) == 1, f"{step}: batch {batch} has {len(found)} different system parts"
        for ch, found in materials.items():
            assert len(found) == 1, f"{ch}: the roles reading its draft send {len(found)} different materials"
    finally:
        book.close()


def test_prompts_stay_readable():
    root = builtin("prompts")
    for role in ALL_ROLES:
        n = len((root / f"{role}.md.j2").read_text(encoding="utf-8").splitlines())
        assert 30 <= n <= 130, f"{role}.md.j2 has {n} lines"  # the researcher: its format and the front door
        text = (root / f"{role}.md.j2").read_text(encoding="utf-8")
        assert re.search(r"\{% block system %\}.*\{% endblock %\}.*\{% block prompt %\}", text, re.S)


def test_the_researcher_sees_the_ranked_symbols_of_what_the_chapter_uses_and_its_tests():
    _, prompt = render("researcher", ctx_for("researcher", "en", "ch05"))
    assert "RELATED-MAP-MARK" in prompt and "TESTS-MAP-MARK" in prompt and "`tests/test_sstable.py`" in prompt
    ctx = ctx_for("researcher", "en", "ch05")
    del ctx["related_map"], ctx["tests_map"]
    _, prompt = render("researcher", ctx)  # a chapter that uses nothing else renders without the sections
    assert "ranked symbols" not in prompt

