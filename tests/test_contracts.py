"""The contracts: JSON answers validated with the path of the bad field, schemas the API
accepts, people's files read in the forms people write (and errors naming file and line),
the verdict computed in code, and marker text rejected."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orchestrator.contracts import (
    ContractError,
    Finding,
    MemoryUpdate,
    MergedReview,
    OutlinePlan,
    PanelFeedback,
    Review,
    blocked_reason,
    check_no_markers,
    marker_problems,
    merge_findings,
    parse as P,
    read_merged_review,
    verdict,
)
from orchestrator.contracts.schemas import SCHEMAS, from_answer, output_config
from orchestrator.errors import ValidationFailed


def one(line: str, **kw) -> Finding:
    fs = P.parse_findings(line, file="ch03-review.md", **kw)
    assert len(fs) == 1, fs
    return fs[0]


# ---------------------------------------------------------------- the forms people write

@pytest.mark.parametrize("line, want", [
    ("- **blocking** `r1.code` line 12: gone", ("r1.code", "blocking", 12, None, None)),
    ("- **blocking** `r1.code` lines 40-52: gone", ("r1.code", "blocking", 40, 52, None)),
    ("- **blocking** `r1.code` lines 40–52 — gone", ("r1.code", "blocking", 40, 52, None)),
    ("- **blocking** `r1.code` (line 12): gone", ("r1.code", "blocking", 12, None, None)),
    ("- **blocking** `r1.code` [line 12]: gone", ("r1.code", "blocking", 12, None, None)),
    ("- **blocking** `r1.code` L12: gone", ("r1.code", "blocking", 12, None, None)),
    ("- **blocking** `r1.code` L3-L5: gone", ("r1.code", "blocking", 3, 5, None)),
    ("- **blocking** `r1.code` — gone", ("r1.code", "blocking", 0, None, None)),
    ("1. **Blocking** — lines 3-5: gone", ("person", "blocking", 3, 5, None)),
    ("1) **minor**: [line 7] gone", ("person", "minor", 7, None, None)),
    ("* Blocking — lines 3–5: gone", ("person", "blocking", 3, 5, None)),
    ("+ MAJOR r2.glossary L12 — gone", ("r2.glossary", "major", 12, None, None)),
    ("- **blocking**: gone", ("person", "blocking", 0, None, None)),
    ("- **Blocking:** gone", ("person", "blocking", 0, None, None)),
    ("- blocking: gone", ("person", "blocking", 0, None, None)),
    ("- __major__ `r3.structure` [ch04] (lines 3 – 5): gone", ("r3.structure", "major", 3, 5, "ch04")),
    ("- **minor** `audit.link` ch03 line 9: gone", ("audit.link", "minor", 9, None, "ch03")),
    ("- **major** 第 12 行：gone", ("person", "major", 12, None, None)),
    ("- [blocker] `r1.code` line 2: gone", ("r1.code", "blocking", 2, None, None)),
    ("- **blocking** `r1.code` lines 7-7: gone", ("r1.code", "blocking", 7, None, None)),
])
def test_a_finding_in_the_forms_people_write(line, want):
    f = one(line)
    assert (f.check, f.severity, f.line, f.end_line, f.chapter) == want
    assert f.message == "gone"


def test_words_after_an_unterminated_location_stay_in_the_message():
    f = one("- Blocking — lines 3-5 repeat the introduction")
    assert (f.line, f.end_line, f.message) == (3, 5, "lines 3-5 repeat the introduction")
    f = one("- **major** `os.path` is misused here")  # not a check id of ours: part of the message
    assert (f.check, f.message) == ("person", "`os.path` is misused here")


def test_a_colon_ends_the_head_so_the_message_may_look_like_a_location():
    f = one("- **minor** `r3.structure`: lines 3-5 of the chapter repeat the intro")
    assert (f.line, f.message) == (0, "lines 3-5 of the chapter repeat the intro")


def test_quote_continuation_and_fenced_quote():
    text = "\n".join([
        "Some preface a person wrote under the heading: it is prose, not a finding.",
        "",
        "<!-- a comment, even one that spans",
        "- **blocking** lines that look like findings -->",
        "- **blocking** `r1.code` lines 40-52: the block quotes a",
        "  parameter the source does not have",
        "  > def get(self, key, default=None):",
        "  >     return self._data.get(key, default)",
        "* **major** `r2.glossary` line 3: term spelled wrong",
        "  ```python",
        "  memtable = MemTable()",
        "  ```",
        "",
        "```",
        "- **blocking** inside a code block is not a finding",
        "```",
        "A closing paragraph.",
    ])
    a, b = P.parse_findings(text, file="f.md")
    assert a.message == "the block quotes a parameter the source does not have"
    assert a.quote == "def get(self, key, default=None):\n    return self._data.get(key, default)"
    assert (b.check, b.quote) == ("r2.glossary", "memtable = MemTable()")


@pytest.mark.parametrize("text, line, what", [
    ("- **blocking** `r1.code` line 4: fine\n- the code at line 9 is wrong", 2, "does not start with a severity"),
    ("\n\n- **critical** `r1.code` line 4: bad", 3, "does not start with a severity"),
    ("- **blocking** `r1.code` line 4:", 1, "has no message"),
    ("- **major** `r1.code` lines 9-3: backwards", 1, "runs backwards"),
])
def test_an_unreadable_finding_is_an_error_naming_file_and_line(text, line, what):
    with pytest.raises(ContractError) as e:
        P.parse_findings(text, file="output/reviews/ch03-review.md")
    assert e.value.file == "output/reviews/ch03-review.md" and e.value.line == line
    assert what in str(e.value)
    assert str(e.value).startswith(f"output/reviews/ch03-review.md:{line}: ")
    assert "expected a finding like" in str(e.value)
    assert isinstance(e.value, ValidationFailed)  # the runner's re-ask handles a model's answer


def test_none_lines_blank_lines_and_prose_are_fine():
    assert P.parse_findings("Nothing serious.\n\n- none\n") == []
    assert P.parse_findings("(none)") == []
    assert P.parse_findings("Minor issues aside, the chapter reads well.") == []  # prose, not a finding


MERGED_BY_HAND = """# Merged review: ch03 — Records

Verdict: blocked

## Findings

1. **Blocking** — lines 3-5: the example writes the header after the payload; the source writes it first

## Actions for the editor

- Rewrite the example from the source.

<!-- REVIEW_COMPLETE body=0123456789ab verdict=clean run=x -->
"""


def test_a_hand_edited_merged_review_blocks(tmp_path: Path):
    p = tmp_path / "ch03-review.md"
    p.write_text(MERGED_BY_HAND, encoding="utf-8")
    findings, person = read_merged_review(p)
    assert person == "blocked"
    assert [(f.check, f.severity, f.line, f.end_line) for f in findings] == [("person", "blocking", 3, 5)]
    assert verdict(findings, person) == "blocked"
    assert blocked_reason(findings, person).startswith("person line 3-5: the example writes")


def test_a_persons_verdict_blocked_holds_without_a_finding():
    text = MERGED_BY_HAND.replace("1. **Blocking** — lines 3-5: the example writes the header after the payload; "
                                  "the source writes it first", "- none").replace("Verdict: blocked", "**Verdict:** Blocked")
    findings, person = read_merged_review(text, file="ch03-review.md")
    assert findings == () and person == "blocked"
    assert verdict(findings, person) == "blocked"
    assert blocked_reason(findings, person) == "a person marked it blocked"
    # and the model's "clean" never overrides a blocking finding
    fs = (Finding("r1.code", "blocking", 4, "not in the source"),)
    assert verdict(fs, "clean") == "blocked"


def test_a_verdict_written_as_a_bullet_of_the_findings():
    text = "# M\n\n## Findings\n\n- **Verdict:** blocked\n- **major** `r1.code` line 2: x\n"
    findings, person = read_merged_review(text, file="m.md")
    assert person == "blocked" and [f.line for f in findings] == [2]


def test_verdict_line_errors_and_missing_findings_section():
    with pytest.raises(ContractError, match=r"ch03-review.md:3: cannot read the verdict 'maybe'"):
        read_merged_review(MERGED_BY_HAND.replace("Verdict: blocked", "Verdict: maybe"), file="ch03-review.md")
    with pytest.raises(ContractError, match="no `## Findings` section"):
        P.parse_review("# R1\n\nVerdict: clean\n\n## Notes\n\nok\n", file="ch03-r1.md")


def test_merged_review_actions_in_several_forms():
    text = ("# M\n\n## Findings\n\n- none\n\n## Actions for the editor\n\n"
            "- lines 40-52 (`r1.code`, `r1.symbol`): remove the block\n"
            "1. line 3: say MemTable\n"
            "- Rewrite the summary: it is too short\n")
    acts = P.parse_merged(text, file="m.md").merged.actions
    assert [(a.line, a.end_line, a.checks, a.change) for a in acts] == [
        (40, 52, ("r1.code", "r1.symbol"), "remove the block"), (3, None, (), "say MemTable"),
        (0, None, (), "Rewrite the summary: it is too short")]


# ---------------------------------------------------------------- memory files

MEMORY = """# Memory: ch05 — Sorted string tables

## Summary

Sorted string tables: immutable files of records in key order,
with a sparse index.

## Glossary

- **SSTable**: Read access to one table file.
- **sparse index:** every 16th key with its offset.
**block** — the unit the table reads at once.
* footer: the last 24 bytes, with the index offset.
1. `Table.get` — binary search over the sparse index.

## Metaphors

- **a post office sorting room**: items arrive in any order and leave sorted

## Cross references

- ch02: Small helpers for writing files
- [Binary encoding of the records](ch03.md): the records it stores
- [The memtable](./ch04.md#flush) — what it is flushed from
* ch01 — the cache in front of it

<!-- MEMORY_COMPLETE body=0123456789ab run=x -->
"""


def test_memory_variants_people_write():
    m = P.parse_memory(MEMORY, file="output/memory/chapters/ch05.md")
    assert (m.chapter, m.title) == ("ch05", "Sorted string tables")
    u = m.update
    assert u.summary == "Sorted string tables: immutable files of records in key order, with a sparse index."
    assert [(t.term, t.definition) for t in u.terms] == [
        ("SSTable", "Read access to one table file."), ("sparse index", "every 16th key with its offset."),
        ("block", "the unit the table reads at once."), ("footer", "the last 24 bytes, with the index offset."),
        ("`Table.get`", "binary search over the sparse index.")]
    assert [(x.chapter, x.reason) for x in u.cross_references] == [
        ("ch02", "Small helpers for writing files"), ("ch03", "the records it stores"),
        ("ch04", "what it is flushed from"), ("ch01", "the cache in front of it")]


def test_the_files_of_todays_runs_still_read():
    """The memory file the offline provider writes today (memoryfiles.render)."""
    from orchestrator.state import memory as memoryfiles

    mem = memoryfiles.ChapterMemory("ch04", "The memtable", "Recent writes in memory.", [("MemTable", "sorted dict")],
                                    [("a bookmark", "remembers where you were")], [("ch03", "records")])
    u = P.parse_memory(memoryfiles.render(mem), file="ch04.md").update
    assert (u.summary, u.terms[0].term, u.metaphors[0].phrase, u.cross_references[0].chapter) == \
        ("Recent writes in memory.", "MemTable", "a bookmark", "ch03")


@pytest.mark.parametrize("edit, line, what", [
    (("- **SSTable**: Read access to one table file.", "- SSTable"), 10, "expected `- **term**: definition`"),
    (("- ch02: Small helpers for writing files", "- see chapter two"), None, "ch05.md:"),
    (("## Metaphors", "## Notes"), 16, "unknown section `## Notes`"),
    (("## Cross references", "## Glossary"), 20, "appears twice"),
])
def test_memory_errors_name_file_and_line(edit, line, what):
    with pytest.raises(ContractError) as e:
        P.parse_memory(MEMORY.replace(*edit), file="output/memory/chapters/ch05.md")
    assert what in str(e.value)
    if line:
        assert e.value.line == line


def test_memory_missing_sections():
    with pytest.raises(ContractError, match="missing section\\(s\\): ## Metaphors, ## Cross references"):
        P.parse_memory("# Memory: ch01 — T\n\n## Summary\n\nx\n\n## Glossary\n\n(none)\n", file="ch01.md")


# ---------------------------------------------------------------- the panel file

PANEL = """# Reader panel: ch02 — Files

## newcomer

_knows Python_

**Verdict:** revise, score 3/5

### Questions

- Why fsync the directory?

### Confusions

- line 11: a sentence of 43 words
  > When the file is written it is flushed and
  Suggestion: split it in two
- whole chapter: no example of a crash

## maintainer

Verdict: ready · score 5/5

- line 4: the path is cited without its module
"""


def test_panel_file():
    p = P.parse_panel(PANEL, file="ch02-panel.md")
    a, b = p.readers
    assert (a.persona, a.verdict, a.score, a.questions) == ("newcomer", "revise", 3, ("Why fsync the directory?",))
    assert [(c.line, c.message, c.quote, c.suggestion) for c in a.confusions] == [
        (11, "a sentence of 43 words", "When the file is written it is flushed and", "split it in two"),
        (0, "no example of a crash", "", "")]
    assert (b.verdict, b.score, b.confusions[0].line) == ("ready", 5, 4)


@pytest.mark.parametrize("edit, line, what", [
    (("Verdict: ready · score 5/5", "Verdict: great"), 22, "cannot read the verdict line"),
    (("Verdict: ready · score 5/5", "Score: 5"), 20, "has no verdict line"),
    (("### Questions", "### Praise"), 9, "unknown sub-section `### Praise`"),
])
def test_panel_errors(edit, line, what):
    with pytest.raises(ContractError) as e:
        P.parse_panel(PANEL.replace(*edit), file="ch02-panel.md")
    assert what in str(e.value) and e.value.line == line


# ---------------------------------------------------------------- JSON answers and schemas

def walk(schema, path="$"):
    yield path, schema
    for k, v in schema.get("properties", {}).items():
        yield from walk(v, f"{path}.{k}")
    if "items" in schema:
        yield from walk(schema["items"], f"{path}[]")


ALLOWED = {"type", "enum", "const", "anyOf", "allOf", "$ref", "$defs", "description", "title", "properties",
           "required", "additionalProperties", "items", "minItems", "format"}


@pytest.mark.parametrize("step", sorted(SCHEMAS))
def test_schemas_use_only_what_structured_outputs_accept(step):
    from anthropic.lib._parse._transform import transform_schema

    schema = SCHEMAS[step]
    assert transform_schema(schema) == schema  # the SDK's own rewrite to the accepted subset changes nothing
    for path, s in walk(schema):
        assert set(s) <= ALLOWED, (path, set(s) - ALLOWED)
        if s.get("type") == "object":
            assert s["additionalProperties"] is False, path
            assert set(s["required"]) <= set(s["properties"]), path
    assert output_config(step) == {"format": {"type": "json_schema", "schema": schema}}
    assert output_config("draft") is None


def test_the_sdk_carries_output_config():
    import inspect

    from anthropic.resources.messages.messages import AsyncMessages, Messages
    from anthropic.types.json_output_format_param import JSONOutputFormatParam
    from anthropic.types.output_config_param import OutputConfigParam

    for fn in (Messages.create, Messages.stream, AsyncMessages.create, AsyncMessages.stream):
        assert "output_config" in inspect.signature(fn).parameters
    assert "format" in OutputConfigParam.__annotations__
    assert set(JSONOutputFormatParam.__annotations__) == {"schema", "type"}


@pytest.mark.parametrize("obj, path, what", [
    ({"findings": [{"severity": "fatal", "check": "r1.code", "message": "m"}], "notes": "n"},
     "$.findings[0].severity", "not one of blocking"),
    ({"findings": [{"severity": "major", "check": "code", "message": "m"}], "notes": "n"},
     "$.findings[0].check", "not a check id"),
    ({"findings": [{"severity": "major", "check": "r1.code", "message": "m", "end_line": 4}], "notes": "n"},
     "$.findings[0].end_line", "needs `line`"),
    ({"findings": [{"severity": "major", "check": "r1.code", "message": "m", "line": "4"}], "notes": "n"},
     "$.findings[0].line", "expected a whole number"),
    ({"findings": [{"severity": "major", "check": "r1.code", "message": " "}], "notes": "n"},
     "$.findings[0].message", "must not be empty"),
    ({"findings": [{"severity": "major", "check": "r1.code", "message": "m", "chapter": "3"}], "notes": "n"},
     "$.findings[0].chapter", "not a chapter id"),
    ({"findings": [], "notes": "n", "verdict": "clean"}, "$.verdict", "unknown field"),
    ({"findings": {}, "notes": "n"}, "$.findings", "expected an array"),
    ({"findings": [], "notes": "ok\n## Verdict\nclean"}, "$.notes", "level-2 heading"),
    ({"findings": []}, "$.notes", "required"),
])
def test_review_json_errors_name_the_path(obj, path, what):
    with pytest.raises(ContractError) as e:
        from_answer("r1", json.dumps(obj))
    assert e.value.path == path and what in str(e.value), str(e.value)


def test_a_fenced_json_answer_is_read():
    review = from_answer("r2", '```json\n{"findings": [], "notes": "Checked the glossary."}\n```\n')
    assert review == Review((), "Checked the glossary.")


def test_json_that_does_not_parse():
    with pytest.raises(ContractError, match="not valid JSON: .* line 1 column"):
        from_answer("review", '{"findings": [')


def test_merged_memory_panel_outline_from_json():
    m = MergedReview.from_json({"findings": [{"severity": "blocking", "check": "r1.code", "line": 40, "end_line": 52,
                                              "quote": "def get(self, key):", "message": "not in the source"}],
                                "actions": [{"change": "remove it", "line": 40, "settles": ["r1.code"]}], "notes": ""})
    assert verdict(m.findings) == "blocked" and m.actions[0].checks == ("r1.code",)
    with pytest.raises(ContractError, match=r"\$\.cross_references\[0\]\.chapter: a chapter does not refer to itself"):
        MemoryUpdate.from_json({"summary": "s", "terms": [], "metaphors": [],
                                "cross_references": [{"chapter": "ch02", "reason": "r"}]}, chapter="ch02")
    with pytest.raises(ContractError, match=r"\$\.terms\[1\]\.term: 'X' is listed twice"):
        MemoryUpdate.from_json({"summary": "s", "terms": [{"term": "x", "definition": "d"}, {"term": "X", "definition": "d"}],
                                "metaphors": [], "cross_references": []})
    reader = {"persona": "newcomer", "verdict": "ready", "score": 6, "questions": [], "confusions": []}
    with pytest.raises(ContractError, match=r"\$\.readers\[0\]\.score: 6 is out of range"):
        PanelFeedback.from_json({"readers": [reader]})
    reader["score"] = 4
    with pytest.raises(ContractError, match="expected one entry per reader, in this order: newcomer, architect"):
        PanelFeedback.from_json({"readers": [reader]}, personas=["newcomer", "architect"])


def chapter(cid, batch, deps=(), sources=("a.py",)):
    return {"id": cid, "title": "T " + cid, "batch": batch, "summary": "s", "goals": ["g"], "depends_on": list(deps),
            "sources": list(sources)}


@pytest.mark.parametrize("chapters, path, what", [
    ([chapter("ch01", 1, ["ch02"]), chapter("ch02", 2)], "$.chapters[0].depends_on[0]", "of a later batch (2)"),
    ([chapter("ch01", 1, ["ch09"])], "$.chapters[0].depends_on[0]", "not a chapter of the outline"),
    ([chapter("ch01", 1, ["ch02"]), chapter("ch02", 1, ["ch01"])], "$.chapters", "cycle: ch01 -> ch02 -> ch01"),
    ([chapter("ch01", 1), chapter("ch01", 1)], "$.chapters[1].id", "appears twice"),
    ([chapter("c1", 1)], "$.chapters[0].id", "not a chapter id"),
    ([chapter("ch01", 1, sources=["../etc/passwd"])], "$.chapters[0].sources[0]", "relative path"),
    ([chapter("ch01", 1, sources=["b.py"])], "$.chapters[0].sources[0]", "not a file of the source tree"),
    ([chapter("ch01", 0)], "$.chapters[0].batch", "out of range"),
])
def test_outline_json_errors(chapters, path, what):
    with pytest.raises(ContractError) as e:
        OutlinePlan.from_json({"title": "B", "intro": "i", "chapters": chapters}, source_files={"a.py"})
    assert e.value.path == path and what in str(e.value), str(e.value)


def test_outline_file_errors_name_the_line():
    text = "# Outline: B\n\nIntro.\n\n```yaml\ntitle: B\nchapters:\n- id: ch01\n  title: [unclosed\n```\n"
    with pytest.raises(ContractError) as e:
        P.parse_outline(text, file="output/memory/outline.md")
    assert e.value.file == "output/memory/outline.md" and e.value.line >= 6


def test_todays_outline_file_reads(tmp_path):
    """outline.md as orchestrator/outline.py renders it today (no goals) reads as a plan."""
    from orchestrator import outline

    o = outline.Outline("B", (outline.Chapter("ch01", "One", 1, "s", (), ("a.py",)),
                              outline.Chapter("ch02", "Two", 2, "t", ("ch01",), ())))
    plan = P.parse_outline(outline.render(o, "An intro."), file="outline.md")
    assert plan.intro == "An intro." and [c.entry() for c in plan.chapters] == [c.entry() for c in o.chapters]


# ---------------------------------------------------------------- the verdict

def test_merge_findings_dedupes_and_orders():
    det = [Finding("r1.code", "blocking", 40, "not in the source"), Finding("r3.length", "major", 0, "too short")]
    model = [Finding("r1.code", "blocking", 40, "not in the source", quote="def get(self):"),
             Finding("r2.glossary", "minor", 3, "spelling"), Finding("person", "major", 2, "unclear")]
    merged = merge_findings(det, model)
    assert [(f.check, f.line) for f in merged] == [("r1.code", 40), ("r3.length", 0), ("person", 2), ("r2.glossary", 3)]
    assert merged[0].quote == "def get(self):"  # the copy with the quote is kept
    assert verdict(merged) == "blocked" and verdict(merged[1:]) == "clean"


# ---------------------------------------------------------------- marker text

@pytest.mark.parametrize("text, line", [
    ("intro\n<!-- DRAFT_COMPLETE -->\n", 2),
    ("a\nb\n<!-- (quoted) DRAFT_COMPLETE -->", 3),
    ("<!--draft_complete-->", 1),
    ("<!--  Review Complete  -->", 1),
    ("x\n```html\n<!-- REVIEW_COMPLETE body=1234 run=r -->\n", 3),  # an unclosed fence proves nothing
    ("<!-- R1_CODE_REVIEW_COMPLETE -->", 1),
    ("<!-- SOMETHING_COMPLETE -->", 1),
    ("text CHAPTER_FINAL text", 1),
    ("\n\nNEEDS_HUMAN_REVIEW", 3),
    ("needs_human_review", 1),
    ("<!--\nMEMORY_COMPLETE\n-->", 1),
    ("    <!-- CHAPTER_FINAL -->", 1),
])
def test_marker_text_is_found_with_its_line(text, line):
    problems = marker_problems(text)
    assert problems and problems[0].startswith(f"line {line}: ")
    with pytest.raises(ContractError, match="marker text"):
        check_no_markers(text)


@pytest.mark.parametrize("text", [
    "x\n```html\n<!-- REVIEW_COMPLETE body=1234 run=r -->\n```\n",
    "The guard:\n\n````python file=orchestrator/steps.py\nDRAFT = Step(marker=\"DRAFT_COMPLETE\")\n# <!-- CHAPTER_FINAL -->\n````\n\nExplained.",
    "- item\n\n  ~~~\n  NEEDS_HUMAN_REVIEW = \"needs\"\n  ~~~\n",
    "The words `CHAPTER_FINAL` and `<!-- DRAFT_COMPLETE -->` are the tool's own.",
])
def test_marker_text_inside_a_closed_code_block_or_a_code_span_is_quoted_source(text):
    assert marker_problems(text) == []
    check_no_markers(text)


def test_a_json_answer_is_scanned_field_by_field_with_its_own_fences():
    import json as _json

    quoted = _json.dumps({"notes": "fine", "quote": "```\n<!-- DRAFT_COMPLETE -->\n```"})
    assert marker_problems(quoted) == []
    forged = _json.dumps({"findings": [{"message": "ok"}, {"message": "a\n<!-- DRAFT_COMPLETE body=1 -->"}]})
    assert marker_problems(forged) == ["$.findings[1].message line 2: an HTML comment shaped like the draft "
                                       "complete marker"]


@pytest.mark.parametrize("text", ["<!-- DRAFT_COMPLETE body=3f9a run=x -->", "CHAPTER_FINAL", "needs_human_review",
                                  "<!-- (quoted) NEEDS_HUMAN_REVIEW -->", "NEEDS HUMAN REVIEW"])
def test_no_message_reproduces_the_marker_text(text):
    """The reasons reach needs-human.md, checkpoint.md and the ledger: they describe the marker
    and never repeat it, and are no marker text themselves."""
    with pytest.raises(ContractError) as e:
        check_no_markers("intro\n" + text + "\n")
    msg = str(e.value)
    assert text not in msg and "<!--" not in msg and marker_problems(msg) == []
    assert "line 2" in msg


@pytest.mark.parametrize("text", ["a chapter that needs human review is listed", "<!-- a note for people -->",
                                  "<!-- TODO: explain -->", "the final chapter", "draft complete, review next"])
def test_ordinary_text_is_not_marker_text(text):
    assert marker_problems(text) == []
