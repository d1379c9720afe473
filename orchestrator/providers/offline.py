"""The offline provider: deterministic, no network, and real. It writes every role's answer
from the source code itself and the context the orchestrator gathered (agents.gather):
the planner groups modules into chapters by the import graph, the researcher lists files,
symbols and docstrings with verbatim excerpts, the writer explains them and quotes the
excerpts with their paths, reviewers report the deterministic checks, the panel reads as
each persona. The same context always gives byte-identical text."""

from __future__ import annotations

import ast
import asyncio
import hashlib
import re
from collections.abc import Callable
from typing import Any

from .. import checks
from ..errors import StepFailed
from ..outline import Chapter, Outline, render as render_outline
from ..repo.sources import CODE_EXT, Module, analyse_python, module_name
from ..state import memory as memoryfiles
from ..steps import AUDIT, DRAFT, FINAL, MEMORY, OUTLINE, PANEL, R1, R2, R3, RESEARCH, REVIEW
from ..text.markdown import section
from .base import Request, Result, Usage

CHUNK = 400  # characters per streamed piece


class OfflineProvider:
    name = "offline"

    def __init__(self, latency: float = 0.0, fail: Callable[[Request], str | None] | None = None):
        self.latency = latency  # seconds per call, for benchmarks of the orchestrator
        self.fail = fail  # test hook: return an error message to fail a request
        self.calls = 0

    async def generate(self, req: Request, on_text: Callable[[str], None]) -> Result:
        self.calls += 1
        if self.latency:
            await asyncio.sleep(self.latency)
        if self.fail is not None:
            why = self.fail(req)
            if why:
                raise StepFailed(why)
        text = await asyncio.to_thread(author, req)  # CPU work: off the event loop, other calls go on
        start = 0
        if req.prefix:
            # Continue a partial answer: the same inputs give the same text, so an interrupted
            # answer is a prefix of the full one, and only the rest is produced.
            if text.startswith(req.prefix):
                start = len(req.prefix)
            elif req.context.get("on_reset"):
                req.context["on_reset"](False)  # the partial is not ours to continue: start afresh
        for i in range(start, len(text), CHUNK):
            on_text(text[i:i + CHUNK])
            await asyncio.sleep(0)
        words_in = (len(req.system) + len(req.prompt)) // 4
        return Result(text=text, stop_reason="end_turn", usage=Usage(words_in, (len(text) - start) // 4),
                      model="offline")

    def estimate_cost(self, req: Request) -> float:
        return 0.0

    async def aclose(self) -> None:
        return None


def author(req: Request) -> str:
    ctx = req.context
    fn = AUTHORS.get(req.step)
    if fn is None:
        raise StepFailed(f"the offline provider has no author for step {req.step!r}", retryable=False)
    return fn(ctx, T["zh" if ctx.get("language") == "zh" else "en"]).rstrip() + "\n"


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
        "think": "Think of it as **{phrase}**: {meaning}.",
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
        "think": "可以把它想象成**{phrase}**：{meaning}。",
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
METAPHORS = [
    ("a ship's logbook", "every event is written down in order before anything else happens"),
    ("a library card catalogue", "a small index that tells you where to look instead of searching every shelf"),
    ("a coat check", "you hand something over and get a ticket to claim it back later"),
    ("a relay race", "each part does its leg of the work and hands the baton on"),
    ("a recipe card", "a fixed list of steps that gives the same dish every time"),
    ("a post office sorting room", "items arrive in any order and leave sorted by destination"),
    ("a bookmark", "it remembers where you were so you can continue from there"),
    ("a filing cabinet", "things are kept in order so that finding one is quick"),
    ("a toolbox", "small, separate tools that the rest of the code picks up when it needs them"),
    ("a front desk", "the one place visitors talk to, which sends each request to the right room"),
]


def _first_sentence(doc: str) -> str:
    """The first sentence of a docstring's first paragraph; never cut inside a `code span`."""
    doc = " ".join(doc.strip().split("\n\n")[0].split())
    for m in re.finditer(r"[.!?。](?=\s|$)", doc):
        if doc[: m.end()].count("`") % 2 == 0:
            return doc[: m.end()].strip()
    return doc.strip()


def _stable_pick(key: str, n: int) -> int:
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % n


# ---------------------------------------------------------------- planner


def plan(ctx: dict[str, Any], t: dict[str, str]) -> str:
    sources: dict[str, str] = ctx["sources"]
    limits = ctx.get("limits", {})
    max_ch, batch_size = int(limits.get("max_chapters", 12)), int(limits.get("batch_size", 3))
    code = [p for p in sources if p.rsplit(".", 1)[-1] and "." + p.rsplit(".", 1)[-1] in CODE_EXT
            and not re.search(r"(^|/)(tests?|testing)(/|$)|(^|/)test_[^/]*$|_test\.[a-z]+$", p)]
    if not code:
        raise StepFailed("the source tree has no code files to write about", retryable=False)
    mods = {p: analyse_python(p, sources[p]) if p.endswith(".py") else Module(p, module_name(p), lines=sources[p].count("\n"))
            for p in code}
    by_name = {m.name: p for p, m in mods.items()}
    # Units: one module each; a tiny __init__.py joins no chapter of its own.
    units = [p for p in sorted(code) if not (p.endswith("__init__.py") and mods[p].lines < 40)]
    found = {p: {_resolve(i, by_name) for i in mods[p].imports} - {p} for p in units}
    deps = {p: sorted(d for d in ds if d is not None and d in found) for p, ds in found.items()}
    order = _topo(units, deps)
    groups = [[p] for p in order]
    while len(groups) > max_ch:  # merge the smallest adjacent pair
        sizes = [sum(mods[p].lines for p in g) for g in groups]
        i = min(range(len(groups) - 1), key=lambda k: (sizes[k] + sizes[k + 1], k))
        groups[i:i + 2] = [groups[i] + groups[i + 1]]
    width = max(2, len(str(len(groups))))
    chapter_of = {p: f"ch{i + 1:0{width}d}" for i, g in enumerate(groups) for p in g}
    chapters = []
    for i, g in enumerate(groups):
        cid = f"ch{i + 1:0{width}d}"
        first = mods[g[0]]
        title = _title(first)
        summary = " ".join(_first_sentence(mods[p].doc) for p in g if mods[p].doc) or f"How {', '.join(g)} work."
        # Only chapters earlier in reading order: an import cycle in the source must not become
        # a cycle (or a forward dependency) in the book.
        dep_ids = sorted({chapter_of[d] for p in g for d in deps.get(p, []) if chapter_of.get(d, cid) < cid})
        chapters.append(Chapter(cid, title, i // batch_size + 1, summary, tuple(dep_ids), tuple(g)))
    # Dependencies must be in the same or an earlier batch: topological order guarantees it.
    book = ctx["book"]
    o = Outline(book["title"], tuple(chapters))
    intro = t["outline_intro"].format(src=ctx.get("source_name", "the source"), audience=book["audience"],
                                      brief=book["brief"])
    return render_outline(o, intro)


def _title(mod: Module) -> str:
    """A chapter title from a module docstring's first clause ("The write-ahead log: an
    append-only file..." -> "The write-ahead log"), else from the module's name."""
    first = _first_sentence(mod.doc).rstrip(".。") if mod.doc else ""
    for cut in (":", "：", ",", " so that ", " which ", " that ", " with ", " for "):
        head = first.split(cut, 1)[0].strip()
        if 12 <= len(head) <= 60 and head != first:
            return head[0].upper() + head[1:]
    if first and len(first) <= 60:
        return first
    return f"The {mod.name.rsplit('.', 1)[-1]} module"


def _resolve(name: str, by_name: dict[str, str]) -> str | None:
    while name:
        if name in by_name:
            return by_name[name]
        name = name.rpartition(".")[0]
    return None


def _topo(units: list[str], deps: dict[str, list[str]]) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()

    def visit(p: str, stack: tuple[str, ...]) -> None:
        if p in seen or p in stack:
            return
        for d in deps.get(p, []):
            visit(d, stack + (p,))
        seen.add(p)
        out.append(p)

    for p in units:
        visit(p, ())
    return out


# ---------------------------------------------------------------- researcher


def research(ctx: dict[str, Any], t: dict[str, str]) -> str:
    ch = ctx["chapter"]
    covered: dict[str, str] = ctx.get("imports_from", {})
    by_name = {module_name(p): (p, c) for p, c in covered.items()}
    out = [f"# {t['research']}: {ch['id']} — {ch['title']}", "", f"## {t['sources']}", ""]
    mods = []
    for path in ch["sources"]:
        text = ctx["sources"].get(path, "")
        mod = analyse_python(path, text) if path.endswith(".py") else Module(path, module_name(path), lines=text.count("\n"))
        mods.append((mod, text))
        doc = _first_sentence(mod.doc) if mod.doc else t["no_doc"]
        out.append(f"- `{path}` ({mod.lines} {t['lines']}): {doc}")
    overview = [_paragraph(p) for mod, _ in mods for p in mod.doc.strip().split("\n\n")[1:] if p.strip()]
    if overview:
        out += ["", f"## {t['overview']}", ""] + [p + "\n" for p in overview]
    out += ["", f"## {t['symbols']}", ""]
    for mod, _ in mods:
        for s in mod.symbols:
            doc = _first_sentence(s.doc) if s.doc else t["no_doc"]
            out.append(f"- `{s.name}` ({s.kind}, `{mod.path}`:{s.line}): `{s.signature}` — {doc}")
    out += ["", f"## {t['excerpts']}", ""]
    taken = 0
    for mod, text in mods:
        lines = text.splitlines()
        picked = [s for s in mod.symbols if s.kind != "class" and (s.end - s.line) <= 30 and s.doc][:6]
        for s in picked:
            if taken >= 10:
                break
            taken += 1
            code = "\n".join(lines[s.line - 1:s.end])
            doc = "\n\n".join(" ".join(p.split()) for p in s.doc.strip().split("\n\n") if p.strip())
            out += [f"### `{s.name}` — {mod.path}:{s.line}", "", doc, "",
                    f"```python file={mod.path}", _dedent(code), "```", ""]
    rel = []
    for mod, _ in mods:
        for imp in sorted(set(mod.imports)):
            hit = _resolve_covered(imp, by_name)
            if hit:
                rel.append("- " + t["imports"].format(m=imp, ch=hit))
    out += [f"## {t['relations']}", ""] + (sorted(set(rel)) or ["- (none)"]) + [""]
    qs = [t["q_nodoc"].format(s=s.name) for mod, _ in mods for s in mod.symbols if not s.doc and s.kind != "method"]
    out += [f"## {t['questions']}", ""] + ([f"- {q}" for q in qs[:8]] or ["- (none)"])
    return "\n".join(out)


def _paragraph(p: str) -> str:
    """A docstring paragraph as Markdown: prose is reflowed; a preformatted block (indented,
    or a diagram) is kept as it is, in an illustrative fence."""
    lines = p.splitlines()
    if any(line.startswith((" ", "\t")) for line in lines) or any(line.lstrip().startswith(("+-", "|")) for line in lines):
        import textwrap

        return "```text\n" + textwrap.dedent(p).strip("\n") + "\n```"
    return " ".join(p.split()).replace("::", ":")


def _resolve_covered(name: str, by_name: dict[str, tuple[str, str]]) -> str | None:
    while name:
        if name in by_name:
            return by_name[name][1]
        name = name.rpartition(".")[0]
    return None


def _dedent(code: str) -> str:
    import textwrap

    return textwrap.dedent(code).rstrip()


# ---------------------------------------------------------------- writer

_EXCERPT_RE = re.compile(r"^### `(.+?)` — (.+?):(\d+)\n\n(.*?)\n\n```(\S+) file=(\S+)\n(.*?)\n```", re.S | re.M)


def write(ctx: dict[str, Any], t: dict[str, str]) -> str:
    ch = ctx["chapter"]
    taken = {p.lower() for p, _, _ in ctx[MEMORY]["metaphors"]}
    free = [m for m in METAPHORS if m[0].lower() not in taken] or METAPHORS
    phrase, meaning = free[_stable_pick(ch["id"], len(free))]
    titles = {c["id"]: c["title"] for c in ctx["chapters"]}
    known = {term.lower() for term, _, _ in ctx[MEMORY]["glossary"]}
    excerpts = _EXCERPT_RE.findall(ctx[RESEARCH])
    src_lines = [line[2:] for line in section(ctx[RESEARCH], t["sources"]).splitlines() if line.startswith("- ")]
    out = [f"# {ch['title']}", "", ch["summary"], ""]
    files = ", ".join(f"`{s}`" for s in ch["sources"])
    out += [t["reads"].format(files=files), "", f"## {t['fits']}", ""]
    for s in src_lines:
        out.append(f"- {s}")
    out.append("")
    overview = section(ctx[RESEARCH], t["overview"]).strip()
    if overview:
        out += [overview, ""]
    for d in ch["depends_on"]:
        out.append(t["builds_on"].format(title=titles.get(d, d), ch=d))
    out += ["", t["think"].format(phrase=phrase, meaning=meaning), ""]
    # Key terms: the classes of this chapter, defined once, on first use.
    terms = []
    for line in section(ctx[RESEARCH], t["symbols"]).splitlines():
        m = re.match(r"- `(\w+)` \(class, .*?— (.*)$", line)
        if m and m.group(1).lower() not in known and m.group(2) != t["no_doc"]:
            terms.append((m.group(1), m.group(2)))
    for term, doc in terms:
        out.append(f"**{term}**: {doc}")
        out.append("")
    summary_items = []
    for name, path, line, doc, lang, fpath, code in excerpts:
        out += [f"## `{name}`", "", doc.strip(), "", f"```{lang} file={fpath}", code, "```", ""]
        out.append(_explain(name, code, t) + " " + t["defined_in"].format(path=path, line=line))
        out.append("")
        summary_items.append(t["sum_item"].format(name=name, doc=_first_sentence(doc)))
    relations = _relations(excerpts, t)
    if relations:
        out += [f"## {t['uses']}", "", " ".join(relations), ""]
    out += [f"## {t['summary']}", ""]
    out += [f"- {s}" for s in summary_items] or [f"- {ch['summary']}"]
    return "\n".join(out)


def _relations(excerpts, t: dict[str, str]) -> list[str]:
    """Which of the quoted functions call which: how the pieces of the chapter fit together."""
    names = {name.rsplit(".", 1)[-1]: name for name, *_ in excerpts}
    out = []
    for name, _path, _line, _doc, _lang, _file, code in excerpts:
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue
        called = sorted({(c.func.attr if isinstance(c.func, ast.Attribute) else c.func.id) for c in ast.walk(tree)
                         if isinstance(c, ast.Call) and isinstance(c.func, (ast.Name, ast.Attribute))})
        for c in called:
            if c in names and names[c] != name:
                out.append(t["calls_other"].format(a=name, b=names[c]))
    return out


def _explain(name: str, code: str, t: dict[str, str]) -> str:
    """What the code of one function says about itself: parameters, result, calls, raises."""
    short = name.rsplit(".", 1)[-1]
    try:
        fn = next(n for n in ast.walk(ast.parse(code)) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    except (SyntaxError, StopIteration):
        return ""
    params = [a.arg for a in fn.args.args + fn.args.kwonlyargs if a.arg not in ("self", "cls")]
    s = t["takes"].format(name=short, params=", ".join(f"`{p}`" for p in params)) if params else t["no_params"].format(name=short)
    if fn.returns is not None and ast.unparse(fn.returns) != "None":
        s += t["returns"].format(ret=ast.unparse(fn.returns))
    s += "."
    calls = sorted({ast.unparse(c.func) for c in ast.walk(fn) if isinstance(c, ast.Call)
                    and isinstance(c.func, (ast.Name, ast.Attribute)) and len(ast.unparse(c.func)) < 40})
    calls = [c for c in calls if not c.startswith(("self.", "super")) and "." not in c][:5]
    if calls:
        s += t["calls"].format(calls=", ".join(f"`{c}`" for c in calls))
    raises = sorted({ast.unparse(r.exc.func if isinstance(r.exc, ast.Call) else r.exc) for r in ast.walk(fn)
                     if isinstance(r, ast.Raise) and r.exc is not None})
    if raises:
        s += t["raises"].format(exc=", ".join(f"`{r}`" for r in raises[:3]))
    return s


# ---------------------------------------------------------------- reviewers


def _findings_objs(ctx: dict[str, Any]) -> list:
    return [checks.Finding(f["check"], f["severity"], f["line"], f["message"]) for f in ctx.get("findings", [])]


def _review_doc(ctx: dict[str, Any], t: dict[str, str], kind: str, note: str) -> str:
    ch = ctx["chapter"]
    fs = _findings_objs(ctx)
    verdict = "blocked" if checks.blocking(fs) else "clean"
    return "\n".join([f"# {t[kind]}: {ch['id']} — {ch['title']}", "", f"Verdict: {verdict}", "",
                      f"## {t['findings']}", "", checks.format_findings(fs), "", f"## {t['notes']}", "", note])


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
    ch = ctx["chapter"]
    fs = _findings_objs(ctx)
    out = [f"# {t['review']}: {ch['id']} — {ch['title']}", "", f"Verdict: {'blocked' if ctx.get('blocked') else 'clean'}", "",
           f"## {t['findings']}", "", checks.format_findings(fs), "", f"## {t['actions']}", ""]
    out += [f"- {t['act'].format(msg=f.message)} ({f.check}, line {f.line})" for f in fs] or [t["no_actions"]]
    return "\n".join(out)


# ---------------------------------------------------------------- reader panel


def panel(ctx, t):
    ch = ctx["chapter"]
    draft = ctx[DRAFT]
    lines = draft.splitlines()
    prose = _prose_lines(lines)
    notes: dict[str, list[str]] = {"terms": [], "sentences": [], "code": [], "xref": [], "verified": []}
    defined: dict[str, int] = {}
    for i, line in enumerate(lines, 1):
        m = re.match(r"\*\*(.+?)\*\*[:：]", line)
        if m:
            defined.setdefault(m.group(1), i)
    for term, at in defined.items():
        for i in prose:
            if i < at and re.search(rf"\b{re.escape(term)}\b", lines[i - 1]):
                notes["terms"].append(t["before_def"].format(t=term, a=i, b=at))
                break
    for i in prose:
        for sent in re.split(r"(?<=[.!?。！？])\s+", lines[i - 1]):
            w = len(sent.split())
            if w > 35:
                notes["sentences"].append(t["long_sentence"].format(n=i, w=w))
    for b in checks.code_blocks(draft):
        end = b.line + len(b.code.splitlines()) + 1
        nxt = next((lines[j].strip() for j in range(end, min(len(lines), end + 3)) if lines[j].strip()), "")
        if not nxt or nxt.startswith(("#", "```")):
            notes["code"].append(t["unexplained"].format(n=b.line))
    if not re.search(r"\]\(ch\d{2,}\.md", draft) and ch["depends_on"]:
        notes["xref"].append(t["no_xref"])
    verified = sum(1 for b in checks.code_blocks(draft) if b.file)
    if verified:
        notes["verified"].append(t["verified"].format(n=verified))
    wants = [("terms", "code"), ("verified", "sentences"), ("xref", "terms")]
    out = [f"# {t['panel']}: {ch['id']} — {ch['title']}", ""]
    for k, persona in enumerate(ctx["personas"]):
        name, _, who = persona.partition(":")
        out += [f"## {name.strip()}", "", f"_{who.strip() or name.strip()}_", ""]
        items = [x for key in wants[k % len(wants)] for x in notes[key]]
        out += [f"- {x}" for x in items[:8]] or [f"- {t['persona_ok']}"]
        out.append("")
    return "\n".join(out)


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
    mem = memoryfiles.ChapterMemory(ch["id"], ch["title"], summary=paras[0] if paras else ch["summary"])
    for line in draft.splitlines():
        m = re.match(r"\*\*(.+?)\*\*[:：]\s*(.+)$", line)
        if m:
            mem.glossary.append((m.group(1), m.group(2).strip()))
        for m2 in re.finditer(r"(?:Think of it as|可以把它想象成)\s*\*\*(.+?)\*\*[:：]\s*(.+?)[.。]$", line):
            mem.metaphors.append((m2.group(1), m2.group(2)))
    titles = {c["id"]: c["title"] for c in ctx["chapters"]}
    for target in sorted(set(re.findall(r"\]\((ch\d{2,})\.md", draft))):
        if target != ch["id"]:
            mem.xrefs.append((target, titles.get(target, target)))
    return memoryfiles.render(mem)


_SPELLING_RE = re.compile(r"writes '(.+?)' for the glossary term '(.+?)'")


def _apply_spelling(lines: list[str], review: str) -> list[str]:
    """R2's glossary findings: write the term as the glossary spells it, on the line cited,
    outside inline code (code keeps the source's own names)."""
    for f in checks.parse_findings(section(review, "Findings")):
        m = _SPELLING_RE.search(f.message)
        if f.check != "r2.glossary" or not m or not (0 < f.line <= len(lines)):
            continue
        wrong, right = m.groups()
        parts = lines[f.line - 1].split("`")
        parts[::2] = [re.sub(rf"(?<![\w-]){re.escape(wrong)}(?![\w-])", right, p) for p in parts[::2]]
        lines[f.line - 1] = "`".join(parts)
    return lines


def edit(ctx, t):
    """The final chapter: the draft, with the review's and panel's mechanical fixes applied."""
    draft = ctx[DRAFT].rstrip()
    lines = _apply_spelling(draft.splitlines(), ctx.get(REVIEW, ""))
    sections = [line[3:] for line in lines if line.startswith("## ")]
    # After the opening paragraph, tell the reader what is ahead (the panel's newcomer asks for it).
    head_end = next((i for i, line in enumerate(lines) if line.startswith("## ")), len(lines))
    toc = ["", t["final_intro"], ""] + [f"- {s}" for s in sections] + [""]
    out = lines[:head_end] + toc + lines[head_end:]
    text = "\n".join(out)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text


def audit(ctx, t):
    fs = [checks.Finding(f["check"], f["severity"], f["line"], f["message"]) for f in ctx.get("findings", [])]
    out = [f"# {t['audit']}: {ctx['book']['title']}", "", f"Verdict: {'blocked' if checks.blocking(fs) else 'clean'}", "",
           f"## {t['findings']}", "", checks.format_findings(fs), "", f"## {t['notes']}", "",
           t["audit_note"].format(n=len(ctx.get("finals", {})))]
    return "\n".join(out)


from .. import authoring  # noqa: E402  (the planner, researcher and writer, built on the repository map)

AUTHORS: dict[str, Callable[[dict[str, Any], dict[str, str]], str]] = {
    OUTLINE: authoring.write_outline, RESEARCH: authoring.write_research, DRAFT: authoring.write_draft,
    R1: review_r1, R2: review_r2, R3: review_r3, REVIEW: merge, PANEL: panel, MEMORY: remember, FINAL: edit, AUDIT: audit,
}
