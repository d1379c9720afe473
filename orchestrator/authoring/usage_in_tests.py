"""A first example from the tests, for a project whose README, guides, doc comments and example
files show none (snakeyaml's README is a motto, jopt-simple's a link to its site, getopts's a
Cargo line): the short test bodies that use the names the tests use most (`new Yaml()` and
`yaml.load(…)` in hundreds of snakeyaml's tests, `new OptionParser(…)` and `parser.parse(…)` in
jopt-simple's) are how the project's own authors use it. Each is a test's body, dedented, quoted
with its file and lines."""

from __future__ import annotations

import math
import re

from .doc_examples import dedent
from .project import Project

MAX_BODY = 14  # lines of a body worth quoting as a first example
# a test of a failure is no first example (`assertThrows`, `pytest.raises`, `#[should_panic]`)
_FAILS = re.compile(r"(?i)assert_?throws|expect_?throws|should_?panic|\.raises\(|assert_raises|to(?:_raise_error|Throw)|"
                    r"expected\s*=|Err\([A-Z]\w*\(|\bfail\(|\.unwrap_err\(|\bis_err\(\)|Assert\.Throws|raise_error|@Test\(expected")
_CALLED = re.compile(r"(?:\bnew\s+([A-Z][\w$]*)|(?<![\w$])([A-Za-z_$][\w$]*)\s*(?:::|\.)\s*new\b|"
                     r"(?<![\w$])([A-Za-z_$][\w$]*)\s*(?:<[\w\s,.?<>\[\]]*>)?\s*\(|\.\s*([A-Za-z_$][\w$]*)\s*\(|"
                     r"(?<![\w$.])([A-Z][\w$]*)\s*(?:\.|::)\s*[A-Za-z_$])")
_BLOCK_TEST = re.compile(r"""^(\s*)(?:it|test|specify|should)\s*\(?\s*['"`].*(?:\{|\bdo(?:\s*\|[^|]*\|)?)\s*$""")
_TYPES = ("class", "struct", "interface", "trait", "enum", "object", "record", "type alias")


def examples_in_tests(p: Project, limit: int = 3) -> list[tuple[str, int, int, str, str]]:
    """(test file, first line, last line, language, body) of the test bodies that read best as a
    first example, best first: short, no failure tested, writing the project's names the tests
    use most (a type made or a function called, and the methods called on it)."""
    key = ("examples_in_tests", limit)
    if key in p._keys:
        return p._keys[key]
    from ..repo.project import discover

    try:
        info = discover(p.root)
    except OSError:
        info = None
    langs = {lang for lang, kind in p.files.values() if lang and kind == "code"}
    tests = [t for t in (info.tests if info is not None else ()) if t in p.map.files and p.lang(t) in langs][:2000]
    weight = _usage(p, tests)
    found: list[tuple[float, str, int, int, str]] = []
    for rel in tests:
        lines = p.lines_of(rel)
        for a, b in _bodies(p, rel, lines):
            body = dedent(lines[a - 1:b])
            kept = [ln for ln in body if ln.strip()]
            if not 2 <= len(kept) <= MAX_BODY or _FAILS.search("\n".join(lines[max(0, a - 3):b])):
                continue
            named = _names(body)
            made = sorted((weight[n][0] for n in named if n in weight and weight[n][1]), reverse=True)
            if not made:
                continue  # only methods of a fixture made elsewhere (`parser` of a `@Before`)
            calls = sorted((weight[n][0] for n in named if n in weight and not weight[n][1]), reverse=True)
            # the most used type or function and the two most used methods on it; every other type the
            # body must make (snakeyaml's `new Yaml(new Constructor(…), new Representer(…), …)`) and
            # every line more make it a harder first read
            score = (made[0] + 0.5 * sum(calls[:2])) / (1.0 + 0.15 * (len(made) - 1) + 0.06 * max(0, len(kept) - 4))
            if "example" in rel.lower():
                score *= 1.5  # jopt-simple's `examples/` tests are the ones its site quotes
            found.append((score, rel, a, b, "\n".join(body).strip("\n")))
    found.sort(key=lambda f: (-f[0], f[1], f[2]))
    out = [(rel, a, b, p.lang(rel), code) for _s, rel, a, b, code in found[:limit]]
    p._keys[key] = out
    return out


def _usage(p: Project, tests: list[str]) -> dict[str, tuple[float, bool]]:
    """name -> (the share of test files that call or make it, scaled by log; whether it is a type or
    a function, not a method) for the project's own public names."""
    own: dict[str, bool] = {}
    for s in p.symbols():
        if s.d.exported and not s.short.startswith("_") and len(s.short) > 2:
            top = s.kind in _TYPES or (s.kind == "function" and "." not in s.dotted)
            own[s.short] = own.get(s.short, False) or top
    files: dict[str, int] = {}
    for rel in tests:
        for n in _names(p.lines_of(rel)) & own.keys():
            files[n] = files.get(n, 0) + 1
    total = max(1, len(tests))
    return {n: (math.log1p(k) / math.log1p(total), own[n]) for n, k in files.items()}


def _names(lines: list[str]) -> set[str]:
    out: set[str] = set()
    for m in _CALLED.finditer("\n".join(lines)):
        out.update(g for g in m.groups() if g)
    return out


def _bodies(p: Project, rel: str, lines: list[str]) -> list[tuple[int, int]]:
    """1-based (first, last) lines of the bodies of the file's short functions and test blocks."""
    out: list[tuple[int, int]] = []
    lang = p.lang(rel)
    for d in p.map.files[rel].definitions:
        if d.kind not in ("function", "method") or d.end_line - d.start_line > MAX_BODY + 12:
            continue
        head = next((k for k in range(d.start_line, d.end_line + 1)
                     if (lines[k - 1].rstrip().endswith(":") if lang == "python" else
                         "{" in lines[k - 1] or lang in ("ruby", "elixir"))), None) if d.end_line <= len(lines) else None
        if head is None:
            continue
        last = d.end_line
        if lines[last - 1].strip() in ("}", "end", "});", "})", "};"):
            last -= 1
        if head < last:
            out.append((head + 1, last))
    for k, ln in enumerate(lines, 1):  # `it('parses', () => {`, `it "parses" do`: a test that is no definition
        m = _BLOCK_TEST.match(ln)
        if m is None:
            continue
        pad = len(m.group(1))
        end = next((j for j in range(k, len(lines)) if lines[j].strip() and len(lines[j]) - len(lines[j].lstrip()) <= pad), None)
        if end is not None and end - k <= MAX_BODY + 4 and k < end:
            out.append((k + 1, end))
    return out
