"""What a definition's signature says: its parameters (name, type, default) and its result, in
any of the map's languages; and the name a method calls its own object by. Read from the
signature's text (codeinfo and callres both lean on it)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .project import Project, Sym


@dataclass
class Param:
    name: str
    type: str = ""
    default: str = ""


def _split_top(text: str, sep: str = ",") -> list[str]:
    out, depth, cur, quote = [], 0, [], ""
    for k, ch in enumerate(text):
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = ""
            continue
        if ch in "\"'`" and not (ch == "'" and re.match(r"'\w+(?!')\b", text[k:]) and not re.match(r"'\w'", text[k:])):
            quote = ch  # (Rust's lifetime `Cow<'_, Template>` opens no quote)
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>" and not (ch == ">" and text[k - 1:k] == "-"):  # (not `->`)
            depth -= 1
        if ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur))
    return [x.strip() for x in out if x.strip()]


def _paren_span(sig: str, start: int) -> tuple[int, int] | None:
    i = sig.find("(", start)
    if i < 0:
        return None
    depth = 0
    for j in range(i, len(sig)):
        if sig[j] == "(":
            depth += 1
        elif sig[j] == ")":
            depth -= 1
            if depth == 0:
                return i, j
    return None


def whole(p: Project, s: Sym) -> Sym:
    """`s` with its whole head when the map cut its signature short (jinja's `Environment.__init__` has
    forty parameters; the map keeps eight lines): read on from the file until its parentheses close."""
    sig = s.d.signature
    if sig.count("(") <= sig.count(")") or not s.rel:
        return s
    from dataclasses import replace

    lines = p.lines_of(s.rel)[s.d.start_line - 1:s.d.start_line + 80]
    text = "\n".join(ln.rstrip() for ln in lines)
    at = text.find(sig.split("\n", 1)[0].strip()[:30])
    span = _paren_span(text, max(0, text.find("(", max(at, 0))))
    if at < 0 or span is None:
        return s
    end = text.find("\n", span[1])  # (and what follows on the line: `) -> None:`)
    return replace(s, d=replace(s.d, signature=text[at:end if end > 0 else len(text)].rstrip().rstrip("{:").rstrip()))


def signature_parts(s: Sym) -> tuple[list[Param], str]:
    """(parameters, result type) read from the signature; receivers, `self` and `this` left out."""
    sig = " ".join(s.d.signature.split())
    lang = s.lang
    start = 0
    if lang == "go" and sig.startswith("func ("):  # the receiver's parentheses come first
        span = _paren_span(sig, 0)
        start = span[1] + 1 if span else 0
    name_at = sig.find(s.short + "(", start)
    if name_at < 0:
        name_at = sig.find(s.short, start)
    span = _paren_span(sig, max(name_at, start))
    if span is None:
        return [], ""
    inner, rest = sig[span[0] + 1:span[1]], sig[span[1] + 1:].strip()
    params: list[Param] = []
    for k, raw in enumerate(_split_top(inner)):
        raw = raw.strip()
        if raw in ("self", "cls", "&self", "&mut self", "mut self", "*", "/") or raw.startswith(("self:", "this:")):
            continue
        if lang == "csharp" and not k and raw.startswith("this "):
            continue  # an extension method's receiver (`this IRestClient client`): what the call is made on
        default = ""
        if "=" in raw and lang in ("python", "typescript", "tsx", "javascript", "kotlin", "scala", "swift", "php",
                                   "csharp", "ruby", "lua"):
            raw, default = (x.strip() for x in raw.split("=", 1))
        if lang in ("python", "typescript", "tsx", "javascript", "rust", "kotlin", "scala", "swift"):
            name, _, typ = raw.partition(":")
            if lang == "swift":
                name = name.split()[-1] if name.split() else name  # `_ url: URL`, `to url: URL`: the inner name
            elif lang in ("kotlin", "scala"):
                name = re.sub(r"^(?:(?:va[lr]|vararg|implicit|using|private|override)\s+)+", "", name.strip())
        elif lang in ("php", "ruby", "elixir", "lua"):  # `?Type $name`, `&block`, `%Conn{} = conn`: the name is last
            m = re.search(r"[$&*]*(\w+)\s*$", raw)
            name, typ = (m.group(1), raw[:m.start()].strip().rstrip("&.").strip()) if m else (raw, "")
            typ = typ if lang == "php" else ""  # Ruby, Elixir and Lua write no types: what is before is a pattern
        elif lang == "go":
            name, _, typ = raw.partition(" ")
        else:  # C-like: the name comes last, and `*`/`&` written against it belong to the type
            if raw == "void":
                continue  # `f(void)`: no parameter
            m = re.match(r"^(.*?)\s*([*&\s]*)(\w+(?:\[[^\]]*\])*)$", raw, re.S)
            name, typ = (m.group(3), f"{m.group(1)} {m.group(2).replace(' ', '')}".strip()) if m and m.group(1) \
                else (raw, "")
        name = name.strip().lstrip("&*").strip()
        if name and re.match(r"^[\w.$?\[\]{}]+$", name):
            params.append(Param(name.rstrip("?"), typ.strip(), default))
    if lang == "go":  # `a, b string`: the type is written once, after the last name
        for k in range(len(params) - 1, -1, -1):
            if not params[k].type and k + 1 < len(params):
                params[k].type = params[k + 1].type
    ret = ""
    if lang == "python" and rest.startswith("->"):
        ret = rest[2:].split(":")[0].strip()
    elif lang == "rust" and rest.startswith("->"):
        ret = re.split(r"\s+where\s+|\{", rest[2:])[0].strip()
    elif lang in ("typescript", "tsx") and rest.startswith(":"):
        ret = rest[1:].split("{")[0].split("=>")[0].strip()
    elif lang == "go":
        ret = rest.split("{")[0].strip()
    elif lang in ("kotlin", "scala", "php") and rest.startswith(":"):
        ret = re.split(r"\s+where\s+|\{|=", rest[1:])[0].strip()
    elif lang == "swift" and "->" in rest:
        ret = re.split(r"\s+where\s+|\{", rest.split("->", 1)[1])[0].strip()
    return params, ret.strip().rstrip(";").strip()


def receiver(s: Sym) -> str:
    """The name a method calls its own object by: self, this, or Go's receiver variable."""
    if s.lang == "go":
        m = re.match(r"^func\s*\(\s*(\w+)\s", s.d.signature)
        return m.group(1) if m else ""
    if s.lang == "python" and s.kind == "method":  # its first parameter when named so (loguru's `__self`; not a
        m = re.search(r"\bdef\s+\w+\s*\(\s*(_*self_*)\s*[,)]", s.d.signature)  # static method's first argument)
        return m.group(1) if m else "self"
    return "self" if s.lang in ("python", "rust") else "this"


def owner(s: Sym) -> str:
    """The type a method belongs to (`Mux` for `Mux.Route`), or ''."""
    return s.dotted.rsplit(".", 1)[0] if "." in s.dotted else ""


def java_result(x: Sym) -> str:
    """The result type a Java or C# method declares before its name (Kotlin, Scala, Swift and
    TypeScript after its parameters: `fun name(func: () -> Unit): String`)."""
    if x.lang in ("kotlin", "scala", "swift", "typescript"):
        head = re.search(rf"(?<![\w$]){re.escape(x.short)}\s*(?:<[^()]*>)?\s*\(", x.d.signature)
        depth, at = 0, head.end() - 1 if head else len(x.d.signature)
        while at < len(x.d.signature):  # to the parenthesis that closes the parameters (`func: () -> Unit`)
            depth += {"(": 1, ")": -1}.get(x.d.signature[at], 0)
            if depth == 0:
                break
            at += 1
        r = re.match(r"\)\s*(?::|->)\s*([A-Za-z_]\w*)", x.d.signature[at:])
        return r.group(1) if r else ""
    # (a nested type by its whole name: java-jwt's `static JWTCreator.Builder create()`; a C# generic method's type
    # parameters after its name: LiteDB's `ILiteCollection<T> GetCollection<T>(string name)`)
    m = re.search(rf"([A-Za-z_][\w.]*)(?:<[^()]*>)?(?:\[\])?\s+{re.escape(x.short)}\s*(?:<[^()]*>)?\s*\(", x.d.signature)
    return m.group(1) if m else ""
