"""Files the orchestrator derives without a model: the source map, the style guide and the
long-memory aggregates. Each is a pure function of other files, written with a marker whose
`inputs` say what it was made from, so a scan can tell when it is stale."""

from __future__ import annotations

import sys
from pathlib import Path

from ..outline import Outline
from ..repo.summary import PREFIX as SUMMARY_PREFIX
from ..repo.walk import walk
from ..state import corrections, memory as memoryfiles
from ..state.fsio import atomic_write, backup
from ..state.markers import compose
from ..state.memory import long_memory, read_body
from ..steps import MEMORY, MEMORY_FILES, MEMORY_MARKER, STEPS

STYLE = {
    "en": """# Style guide: {title}

For {audience}.

## Voice
- Explain, then show: say what a piece of code is for before quoting it, and what it does after.
- Plain words, short sentences (under 30 words); one idea per paragraph.
- Address the reader as "you"; name things the way the code names them.

## Code
- Quote real code only, as a fenced block whose info string names the file: ```` ```python file=path/in/repo.py ````.
- Quote the smallest piece that makes the point; elide with a line `...` when needed.
- Every code block is followed by prose that explains it.
- Inline code for every path, function, class and value: `Store.get`, `minikv/wal.py`.

## Terms and references
- Define a term in bold on first use (`**term**: definition`); the glossary collects them.
- Do not redefine a term an earlier chapter defined: link to that chapter instead.
- Link other chapters as `[title](chNN.md)`; only chapters that exist.
- Each chapter may use one metaphor of its own; never reuse another chapter's.

## Shape
- One `# ` title, then `## ` sections; a closing `## Summary`.
- No TODOs, placeholders or notes to the editor in a chapter.
""",
    "zh": """# 风格指南：{title}

读者：{audience}。

## 语气
- 先解释再展示：引用代码前说明它的用途，引用后说明它做了什么。
- 用平实的词和短句；一段只讲一件事。
- 用"你"称呼读者；沿用代码中的命名。

## 代码
- 只引用真实代码，用代码块并在信息字符串中标明文件：```` ```python file=path/in/repo.py ````。
- 引用能说明问题的最小片段；必要时用一行 `...` 省略。
- 每个代码块之后都要有解释。
- 路径、函数、类和值都用行内代码：`Store.get`、`minikv/wal.py`。

## 术语与引用
- 术语首次出现时加粗定义（`**术语**：定义`），术语表会收集它们。
- 不要重复定义前面章节已定义的术语，改为链接到该章。
- 用 `[标题](chNN.md)` 链接其他章节，只链接存在的章节。
- 每章最多使用一个自己的隐喻，不要复用其他章节的隐喻。

## 结构
- 一个 `# ` 标题，然后是 `## ` 小节，最后是 `## 小结`。
- 章节中不得留有 TODO、占位符或给编辑的备注。
""",
}


def style_guide(cfg) -> str:
    return STYLE["zh" if cfg.language == "zh" else "en"].format(title=cfg.title, audience=cfg.audience)


def source_map(o: Outline, source_dir) -> str:
    """Which chapter explains which file, and what the walk left out and why (the safe walker's
    rules: links out of the source, FIFOs, devices, huge, binary, generated, ignored files)."""
    tree = walk(Path(source_dir))
    covered = {s: c.id for c in o.chapters for s in c.sources}
    files = tree.rels()
    out = ["# Source map", "", "Which chapter explains which file of the source tree.", "",
           f"{SUMMARY_PREFIX}{tree.summary()}.", "",
           "| file | chapter |", "|------|---------|"]
    for f in files:
        ch = covered.get(f)
        out.append(f"| `{f}` | {ch + ' — ' + o.by_id[ch].title if ch else '—'} |")
    for s in sorted(set(covered) - set(files)):
        out.append(f"| `{s}` | {covered[s]} (missing from the source tree) |")
    if tree.skipped:
        out += ["", "## Left out", "", "Files the book does not read, and why.", "",
                "| file | reason |", "|------|--------|"]
        out += [f"| `{_cell(sk.rel)}` | {_cell(sk.reason)} |" for sk in tree.skipped]
    return "\n".join(out)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'").replace("\n", " ")


def write_derived(book, rel: str, body: str, marker: str, inputs: dict,
                  warn=lambda m: print(m, file=sys.stderr)) -> bool:
    """Write a derived file unless it already holds exactly this. Derived files carry no run id:
    they are pure functions of their inputs, so the same inputs give the same bytes. A person's
    edit (or a file without a marker) is moved to a `.bak` first, with a warning saying where
    to edit instead; a derived file that is merely out of date is replaced. True if written."""
    path = book.ws.path(rel)
    new = compose(body, marker, {k: v for k, v in inputs.items() if v is not None})
    try:
        if path.read_text(encoding="utf-8") == new:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    st = book.scanner.file_state(rel, marker)
    if st.status in ("edited", "half_finished"):
        dest = backup(path)
        moved = (" (a changed, added or removed term and a changed summary moved to output/memory/corrections.md, "
                 "applied on every rebuild)" if rel in (MEMORY_FILES["glossary"], MEMORY_FILES["summaries"]) else
                 " (to change it, edit the chapter's own output/memory/chapters/chNN.md: a rebuild reads those)"
                 if rel in (MEMORY_FILES["metaphors"], MEMORY_FILES["xrefs"]) else "")
        warn(f"warning: {rel} was changed by hand; it is made from other files, so your version is kept as "
             f"{dest.name if dest else '?'} and the file is regenerated{moved}")
    atomic_write(path, new)
    book.scanner.invalidate(rel)
    book.cache.forget(str(path))
    return True


def _memory_aggregates(book, problems: list[str] | None = None) -> tuple[dict[str, str], dict[str, str]]:
    """(rel path -> body of each long-memory aggregate, the per-chapter hashes they are made from).
    A chapter file that cannot be read is left out, its error added to `problems`: the aggregates
    list every chapter, and one person's malformed edit must not stop the rest of the book."""
    mem = long_memory(book, book.scanner.chapters(), [] if problems is None else problems)
    inputs = {f"{MEMORY}:{m.chapter}": book.scanner.body_hash(STEPS[MEMORY].file(m.chapter)) for m in mem.chapters}
    bodies = memoryfiles.aggregates(mem, book.cfg.language)
    return {rel: bodies[key] for key, rel in MEMORY_FILES.items()}, {k: v for k, v in inputs.items() if v}


def _harvest_corrections(book) -> None:
    from ..state.reconcile import looks_truncated

    edited, made_from = {}, None
    for key in ("glossary", "summaries"):
        rel = MEMORY_FILES[key]
        st = book.scanner.file_state(rel, MEMORY_MARKER)
        # marker kept or not (a whole-file paste has none), an edited aggregate is the person's
        if st.status == "half_finished" and (not st.size or looks_truncated(read_body(book.root, rel))[0]):
            continue  # cut short: damage to repair, not a person's word
        if st.status in ("edited", "half_finished"):
            edited[key] = read_body(book.root, rel)
            if key == "glossary" and st.marker:
                made_from = st.marker.inputs
    if not edited:
        return
    bodies, now = _memory_aggregates(book)
    unchanged = None if made_from is None else {
        k.partition(":")[2] for k, h in made_from.items() if k.startswith(f"{MEMORY}:") and now.get(k) == h}
    changed = corrections.harvest(book.root, edited, {k: bodies[MEMORY_FILES[k]] for k in edited}, unchanged)
    if changed:
        book.ledger.event("corrected", None, None, None, entries=changed, file=corrections.CORRECTIONS)


def memory_in_sync(book) -> bool:
    """Do the aggregates hold exactly what the per-chapter files say? (reads, never writes)"""
    bodies, inputs = _memory_aggregates(book)
    for rel, body in bodies.items():
        try:
            if (book.root / rel).read_text(encoding="utf-8") != compose(body, MEMORY_MARKER, inputs):
                return False
        except (OSError, UnicodeDecodeError):
            return False
    return True


def sync_memory(book) -> list[str]:
    """Regenerate the long-memory aggregates from the per-chapter files, in chapter order.
    What a person changed in glossary.md or chapter-summaries.md first moves to
    corrections.md, which the regenerated files apply: the correction survives."""
    _harvest_corrections(book)
    problems: list[str] = []
    bodies, inputs = _memory_aggregates(book, problems)
    told = book.memo.setdefault(("memory warnings",), set())  # once a run, not at every sync
    for msg in dict.fromkeys(problems):  # an unreadable file: the steps that read it fail, naming it; the rest go on
        if msg not in told:
            told.add(msg)
            print(f"warning: {msg}", file=sys.stderr)
    return [rel for rel, body in bodies.items() if write_derived(book, rel, body, MEMORY_MARKER, inputs)]
