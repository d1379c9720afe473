"""Rendering round-trips: for every contract, parse(render(x)) == x, with arbitrary text in
every free field — backticks, colons, dashes of every kind, CJK, bullets, headings, fences,
text that looks like a location (`lines 3-5`), a check id, a verdict or a marker."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from orchestrator.contracts import (
    Action,
    Confusion,
    CrossRef,
    Finding,
    MemoryUpdate,
    MergedReview,
    Metaphor,
    OutlinePlan,
    PanelFeedback,
    PlannedChapter,
    ReaderFeedback,
    Review,
    Term,
    parse as P,
    render as R,
)

SNIPPETS = ["`", "``", "```", ":", "：", " — ", "–", "-", "—", "**", "*", "_", "__", "line 12", "lines 3-5", "L7",
            "ch03", "(line 4)", "[line 2]", "第 3 行", "<!-- DRAFT_COMPLETE -->", "<!--", "-->", "# ", "## ", "- ",
            "1. ", "2) ", "> ", "\n", "  ", "\t", "中文的说明", "なまえ", "none", "(none)", "Verdict: blocked",
            "**blocking**", "Blocking —", "r1.code", "`r2.glossary`", "whole chapter", "Suggestion:", "\\", "|",
            "[t](ch02.md)", "~~~", "#", "(", ")", "[", "]"]
ALPHA = st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"), max_codepoint=0x2FFFF) | st.sampled_from("\n\t ")
TEXT = st.lists(st.one_of(st.sampled_from(SNIPPETS), st.text(alphabet=ALPHA, max_size=6)), max_size=10).map("".join)
CHECKS = st.sampled_from(["r1.code", "r1.symbol", "r2.glossary", "r2.xref", "r3.structure", "audit.link", "person",
                          "review.merge", "panel.reader", "r3.a-b_c"])
CHAPTERS = st.integers(1, 150).map(lambda n: f"ch{n:02d}")
# CONTRACTS_EXAMPLES=2000 for a longer search (the default keeps the suite quick).
SETTINGS = settings(max_examples=int(os.environ.get("CONTRACTS_EXAMPLES", "150")), deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                            HealthCheck.too_slow])
MARKER = "\n\n<!-- R1_CODE_REVIEW_COMPLETE body=0123456789ab run=20261130T1200Z-abcd -->\n"


def build(fn, *args, **kw):
    """The object, or skip the example when the constructor rejects it (empty message, ...)."""
    try:
        return fn(*args, **kw)
    except ValueError:
        assume(False)


@st.composite
def ranges(draw) -> tuple[int, int | None]:
    line = draw(st.integers(0, 400))
    end = draw(st.none() | st.integers(line, line + 50)) if line else None
    return line, end


@st.composite
def findings(draw) -> Finding:
    line, end = draw(ranges())
    return build(Finding, draw(CHECKS), draw(st.sampled_from(["blocking", "major", "minor"])), line, draw(TEXT),
                 draw(st.none() | CHAPTERS), end, draw(TEXT))


@st.composite
def actions(draw) -> Action:
    line, end = draw(ranges())
    return build(Action, draw(TEXT), line, end, tuple(draw(st.lists(CHECKS, max_size=3))))


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
@given(st.lists(findings(), max_size=5), TEXT)
@SETTINGS
def test_review_round_trips(fs, notes):
    review = build(Review, tuple(fs), notes)
    text = R.render_review(review, heading="R1 code review: ch03 — A title: with — dashes")
    parsed = P.parse_review(text + MARKER, file="ch03-r1.md")
    assert parsed.review == review
    assert parsed.person_verdict == ("blocked" if any(f.severity == "blocking" for f in fs) else "clean")
    assert P.parse_findings(R.render_findings(fs)) == fs


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
@given(st.lists(findings(), max_size=4), st.lists(actions(), max_size=4), TEXT)
@SETTINGS
def test_merged_review_round_trips(fs, acts, notes):
    merged = build(MergedReview, tuple(fs), tuple(acts), notes)
    text = R.render_merged(merged, heading="Merged review: ch03 — Title")
    assert P.parse_merged(text + MARKER, file="ch03-review.md").merged == merged


@st.composite
def memories(draw) -> MemoryUpdate:
    terms = draw(st.lists(st.builds(lambda t, d: build(Term, t, d), TEXT, TEXT), max_size=4))
    mets = draw(st.lists(st.builds(lambda t, d: build(Metaphor, t, d), TEXT, TEXT), max_size=3))
    xrefs = draw(st.lists(st.builds(lambda c, w: build(CrossRef, c, w), CHAPTERS, TEXT), max_size=3))
    return build(MemoryUpdate, draw(TEXT), tuple(terms), tuple(mets), tuple(xrefs))


@given(memories())
@SETTINGS
@pytest.mark.slow
def test_memory_round_trips(mem):
    text = R.render_memory(mem, chapter="ch07", title="Sorted — string: tables")
    parsed = P.parse_memory(text + MARKER, file="ch07.md")
    assert parsed.update == mem
    assert (parsed.chapter, parsed.title) == ("ch07", "Sorted — string: tables")


@st.composite
def panels(draw) -> PanelFeedback:
    readers = []
    names = draw(st.lists(TEXT, min_size=1, max_size=3, unique_by=lambda s: " ".join(s.split())))
    for name in names:
        confs = []
        for _ in range(draw(st.integers(0, 3))):
            line, end = draw(ranges())
            confs.append(build(Confusion, draw(TEXT), line, end, draw(TEXT), draw(TEXT)))
        readers.append(build(ReaderFeedback, name, draw(st.sampled_from(["ready", "revise"])), draw(st.integers(1, 5)),
                             tuple(draw(st.lists(TEXT, max_size=3))), tuple(confs)))
    return PanelFeedback(tuple(readers))


@given(panels())
@SETTINGS
@pytest.mark.slow
def test_panel_round_trips(panel):
    text = R.render_panel(panel, heading="Reader panel: ch02 — T",
                          descriptions={r.persona: "knows Python: reads *everything*" for r in panel.readers})
    assert P.parse_panel(text + MARKER, file="ch02-panel.md") == panel


PATHS = st.lists(st.sampled_from(["minikv/store.py", "a/b c.py", "src/中文.py", "x-y/z_1.rs"]), max_size=3, unique=True)


@st.composite
def outlines(draw) -> OutlinePlan:
    n = draw(st.integers(1, 5))
    chapters = []
    for i in range(n):
        cid = f"ch{i + 1:02d}"
        batch = 1 + i // 2
        deps = tuple(c.id for c in chapters if c.batch <= batch and draw(st.booleans()))
        chapters.append(build(PlannedChapter, cid, draw(TEXT), batch, draw(TEXT), tuple(draw(st.lists(TEXT, max_size=3))),
                              deps, tuple(draw(PATHS))))
    return build(OutlinePlan, draw(TEXT), draw(TEXT), tuple(chapters))


@given(outlines())
@SETTINGS
@pytest.mark.slow
def test_outline_round_trips(plan):
    # What the planner can legitimately say: from_json of its own JSON accepts it.
    try:
        plan = OutlinePlan.from_json(plan.to_json())
    except Exception:
        assume(False)
    assert P.parse_outline(R.render_outline(plan) + MARKER, file="outline.md") == plan


def test_rendered_finding_is_todays_format_when_it_has_nothing_new():
    from orchestrator import checks

    old = [checks.Finding("r1.code", "blocking", 12, "the block is not in the source"),
           checks.Finding("audit.link", "minor", 0, "broken link", "ch03")]
    new = [Finding(f.check, f.severity, f.line, f.message, f.chapter) for f in old]
    assert R.render_findings(new) == checks.format_findings(old)
    assert P.parse_findings(checks.format_findings(old)) == new
