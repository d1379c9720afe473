"""The offline provider: deterministic, no network, and real. It writes every role's answer
from the source code itself and the context the orchestrator gathered (agents.gather): the
planner, researcher and writer are in authoring/ (built on the repository map); here the
reviewers report the deterministic checks, the panel reads as each persona, the memory
keeper reads the draft's definitions, the editor applies the mechanical fixes. Every
structured answer is a contract object rendered by `contracts.render`, the same functions
that render a model's JSON, so both paths write one format. The same context always gives
byte-identical text."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

from .. import checks
from ..contracts import render as R
from ..contracts.findings import Action, Finding, MergedReview, Review
from ..contracts.memory import CrossRef, MemoryUpdate, Metaphor, Term
from ..contracts.panel import Confusion, PanelFeedback, ReaderFeedback
from ..contracts.parse import parse_merged
from ..errors import StepFailed
from ..signals import in_daemon_thread
from ..steps import AUDIT, DRAFT, FINAL, MEMORY, OUTLINE, PANEL, R1, R2, R3, RESEARCH, REVIEW
from .base import Capabilities, ProviderBase, Request, Result, Sink, Usage

CHUNK = 400  # characters per streamed piece


class OfflineProvider(ProviderBase):
    """It neither retries nor reports attempts itself and has no limit of its own: ProviderBase's
    defaults (the runner retries a failed call and logs each one)."""

    name = "offline"
    capabilities = Capabilities(follows_instructions=False)

    def __init__(self, latency: float = 0.0, fail: Callable[[Request], str | None] | None = None):
        self.latency = latency  # seconds per call, for benchmarks of the orchestrator
        self.fail = fail  # test hook: return an error message to fail a request
        self.calls = 0

    async def generate(self, req: Request, sink: Sink) -> Result:
        self.calls += 1
        if self.latency:
            await asyncio.sleep(self.latency)
        if self.fail is not None:
            why = self.fail(req)
            if why:
                raise StepFailed(why)
        # CPU work: off the event loop, other calls go on; a signal abandons it (the planner of a huge tree)
        text = await in_daemon_thread(author, req)
        start = 0
        if req.prefix:
            # Continue a partial answer: the same inputs give the same text, so an interrupted
            # answer is a prefix of the full one, and only the rest is produced.
            if text.startswith(req.prefix):
                start = len(req.prefix)
            else:
                sink.reset(False)  # the partial is not ours to continue: start afresh
        for i in range(start, len(text), CHUNK):
            sink.text(text[i:i + CHUNK])
            await asyncio.sleep(0)
        words_in = (len(req.system) + len(req.prompt)) // 4
        return Result(text=text, stop_reason="end_turn", usage=Usage(words_in, (len(text) - start) // 4),
                      model="offline")



def author(req: Request) -> str:
    ctx = req.context
    fn = AUTHORS.get(req.step)
    if fn is None:
        raise StepFailed(f"the offline provider has no author for step {req.step!r}", retryable=False)
    text = fn(ctx, T["zh" if ctx.get("language") == "zh" else "en"]).rstrip() + "\n"
    if req.step in (RESEARCH, DRAFT, FINAL) and ctx.get("instructions"):  # a person's words at a gate
        from ..authoring.person_asks import follow
        from ..authoring.project import from_context

        text = follow(text, ctx, from_context(ctx) if ctx.get("source_root") else None).rstrip() + "\n"
    if ctx.get("rewrite_sections"):  # a section rewrite: the chapter as it would be now, cut to those sections
        from ..evidence.sections import only

        text = only(text, list(ctx["rewrite_sections"])).rstrip() + "\n"
        if req.step == DRAFT:  # a heading its chapter would not have now: written about what it names
            from ..authoring.rewrite_section import with_missing

            text = with_missing(ctx, text, list(ctx["rewrite_sections"]))
    return text


# ---------------------------------------------------------------- phrases

T = {
    "en": {
        "outline_intro": "This book explains `{src}` to {audience}. {brief} Chapters follow the import graph: "
                         "what a module builds on comes first.",
        RESEARCH: "Research", "sources": "Sources", "overview": "Overview",
        "uses": "How the pieces fit together", "calls_other": "`{a}` calls `{b}`.", "symbols": "Symbols", "excerpts": "Excerpts",
        "relations": "Relations", "questions": "Open questions", "imports": "imports `{m}`, covered in {ch}",
        "no_doc": "(no docstring)", "lines": "lines",
        "q_nodoc": "`{s}` has no docstring: the draft must explain it from the code.",
        "fits": "Where this fits", "summary": "Summary", "in_chapter": "In this chapter",
        "reads": "This chapter reads {files}.",
        "builds_on": "It builds on [{title}]({ch}.md).",
        "takes": "`{name}` takes {params}", "no_params": "`{name}` takes no arguments",
        "returns": " and returns `{ret}`", "calls": " It calls {calls}.", "raises": " It raises {exc}.",
        "defined_in": "It is defined in `{path}` at line {line}.",
        "sum_item": "`{name}`: {doc}",
        "verdict": "Verdict", "findings": "Findings", "notes": "Notes",
        R1: "R1 code review", R2: "R2 consistency review", R3: "R3 content review", REVIEW: "Merged review",
        "r1_note": "Checked {n} code blocks against the source; {ok} verified. Cited paths and symbols were looked up in the source tree.",
        "r2_note": "Checked glossary terms ({g} known), links to other chapters and metaphors ({m} registered).",
        "r3_note": "Checked the title, sections, length ({w} words) and code fences.",
        "actions": "Actions for the editor", "no_actions": "Nothing to change: the reviews found no problems.",
        "act": "fix: {msg}",
        PANEL: "Reader panel", "persona_ok": "Nothing got in the way of this reader.",
        "before_def": "uses **{t}** at line {a} before defining it at line {b}",
        "long_sentence": "line {n} has a sentence of {w} words; split it",
        "unexplained": "the code block at line {n} is not followed by an explanation",
        "no_xref": "the chapter does not say how it connects to other chapters",
        "verified": "{n} code blocks are quoted from the source with their paths",
        MEMORY: "Memory", AUDIT: "Book audit",
        "audit_note": "Audited {n} final chapters: links, cross references, glossary use and leftovers.",
        "final_intro": "What you will find in this chapter:",
        "style": "Style guide",
    },
    "zh": {
        "outline_intro": "本书为{audience}讲解 `{src}`。{brief} 章节顺序遵循导入关系：被依赖的模块先讲。",
        RESEARCH: "研究报告", "sources": "源文件", "overview": "概述",
        "uses": "各部分如何配合", "calls_other": "`{a}` 调用了 `{b}`。", "symbols": "符号", "excerpts": "代码摘录",
        "relations": "关联", "questions": "待解决问题", "imports": "导入 `{m}`，见 {ch}",
        "no_doc": "（无文档字符串）", "lines": "行",
        "q_nodoc": "`{s}` 没有文档字符串：初稿需根据代码解释。",
        "fits": "本章的位置", "summary": "小结", "in_chapter": "本章内容",
        "reads": "本章阅读 {files}。",
        "builds_on": "它建立在[{title}]({ch}.md)之上。",
        "takes": "`{name}` 接受参数 {params}", "no_params": "`{name}` 不接受参数",
        "returns": "，返回 `{ret}`", "calls": " 它调用了 {calls}。", "raises": " 它可能抛出 {exc}。",
        "defined_in": "它定义在 `{path}` 第 {line} 行。",
        "sum_item": "`{name}`：{doc}",
        "verdict": "Verdict", "findings": "Findings", "notes": "Notes",
        R1: "R1 代码审查", R2: "R2 一致性审查", R3: "R3 内容审查", REVIEW: "合并审查",
        "r1_note": "对照源码检查了 {n} 个代码块，{ok} 个通过。引用的路径和符号均在源码树中查找。",
        "r2_note": "检查了术语（已知 {g} 个）、章节间链接和隐喻（已登记 {m} 个）。",
        "r3_note": "检查了标题、小节、长度（{w} 字）和代码围栏。",
        "actions": "给编辑的修改项", "no_actions": "无需修改：审查没有发现问题。",
        "act": "修改：{msg}",
        PANEL: "读者评审", "persona_ok": "这位读者没有遇到障碍。",
        "before_def": "第 {a} 行使用了 **{t}**，但第 {b} 行才定义",
        "long_sentence": "第 {n} 行的句子有 {w} 个词，建议拆分",
        "unexplained": "第 {n} 行的代码块后没有解释",
        "no_xref": "本章没有说明与其他章节的联系",
        "verified": "{n} 个代码块引用自源码并标明路径",
        MEMORY: "长记忆", AUDIT: "全书审计",
        "audit_note": "审计了 {n} 个定稿章节：链接、交叉引用、术语使用和遗留内容。",
        "final_intro": "本章内容：",
        "style": "风格指南",
    },
}

# Metaphors the writer may use; each chapter takes one no earlier chapter has taken.
# ---------------------------------------------------------------- reviewers


def _findings_objs(ctx: dict[str, Any]) -> list[Finding]:
    return [Finding(f["check"], f["severity"], int(f.get("line") or 0), f["message"], f.get("chapter"))
            for f in ctx.get("findings", [])]


def _review_doc(ctx: dict[str, Any], t: dict[str, str], kind: str, note: str) -> str:
    ch = ctx["chapter"]
    return R.render_review(Review(tuple(_findings_objs(ctx)), note), heading=f"{t[kind]}: {ch['id']} — {ch['title']}")


def review_r1(ctx, t):
    blocks = checks.code_blocks(ctx[DRAFT])
    n = sum(1 for b in blocks if b.file)
    return _review_doc(ctx, t, R1, t["r1_note"].format(n=n, ok=len(ctx.get("verified_blocks", []))))


def review_r2(ctx, t):
    return _review_doc(ctx, t, R2, t["r2_note"].format(g=len(ctx[MEMORY]["glossary"]), m=len(ctx[MEMORY]["metaphors"])))


def review_r3(ctx, t):
    words = len(ctx[DRAFT].split())
    return _review_doc(ctx, t, R3, t["r3_note"].format(w=words))


def merge(ctx, t):
    """All the reviewers' findings, each turned into an action on its line; the verdict is
    computed from the findings by render_merged."""
    ch = ctx["chapter"]
    fs = _findings_objs(ctx)
    actions = [Action(t["act"].format(msg=f.message), f.line, f.end_line, (f.check,)) for f in fs]
    merged = MergedReview(tuple(fs), tuple(actions), "" if actions else t["no_actions"])
    return R.render_merged(merged, heading=f"{t[REVIEW]}: {ch['id']} — {ch['title']}", actions_title=t["actions"])


# ---------------------------------------------------------------- reader panel


def panel(ctx, t):
    """Each persona reads for what it cares about; a reader who stumbles asks for a revision,
    and the score falls with each stumble."""
    ch = ctx["chapter"]
    draft = ctx[DRAFT]
    lines = draft.splitlines()
    prose = _prose_lines(lines)
    notes: dict[str, list[tuple[int, str]]] = {"terms": [], "sentences": [], "code": [], "xref": []}
    defined: dict[str, int] = {}
    for i, line in enumerate(lines, 1):
        m = re.match(r"\*\*(.+?)\*\*[:：]", line)
        if m:
            defined.setdefault(m.group(1), i)
    for term, at in defined.items():
        for i in prose:
            if i < at and re.search(rf"\b{re.escape(term)}\b", lines[i - 1]):
                notes["terms"].append((i, t["before_def"].format(t=term, a=i, b=at)))
                break
    for i in prose:
        for sent in re.split(r"(?<=[.!?。！？])\s+", lines[i - 1]):
            w = len(sent.split())
            if w > 35:
                notes["sentences"].append((i, t["long_sentence"].format(n=i, w=w)))
    for b in checks.code_blocks(draft):
        end = b.line + len(b.code.splitlines()) + 1
        nxt = next((lines[j].strip() for j in range(end, min(len(lines), end + 3)) if lines[j].strip()), "")
        if not nxt or nxt.startswith(("#", "```")):
            notes["code"].append((b.line, t["unexplained"].format(n=b.line)))
    if not re.search(r"\]\(ch\d{2,}\.md", draft) and ch["depends_on"]:
        notes["xref"].append((0, t["no_xref"]))
    verified = sum(1 for b in checks.code_blocks(draft) if b.file)
    wants = [("terms", "code"), ("sentences",), ("xref", "terms")]
    readers = []
    for k, persona in enumerate(ctx["personas"]):
        name = persona.partition(":")[0].strip()
        items = [x for key in wants[k % len(wants)] for x in notes[key]][:8]
        confusions = tuple(Confusion(msg, line) for line, msg in items)
        questions = (t["verified"].format(n=verified),) if verified and k % len(wants) == 1 else ()
        readers.append(ReaderFeedback(name, "revise" if confusions else "ready", max(1, 5 - len(confusions)),
                                      questions, confusions))
    desc = {p.partition(":")[0].strip(): (p.partition(":")[2].strip() or p.partition(":")[0].strip())
            for p in ctx["personas"]}
    return R.render_panel(PanelFeedback(tuple(readers)), heading=f"{t[PANEL]}: {ch['id']} — {ch['title']}",
                          descriptions=desc)


def _prose_lines(lines: list[str]) -> list[int]:
    out, fence = [], False
    for i, line in enumerate(lines, 1):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
            continue
        if not fence and line.strip() and not line.startswith("#"):
            out.append(i)
    return out


# ---------------------------------------------------------------- memory keeper, editor, auditor


def remember(ctx, t):
    ch = ctx["chapter"]
    draft = ctx[DRAFT]
    paras = [p.strip() for p in draft.split("\n\n") if p.strip() and not p.lstrip().startswith(("#", "```", "-", "**"))]
    terms: dict[str, Term] = {}
    metaphors: list[Metaphor] = []
    for line in draft.splitlines():
        m = re.match(r"\*\*(.+?)\*\*[:：]\s*(.+)$", line)
        if m and m.group(1) not in terms:
            terms[m.group(1)] = Term(m.group(1), m.group(2).strip())
        for m2 in re.finditer(r"(?:Think of it as|可以把它想象成|The project's own docs picture it as|项目自己的文档把它比作)\s*\*\*(.+?)\*\*[:：]\s*(.+?)[.。]$", line):
            metaphors.append(Metaphor(m2.group(1), m2.group(2)))
    titles = {c["id"]: c["title"] for c in ctx["chapters"]}
    xrefs = [CrossRef(target, titles.get(target, target)) for target in sorted(set(re.findall(r"\]\((ch\d{2,})\.md", draft)))
             if target != ch["id"]]
    mem = MemoryUpdate(paras[0] if paras else ch["summary"], tuple(terms.values()), tuple(metaphors), tuple(xrefs))
    return R.render_memory(mem, chapter=ch["id"], title=ch["title"])


_SPELLING_RE = re.compile(r"writes '(.+?)' for the glossary term '(.+?)'")


def _apply_spelling(lines: list[str], review: str) -> list[str]:
    """R2's glossary findings: write the term as the glossary spells it, on the line cited,
    outside inline code (code keeps the source's own names)."""
    for f in (parse_merged(review, file="the merged review").merged.findings if review.strip() else ()):
        m = _SPELLING_RE.search(f.message)
        if f.check != "r2.glossary" or not m or not (0 < f.line <= len(lines)):
            continue
        wrong, right = m.groups()
        parts = lines[f.line - 1].split("`")
        # a link's target (a citation's path) is the source's spelling, not the glossary's
        parts[::2] = ["".join(q if q.startswith("](") else re.sub(rf"(?<![\w-]){re.escape(wrong)}(?![\w-])", right, q)
                              for q in re.split(r"(\]\([^)\s]*\))", p)) for p in parts[::2]]
        lines[f.line - 1] = "`".join(parts)
    return lines


def edit(ctx, t):
    """The final chapter: the draft, with the review's and panel's mechanical fixes applied."""
    draft = ctx[DRAFT].rstrip()
    lines = _apply_spelling(draft.splitlines(), ctx.get(REVIEW, ""))
    sections = [line[3:] for line in lines if line.startswith("## ")]
    # After the opening paragraph, tell the reader what is ahead (the panel's newcomer asks for it).
    head_end = next((i for i, line in enumerate(lines) if line.startswith("## ")), len(lines))
    intro = t["final_intro"]
    if t.get("in_chapter") == "In this chapter":  # English: chapters do not all announce their contents alike
        from ..authoring.variety import VARY_EN

        ways = ["What you will find in this chapter:", "In this chapter:", "What follows:", "The sections ahead:",
                "This chapter covers:", "Ahead, in order:"]
        num = int(re.sub(r"\D", "", str(ctx.get("chapter", {}).get("id", ""))) or 0)
        intro = VARY_EN.get("final_intro", ways)[num % len(ways)]
    toc = ["", intro, ""] + [f"- {s}" for s in sections] + [""]
    out = lines[:head_end] + toc + lines[head_end:]
    text = "\n".join(out)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text


def audit(ctx, t):
    review = Review(tuple(_findings_objs(ctx)), t["audit_note"].format(n=len(ctx.get("finals", {}))))
    return R.render_review(review, heading=f"{t[AUDIT]}: {ctx['book']['title']}")


from ..authoring import authors as authoring  # noqa: E402  (the planner, researcher and writer, built on the repository map)

AUTHORS: dict[str, Callable[[dict[str, Any], dict[str, str]], str]] = {
    OUTLINE: authoring.write_outline, RESEARCH: authoring.write_research, DRAFT: authoring.write_draft,
    R1: review_r1, R2: review_r2, R3: review_r3, REVIEW: merge, PANEL: panel, MEMORY: remember, FINAL: edit, AUDIT: audit,
}
