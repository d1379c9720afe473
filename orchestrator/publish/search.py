"""The client-side search index, built here in Python and shipped as `search-index.js`
(`window.BOOK_SEARCH = {...};`), so search works offline and from `file://`.

Tokens: Latin text by words (lower case, NFKC, at least two characters; identifiers also
by their parts, so `put_batch` and `WriteAheadLog` are found by `batch` and `ahead`); CJK
text by character bigrams (a lone CJK character stands for itself). `book.js` tokenises a
query the same way; keep `tokenize` and its JavaScript twin in step.

Weights: a word in the chapter title counts 10, in a section heading 5, in the body 1 per
occurrence (at most 5), so titles outrank passing mentions."""

from __future__ import annotations

import json
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable

from .glossary_linker import CJK_CHARS

_TOKEN_RE = re.compile(f"([{CJK_CHARS}]+)|([^\\W{CJK_CHARS}]+)")
_CAMEL_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")

TITLE_WEIGHT, HEADING_WEIGHT, BODY_CAP = 10, 5, 5


def tokenize(text: str, parts: bool = False) -> list[str]:
    """Search tokens of `text`. `parts`: also the pieces of identifiers (index side only)."""
    out: list[str] = []
    for m in _TOKEN_RE.finditer(unicodedata.normalize("NFKC", text)):
        cjk, word = m.group(1), m.group(2)
        if cjk:
            out.extend([cjk] if len(cjk) == 1 else [cjk[i : i + 2] for i in range(len(cjk) - 1)])
            continue
        low = word.lower()
        if len(low) >= 2:
            out.append(low)
        if parts:
            pieces = [p.lower() for chunk in word.split("_") for p in _CAMEL_RE.findall(chunk)]
            if len(pieces) > 1:
                out.extend(p for p in pieces if len(p) >= 2 and p != low)
    return out


class IndexBuilder:
    def __init__(self) -> None:
        self.pages: list[dict[str, str]] = []
        self.docs: list[dict[str, object]] = []
        self.postings: dict[str, dict[int, int]] = defaultdict(dict)

    def page(self, title: str, url: str) -> int:
        self.pages.append({"t": title, "u": url})
        return len(self.pages) - 1

    def doc(self, page: int, anchor: str, title: str, text: str, page_title: str | None = None) -> None:
        """One searchable section. `page_title` is given for the section that opens a page."""
        n = len(self.docs)
        self.docs.append({"p": page, "a": anchor, "t": title, "x": text})
        weights: dict[str, int] = defaultdict(int)
        for tok in tokenize(text, parts=True):
            weights[tok] = min(weights[tok] + 1, BODY_CAP)
        for tok in set(tokenize(title, parts=True)):
            weights[tok] += HEADING_WEIGHT
        for tok in set(tokenize(page_title or "", parts=True)):
            weights[tok] += TITLE_WEIGHT
        for tok, w in weights.items():
            self.postings[tok][n] = w

    def js(self) -> str:
        # [token, [doc, weight, doc, weight, ...]] pairs, sorted: a list rather than an object,
        # so that a token such as `__proto__` cannot clash with JavaScript's object keys.
        terms = [
            [tok, [x for doc, w in sorted(ds.items()) for x in (doc, w)]]
            for tok, ds in sorted(self.postings.items())
        ]
        data = {"version": 1, "pages": self.pages, "docs": self.docs, "terms": terms}
        return "window.BOOK_SEARCH = " + dump_js(data) + ";\n"


def dump_js(data: object) -> str:
    """Stable JSON that is also safe inside any HTML or JS context."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    for ch, esc in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(ch, esc)
    return text


def vocabulary(js: str) -> Iterable[str]:
    """The tokens of a built index (for tests and debugging)."""
    data = json.loads(js[js.index("{") : js.rindex("}") + 1])
    return [tok for tok, _ in data["terms"]]
