"""Resolving citations against a source tree, with no model: the file exists (read through the
safe reader: inside the source, a regular file), the lines exist, and the code names the
sentence gives occur in the cited lines. Also the coverage of a chapter's claims."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..text.markdown import split_lines
from .cite import Block, Citation, blocks, last_part

MAX_BYTES = 8_000_000


class SourceFiles:
    """The lines of source files, read once each through the safe reader (None: why not)."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self._files: dict[str, list[str] | str] = {}

    def paths(self) -> list[str]:
        """The files asked for so far (whether they could be read or not)."""
        return list(self._files)

    def lines(self, rel: str) -> list[str] | str:
        """The file's lines, or a string saying why it cannot be cited."""
        if rel not in self._files:
            self._files[rel] = self._read(rel)
        return self._files[rel]

    def _read(self, rel: str) -> list[str] | str:
        p = rel.replace("\\", "/")
        if p.startswith(("/", "~")) or re.match(r"^[A-Za-z]:", p) or ".." in p.split("/"):
            return "is outside the source directory"
        from ..repo.read import SourceReadError, read_source

        try:
            lines = split_lines(read_source(self.root, p, max_bytes=MAX_BYTES).removeprefix("\ufeff"))
        except (SourceReadError, OSError) as e:
            why = str(e).removeprefix(f"source file {p}: ")
            return "does not exist in the source" if "does not exist" in why else f"cannot be read ({why})"
        return lines[:-1] if lines and lines[-1] == "" else lines  # the newline ending the last line starts none


def cited_text(c: Citation, files: SourceFiles) -> str | None:
    lines = files.lines(c.path)
    if isinstance(lines, str) or not (1 <= c.first <= c.last <= len(lines)):
        return None
    return "\n".join(lines[c.first - 1:c.last])


def citation_problem(c: Citation, files: SourceFiles) -> str | None:
    """Why a citation does not resolve (file, lines), or None."""
    lines = files.lines(c.path)
    if isinstance(lines, str):
        return f"cites {c.path}, which {lines}"
    if c.first < 1 or c.last < c.first:
        return f"cites lines {c.first}-{c.last} of {c.path}: not a range of lines"
    if c.last > len(lines):
        return f"cites lines {c.first}-{c.last} of {c.path}, which has {len(lines)} lines"
    return None


def occurs(name: str, text: str) -> bool:
    part = last_part(name)
    return bool(re.search(rf"(?<![\w$]){re.escape(part)}(?![\w$])", text))


def missing_names(names: list[str], cites: list[Citation], files: SourceFiles) -> list[str]:
    """The names none of the (resolving) cited ranges contain."""
    texts = [t for c in cites if (t := cited_text(c, files)) is not None]
    if not texts:
        return []
    joined = "\n".join(texts)
    return [n for n in names if not occurs(n, joined)]


# what a sentence claims beyond naming code, that its cited lines must show (issue 34)
MAX_SPAN = 120  # lines: a longer citation must be the definition the sentence is about
_CALLS = re.compile(r"`([^`\s]+)` calls `([^`\s(]+)")
_STRING = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
_MODS = (r"(?:@\w+(?:\([^)\n]*\))?\s+)*(?:(?:pub(?:\([^)]*\))?|export|default|async|static|public|private|"
         r"protected|internal|fileprivate|open|final|abstract|override|sealed|data|inline|suspend|unsafe|const|"
         r"lazy|implicit|case|mutating|extern|virtual|partial|readonly|synchronized|native)(?:\[\w+\])?\s+)*")
# A line that opens a definition, in the languages the map reads: a keyword's (`def`, `fn`, `func`,
# `fun`, `class`, Elixir's `defmodule`, Ruby's `def self.x`, Scala's `private[pkg] def x[C](`) ...
_DEF_LINE = re.compile(r"^[ \t]*" + _MODS + r"(?:def|defp|defmacro|defmodule|class|object|trait|fun|func|function|fn|"
                       r"struct|interface|enum|type|protocol|extension|module|macro_rules!)\s+(?:\([^)]*\)\s*)?"
                       r"(?:<[^>\n]*>\s*)?(?:[A-Za-z_][\w<>, ?]*\.)?([A-Za-z_$][\w$]*)", re.M)
# ... a C-family method with its result type before its name (Java, C#, C++: `public static Date parse(`),
# never a statement (`return f(`, `throw new E(`, a call that ends with `;`) ...
_TYPED_DEF = re.compile(r"^[ \t]*" + _MODS + r"(?!(?:return|new|throw|else|await|yield|case|delete|typeof|goto|echo)\b)"
                        r"(?:[\w<*&][\w.<>\[\],?*&]*\s+)+([A-Za-z_]\w*)\s*(?:<[^()\n]*>)?\s*\([^;]*$", re.M)  # (not a `? f(x) :` branch)
# ... a class member in JS/TS, also with a result type (`static create(input: Input): ResponsePromise {`) ...
_JS_METHOD = re.compile(r"^[ \t]+(?:(?:public|private|protected|static|async|readonly|override|get|set)\s+)*"
                        r"([A-Za-z_$][\w$]*)\s*(?:<[^()\n]*>)?\s*\([^;]*\)\s*(?::\s*[^{;=]+)?\{\s*$", re.M)
# ... and a top-level binding or assignment (`const proto = module.exports = {`, `res.get = function`).
_BOUND = re.compile(r"^(?:export\s+)?(?:const|let|var|val)\s+([A-Za-z_$][\w$]*)\s*(?::[^=\n]+)?=(?!=)"
                    r"|^(?:[\w$]+\.)+([\w$]+)\s*=\s*(?:async\s+)?(?:function\b|class\b|\()", re.M)
_COMMENT = re.compile(r"(?m)(?:^|(?<=\s))(?:#(?![\[!])|//).*$|/\*[\s\S]*?\*/")
_NOT_METHODS = {"if", "for", "while", "switch", "catch", "function", "return", "with", "elif", "else"}


def sentence_calls(text: str) -> list[tuple[str, str]]:
    """The (caller, callee) pairs a sentence states: "`X` calls `Y`"."""
    return _CALLS.findall(text)


# a line that the looser definition patterns take for a head but that runs code (`if parse(x,`)
_CONTROL = re.compile(r"\s*(?:if|elif|else|while|for|foreach|switch|catch|match|when|unless|until|and|or|not|"
                      r"assert|raise|del|print|go|defer|echo|puts|with|try|do|let|var|val|const)\b")


def definition_head(line: str, part: str) -> bool:
    """The line, read alone (the patterns' `[^;]*` would run on into the next lines), opens a
    definition of `part` rather than running code (`if parse(x,`, `foo(function () {`)."""
    if _CONTROL.match(line):
        return False
    for rx in (_DEF_LINE, _TYPED_DEF, _JS_METHOD, _BOUND):
        m = rx.search(line)
        if m and part in m.groups() and not (rx is _JS_METHOD and re.search(r"\bfunction\b|=>", line)):
            return True
    return False


def calls_in(name: str, text: str, trailing: bool = False) -> bool:
    """The code calls `name` (`name(`, `.name(`, `name!(`, `new Name`), outside its strings and
    outside the lines that define it: `def request(` is no call of `request`, and a sentence that
    cites both the caller and the callee's head must show the call in the caller's lines."""
    part = last_part(name)
    code = _calling_code(text, part, trailing)
    owner = re.split(r"::|\.", name)[-2] if part == "initialize" and re.search(r"::|\.", name) else ""
    if owner and re.search(rf"(?<![\w$]){re.escape(owner)}\s*\.\s*new\b", code):
        return True  # Ruby's `Connection.new(…)` runs `Connection#initialize`
    if part == "call" and re.search(r"[\w)\]]\s*\.\(", code):
        return True  # Ruby's `question.(message)` is `question.call(message)`
    bare = part[-1:] in ("!", "?")  # Ruby's `dispatch!`, `valid?`: a method, called without parentheses too
    # by another name the cited lines give it (pyparsing's `_parse = _parseNoCache`, Ruby's `alias :to_s :render`)
    others = [x for t in re.findall(rf"(?m)^\s*([A-Za-z_]\w*)\s*=\s*{re.escape(part)}\s*$|^\s*alias(?:_method)?[ \t(]+:?"
                                    rf"([A-Za-z_]\w*[?!]?)[ \t]*,?[ \t]+:?{re.escape(part)}\b", code) for x in t if x]
    alt = "|".join(re.escape(n) for n in [part, *others])
    lam = rf"|\.\s*(?:{alt})\s*\{{" if trailing else ""  # (Kotlin's `loader().get { … }`: a link given only a lambda)
    # (type arguments: Rust's `::<T>`, Java's and C#'s `<T>`, Go's `toNumberE[int](…)`)
    return bool(re.search(rf"(?<![\w$])(?:{alt})\s*(?:!\s*)?(?:::<[^()]*>|<[^()]*>|\[[A-Za-z_][\w.*, \[\]]*\])?\s*\(|\bnew\s+{re.escape(part)}\b{lam}", code)
                or (bare and re.search(rf"(?<![\w$.:@]){re.escape(part)}(?![\w=])", code)))


def calls_bare(name: str, text: str) -> bool:
    """Ruby calls a method without parentheses (`default_uri_parser.call(url)`, `route!`, `invoke do`,
    `request.perform`: in Ruby `x.name` is always a call): its name written bare, outside strings and
    comments and the lines that define it, not assigned to."""
    part = last_part(name)
    code = _calling_code(text, part)
    if part == "initialize" and re.search(r"(?<![\w$:@.])(?:self\s*\.\s*)?new\b(?![!?])", code):
        return True  # `new(…)` in a class method (addressable's `URI.parse`) makes its own class's instance
    return bool(re.search(rf"(?<![\w$:@]){re.escape(part)}(?![\w!?])(?!\s*(?:\|\|)?=[^=~>])", code))


def reads_lazy(name: str, text: str) -> bool:
    """Kotlin runs a `val name by lazy { … }` the cited lines define when they read it (kotlin-argparser's `force`
    reads `parseOptions`): its name written bare on another line, outside strings and comments, not assigned to."""
    part = last_part(name)
    code = _COMMENT.sub("", _STRING.sub('""', text))
    if not re.search(rf"\bval\s+{re.escape(part)}\s*(?::[^=\n]*)?\bby\s+lazy\b", code):
        return False
    return any(re.search(rf"(?<![\w$.]){re.escape(part)}(?![\w$(])(?!\s*=[^=])", ln) and not re.search(r"\bval\s", ln)
               for ln in code.split("\n"))


# a definition's head that ends in an expression body (Kotlin's, Scala's `= …`, C#'s `=> …`): its code follows
EXPR_BODY = re.compile(r"\)\s*(?::\s*[\w<>?,. ]+)?\s*(?:=|=>)\s")
# a keyword that opens a definition, where a line `name(args) {` may be a call with a trailing lambda
_DEF_WORD = re.compile(r"\b(?:fun|def|func|function|init|void|public|private|protected|static)\b")


def _calling_code(text: str, part: str, trailing: bool = False) -> str:
    """`text` where a call of `part` may be read: strings and comments blanked (`# see put()` is no
    call), and the lines that define `part` left out, but for an expression body after the head
    (`fun logger(name: String) = KLoggerFactory.logger(name)`). With `trailing` (Kotlin, Swift, Scala,
    Groovy) `at(level, marker) {` with no keyword that defines is a call with a trailing lambda."""
    code = _COMMENT.sub("", _STRING.sub('""', text))

    def kept(ln: str) -> str:
        if part not in ln or not definition_head(ln, part) or (trailing and not _DEF_WORD.search(ln)):
            return ln
        body = EXPR_BODY.search(ln)
        return " " * body.end() + ln[body.end():] if body else ""

    return "\n".join(kept(ln) for ln in code.split("\n"))


def _defined_lines(text: str) -> dict[str, int]:
    """Name → the first line (0-based, within `text`) where the code defines it."""
    found: list[tuple[int, str]] = []
    for rx in (_DEF_LINE, _TYPED_DEF, _JS_METHOD, _BOUND):
        for m in rx.finditer(text):
            name = next(g for g in m.groups() if g) if any(m.groups()) else ""
            if name and name not in _NOT_METHODS:
                found.append((text.count("\n", 0, m.start()), name))
    out: dict[str, int] = {}
    for line, name in sorted(found):  # the first line that defines each name
        out.setdefault(name, line)
    return out


def _default_export_of(name: str, got: list[tuple[Citation, str]]) -> bool:
    """A cited JS/TS module's anonymous default export is `name`: the map names it by its file (qs's
    `module.exports = function (str, opts)` in parse.js is `parse`), and the cited lines show it."""
    from ..repo.commonjs import default_export, file_name

    return any(c.path.endswith((".js", ".mjs", ".cjs", ".ts")) and file_name(c.path) == last_part(name)
               and any(default_export(ln) for ln in t.split("\n")) for c, t in got)


def claim_problem(names: list[str], calls: list[tuple[str, str]], cites: list[Citation],
                  files: SourceFiles) -> str | None:
    """Why cited lines do not show their sentence, or None when they do: every name occurs in
    them, every callee the sentence says is called is called there, and a citation longer than
    MAX_SPAN lines is the definition of a name the sentence gives, not the class or module around
    a smaller unit that shows it. One test for R1, `book scan` and the claims' health."""
    got = [(c, t) for c in cites if (t := cited_text(c, files)) is not None]
    if not got:
        return None
    joined = "\n".join(t for _, t in got)
    gone = [n for n in names if not occurs(n, joined) and not _default_export_of(n, got)]
    if gone:
        return "names " + ", ".join(f"`{n}`" for n in gone) + ", which the cited lines do not contain"
    ruby = "\n".join(t for c, t in got if c.path.endswith((".rb", ".rake")))
    trailing = any(c.path.endswith((".kt", ".kts", ".swift", ".scala", ".groovy")) for c, _t in got)
    for caller, callee in calls:
        if not calls_in(callee, joined, trailing) and not (ruby and calls_bare(callee, ruby)) \
                and not (trailing and reads_lazy(callee, joined)):
            return f"says `{caller}` calls `{callee}`, but the cited lines make no call to `{last_part(callee)}`"
    for c, t in got:
        if c.last - c.first + 1 <= MAX_SPAN:
            continue
        defined = _defined_lines(t)
        own = min(defined.values(), default=0)
        inner = [n for n in names if defined.get(last_part(n), -1) > own]
        heads = [n for n in names if defined.get(last_part(n), -1) == own]
        if inner and not heads:
            n = inner[0]
            at = c.first + defined[last_part(n)]
            return (f"cites {c.last - c.first + 1} lines ({c.ref.split('#')[-1]}) for `{n}`, which is defined at "
                    f"line {at}: cite its own lines")
        # the span opens a definition: after its doc comment, or after its decorators however many
        # (`@click.command()` and twenty `@click.option(…)` lines above a `def main`)
        opens = t.lstrip().startswith("@") and all(not ln.strip() or ln.startswith((" ", "\t", "@", ")"))
                                                    for ln in t.split("\n")[:own])
        one_unit = bool(defined) and (own <= 8 or opens)
        # A long span passes when it is the definition of a name the sentence gives (`heads`), or
        # when it is one definition and the sentence names only what is used inside it ("`f` uses
        # `A`, `B`": the claim is about the whole body); never a class cited for one of its methods.
        if not heads and not inner and not one_unit:
            return f"cites {c.last - c.first + 1} lines, more than the {MAX_SPAN} a sentence can be checked against"
    return None


@dataclass(frozen=True)
class Problem:
    line: int
    message: str


@dataclass(frozen=True)
class Coverage:
    claims: int  # prose blocks that name code
    cited: int  # of them, those carrying a citation
    citations: int
    unresolved: int

    @property
    def share(self) -> float:
        return self.cited / self.claims if self.claims else 1.0

    def state(self, minimum: float) -> str:
        """uncovered | partial | covered."""
        if self.unresolved == 0 and self.share >= minimum:
            return "covered"
        return "partial" if self.cited or self.citations else "uncovered"

    def as_dict(self) -> dict[str, float | int]:
        return {"claims": self.claims, "cited": self.cited, "citations": self.citations,
                "unresolved": self.unresolved, "share": round(self.share, 3)}


def resolve(md: str, root: Path, files: SourceFiles | None = None) -> tuple[list[Problem], list[Block], Coverage]:
    """(unresolved citations, uncited claim blocks, coverage) of a chapter."""
    files = files or SourceFiles(root)
    probs: list[Problem] = []
    uncited: list[Block] = []
    bs = blocks(md)
    n_cites = 0
    for b in bs:
        n_cites += len(b.cites)
        if b.is_claim and not b.cites:
            uncited.append(b)
        for c in b.cites:
            why = citation_problem(c, files)
            if why:
                probs.append(Problem(c.line, f"citation [{c.label}] {why}"))
        for s in b.sentences:
            if not s.cites:
                continue
            why = claim_problem(s.names, sentence_calls(s.text), s.cites, files)
            if why:
                refs = ", ".join(c.ref for c in s.cites)
                probs.append(Problem(s.cites[0].line, f"the sentence {why} ({refs}): cite the lines that show it"))
    claims = sum(1 for b in bs if b.is_claim)
    cited = sum(1 for b in bs if b.is_claim and b.cites)
    bad = {p.line for p in probs}
    return probs, uncited, Coverage(claims, cited, n_cites, len(bad))
