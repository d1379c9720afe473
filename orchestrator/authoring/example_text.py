"""What an example's text says of itself (issue 35): it only brings the project in, it shows its call's result,
it is step 1 of a numbered walk-through, which part of a long block is its use. Read by overview.example_of."""

from __future__ import annotations

import re

IMPORT_ONLY = re.compile(r"\s*(?://.*|#.*|(?:const|let|var)\s+[\w${}\s,]+=\s*require\s*\(\s*['\"][^'\"]+['\"]\s*\)\s*;?"
                          r"|import\s.*\bfrom\s+['\"][^'\"]+['\"]\s*;?|import\s+['\"][^'\"]+['\"]\s*;?|require\s*\(?['\"][^'\"]+['\"]\)?)\s*$")


_STEP = re.compile(r"(?i)^\W*(?:step\s*)?(\d)\s*[.):]")


def next_step(first: int, last: int, heads: list[tuple[int, str]], lines: int) -> tuple[int, int] | None:
    """In a walk-through of numbered steps, the example of step 1 ("1. First, define your rule", at lines
    `first`–`last`) is run by the first block of step 2 ("2. Then, fire it!": easy-rules'
    `rulesEngine.fire(rules, facts)`): the lines (after the heading, before the next) where that block is."""
    steps = [(at, int(m.group(1))) for at, h in heads for m in [_STEP.match(h)] if m]
    here = next((n for at, n in reversed(steps) if at < first), None)
    then = next((at for at, n in steps if at > last), None) if here == 1 else None
    nxt = next((at for at, n in steps if at > last and n == 2), None)
    if then is None or then != nxt:
        return None
    return nxt, min([at for at, _h in heads if at > nxt] + [lines + 1])


# a line that prints what a call on one of the example's values gives (`print pystache.render(…)`,
# `console.log(x.parse(…))`, `println!("{}", v.f(…))`), or a doctest's call followed by its output
_PRINT_CALL = r"(?:print\b\s*\(?|console\.log\s*\(|puts\s|pp?\s|System\.out\.println\s*\(|fmt\.Print\w*\s*\(|println!?\s*\()"


def shows_result(code: str, values: set[str]) -> bool:
    """A line of `code` prints a call on one of `values`, or a doctest's call of one is followed by its output."""
    if not values:
        return False
    call = rf"(?<![\w$.])(?:{'|'.join(re.escape(v) for v in values)})\s*\.\s*[A-Za-z_$][\w$]*\s*\("
    lines = code.splitlines()
    for k, ln in enumerate(lines):
        body = re.sub(r"^\s*(?:>>>|\.\.\.)\s?", "", ln)
        if re.match(rf"\s*{_PRINT_CALL}[^\n]*{call}", body):
            return True
        after = lines[k + 1].strip() if k + 1 < len(lines) else ""
        # (an assignment shows nothing, and a line left open goes on: jsonpatch's `>>> patch = jsonpatch.JsonPatch([`)
        if ln.lstrip().startswith(">>>") and re.search(call, body) and after and not after.startswith((">>>", "...")) \
                and not re.match(r"\s*[\w.]+\s*=[^=]", body) and body.count("(") == body.count(")"):
            return True
    return False


MAX_EXAMPLE_LINES = 40

# the call that runs what an example has set up: a server's `listen`, a CLI's `Run`, a parser's `parse`
SERVING = re.compile(r"(?<![\w$])(?:([A-Za-z_$][\w$]*)\s*(?:\.|::)\s*)?((?:listen|ListenAndServe(?:TLS)?|serve|Serve|run|"
                      r"Run|execute|Execute|ExecuteContext|parse|Parse|parse_args|start|Start|Handle)!?)\s*(?:<[\w\s,.?\[\]<>]*>\s*)?\(")


_TEST_MARK = re.compile(r"(?:\[(?:Test|Fact|Theory|TestMethod)\]|@Test\b|#\[test\]|def test_|func Test[A-Z]|(?:it|test)\s*\(['\"])")


def leading_part(blk: tuple[int, int, str, str]) -> tuple[int, int, str, str]:
    """A block as its use, before a test of the reader's own code that follows it; a block longer than
    MAX_EXAMPLE_LINES as its leading part, cut at its last blank line within
    the bound that comes before a line at the margin (axum's README example: its imports, `main`
    and the first handler); a block with no such place is left whole (and too long to quote)."""
    first, last, tag, code = blk
    lines = code.split("\n")
    # a use, then a test of the reader's own code that fakes the project (flurl's `[Test] public void
    # Can_Create_Person()` under its fluent call): the use is the example
    test = next((k for k in range(2, len(lines)) if not lines[k - 1].strip() and _TEST_MARK.match(lines[k])), 0)
    if test and any(ln.strip() for ln in lines[:test]):
        return first, first + test - 2, tag, "\n".join(lines[:test - 1])
    if len(lines) <= MAX_EXAMPLE_LINES:
        return blk
    # a block of helpers and then a `main` that runs (kotlinx-cli's `fun main(…) { … parser.parse(args) … }`):
    # the definition at the margin that makes the last run, quoted whole, is the use
    runs = list(SERVING.finditer(code))
    if runs:
        at = code.count("\n", 0, runs[-1].start())
        start = max((k for k in range(at + 1) if lines[k][:1].strip() and (k == 0 or not lines[k - 1].strip())), default=0)
        end = next((k for k in range(at + 1, len(lines)) if lines[k].rstrip() in ("}", "end")), -1)
        if 0 < start and at < end and end - start < MAX_EXAMPLE_LINES:
            return first + start, first + end, tag, "\n".join(lines[start:end + 1])
    # a block that makes a value and runs it further down (Bogus' "Great C# Example": `var testUsers = new
    # Faker<User>()` and its rules, then `var user = testUsers.Generate();` and its print): from the making to the run
    built: dict[str, int] = {}
    for k, ln in enumerate(lines):
        if m := _MADE_AT_MARGIN.match(ln):
            built.setdefault(m.group(1), k)
        elif (m := _RUN_AT_MARGIN.match(ln)) and m.group(1) in built:
            start, end = built[m.group(1)], k
            while start and lines[start - 1].strip():
                start -= 1  # (with the lines that prepare it: `var userIds = 0;`)
            if all(not ln.strip() or IMPORT_ONLY.match(ln) for ln in lines[:start]):
                start = 0  # (and the imports above it: joi's `const Joi = require('joi');`)
            while end + 1 < len(lines) and lines[end + 1][:1].strip():
                end += 1  # (and those at the margin that show what it gave: `Console.WriteLine(user.DumpAsJson());`)
            if end - start < MAX_EXAMPLE_LINES:
                return first + start, first + end, tag, "\n".join(lines[start:end + 1])
            break
    cut = max((k for k in range(8, MAX_EXAMPLE_LINES + 1) if not lines[k].strip()
               and lines[k + 1][:1].strip()), default=0)  # before a line at the margin: between definitions
    if not cut:
        return blk
    return first, first + cut - 1, tag, "\n".join(lines[:cut])


_MADE_AT_MARGIN = re.compile(r"(?:(?:var|let|const|val|auto)\s+)?([A-Za-z_]\w*)\s*:?=\s*(?:new\b|[A-Z])")
_RUN_AT_MARGIN = re.compile(r"(?:(?:var|let|const|val|auto)\s+[A-Za-z_]\w*\s*:?=\s*)?(?:await\s+)?([A-Za-z_]\w*)\s*\.\s*\w+\s*\(")
