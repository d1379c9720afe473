"""`output/memory/checkpoint.md`: the human view of progress (the third witness, after the files and the ledger).

Rendered from a Snapshot (plus what only a live run knows: running, failed, needs_human),
and parsed back so a scan can say where it and the files disagree."""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any

from ..steps import FINAL, HTML, PHASE3, STEPS
from .scan import Snapshot, status_word

SYMBOL = {"done": "✅", "edited": "✅", "stale": "🔄", "half_finished": "⚠️", "missing": "—",
          "running": "⏳", "failed": "❌", "needs_human": "⚠️需人工", "in_batch": "📨"}
# an English book's checkpoint marks a step waiting for a person in its own language's sign
SYMBOLS = {"zh": SYMBOL, "en": SYMBOL | {"needs_human": "✋"}}

TEXT: dict[str, dict[str, Any]] = {
    "en": {
        "title": "Progress checkpoint", "updated": "Last updated", "phase": "Current phase", "batch": "Current batch",
        "phases": {1: "Outline", 2: "Shared resources", 3: "Chapters", 4: "Final audit", 5: "HTML"},
        "done": "✅ done", "active": "⏳ in progress", "todo": "not started", "chapter": "Chapter",
        "unbatched": "Not in the outline", "needs": "Needs a person", "gates": "Waiting at a gate",
        "revision": "Source revision", "evidence": "Evidence", "health": "Claims supported", "stale": "Stale claims",
        "follow": "Sections redone at the source's new revision",
        "legend": "Legend: ✅done  ⏳in progress  ❌failed  ✋needs a person  ⚠️ half-finished  🔄stale  📨waiting in a Message Batch  — not started",
    },
    "zh": {
        "title": "项目进度检查点", "updated": "最后更新", "phase": "当前Phase", "batch": "当前批次",
        "phases": {1: "大纲定稿", 2: "共享资源构建", 3: "逐章写作", 4: "统稿审计", 5: "HTML装帧"},
        "done": "✅ 完成", "active": "⏳ 进行中", "todo": "未开始", "chapter": "章节",
        "unbatched": "不在大纲中", "needs": "需人工处理", "gates": "待审批",
        "revision": "源码版本", "evidence": "证据", "health": "论断成立", "stale": "过时的论断",
        "follow": "随源码新版本重写的小节",
        "legend": "图例: ✅完成  ⏳进行中  ❌失败  ⚠️需人工  🔄需重做  — 未开始",
    },
}


def header_words(lang: str) -> tuple[str, ...]:
    """The words of the view's own `Word: value` lines (told from a person's by checkpoint_notes)."""
    t = TEXT["zh" if lang == "zh" else "en"]
    return (*(t[k] for k in ("updated", "phase", "batch", "revision", "health", "evidence")),
            "Book quality", "全书质量")  # quality_view's line under Phase 4


def label(step: str, lang: str) -> str:
    return STEPS[step].label_zh if lang == "zh" else STEPS[step].label_en


def _label_to_step() -> dict[str, str]:
    out = {}
    for k, s in STEPS.items():
        out[s.label_en] = k
        out[s.label_zh] = k
    return out


def cell(snap: Snapshot, ch: str, step: str, live: dict[tuple[str, str], str]) -> str:
    return SYMBOL[live.get((ch, step)) or status_word(snap.chapters[ch][step])]


def _cells(row: dict, ch: str, steps: tuple[str, ...], live: dict[tuple[str, str], str],
           sym: dict[str, str] = SYMBOL) -> list[str]:
    """`cell` for several steps of one chapter (the matrix has a cell per chapter and step,
    rewritten a few times a second on a big book: kept to dictionary lookups)."""
    out = []
    for k in steps:
        word = live.get((ch, k)) if live else None
        if not word:
            s = row[k]
            word = "stale" if s.status == "done" and s.stale else s.status
        out.append(sym[word])
    return out


def render(snap: Snapshot, title: str, lang: str = "en", live: dict[tuple[str, str], str] | None = None,
           needs_human: dict[str, str] | None = None, now: _dt.datetime | None = None,
           gates: list[str] | None = None, evidence: dict[str, Any] | None = None) -> str:
    """`evidence` (state.evidence_view.checkpoint_view): the source revision, each chapter's
    evidence (uncovered | partial | covered) and the claims' health, shown when given."""
    live = live or {}
    evidence = evidence or {}
    t = TEXT["zh" if lang == "zh" else "en"]
    sym = SYMBOLS["zh" if lang == "zh" else "en"]
    now = now or _dt.datetime.now(_dt.UTC)
    phase = snap.phase
    batch = snap.batch
    complete = snap.complete  # each of these walks every chapter: once per render, not per line
    out = [f"# {title} — {t['title']}", "",
           f"{t['updated']}: {now.strftime('%Y-%m-%d %H:%M')} UTC",
           f"{t['phase']}: {phase}",
           f"{t['batch']}: {'Batch ' + str(batch) if batch else '—'}"]
    if evidence:
        h = evidence["health"]
        out += [f"{t['revision']}: {evidence['revision']}", f"{t['health']}: {h['supported']}/{h['all']}"]
    out.append("")

    def phase_state(p: int) -> str:
        if complete or p < phase:
            return t["done"]
        return t["active"] if p == phase else t["todo"]

    out += [f"## Phase 1: {t['phases'][1]} — {phase_state(1)}", f"## Phase 2: {t['phases'][2]} — {phase_state(2)}",
            f"## Phase 3: {t['phases'][3]} — {phase_state(3)}", ""]
    groups: dict[int | None, list[str]] = {}
    for ch in snap.chapters:
        groups.setdefault(snap.batch_of(ch), []).append(ch)
    head = [t["chapter"]] + [label(k, lang) for k in PHASE3]
    for b in sorted(groups, key=lambda x: (x is None, x or 0)):
        chs = groups[b]
        started = any(snap.chapters[c][k].status != "missing" or (c, k) in live for c in chs for k in PHASE3)
        name = f"Batch {b}" if b is not None else t["unbatched"]
        out.append(f"### {name}" + ("" if started else f" — {t['todo']}"))
        out += _table(head, [[c, *_cells(snap.chapters[c], c, PHASE3, live, sym)] for c in chs])
        out.append("")
    evs = evidence.get("chapters", {})
    for p, step in ((4, FINAL), (5, HTML)):
        out.append(f"## Phase {p}: {t['phases'][p]} — {phase_state(p)}")
        if p == 4 and evs:  # the evidence a final waits for, beside it
            out += _table([t["chapter"], label(step, lang), t["evidence"]],
                          [[c, *_cells(s, c, (step,), live, sym), evs.get(c, "—")] for c, s in snap.chapters.items()])
        else:
            out += _table([t["chapter"], label(step, lang)], [[c, *_cells(s, c, (step,), live, sym)] for c, s in snap.chapters.items()])
        if p == 4 and evidence.get("quality"):  # the audit's figures, as the tool measured them
            out += ["", evidence["quality"]]
        out.append("")
    stale = evidence.get("health", {}).get("stale_claims") if evidence else None
    if stale:
        out.append(f"## {t['stale']}")
        out += [f"- {ch} § {c['section'] or '—'} (line {c['line']}, {c['status']}): {c['text'][:100]}"
                for ch, cs in stale.items() for c in cs[:10]]
        out.append("")
    if evidence and evidence.get("follow"):  # what the last section rewrite of each chapter did
        out += [f"## {t['follow']}", *evidence["follow"], ""]
    if gates:
        out.append(f"## {t['gates']}")
        out += [f"- {sym['needs_human']} {card}" for card in gates]
        out.append("")
    if needs_human:
        out.append(f"## {t['needs']}")
        out += [f"- {ch}: NEEDS_HUMAN_REVIEW — {why}" for ch, why in sorted(needs_human.items())]
        out.append("")
    out.append(t["legend"])
    return "\n".join(out) + "\n"


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    return (["| " + " | ".join(head) + " |", "|" + "|".join("-" * (len(h) + 2) for h in head) + "|"]
            + ["| " + " | ".join(r) + " |" for r in rows])


_ROW_RE = re.compile(r"^\|\s*(ch\d{2,})\s*\|(.*)\|\s*$")


def parse(text: str) -> dict[tuple[str, str], str]:
    """(chapter, step) -> symbol, from the tables of a checkpoint.md in either language (not
    from a person's notes section)."""
    from .checkpoint_notes import split

    text = split(text)[0]
    names = _label_to_step()
    out: dict[tuple[str, str], str] = {}
    cols: list[str | None] = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("|") and not _ROW_RE.match(line) and not set(line) <= set("|- :"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            cols = [names.get(c) for c in cells[1:]]
            continue
        m = _ROW_RE.match(line)
        if m and cols:
            for step, sym in zip(cols, [c.strip() for c in m.group(2).split("|")]):
                if step:
                    out[(m.group(1), step)] = sym
    return out


def compare(snap: Snapshot, text: str, lang: str = "en") -> list[str]:
    """Where checkpoint.md and the files disagree, in words a person can check."""
    claimed = parse(text)
    found = {}
    for ch, steps in snap.chapters.items():
        for k, s in steps.items():
            found[(ch, k)] = status_word(s)
    issues = []
    inverse = {"✅": ("done", "edited"), "🔄": ("stale",), "⚠️": ("half_finished",), "—": ("missing",),
               "⏳": ("missing", "half_finished", "stale"), "❌": ("missing", "half_finished", "stale"),
               "⚠️需人工": ("missing", "half_finished", "done", "edited", "stale"),
               "✋": ("missing", "half_finished", "done", "edited", "stale"),
               "📨": ("missing", "half_finished", "stale")}
    for (ch, k), sym in sorted(claimed.items()):
        have = found.get((ch, k), "missing")
        if have not in inverse.get(sym, ()):
            issues.append(f"checkpoint.md says {ch} {label(k, lang)} {sym}, but {STEPS[k].file(ch)} is {have}")
    for (ch, k), have in sorted(found.items()):
        if (ch, k) not in claimed and have != "missing":
            issues.append(f"checkpoint.md does not list {ch} {label(k, lang)}, but {STEPS[k].file(ch)} is {have}")
    return issues

