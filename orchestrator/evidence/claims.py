"""A chapter's claims as data beside it (`output/memory/claims/chNN.json`, a derived file: a pure
function of the chapter's text and the source, written by the write protocol), and their health
when the source has moved on: each claim is *supported* (its cited lines unchanged, moved, or
changed and still holding every name it gives), *stale* (its evidence changed and no longer
holds what it names) or *gone* (the file removed, or a name it gives is nowhere in the cited files).

Evidence is recorded as the hashes of the cited lines, one per line, so that a range that moved
is found again (a line-level alignment, as a diff does) without the old file: the openwiki idea of
a version of the evidence that survives line shifts."""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from .cite import Citation, blocks, last_part
from .resolve import SourceFiles, claim_problem, occurs, resolve, sentence_calls
from .revision import Revision

CLAIMS_DIR = "output/memory/claims"
_FENCE_LINES_RE = re.compile(r"^([ \t]*(?:`{3,}|~{3,})[^\n]*?\s)file=(\S+) lines=(\d+)(?:-(\d+))?", re.M)
VERSION = 1


def claims_path(ch: str) -> str:
    return f"{CLAIMS_DIR}/{ch}.json"


def _h(line: str) -> str:
    return hashlib.sha256(line.rstrip().encode("utf-8", "surrogateescape")).hexdigest()[:8]


def _range_hash(lines: list[str]) -> str:
    return hashlib.sha256("\n".join(ln.rstrip() for ln in lines).encode("utf-8", "surrogateescape")).hexdigest()[:16]


def build(ch: str, md: str, root: Path, revision: Revision, files: SourceFiles | None = None) -> dict:
    """The claims document of a chapter: every sentence that carries a citation, with the names
    it gives and its evidence (path, lines, a hash of the cited lines and one per line)."""
    files = files or SourceFiles(root)
    _probs, _uncited, cov = resolve(md, root, files)
    evidence: dict[str, dict] = {}
    claims = []
    for b in blocks(md):
        for s in b.sentences:
            if not s.cites:
                continue
            refs = []
            for c in s.cites:
                refs.append(c.ref)
                if c.ref in evidence:
                    continue
                lines = files.lines(c.path)
                cited = lines[c.first - 1:c.last] if not isinstance(lines, str) else []
                evidence[c.ref] = {"path": c.path, "first": c.first, "last": c.last,
                                   "hash": _range_hash(cited) if cited else None, "lines": [_h(x) for x in cited]}
                if not isinstance(lines, str) and (unit := _unit_of(c.path, c.first, c.last, lines)):
                    evidence[c.ref]["unit"] = unit
            claim = {"section": b.section, "line": s.line, "text": s.text[:400], "names": s.names, "evidence": refs}
            if calls := sentence_calls(s.text):
                claim["calls"] = [list(x) for x in calls]
            claims.append(claim)
    for line, section, path, a, z, code in _quotes(md):  # code quoted with its lines: evidence too
        ref = f"q:{path}#L{a}-L{z}"
        if ref not in evidence:
            pieces = _pieces(code)
            lines = files.lines(path)
            found = _match(pieces, [] if isinstance(lines, str) else lines)
            head, tail = (found[0] - a, z - found[1]) if found else (0, 0)
            evidence[ref] = {"path": path, "first": a, "last": z, "quote": pieces, "head": max(0, head),
                             "tail": max(0, tail), "hash": _range_hash(code.split("\n")), "lines": []}
        first = next((x for x in code.split("\n") if x.strip()), "")
        claims.append({"kind": "quote", "section": section, "line": line, "text": first[:400], "names": [],
                       "evidence": [ref]})
    doc = {"version": VERSION, "chapter": ch, "revision": revision.as_dict(), "coverage": cov.as_dict(),
           "claims": claims, "evidence": evidence}
    # what does not hold at the very revision it is recorded at (a person's final quoting code that
    # changed): kept with the claim, so that the claim stays stale until the text changes
    for claim, now in zip(claims, health(doc, root, files)):
        if now["status"] != "supported":
            claim["held"] = now["status"]
    return doc


_ELISIONS = {"...", "# ...", "// ...", "…", "# …", "/* ... */"}


def _pieces(code: str) -> list[list[str]]:
    """The runs of a quote's lines between elisions, each line's hash stripped (blank lines do not count)."""
    out: list[list[str]] = [[]]
    for ln in code.split("\n"):
        if ln.strip() in _ELISIONS:
            out.append([])
        elif ln.strip():
            out[-1].append(_h(ln.strip()))
    return [p for p in out if p]


def _match(pieces: list[list[str]], lines: list[str]) -> tuple[int, int] | None:
    """(first, last) line of the pieces found in order, each contiguous among the non-blank lines."""
    src = [(n, _h(x.strip())) for n, x in enumerate(lines, 1) if x.strip()]
    hs = [h for _, h in src]
    pos, first, last = 0, 0, 0
    for piece in pieces:
        k = len(piece)
        i = next((i for i in range(pos, len(hs) - k + 1) if hs[i] == piece[0] and hs[i:i + k] == piece), None)
        if i is None:
            return None
        first = first or src[i][0]
        last, pos = src[i + k - 1][0], i + k
    return (first, last) if pieces else None


def _quotes(md: str) -> list[tuple[int, str, str, int, int, str]]:
    """(line, section, path, first, last, its code) of each code block quoting the source."""
    from ..text.markdown import scan_fences

    blocks_, lines, in_code = scan_fences(md)
    heads: list[tuple[int, str]] = [(i + 1, ln[3:].strip()) for i, ln in enumerate(lines)
                                    if ln.startswith("## ") and not in_code[i]]
    out = []
    for b in blocks_:
        if b.file and b.lines and ".." not in b.file.split("/") and not b.file.startswith("/"):
            section = next((t for n, t in reversed(heads) if n < b.line), "")
            out.append((b.line, section, b.file.removeprefix("./"), b.lines[0], b.lines[1], b.code))
    return out


def render(doc: dict) -> str:
    return json.dumps(doc, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def load(path: Path) -> dict | None:
    """A claims document, or None when there is none or it cannot be read (it is derived: the
    next run writes it again)."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("version") != VERSION or not isinstance(doc.get("evidence"), dict):
        return None
    return doc


@dataclass(frozen=True)
class Moved:
    """Where a piece of evidence is in the tree now."""

    status: str  # unchanged | moved | changed | gone
    first: int = 0
    last: int = 0


def locate(ev: dict, files: SourceFiles) -> Moved:
    """Where recorded evidence is now: the same lines (unchanged), the same lines elsewhere
    (moved), the lines that took their place (changed), or nowhere (the file is gone)."""
    lines = files.lines(ev["path"])
    if isinstance(lines, str):
        return Moved("gone")
    if "quote" in ev:  # quoted code: where its pieces are now, with the lines declared around them
        found = _match(ev["quote"], lines)
        if found is None:
            return Moved("changed", min(ev["first"], len(lines)), min(ev["last"], len(lines)))
        a, b = max(1, found[0] - ev["head"]), min(len(lines), found[1] + ev["tail"])
        return Moved("unchanged" if (a, b) == (ev["first"], ev["last"]) else "moved", a, b)
    old = ev.get("lines") or []
    a, b = ev["first"], ev["last"]
    now = [_h(x) for x in lines]
    if now[a - 1:b] == old and old:
        return Moved("unchanged", a, b)
    if not old:
        return Moved("changed", min(a, len(lines)), min(b, len(lines)))
    if ev.get("unit"):  # the definition it points at, wherever it is now: the same unit, its new lines
        at = _unit_now(ev["path"], ev["unit"], lines)
        if at is not None:
            return Moved("moved" if now[at[0] - 1:at[1]] == old else "changed", at[0], at[1])
    # the same lines elsewhere: of several places (a one-line `self._check_open()` is written in every method), the
    # nearest to where they were
    copies = [i for i in range(len(now) - len(old) + 1) if now[i] == old[0] and now[i:i + len(old)] == old]
    if copies:
        near = min(copies, key=lambda i: abs(i + 1 - a))
        return Moved("moved", near + 1, near + len(old))
    sm = difflib.SequenceMatcher(None, old, now, autojunk=False)
    blocks_ = [m for m in sm.get_matching_blocks() if m.size]
    if not blocks_:
        return Moved("changed", min(a, len(lines)), min(b, len(lines))) if lines else Moved("gone")
    # the new range: from where the first matched old line went, to where the last one went
    first = blocks_[0].b - blocks_[0].a + 1
    last = blocks_[-1].b + blocks_[-1].size + (len(old) - blocks_[-1].a - blocks_[-1].size)
    first, last = max(1, first), min(len(lines), max(last, first))
    return Moved("changed", first, last)


def _definitions(path: str, lines: list[str]) -> list:
    return _parsed(path, "\n".join(lines) + "\n")


@functools.lru_cache(maxsize=64)
def _parsed(path: str, text: str) -> list:
    """A file's definitions (parsed once per text: a chapter cites one file many times)."""
    from ..repo.languages import language_for_path
    from ..repo.parse import parse_source

    lang = language_for_path(path)
    if not lang:
        return []
    from ..repo.commonjs import named_by_file

    return named_by_file(path, parse_source(text, lang)).definitions


def _unit_of(path: str, first: int, last: int, lines: list[str]) -> dict | None:
    """The definition a cited range is (its whole lines, or its first `size` lines: a class's
    header), recorded so that the range follows the definition when the source moves."""
    defs = _definitions(path, lines)
    for d in defs:
        if d.start_line == first and d.end_line >= last:
            same = [x for x in defs if x.qualified_name == d.qualified_name]
            if len(same) == 1:
                return {"name": d.qualified_name, "whole": d.end_line == last, "size": last - first + 1}
    return None


def _unit_now(path: str, unit: dict, lines: list[str]) -> tuple[int, int] | None:
    same = [d for d in _definitions(path, lines) if d.qualified_name == unit.get("name")]
    if len(same) != 1:
        return None  # gone, or no longer one definition: the lines' own alignment decides
    d = same[0]
    return (d.start_line, d.end_line) if unit.get("whole") else \
        (d.start_line, min(d.end_line, d.start_line + int(unit.get("size", 1)) - 1))


def health(doc: dict, root: Path, files: SourceFiles | None = None) -> list[dict]:
    """Each claim with its status now (supported | stale | gone) and where its evidence is."""
    files = files or SourceFiles(root)
    where = {ref: locate(ev, files) for ref, ev in doc["evidence"].items()}
    out = []
    for c in doc.get("claims", []):
        evs = [where[r] for r in c.get("evidence", []) if r in where]
        paths = [doc["evidence"][r]["path"] for r in c.get("evidence", []) if r in where]
        if not evs or all(m.status == "gone" for m in evs):
            status = "gone"
        elif c.get("kind") == "quote":  # quoted code is supported only while it is in the source as quoted
            status = "supported" if all(m.status in ("unchanged", "moved") for m in evs) else "stale"
        else:
            # the same test as R1's (resolve.claim_problem), on the lines the evidence is at now
            now = [Citation(0, p, m.first, m.last, "") for m, p in zip(evs, paths) if m.status != "gone"]
            names = c.get("names", [])
            if claim_problem(names, [tuple(x) for x in c.get("calls", [])], now, files) is None:
                status = "supported"
            else:
                whole = "\n".join("\n".join(ls) for p in set(paths) if not isinstance(ls := files.lines(p), str))
                status = "gone" if any(not occurs(n, whole) for n in names) else "stale"
        out.append({**c, "status": status, "now": {r: (where[r].status, where[r].first, where[r].last)
                                                     for r in c.get("evidence", []) if r in where}})
    return out


def summary(checked: list[dict]) -> dict[str, int]:
    out = {"supported": 0, "stale": 0, "gone": 0}
    for c in checked:
        out[c["status"]] += 1
    return out


def moved_citations(doc: dict, root: Path, files: SourceFiles | None = None) -> dict[str, tuple[int, int]]:
    """ref -> its new lines, for evidence that moved (and prose evidence that changed: the lines
    that took its place), the citations to rewrite at a new revision without asking a model; called
    only when every claim of the chapter is supported."""
    files = files or SourceFiles(root)
    out = {}
    for ref, ev in doc["evidence"].items():
        m = locate(ev, files)
        if m.status == "moved" or (m.status == "changed" and "quote" not in ev):
            out[ref] = (m.first, m.last)  # a changed range of a supported claim: the lines that took its place
    return out


def retarget(md: str, moves: dict[str, tuple[int, int]]) -> str:
    """The chapter with each moved citation pointing at the lines' new place (its label too, when
    the label is the default `path:a-b`)."""
    from urllib.parse import unquote

    from .cite import CITE_RE, citation_link

    def fence(m) -> str:
        ref = f"q:{m.group(2).removeprefix('./')}#L{m.group(3)}-L{m.group(4) or m.group(3)}"
        if ref not in moves:
            return m.group(0)
        a, b = moves[ref]
        return f"{m.group(1)}file={m.group(2)} lines={a}-{b}"

    md = _FENCE_LINES_RE.sub(fence, md)

    def sub(m) -> str:
        c = Citation(0, unquote(m.group(2)).removeprefix("./"), int(m.group(3)), int(m.group(4) or m.group(3)), m.group(1))
        if c.ref not in moves:
            return m.group(0)
        a, b = moves[c.ref]
        default = f"{c.path}:{c.first}" + (f"-{c.last}" if c.last > c.first else "")
        return citation_link(c.path, a, b, None if c.label == default else c.label)

    return CITE_RE.sub(sub, md)


__all__ = ["CLAIMS_DIR", "build", "claims_path", "health", "last_part", "load", "locate", "moved_citations",
           "render", "retarget", "summary"]
