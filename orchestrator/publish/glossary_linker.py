"""Glossary terms linked at their first use in a chapter (the parser's core rule calls it)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from markdown_it.token import Token

# Han, kana and Hangul: text in these scripts has no spaces between words, so glossary terms
# match as plain substrings and the search indexes character bigrams.
CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\U00020000-\U0002fa1f"
CJK_RE = re.compile(f"[{CJK_CHARS}]")

@dataclass
class GlossaryTerm:
    term: str
    slug: str
    definition: str  # plain text, shown as the link's tooltip


_WORD_RE = re.compile(r"\w+")


def _is_word_char(text: str, i: int) -> bool:
    return 0 <= i < len(text) and (text[i].isalnum() or text[i] == "_")


class _GlossaryLinker:
    """Links the first use of each glossary term in one chapter.

    Latin terms match whole words, case-insensitively: each word of the text is looked up
    by the term's first word (a dict, not a regex of every term: a big book has hundreds of
    terms). CJK terms, which have no word boundaries, match as plain substrings. The
    leftmost match wins, and at one place the longest term (`write-ahead log` over `log`)."""

    def __init__(self, terms: list[GlossaryTerm]):
        self.by_first: dict[str, list[tuple[int, GlossaryTerm]]] = {}
        self.substrings: list[tuple[re.Pattern[str], GlossaryTerm]] = []
        for t in sorted(terms, key=lambda t: -len(t.term)):
            first = _WORD_RE.search(t.term)
            if CJK_RE.search(t.term) or first is None:
                self.substrings.append((re.compile(re.escape(t.term), re.IGNORECASE), t))
            else:
                self.by_first.setdefault(first.group().lower(), []).append((first.start(), t))
        self.used: set[str] = set()
        self.pending = len({t.term.lower() for t in terms})

    @property
    def done(self) -> bool:
        return self.pending == 0

    def _find(self, text: str, pos: int) -> tuple[int, int, GlossaryTerm] | None:
        best: tuple[int, int, GlossaryTerm] | None = None
        for rx, t in self.substrings:
            if t.term.lower() in self.used:
                continue
            m = rx.search(text, pos)
            if m and (best is None or (m.start(), -len(t.term)) < (best[0], best[0] - best[1])):
                best = (m.start(), m.end(), t)
        for w in _WORD_RE.finditer(text, pos):
            if best is not None and w.start() > best[0]:
                break
            for offset, t in self.by_first.get(w.group().lower(), ()):
                start, end = w.start() - offset, w.start() - offset + len(t.term)
                if (
                    start < pos
                    or t.term.lower() in self.used
                    or text[start:end].lower() != t.term.lower()
                    or _is_word_char(text, start - 1)
                    or _is_word_char(text, end)
                ):
                    continue
                if best is None or (start, -len(t.term)) < (best[0], best[0] - best[1]):
                    best = (start, end, t)
                break  # longest first: the first term that fits here is the one
        return best

    def link(self, tok: Token) -> list[Token]:
        text, pos, out = tok.content, 0, []
        while not self.done:
            found = self._find(text, pos)
            if found is None:
                break
            start, end, entry = found
            if start > pos:
                out.append(_text(text[pos:start]))
            a = Token("link_open", "a", 1, attrs={"href": f"glossary.html#{entry.slug}"})
            if entry.definition:
                a.attrSet("title", entry.definition)
            a.meta["glossary"] = True  # ours: always resolves, not a link to check
            out += [a, _text(text[start:end]), Token("link_close", "a", -1)]
            pos = end
            self.used.add(entry.term.lower())
            self.pending -= 1
        if not out:
            return [tok]
        if pos < len(text):
            out.append(_text(text[pos:]))
        return out


def _text(s: str) -> Token:
    return Token("text", "", 0, content=s)
