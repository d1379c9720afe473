"""Code as text, for resolving what it refers to: the insides of strings and comments blanked (a
docstring's `pop()` is no call), and the function literals a definition returns rather than runs
(a middleware's handler: its calls happen later, per request)."""

from __future__ import annotations

import re

# a whole-line comment (`// …`, `# …`), not a C preprocessor line nor a Rust attribute
LINE_COMMENT = re.compile(r"(?m)^[ \t]*(?://|#(?![\[!]|\s*(?:define|include|if|endif|else|elif|undef|pragma)\b)).*$")

_TRIPLE = re.compile(r'(?s)"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'')
_BLOCK_COMMENT = re.compile(r"(?s)/\*.*?\*/")
_DOUBLE = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_SINGLE = re.compile(r"'(?:[^'\\\n]|\\.)*'")


def mask_text(code: str, lang: str) -> str:
    """The code with the insides of its strings, docstrings and block comments blanked (offsets
    and line breaks kept): `:meth:`RequestContext.pop()`` in a docstring is no call. One left-to-right
    pass, so that chi's route `"/*"` opens no comment. Rust's `'a` is a lifetime, not a quote, so
    there only double quotes open a string; so in Haskell, where `foldl'` is a name."""
    parts = [_TRIPLE.pattern] if lang == "python" else [_BLOCK_COMMENT.pattern.removeprefix("(?s)")]
    parts.append(_DOUBLE.pattern)
    if lang not in ("rust", "haskell"):
        parts.append(_SINGLE.pattern)
    rx = re.compile("(?s)" + "|".join(f"(?:{x.removeprefix('(?s)')})" for x in parts))

    def blank(m: re.Match) -> str:
        s = m.group(0)
        keep = 3 if s[:3] in ('"""', "\'\'\'") else (2 if s.startswith("/*") else 1)
        if len(s) < 2 * keep:
            return s
        return s[:keep] + re.sub(r"[^\n]", " ", s[keep:-keep]) + s[-keep:]

    return rx.sub(blank, code)


_GO_FUNC_LIT = re.compile(r"(?<![\w$])func\s*\(")
_JS_FUNC_LIT = re.compile(r"(?<![\w$.])function\b\s*[\w$]*\s*\(|(?:\([^()]*\)|[\w$]+)\s*=>\s*\{")


_RUNS_NOW = re.compile(r"(?<![\w$])(?:reduce|reduceRight|map|forEach|filter|some|every|find|findIndex|flatMap|sort)"
                       r"(?:\.call|\.apply)?\s*\([^()]*$")


def deferred_spans(code: str, lang: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the function literals a definition returns or stores rather than runs
    (a Go or JavaScript middleware: `fn := func(w, r) {…}; return http.HandlerFunc(fn)`, `return
    function (req, res, next) {…}`; a literal's field `Run: func(…) {…}`; `c.f = func(…) {…}`): their
    calls happen later, per request or when the field is called, not when the definition is
    called, so they are not its calls."""
    rx = _GO_FUNC_LIT if lang == "go" else _JS_FUNC_LIT if lang in ("javascript", "typescript") else None
    if rx is None:
        return []
    out: list[tuple[int, int]] = []
    first_brace = code.find("{")
    for m in rx.finditer(code):
        if m.start() <= first_brace:
            continue  # the definition's own signature
        if any(a <= m.start() < b for a, b in out):
            continue  # inside a literal already deferred
        open_at = code.find("{", m.end() - 1 if code[m.end() - 1] == "{" else m.end())
        if open_at < 0:
            continue
        depth, end = 0, len(code)
        for j in range(open_at, len(code)):
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            if depth == 0:
                end = j + 1
                break
        line_start = code.rfind("\n", 0, m.start()) + 1
        head = code[line_start:m.start()]
        named = re.search(r"([A-Za-z_$][\w$]*)\s*(?::=|=)\s*$", head)
        # (a literal an array's own loop runs now is no handler: turndown's `return reduce.call(nodes, function (…) {`)
        returned = bool(re.search(r"\breturn\b", head)) and not _RUNS_NOW.search(head) or (
            named is not None and re.search(rf"\breturn\b[^\n;]*(?<![\w$]){re.escape(named.group(1))}(?![\w$])",
                                            code[end:]) is not None)
        # stored for later, not run: a struct or object literal's field (`ValidArgsFunction: func(…) {…}`,
        # `onerror: function (…) {…}`) or a field assigned (`c.helpFunc = func(…)`, `this.fn = (…) => {…}`)
        stored = re.search(r"(?:^|[{,(]\s*|^\s*)[A-Za-z_$][\w$]*\s*:\s*$|[\w$)\]]\.[A-Za-z_$][\w$]*\s*=\s*$", head)
        if returned or stored:
            out.append((m.start(), end))
    return out


def top_split(e: str, sep: str) -> list[str]:
    """`e` split at `sep` where no bracket is open."""
    parts, depth, start = [], 0, 0
    rx = re.compile(sep)
    j = 0
    while j < len(e):
        c = e[j]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0:
            m = rx.match(e, j)
            if m and m.end() > j:
                parts.append(e[start:j].strip())
                start = j = m.end()
                continue
        j += 1
    parts.append(e[start:].strip())
    return [x for x in parts if x]


def closing(text: str, at: int) -> int:
    """The index of the bracket that closes the one at `at`, or -1."""
    depth = 0
    for j in range(at, len(text)):
        if text[j] in "([{":
            depth += 1
        elif text[j] in ")]}":
            depth -= 1
            if depth == 0:
                return j
    return -1


def opening(text: str, at: int) -> int:
    """The index of the bracket that opens the one closing at `at` (`at` itself when it closes none)."""
    depth = 0
    for j in range(at, -1, -1):
        if text[j] in ")]}":
            depth += 1
        elif text[j] in "([{":
            depth -= 1
            if depth == 0:
                return j
    return at


def call_args(code: str, open_paren: int) -> str:
    """The text between the `(` at `open_paren` and its `)` (to the end when unclosed)."""
    depth = 0
    for j in range(open_paren, len(code)):
        if code[j] == "(":
            depth += 1
        elif code[j] == ")":
            depth -= 1
            if depth == 0:
                return code[open_paren + 1:j]
    return code[open_paren + 1:]


def go_qualifier(name: str, body: str) -> bool:
    """Whether Go code uses `name` as a package's qualifier: it imports it (an example's own `import "…/html"`,
    whatever it names `html` later), or declares no local nor parameter of that name."""
    n = re.escape(name)
    if re.search(rf'(?m)^\s*(?:import\s+)?(?:{n}\s+)?"[^"\n]*\b{n}"', body):
        return True
    return not re.search(rf"(?<![\w.]){n}\s*(?::=|,[\w\s,]*:=)|\bvar\s+{n}\b|[(,]\s*{n}\s+[\w*\[]", body)
