"""The named functions a JavaScript, TypeScript, Python or Rust function declares in its own body (issue 35): yargs-parser's
`parse` declares `setArg` and `setKey` and calls them; body-parser's `json` returns `function jsonParser (req,
res, next)`; a Python decorator (tenacity's `retry`) returns the `wrap` it defines. The map leaves local definitions out (a book's chapters are about what a module defines), but
the main path runs through them: they are steps of their own here, found on demand, named after their
enclosing definition (`YargsParser.parse.setArg`), and a bare call in that body (or in a sibling's) reaches
them before any function of the module, as JavaScript's scopes say."""

from __future__ import annotations

import re

from ..repo.parse import Definition
from .project import Project, Sym

LANGS = ("javascript", "typescript", "tsx", "python", "rust")
_PY_DEF = re.compile(r"^([ \t]+)(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(")

# `function name (`, `return function name (`, `const name = function (…) {`, `const name = (…) => {`
# (typed too: ofetch's `const $fetchRaw: $Fetch["raw"] = async function $fetchRaw<…>(`)
_LOCAL = re.compile(r"(?m)^[ \t]+(?:return\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(|"
                    r"^[ \t]+(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=\n]+)?=\s*(?:async\s+)?"
                    r"(?:function\b\s*\*?\s*[\w$]*\s*(?:<[^(){};]*>\s*)?\(|\([^()\n]*\)\s*(?::\s*[^=\n{]+)?=>\s*\{|[A-Za-z_$][\w$]*\s*=>\s*\{)")
# Rust's `fn inner<E>(engine: &E, input: &[u8]) -> String where E: Engine {` (rust-base64's `Engine::encode`);
# its empty second group stands for _LOCAL's second name
_RUST_LOCAL = re.compile(r"(?m)^[ \t]+(?:(?:pub(?:\([^)]*\))?|const|async|unsafe)\s+)*fn\s+([A-Za-z_]\w*)()\s*(?:<[^{(]*>)?\s*\(")


def local_functions(p: Project, s: Sym) -> list[Sym]:
    """The named functions declared directly in `s`'s body (not inside one of them), each a Sym of
    `s`'s file and lines; [] for another language or kind."""
    key = ("local_defs", s.rel, s.d.start_line)
    if key in p._keys:
        return list(p._keys[key])
    out: list[Sym] = []
    if s.lang == "python" and s.kind in ("function", "method") and s.lines > 2:
        for first, last, name in _python_locals(p.lines_of(s.rel)[s.d.start_line - 1:s.d.end_line]):
            out.append(_local(p, s, name, s.d.start_line + first, s.d.start_line + last,
                              p.lines_of(s.rel)[s.d.start_line + first - 1].strip()))
    elif s.lang in LANGS and s.kind in ("function", "method") and s.lines > 2:
        from .codetext import mask_text

        code = mask_text("\n".join(p.lines_of(s.rel)[s.d.start_line - 1:s.d.end_line]), s.lang)
        first_brace = code.find("{")
        taken: list[tuple[int, int]] = []
        for m in (_RUST_LOCAL if s.lang == "rust" else _LOCAL).finditer(code):
            if first_brace < 0 or m.start() <= first_brace or any(a <= m.start() < b for a, b in taken):
                continue  # its own head, or inside a local already found (that one's local)
            end = _block_end(code, m.end() - 1)
            if end < 0:
                continue
            taken.append((m.start(), end))
            first = s.d.start_line + code.count("\n", 0, m.start())
            # (Rust's head up to its body: a `where E: Engine` clause on the lines after it bounds the parameters)
            head = code[m.start():code.find("{", m.end()) if s.lang == "rust" else code.find("\n", m.start())]
            out.append(_local(p, s, m.group(1) or m.group(2), first, s.d.start_line + code.count("\n", 0, end - 1),
                              " ".join(head.split())))
    p._keys[key] = out
    return list(out)


def _local(p: Project, s: Sym, name: str, first: int, last: int, head: str) -> Sym:
    d = Definition(kind="function", name=name, qualified_name=f"{s.d.qualified_name}.{name}", signature=head, doc="",
                   start_line=first, end_line=last, exported=False, aliases=[])
    p._keys[("local_parent", s.rel, first)] = s
    return Sym(s.rel, d, s.score / 2, s.lang)


def _python_locals(lines: list[str]) -> list[tuple[int, int, str]]:
    """(first, last, name) of the `def`s directly in a Python body (`lines` from its head, 0-based
    offsets), each to its last line indented past it."""
    body = next((len(ln) - len(ln.lstrip()) for ln in lines[1:] if ln.strip() and not ln.lstrip().startswith("#")), 0)
    out: list[tuple[int, int, str]] = []
    for k, ln in enumerate(lines[1:], 1):
        m = _PY_DEF.match(ln)
        if m is None or len(m.group(1).expandtabs()) != body:
            continue
        end = next((j for j in range(k + 1, len(lines)) if lines[j].strip()
                    and len(lines[j]) - len(lines[j].lstrip()) <= len(m.group(1))), len(lines))
        while end - 1 > k and not lines[end - 1].strip():
            end -= 1
        out.append((k, end - 1, m.group(2)))
    return out


def _block_end(code: str, at: int) -> int:
    """The offset after the `}` that closes the body opened after `at` (`at` is the parameters' `(`,
    whose types may hold braces: `(obj: { [key: string]: any })`, or the body's `{`), or -1."""
    from .codetext import closing

    params_end = closing(code, at) if code[at] == "(" else at
    open_at = code.find("{", params_end) if params_end >= 0 else -1
    end = closing(code, open_at) if open_at >= 0 else -1
    return end + 1 if end >= 0 else -1


def returned(p: Project, s: Sym) -> Sym | None:
    """The local function `s` returns by name (ofetch's `createFetch` ends in `return $fetch;`): what a call of
    the value it makes runs; None when it returns none."""
    if s.lang not in ("javascript", "typescript", "tsx") or s.kind != "function":
        return None
    body = "\n".join(p.lines_of(s.rel)[s.d.start_line - 1:s.d.end_line])
    names = set(re.findall(r"(?m)^[ \t]+return\s+([A-Za-z_$][\w$]*)\s*;?\s*$", body))
    hit = [x for x in local_functions(p, s) if x.short in names]
    return hit[0] if len(hit) == 1 else None


def parent(p: Project, s: Sym) -> Sym | None:
    """The definition `s` is a local function of, once local_functions found it."""
    return p._keys.get(("local_parent", s.rel, s.d.start_line))


def in_scope(p: Project, s: Sym, name: str) -> Sym | None:
    """The local function a bare call `name(` in `s` reaches: one of `s`'s own, else of the definitions
    that enclose it (a sibling, an uncle), nearest first."""
    at: Sym | None = s
    while at is not None:
        hit = next((x for x in local_functions(p, at) if x.short == name), None)
        if hit is not None:
            return hit
        at = parent(p, at)
    return None


def spans(p: Project, s: Sym) -> list[tuple[int, int]]:
    """The (first, last) lines of `s`'s local functions, and of the map's definitions inside it (an ES5
    constructor's `this.stream = function …`): their calls are theirs, not `s`'s."""
    inner = [(x.d.start_line, x.d.end_line) for x in p.symbols(within=[s.rel]) if s.kind in ("function", "method")
             and x is not s and s.d.start_line < x.d.start_line and x.d.end_line <= s.d.end_line] if s.lang in LANGS else []
    return [(x.d.start_line, x.d.end_line) for x in local_functions(p, s)] + inner


def weight(p: Project, s: Sym) -> float:
    """How central a local function is to its enclosing one, towards 1: how often that body calls it,
    against its most called sibling (yargs-parser's `setArg`, called at twenty places, over `isUndefined`)."""
    up = parent(p, s)
    if up is None:
        return 0.0
    text = "\n".join(p.lines_of(up.rel)[up.d.start_line - 1:up.d.end_line])

    def calls(x: Sym) -> int:
        return len(re.findall(rf"(?<![\w$.]){re.escape(x.short)}\s*\(", text)) - 1  # (less its own head)

    most = max((calls(x) for x in local_functions(p, up)), default=0)
    return max(0, calls(s)) / most if most > 0 else 0.0


def top(p: Project, s: Sym) -> Sym:
    """The definition of the map that `s` is declared in (itself when it is one): its `this` is `s`'s."""
    while (up := parent(p, s)) is not None:
        s = up
    return s


# JavaScript's prototype aliases: `const pp = Parser.prototype`, then `pp.parseTopLevel = function (…)` (acorn) defines
# `Parser`'s methods under the alias, so the map names them `pp.parseTopLevel`. A `this.x(…)` in a method of `Parser`
# may run `pp.x`, and one in `pp.x` a method the class declares itself.
_ALIAS = re.compile(r"(?m)^\s*(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*([A-Z][\w$]*)\.prototype\s*;?\s*$")


def same_object(p: Project, owner: str) -> list[str]:
    """The other names the methods of `owner` are defined under: its prototype's aliases for a class, the class for an
    alias (`Parser` ↔ `pp`); [] when it has none."""
    key = ("js_prototype",)
    if key not in p._keys:
        pairs: dict[str, set[str]] = {}
        for rel, (lang, kind) in p.files.items():
            if lang in ("javascript", "typescript") and kind == "code":
                for alias, cls in _ALIAS.findall("\n".join(p.lines_of(rel))):
                    pairs.setdefault(cls, set()).add(alias)
                    pairs.setdefault(alias, set()).add(cls)
        p._keys[key] = {k: sorted(v) for k, v in pairs.items()}
    return p._keys[key].get(owner, [])


def this_alias(expr: str, code: str, lang: str) -> str:
    """`self.init` read as `this.init` where a JavaScript body keeps `this` in a local (request's ES5 constructor:
    `var self = this`, then `self.init(options)`)."""
    head = expr.split(".", 1)[0]
    if lang in ("javascript", "typescript") and "." in expr and head != "this" and code and \
            re.search(rf"\b(?:var|let|const)\s+{re.escape(head)}\s*=\s*this\s*[;\n]", code):
        return "this" + expr[len(head):]
    return expr
