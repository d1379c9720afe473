"""What a newcomer meets first: the public entry points of a project, read from its README's
code (the names its examples write) and its root files (the crate root, the package's
`__init__.py`, `index.ts`). The planner opens the
book with the chapters that hold them and leaves low-level internals (anyhow's `ptr.rs`, which
every file uses and no user ever writes) for later."""

from __future__ import annotations

import functools
import posixpath
import re

from ..repo.project import ProjectInfo
from .js_values import package_binding, package_function
from .project import Project, Sym, project_name

_FENCE_RE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n(.*?)^[ \t]*\1", re.S | re.M)  # a list item's fence is indented
_INLINE_RE = re.compile(r"`([^`\n]+)`")
_RST_CODE_RE = re.compile(r"::[ \t]*[\w+-]*[ \t]*\n(?:[ \t]+:[^\n]*\n)*\n((?:[ \t]+[^\n]*\n|\n)+)")  # `::` or `.. code-block:: python`
_IDENT_RE = re.compile(r"[A-Za-z_$][\w$]*")
# a generic call's type arguments before its parentheses: C#'s `csv.GetRecords<Foo>(`, Rust's `parse::<T>(`
TYPE_ARGS = r"(?:\s*(?:::)?<[\w\s,.?\[\]<>]*>)?"
ROOT_BONUS = 2.0  # the root file outweighs two early README names: every user's import reaches it
ROOT_FILES = ("lib.rs", "main.rs", "index.ts", "index.js", "index.mjs", "mod.ts", "__init__.py")


def readme_code(p: Project) -> str:
    """The code of the project's README (fenced blocks, indented rST and Markdown blocks, inline code), in order;
    the README of the project the source belongs to (a README above `src/` counts), followed by the
    first guides' code when the README has little (gson's README shows only its Gradle line)."""
    from ..repo.project import discover

    try:
        info = discover(p.root)
    except OSError:
        return ""
    out, fenced = "", 0
    for k, rel in enumerate(([info.readme] if info.readme else []) + guides(info)[:6]):
        if k and len(out) >= 400 and (fenced >= 200 or k > 6):
            break  # enough code (inline names and an install line are no example: read on, up to six guides)
        try:
            text = info.read(rel)[:200_000]
        except OSError:
            continue
        spans = [(m.start(), m.group(2)) for m in _FENCE_RE.finditer(text)]
        fenced += sum(len(c) for _, c in spans  # (a call: not a table's `Benchmark      (entries)`)
                      if re.search(r"(?<!import )\b[A-Za-z_]\w* ?\((?!\s*$)", c, re.M))
        spans += [(m.start(), m.group(1)) for m in _RST_CODE_RE.finditer(text)]
        spans += [(m.start(), m.group(1)) for m in _INLINE_RE.finditer(text)]
        starts = [0] + [m.end() for m in re.finditer("\n", text)]  # (PyYAML's `    >>> yaml.load(stream, …)`)
        spans += [(starts[a - 1], code) for a, _b, _t, code in indented_code(text, rel)]
        out += ("\n" if out else "") + "\n".join(code for _, code in sorted(spans))
    if fenced < 200:  # a README with no example: the package's own doc comment may have one
        from .doc_examples import doc_examples

        docs = [code for *_, code in doc_examples(p)]
        out += "".join("\n" + code for code in docs)
        if not any(re.search(r"\b[A-Za-z_]\w*\s*\(", code) for code in docs):
            from .usage_in_tests import examples_in_tests  # nor a doc comment: the tests' own use (snakeyaml)

            out += "".join("\n" + code for *_, code in examples_in_tests(p))
    return out


def indented_code(text: str, rel: str) -> tuple[tuple[int, int, str, str], ...]:
    """The indented code blocks of a Markdown or RDoc document (roda's README shows its use only so)."""
    low = rel.lower()
    return indented_blocks(text) if low.endswith((".md", ".markdown")) else rdoc_blocks(text) if low.endswith(".rdoc") else ()


@functools.lru_cache(maxsize=16)
def rdoc_blocks(text: str) -> tuple[tuple[int, int, str, str], ...]:
    """An RDoc document's verbatim blocks: lines indented past the margin after a paragraph at it,
    not a list item's continued text (`* item` then its indented line), dedented as a whole."""
    from .doc_examples import dedent

    lines = text.splitlines()
    out = []
    k = 0
    while k < len(lines):
        if not (lines[k][:1] in " \t" and lines[k].strip()) or (k and lines[k - 1].strip()):
            k += 1
            continue
        before = next((ln for ln in reversed(lines[:k]) if ln.strip()), "")
        end = k
        while end < len(lines) and (not lines[end].strip() or lines[end][:1] in " \t"):
            end += 1
        while end > k and not lines[end - 1].strip():
            end -= 1
        if not re.match(r"\s*(?:[*-]|\d+\.|\[[^\]]*\]|\S.*::)\s", before):
            out.append((k + 1, end, "", "\n".join(dedent(lines[k:end]))))
        k = max(end, k + 1)
    return tuple(out)


@functools.lru_cache(maxsize=16)  # (a README is read for its names, its example and its purpose)
def indented_blocks(text: str) -> tuple[tuple[int, int, str, str], ...]:
    """A Markdown document's indented code blocks, as CommonMark reads them (markdown-it knows a
    list item's indented paragraph from code), dedented as a whole."""
    from markdown_it import MarkdownIt

    out = []
    for t in MarkdownIt("commonmark").parse(text):
        if t.type == "code_block" and t.map and t.content.strip():
            body = t.content.rstrip("\n").split("\n")
            tag = "pycon" if body[0].startswith(">>> ") else ""  # a Python session says its language
            out.append((t.map[0] + 1, t.map[0] + len(body), tag, "\n".join(body)))
    return tuple(out)


def guides(info: ProjectInfo) -> list[str]:
    """The project's docs, those of an older version (`docs/v1/…` beside `docs/v3/…`) after the
    others: urfave/cli's v1 guide writes an API the code no longer has."""
    vers = [int(m.group(1)) for d in info.docs if (m := _VERSION_DIR.search(d))]
    top = max(vers, default=-1)

    def older(d: str) -> bool:
        m = _VERSION_DIR.search(d)
        return m is not None and int(m.group(1)) != top

    return sorted(info.docs, key=older)


_VERSION_DIR = re.compile(r"(?:^|/)v(\d+)/")


# a translation (negroni's translations/README_fr_FR.md, README.zh-CN.md) or the project's history is no guide
# to its ideas: its headings are another language's, or releases
_OTHER_DOC = re.compile(r"(?i)(?:^|/)(?:translations?|i18n|l10n|locales?)/|(?:^|/)readme[._-][a-z]{2}(?:[_-][a-z]{2,4})?\.\w+$"
                        r"|\.(?:fr|de|es|it|ja|ko|pt|ru|zh|zh-cn|zh-tw|pt-br)\.\w+$"
                        r"|(?:^|/)(?:change_?log|changes|history|news|release[_-]?notes|releasing|upgrading|migration)[^/]*$")


def not_a_guide(rel: str) -> bool:
    return bool(_OTHER_DOC.search(rel))


def _defines(p: Project, rel: str) -> bool:
    fm = p.map.files.get(rel)
    return fm is not None and any(x.kind not in ("variable", "impl", "module", "import") for x in fm.definitions)


def _is_top_entry(rel: str) -> bool:
    base, d = posixpath.basename(rel), posixpath.dirname(rel)
    if base not in ROOT_FILES:
        return False
    return d in ("", "src", "lib", "source") or (
        base == "__init__.py" and d.count("/") <= 1 and posixpath.dirname(d) in ("", "src"))


_REEXPORT_RES = (re.compile(r"""require\(\s*['"](\.{1,2}/[^'"]+)['"]\s*\)"""),
                 re.compile(r"""\bfrom\s+['"](\.{1,2}/[^'"]+)['"]"""),
                 re.compile(r"^from\s+(\.\w+(?:\.\w+)*)\s+import\b", re.M))


def _first_reexport(p: Project, rel: str) -> str | None:
    """The code file a re-exporting entry file (`module.exports = require('./lib/express')`,
    `from .app import Flask`, `export * from './vanilla'`) names first."""
    return next(iter(relative_imports(p, rel)), None)


def relative_imports(p: Project, rel: str) -> list[str]:
    """The project's code files a file imports by a relative path, in the order it names them."""
    text = "\n".join(p.lines_of(rel))
    d = posixpath.dirname(rel)
    hits = sorted((m.start(), m.group(1)) for rx in _REEXPORT_RES for m in rx.finditer(text))
    code = set(p.code_files())
    out: list[str] = []
    for _, target in hits:
        if target.startswith("."):
            if "/" in target:
                path = posixpath.normpath(posixpath.join(d, target))
            else:  # a Python relative module: `.app`, `.sansio.app`
                path = posixpath.join(d, *target.lstrip(".").split("."))
        else:
            continue
        for cand in (path, *(path + e for e in (".js", ".ts", ".mjs", ".cjs", ".tsx", ".py")),
                     *(posixpath.join(path, f) for f in ("index.js", "index.ts", "__init__.py"))):
            if cand in code and cand != rel and cand not in out:
                out.append(cand)
                break
    return out


def root_files(p: Project) -> set[str]:
    """The files a user's import reaches first and that define something: a crate root, the top
    package's `__init__.py`, an `index` module at the top of the source; where such a file only
    re-exports (express's index.js, flask's `__init__.py`), the first file it re-exports. A Go
    package has none (cobra's cobra.go holds helpers; its README's code says what a user writes)."""
    key = ("root_files",)
    if key not in p._keys:
        out: set[str] = set()
        for rel in p.code_files():
            if not _is_top_entry(rel):
                continue
            target: str | None = rel
            for _ in range(3):  # index.js -> lib/index.js -> lib/express.js
                if target is None or _defines(p, target):
                    break
                target = _first_reexport(p, target)
            if target is not None and _defines(p, target):
                out.add(target)
        p._keys[key] = out
    return p._keys[key]


def readme_names(p: Project) -> tuple[dict[str, float], dict[str, float]]:
    """(name -> weight in (0, 1], the earlier the README's code writes it the more; names called
    as methods there, `r.Get(`). A name after a dot (`r.Context()`) is a method of something else,
    not the project's type, unless the dot follows the project's own name (`chi.NewRouter`)."""
    key = ("readme_names",)
    if key not in p._keys:
        code = readme_code(p)
        own = own_names(p, code)
        first: dict[str, int] = {}
        for m in _IDENT_RE.finditer(code):
            before = code[max(0, m.start() - 40):m.start()]
            q = re.search(r"([A-Za-z_$][\w$]*)\.$", before)
            if before.endswith(".") and not (q and q.group(1).lower() in own):
                continue
            if re.match(r"::[A-Z]", code[m.end():m.end() + 3]):
                continue  # a namespace (`Kramdown::Document`), not a use of a type of that name (`Url::parse` is one)
            first.setdefault(m.group(0), m.start())
        size = max(len(code), 1)
        calls: dict[str, int] = {}
        other = foreign_values(p, code)
        # (a call given only a block: Kotlin's `flowOf(…).test {`, Ruby's `rows.each {`; not Go's `jwt.MapClaims{`)
        for m in re.finditer(rf"(?:([A-Za-z_$][\w$]*)\s*)?\.(?:([A-Za-z_$][\w$]*){TYPE_ARGS}\s*\(|([a-z_]\w*)[ \t]*\{{)", code):
            k = 2 if m.group(2) else 3
            if m.group(1) not in other:  # koa's `app.use(router.routes())`: `use` of a Koa, not a Router
                calls.setdefault(m.group(k), m.start(k) - 1)
        p._keys[key] = ({n: 1.0 / (1.0 + 3.0 * at / size) for n, at in first.items()},
                        {n: 1.0 / (1.0 + 3.0 * at / size) for n, at in calls.items()})
    return p._keys[key]


def own_names(p: Project, code: str) -> set[str]:
    """The names example code calls the project by, lowercase: its directory's, its package's, and those it imports
    the project under (squirrel's `import sq "github.com/Masterminds/squirrel"`, then `sq.Select(…)`)."""
    own = {p.root.name.lower(), project_name(p.root).lower()}
    return own | own_aliases(code, own)


def own_aliases(code: str, own: set[str]) -> set[str]:
    """The names example code imports the project itself under: Go's `import sq "github.com/Masterminds/squirrel"`,
    Python's `import numpy as np`, JavaScript's `import * as acorn from "acorn"` (lowercase, as `own`)."""
    out = set()
    for alias, path in re.findall(r"(?m)^\s*(?:import\s+)?([A-Za-z_]\w*)\s+\"([\w./-]+)\"\s*$", code):  # (Go)
        if re.sub(r"/v\d+$", "", path).rsplit("/", 1)[-1].lower() in own:
            out.add(alias.lower())
    for pkg, alias in re.findall(r"(?m)^\s*import\s+([\w.]+)\s+as\s+(\w+)\s*$", code):  # (Python)
        if pkg.split(".")[0].lower() in own:
            out.add(alias.lower())
    for m in re.finditer(r"""\bimport\s+(?:\*\s+as\s+)?([A-Za-z_$][\w$]*)\s+from\s+['"]([^'"]+)['"]"""
                         r"""|\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*require\(\s*['"]([^'"]+)['"]""", code):  # (JS)
        alias, pkg = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        if _package_name(pkg) in own:
            out.add(alias.lower())
    return out


_MADE = re.compile(r"(?<![\w$.])([A-Za-z_$][\w$]*)\s*:?=\s*(?:new\s+)?(?:[\w$]+(?:\.|::))*([A-Z][\w$]*)\s*(?:\(|::new\b|\.new\b|\{)")


_IMPORTED = re.compile(r"""(?:\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*require\(\s*['"]([^'"]+)['"]"""
                       r"""|\bimport\s+([A-Za-z_$][\w$]*)\s+from\s+['"]([^'"]+)['"]|^\s*import\s+([\w.]+)\.([A-Z]\w*)\s*;"""
                       r"""|^\s*from\s+([\w.]+)\s+import\s+([A-Z]\w*)\s*$)""", re.M)


def foreign_values(p: Project, code: str) -> set[str]:
    """The names example code binds to a value of another package's type (`const Koa = require('koa')
    … const app = new Koa()` in koa-router's README): what it calls on them is that library's."""
    foreign_types = foreign_imports(p, code)
    return {m.group(1) for m in _MADE.finditer(code) if m.group(2) in foreign_types}


def foreign_imports(p: Project, code: str) -> set[str]:
    """The names example code imports from another package (postcss's Gulp recipe: `const postcss =
    require('gulp-postcss')`), though the project has a function of that name."""
    own = {n for x in (project_name(p.root), p.root.name) for n in (x.lower(), _package_name(x))}
    out = set()
    for m in _IMPORTED.finditer(code):
        name, pkg = next((m.group(k), m.group(k + 1)) for k in (1, 3, 5, 7) if m.group(k))
        if _package_name(pkg) not in own and not any(x.kind in ("class", "struct") for x in p.find(name)):
            out.add(name)
    return out


def _package_name(pkg: str) -> str:
    """A package's name as compared: `@koa/router` → `router`, `koa` → `koa`, `org.jsoup` → `org`."""
    base = pkg.lower().lstrip("@").split("/")
    return base[-1] if pkg.startswith("@") else re.split(r"[./]", pkg.lower())[0]


def _mixed_into_called(p: Project, s: Sym, n: str) -> bool:
    """A Ruby module's method the README calls on a module that mixes it in (http.rb's `HTTP.get(…)`: `module HTTP;
    extend Chainable`, and Chainable `include Verbs`, where `get` is)."""
    if s.lang != "ruby" or "." not in s.dotted:
        return False
    from .codeinfo import _sym_index
    from .ruby_mixins import mixins

    owner = s.dotted.rsplit(".", 1)[0]
    by_dotted = _sym_index(p)[0]
    for m in re.finditer(rf"(?<![\w$:.])([A-Z][\w]*(?:::[A-Z]\w*)*)\s*\.\s*{re.escape(n)}\b", readme_code(p)):
        seen: set[str] = set()
        todo = [m.group(1).replace("::", ".")]
        while todo:  # the modules mixed in, and theirs
            t = todo.pop()
            if t == owner:
                return True
            if t not in seen and len(seen) < 20:
                seen.add(t)
                todo += mixins(p, by_dotted, t)
    return False


def readme_weight(p: Project, s: Sym) -> float:
    """How early the README's code writes this symbol (0 when it does not): a method only where
    it is called (`r.Get(`), another name where it is written bare or after the project's name;
    a method by any of its names (i18n's `I18n.t(:test)` calls `translate`)."""
    return max(_weight(p, s, n) for n in s.names)


def _weight(p: Project, s: Sym, n: str) -> float:
    names, called = readme_names(p)
    dotted = next((a for a in s.d.aliases if a.endswith(f".{n}")), "") if n != s.short else ""
    if dotted and re.search(rf"(?<![\w$.]){re.escape(dotted)}\s*\(", readme_code(p)):
        return called.get(n, 0.0)  # (PapaParse's `Papa.parse(…)`, its module's `Papa.parse = CsvToJson`)
    if n == s.short and claimed(p, n):
        return 0.0  # (`Papa.parse(…)` is `CsvToJson`'s, not `ParserHandle`'s `parse`)
    if n == s.short and n in package_namespaces(p):
        return 0.0  # (typebox's `Type.Object(…)` is of the package's namespace, not parser.ts' function `Type`)
    if s.lang in ("javascript", "typescript") and package_function(p) is s and (v := package_binding(p, readme_code(p))):
        return names.get(v, 0.0)  # the package itself, a function: prompts' `prompt`, called as the README's `prompts({…})`
    if s.lang == "ruby" and s.dotted in (f"Kernel.{n}", f"Object.{n}") and n in _bare_calls(p, any_argument=True):
        return _bare_calls(p, any_argument=True)[n]  # every object's, called bare: awesome_print's `ap data` (two letters)
    top = s.dotted.split(".", 1)[0]
    if n.startswith("_") or not s.d.exported or (len(n) < 3 and n.lower() != project_name(p.root).lower()
                                                  and not _imported_by_name(p, n)
                                                  and not (n != s.short and re.search(rf"(?<![\w$]){re.escape(top)}(?:\.|::){re.escape(n)}\s*\(", readme_code(p)))):
        return 0.0  # a two-letter name is a word of the README (`is`), unless it is the project's (`ky`) or imported (`v4`)
    # express's `req.is = function ...` is a method too; a type in a namespace is a type (kramdown's `Kramdown::Document`)
    if s.kind == "method" or ("." in s.dotted and s.kind not in ("class", "struct", "interface", "enum", "trait")):
        from ..repo.rank import COMMON_NAMES

        if s.lang == "ruby" and "." not in s.dotted and re.search(rf"(?<![\w$.:]){re.escape(n)}\s*\(", readme_code(p)):
            return names.get(n, 0.0)  # a top-level `def Rainbow(string)`, called as a function: `Rainbow("red")`
        if s.lang in ("ruby", "elixir") and n in _bare_calls(p):
            return _bare_calls(p)[n]  # sinatra's `get '/' do`: a DSL's method, called bare where a statement starts
        if s.lang == "ruby" and re.search(rf"(?m)(?<![\w$])[A-Z][\w:]*(?:\.|::){re.escape(n)}[!?]?(?=[ \t]*(?:do\b|\{{|$))", readme_code(p)):
            return names.get(n, 0.0)  # on its module without parentheses: optimist's `Optimist::options do … end`
        if s.lang == "elixir" and s.kind == "function" and n not in COMMON_NAMES:
            return max(names.get(n, 0.0), called.get(n, 0.0))  # `import Plug.Conn` … `send_resp(conn, …)`

        if n in COMMON_NAMES:  # `.get(` is any object's; `Faraday.get(` is the project's own
            owner = s.dotted.rsplit(".", 2)[-2] if "." in s.dotted else ""
            qualified = owner and re.search(rf"(?<![\w$]){re.escape(owner)}\s*(?:\.|::)\s*{re.escape(n)}\s*\(", readme_code(p))
            # (or imported by its class, to be called bare: spark's `import static spark.Spark.*;` then `get("/hello", …)`)
            if owner and re.search(r"\bstatic\b", s.d.signature) and re.search(
                    rf"\b(?:import\s+static\s+[\w.]*\b{re.escape(owner)}\.(?:\*|{re.escape(n)})|using\s+static\s+[\w.]*\b{re.escape(owner)})\s*;",
                    readme_code(p)) and re.search(rf"(?<![\w$.]){re.escape(n)}\s*\(", readme_code(p)):
                return max(names.get(n, 0.0), called.get(n, 0.0))
            # a Kotlin extension of another library's type (turbine's `Flow<T>.test`): `flowOf(…).test {` is its call
            extension = s.lang == "kotlin" and s.kind == "function" and owner and \
                not any(x.kind in ("class", "interface", "object") for x in p.find(owner) if x.short == owner)
            return called.get(n, 0.0) if qualified or extension or _mixed_into_called(p, s, n) else 0.0
        return called.get(n, 0.0)
    if s.lang == "go" and "." not in s.dotted and "/" not in s.rel and \
            re.search(rf"(?<![\w.]){re.escape(p.go_package(s.rel))}\.{re.escape(n)}\s*\(", readme_code(p)):
        return max(names.get(n, 0.0), called.get(n, 0.0))  # the root package's, by its own name (go-version's `version.NewVersion`)
    if s.lang == "go" and "." not in s.dotted and "/" in s.rel:  # a sub-package's function by its qualifier: zerolog's
        pkg = s.rel.rsplit("/", 2)[-2]  # `log.Print(…)` is `Print` of log/log.go (imported as ".../zerolog/log")
        if re.search(rf"(?<![\w.]){re.escape(pkg)}\.{re.escape(n)}\s*\(", readme_code(p)) and \
                re.search(rf"\"[\w./-]*/{re.escape(pkg)}\"", readme_code(p)):
            return max(names.get(n, 0.0), called.get(n, 0.0))
    return names.get(n, 0.0)


def claimed(p: Project, n: str) -> bool:
    """Every call `x.n(…)` the README's code makes is of a module object that names a function `n`
    (PapaParse's `var Papa = {}; Papa.parse = CsvToJson; … return Papa;`)."""
    key = ("readme_claimed",)
    if key not in p._keys:
        members = {a for s in p.symbols() if s.kind == "function" for a in s.d.aliases if "." in a}
        calls = re.findall(r"(?<![\w$.])([A-Za-z_$][\w$]*)\s*\.\s*([A-Za-z_$][\w$]*)\s*\(", readme_code(p))
        told = {b for a, b in calls if f"{a}.{b}" in members}
        p._keys[key] = {b for b in told if all(f"{x}.{y}" in members for x, y in calls if y == b)}
    return n in p._keys[key]


def package_namespaces(p: Project) -> set[str]:
    """The names the README's code binds to a namespace of the JS/TS package's modules: one its index exports
    (`export * as Type from './typebox.ts'`), or the package's default export when that is one (`import * as Type
    from './typebox.ts'; export default Type`, imported as `import Type from 'typebox'`)."""
    key = ("readme_namespaces",)
    if key not in p._keys:
        named: set[str] = set()
        default = False
        for rel in (r for r in p.code_files() if _is_top_entry(r) and r.endswith((".js", ".mjs", ".ts", ".mts"))):
            text = "\n".join(p.lines_of(rel))
            named |= set(re.findall(r"\bexport\s+\*\s+as\s+([A-Za-z_$][\w$]*)\s+from\b", text))
            m = re.search(r"(?m)^\s*export\s+default\s+([A-Za-z_$][\w$]*)\s*;?\s*$", text)
            default = default or bool(m and re.search(rf"\bimport\s+\*\s+as\s+{re.escape(m.group(1))}\s+from\b", text))
        code = readme_code(p)
        bound = set(re.findall(r"\bimport\s+([A-Za-z_$][\w$]*)\s+from\s+['\"][^'\"./][^'\"]*['\"]", code)) if default else set()
        p._keys[key] = bound | {n for n in named if re.search(rf"(?<![\w$.]){re.escape(n)}\s*\.", code)}
    return p._keys[key]


def _imported_by_name(p: Project, n: str) -> bool:
    """The README's code imports `n` by name (uuid's `import { v4 as uuidv4 } from 'uuid'`)."""
    key = ("readme_imported",)
    if key not in p._keys:
        lists = re.findall(r"\bimport\s*\{([^}]*)\}\s*from\b|^\s*from\s+[\w.]+\s+import\s+([^\n]*)", readme_code(p), re.M)
        p._keys[key] = {w for a, b in lists for w in re.findall(r"[A-Za-z_$][\w$]*", a + " " + b)}
    return n in p._keys[key]


_KERNEL = frozenset("puts print p pp printf require require_relative load raise sleep exit abort".split())


def _bare_calls(p: Project, any_argument: bool = False) -> dict[str, float]:
    """Names the README's code calls without parentheses at the start of a statement (`get '/' do`,
    `plug :match`), weighted as readme_names weighs them; with `any_argument`, whatever the argument
    (`ap data`: not the statement `name value` of a DSL, so only for a method every object has)."""
    key = ("readme_bare", any_argument)
    if key not in p._keys:
        code = readme_code(p)
        size = max(len(code), 1)
        found: dict[str, float] = {}
        arg = r"[ \t]+[\w\"':\[{@]|\(" if any_argument else r"[ \t]+(?:['\"]|:\w)"
        for m in re.finditer(rf"(?m)^[ \t]*([a-z_]\w*[!?]?)(?:{arg})", code):
            if m.group(1) not in _KERNEL:  # (highline's example `puts "You have answered: …"` is Ruby's, not `HighLine#puts`)
                found.setdefault(m.group(1), 1.0 / (1.0 + 3.0 * m.start() / size))
        p._keys[key] = found
    return p._keys[key]


def entry_scores(p: Project, groups: list[list[str]]) -> list[float]:
    """How much of each group a newcomer meets first: the group's names the README's code writes
    (earlier ones weigh more; a method only where it is called, `r.Get(`; the best three, so a group
    of many small helpers does not outweigh the one class a user writes), and ROOT_BONUS for the root file."""
    out = []
    for files in groups:
        found: list[float] = []
        seen: set[str] = set()
        for s in p.symbols(within=files):
            if s.short in seen:
                continue
            w = readme_weight(p, s)
            if w:
                seen.add(s.short)
                found.append(w)
        score = sum(sorted(found, reverse=True)[:3])
        if root_files(p) & set(files):
            score += ROOT_BONUS
        out.append(round(score, 3))
    return out


# how an example prints a value, per language, and what printing runs on it (example_calls.printed_value): Ruby's
# `puts table` its `to_s`, Python's `print(x)` its `__str__`, Java's `toString`
PRINTS = {"ruby": (r"(?:puts|print)\s*\(?\s*([a-z_]\w*)\s*\)?", "to_s"), "python": (r"print\(\s*([a-z_]\w*)\s*\)", "__str__"),
          "java": (r"System\.out\.println\(\s*([a-z_]\w*)\s*\)", "toString"),
          # Rust's `println!("{table}")` / `println!("{}", table)` formats through `impl Display`'s `fmt`
          "rust": (r"(?:print|println|format)!\(\s*\"(?:\{([a-z_]\w*)\}|\{\}\",\s*&?([a-z_]\w*))\"?\s*\)", "fmt"),
          "go": (r"fmt\.Print(?:ln)?\(\s*([a-z_]\w*)\s*\)", "String"),
          "csharp": (r"Console\.WriteLine\(\s*([a-z_]\w*)\s*\)", "ToString"),
          "kotlin": (r"println\(\s*([a-z_]\w*)\s*\)", "toString")}
