"""The book's quality measured by itself (issue 24 item 6), computed from the final chapters, their
claims and the source, without a model: the audit prints these figures and `book scan --json`
shows them, so they are never a model's words.

- claim health: the claims of the finals (the recorded `claims/chNN.json` when it was made from the
  final as it is, else built from the text) that are supported at the source as it is now;
- citation coverage: the claim paragraphs (prose that names code) that carry a citation, and the
  citations that resolve (file, lines, and the names their sentence gives within those lines, as R1
  checks them);
- teaching: of the repository map's top-ranked symbols, those the book teaches. A symbol is taught
  when a chapter's prose names it in code (a code span giving its name, qualified or bare, in a
  paragraph or a list; not in a table, a heading or a diagram), or a chapter quotes its definition
  (a `file=` block of its file whose `lines=` overlap the definition, or, without `lines=`, whose
  code holds its name). A table row alone is a lookup entry, not teaching;
- diagrams: the Mermaid blocks that parse and whose every name is a file or definition of the
  source (checks.diagrams, R1's own rules, handed in).

Explicit inputs only (texts, claims documents, the ranked symbols, the checkers); no Book."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path, PurePosixPath

from ..text.markdown import SPAN_RE, code_blocks
from . import claims as claims_mod
from .cite import blocks, code_name, last_part
from .resolve import SourceFiles, citation_problem, claim_problem, sentence_calls
from .revision import Revision

TOP_SYMBOLS = 20  # the map's best ranked definitions a book is measured against
VERSION = 1  # of the figures' meaning: a change makes every audit's figures stale


@dataclass(frozen=True)
class Symbol:
    """One ranked definition of the repository map."""

    rel: str
    name: str
    qualified: str
    first: int
    last: int


@dataclass
class Quality:
    claims_supported: int = 0
    claims_all: int = 0
    claim_paragraphs: int = 0
    claim_paragraphs_cited: int = 0
    citations: int = 0
    citations_resolving: int = 0
    top_symbols: int = 0
    top_taught: int = 0
    diagrams: int = 0
    diagrams_valid: int = 0
    chapters: int = 0
    untaught: list[str] = field(default_factory=list)  # the top symbols no chapter teaches, best first
    invalid_diagrams: list[str] = field(default_factory=list)  # "ch03 line 40: why"
    unresolved: list[str] = field(default_factory=list)  # "ch03 line 12: why" (the first few)

    def as_dict(self) -> dict:
        d = asdict(self)
        d["shares"] = {"claims": _share(self.claims_supported, self.claims_all),
                       "cited": _share(self.claim_paragraphs_cited, self.claim_paragraphs),
                       "resolving": _share(self.citations_resolving, self.citations),
                       "taught": _share(self.top_taught, self.top_symbols),
                       "diagrams": _share(self.diagrams_valid, self.diagrams)}
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Quality:
        known = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        return cls(**known)


def _share(part: int, whole: int) -> float:
    return round(part / whole, 3) if whole else 1.0


def measure(finals: dict[str, str], source_dir: Path, *, claims: dict[str, dict | None], revision: Revision,
            top: list[Symbol], diagram_problems: Callable[[str], list[tuple[int, str]]],
            files: SourceFiles | None = None) -> Quality:
    """The figures of the book made of `finals` (chapter -> text without its marker). `claims`:
    chapter -> its recorded claims document when it was made from that very text (else None: built
    here, not written). `top`: the map's best ranked definitions, best first. `diagram_problems(code)`:
    what is wrong with one Mermaid block, by R1's rules (checks.diagrams.diagram_problems)."""
    q = measure_evidence(finals, source_dir, claims=claims, revision=revision, files=files)
    q.top_symbols = len(top)
    for ch, md in finals.items():
        _diagrams(ch, md, diagram_problems, q)
    taught = _taught(finals, top)
    q.top_taught = len(taught)
    q.untaught = [s.qualified for s in top if s not in taught]
    return q


EVIDENCE_FIELDS = ("claims_supported", "claims_all", "claim_paragraphs", "claim_paragraphs_cited", "citations",
                   "citations_resolving", "unresolved")


def measure_evidence(finals: dict[str, str], source_dir: Path, *, claims: dict[str, dict | None],
                     revision: Revision, files: SourceFiles | None = None) -> Quality:
    """The figures that need no repository map (claim health, citation coverage; EVIDENCE_FIELDS):
    what a scan can measure again when the source moved (state.quality_view)."""
    files = files or SourceFiles(source_dir)
    q = Quality(chapters=len(finals))
    for ch, md in finals.items():
        doc = claims.get(ch) or claims_mod.build(ch, md, source_dir, revision, files)
        health = claims_mod.summary(claims_mod.health(doc, source_dir, files))
        q.claims_supported += health["supported"]
        q.claims_all += sum(health.values())
        _citations(ch, md, files, q)
    return q


def with_evidence(q: Quality, ev: Quality) -> Quality:
    """`q` with the map-free figures of `ev` (measured since)."""
    return replace(q, **{k: getattr(ev, k) for k in EVIDENCE_FIELDS})


def _citations(ch: str, md: str, files: SourceFiles, q: Quality) -> None:
    for b in blocks(md):
        if b.is_claim:
            q.claim_paragraphs += 1
            q.claim_paragraphs_cited += bool(b.cites)
        bad: set[int] = set()  # the citations of this block that do not resolve (by offset)
        for c in b.cites:
            why = citation_problem(c, files)
            if why:
                bad.add(c.start)
                if len(q.unresolved) < 10:
                    q.unresolved.append(f"{ch} line {c.line}: [{c.label}] {why}")
        for s in b.sentences:
            if s.cites and claim_problem(s.names, sentence_calls(s.text), s.cites, files):
                for c in s.cites:
                    if c.start not in bad and len(q.unresolved) < 10:
                        q.unresolved.append(f"{ch} line {c.line}: [{c.label}] does not show what its sentence names")
                bad |= {c.start for c in s.cites}
        q.citations += len(b.cites)
        q.citations_resolving += sum(1 for c in b.cites if c.start not in bad)


def _diagrams(ch: str, md: str, diagram_problems: Callable[[str], list[tuple[int, str]]], q: Quality) -> None:
    for b in code_blocks(md):
        if b.lang.lower() != "mermaid":
            continue
        q.diagrams += 1
        problems = diagram_problems(b.code)
        if problems:
            if len(q.invalid_diagrams) < 10:
                q.invalid_diagrams.append(f"{ch} line {b.line}: {problems[0][1]}")
        else:
            q.diagrams_valid += 1


def _prose_names(md: str) -> set[str]:
    """The names chapters give in code in their prose: paragraphs and lists, not tables (a line
    starting with `|`), headings or code (cite.blocks leaves those out)."""
    out: set[str] = set()
    for b in blocks(md):
        if b.quote:
            continue
        for line in b.text.split("\n"):
            if line.lstrip().startswith("|"):
                continue
            for m in SPAN_RE.finditer(line):
                n = code_name(m.group(2))
                if n:
                    out.add(re.sub(r"::|->|#", ".", n))
    return out


def _taught(finals: dict[str, str], top: list[Symbol]) -> set[Symbol]:
    names: set[str] = set()
    quoted: list[tuple[str, tuple[int, int] | None, str]] = []
    for md in finals.values():
        names |= _prose_names(md)
        quoted += [(b.file.removeprefix("./"), b.lines, b.code) for b in code_blocks(md) if b.file]
    # `Table.insert`, `tinydb.table.Table.insert`, `wal.append`, `chi.NewRouter`: (owner, name) pairs
    pairs = {(p[-2], p[-1]) for n in names if len(p := n.split(".")) >= 2}
    out = set()
    for s in top:
        qual = s.qualified.replace("::", ".").split(".")
        path = PurePosixPath(s.rel)
        # its owner: the class that holds it, or its module (the file's stem, its package's directory)
        owners = {qual[-2]} if len(qual) >= 2 else {path.stem, path.parent.name}
        if s.name in names or ".".join(qual) in names or any((o, s.name) in pairs for o in owners if o):
            out.add(s)
            continue
        for rel, lines, code in quoted:
            if rel != s.rel:
                continue
            if lines is not None and lines[0] <= s.last and s.first <= lines[1]:
                out.add(s)
                break
            if lines is None and re.search(rf"(?<![\w$]){re.escape(last_part(s.name))}(?![\w$])", code):
                out.add(s)
                break
    return out


# ------------------------------------------------------------------ rendering

TEXT = {
    "en": {"heading": "## Quality", "intro": "Measured by the tool from the final chapters and the source, not by a model:",
           "claims": "claims supported at the source as it is", "cited": "claim paragraphs that cite the source",
           "resolving": "citations that resolve", "taught": "of the map's {n} top-ranked symbols, taught",
           "diagrams": "diagrams that render and name only the source", "untaught": "Top-ranked symbols not taught",
           "invalid": "Diagrams that fail", "unresolved": "Citations that do not resolve", "none": "none"},
    "zh": {"heading": "## 质量", "intro": "由工具根据定稿章节和源码计算得出，而非模型给出：",
           "claims": "在当前源码下成立的论断", "cited": "引用了源码的论断段落",
           "resolving": "可解析的引用", "taught": "仓库图排名前 {n} 的符号中，书中讲解的",
           "diagrams": "能渲染且只含源码名称的图", "untaught": "未讲解的高排名符号",
           "invalid": "有问题的图", "unresolved": "无法解析的引用", "none": "无"},
}


def _figure(part: int, whole: int) -> str:
    return f"{part}/{whole} ({part / whole:.0%})" if whole else f"{part}/{whole} (—)"


def render(q: Quality, language: str = "en") -> str:
    """The audit's `## Quality` section (its words in the book's language, the figures the same)."""
    t = TEXT["zh" if language == "zh" else "en"]
    colon, comma = ("：", "、") if language == "zh" else (": ", ", ")  # one language's punctuation at a time
    out = [t["heading"], "", t["intro"], "",
           f"- {t['claims']}{colon}{_figure(q.claims_supported, q.claims_all)}",
           f"- {t['cited']}{colon}{_figure(q.claim_paragraphs_cited, q.claim_paragraphs)}",
           f"- {t['resolving']}{colon}{_figure(q.citations_resolving, q.citations)}",
           f"- {t['taught'].format(n=q.top_symbols)}{colon}{_figure(q.top_taught, q.top_symbols)}",
           f"- {t['diagrams']}{colon}{_figure(q.diagrams_valid, q.diagrams)}"]
    for key, items in (("untaught", [f"`{n}`" for n in q.untaught]), ("invalid", q.invalid_diagrams),
                       ("unresolved", q.unresolved)):
        if items:
            out += ["", f"{t[key]}{colon}" + comma.join(items[:10]) + (" …" if len(items) > 10 else "")]
    return "\n".join(out) + "\n"


def with_quality(body: str, q: Quality, language: str = "en") -> str:
    """The audit's body with the tool's quality section (replacing one a model or an older run
    wrote: the figures are the tool's alone), before the completion marker is added."""
    section = render(q, language)
    heads = [TEXT[k]["heading"] for k in TEXT]
    lines = body.rstrip("\n").split("\n")
    start = next((i for i, ln in enumerate(lines) if ln.strip() in heads), None)
    if start is not None:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        lines = lines[:start] + lines[end:]
    text = "\n".join(lines).rstrip("\n")
    return text + "\n\n" + section
