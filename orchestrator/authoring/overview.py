"""Part 1 of the book, the big picture (issue 23): what the project is for in its own words,
how a user meets it (a real example from its README, guides or examples, quoted verbatim with
its file), its main entry points in code, the architecture at a glance, and the path of one
central operation traced through the calls the map resolves, from the entry point a user calls
down to the core.

The evidence comes from the project around the source (repo.project.discover): a README above
`src/` is read, never a file outside the project's root. A quote from outside the source tree
carries its path in the caption, not in the fence (R1 verifies `file=` against the source)."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, replace

from ..repo.project import ProjectInfo, discover
from .commands import command_script
from .entry import PRINTS, readme_code
from .example_text import (
    IMPORT_ONLY,
    MAX_EXAMPLE_LINES,
    SERVING,
    leading_part as _leading_part,
    next_step,
    shows_result,
)
from .js_values import instance_sites, package_binding, package_function
from .project import Project, Sym, project_name

# fence info strings that name a programming language, by the map's language names
LANG_TAGS = {
    "python": ("python", "py", "python3", "pycon", "pytb"), "javascript": ("js", "javascript", "node", "mjs", "cjs", "jsx"),
    "typescript": ("ts", "typescript", "tsx"), "rust": ("rust", "rs"), "go": ("go", "golang"), "java": ("java",),
    "c": ("c", "h"), "cpp": ("cpp", "c++", "cxx", "cc", "hpp"),
    "csharp": ("csharp", "cs", "c#"), "ruby": ("ruby", "rb"), "kotlin": ("kotlin", "kt", "kts"), "php": ("php",),
    "swift": ("swift",), "scala": ("scala",), "elixir": ("elixir", "ex", "exs", "iex"), "lua": ("lua",),
}
_FENCE = re.compile(r"^([ \t]*)(```+|~~~+)[ \t]*\{?\.?([\w+#-]*)[^\n]*$")
# (Sphinx's `.. testcode::` and `.. doctest::` are Python: tenacity's docs show their use only so)
_RST_DIRECTIVE = re.compile(r"^\s*\.\.\s+(?:code-block|code|sourcecode|(testcode|doctest))::\s*(\S*)")
# a call: `f(…)`, and in Ruby and Elixir one without parentheses (`get '/' do`, `plug :match`)
_CALL = re.compile(r"[A-Za-z_$][\w$]*!?\s*\(")
# (Ruby's calls without parentheses: `get '/' do`, `table = Terminal::Table.new :rows => rows`)
_BARE_CALL = re.compile(r"(?m)^[ \t]*(?:@?[a-z_]\w*\s*=\s*)?(?:[A-Z]\w*(?:::[A-Z]\w*)*\.)?[a-z_][\w.]*[!?]?[ \t]+(?:['\"]|:\w|do\b)")
# names a C++ parser may take for definitions (`std`, `string`): never a project's entry point
CXX_NAMES = frozenset({"std", "string", "decltype", "bool", "noexcept", "auto", "size_t", "char", "int", "void",
                       "const", "constexpr", "template", "typename", "operator", "detail", "float", "double", "long",
                       "short", "unsigned", "signed"})
NOT_ENTRIES = ("variable", "impl", "module", "import", "namespace", "package")  # a user writes none of them first
MAX_PATH = 7  # definitions followed from the entry point down to the core


@dataclass(frozen=True)
class Example:
    rel: str  # path in the project
    first: int  # 1-based lines of the quoted code in that file
    last: int
    lang: str  # the fence's language (the map's name when known)
    code: str  # exactly the file's lines (an rST block dedented as a whole)
    source_rel: str | None  # the same file as a path of the source tree, when it is inside it
    # the same section's later block that runs what this one only sets up (pflag's `flag.Int(…)`, then
    # "After all flags are defined, call `flag.Parse()`" in a block of its own)
    then: Example | None = None
    from_tests: bool = False  # a test's body: the project shows no example of use anywhere else

    @property
    def as_calls(self) -> str:
        """This block with its calls written `name(` (Kotlin's trailing lambda, Ruby's block: call_form)."""
        from .call_form import call_form

        return call_form(self.code, self.lang)

    @property
    def calls_code(self) -> str:
        """The code the main path is chosen from: this block, then the one that runs it."""
        return self.as_calls + ("\n" + self.then.as_calls if self.then else "")


def info_of(p: Project) -> ProjectInfo | None:
    try:
        return discover(p.root)
    except OSError:
        return None


def _lang_of_tag(tag: str) -> str | None:
    tag = tag.lower()
    return next((lang for lang, tags in LANG_TAGS.items() if tag in tags), None)


def code_blocks(text: str, rel: str = "") -> list[tuple[int, int, str, str]]:
    """(first line, last line, language tag, code) of the fenced Markdown and rST code blocks, and
    the indented ones of a Markdown or RDoc document `rel` (PyYAML's README shows its use only in
    `    >>> yaml.load(stream, …)`; an rST document's indented text is a quotation, not code)."""
    from .entry import indented_code

    out = list(indented_code(text, rel))
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        # (an rST section's `~~~~` underline is no fence: tenacity's "Basic Retry" took its text to "Stopping" as code)
        if m and (rel.lower().endswith(".rst") or (i and lines[i - 1].strip() and not lines[i].strip().strip("~"))):
            m = None
        if m:
            ind, mark, tag = m.group(1), m.group(2), m.group(3)
            j = i + 1
            while j < len(lines) and not (lines[j].strip().startswith(mark[:3]) and lines[j].strip().strip(mark[0]) == ""):
                j += 1
            if j < len(lines) and j > i + 1:
                body = [ln[len(ind):] if ln.startswith(ind) else ln for ln in lines[i + 1:j]]
                out.append((i + 2, j, tag, "\n".join(body)))
            i = j + 1
            continue
        d = _RST_DIRECTIVE.match(lines[i])
        if d or (lines[i].rstrip().endswith("::") and not lines[i].lstrip().startswith("..")):
            tag = ("python" if d.group(1) else d.group(2)) if d else ""
            j = i + 1
            while j < len(lines) and (not lines[j].strip() or lines[j].lstrip().startswith(":")) and j < i + 4:
                j += 1  # the directive's options and the blank line
            k = j
            while k < len(lines) and (not lines[k].strip() or lines[k][:1] in " \t"):
                k += 1
            while k > j and not lines[k - 1].strip():
                k -= 1
            if k > j and lines[j][:1] in " \t":
                import textwrap

                out.append((j + 1, k, tag, textwrap.dedent("\n".join(lines[j:k]))))
                i = k
                continue
        i += 1
    return sorted(out)


# fence tags that say the block is no code to run: output, a session, a configuration, a diff
_NOT_CODE_TAG = re.compile(r"^(?:not?[_-].*|text|txt|plain(?:text)?|console|output|log|shell|sh|bash|zsh|fish|"
                           r"powershell|ps1|bat|cmd|diff|patch|toml|json5?|ya?ml|ini|xml|html?|css|sql|dockerfile|"
                           r"makefile|cmake|none|ignore|compile_fail|should_panic)$", re.IGNORECASE)
_DIAGNOSTIC = re.compile(r"(?m)^\s*(?:error|warning)(?:\[\w+\])?:|^\s*-->\s")


def _example_score(code: str, lang: str | None, langs: set[str], names: set[str]) -> float:
    calls = _CALL.search(code) or (langs & {"ruby", "elixir"} and _BARE_CALL.search(code))
    if not calls or code.count("\n") + 1 > MAX_EXAMPLE_LINES or _DIAGNOSTIC.search(code):
        return 0.0
    if lang is not None and lang not in langs:
        return 0.0  # a shell session, a manifest snippet (`[dependencies]`), another language
    lines = [ln for ln in code.splitlines() if ln.strip()]
    if lines and sum(ln.lstrip().startswith(("$", "pip ", "npm ", "go get", "cargo ")) for ln in lines) > len(lines) / 2:
        return 0.0
    if all(IMPORT_ONLY.match(ln) for ln in lines):
        return 0.0  # how to bring it in (json5's `const JSON5 = require('json5')`) is no use of it
    from .codetext import mask_text

    bare = mask_text(code, lang or "")  # (written as code, not in a string: postcss's `require('postcss-nested')` in a config)
    named = {n for n in names if re.search(rf"(?<![\w$]){re.escape(n)}(?![\w$])", bare)}
    if not named:
        return 0.0
    uses = sum(1 for ln in lines if "=" in ln or ln.lstrip().startswith((">>>", "import", "use ", "#include", "from ", "@",
                                                                     "require ", "require_relative ", "alias "))
               or re.search(r"\(\s*(?:['\"\d]|:\w)", ln) or (langs & {"ruby", "elixir"} and _BARE_CALL.match(ln)))  # a call with a literal: it runs
    if not uses:
        return 0.0  # declarations (`redisContext *redisConnect(const char *ip, int port);`) show no use
    return len(named) + 0.5 * min(uses, 4) + (1.0 if lang else 0.0)


# an example's heading: "Usage", or a task (CsvHelper's guide: "Reading a CSV File" after "Newlines")
_TASK_HEAD = re.compile(r"^(?-i:[A-Z][a-z]+ing)\s+(?:an?|the|your)\s")  # a guide's task: "Reading a CSV File"
_EXAMPLE_HEAD = re.compile(r"(?i)\b(?:examples?|usage|quick ?start|getting started|synopsis|hello,? world|(?:simple|easy|how) to use)\b"
                           r"|(?i:^use$)"  # (konform's "### Use", before its "Detailed usage")
                           rf"|{_TASK_HEAD.pattern}")
_SETUP_HEAD = re.compile(r"(?i)\b(?:install\w*|cdn|download\w*|setup|set up|building|contribut\w*|licen[cs]e)\b")


def _leveled_headings(text: str) -> list[tuple[int, int, str]]:
    """(line, level, text) of a Markdown document's headings (`## Example` is level 2; a line
    underlined `===` is 1, `---` 2, any other underline 3)."""
    lines = text.splitlines()
    fenced, fence = set(), ""  # (a code block's `# In controllers` is a comment of its code: pundit's README)
    for k, ln in enumerate(lines):  # (CommonMark's fences: "```x```" on one line is inline code, no fence)
        mark = re.match(r"\s{0,3}(`{3,}|~{3,})(.*)$", ln)
        closes = bool(mark and fence and mark.group(1).startswith(fence) and not mark.group(2).strip())
        if mark and not fence and not ("`" in mark.group(2) and mark.group(1)[0] == "`"):
            fence = mark.group(1)
        if fence:
            fenced.add(k)
        if closes:
            fence = ""
    out = [(k + 1, len(m.group(1)), ln.lstrip("#=").strip()) for k, ln in enumerate(lines)
           if k not in fenced and (m := re.match(r"(#{1,6}|={1,6}(?=\s+\S))\s", ln))]  # (RDoc's `== Usage`)
    out += [(k + 1, {"=": 1, "-": 2}.get(lines[k + 1].strip()[0], 3), ln.strip()) for k, ln in enumerate(lines[:-1])
            if ln.strip() and k not in fenced and re.fullmatch(r"[=\-~^]{3,}", lines[k + 1].strip())]
    return sorted(out)


def _headings(text: str) -> list[tuple[int, str]]:
    """(line, text) of a Markdown document's headings (`## Example`, or a line underlined `===`/`---`)."""
    return [(at, h) for at, _level, h in _leveled_headings(text)]


def _sections_of(leveled: list[tuple[int, int, str]], line: int) -> list[str]:
    """The headings a line is under, outermost first (`Usage`, then its `Basics`), without the
    document's title (a guide called "Getting Started" is not one example)."""
    stack: list[tuple[int, int, str]] = []
    for at, level, h in leveled:
        if at >= line:
            break
        while stack and stack[-1][1] >= level:
            stack.pop()
        stack.append((at, level, h))
    return [h for at, _level, h in stack if not (leveled and at == leveled[0][0] and at <= 3)]


def example_of(p: Project, entries: list[Sym]) -> Example | None:
    """The first example that writes one of these entry points by any of their names, or the name the README binds
    the package to when the package is one of them (prompts' function, `const prompts = require('prompts')`; signale's
    instance, `module.exports = Object.assign(new Signale(), …)`)."""
    bound = package_binding(p, readme_code(p)) if any(e is package_function(p) or e.dotted in instance_sites(p) for e in entries) else ""
    return first_example(p, {n for e in entries for n in e.names} | ({bound} if bound else set()))


_PLAIN_WORDS = frozenset({"a", "an", "the", "simple", "basic", "quick", "short", "full", "complete", "usage", "code",
                          "minimal", "more", "some", "first", "example", "examples", "of", "and", "great", "c#", "f#",
                          "java", "kotlin", "python", "ruby", "go", "rust", "javascript", "typescript", "vb.net"})


def _general(head: str) -> bool:
    """An example or usage heading of the project as a whole ("Usage", "A simple example"), not of one feature of it
    (viper's "Remote Key/Value Store Examples (Unencrypted)", after its "Reading Config Files")."""
    m = _EXAMPLE_HEAD.search(head)
    if m is None:
        return False
    before = re.sub(r"\([^)]*\)", " ", head[:m.start()]).split()  # (a feature names itself in capitals: "Key/Value
    return sum(1 for w in before[1:] if w[:1].isupper() and w.lower() not in _PLAIN_WORDS) < 2  # Store"; "Show me an" does not)


def first_example(p: Project, names: set[str]) -> Example | None:
    """The project's first real usage example: a code block of the README (then of the guides,
    most introductory first, then an example file) in one of the project's languages that
    writes the project's own names, quoted exactly with its lines."""
    info = info_of(p)
    if info is None:
        return None
    langs = {lang for lang, _kind in p.files.values() if lang}
    if langs & {"c", "cpp"}:
        langs |= {"c", "cpp"}  # headers of a C++ library are often read as C
    if langs & {"javascript", "typescript"}:
        langs |= {"javascript", "typescript"}
    from .entry import foreign_imports, guides, not_a_guide

    docs = ([info.readme] if info.readme else []) + [g for g in guides(info) if not not_a_guide(g)][:12]
    if info.readme:  # a README that sends its reader to another (mustermann's to `mustermann/README.md`): that one next
        try:
            linked = _linked_readmes(info.read(info.readme), set(info.docs))
        except OSError:
            linked = []
        docs = docs[:1] + linked + [d for d in docs[1:] if d not in linked]
    for rel in docs:
        try:
            text = info.read(rel)
        except OSError:
            continue
        best: tuple[float, tuple[int, int, str, str]] | None = None
        found: list[tuple[int, tuple[int, int, str, str]]] = []
        leveled = _leveled_headings(text)
        heads = [(at, h) for at, _level, h in leveled]
        for blk in code_blocks(text, rel):
            if blk[2] and _NOT_CODE_TAG.match(blk[2]):
                continue  # axum's ```not_rust: a compiler's message, not a use of the project
            whole, blk = blk, _leading_part(blk)
            # (names another package's import binds, and what is called on them, are that package's: postcss's recipes
            # `const postcss = require('gulp-postcss')`, `postcss.sync(…)` of `require('postcss-js')`)
            fo = "|".join(re.escape(n) for n in sorted(foreign_imports(p, blk[3])))
            own = re.sub(rf"(?<![\w$.])(?:{fo})(?:\s*\.\s*[\w$]+)?(?![\w$])", " ", blk[3]) if fo else blk[3]
            sc = _example_score(own, _lang_of_tag(blk[2]) if blk[2] else None, langs, names)
            if sc >= 2.0:  # one that uses the project's names
                head = next((h for at, h in reversed(heads) if at < blk[0]), "")
                # a block of the opening, under the document's title alone, is the example the project
                # shows first (moshi's, before a later "Another example"); a section of a Usage section
                # is usage too (feign's "Basics" under "Usage"), unless cut to its leading part (not the whole
                # use: one that runs whole comes first)
                # (or before any heading: connect's README opens with a logo, a line and its example)
                # (a README with no title, whose first heading is a section below its later top-level ones, opens with that
                # section: zustand's logo, badges, then "## First create a store", before "# Recipes")
                untitled = leveled[0][1] > min(lv for _at, lv, _h in leveled) if leveled else False
                opening = not heads or blk[0] < heads[0][0] or ((heads[0][0] <= 3 or untitled) and (len(heads) < 2 or blk[0] < heads[1][0]))
                # (a task heading, "Storing a Single Argument", is a feature's section under another's, "Option Types")
                usage = (blk == whole or _general(head)) and any(_general(h) and (k == 0 or not _TASK_HEAD.match(h))
                                                                 for k, h in enumerate(_sections_of(leveled, blk[0])))
                found.append((2 if _SETUP_HEAD.search(head) else 0 if opening or usage else 1, blk))
        if found:  # the README's own first example: under its Example/Usage heading, never an install note
            best = (2.0, min(found, key=lambda f: f[0])[1])
        if best is not None:
            a, b, tag, code = best[1]
            # (an RDoc verbatim block says no language: a Ruby project's README writes Ruby)
            plain = "ruby" if rel.lower().endswith(".rdoc") and "ruby" in langs else "text"
            ex = Example(rel, a, b, _lang_of_tag(tag) or tag or plain, code, info.in_source(rel))
            ex = _then_run(ex, text, heads, info.in_source(rel))  # (or the README's command runs it: whenever's)
            cmd = command_script(p, code_blocks(text, rel)) if ex.then is None and not SERVING.search(ex.code) and rel == info.readme else None
            return replace(ex, then=Example(*cmd, info.in_source(cmd[0]))) if cmd else ex
    from .doc_examples import doc_examples

    for rel, a, b, doc_lang, code in doc_examples(p):  # the package's own doc comment (commons-csv's package-info.java)
        a, b, _tag, code = _leading_part((a, b, doc_lang, code))  # (getopts's helpers, then the `main` that parses)
        if _example_score(code, doc_lang, langs, names) >= 2.0:
            return Example(posixpath.join(info.prefix, rel) if info.prefix else rel, a, b, doc_lang, code, None)
    for rel in info.examples[:20]:
        try:
            text = info.read(rel)
        except OSError:
            continue
        lines = text.splitlines()
        from ..repo.classify import language_of

        lang = language_of(rel)
        if lang is None or len(lines) > MAX_EXAMPLE_LINES or _example_score(text, lang, langs | {lang}, names) < 1.5:
            continue
        return Example(rel, 1, len(lines), lang, text.rstrip("\n"), info.in_source(rel))
    from .usage_in_tests import examples_in_tests

    for rel, a, b, test_lang, code in examples_in_tests(p):  # the tests' own use (snakeyaml's `new Yaml()` … `yaml.load(…)`)
        if _example_score(code, test_lang, langs, names) >= 2.0:
            return Example(rel, a, b, test_lang, code, info.in_source(rel), from_tests=True)
    return None


def _linked_readmes(text: str, docs: set[str]) -> list[str]:
    """The project's other README files a README links to, in the order it names them (a relative
    link, or one into the repository's own tree: `…/blob/main/mustermann/README.md`), or a guide to its use
    (Stubble's "For how to use Stubble I'd recommend reading the how to use guide [here.](/docs/how-to.md)")."""
    out: list[str] = []
    for m in re.finditer(r"\]\(\s*([^)\s#]+)", text):
        rel = re.sub(r"^https?://[^)]*?/(?:blob|tree)/[^/]+/", "", m.group(1)).removeprefix("./").lstrip("/")
        said = text[max(0, text.rfind("\n", 0, m.start()) + 1):m.start()]  # (the link's line up to it)
        guide = re.search(r"(?i)(?:^|[/_-])(?:how-?to|usage|getting[-_]started|quick-?start|tutorial)[^/]*$", rel.rsplit(".", 1)[0]) \
            or re.search(r"(?i)\bhow to use\b|\busage\b", said)
        if (posixpath.basename(rel).lower() in ("readme.md", "readme.markdown", "readme.rst") or guide) and rel in docs and rel not in out:
            out.append(rel)
    return out




def _then_run(ex: Example, text: str, heads: list[tuple[int, str]], source_rel: str | None) -> Example:
    """The example with the block of its section that runs what it sets up: when the example calls
    no run itself (SERVING: `parse`, `run`, `listen`, …) and a short block later, before the
    next heading, calls one on a value the example uses (`flag.Int(…)`, then `flag.Parse()`); a long one
    is another example (JsonPath's `JsonPath.read(json, …)`, then a block of `parse`, `read`, `using`)."""
    # (step 1 of a numbered walk-through is run by the first block of step 2: easy-rules' "Then, fire it!")
    step = next_step(ex.first, ex.last, heads, len(text.splitlines()))
    then = next((Example(ex.rel, a, b, _lang_of_tag(tag) or ex.lang, code, source_rel) for a, b, tag, code in code_blocks(text, ex.rel)
                 if step and step[0] < a < step[1] and (_lang_of_tag(tag) or ex.lang) == ex.lang), None)
    if then is not None:
        return replace(ex, then=then)
    if SERVING.search(ex.code):
        return ex
    values = set(re.findall(r"(?<![\w$.])([A-Za-z_$][\w$]*)\s*\.\s*[A-Za-z_$][\w$]*\s*\(", ex.code))
    if shows_result(ex.code, values):
        return ex  # it prints what its call gives (pystache's `print pystache.render(…)`, then `Hi Mom!`): a whole run
    end = min([at for at, _h in heads if at > ex.last], default=len(text.splitlines()) + 1)
    # an example that only makes a value (prettytable's `table = PrettyTable()`, its rows added and the table
    # printed in later sections): the first short block of the document that runs or prints it
    made = set(re.findall(r"(?m)^\s*(?:>>>\s*)?(?:(?:var|let|const|val)\s+)?([a-z_][\w$]*)\s*:?=\s*(?:new\s+)?"
                          r"(?:[A-Za-z_]\w*(?:\.|::))*[A-Z][\w$.]*(?:<[^<>\n]*>)?(?:\s*\(|(?<=\.new)\s*$|\s*\{\s*$)", ex.code))
    # (Ruby's `TTY::Table.new(…)`, `TTY::Prompt.new` without arguments; Kotlin's `Validation<UserProfile> {` with a lambda)
    # (or makes it from a module's class: jsonpatch's tutorial `patch = jsonpatch.JsonPatch([…])` in "Creating a
    # Patch", then `result = patch.apply(doc)` in the next section, "Applying a Patch")
    modules = values - set(re.findall(r"(?<![\w$.])([A-Za-z_$][\w$]*)\s*:?=", ex.code))
    built = made if not values or (made and values == modules) else set()
    after = min([at for at, _h in heads if at > end], default=len(text.splitlines()) + 1)
    shown = PRINTS.get(ex.lang, ("$^", ""))[0]
    # (or defines a class a later block of its section hands over: kotlin-argparser's `class MyArgs(…)`, `::MyArgs`)
    defined = set(re.findall(r"(?m)^\s*(?:(?:data|open|public|internal)\s+)*class\s+([A-Z]\w*)\s*\([^)]*\b[A-Z]\w*", ex.code))
    for a, b, tag, code in code_blocks(text, ex.rel) if defined else ():
        if ex.last < a < end and (_lang_of_tag(tag) or ex.lang) == ex.lang and b - a <= MAX_EXAMPLE_LINES and \
                not re.search(r"(?m)^\s*class\s", code) and any(re.search(rf"::{d}\b", code) for d in defined):
            return replace(ex, then=Example(ex.rel, a, b, _lang_of_tag(tag) or ex.lang, code, source_rel))
    for a, b, tag, code in code_blocks(text, ex.rel):
        # (its lines of code: tty-table's `puts table.render(:ascii)` shows the table in eight `# =>` comment lines)
        if ex.last < a and len([ln for ln in code.splitlines() if ln.strip() and not ln.lstrip().startswith(("#", "//"))]) <= 3 and \
                (a < end and any(m.group(1) in values for m in SERVING.finditer(code))
                 or any(m.group(1) in built for m in SERVING.finditer(code))
                 or any(v in built for m in re.finditer(shown, code) for v in m.groups() if v)
                 or (values or made) and a < after and any(re.search(rf"(?<![\w$.]){re.escape(v)}\s*(?:\.\s*\w+\s*)?\(", code) for v in built)):
            return replace(ex, then=Example(ex.rel, a, b, _lang_of_tag(tag) or ex.lang, code, source_rel))
        # (a value the section never runs, sprache's `var parseA = Parse.Char('A').AtLeastOnce();`, then a block that
        # makes and runs its own, `identifier.Parse(" abc123  ")`: the section's example is that one, which runs whole)
        own = set(re.findall(r"(?<![\w$.])([A-Za-z_$][\w$]*)\s*:?=(?!=)", code))
        if built and ex.last < a < end and (_lang_of_tag(tag) or ex.lang) == ex.lang and not any(v in code for v in built) \
                and any(m.group(1) in own for m in SERVING.finditer(code)) and b - a <= MAX_EXAMPLE_LINES:
            return Example(ex.rel, a, b, _lang_of_tag(tag) or ex.lang, code, source_rel)
    return ex


def entry_points(p: Project, limit: int = 5) -> list[Sym]:
    """The names a user writes first: the definitions the project's first example writes, in its
    order; then the others the README's code writes most and earliest; then the root files'."""
    key = ("entry_points", limit)
    if key not in p._keys:
        cands = _entry_candidates(p, 12)
        ex = first_example(p, {n for e in cands for n in e.names})
        at = {e.name: min((k for n in e.names if (k := _first_at(ex.code, n)) >= 0), default=-1) for e in cands} if ex else {}
        ordered = sorted(cands, key=lambda e: (at.get(e.name, -1) < 0, at.get(e.name, 0), e.kind == "method"))
        p._keys[key] = [e for e in ordered if at.get(e.name, -1) >= 0][:limit] + \
            [e for e in ordered if at.get(e.name, -1) < 0][:max(0, limit - sum(1 for v in at.values() if v >= 0))]
    return list(p._keys[key])[:limit]


def _first_at(code: str, name: str) -> int:
    m = re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$]|::[A-Z])", code)  # (`Kramdown::Document`: a namespace)
    return m.start() if m else -1


def opening_symbol(p: Project) -> Sym | None:
    """The first definition a user writes in the project's first example (tinydb's `TinyDB`,
    chi's `NewRouter`): the book's first chapter is the one that holds it."""
    eps = entry_points(p)
    # a top-level name, not a member (express's `res.send = function` is a member of `res`)
    top = [e for e in eps if e.kind != "method" and "." not in e.dotted] or eps
    return top[0] if top else None


def _entry_candidates(p: Project, limit: int) -> list[Sym]:
    import math

    from .entry import readme_code, readme_weight, root_files

    code = readme_code(p)

    def times(n: str) -> int:
        return len(re.findall(rf"(?<![\w$]){re.escape(n)}(?![\w$])", code))

    scored = [(readme_weight(p, s) * (1 + math.log2(max(1, max(map(times, s.names))))), s) for s in p.symbols()
              if p.files.get(s.rel, (None, ""))[1] == "code" and s.kind not in NOT_ENTRIES and not _config_macro(p, s)]
    _NOT_TOP = ("method", "variable", "impl", "module", "import")  # (rainbow's modules `Rainbow` hide no `def Rainbow`)
    plain = {s.short for w, s in scored if w > 0 and s.kind not in _NOT_TOP}
    scored = [(w, s) for w, s in scored if s.kind != "method" or s.short not in plain]  # `click.command`, not `Group.command`
    out: list[Sym] = []
    for _w, s in sorted((x for x in scored if x[0] > 0),
                       key=lambda x: (-round(x[0], 3), x[1].kind == "method", -x[1].score)):
        if all(o.short != s.short for o in out) and s.kind not in ("variable", "impl", "module", "import"):
            out.append(_implemented(p, s))
        if len(out) >= limit:
            return out
    own = project_name(p.root).lower()
    roots = root_files(p) | {f for f in p.code_files() if f.rsplit("/", 1)[-1].split(".", 1)[0].lower() == own}
    for s in p.symbols(within=sorted(roots)):
        if s.d.exported and s.kind not in NOT_ENTRIES and all(o.short != s.short for o in out):
            out.append(s)
        if len(out) >= limit:
            break
    return out + _reexported(p, out)[:max(0, limit - len(out))]


def _reexported(p: Project, have: list[Sym]) -> list[Sym]:
    """What a Rust crate's root re-exports (humantime's lib.rs holds only `pub use self::duration::{parse_duration,
    …}`), best-ranked first: its public API, when the README's code names none of it."""
    from .entry import _is_top_entry

    names: list[str] = []
    for rel in sorted(r for r in p.code_files() if r.endswith(".rs") and _is_top_entry(r)):
        text = "\n".join(p.lines_of(rel))
        for m in re.finditer(r"(?m)^\s*pub\s+use\s+[\w:]+::(?:\{([^}]*)\}|(\w+))\s*;", text):
            names += [re.split(r"\s+as\s+", n.strip())[0] for n in (m.group(1) or m.group(2)).split(",") if n.strip()]
    found = [x for n in dict.fromkeys(names) for x in p.find(n) if x.short == n and "." not in x.dotted
             and x.d.exported and x.kind not in NOT_ENTRIES and all(o.short != n for o in have)]
    return sorted(found, key=lambda x: -x.score)


_DECLARED = (".d.ts", ".d.mts", ".d.cts")


def _implemented(p: Project, s: Sym) -> Sym:
    """A name a TypeScript declaration file declares, at its one JavaScript definition (dotenv's `config` of
    `lib/main.d.ts` is `lib/main.js`'s function): the code a user's call runs."""
    if not s.rel.endswith(_DECLARED):
        return s
    # (`export const compile: typeof Handlebars.compile` declares handlebars' `function compile` of compiler.js)
    kinds = {s.kind} | ({"function", "class"} if s.kind in ("constant", "variable") else set())
    impl = [x for x in p.find(s.short) if x.dotted == s.dotted and x.kind in kinds and not x.rel.endswith(_DECLARED)]
    if len(impl) > 1:  # (fast-xml-parser's `XMLParser` of src/xmlparser/ and of its next version's src/v6/): the one
        # the declaration's own module imports (`lib/fxp.d.cts` declares `src/fxp.js`, which imports ./xmlparser/XMLParser.js)
        from .entry import relative_imports

        stem = posixpath.basename(s.rel).split(".", 1)[0]
        modules = [f for f in p.code_files() if not f.endswith(_DECLARED) and posixpath.basename(f).split(".", 1)[0] == stem]
        reached = {t for f in modules for t in relative_imports(p, f)}
        impl = [x for x in impl if x.rel in reached]
    return impl[0] if len(impl) == 1 else s


def _config_macro(p: Project, s: Sym) -> bool:
    """A C/C++ macro a user does not write first (FMT_ASSERT, one named like the project), or a
    word of the language taken for a definition."""
    if s.lang in ("c", "cpp") and s.short in CXX_NAMES:
        return True
    return s.kind == "macro" and (s.short.isupper() or (s.lang in ("c", "cpp") and
                                                        s.short.lower() == project_name(p.root).lower()))
