"""Usage examples a package writes in its own doc comment (issue 35), for a project whose README shows
none: a Java package's `package-info.java` (`for (CSVRecord record : CSVFormat.DEFAULT.parse(in))`
inside `<pre>`), a Rust crate root's `//!` fences, a Go package comment's indented lines (`doc.go`),
a Python package's `>>>` lines. Each is the comment's code with the comment's marks taken off, so it
is quoted as a doc's code (the file and lines named beside it), not as the file's own lines."""

from __future__ import annotations

import html
import posixpath
import re

from .project import Project


def doc_examples(p: Project) -> list[tuple[str, int, int, str, str]]:
    """(file, first line, last line, language, code) of the code blocks in the doc comments of the
    source's top files, shallowest first."""
    key = ("doc_examples",)
    if key in p._keys:
        return p._keys[key]
    out: list[tuple[str, int, int, str, str]] = []
    files = sorted((f for f in p.code_files() if _doc_file(f)), key=lambda f: (f.count("/"), f))
    for rel in files[:8]:
        lines = p.lines_of(rel)
        lang = p.lang(rel)
        blocks = (_javadoc_pre(lines) if lang == "java" else _rust_fences(lines) if lang == "rust"
                  else _go_indented(lines) if lang == "go" else _python_prompts(lines) if lang == "python" else [])
        out += [(rel, a, b, lang, code) for a, b, code in blocks if code.strip()]
    # Go's testable examples (`func ExampleDecode() {` in a `_test.go` file), which `go doc` shows as
    # the package's use, after its package comment
    tests = sorted((rel for rel, (lang, _k) in p.files.items() if lang == "go" and rel.endswith("_test.go")
                    and rel.count("/") <= 1), key=lambda f: (f.count("/"), f))
    for rel in tests[:8]:
        out += [(rel, a, b, "go", code) for a, b, code in _go_example_funcs(p.lines_of(rel)) if code.strip()]
    p._keys[key] = out
    return out


def _doc_file(rel: str) -> bool:
    base = posixpath.basename(rel)
    return base in ("package-info.java", "lib.rs", "doc.go", "__init__.py")


def _javadoc_pre(lines: list[str]) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    start, buf = 0, list[str]()
    for k, ln in enumerate(lines, 1):
        text = re.sub(r"^\s*/?\*+/?\s?", "", ln)
        if start == 0 and re.search(r"<pre\b[^>]*>", text):
            start, buf = k, []
            rest = re.sub(r"^.*?<pre\b[^>]*>(?:\s*\{@code)?", "", text)
            if rest.strip():
                buf.append(rest)
            continue
        if start:
            if "</pre>" in text:
                head = text.split("</pre>", 1)[0].rstrip().removesuffix("}")
                if head.strip():
                    buf.append(head)
                out.append((start, k, html.unescape("\n".join(dedent(buf)))))
                start = 0
            else:
                buf.append(text)
    return out


def _rust_fences(lines: list[str]) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    start, buf = 0, list[str]()
    block = False  # inside a `/*! … */` crate doc (rust-url's lib.rs), whose lines are the doc as written
    for k, ln in enumerate(lines, 1):
        if not block and ln.strip().startswith("/*!"):
            block = "*/" not in ln
            continue
        if block and "*/" in ln:
            block = False
            continue
        m = re.match(r"^\s*//!\s?(.*)$", ln) or _doc_attr(ln)
        if m is None and not block:
            continue
        text = m.group(1) if m is not None else re.sub(r"^\s?\*?\s?", "", ln) if ln.lstrip().startswith("*") else ln
        if text.strip().startswith("```"):
            tag = text.strip()[3:].strip()
            if start:
                out.append((start, k, "\n".join(buf)))
                start = 0
            elif _rust_tag(tag):
                start, buf = k, []
            else:
                start = -1  # another language's fence (`text`, `toml`): skipped to its end
        elif start > 0 and not re.match(r"^#(?:\s|$)", text):  # `# use x;`: a doctest's hidden line
            buf.append(text)
        elif start == -1 and text.strip().startswith("```"):
            start = 0
    return [(a, b, c) for a, b, c in out if a > 0]


def _doc_attr(ln: str) -> re.Match[str] | None:
    """`#![doc = "```"]` and `#![cfg_attr(feature = "alloc", doc = "```")]` as a doc line (rust-base64 opens its
    fences so); of a pair `cfg_attr(x, …)` / `cfg_attr(not(x), …)` the first is read, the `not(…)` one is not."""
    return re.match(r'^\s*#!\[(?:cfg_attr\((?!not\()[^,]*,\s*)?doc\s*=\s*"(.*)"\)?\]\s*$', ln)


def _rust_tag(tag: str) -> bool:
    """Whether a doc fence's info string is Rust's: none, `rust`, `rust,no_run`, `no_run`, getopts's `{.rust}`."""
    words = [w for w in re.split(r"[\s,{}.]+", tag.lower()) if w]
    return not words or words[0] in ("rust", "no_run", "ignore", "should_panic", "compile_fail") \
        or words[0].startswith("edition")


def _go_indented(lines: list[str]) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    start, buf = 0, list[str]()
    block = False  # inside a `/* … */` package comment (robfig/cron's doc.go): its lines have no `//`
    for k, ln in enumerate(lines + [""], 1):
        block = block or ln.startswith("/*")
        m = re.match(r"^(?:(?<!\S)|//)(\t| {2,}\S)(.*)$" if block else r"^//(\t| {2,}\S)(.*)$", ln)
        if m:
            if not start:
                start, buf = k, []
            buf.append(m.group(1).lstrip("\t") + m.group(2))
            continue
        if start and (ln.strip() == "//" or block and not ln.strip()):
            buf.append("")
            continue
        block = block and "*/" not in ln
        if start:
            out.append((start, k - 1, "\n".join(dedent(buf)).strip("\n")))
            start = 0
        if ln.startswith("package "):
            break
    return out


def _go_example_funcs(lines: list[str]) -> list[tuple[int, int, str]]:
    """The bodies of a Go test file's `func Example…()` functions, without their `// Output:` comment,
    the package example (`func Example()`) first."""
    out: list[tuple[bool, int, int, str]] = []
    for k, ln in enumerate(lines):
        m = re.match(r"^func (Example\w*)\(\)\s*\{\s*$", ln)
        end = next((j for j in range(k + 1, len(lines)) if lines[j].startswith("}")), -1) if m else -1
        if m is None or end < 0:
            continue
        body = lines[k + 1:end]
        cut = next((j for j, b in enumerate(body) if re.match(r"^\s*//\s*(?:Unordered )?[Oo]utput:", b)), len(body))
        body = body[:cut]
        while body and not body[-1].strip():
            body.pop()
        if body:
            out.append((m.group(1) != "Example", k + 2, k + 1 + len(body), "\n".join(dedent(body))))
    return [(a, b, code) for _first, a, b, code in sorted(out, key=lambda x: x[0])]


def _python_prompts(lines: list[str]) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    start, buf = 0, list[str]()
    for k, ln in enumerate(lines + [""], 1):
        m = re.match(r"^\s*(?:>>>|\.\.\.)(?: (.*))?$", ln)
        if m:
            if not start:
                start, buf = k, []
            buf.append(m.group(1) or "")
        elif start:
            out.append((start, k - 1, "\n".join(buf)))
            start = 0
        if re.match(r"^(?:import|from|def|class)\b", ln):
            break  # past the module's docstring
    return out


def dedent(buf: list[str]) -> list[str]:
    """Lines with the indentation they all share taken off (blank lines aside)."""
    pad = min((len(x) - len(x.lstrip()) for x in buf if x.strip()), default=0)
    return [x[pad:] for x in buf]
