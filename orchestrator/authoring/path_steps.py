"""What a step of the main path does before it hands on (`prepared`), and the path as a sequence
diagram: how chapter 1 tells the path mainpath.central_path found."""

from __future__ import annotations

import re

from .facts import side_calls
from .handoff import NOT_STEPS, next_steps, side_road, trace_print
from .mainpath import _ACCESSOR, _maker, _node_value
from .project import Project, Sym


def prepared(p: Project, a: Sym, b: Sym, at: int, path: list[Sym]) -> tuple[Sym, int] | None:
    """(the call, its line): the work `a` has done on its main line before it hands on to `b` at line
    `at`, when a call did some (envconfig's `Process` gathers the fields with `gatherInfo` before its
    loop hands each to `processField`; tinydb's `_update_table` reads with `_read_table`); a step
    that names it traces the path as it runs. Not an accessor, a constructor, a check, an error's
    branch, a trace print, nor a call the path makes anyway."""
    from .codeinfo import call_text, resolved_calls_where

    body = "\n".join(p.lines_of(a.rel)[a.d.start_line - 1:a.d.end_line])
    text = call_text(a, body)
    on = {(x.rel, x.d.start_line) for x in path} | side_calls(p, a)
    best: tuple[float, Sym, int] | None = None
    where = resolved_calls_where(p, a, body)
    handed = next((off for c, _side, off in where if c is b), -1)
    if handed < 0:  # (_calls_where placed no hand-off written over lines: yaml's `for (const d of composer.compose(⏎…`)
        handed = next((m.start() for m in re.finditer(rf"(?<![\w$]){re.escape(b.short)}\s*\(", text)
                       if a.d.start_line + text.count("\n", 0, m.start()) == at), -1)
    from .hops import hops

    # (and a function it runs through `.call(this, …)`: eta's `this.parse.call(this, str)`)
    made = [(c, side, a.d.start_line + text.count("\n", 0, off) if off >= 0 else 0, off) for c, side, off in where] + \
        [(h.callee, False, h.at, -1) for h in hops(p, a) if h.how == "apply" and not h.via.endswith(".bind")]
    from .valuetypes import call_args

    paren = text.find("(", handed) if handed >= 0 else -1  # (what the hand-off is given runs before it: markdown-it's
    args = (paren, paren + len(call_args(text, paren)) + 1) if paren >= 0 else (-1, -1)  # `renderer.render(this.parse(src))`)
    from .sideroads import either_branch

    # (a call in another branch of the if/else the hand-off is in runs instead of it, not before: highline's `ask` calls
    # `gather_answers` or `ask_once`)
    k = at - a.d.start_line
    alt = {a.d.start_line + j for chain in either_branch(text, a.lang) if any(k in b for b in chain) for b in chain if k not in b for j in b}
    for c, side, line, off in made:
        if line in alt:
            continue
        if off < 0 and not line and (m := re.compile(rf"(?<![\w$]){re.escape(c.short)}\s*\(").search(text, args[0] + 1, max(args[1], 0))):
            # (_calls_where places no call inside another's arguments: find it in the hand-off's own)
            off, line = m.start(), a.d.start_line + text.count("\n", 0, m.start())
        # (on the hand-off's own line, a call before it: zerolog's `Logger.Debug()` in `Logger.Debug().…Msg(…)`)
        given = args[0] < off < args[1]  # (the hand-off's arguments may run over several lines)
        if side or _fast_path(p.lines_of(a.rel), line, at) or not (a.d.start_line < line < at or given or (line == at and 0 <= off < handed)) \
                or (c.rel, c.d.start_line) in on or c.kind in NOT_STEPS \
                or side_road(c) or trace_print(a, c.short) or _ACCESSOR.match(c.short) or _maker(c) \
                or re.match(r"(?i)(?:check|valid|ensure|assert|verify|is_|has_)", c.short) \
                or (c.lines < 8 and not next_steps(p, c)):
            continue
        # (what the hand-off is given comes first: yaml's `composer.compose(parser.parse(source))` is fed by
        # `Parser.parse`, whatever `parseOptions` did lines before)
        v = _node_value(p, c) + (1.0 if given else 0.0)
        if v > 0 and (best is None or v > best[0]):
            best = (v, c, line)
    return (best[1], best[2]) if best else None


_BRANCH = re.compile(r"^\s*(?:}\s*)?(?:if|else|elif|elsif|case|when|unless)\b")
_RESULT_EXIT = re.compile(r"^\s*return\b(?!\s*;?\s*$)(?!.*(?:\berr\b|Err\(|[Ee]rror|[Ee]xception|\bNone\s*$|\bnull\b|\bfalse\b))")


def _fast_path(lines: list[str], line: int, at: int) -> bool:
    """Whether the call at `line` (1-based) sits in a branch that gives the body's result back by another way
    before the hand-off at `at` (sjson's `set`: an optimistic path that returns the edited bytes itself): that
    branch replaces the hand-off, it does not prepare it. An error's return is no such way."""
    def indent(k: int) -> int:
        return len(lines[k - 1]) - len(lines[k - 1].lstrip())

    if not 0 < line < at <= len(lines) or indent(line) <= indent(at):
        return False
    level, k = indent(line), line
    while k > 1 and level > indent(at):  # each block around the call, out to the hand-off's level
        k -= 1
        if not lines[k - 1].strip() or indent(k) >= level:
            continue
        level = indent(k)
        if _BRANCH.match(lines[k - 1]):
            end = next((j for j in range(k + 1, at) if lines[j - 1].strip() and indent(j) <= level
                        and not re.match(r"^\s*[})\]]", lines[j - 1])), at)
            if any(_RESULT_EXIT.match(lines[j - 1]) for j in range(k + 1, end)):
                return True
    return False


# ---------------------------------------------------------------- diagram slots (issue 23 item 4)

def sequence_diagram(p: Project, path: list[Sym]) -> str:
    """The central operation's calls as a Mermaid block (a sequence between parts, with the work a step
    does before it hands on: prepared), or ''."""
    from .. import diagrams
    from .hops import hop_between
    from .tracing import call_line

    before = {}
    for a, b in zip(path, path[1:]):
        hop = hop_between(p, a, b)  # (as story._steps tells it)
        at = call_line(p, a, b) if hop is None else hop.at
        prep = prepared(p, a, b, at, path) if at else None
        if prep is not None:
            before[(a.rel, a.d.start_line)] = prep[0]
    return diagrams.path_block(path, before)
