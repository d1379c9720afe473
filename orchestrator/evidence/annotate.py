"""Citations written from the repository map: every paragraph of a chapter that names code and
cites nothing gets, at the end of each sentence that names code, a citation of the lines that
show what it names — the definition of the section it is in when that holds every name, else
the definitions of the names themselves. A citation is only written when it resolves (the
names occur in the cited lines, read through the same reader R1 uses); a sentence that cannot
be backed is left as it is, for R1 to report."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .cite import CITE_RE, Citation, Sentence, blocks, citation_link, last_part
from .resolve import SourceFiles, occurs

MAX_PER_SENTENCE = 3
_MOD_DECL_RE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*;")
MAX_SPAN = 120  # lines: a longer citation is a whole class or module, too coarse to check a sentence against
_DOC_LINE_RE = re.compile(r"^\s*(?://|/\*|\*|#(?![!\[]|include|define|if|else|end|pragma)|--|;;)")


@dataclass(frozen=True)
class Def:
    """A definition the map knows: its name as written (`Store.get`), file and lines."""

    name: str
    path: str
    first: int
    last: int
    code: bool = True  # the project's code, not a test or an example (whose definitions back a name last)


def _with_doc(lines: list[str], d: Def) -> Def:
    """The definition with the comment lines right above it (a Go, JS, Java or C doc comment)."""
    a = d.first
    if a > 2 and not lines[a - 2].strip() and _DOC_LINE_RE.match(lines[a - 3]):
        a -= 1  # one blank line between a doc comment and its definition (express's JSDoc)
    while a > 1 and _DOC_LINE_RE.match(lines[a - 2]) and lines[a - 2].strip():
        a -= 1
    return Def(d.name, d.path, a, d.last)


class Citer:
    def __init__(self, root: Path, defs: Iterable[Def], files: SourceFiles | None = None):
        self.files = files or SourceFiles(root)
        self.by_part: dict[str, list[Def]] = {}
        self.by_name: dict[str, Def] = {}
        self.by_path: dict[str, list[Def]] = {}
        for d in defs:
            self.by_part.setdefault(last_part(d.name), []).append(d)
            self.by_name.setdefault(d.name, d)
            self.by_name.setdefault(d.name.replace("::", "."), d)
            self.by_path.setdefault(d.path, []).append(d)
        for ds in self.by_path.values():
            ds.sort(key=lambda d: (d.first, -d.last))

    def _text(self, d: Def) -> str:
        lines = self.files.lines(d.path)
        if isinstance(lines, str) or d.last > len(lines) or d.first < 1:
            return ""
        return "\n".join(lines[d.first - 1:d.last])

    def _ranges(self, d: Def) -> list[Def]:
        lines = self.files.lines(d.path)
        if isinstance(lines, str):
            return []
        wide = _with_doc(lines, d)
        return [d] if wide == d else [d, wide]

    def _declared_only(self, d: Def) -> bool:
        """A line that only declares a name defined elsewhere (Rust's `mod query;`): not its code."""
        return d.first == d.last and bool(_MOD_DECL_RE.match(self._text(d)))

    def candidates(self, name: str) -> list[Def]:
        """Definitions that may back a name: its own (qualified match first), smallest first."""
        exact = self.by_name.get(name) or self.by_name.get(name.replace("::", "."))
        part = last_part(name)
        rest = sorted(self.by_part.get(part, []), key=lambda d: (not name.endswith(d.name.split(".")[-1]), not d.code,
                                                                 d.last - d.first, d.path, d.first))
        out = ([exact] if exact else []) + [d for d in rest if d is not exact]
        return [d for d in out if not self._declared_only(d)][:6]

    def nested(self, d: Def) -> list[Def]:
        """The definitions inside `d` (its methods, a function's inner functions)."""
        return [x for x in self.by_path.get(d.path, ()) if d.first <= x.first and x.last <= d.last and x != d
                and (x.first, x.last) != (d.first, d.last)]

    def unit(self, d: Def) -> Def:
        """The lines that show `d` itself: the whole definition when it is short, else its header,
        doc and fields, up to its first nested definition (a class's 1400 lines are not evidence
        of what the class is)."""
        if d.last - d.first + 1 <= MAX_SPAN:
            return d
        inner = self.nested(d)
        lines = self.files.lines(d.path)
        if not inner:  # a Go struct's 200 lines of fields, a long function: its header and first paragraph
            if isinstance(lines, str) or d.last > len(lines):
                return d
            blank = next((k for k in range(d.first + 2, d.last) if not lines[k - 1].strip()), d.last + 1)
            return Def(d.name, d.path, d.first, min(blank - 1, d.first + MAX_SPAN - 1))
        end = min(x.first for x in inner) - 1
        if not isinstance(lines, str):
            while end > d.first and _DOC_LINE_RE.match(lines[end - 1]) or end > d.first and not lines[end - 1].strip():
                end -= 1  # the first method's doc comment and decorators' blank lines belong to it
            while end > d.first and lines[end - 1].lstrip().startswith("@"):
                end -= 1
            if end - d.first + 1 > MAX_SPAN:  # a long doc (flask's 140 lines): the header and its first paragraph
                blank = next((k for k in range(d.first + 2, end) if not lines[k - 1].strip()), end + 1)
                end = min(blank - 1, d.first + MAX_SPAN - 1)
        return Def(d.name, d.path, d.first, max(d.first, end))

    def smallest_holding(self, within: Def, names: list[str]) -> Def | None:
        """The smallest definition inside `within` (or the unit of `within` itself) whose lines
        hold every name; one longer than MAX_SPAN narrowed to the lines that show them."""
        pool = [r for u in [self.unit(within)] + self.nested(within) for r in self._ranges(u)]  # with doc comments
        fits = [u for u in pool if all(occurs(n, self._text(u)) for n in names)]
        small = [u for u in fits if u.last - u.first + 1 <= MAX_SPAN]
        if small:
            return min(small, key=lambda u: (u.last - u.first, u.first))
        for u in sorted(fits, key=lambda u: (u.last - u.first, u.first)) + [within]:
            w = self.window(u, names)
            if w is not None:
                return w
        return None

    def window(self, d: Def, names: list[str]) -> Def | None:
        """The fewest lines of `d` that hold every name (the lines of a call, not the function
        around it), when they are at most MAX_SPAN; None otherwise."""
        lines = self.files.lines(d.path)
        if isinstance(lines, str) or d.last > len(lines):
            return None
        hits = [(i, k) for i in range(d.first, d.last + 1) for k, n in enumerate(names) if occurs(n, lines[i - 1])]
        best: tuple[int, int] | None = None
        need, lo = len(names), 0
        have: dict[int, int] = {}
        for hi in range(len(hits)):  # a sliding window over the occurrences, as in "minimum window substring"
            have[hits[hi][1]] = have.get(hits[hi][1], 0) + 1
            while len(have) == need:
                a, b = hits[lo][0], hits[hi][0]
                if best is None or b - a < best[1] - best[0]:
                    best = (a, b)
                have[hits[lo][1]] -= 1
                if not have[hits[lo][1]]:
                    del have[hits[lo][1]]
                lo += 1
        if best is None or best[1] - best[0] + 1 > MAX_SPAN:
            return None
        return Def(d.name, d.path, best[0], best[1])

    def own(self, name: str) -> Def | None:
        """The definition a name names itself (`Flask`, `Flask.wsgi_app`, `wsgi_app`) when only one
        definition is named so, or None."""
        part = last_part(name)
        exact = [d for d in self.by_part.get(part, []) if d.name in (name, name.replace("::", "."))
                 and not self._declared_only(d)]
        if len({(d.path, d.first) for d in exact}) > 1:
            exact = [d for d in exact if d.code]  # `serve` of the library, not an example's own `serve`
        if len({(d.path, d.first) for d in exact}) == 1:
            return exact[0]
        same = [d for d in self.by_part.get(part, []) if last_part(d.name) == part and not self._declared_only(d)]
        same = [d for d in same if d.code] or same
        return same[0] if len({(d.path, d.first) for d in same}) == 1 else None

    def placed(self, name: str, places: list[tuple[str, int]]) -> Def | None:
        """The definition of `name` in a file the sentence names (a reference table's row
        "| `header` | method | `lib/request.js`:35 |"), at the line it gives when it gives one:
        `header` is then request.js's, never response.js's of the same name."""
        part = last_part(name)
        ds = [d for d in self.by_part.get(part, []) if any(d.path == f for f, _ in places) and not self._declared_only(d)]
        at = [d for d in ds if any(d.path == f and d.first <= n <= d.last for f, n in places if n)]
        # (`HTTParty::get` is the module's own `get`, not `HTTParty::ClassMethods#get` of the same file)
        exact = [d for d in ds if d.name in (name, name.replace("::", "."))]
        pick = at or exact or ds
        return min(pick, key=lambda d: (d.last - d.first, d.first)) if pick else None

    def back(self, names: list[str], home: Def | None, places: list[tuple[str, int]] | None = None) -> list[Def] | None:
        """Ranges whose lines hold every name (at most MAX_PER_SENTENCE), or None: the unit that
        shows each claim, not the class around it (issue 34). A sentence about two names ("`X`
        calls `Y`") cites the smallest definition that holds both, X's own first; a name that is a
        definition cites that definition (a long one by its header); another name, the smallest
        definition of the section's subject that holds it."""
        chosen: list[Def] = []
        left = list(names)
        if len(left) >= 2:
            first = self.own(left[0])
            for scope in [x for x in (first, home) if x is not None]:
                hit = self.smallest_holding(scope, left)
                if hit is not None:
                    return [self._with_own_doc(hit, left)]
            if first is not None:  # X too long to show whole: its head, and the lines of X that use the others
                inner = self.smallest_holding(first, left[1:])
                head = next((r for r in self._ranges(self.unit(first)) if occurs(left[0], self._text(r))), None)
                if inner is not None and head is not None and (inner.first, inner.last) != (head.first, head.last):
                    return [head, inner]
        for n in list(left):
            if n not in left:
                continue
            hit = None
            d = (self.placed(n, places) if places else None) or self.own(n)
            if d is not None:
                hit = next((r for r in self._ranges(self.unit(d)) if occurs(n, self._text(r))), None)
            if hit is None and home is not None:
                hit = self.smallest_holding(home, [n])
            if hit is None:
                for d in self.candidates(n):
                    hit = next((r for r in self._ranges(self.unit(d)) if occurs(n, self._text(r))), None) or \
                        self.smallest_holding(d, [n])
                    if hit is not None:
                        break
            if hit is None:
                return None
            chosen.append(hit)
            t = self._text(hit)
            left = [m for m in left if not occurs(m, t)]
        if left or not chosen or len(chosen) > MAX_PER_SENTENCE:
            return None
        return chosen

    def _with_own_doc(self, d: Def, names: list[str]) -> Def:
        return next((r for r in self._ranges(d) if all(occurs(n, self._text(r)) for n in names)), d)


def _home(section: str, text: str, citer: Citer) -> Def | None:
    """The definition a block is about: the term it defines (`**Record**: ...`), else the first name
    in code its section's heading gives (`## `Store``, `## How `decode` does its work`)."""
    for m in (re.match(r"\s*\*\*`?([A-Za-z_$][\w$.:]*)`?\*\*", text), re.search(r"`([^`]+)`", section)):
        if m and (d := citer.own(m.group(1)) or next(iter(citer.candidates(m.group(1))), None)):
            return d
    return None


_PLACE_RE = re.compile(r"`([\w.$/-]+\.[A-Za-z]\w*)`(?::(\d+))?")


def _places(text: str) -> list[tuple[str, int]]:
    """The files (and lines) a sentence names as places: "`lib/request.js`:35", "in `_api.py`"."""
    return [(m.group(1), int(m.group(2) or 0)) for m in _PLACE_RE.finditer(text)]


def _insert_at(text: str, s: Sentence, start: int) -> int:
    """Where a citation goes in the block: before the sentence's closing stop (so that it belongs
    to that sentence), else at its end."""
    end = start + len(s.text)
    stripped = text[start:end].rstrip()
    end = start + len(stripped)
    if stripped and stripped[-1] in ".:;。：；!?！？|":  # a table row's: inside its last cell
        return end - 1
    return end


def cite(md: str, citer: Citer) -> str:
    """The chapter with citations added to the claim paragraphs that have none."""
    lines = md.split("\n")
    edits: list[tuple[int, str]] = []  # (line index, new text) of blocks rewritten
    before: list[tuple[str, int]] = []  # the files the paragraph before names ("… in `tests/test_client.py`:")
    for b in blocks(md):
        near, before = before, _places(b.text)
        if not b.is_claim or b.cites:
            continue
        home = _home(b.section, b.text, citer)
        text = b.text
        inserts: list[tuple[int, str]] = []
        pos = 0
        for s in b.sentences:
            start = text.find(s.text, pos)
            if start < 0:
                continue
            pos = start + len(s.text)
            if not s.names:
                continue
            # a test named after its example ("The test here is `test_build_request`") is the one in the
            # file the example came from, not a namesake in test_async_client.py
            rs = citer.back(s.names, home, _places(s.text) or near)
            if not rs:
                continue
            link = " " + " ".join("(" + citation_link(r.path, r.first, r.last) + ")" for r in rs)
            inserts.append((_insert_at(text, s, start), link))
        if not inserts:
            continue
        for at, link in sorted(inserts, reverse=True):
            text = text[:at] + link + text[at:]
        edits.append((b.first - 1, text))
        for k in range(b.first, b.last):
            lines[k] = "\x00"  # the block's other lines are in its new text
    for i, t in edits:
        lines[i] = t
    return "\n".join(ln for ln in lines if ln != "\x00")


def citations_of(md: str) -> list[Citation]:
    return [c for b in blocks(md) for c in b.cites]


__all__ = ["CITE_RE", "Citer", "Def", "cite", "citations_of"]


def citer_for(root: Path, defs: Iterable[Def], memo: dict | None = None) -> Citer:
    """One Citer per source tree and process (`memo`: a dict the caller keeps, e.g. the project's)."""
    if memo is not None and ("evidence.citer", str(root)) in memo:
        return memo[("evidence.citer", str(root))]
    c = Citer(root, defs)
    if memo is not None:
        memo[("evidence.citer", str(root))] = c
    return c
