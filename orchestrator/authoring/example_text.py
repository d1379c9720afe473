"""What an example's text says of itself (issue 35): it only brings the project in, it shows its call's result,
it is step 1 of a numbered walk-through. Read by overview.example_of."""

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
