"""A parser of Python's standard library that calls the project back (issue 35): html2text's `HTML2Text` extends
`html.parser.HTMLParser`, and `feed(data)` makes the stdlib's parser call the class's own `handle_starttag` for each
tag it meets. The call graph cannot see this (the stdlib's code is not the project's); the hop names that method."""

from __future__ import annotations

import re

from .project import Project, Sym

# a base class of the stdlib, the call that runs it, and the method of the subclass it calls back first
_CALLBACKS = ((re.compile(r"\b(?:html\.parser\.)?HTMLParser\b"), re.compile(r"\b(?:super\(\)|self)\s*\.\s*feed\s*\("),
               "handle_starttag"),)


def called_back(p: Project, s: Sym) -> list[tuple[Sym, int, str, str, None]]:
    """(the subclass's callback, the call's line, "callback", what the line calls, None) for each call of `s` that
    hands its class's input to the stdlib parser it extends."""
    if s.lang != "python" or "." not in s.dotted:
        return []
    owner = s.dotted.rsplit(".", 1)[0]
    cls = next((t for t in p.find(owner.rsplit(".", 1)[-1]) if t.dotted == owner and t.kind == "class"), None)
    if cls is None:
        return []
    out: list[tuple[Sym, int, str, str, None]] = []
    for base, call, method in _CALLBACKS:
        if not base.search(cls.d.signature):
            continue
        back = [x for x in p.find(method) if x.dotted == f"{owner}.{method}"]
        own_feed = any(x.dotted == f"{owner}.feed" for x in p.find("feed"))  # (then `self.feed(` is that override)
        for k, text in enumerate(p.lines_of(s.rel)[s.d.start_line - 1:s.d.end_line]):
            if back and call.search(text) and not (own_feed and re.search(r"\bself\s*\.\s*feed\s*\(", text)):
                out.append((back[0], s.d.start_line + k, "callback", "feed", None))
                break
    return out
