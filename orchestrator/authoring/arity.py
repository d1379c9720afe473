"""How many arguments a call passes and which overloads take them, which of one name's definitions
in several directories a caller means, and a declared type's bare name: the small readings of Java, C#, Kotlin and C++ signatures that overload resolution
(callres.Resolver.overload) and an interface's implementations (hops.implemented) share."""

from __future__ import annotations

import posixpath
import re

from .project import Project, Sym

# the implicit numeric conversions Java and C# make (an `int` argument fits a `long` parameter)
WIDENS = {"byte": "short int long float double decimal", "short": "int long float double decimal",
          "char": "int long float double", "int": "long float double decimal", "long": "float double decimal",
          "float": "double"}
# JDK and .NET types and what they are assignable to (facts of the standard libraries, which the map does not read)
STDLIB_SUPERS = {"Class": {"Type"}, "StringBuilder": {"Appendable", "CharSequence"}, "String": {"CharSequence"},
                 "Writer": {"Appendable"}, "PrintStream": {"Appendable"},
                 "StringReader": {"Reader", "TextReader"}, "Integer": {"Number"}, "Long": {"Number"}, "Double": {"Number"},
                 "int": {"long", "double", "Integer"}, "ParameterizedType": {"Type"},
                 # (and .NET's: html-agility-pack's `Load(sr)` with `StringReader sr` is `Load(TextReader reader)`)
                 "StreamReader": {"TextReader"}, "StringWriter": {"Writer", "Appendable", "TextWriter"},
                 "StreamWriter": {"TextWriter"}, "MemoryStream": {"Stream"}, "FileStream": {"Stream"}}


def base_type(typ: str) -> str:
    """`final TypeToken<T>[]` → `TypeToken`; `java.lang.reflect.Type` → `Type`."""
    typ = re.sub(r"@\w+(?:\([^)]*\))?|\bfinal\b|^\s*(?:params|this|ref|out|in|scoped)\s+", "", typ)  # (C#'s modifiers)
    typ = re.sub(r"<.*>|\[\]|\.\.\.", "", typ).strip()
    return typ.rsplit(".", 1)[-1].strip()


def split_args(args: str) -> list[str]:
    out: list[str] = []
    cur: list[str] = []
    depth, quote = 0, ""
    for ch in args:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0 and not quote:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur))
    return out


def is_static(x: Sym) -> bool:
    return bool(re.match(r"^\s*(?:\w+\s+)*static\b", x.d.signature))


def arity(args: str) -> int:
    """How many arguments a call passes (`c->reader, a < b` is two: only brackets nest)."""
    depth, n, quote, any_text = 0, 1, "", False
    for ch in args:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            n += 1
        any_text = any_text or not ch.isspace()
    return n if any_text else 0


def takes_count(x: Sym, n: int) -> bool:
    """`x` can be called with `n` arguments: those of its parameters without a default come first,
    and a `params`/vararg array takes any number more."""
    from .signature import signature_parts

    params = signature_parts(x)[0]
    rest = bool(params) and bool(re.match(r"\s*(?:params\b|vararg\b)", params[-1].type) or "..." in params[-1].type)
    required = sum(1 for prm in params[: len(params) - rest] if not prm.default)
    return required <= n and (rest or n <= len(params))


def param_count(x: Sym) -> int:
    from .signature import signature_parts

    return len(signature_parts(x)[0])


def near(s: Sym, hit: list[Sym]) -> list[Sym]:
    """Of definitions of one name in several directories (env_logger's `Builder::from_env` and env_filter's,
    two crates), those of the caller's own directory; else all of them (a C# partial class's files are one
    directory: all its methods stay)."""
    here = posixpath.dirname(s.rel)
    if len(hit) > 1 and s.lang in ("javascript", "typescript") and (mine := [x for x in hit if x.rel == s.rel]):
        return mine  # (no partial classes: superagent's node `Request.end` calls its own file's `_end`, not the browser's)
    if len(hit) > 1 and s.lang in ("rust", "go", "java", "csharp", "kotlin") and len({posixpath.dirname(x.rel) for x in hit}) > 1:
        found = [x for x in hit if posixpath.dirname(x.rel) == here]
        return found or hit
    return hit


def funnel(p: Project, hit: list[Sym]) -> list[Sym]:
    """Of overloads the arguments cannot tell apart, the one all the others call (kotlin-csv's
    `open(fileName)`, `open(file)` and `open(ips)` each end in `open(br: Reader)`): whichever is
    called, the work goes there."""
    if len({x.dotted for x in hit}) != 1:
        return hit
    name = re.compile(rf"(?<![\w$]){re.escape(hit[0].short)}\s*\(")

    def calls_itself(x: Sym) -> bool:
        body = p.lines_of(x.rel)[x.d.start_line:x.d.end_line]  # (after the head line)
        return any(name.search(ln) for ln in body)

    leaves = [x for x in hit if not calls_itself(x)]
    return leaves if len(leaves) == 1 else hit



def inherited(typer, owner: str, supers: set[str], name: str, n: int) -> list[Sym]:  # (typer: valuetypes.Typer)
    """The methods `name` of `n` parameters the type `owner` has from its bases (Typer.member), else from the
    types it extends or implements (`supers`): past a base's own overloads of other counts (JSONassert's
    AbstractComparator has two-argument `compareJSON`s, its interface the four-argument one that
    `compareJSON("", expected, actual, result)` calls)."""
    for t in [owner, *sorted(supers)]:
        hit = [x for x in typer.member(t, name) if x.kind == "method" and param_count(x) == n]
        if hit:
            return hit
    return []
