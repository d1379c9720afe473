"""How a model's answer is judged before it is committed: marker-like text is a validation
failure (re-asked with the reason, never rewritten or committed); a contract step's answer
(JSON, or the offline provider's Markdown) is read strictly and rendered (agents.structured);
then the validator of the step's kind of answer (the registry's `Step.answer`). A final
chapter is code-checked like a draft: quoting code that is not in the source is re-asked."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import checks, outline as outline_mod
from ..contracts import check_no_markers
from ..errors import ConfigError, ValidationFailed
from ..evidence.quality import Quality, with_quality
from ..state import memory as memoryfiles
from ..steps import ALL_STEPS, AUDIT, FINAL, RESEARCH
from .source_context import NUMBERED_RE, with_sources_cut
from .structured import structured, structured_answer
from .surround import around


def _h1_count(md: str) -> int:
    n, fence = 0, None
    for line in md.splitlines():
        s = line.lstrip()
        if s.startswith(("```", "~~~")):
            mark = s[:3]
            fence = None if fence == mark else (fence or mark)
            continue
        if fence is None and line.startswith("# "):
            n += 1
    return n


def _chapter_text(text: str, ctx: dict[str, Any]) -> list[str]:
    errs = []
    h1 = _h1_count(text)
    if h1 != 1:
        errs.append(f"the chapter must have exactly one `# ` title line, found {h1}")
    chs, me = ctx.get("chapters") or [], (ctx.get("chapter") or {}).get("id")
    # chapter 1 must be the big picture (issue 23), with the usage example the front door gives it;
    # a project whose README, docs and examples hold none cannot be asked to quote one
    first = bool(chs and me and chs[0].get("id") == me) and "usage example" in (ctx.get("project_front") or "")
    fs = checks.check_structure(text, language=ctx.get("language", "en"), min_words=50, max_words=50_000, first=first)
    errs += [f"line {f.line}: {f.message}" for f in fs if f.check in ("r3.fence", "r3.overview")]
    return errs


def _review(text: str, ctx: dict[str, Any]) -> list[str]:
    if "## Findings" not in text:
        return ["a review needs a `## Findings` section listing findings as "
                "`- **severity** `check` line N: message` (or `- none`)"]
    return []


def _merged(text: str, ctx: dict[str, Any]) -> list[str]:
    errs = _review(text, ctx)
    if not any(line.lower().startswith("verdict:") for line in text.splitlines()):
        errs.append("the merged review needs a `Verdict: clean` or `Verdict: blocked` line")
    return errs


def _memory(text: str, ctx: dict[str, Any]) -> list[str]:
    miss = memoryfiles.missing_sections(text)
    return [f"the memory file lacks the section(s): {', '.join('## ' + m for m in miss)}"] if miss else []


def _headed(text: str, ctx: dict[str, Any]) -> list[str]:
    return [] if text.lstrip().startswith("# ") else ["the answer must start with a `# ` title line"]


def _numbered_excerpts(text: str) -> list[str]:
    """A research excerpt that kept the prompt's line numbers (`12→`) is not code of the file:
    asked again, never stripped behind the model's back (R1 would block the chapter that quotes it)."""
    out = []
    for b in checks.code_blocks(text):
        rows = [ln for ln in b.code.split("\n") if ln.strip()]
        if b.file and rows and sum(1 for ln in rows if NUMBERED_RE.match(ln)) * 2 > len(rows):
            out.append(f"line {b.line}: the excerpt from {b.file} carries the prompt's line numbers (`12→`): "
                       "copy only the code after the arrows, and give the numbers as `lines=a-b`")
    return out


def _outline(text: str, ctx: dict[str, Any]) -> list[str]:
    try:
        outline_mod.parse(text, "the planner's answer", ctx.get("_source_dir"))
    except ConfigError as e:
        return [str(e)]
    return []


# Step.answer -> the validator of that kind of answer.
VALIDATORS: dict[str, Callable[[str, dict[str, Any]], list[str]]] = {
    "plan": _outline, "headed": _headed, "chapter": _chapter_text, "findings": _review, "verdict": _merged,
    "sections": _memory,
}


def _final_code(text: str, ctx: dict[str, Any]) -> list[str]:
    """R1's deterministic code check on the editor's final: code not in the source blocks it."""
    src = ctx.get("_source_dir")
    if src is None:
        return []
    found, _ = checks.check_code(text, src, index=ctx.get("_r1_index"))  # the run's index (agents.gather)
    return [f"line {f.line}: {f.message} (quote code only exactly as it is in the source)"
            for f in found if f.severity == "blocking"]


def _sections_answer(text: str, ctx: dict[str, Any]) -> list[str]:
    """A section rewrite's answer: exactly the sections asked for, in the chapter's order, their
    fences closed; nothing before the first `## ` unless the opening is asked for, and then the
    opening begins with the chapter's title line as it is."""
    from ..evidence.sections import OPENING, label, split, title_line

    want = list(ctx["rewrite_sections"])
    secs = split(text)
    if secs and secs[0].head == OPENING and not secs[0].text.strip():
        secs = secs[1:]
    errs = []
    opening = bool(secs) and secs[0].head == OPENING
    if opening and OPENING not in want:
        errs.append("the answer must start with the line `## " + want[0] + "`: it holds only the sections asked for, "
                    "no title line and nothing before them")
    title = title_line(ctx["current_text"])
    if opening and OPENING in want and title and title_line(secs[0].text) != title:
        errs.append(f"the answer must start with the chapter's title line as it is, `{title}`, then its opening")
    got = [s.head for s in secs if s.head != OPENING or (opening and OPENING in want)]
    if got != want:
        def named(hs: list[str]) -> str:
            return ", ".join(f"`## {h}`" if h != OPENING else label(h) for h in hs)

        errs.append("the answer must hold exactly the sections " + named(want) + " in that order, headed as they are; "
                    "it holds " + (named(got) or "none"))
    fs = checks.check_structure(text, language=ctx.get("language", "en"), min_words=0, max_words=50_000)
    errs += [f"line {f.line}: {f.message}" for f in fs if f.check == "r3.fence"]
    return errs


def _titled_opening(text: str, ctx: dict[str, Any]) -> str:
    """A rewrite of the opening that left out the title line gets it back: the title is not the
    rewrite's to change (a `# ` line of its own is still held to the chapter's by the check above)."""
    from ..evidence.sections import OPENING, title_line

    title = title_line(ctx["current_text"])
    if OPENING not in ctx["rewrite_sections"] or not title or text.lstrip().startswith(("# ", "## ")):
        return text
    return title + "\n\n" + text


# The kinds of prose answer that begin with a `# ` title line: text before it is a preamble.
TITLED = ("headed", "chapter")


def clean_and_validate(step: str, text: str, ctx: dict[str, Any], trimmed: list[str] | None = None) -> str:
    """Reject marker text, read a contract answer strictly and render it, strip what the model
    said around a prose answer (a preamble, closing remarks: surround.py; noted in `trimmed`
    for the ledger), then validate; raise ValidationFailed with what to fix (the runner
    re-asks with it)."""
    text = text.strip()
    if not text:
        raise ValidationFailed("the answer was empty")
    check_no_markers(text)
    some = bool(ctx.get("rewrite_sections")) and ALL_STEPS[step].answer == "chapter"  # a section rewrite
    if structured(step):
        text = structured_answer(step, text, ctx).strip()
    else:
        opening = some and "" in ctx["rewrite_sections"]  # the opening asked for: the answer begins with the title
        text, notes = around(text, ALL_STEPS[step].answer in TITLED and (not some or opening))
        text = text.strip()
        if trimmed is not None:
            trimmed += notes
        if opening:
            text = _titled_opening(text, ctx)
    errs = _sections_answer(text, ctx) if some else []
    if step == FINAL:
        errs += _final_code(text, ctx)
    if some and not errs and ctx.get("_assembling"):  # a chapter written a section at a time: one of them
        return text + "\n"
    if some and not errs:  # the sections in their places: the whole chapter is what is validated and kept
        from ..evidence.sections import splice

        text = splice(ctx["current_text"], text).strip()
    if not errs:
        errs = VALIDATORS[ALL_STEPS[step].answer](text, ctx)
    if step == RESEARCH:
        errs += _numbered_excerpts(text)
    if errs:
        raise ValidationFailed("; ".join(errs))
    if step == AUDIT and ctx.get("quality"):  # the book's figures, the tool's own section (evidence.quality)
        text = with_quality(text, Quality.from_dict(ctx["quality"]), ctx.get("language", "en")).rstrip("\n")
    if step == RESEARCH and ctx.get("sources_cut"):  # what the prompt could not carry, said in the report
        text = with_sources_cut(text, ctx["sources_cut"], ctx.get("language", "en"),
                                ctx.get("sources_left_out")).rstrip("\n")
    return text + "\n"
