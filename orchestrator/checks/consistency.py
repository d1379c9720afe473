"""R2: cross references, glossary terms and metaphor reuse against the long memory."""

from __future__ import annotations

import re
from functools import cache

from ..text.markdown import CHAPTER_LINK_RE, HEADING_RE, LATIN_A, LATIN_B, blank_urls, links_in, prose_lines
from .findings import Collected, Finding, sorted_findings

_DEFINE_RES = (re.compile(r"\*\*([^*\n]+?)\*\*\s*[:：（(]"), re.compile(r"\*\*([^*\n]+?)[:：]\*\*"))


@cache  # a big book's glossary has thousands of terms: re's own cache holds 512
def term_re(term: str, end: bool = True) -> re.Pattern[str]:
    return re.compile(LATIN_B + re.escape(term) + (LATIN_A if end else ""), re.IGNORECASE)


# re.IGNORECASE matches i and I with İ and ı, which casefold() does not map to i
_DOTTED = {0x130: "i", 0x131: "i"}


def fold(text: str) -> str:
    """`text` case-folded so that wherever an ASCII term matches it under re.IGNORECASE, the
    folded term is a substring of the folded text (a C-speed test before any regex)."""
    return text.translate(_DOTTED).casefold()


def term_used(term: str, text: str, folded: str) -> bool:
    """Does `term_re(term, end=False)` match `text` (`folded` = fold(text))? Only where the
    folded term occurs is the regex tried: a book's glossary is thousands of terms, and the
    case-insensitive regex alone scans the whole book per term."""
    rx = term_re(term, end=False)
    if term.lower() == term.upper():  # no case (CJK, digits): a substring of the text itself
        folded, key = text, term
    elif term.isascii() and len(folded) == len(text):  # folding kept the offsets: test only there
        key = term.casefold()
    else:
        return (not term.isascii() or term.casefold() in folded) and rx.search(text) is not None
    i = folded.find(key)
    while i >= 0:
        if rx.match(text, i):
            return True
        i = folded.find(key, i + 1)
    return False


def _glossary_findings(prose: list[tuple[int, str, str]], chapter: str, glossary: dict[str, str]) -> Collected:
    out = Collected()
    owners = {t.lower(): (t, c) for t, c in glossary.items()}
    whole = fold("\n".join(text for _, _, text in prose))
    # CJK terms have no case; an ASCII term not in the whole folded text is on no line
    cased = [(t, term_re(t)) for t in glossary if t.lower() != t.upper() and (not t.isascii() or t.casefold() in whole)]
    # fine: the glossary form, that form starting a sentence, and the ordinary lowercase word for a
    # term that is merely capitalised ("record" for the class `Record`; not "memtable" for `MemTable`)
    plain = {t for t in glossary if t[:1].isupper() and t[1:] == t[1:].lower()}
    seen: set[tuple[str, str]] = set()
    for n, raw, text in prose:
        for rx in _DEFINE_RES:  # `**term**: ...`, `**term**（...）`: a definition
            for m in rx.finditer(text):
                term, owner = owners.get(m.group(1).strip().lower(), ("", ""))
                if term and owner and owner != chapter:
                    out.add("r2.glossary", "minor", n,
                            f"redefines '{term}', defined in {owner}; link to it instead")
        if HEADING_RE.match(raw):
            continue  # headings may be in title case
        low = fold(text)
        for term, rx in cased:
            # An ASCII term matches (ignoring case) only where its case-folded form is a substring of
            # the case-folded line: a C-speed test that skips nearly every term on nearly every line.
            if term.isascii() and term.casefold() not in low:
                continue
            for m in rx.finditer(text):
                found = m.group()
                if found in (term, term[:1].upper() + term[1:]) or (term in plain and found == term.lower()):
                    continue
                if (term, found) not in seen:
                    seen.add((term, found))
                    out.add("r2.glossary", "minor", n,
                            f"writes '{found}' for the glossary term '{term}'; use '{term}'")
    return out


def check_consistency(md: str, chapter: str, *, glossary: dict[str, str], chapters: dict[str, str],
                      metaphors: dict[str, str]) -> list[Finding]:
    """R2: links to chapters that do not exist (or to this one), glossary terms redefined or
    written with another capitalisation, and metaphors that belong to another chapter."""
    out = Collected()
    for n, target in links_in(md):
        if m := CHAPTER_LINK_RE.match(target):
            if m.group(1) not in chapters:
                out.add("r2.xref", "major", n,
                        f"link to {target} points to a chapter that is not in this book")
            elif m.group(1) == chapter:
                out.add("r2.xref", "minor", n,
                        f"link to {target} points to this chapter itself; use an anchor (#...)")
    prose = [(n, raw, blank_urls(masked)) for n, raw, masked in prose_lines(md)]
    out += _glossary_findings(prose, chapter, glossary)
    lowered = [(n, text.lower()) for n, _, text in prose]
    whole = "\n".join(text for _, text in lowered)
    for phrase, owner in metaphors.items():
        if len(phrase.strip()) < 2 or owner == chapter or phrase.lower() not in whole:
            continue
        if n := next((n for n, text in lowered if phrase.lower() in text), 0):  # the first use
            out.add("r2.metaphor", "minor", n,
                    f"reuses the metaphor '{phrase}' of {owner}; find an image of its own")
    return sorted_findings(out)
