"""What a definition's code says about itself, in any of the map's languages: its parameters
and result (from the signature), the steps of its body (its top-level statements), and the
calls it makes that the repository map can resolve to a definition. Text-based on purpose:
the map has already found the definition; these are small readings of its lines."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .codetext import LINE_COMMENT as _LINE_COMMENT, opening
from .generics import given_class
from .project import Project, Sym
from .ruby_mixins import const_got, missing
from .signature import Param, _paren_span, _split_top, owner, receiver, signature_parts  # noqa: F401 (re-exported)

if TYPE_CHECKING:
    from .callres import Resolver

# ---------------------------------------------------------------- steps

_STEP_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("check", re.compile(r"^(?:}\s*)?(?:else\s+)?if\b\s*(?:let\s+)?(.*?)\s*(?:\{|:)?$")),
    ("loop", re.compile(r"^(?:for|while|loop)\b\s*(.*?)\s*(?:\{|:)?$")),
    ("choose", re.compile(r"^(?:switch|match|select)\b\s*(.*?)\s*\{?$")),
    ("raise", re.compile(r"^(?:raise|throw)\s+(.+?);?$|^(panic!?\(.*\));?$")),
    ("return", re.compile(r"^return\b\s*(.*?);?$")),
    ("defer", re.compile(r"^defer\s+(.+)$")),
    ("with", re.compile(r"^(?:async\s+)?with\s+(.+?):$")),
    ("try", re.compile(r"^try\b\s*[:{]?$")),
    ("yield", re.compile(r"^yield\b\s*(.*?);?$")),
    ("set", re.compile(r"^(?:let\s+(?:mut\s+)?|const\s+|var\s+)?([\w.\[\]\"', ]+?)\s*(?::=|=|\+=|-=)\s*(.+?);?$")),
    ("call", re.compile(r"^(?:await\s+)?([\w.$:!]+(?:<[^>]*>)?\(.*)$")),
]
_SKIP_LINE = re.compile(r"^(?:#|//|/\*|\*|}|\)|\]|else\b|elif\b|except\b|finally\b|catch\b|case\b|default:|"
                        r"pass$|break;?$|continue;?$|\"\"\"|'''|\.\.\.$|@)")


def _body(code: str, lang: str) -> tuple[list[str], list[int]]:
    """(the code's lines, the indices of the statements at the first level of its body)."""
    lines = code.splitlines()
    start = 0
    if lang == "python":
        depth = 0
        for i, ln in enumerate(lines):
            depth += ln.count("(") + ln.count("[") - ln.count(")") - ln.count("]")
            if depth <= 0 and ln.rstrip().endswith(":") and re.match(r"^\s*(async\s+def|def|class)\b", ln):
                start = i + 1
                break
            if depth <= 0 and ln.rstrip().endswith(":") and i > 0:
                start = i + 1
                break
    else:
        for i, ln in enumerate(lines):
            if ln.rstrip().endswith("{"):
                start = i + 1
                break
    body = [i for i in range(start, len(lines)) if lines[i].strip()]
    if body and lang != "python" and re.match(r"^[}\]);,]+$", lines[body[-1]].strip()):
        body = body[:-1]  # the closing brace is not a statement of the body
    if not body:
        return lines, []
    base = min(_indent(lines[i]) for i in body)
    return lines, [i for i in body if _indent(lines[i]) == base]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def body_lines(code: str, lang: str) -> list[str]:
    """The statements at the first level of a definition's body (its own indentation)."""
    lines, idx = _body(code, lang)
    return [lines[i].strip() for i in idx]


def _block(lines: list[str], i: int) -> list[int]:
    """The statements one level inside the block that line i opens."""
    base, inner, out = _indent(lines[i]), None, []
    for j in range(i + 1, len(lines)):
        if not lines[j].strip():
            continue
        ind = _indent(lines[j])
        if ind <= base:
            break
        inner = ind if inner is None else inner
        if ind == inner:
            out.append(j)
    return out


_ACTION = re.compile(r"^(?:return\b|throw\b|raise\b|await\s|[\w.$:!\[\]\"', ]+?\s*(?::=|=|\+=)|(?:let|const|var)\s|[\w.$:!]+(?:<[^>]*>)?\()")


def _actions(lines: list[str], i: int, lang: str, depth: int = 0) -> list[str]:
    """What the block opened at line i does: its calls, assignments and return, in order (a
    nested `try` block's own), each a whole statement or its head with `(…)`."""
    out: list[str] = []
    for j in _block(lines, i):
        st = _strip_comment(lines[j].strip(), lang)
        if re.match(r"^try\b\s*[:{]?$", st):
            if depth < 2:
                out += _actions(lines, j, lang, depth + 1)
            continue
        if _SKIP_LINE.match(st) or "`" in st or not _ACTION.match(st) or _TRIVIAL_SET.match(st.rstrip(";")):
            continue
        out.append(_closed(_short(st.rstrip(";{ ").rstrip(), 56)))
    return out


def _handler(lines: list[str], i: int, lang: str) -> str:
    """The first thing the `except`/`catch` after the try block at line i does, or ''."""
    base = _indent(lines[i])
    for j in range(i + 1, len(lines)):
        if not lines[j].strip() or _indent(lines[j]) > base:
            continue
        if _indent(lines[j]) < base or not re.match(r"^(?:}\s*)?(?:except|catch)\b", lines[j].strip()):
            return ""
        acts = _actions(lines, j, lang)
        return acts[0] if acts else ""
    return ""


def steps(code: str, lang: str, limit: int = 7) -> list[tuple[str, str]]:
    """(kind, code) for the body's top-level statements: check, loop, choose, raise, return,
    defer, with, try, yield, set, call. A `try` says what it tries: kind `try_do` with the
    block's first actions, or `try_catch` with them and, after a `\x1f`, the handler's first."""
    out: list[tuple[str, str]] = []
    lines, idx = _body(code, lang)
    for i in idx:
        st = lines[i].strip()
        if _SKIP_LINE.match(st) or "`" in st:
            continue
        st = _strip_comment(st, lang)
        for kind, rx in _STEP_PATTERNS:
            m = rx.match(st)
            if m:
                frag = next((g for g in m.groups() if g), "") if m.groups() else ""
                if kind in ("check", "loop") and frag.startswith("("):
                    frag = _condition(frag)  # (`if (cond) this.skipSpace()` on one line: the check is `cond`)
                if kind == "set" and _TRIVIAL_SET.match(st.rstrip(";")):
                    break  # `m := mx`: a new name for a value says nothing of what the code does
                if kind == "try":
                    acts = [a.replace("`", "'") for a in _actions(lines, i, lang)[:3]]
                    handler = _handler(lines, i, lang).replace("`", "'")
                    if acts:
                        out.append(("try_catch" if handler else "try_do", "\n".join(acts) + ("\x1f" + handler if handler else "")))
                    else:
                        out.append((kind, ""))
                    break
                code = _closed(_short(frag if kind not in ("set", "call") else st.rstrip(";{ ").rstrip()))
                if kind in ("try", "return") or re.search(r"[\w$]", code.replace("…", "")):
                    out.append((kind, code))
                break
        if len(out) >= limit:
            break
    return out


_TRIVIAL_SET = re.compile(r"^(?:let\s+(?:mut\s+)?|const\s+|var\s+)?\w+\s*(?::=|=)\s*[A-Za-z_$][\w$]*$")
_OPEN, _CLOSE = "([{", ")]}"


def _strip_comment(st: str, lang: str) -> str:
    """The statement without a comment at its end (`cls(  # type: ignore` → `cls(`); a `#` or
    `//` inside a string stays."""
    mark = "#" if lang == "python" else "//"
    quote = ""
    for i, ch in enumerate(st):
        if quote:
            if ch == quote and st[i - 1] != "\\":
                quote = ""
        elif ch in "\"'`":
            quote = ch
        elif st.startswith(mark, i) and (i == 0 or st[i - 1] in " \t"):
            return st[:i].rstrip()
    return st


def _condition(frag: str) -> str:
    """`(a || b)` of `(a || b) this.skipSpace()`: a C-family condition without the statement written after it on its
    line; the whole fragment when its parentheses do not close."""
    depth = 0
    for i, ch in enumerate(frag):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            rest = frag[i + 1:].strip()
            # (what follows is a statement, not more of the condition: `(a) || b`, Python's `(a) and b`)
            return frag[:i + 1] if re.match(r"[A-Za-z_$]", rest) and not re.match(r"(?:and|or|not|in|instanceof|is)\b", rest) else frag
    return frag


def _closed(code: str) -> str:
    """A statement cut at the end of its first line (`m.updateSubRoutes(func(subMux *Mux)`, or
    shortened) is shown up to its first bracket left open, with an elision inside it:
    `m.updateSubRoutes(…)`, never as a fragment that does not parse."""
    stack: list[int] = []
    quote = ""
    for i, ch in enumerate(code):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'`":
            quote = ch
        elif ch in _OPEN:
            stack.append(i)
        elif ch in _CLOSE and stack and _OPEN.index(code[stack[-1]]) == _CLOSE.index(ch):
            stack.pop()
    if not stack:
        return code
    at = stack[0]
    return code[:at + 1].rstrip(" …") + "…" + _CLOSE[_OPEN.index(code[at])]


def _unwrap(code: str) -> str:
    """`(a && b)` -> `a && b` when the parentheses enclose the whole condition."""
    if code.startswith("(") and code.endswith(")"):
        depth = 0
        for i, ch in enumerate(code):
            depth += (ch == "(") - (ch == ")")
            if depth == 0 and i < len(code) - 1:
                return code
        return code[1:-1].strip()
    return code


def _short(code: str, n: int = 72) -> str:
    code = _unwrap(code.strip().rstrip("{:").strip())
    if len(code) <= n:
        return code
    cut = code[:n]
    cut = cut[: max(cut.rfind(" "), cut.rfind(","), cut.rfind("("), 20)]
    return cut.rstrip(" ,(") + " …"


# ---------------------------------------------------------------- calls

# id(project) -> (its symbols, by dotted name, by short name): every chapter's calls are looked up
# in the same map, so the lookup is a dict's, not a scan of every symbol (O(N) per call, N² a book)
_INDEXES: dict[int, tuple[list[Sym], dict[str, list[Sym]], dict[str, list[Sym]]]] = {}


def _sym_index(p: Project) -> tuple[dict[str, list[Sym]], dict[str, list[Sym]]]:
    syms = p.symbols()
    hit = _INDEXES.get(id(p))
    if hit is None or hit[0] is not syms:  # the held list keeps its id from being reused
        by_dotted: dict[str, list[Sym]] = {}
        by_short: dict[str, list[Sym]] = {}
        for x in syms:  # in rank order, as the scans found them
            by_dotted.setdefault(x.dotted, []).append(x)
            by_short.setdefault(x.short, []).append(x)
        for x in syms:  # a method's other names (Ruby's `alias`, Python's `_parse = _parseNoCache`), after its own
            if x.d.aliases and x.kind in ("method", "function") and x.lang not in ("c", "cpp"):  # (C's are a struct's tag)
                owner = x.dotted.rsplit(".", 1)[0] + "." if "." in x.dotted and x.kind == "method" else ""
                for a in x.d.aliases:
                    by_dotted.setdefault(a if "." in a else owner + a, []).append(x)
        _INDEXES.clear()  # one project at a time: an index holds every symbol of its map
        hit = _INDEXES[id(p)] = (syms, by_dotted, by_short)
    return hit[1], hit[2]


def resolved_calls(p: Project, s: Sym, code: str) -> list[Sym]:
    return [hit for hit, _side, _last in resolved_calls_where(p, s, code)]


def resolved_calls_where(p: Project, s: Sym, code: str) -> list[tuple[Sym, bool, int]]:
    """_calls_where; a branch on one of the object's settings (sideroads._option) is no side road when
    every call the body makes is in one (eta's `handleCache` compiles under `if (this.resolvePath && …)`):
    it is the body's way (options_side tells handoff.handed_to)."""
    from .sideroads import side_road

    found = _calls_where(p, s, code, True)  # (an error it raises is no way either)
    if found and all(side or side_road(c) for c, side, _at in found):
        again = _calls_where(p, s, code, False)
        if not all(side or side_road(c) for c, side, _at in again):
            p._keys[("options_side", s.rel, s.d.start_line)] = False
            return again
    return found


def options_side(p: Project, s: Sym) -> bool:
    """Whether a branch on a setting is a side road in `s` (resolved_calls_where: not when it holds every call)."""
    return p._keys.get(("options_side", s.rel, s.d.start_line), True)


def _calls_where(p: Project, s: Sym, code: str, options: bool) -> list[tuple[Sym, bool, int]]:
    """The definitions this code calls, only where the map resolves the callee (callres.Resolver:
    a method of its own type through `self`/`this`/the receiver or through a typed parameter, a
    qualified `Type.name`, a bare name defined exactly once where the language looks for it).
    `self.loads` is never the module's `loads`; in Go another package's name only through its
    qualifier (Project.reaches)."""
    from ..evidence.resolve import EXPR_BODY, definition_head
    from .arity import near
    from .call_form import TRAILING_LAMBDA
    from .callres import CALL_RE, Resolver
    from .lazy_props import lazy_reads
    from .local_defs import spans as local_spans
    from .sideroads import branch_lines, default_cases, optional_params
    from .uses import rust_type_narrowed
    from .valuetypes import call_args, closing

    found: dict[tuple[str, str, int], tuple[Sym, bool, int]] = {}  # callee -> (it, only on side roads, last call at)
    res: Resolver | None = None
    from .codetext import deferred_spans

    code = call_text(s, code)
    side = branch_lines(code, s.lang, options=options, optional=optional_params(p, s)) | default_cases(p, s, code)[1]
    # the definition's own name in its signature (`auto format(range_type& r, …)`) is no call, though
    # in C++ and Java a call of the same name may be another overload
    sig_at = max(0, code.find(s.d.signature.split("\n", 1)[0][:30]))  # past decorators and doc comments
    head = re.compile(rf"(?<![\w$]){re.escape(s.short)}\s*(?:<[^()]*>)?\s*\(").search(code, sig_at) if s.short else None
    own_at = head.start() if head is not None and head.start() <= sig_at + len(s.d.signature) else -1
    inside = 0  # the end of the outermost call's arguments: a call before it is an argument, not a step
    later = deferred_spans(code, s.lang)  # a returned handler's calls are not this definition's
    nested = local_spans(p, s) if s.rel else []  # a local function's calls are its own (local_defs)
    for m in CALL_RE.finditer(code):
        if any(a <= m.start() < b for a, b in later) or \
                any(a <= s.d.start_line + code.count("\n", 0, m.start()) <= b for a, b in nested):
            continue
        if res is None:
            res = Resolver(p, s, *_sym_index(p), code=code)
        if m.start() == own_at or (s.lang in ("c", "cpp", "java") and _declarator(code, m.start())):
            continue
        a, b = code.rfind("\n", 0, m.start()) + 1, code.find("\n", m.start())
        line = code[a:b if b >= 0 else len(code)]
        if definition_head(line, re.split(r"\.|::", m.group(1))[-1]) \
                and not EXPR_BODY.search(code[a:m.start()]) \
                and not (s.lang in TRAILING_LAMBDA and not re.search(r"\b(?:fun|def|func|init)\b", line)):
            # (`fun logger(name: String) = KLoggerFactory.logger(name)` calls; Kotlin's `at(level) {` is a call too)
            continue  # the next definition's head inside a span the map ran on (Scala's `def f(x) =` bodies)
        args = call_args(code, m.end() - 1)
        outer = m.start() >= inside
        if outer:
            inside = m.end() + len(args)
        raw = m.group(1)
        if s.lang == "ruby" and code[m.start() - 1:m.start()] == "@":
            raw = "@" + raw  # an instance variable: `@parser.parse(`
        if s.lang == "ruby" and m.group(2):
            raw += "!"  # `call!(env)`: a method named with its bang
        trailing = s.lang in TRAILING_LAMBDA and re.match(r"\s*\{", code[m.end() + len(args) + 1:m.end() + len(args) + 40])
        # (Kotlin's `at(Level.DEBUG, marker) { … }`: the lambda after the parentheses is the last argument)
        hit = res.resolve(raw, bool(m.group(2)), f"{args}, {{}}" if trailing and args.strip() else "{}" if trailing else args)
        on_side = code.count("\n", 0, m.start()) in side
        if s.lang == "ruby" and re.match(r"[A-Z]\w*(?:::[A-Z]\w*)*\.[a-z_]\w*[!?]?\.[a-z_]\w*$", raw):
            hit = _ruby_paren_less(res, raw, found, m.start() if outer else -1, on_side) or hit  # `Rainbow.global.wrap(s)`
        if hit is not None and (hit.rel, hit.d.start_line) != (s.rel, s.d.start_line):
            key = (hit.rel, hit.name, hit.d.start_line)  # the macro `log!` and the function `__private_api::log`: two
            last = m.start() if outer else (found[key][2] if key in found else -1)
            found[key] = (hit, on_side if key not in found else found[key][1] and on_side, last)
        # a chain on what the call gives back: `loadServiceMethod(m).invoke(…)`, `Parser().parse(e).search(d)`
        chain = _CHAINED.match(code, m.end() + len(args) + 1)
        if chain is None and s.lang in TRAILING_LAMBDA:  # Kotlin's `loader().get { … }`: a link given only a lambda
            chain = _CHAINED_LAMBDA.match(code, m.end() + len(args) + 1)
        if chain is None:
            continue
        typer = res.typer()
        if s.lang == "ruby" and hit is None and raw.endswith(".const_get"):  # `Parser.const_get(name).parse(`
            got = const_got(res.by_dotted, s, raw[:-len(".const_get")], chain.group(1))
            if got is not None:
                found.setdefault((got.rel, got.name, got.d.start_line), (got, on_side, chain.start(1) if outer else -1))
            continue
        made = "new " if re.search(r"(?<![\w$])new\s+$", code[max(0, m.start() - 12):m.start()]) else ""
        me = owner(s) if "." not in raw and "::" not in raw else ""  # (an implicit `this`: a generic base's result is bound)
        typ = (typer.bound_result(me, hit) if me else typer.result_type(hit)) if hit is not None else \
            typer.expr_type(s, f"{made}{raw}({args})")
        if not typ and hit is not None:  # (a generic function handed the class it gives back: `getFromContainer(Validator)`)
            typ = given_class(typer.is_type, hit, _split_top(args))
        while chain is not None and typ:
            if s.lang == "kotlin" and chain.group(1) in ("apply", "also") and not typer.member(typ, chain.group(1)):
                # a scope function gives back its receiver (picnic's `TableDslImpl().apply(content).create()`)
                if code[chain.end() - 1] == "{":
                    if (after := closing(code, chain.end() - 1) + 1) <= 0:
                        break
                else:
                    after = chain.end() + len(call_args(code, chain.end() - 1)) + 1
                chain = _CHAINED.match(code, after) or _CHAINED_LAMBDA.match(code, after)
                continue
            nxt = near(s, rust_type_narrowed(p, s, typ, typer.member(typ, chain.group(1)))) or (missing(typer.member, typ, chain.group(1))
                                                        if s.lang == "ruby" else [])
            if s.lang in ("javascript", "typescript"):  # a link is on a value: an instance's method, not the class's static
                nxt = [x for x in nxt if not re.match(r"\s*static\b", x.d.signature)] or nxt  # (acorn's `new this(…).parse()`)
            lam = code[chain.end() - 1] == "{"  # (a lambda link's one argument)
            nxt = res.overload(nxt, "{}" if lam else call_args(code, chain.end() - 1))  # `new JsonParser(h).parse(string)`: parse(String)
            if len(nxt) != 1:
                break
            if (nxt[0].rel, nxt[0].d.start_line) != (s.rel, s.d.start_line):
                key = (nxt[0].rel, nxt[0].name, nxt[0].d.start_line)
                at = chain.start(1) if outer else (found[key][2] if key in found else -1)
                found[key] = (nxt[0], on_side if key not in found else found[key][1] and on_side, at)
            typ = typer.result_type(nxt[0])
            chain = None if lam else _CHAINED.match(code, chain.end() + len(call_args(code, chain.end() - 1)) + 1)
    if s.lang in ("rust", "go"):  # a method called on a struct literal: `Parser { … }⏎.parse_url(input)`
        res = res or Resolver(p, s, *_sym_index(p), code=code)
        for lit in re.finditer(r"(?<![\w$:.])([A-Z]\w*)\s*\{", code):
            close = closing(code, lit.end() - 1)
            chain = _CHAINED.match(code, close + 1) if close > 0 else None
            hits = res.typer().member(lit.group(1), chain.group(1)) if chain and res.typer().is_type(lit.group(1)) else []
            if chain is not None and len(hits) == 1 and hits[0] is not s:
                key = (hits[0].rel, hits[0].name, hits[0].d.start_line)
                found.setdefault(key, (hits[0], code.count("\n", 0, chain.start(1)) in side, chain.start(1)))
    for hit, at in lazy_reads(p, s, code):  # (reading Kotlin's `val x by lazy { … }` runs its block)
        found.setdefault((hit.rel, hit.name, hit.d.start_line), (hit, code.count("\n", 0, at) in side, at))
    if s.lang == "ruby":
        res = res or Resolver(p, s, *_sym_index(p), code=code)
        for hit, at in _ruby_bare_calls(s, code, res):
            key = (hit.rel, hit.name, hit.d.start_line)
            on_side = code.count("\n", 0, at) in side
            found.setdefault(key, (hit, on_side, at))
    return list(found.values())


def _ruby_paren_less(res: Resolver, raw: str, found: dict[tuple[str, str, int], tuple[Sym, bool, int]], at: int,
                     on_side: bool) -> Sym | None:
    """`Const.meth.name(…)`: Ruby calls `Const.meth` without parentheses (rainbow's `Rainbow.global.wrap(…)`); that call
    is a step too (kept in `found`), and `name` the method of the type it gives back; None when either is unknown."""
    head, name = raw.rsplit(".", 1)
    first = res.resolve(head, False, "")
    if first is None:
        return None
    found.setdefault((first.rel, first.name, first.d.start_line), (first, on_side, at))
    typ = res.typer().result_type(first)
    hits = [x for x in res.typer().member(typ, name) if x.kind == "method"] if typ else []
    return hits[0] if len(hits) == 1 else None


def call_text(s: Sym, code: str) -> str:
    """The code as calls are read in it (resolved_calls_where's offsets are into this text; its line
    breaks are the code's own): comments and strings blanked, PHP's `$this->` written `this.`."""
    from .codetext import mask_text

    code = mask_text(_LINE_COMMENT.sub("", code), s.lang)  # `// log!(…)` or a docstring's `pop()` is no call
    # nor a comment after code (terminal-table's `dp[i] ||= 0 # initialize column length`), its strings blanked first
    tail = r"#[^\n]*" if s.lang in ("python", "ruby") else r"(?<![\\:/])//[^\n]*" if s.lang not in ("haskell", "lua") else ""
    code = re.sub(tail, lambda m: " " * len(m.group()), code) if tail else code
    if s.lang == "ruby":  # `question.(message)` is `question.call(message)`
        code = re.sub(r"(?<=[\w)\]])\.\(", ".call(", code)
    if s.lang == "php":  # `$this->handle(`, `self::create(`: the receiver as the other languages write it
        code = re.sub(r"\$this->(?=\w+\s*\()|\b(?:self|static)::(?=\w+\s*\()", "this.", code)
    return code


_RUBY_BARE = re.compile(r"(?<![\w.:@$?!])([a-z_]\w*[!?]?)(?![\w(!?:])")
_RUBY_BARE_AFTER = re.compile(r"\)\s*\.\s*([a-z_]\w*[!?]?)(?![\w(!?:.])")
_RUBY_CALL_END = re.compile(r"[@A-Za-z_][\w:]*(?:\s*\.\s*\w+[!?]?)*\s*\((?:[^()]|\([^()]*\))*\)$")
# (`r.render.rstrip` too; not `self.authority = x`, a setter's call, `authority=`)
_RUBY_BARE_ON = re.compile(r"(?<![\w.:@$?!])(@?[a-z_]\w*)\.([a-z_]\w*[!?]?)(?![\w(!?:])(?!\s*(?:\|\|)?=[^=~>])")


def _ruby_bare_calls(s: Sym, code: str, res: Resolver) -> list[tuple[Sym, int]]:
    """Ruby's calls of the type's own methods without parentheses (`route!`, `dispatch!`, `filter! :before`,
    `invoke do`): a bare name that is one of its methods and no local of the body (`route = …`, `|route|`)."""
    own = owner(s)
    if not own:
        return []
    local = {prm.name for prm in signature_parts(s)[0]}
    local |= set(re.findall(r"(?<![\w.:@$])([a-z_]\w*)\s*(?:\|\|)?=(?![=~>])", code))
    local |= {n for grp in re.findall(r"\|([^|]*)\|", code) for n in re.findall(r"[a-z_]\w*", grp)}
    body_at = code.find("\n") + 1  # past the `def` line
    out: list[tuple[Sym, int]] = []

    def add(typ: str, name: str, at: int) -> None:  # the one method `typ` has of that name, once
        hits = [x for x in res.typer().member(typ, name) if x.kind == "method"] if typ else []
        if len(hits) == 1 and hits[0] is not s and all(h is not hits[0] for h, _ in out):
            out.append((hits[0], at))

    for m in _RUBY_BARE.finditer(code, body_at):
        name = m.group(1)
        if name in local or name == s.short:
            continue
        add(own, name, m.start())
    for m in _RUBY_BARE_AFTER.finditer(code, body_at):  # `Request.new(path).perform`: on what a call gives back
        # (its arguments over lines: ruby-jwt's `Encode.new(payload: payload,⏎ … headers: header_fields).segments`)
        head = _RUBY_CALL_END.search(code, code.rfind("\n", 0, opening(code, m.start())) + 1, m.start() + 1)
        add(res.typer().expr_type(s, head.group(0)) if head else "", m.group(1), m.start(1))
    for m in _RUBY_BARE_ON.finditer(code, body_at):  # `request.perform`: a local or a field of a known type
        add(res.typer().expr_type(s, m.group(1)), m.group(2), m.start(2))
    return out


_CHAINED = re.compile(r"\s*(?:\?\s*)?\.\s*([A-Za-z_]\w*)\s*(?:::<[^()]*>\s*)?\(")  # (Rust's `build()?.get(url)`, `.json::<T>()`)
_CHAINED_LAMBDA = re.compile(r"\s*\.\s*([A-Za-z_]\w*)\s*\{")


_DECL_BEFORE = re.compile(r"(?<![\w$])([A-Za-z_]\w*|(?<![-=])>|[*&\]])[ \t]+$")  # (not a lambda's `k -> f(…)`)
_NOT_TYPES = frozenset({"return", "else", "case", "throw", "new", "co_return", "co_await", "co_yield", "delete", "do",
                        "yield", "await", "sizeof", "typeof", "not", "and", "or"})


def _declarator(code: str, at: int) -> bool:
    """`auto format(range_type& r)`, `public String toJson(Object src)`: a name declared after its
    type, not a call (a call follows `=`, `(`, `,`, `return`, an operator or the line's start)."""
    if at > 0 and code[at - 1] == "~":
        return True  # a destructor's declaration
    line_start = code.rfind("\n", 0, at) + 1
    m = _DECL_BEFORE.search(code[line_start:at])
    return m is not None and m.group(1) not in _NOT_TYPES


