"""The side roads of a body: the lines a definition runs only in an error handler, under a
condition on an error, a deprecation or a debug switch, or under one of the object's own settings.
A call made only there is not the way the operation flows (mainpath.call_path never takes it as a
step). And how many conditions a line sits under (cond_depths): the hand-off prefers the fewest."""

from __future__ import annotations

import re

from .codetext import call_args, closing
from .project import Project, Sym

# the side roads of an operation: cleaning up, reporting an error, warning of a deprecation
_SIDE_ROADS = re.compile(r"(?i)free|err|fail|close|destroy|deprecat|warn|cleanup|teardown|abort|panic|dispose|exception|"
                         r"not_?found|missing|^return$|^release$|^set_?debug")
# (a 404 handler or i18n's `missing_interpolation_argument_handler`: the miss; a pool's `Return(sb)`: giving back;
# pyparsing's `set_debug(False)`: a switch)

# The side roads of a body: an error handler, and a condition on an error, a deprecation or a debug
# switch (`if err != nil {`, `if self.deprecated:`). Loops and other conditions are the work itself.
_BRANCH_OPENER = re.compile(r"^\s*(?:\}\s*)?(?:catch|except|finally\b|(?:if|elif|else\s+if)\b.*?"
                            r"(?:err|fail|deprecat|warn|debug|verbose|invalid))", re.I)


def side_road(c: Sym) -> bool:
    """Error handling, clean-up or a miss, by the name of the definition or of a thrower that holds it
    (markdig's `ThrowHelper.CheckDepthLimit`)."""
    # (and a cache's: jinja's `bcc.set_bucket(bucket)` after `environment.compile(…)` saves the work done, it is not the work)
    owner = c.dotted.rsplit(".", 1)[0].lower() if "." in c.dotted else ""
    # (and pushing out what a buffer holds after the work wrote it: pebble's `writer.flush()` after `rootNode.render(…)`)
    return bool(_SIDE_ROADS.search(c.short)) or c.short.lower() == "flush" or "throw" in owner or owner.endswith("cache") or _makes_error(c) \
        or (c.kind == "macro" and c.short in ("ok", "try", "ensure", "bail"))  # (Rust's `ok!(x)`: `x?` spelled out)


def _makes_error(c: Sym) -> bool:
    """A Rust function that gives back an error value itself, not a `Result` (reqwest's `url_invalid_uri(url) ->
    Error`), or a Java, C# or Kotlin one that gives back an exception: it builds the report of a failure."""
    sig = " ".join(c.d.signature.split())
    if c.lang == "rust":
        return bool(re.search(r"->\s*(?:[\w]+::)*\w*Error\s*(?:where\b.*)?$", sig))
    if c.lang in ("java", "csharp", "kotlin") and c.kind in ("method", "function"):
        return bool(re.search(r"\b\w*Exception\s+\w+\s*\(|\)\s*:\s*\w*Exception\b", sig))
    return False


def branch_lines(code: str, lang: str = "", recv: tuple[str, ...] = (), options: bool = True,
                 optional: tuple[str, ...] = ()) -> set[int]:
    """The 0-based lines of `code` inside a side road (_BRANCH_OPENER): its body, not the line that
    opens it (a condition is evaluated on the main line: `if (redisBufferRead(c) == REDIS_ERR)`).
    By indentation for Python-like code, by braces where the code has them; with `options`, a branch on one
    of the object's settings (_option) is one too, and a branch on one of the `optional` parameters given."""
    lines = code.splitlines()
    out: set[int] = set()
    recv = recv or _receivers(code, lang)  # (a body without its first line names its receiver apart)
    # (or several of them: parso's `if cache or diff_cache:` saves the tree only when a caller asks)
    one = rf"(?:{'|'.join(map(re.escape, optional))})(?:\s*(?:is\s+not\s+None|!==?\s*(?:null|nil|undefined)))?"
    # (or one of them and more: `if cache and file_io.path is not None:` loads a saved tree only when asked)
    given = re.compile(rf"\s*\(?\s*{one}(?:(?:\s*(?:\bor\b|\|\|)\s*{one})*\s*\)?|\s*(?:\band\b|&&)[^:{{]*)\s*(?:\{{|:|then)?\s*$") \
        if optional and options else None
    if lang == "ruby":  # by indentation, as Ruby is written (its `{` opens a hash, a block, an interpolation)
        return _ruby_branch_lines(lines, recv, options, given)
    if lang != "python" and "{" in code:  # (a Python string's `{name!r}` is no block)
        stack: list[bool] = []
        pending = False  # `if (err)` without a brace: the next line is its body
        for k, ln in enumerate(lines):
            opener = bool(_BRANCH_OPENER.match(ln)) or (options and _option(ln, recv)) or _given(ln, given)
            if any(stack) or pending:
                out.add(k)
            bare = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', "", ln)
            if opener and "{" not in bare:
                head = re.sub(r"^\s*(?:\}\s*)?\w+(?:\s+if)?\s*", "", bare)
                tail = head[len(call_args(head, head.find("(")) if head.startswith("(") else "") + 2:] \
                    if head.startswith("(") else head
                if tail.strip().rstrip(";"):  # `if (x) return f();` on one line: the rest of the line
                    out.add(k)
                else:
                    pending = True
                continue
            # (a brace on the next line opens the side road's body: C#'s `finally⏎{⏎ ReleaseLargeBuffers();`)
            opener = opener or (pending and bare.lstrip().startswith("{"))
            pending = False
            depth = len(stack)
            for ch in bare:
                if ch == "{":
                    stack.append(opener)
                elif ch == "}" and stack:
                    stack.pop()
            if opener and len(stack) <= depth and bare.rstrip().endswith("}"):
                out.add(k)  # `if (c->err) { report(c); }`: a side road on one line
        return out
    opened: list[tuple[int, bool]] = []  # (indentation of the opener, is a branch)
    for k, ln in enumerate(lines):
        if not ln.strip():
            continue
        ind = len(ln) - len(ln.lstrip())
        while opened and ind <= opened[-1][0]:
            opened.pop()
        opener = bool(_BRANCH_OPENER.match(ln)) or (options and _option(ln, recv)) or _given(ln, given)
        if any(b for _, b in opened) or (opener and not ln.rstrip().endswith(":")):
            out.add(k)  # inside a side road, or one on a line (`if err: fail()`)
        if ln.rstrip().endswith(":"):
            opened.append((ind, opener))
    return out


def _ruby_branch_lines(lines: list[str], recv: tuple[str, ...], options: bool, given: re.Pattern[str] | None) -> set[int]:
    """branch_lines of a Ruby body: a line opens a block when the next is indented deeper; a `rescue` or an `ensure`
    clause is a side road as an error's condition is (csv's `Parser#parse` raises `MalformedCSVError.new(…)` only in
    its `rescue UnexpectedError`)."""
    out: set[int] = set()
    opened: list[tuple[int, bool]] = []
    filled = [k for k, ln in enumerate(lines) if ln.strip()]
    for i, k in enumerate(filled):
        ln = lines[k]
        ind = len(ln) - len(ln.lstrip())
        while opened and ind <= opened[-1][0]:
            opened.pop()
        opener = bool(_BRANCH_OPENER.match(ln) or re.match(r"\s*(?:rescue|ensure)\b", ln)) or (options and _option(ln, recv)) \
            or _given(ln, given)
        if any(b for _, b in opened):
            out.add(k)
        nxt = lines[filled[i + 1]] if i + 1 < len(filled) else ""
        if nxt and len(nxt) - len(nxt.lstrip()) > ind:
            opened.append((ind, opener))
    return out


_IF = re.compile(r"^\s*(?:\}\s*)?(?:if|elif|else\s+if|unless)\b\s*(.*)$")


def _receivers(code: str, lang: str) -> tuple[str, ...]:
    """The names a method's own object has in `code` (its first line holds a Go receiver)."""
    m = re.match(r"\s*func\s*\(\s*(\w+)\s", code.lstrip("\n")) if lang == "go" else None
    return (m.group(1),) if m else ("self", "this", "@") if lang == "ruby" else ("self", "this")


def _given(line: str, given: re.Pattern[str] | None) -> bool:
    """`if postfix:` where `postfix` is a parameter that defaults to nothing: what it guards runs only when a caller
    asks for it (tqdm's `__init__` sets the postfix only `if postfix:`), not on the call's own way."""
    m = _IF.match(line) if given is not None else None
    return m is not None and given is not None and bool(given.fullmatch(m.group(1)))


def optional_params(p: Project, s: Sym) -> tuple[str, ...]:
    """The parameters of `s` whose default is nothing (None, nil, null, False, an empty literal), read from its whole head."""
    from .signature import signature_parts, whole

    key = ("optional_params", s.rel, s.d.start_line)
    if key not in p._keys:
        off = re.compile(r"\s*(?:None|nil|null|undefined|False|false|''|\"\"|\[\]|\{\}|\(\))\s*")
        p._keys[key] = tuple(prm.name.lstrip("*&$") for prm in signature_parts(whole(p, s))[0]
                             if prm.default and off.fullmatch(prm.default) and re.fullmatch(r"[A-Za-z_]\w*", prm.name.lstrip("*&$")))
    return p._keys[key]


def _option(line: str, recv: tuple[str, ...]) -> bool:
    """A condition on one of the object's own settings (`if r.RedirectFixedPath {`, `} else if
    r.HandleMethodNotAllowed {`, `if self.debug:`): what it guards is an option the object may have
    turned on, not the operation's own way (httprouter's `ServeHTTP` serves through `getValue`; its
    fixed-path redirect runs only when configured). A field read as an index, a call or an argument
    (`r.trees[m]`, `root.getValue(path, r.getParams)`) is data, not a setting."""
    m = _IF.match(line)
    if m is None:
        return False
    cond = re.split(r"\{\s*$|:\s*$|\bthen\b", re.sub(r"\s+(?://|#).*$", "", m.group(1)))[0]
    prev = None
    while prev != cond:  # drop the arguments of calls, innermost first: a field passed on is no setting
        prev, cond = cond, re.sub(r"([\w$\]])\s*\([^()]*\)", r"\1()", cond)
    dot = {r: "" if r == "@" else r"\." for r in recv}  # Ruby's `@debug` is the object's own field
    # a flag tested as it is (`r.HandleOPTIONS &&`, `not self.debug`), not a field compared with
    # something (`if self.callback is not None:` runs the callback the object holds: the work itself)
    # (a held function tested for presence, `if (this._actionHandler)`, is the work: run when given)
    for r in recv:
        for m in re.finditer(rf"(?:^|[!(]|&&|\|\||\b(?:not|and|or)\b)\s*{re.escape(r)}{dot[r]}((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)"
                             rf"\s*(?:$|&&|\|\||\)|\b(?:and|or)\b)", cond.strip()):
            if not _HELD.search(m.group(1)):
                return True
    # (or a flag of its settings object, read without `this.`: NCalc's `if (EvaluationOptions.IterateParameters)`)
    return bool(re.search(r"(?:^|[!(]|&&|\|\|)\s*(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Options|Settings|Config|Configuration)\.[A-Z]\w*"
                          r"\s*(?:$|&&|\|\||\))", cond.strip()))


# the name of a field that holds code to run, not a setting
_HELD = re.compile(r"(?i)(?:handler|callback|hook|action|listener|fn|func|function|middleware|app|delegate)$")


# A block run only under a condition: an `if`/`else`, a `switch`/`match`/`case`, Ruby's `unless`
# (loops are the work itself: their body runs on the main line)
_COND_OPENER = re.compile(r"^\s*(?:\}\s*)?(?:if|elif|else|unless|switch|match|case|when)\b", re.I)


def cond_depths(code: str, lang: str = "") -> list[int]:
    """For each 0-based line of `code`, how many conditional blocks it is inside (the line that
    opens a block is outside it: its condition runs whenever the line above does). Braces where the
    code has them, else indentation (Python's `:`, Ruby's `end`)."""
    lines = code.splitlines()
    out: list[int] = []
    if lang not in ("python", "ruby") and "{" in code:  # (a Ruby block's braces `invoke { dispatch! }` open no branch)
        stack: list[bool] = []
        pending = False  # a condition written over several lines (`if (⏎ a &&⏎ b⏎ ) {`): its `{` comes later
        for ln in lines:
            bare = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', "", ln)
            out.append(sum(stack))
            opener = bool(_COND_OPENER.match(bare)) or pending
            pending = opener and "{" not in bare and not bare.rstrip().endswith(";")
            for ch in bare:
                if ch == "{":
                    stack.append(opener)
                elif ch == "}" and stack:
                    stack.pop()
        return out
    opened: list[tuple[int, bool]] = []  # (indentation of the opener, is conditional)
    for ln in lines:
        if not ln.strip():
            out.append(sum(b for _, b in opened))
            continue
        ind = len(ln) - len(ln.lstrip())
        # Ruby's `else`/`elsif`/`when` goes on the block its `if`/`case` opened
        goes_on = lang == "ruby" and bool(opened) and ind == opened[-1][0] and ln.strip().startswith(("els", "when"))
        while opened and ind <= opened[-1][0] and not goes_on:
            opened.pop()
        out.append(sum(b for _, b in opened))
        opener = bool(_COND_OPENER.match(ln))
        if ln.rstrip().endswith(":") or (lang == "ruby" and opener and not goes_on and not re.search(r"\bend\s*$", ln)):
            opened.append((ind, opener))
    return out


def either_branch(code: str, lang: str = "") -> list[list[range]]:
    """The if/else chains of `code` that end in a plain `else`: one of their branches always runs.
    Each chain is given as its branches' body lines (0-based ranges of `code`'s lines)."""
    lines = code.splitlines()
    chains: list[list[range]] = []
    if lang not in ("python", "ruby") and "{" in code:
        for k, ln in enumerate(lines):
            if not re.match(r"\s*if\b", ln):
                continue
            # (a condition over several lines opens its block where it ends: class-validator's `if (⏎ … ⏎ ) {`)
            k = next((j for j in range(k, min(k + 8, len(lines))) if re.search(r"\{\s*$", lines[j])
                      and (j == k or re.match(r"\s*\)", lines[j]))), -1)
            if k < 0:
                continue
            branches, j = [], k
            while (end := _closing_line(lines, j)) is not None:
                branches.append(range(j + 1, end))
                nxt = re.match(r"\s*\}\s*else\b(\s*if\b)?.*\{\s*$", lines[end])
                if nxt is None:
                    break
                j = end
                if nxt.group(1) is None:  # the plain `else`: its body ends the chain
                    if (last := _closing_line(lines, j)) is not None:
                        chains.append(branches + [range(j + 1, last)])
                    break
        return chains
    for k, ln in enumerate(lines):
        if not re.match(r"\s*if\b", ln):
            continue
        ind = len(ln) - len(ln.lstrip())
        branches, start, plain_else = [], k, False
        for m in range(k + 1, len(lines) + 1):
            cur = lines[m] if m < len(lines) else ""
            if m < len(lines) and (not cur.strip() or len(cur) - len(cur.lstrip()) > ind):
                continue
            branches.append(range(start + 1, m))
            if m < len(lines) and re.match(r"\s*(?:elif|elsif)\b", cur):
                start = m
                continue
            if m < len(lines) and re.match(r"\s*else\b", cur) and not plain_else:
                start, plain_else = m, True
                continue
            break
        if plain_else and len(branches) >= 2:
            chains.append(branches)
    return chains


def _closing_line(lines: list[str], j: int) -> int | None:
    """The line of the `}` that closes the block the last `{` of line `j` opens (of masked code)."""
    text = "\n".join(lines)
    end = closing(text, sum(len(x) + 1 for x in lines[:j]) + lines[j].rindex("{"))
    return text.count("\n", 0, end) if end >= 0 else None


_RETURNS_LOCAL = re.compile(r"\s*return\s+([A-Za-z_$][\w$]*)\s*;?\s*$")
_EACH = re.compile(r"\s*(?:for|foreach)\b\s*\(?\s*(?:(?:final\s+)?[\w<>\[\],.?]+\s+)?([A-Za-z_$][\w$]*)\s*(?::(?!:)|\bin\b|\bof\b)")


def hook_loops(code: str) -> set[int]:
    """The lines (0-based, of `code`) of a loop that runs each item's hook over what the body made, before it gives
    that back (pebble's `getPebbleTemplate`: `instance = new PebbleTemplateImpl(this, root, …)`, then each
    extension's `visitorFactory.createVisitor(instance).visit(root)`, then `return instance`): the loop adds
    nothing to the value given back, so its calls are no way on. A loop that fills the value (`out.add(…)`) is."""
    lines = code.split("\n")
    # (the last `return` of a local, in a `try` too: what follows is its `finally`)
    last = next(((k, m) for k in range(len(lines) - 1, -1, -1) if (m := _RETURNS_LOCAL.match(lines[k]))), None)
    if last is None:
        return set()
    ret, got = last
    name = re.escape(got.group(1))
    made = next((k for k in range(ret) if re.search(rf"(?<![\w$.]){name}\s*=(?!=)[^;\n]*\(", lines[k])), None)
    out: set[int] = set()
    k = (made if made is not None else ret) + 1
    while k < ret:
        each = _EACH.match(lines[k])
        end = (_closing_line(lines, k) if "{" in lines[k] else _indented_end(lines, k)) if each else None
        if each is None or end is None:
            k += 1
            continue
        text = "\n".join(lines[k + 1:end + 1])
        if re.search(rf"(?<![\w$.]){re.escape(each.group(1))}\s*\.", text) and \
                not re.search(rf"(?<![\w$.]){name}\s*(?:\.|\[|\+=|=(?!=))", text):
            out |= set(range(k, end + 1))
        k = end + 1
    return out


def _indented_end(lines: list[str], k: int) -> int:
    """The last line of the block indented under line `k`."""
    ind, end = len(lines[k]) - len(lines[k].lstrip()), k
    for j in range(k + 1, len(lines)):
        if lines[j].strip():
            if len(lines[j]) - len(lines[j].lstrip()) <= ind:
                break
            end = j
    return end


_SWITCH = re.compile(r"^\s*(?:switch|when)\s*\(\s*([A-Za-z_]\w*)\s*\)\s*\{?\s*$")
_CASE = re.compile(r"^\s*(?:case\s+([\w.]+)\s*:|([\w.]+)\s*->|(default)\s*:|(else)\s*->)")


def default_cases(p: Project, s: Sym, code: str) -> tuple[set[int], set[int]]:
    """The 0-based lines of `code` in a `switch`/`when` on a parameter with a default value: those of the cases the
    default selects (the way a call without it goes: no condition), and those of the other cases, variants
    (ConsoleTables' `Write(Format format = Format.Default)` prints `ToString()`; `ToMarkDownString()` is a variant)."""
    from .signature import signature_parts, whole

    defaults = {prm.name: prm.default.strip().rsplit(".", 1)[-1] for prm in signature_parts(whole(p, s))[0]
                if prm.default and re.fullmatch(r"\s*[A-Za-z_][\w.]*\s*", prm.default)}
    lines = code.splitlines()
    out: set[int] = set()
    taken: set[int] = set()
    for k, ln in enumerate(lines):
        m = _SWITCH.match(ln)
        if m is None or m.group(1) not in defaults:
            continue
        depth, sections, cur = 0, [], None  # sections: (label's last name or '' for the rest, its lines)
        for j in range(k, len(lines)):
            bare = re.sub(r'"(?:[^"\\]|\\.)*"', "", lines[j])
            if j > k and depth == 1 and (c := _CASE.match(bare)):
                label = (c.group(1) or c.group(2) or "").rsplit(".", 1)[-1]
                cur = (label, [j])
                sections.append(cur)
            elif cur is not None and depth >= 1:
                cur[1].append(j)
            depth += bare.count("{") - bare.count("}")
            if j > k and depth <= 0 and "{" in "".join(lines[k:j + 1]):
                break
        if any(label == defaults[m.group(1)] for label, _ in sections):
            out |= {j for label, at in sections if label != defaults[m.group(1)] for j in at}
            taken |= {j for label, at in sections if label == defaults[m.group(1)] for j in at}
    return taken, out
