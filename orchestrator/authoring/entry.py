"""What a newcomer meets first: the public entry points of a project, read from its README's
code (the names its examples write) and its root files (the crate root, the package's
`__init__.py`, `index.ts`, the Go package at the top of the tree). The planner opens the
book with the chapters that hold them and leaves low-level internals (anyhow's `ptr.rs`, which
every file uses and no user ever writes) for later."""

from __future__ import annotations

import posixpath
import re

from .project import Project

_README_NAMES = ("readme.md", "readme.rst", "readme.txt", "readme", "readme.markdown")
_FENCE_RE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n(.*?)^[ \t]*\1", re.S | re.M)  # a list item's fence is indented
_INLINE_RE = re.compile(r"`([^`\n]+)`")
_RST_CODE_RE = re.compile(r"::\s*\n\n((?:[ \t]+[^\n]*\n|\n)+)")
_IDENT_RE = re.compile(r"[A-Za-z_$][\w$]*")
ROOT_FILES = ("lib.rs", "main.rs", "index.ts", "index.js", "index.mjs", "mod.ts", "__init__.py")


def readme_code(p: Project) -> str:
    """The code of the project's README (fenced blocks, indented rST blocks, inline code), in order."""
    for name in sorted(p.root.iterdir() if p.root.is_dir() else [], key=lambda x: x.name):
        if name.name.lower() in _README_NAMES and name.is_file():
            try:
                text = name.read_text(encoding="utf-8", errors="replace")[:200_000]
            except OSError:
                return ""
            spans = [(m.start(), m.group(2)) for m in _FENCE_RE.finditer(text)]
            spans += [(m.start(), m.group(1)) for m in _RST_CODE_RE.finditer(text)]
            spans += [(m.start(), m.group(1)) for m in _INLINE_RE.finditer(text)]
            return "\n".join(code for _, code in sorted(spans))
    return ""


def is_root_file(p: Project, rel: str) -> bool:
    """The file a user's import reaches first: a crate root, the top package's `__init__.py`,
    an `index` module at the top of the source, a Go file of the package at the top."""
    base, d = posixpath.basename(rel), posixpath.dirname(rel)
    top = d in ("", "src", "lib", "source")
    if base in ROOT_FILES:
        return top or (base == "__init__.py" and d.count("/") <= 1 and posixpath.dirname(d) in ("", "src"))
    return p.lang(rel) == "go" and d == ""


def entry_scores(p: Project, groups: list[list[str]]) -> list[float]:
    """How much of each group a newcomer meets first: the group's names the README's code writes
    (earlier ones weigh more; a method only where it is called, `r.Get(`), and 1.5 for the root file."""
    code = readme_code(p)
    first: dict[str, int] = {}
    for m in _IDENT_RE.finditer(code):
        first.setdefault(m.group(0), m.start())
    called = set(re.findall(r"\.([A-Za-z_$][\w$]*)\s*\(", code))
    size = max(len(code), 1)
    out = []
    for files in groups:
        score = 0.0
        seen: set[str] = set()
        for s in p.symbols(within=files):
            n = s.short
            if n in seen or len(n) < 3 or n not in first or not s.d.exported or n.startswith("_"):
                continue
            if s.kind == "method" and n not in called:
                continue
            seen.add(n)
            score += 1.0 / (1.0 + 3.0 * first[n] / size)
        if any(is_root_file(p, f) for f in files):
            score += 1.5
        out.append(round(score, 3))
    return out
