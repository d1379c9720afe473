"""Where chapter 1's traced path touches the code: the line of a caller that makes each call,
and the call at the end that the map cannot resolve (where the docs must take over)."""

from __future__ import annotations

import re

from .facts import calls
from .project import Project, Sym


def call_line(p: Project, caller: Sym, callee: Sym) -> int:
    """The line of `caller`'s body that calls `callee` (0 when the name is not written there); its
    docstring's and comments' "See `httpx.request`" are no call (references.code_lines)."""
    from .codeinfo import call_text, resolved_calls_where
    from .references import code_lines

    lines = code_lines(p, caller.rel)
    # the line where the map resolved the call, when it knows it: `@params.delete(k)`, not the line
    # before that calls a local's `params.delete('ignore')`
    body = "\n".join(p.lines_of(caller.rel)[caller.d.start_line - 1:caller.d.end_line])
    for hit, _side, at in resolved_calls_where(p, caller, body):
        if (hit.rel, hit.d.start_line) == (callee.rel, callee.d.start_line) and at >= 0:
            return caller.d.start_line + call_text(caller, body).count("\n", 0, at)
    made = constructed(callee)
    bare = rf"|(?<![\w$.:@]){re.escape(callee.short)}(?![\w=])" if callee.short[-1:] in ("!", "?") else ""  # Ruby's `route!`
    # (a method called without parentheses only in Ruby: Go's `reflect.String` is no call of `JsonContext.String`)
    dotted = rf"|\.{re.escape(callee.short)}(?![\w$])" if callee.lang == "ruby" else ""
    rx = re.compile(rf"(?<![\w$]){re.escape(callee.short)}\s*(?:!\s*)?[(<\[]" + dotted + (rf"|{made}" if made else "") + bare)
    for n in range(caller.d.start_line + 1, min(caller.d.end_line, len(lines)) + 1):
        if rx.search(lines[n - 1]):
            return n
    return 0


def constructed(callee: Sym) -> str:
    """The pattern of a call that runs a constructor without writing its name: Ruby's
    `Connection.new(` runs `Connection#initialize`; '' for any other callee."""
    if callee.lang == "ruby" and callee.short == "initialize" and "." in callee.dotted:
        owner = callee.dotted.rsplit(".", 2)[-2]
        return rf"(?<![\w$]){re.escape(owner)}\s*\.\s*new\b"
    return ""


def step_cites(a: Sym, b: Sym, at: int, tie: tuple[str, int] | None = None, heads: tuple[int, int] = (0, 0)) -> str:
    """The lines a traced step rests on: the caller from its header to the call (its header and the
    call's line when that is long), and the callee's first lines. The claim is "`a` calls `b`": the
    citation must show the call, not only the callee's definition (evidence.resolve.claim_problem)."""
    from ..evidence.cite import citation_link

    def link(rel: str, first: int, last: int) -> str:
        return f"({citation_link(rel, first, last)})"

    if not at:
        return ""
    # (`heads`: the lines that name each, past attributes: dapper's `LookupDbType` opens with three `[…]`)
    head = heads[0] or a.d.start_line
    # (the step may be told at the definition's first line, above the name: an `@abstractmethod` run by its
    # implementation, tenacity's `BaseRetrying.__call__`)
    head, at = min(head, at), max(head, at)
    caller = [link(a.rel, head, at)] if at - head < 40 else [link(a.rel, head, head), link(a.rel, at, at)]
    callee = link(b.rel, b.d.start_line, min(b.d.end_line, max(b.d.start_line + 2, heads[1])))
    ties = [link(tie[0], tie[1], tie[1])] if tie else []  # the line that fills the field the call goes through
    return " " + " ".join(caller + ties + [callee])


def alias_line(p: Project, b: Sym, rel: str, at: int) -> tuple[str, int] | None:
    """(file, line) of the line that gives `b` the other name the call on line `at` of `rel` writes
    (pyparsing's `self._parse(…)` runs `_parseNoCache`: `_parse = _parseNoCache`), cited with the step."""
    line = p.lines_of(rel)[at - 1] if 0 < at <= len(p.lines_of(rel)) else ""
    if not b.d.aliases or re.search(rf"(?<![\w$]){re.escape(b.short)}\s*\(", line):
        return None
    for other in (a.rsplit(".", 1)[-1] for a in b.d.aliases):
        if re.search(rf"(?<![\w$]){re.escape(other)}\b", line):
            for k, ln in enumerate(p.lines_of(b.rel), 1):
                if re.match(rf"\s*{re.escape(other)}\s*=\s*{re.escape(b.short)}\s*$", ln) or \
                        re.match(rf"\s*alias(?:_method)?[ \t(]+:?{re.escape(other)}\b.*\b{re.escape(b.short)}\b", ln):
                    return b.rel, k
    return None


_BUILTIN_CALLS = frozenset({"len", "print", "str", "int", "isinstance", "append", "get", "format", "Errorf", "Sprintf",
                            "make", "new", "panic", "super", "require", "push", "join", "keys", "items", "map", "list",
                            "dict", "set", "tuple", "range", "type", "getattr", "setattr", "hasattr", "Some", "Ok", "Err",
                            "unwrap", "clone", "into", "to_string", "String", "Error", "Object", "Array", "fmt"})


_LOG_CALL = re.compile(r"(?i)(?:^|\.)(?:log|logger|console|debug)\w*\.|(?:^|\.)_?(?:trace|debug|dbg|log|print|info|warn|warning)f?$")


def unresolved_tail(p: Project, last: Sym) -> tuple[str, int] | None:
    """(call, line) of the last call `last` makes that the map does not resolve to a definition of
    the source (an interface's method, another package's function): where the traced path leaves
    what the map can follow, and the docs must take over. None when every call resolves."""
    from .facts import all_calls

    known = {c.short for c in all_calls(p, last)}
    lines = p.lines_of(last.rel)
    found: tuple[str, int] | None = None
    for n in range(last.d.start_line + 1, min(last.d.end_line, len(lines)) + 1):
        text = lines[n - 1].split("//", 1)[0].split(" #", 1)[0]
        for m in re.finditer(r"([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)\s*\(", text):
            name = m.group(1)
            short = name.rsplit(".", 1)[-1]
            # (not a log line: tablewriter's `render` "goes on" with its calls, not with `t.logger.Info(…)`)
            if short not in known and short not in _BUILTIN_CALLS and not short.startswith("_") and len(short) > 2 \
                    and not _LOG_CALL.search(name):
                found = (name, n)
    return found


def longest_call_path(p: Project, key: list[Sym]) -> list[Sym]:
    """The longest chain of real calls among the key symbols (each step a call the map resolves)."""
    names = {x.name: x for x in key}
    edges = {x.name: [c for c in names if c != x.name and calls(p, x, c)] for x in key}
    best: list[str] = []

    def walk(path: list[str]) -> None:
        nonlocal best
        if len(path) > len(best):
            best = list(path)
        for c in edges[path[-1]]:
            if c not in path and len(path) < 6:
                walk(path + [c])
    for x in key:
        walk([x.name])
    return [names[n] for n in best]


def name_line(p: Project, s) -> int:
    """The line that names a definition (past its decorators and attributes): the line a
    citation of the name gives, whose text holds the name."""
    lines = p.lines_of(s.rel)
    short = s.name.rsplit(".", 1)[-1].rsplit("::", 1)[-1]
    # as a word: qs's `parse` (its file's `module.exports = function`) is not the `parseValues` of a later line
    word = re.compile(rf"(?<![\w$]){re.escape(short)}(?![\w$])")
    from ..evidence.resolve import definition_head

    # the head that defines it, however many decorator lines come first (python-dotenv's `IPythonDotEnv.dotenv`
    # has seventeen of `@argument(…)`); else the first line that has its name
    span = range(s.d.start_line, min(s.d.end_line, s.d.start_line + 60) + 1)
    head = next((n for n in span if 0 < n <= len(lines) and definition_head(lines[n - 1], short)), 0)
    if head:
        return head
    sig = s.d.signature.split("\n", 1)[0].strip()  # a definition named for its file (`module.exports = function (config)`):
    at = next((n for n in span if sig and 0 < n <= len(lines) and sig in lines[n - 1]), 0)  # its own head, not a comment's
    if at and not word.search(lines[at - 1]):  # `karma-adapter` three lines down
        return at
    for n in range(s.d.start_line, min(s.d.end_line, s.d.start_line + 12) + 1):
        if 0 < n <= len(lines) and word.search(lines[n - 1]):
            return n
    return s.d.start_line


def imported_as(p: Project, b: Sym, rel: str, at: int) -> str:
    """The name line `at` of JS/TS file `rel` calls `b` by, when it imports `b`'s module under another name (multer's
    `var memoryStorage = require('./storage/memory')`, then `memoryStorage()`, for the module's unnamed export that the
    map calls `memory`), or the `X.new` that runs a Ruby `initialize`: the step says the name the reader sees there.
    '' otherwise."""
    line = p.lines_of(rel)[at - 1] if 0 < at <= len(p.lines_of(rel)) else ""
    if b.lang == "ruby" and b.short == "initialize":  # (a class's `new`, which runs `initialize`: highline's
        made = re.search(r"((?:[A-Z]\w*::)*[A-Z]\w*)\s*\.\s*new\b", line)  # `UnixStty.new(…)`, whose `initialize` is `Terminal`'s)
        return f"{made.group(1)}.new" if made else ""
    if b.lang not in ("javascript", "typescript") or re.search(rf"(?<![\w$]){re.escape(b.short)}\s*\(", line):
        return ""
    from .references import imports, module_file

    for local, (mod, whole, _there) in imports(p, rel).items():
        if whole and module_file(p, rel, mod) == b.rel and re.search(rf"(?<![\w$.]){re.escape(local)}\s*\(", line):
            return local
    return ""
