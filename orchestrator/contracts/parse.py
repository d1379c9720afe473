"""Strict reading of the files people may edit: reviews, the merged review, the memory files,
the panel file and the outline.

Lenient in form, strict in substance. A person writes findings as they naturally would:
any bullet (`-`, `*`, `+`, `1.`, `1)`) or none, the severity in any case, bold or not, with
or without a colon (`**blocking**:`, `Blocking —`), the check id in backticks or not, any
dash or a colon as separator, `line 12`, `lines 3-5`, `lines 3–5`, `(line 12)`, `[line 12]`,
`L12`, `第 12 行`, a chapter id. Blank lines, HTML comments and prose outside the list (a
preface under the heading) are fine. But a list item inside a findings section that cannot
be read as a finding is a `ContractError` naming the file, the 1-based line and what was
expected: nothing a person wrote there is silently skipped.

Every `render_*` output reads back to an equal object (tests/test_contracts_roundtrip.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..steps import MEMORY, OUTLINE, PANEL, REVIEW
from .errors import ContractError
from .findings import Action, Finding, MergedReview, Review
from .lists import Item, line_range, reads_as_term, scan_head, strip_marker, walk
from .mdtext import Section, fence_mask, sections, split_lines
from .memory import CrossRef, MemoryUpdate, Metaphor, Term
from .outline import OutlinePlan
from .panel import Confusion, PanelFeedback, ReaderFeedback
from .render import EDIT_HINT

FINDING_FORM = "a finding like `- **major** `r2.glossary` line 12: message` (severity blocking, major or minor)"
_SEV_RE = re.compile(r"^(?P<bold>\*\*|__|\*|_)?\[?(?P<sev>blocking|blocker|major|minor)\]?(?![A-Za-z0-9])[ \t]*"
                     r"(?P<c1>[:：])?[ \t]*(?:\*\*|__|\*|_)?(?:[ \t]*(?P<c2>[:：]))?", re.I)
_VERDICT_RE = re.compile(r"^\s*(?:[-*+]\s+)?verdict\s*(?:[:：]|[—–-])\s*(?P<v>[^\s.,;()]*)", re.I)


def _strong_severity(st: str) -> bool:
    """A line without a bullet that still is a finding: a bold severity, or one followed by a
    colon, a dash or a location (`Blocking — lines 3-5: ...`)."""
    m = _SEV_RE.match(st)
    if not m:
        return False
    if m.group("bold") in ("**", "__") or m.group("c1") or m.group("c2"):
        return True
    h = scan_head(st, m.end())
    return h.tokens > 0 or bool(re.match(r"[ \t]*[—–-]", st[m.end():]))


def parse_finding(text: str, *, file: str, line: int, default_check: str = "person",
                  quote: str = "") -> Finding:
    """One finding from the text of a list item (bullet removed)."""
    m = _SEV_RE.match(text)
    if not m:
        raise ContractError(f"cannot read the finding {text[:80]!r}: it does not start with a severity",
                            file=file, line=line, expected=FINDING_FORM)
    h = scan_head(text, m.end())
    if not h.message:
        raise ContractError("the finding has no message", file=file, line=line, expected=FINDING_FORM)
    a, b = line_range(h)
    sev = m.group("sev").lower()
    try:
        return Finding(h.checks[0] if h.checks else default_check, "blocking" if sev == "blocker" else sev,
                       a, h.message, h.chapter, b, quote)
    except ValueError as e:
        raise ContractError(str(e), file=file, line=line, expected=FINDING_FORM) from None


def _item_finding(it: Item, file: str, default_check: str) -> Finding:
    text = " ".join([it.head, *it.cont])
    return parse_finding(text, file=file, line=it.line, default_check=default_check, quote="\n".join(it.quote))


def parse_findings(text: str, *, file: str = "findings", default_check: str = "person") -> list[Finding]:
    """The findings of one findings section's text (or of a whole text without sections)."""
    sec = Section("Findings", 0, [(n, t) for n, t in enumerate(split_lines(text), 1)])
    return [_item_finding(it, file, default_check) for it in walk(sec, _strong_severity)]


def _is(title: str, *names: str) -> bool:
    t = title.strip().strip("*").strip().lower()
    return any(t == n or t.startswith(n + " ") or t.startswith(n + ":") or t.startswith(n + "(") for n in names)


def _heading(pre: Section) -> str:
    for _, t in pre.lines:
        if t.startswith("# "):
            return t[2:].strip()
    return ""


def _verdict_lines(secs: list[Section], file: str) -> str | None:
    """A `Verdict:` line a person (or the renderer) wrote, in the preamble or a findings section."""
    found = None
    for sec in secs:
        mask = fence_mask([t for _, t in sec.lines])
        for (n, t), code in zip(sec.lines, mask):
            if code:
                continue
            m = _VERDICT_RE.match(re.sub(r"\*\*|__", "", t))
            if not m:
                continue
            v = m.group("v").lower()
            if v not in ("clean", "blocked", "block", "revise"):  # revise: majors, not a block (shown_verdict)
                raise ContractError(f"cannot read the verdict {m.group('v')!r}", file=file, line=n,
                                    expected="`Verdict: clean`, `Verdict: revise` or `Verdict: blocked`")
            found = "blocked" if v.startswith("block") or found == "blocked" else "clean"
    return found


@dataclass(frozen=True)
class ParsedReview:
    heading: str  # the `# ` line's text
    review: Review
    person_verdict: str | None  # the `Verdict:` line as written ("clean" | "blocked"), None if absent


@dataclass(frozen=True)
class ParsedMerged:
    heading: str
    merged: MergedReview
    person_verdict: str | None


def _review_parts(text: str, file: str, default_check: str):
    secs = sections(strip_marker(text))
    fsecs = [s for s in secs if _is(s.title, "findings", "发现", "问题")]
    if not fsecs:
        raise ContractError("there is no `## Findings` section", file=file, line=1,
                            expected="a `## Findings` section listing findings, or `- none`")
    findings = [_item_finding(it, file, default_check) for s in fsecs for it in walk(s, _strong_severity)
                if not _VERDICT_RE.match(re.sub(r"\*\*|__", "", it.head))]  # `- Verdict: blocked`: read above
    notes = "\n\n".join(s.text() for s in secs if _is(s.title, "notes", "备注", "说明"))
    return secs, fsecs, findings, notes


def parse_review(text: str, *, file: str = REVIEW, default_check: str = "person") -> ParsedReview:
    secs, fsecs, findings, notes = _review_parts(text, file, default_check)
    return ParsedReview(_heading(secs[0]), Review(tuple(findings), notes), _verdict_lines([secs[0], *fsecs], file))


ACTION_TITLES = ("actions for the editor", "actions", "给编辑的修改项", "修改项")


def parse_action(text: str) -> Action:
    h = scan_head(text)
    if not (h.terminated and h.tokens and h.message):
        return Action(text.strip())  # a person's plain sentence: the whole of it is the change
    a, b = line_range(h)
    return Action(h.message, a, b, tuple(h.checks))


def parse_merged(text: str, *, file: str = "merged review", default_check: str = "person") -> ParsedMerged:
    secs, fsecs, findings, notes = _review_parts(text, file, default_check)
    actions = [parse_action(" ".join([it.head, *it.cont])) for s in secs if _is(s.title, *ACTION_TITLES)
               for it in walk(s)]
    return ParsedMerged(_heading(secs[0]), MergedReview(tuple(findings), tuple(actions), notes),
                        _verdict_lines([secs[0], *fsecs], file))


# ---------------------------------------------------------------- memory files

MEMORY_FORM = {"glossary": "`- **term**: definition`", "metaphors": "`- **phrase**: what it stands for`",
               "xrefs": "`- ch03: why this chapter refers to it` or `- [title](ch03.md): why`"}
_SEP = r"\s*(?:[:：]|\s[—–-]\s|[—–])\s*"
_LABEL_RES = [
    re.compile(r"^\*\*(?P<t>[^*]+?)[:：]\*\*\s*(?P<d>.*)$"),  # **term:** def (no `*` inside: see render)
    re.compile(r"^\*\*(?P<t>.+?)\*\*\s*(?:\((?:ch\d{2,})\))?" + _SEP + r"(?P<d>.*)$"),  # **term**: def, **term** — def
    re.compile(r"^__(?P<t>.+?)__" + _SEP + r"(?P<d>.*)$"),
    re.compile(r"^(?P<t>[^:：*][^:：]*?)" + _SEP + r"(?P<d>.*)$"),  # term: def, term — def
]
_XREF_RE = re.compile(r"^(?:\[(?P<title>[^\]]*)\]\((?:\./)?(?P<c1>ch\d{2,})\.md(?:#[^)]*)?\)|\*{0,2}(?P<c2>ch\d{2,})\*{0,2})"
                      r"(?:\s*\((?P<paren>[^)]*)\))?(?:" + _SEP + r"(?P<why>.*))?$")
_SECTION_KEYS = {"summary": "summary", "glossary": "glossary", "terms": "glossary", "metaphors": "metaphors",
                 "cross references": "xrefs", "cross-references": "xrefs"}


def _label_item(it: Item, key: str, file: str) -> tuple[str, str]:
    text = " ".join([it.head, *it.cont])
    for rx in _LABEL_RES:
        m = rx.match(text)
        if m and m.group("t").strip() and m.group("d").strip():
            return m.group("t").strip(), m.group("d").strip()
    raise ContractError(f"cannot read {text[:80]!r}", file=file, line=it.line, expected=MEMORY_FORM[key])


@dataclass(frozen=True)
class ParsedMemory:
    chapter: str | None  # from the `# Memory: chNN — title` line
    title: str
    update: MemoryUpdate
    # "file:line: ..." for each prose line of an entries section that was not read as an entry
    warnings: tuple[str, ...] = ()


def _entries(sec: Section, key: str, file: str, starts, warnings: list[str]) -> list[Item]:
    """The items of a Glossary or Metaphors section. A prose line a person wrote there is an
    entry when it reads as one (`Hit ratio: the share of hits`, `Hit ratio — ...`, without a
    bullet; not `Note: ...`, see lists.reads_as_term); any other prose line is reported (file, line, the form expected), never dropped
    unseen. A `(none)` placeholder is neither."""
    prose: list[tuple[int, str]] = []
    items = walk(sec, starts, prose)
    for n, st in prose:
        if any((m := rx.match(st)) and m.group("t").strip() and m.group("d").strip()
               and reads_as_term(m.group("t")) for rx in _LABEL_RES[1:]):
            items.append(Item(n, st))
        else:
            warnings.append(f"{file}:{n}: the line {st[:60]!r} in ## {sec.title.strip()} is not an entry and is "
                            f"left out; write it as {MEMORY_FORM[key]}")
    return sorted(items, key=lambda it: it.line)


def parse_memory(text: str, *, file: str = MEMORY) -> ParsedMemory:
    secs = sections(strip_marker(text))
    found: dict[str, Section] = {}
    for s in secs[1:]:
        key = _SECTION_KEYS.get(s.title.strip().lower())
        if key is None:
            raise ContractError(f"unknown section `## {s.title}`", file=file, line=s.line,
                                expected="only ## Summary, ## Glossary, ## Metaphors and ## Cross references")
        if key in found:
            raise ContractError(f"the section `## {s.title}` appears twice (first at line {found[key].line})",
                                file=file, line=s.line)
        found[key] = s
    missing = [t for t, k in (("Summary", "summary"), ("Glossary", "glossary"), ("Metaphors", "metaphors"),
                              ("Cross references", "xrefs")) if k not in found]
    if missing:
        raise ContractError("missing section(s): " + ", ".join("## " + m for m in missing), file=file, line=1)
    starts = lambda st: st.startswith(("**", "__"))  # noqa: E731  (a bold term without a bullet)
    summary_lines = [t for _, t in found["summary"].lines if t.strip()]
    summary = " ".join(" ".join(summary_lines).split())
    terms: list[Term] = []
    warnings: list[str] = []
    for it in _entries(found["glossary"], "glossary", file, starts, warnings):
        t, d = _label_item(it, "glossary", file)
        try:
            terms.append(Term(t, d))
        except ValueError as e:
            raise ContractError(str(e), file=file, line=it.line, expected=MEMORY_FORM["glossary"]) from None
    metaphors = []
    for it in _entries(found["metaphors"], "metaphors", file, starts, warnings):
        t, d = _label_item(it, "metaphors", file)
        try:
            metaphors.append(Metaphor(t, d))
        except ValueError as e:
            raise ContractError(str(e), file=file, line=it.line, expected=MEMORY_FORM["metaphors"]) from None
    xrefs = []
    for it in walk(found["xrefs"], lambda st: bool(re.match(r"^(\[[^\]]*\]\(|ch\d{2,}\b)", st))):
        text = " ".join([it.head, *it.cont])
        m = _XREF_RE.match(text)
        why = m and ((m.group("why") or "").strip() or (m.group("paren") or "").strip() or (m.group("title") or "").strip())
        if not m or not why:
            raise ContractError(f"cannot read the cross reference {text[:80]!r}", file=file, line=it.line,
                                expected=MEMORY_FORM["xrefs"])
        xrefs.append(CrossRef(m.group("c1") or m.group("c2"), why))
    head = re.match(r"^Memory:\s*(ch\d{2,})\s*(?:—|–|-)\s*(.*)$", _heading(secs[0]))
    try:
        update = MemoryUpdate(summary, tuple(terms), tuple(metaphors), tuple(xrefs))
    except ValueError as e:
        raise ContractError(str(e), file=file, line=found["summary"].line) from None
    return ParsedMemory(head.group(1) if head else None, head.group(2).strip() if head else "", update,
                        tuple(warnings))


# ---------------------------------------------------------------- the panel file

PANEL_VERDICT_FORM = "`Verdict: ready · score 4/5` (ready or revise, a score from 1 to 5)"
_PANEL_VERDICT_RE = re.compile(r"^\s*verdict\s*[:：]\s*(?P<v>\w+)(?:\s*(?:[·,;(—–-]\s*)?score\s*[:：]?\s*(?P<s>\d+)"
                               r"\s*(?:/\s*5)?\)?)?\s*$", re.I)
_SUGGEST_RE = re.compile(r"^(?:suggestion|help|建议)\s*[:：]\s*(.*)$", re.I)


def _confusion(it: Item) -> Confusion:
    cont = [c for c in it.cont if not _SUGGEST_RE.match(c)]
    suggestion = " ".join(m.group(1) for c in it.cont if (m := _SUGGEST_RE.match(c)))
    text = " ".join([it.head, *cont])
    h = scan_head(text)
    if not (h.terminated and h.tokens and h.message) or h.checks:
        return Confusion(text, quote="\n".join(it.quote), suggestion=suggestion)
    a, b = line_range(h)
    return Confusion(h.message, a, b, "\n".join(it.quote), suggestion)


def parse_panel(text: str, *, file: str = PANEL) -> PanelFeedback:
    secs = sections(strip_marker(text))
    readers = []
    for s in secs[1:]:
        subs = sections("\n".join(t for _, t in s.lines), level=3)
        base = s.line  # sub-section lines are relative to the persona section's body
        subs = [Section(x.title, x.line, [(base + n, t) for n, t in x.lines]) for x in subs]
        verdict = score = None
        for n, t in subs[0].lines:
            m = _PANEL_VERDICT_RE.match(re.sub(r"\*\*|__", "", t))
            if m:
                if m.group("v").lower() not in ("ready", "revise") or not m.group("s") or not 1 <= int(m.group("s")) <= 5:
                    raise ContractError(f"cannot read the verdict line {t.strip()!r}", file=file, line=n,
                                        expected=PANEL_VERDICT_FORM)
                verdict, score = m.group("v").lower(), int(m.group("s"))
        if verdict is None or score is None:
            raise ContractError(f"the reader `{s.title}` has no verdict line", file=file, line=s.line,
                                expected=PANEL_VERDICT_FORM)
        questions: list[str] = []
        confusions: list[Confusion] = []
        # Bullets directly under the persona (today's files) are confusions too.
        pre = Section("", 0, [(n, t) for n, t in subs[0].lines if not _PANEL_VERDICT_RE.match(re.sub(r"\*\*|__", "", t))])
        confusions += [_confusion(it) for it in walk(pre)]
        for sub in subs[1:]:
            if _is(sub.title, "questions", "问题"):
                questions += [" ".join([it.head, *it.cont]) for it in walk(sub)]
            elif _is(sub.title, "confusions", "困惑", "障碍"):
                confusions += [_confusion(it) for it in walk(sub)]
            else:
                raise ContractError(f"unknown sub-section `### {sub.title}`", file=file, line=base + sub.line,
                                    expected="### Questions or ### Confusions")
        readers.append(ReaderFeedback(s.title, verdict, score, tuple(questions), tuple(confusions)))
    if not readers:
        raise ContractError("there is no `## reader` section", file=file, line=1,
                            expected="one `## <persona>` section per reader")
    return PanelFeedback(tuple(readers))


# ---------------------------------------------------------------- the outline

_YAML_BLOCK_RE = re.compile(r"^```ya?ml[^\n]*\n(.*?)^```\s*$", re.S | re.M)


def parse_outline(text: str, *, file: str = OUTLINE, source_files: set[str] | None = None) -> OutlinePlan:
    import yaml

    body = strip_marker(text)
    m = _YAML_BLOCK_RE.search(body)
    if not m:
        raise ContractError("no ```yaml block with the chapters", file=file, line=1,
                            expected="the fenced yaml block of the outline")
    base = body.count("\n", 0, m.start(1))
    try:
        data = yaml.safe_load(m.group(1))
    except yaml.YAMLError as e:
        from ..text.yaml_lines import error_line

        raise ContractError(f"the yaml block is not valid YAML: {getattr(e, 'problem', None) or e}", file=file,
                            line=base + (error_line(e, m.group(1)) or 0)) from None
    if not isinstance(data, dict):
        raise ContractError("the yaml block must be a mapping with `title` and `chapters`", file=file, line=base + 1)
    pre = body[: m.start()].split("\n")
    if pre and pre[0].startswith("# "):
        pre = pre[1:]
    intro = "\n".join(pre).strip()
    intro = intro.removesuffix(EDIT_HINT).strip()
    try:
        return OutlinePlan.from_json({**data, "intro": intro}, source_files=source_files)
    except ContractError as e:
        raise ContractError(e.problem, file=file, line=base + 1, path=e.path, expected=e.expected) from None
