"""The comments above a definition that document it, their markers removed: not a licence banner, a linter's
directive or a file's own doc (split from definitions.py)."""

from __future__ import annotations

import inspect
import re
from typing import Any

_COMMENTS = frozenset({"comment", "line_comment", "block_comment", "multiline_comment", "haddock", "documentation_comment"})
# Languages whose doc comments are only `/** … */` blocks (JSDoc, KDoc, PHPDoc, Scaladoc): a `//`
# comment above a definition is a remark, a licence or a directive, not its documentation.
_DOC_BLOCK_ONLY = frozenset({"javascript", "typescript", "tsx", "kotlin", "php", "scala"})
_MARKERS = re.compile(r"^\s*(?:///?!?|/\*\*?|\*/|\*(?!/)|#+(?!\{)|-{2,3}(?!\[))?")


def comment_block(src: Any, outer: Any) -> str:
    """The comments directly above a definition (no blank line between), markers removed.

    JS/TS: only JSDoc (`/** */`, which may stand one blank line above, as in Express), never
    tool directives such as `// eslint-disable-next-line`.
    """
    js = src.lang in _DOC_BLOCK_ONLY
    comments: list[str] = []
    line = outer.start_point[0]
    sibling = outer.prev_sibling
    if sibling is None and outer.parent is not None and outer.parent.type in (
            "body_statement", "declarations", "class_declarations"):
        sibling = outer.parent.prev_sibling  # Ruby, Haskell: the comment above a body's first definition sits beside it
        if sibling is not None and sibling.child_count and sibling.children[-1].type == "haddock":
            sibling = sibling.children[-1]  # Haskell: the grammar ends the imports with the first definition's doc
    while sibling is not None:
        text = src.text(sibling) if sibling.type in _COMMENTS else ""
        gap = 2 if js and text.startswith("/**") and not comments else 1
        if sibling.type in ("attribute_item", "decorator"):
            line = sibling.start_point[0]
        elif text and sibling.end_point[0] >= line - gap:
            if text.startswith(("//!", "/*!", "////")) or _DIRECTIVE.match(text) or _LICENCE.search(text[:400]):
                break  # a file doc, a licence banner or a linter directive (easy-rules' `/* The MIT License …`
                # above the Javadoc of its package-info.java)
            if src.lang == "haskell" and sibling.type != "haddock":
                break  # a Haskell doc is Haddock's `-- |`
            if src.lang in ("rust", "csharp", "swift", "dart") and not text.startswith(("///", "/**")):
                break  # a comment that is not a doc comment (Rust's and C#'s are `///`)
            if src.lang == "ruby" and re.match(r"#\s*(?:frozen_string_literal|rubocop|encoding|-\*-|:(?!call-seq)[\w-]+:\s*$)", text):  # (`:nocov:`)
                break
            if js and not text.startswith("/**"):
                break
            comments.append(text.rstrip())
            line = sibling.start_point[0]
            if js:
                break  # one JSDoc block is the doc
        else:
            break
        sibling = sibling.prev_sibling
    return clean_comment("\n".join(reversed(comments)))


_LICENCE = re.compile(r"(?i)\bcopyright\s*(?:\(c\)|©|\d{4})|\blicensed under\b|\bpermission is hereby granted\b"
                      r"|SPDX-License-Identifier|\bthe (?:mit|apache|bsd|gnu)\b[\w\s.-]{0,30}\blicen[cs]e\b")
_DIRECTIVE = re.compile(r"^//\s*(?:eslint|@ts-|prettier-|nolint|go:|\+build|TODO|FIXME|NOTE\b)|^/\*\s*(?:eslint|global)")


def clean_comment(text: str) -> str:
    lines = []
    for raw in text.splitlines():
        line = raw.strip()
        if line.endswith("*/"):
            line = line[:-2].rstrip()
        line = _MARKERS.sub("", line, count=1)
        lines.append(line.removeprefix(" "))
    return inspect.cleandoc("\n".join(lines)) if lines else ""
