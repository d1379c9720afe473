"""Where a YAML error really is, for a person who has to fix it. PyYAML reports where it noticed
the problem, which for a construct left open (a quote, a `[` or `{` never closed) is lines after
the one to fix: the next key, or the end of the file. Here the line is the construct's opening."""

from __future__ import annotations

from typing import Any


def error_line(e: Any, text: str) -> int | None:
    """The 1-based line to point a person at for a yaml.YAMLError `e` raised on `text`."""
    problem, context = getattr(e, "problem_mark", None), getattr(e, "context_mark", None)
    if problem is None:
        return None
    ctx = str(getattr(e, "context", "") or "")
    if context is not None and ctx.startswith(("while scanning a quoted scalar", "while parsing a flow")):
        return int(context.line) + 1
    opened = _open_quote(text, problem.line)
    return opened if opened is not None else int(problem.line) + 1


def _open_quote(text: str, upto: int) -> int | None:
    """A quoted scalar that runs over several lines into the line where the parser choked: its
    quote was most likely never closed on the line it opened (a title missing its closing `"`)."""
    import yaml

    found = None
    try:
        for tok in yaml.scan(text):
            if tok.start_mark.line > upto:
                break
            if (isinstance(tok, yaml.ScalarToken) and tok.style in ('"', "'")
                    and tok.start_mark.line < tok.end_mark.line == upto):
                found = int(tok.start_mark.line) + 1
    except yaml.YAMLError:
        pass
    return found
