"""A chapter's image, only where the project draws it itself.

An image teaches only when it fits this project: a fixed list of metaphors per kind of code gave
every router "a telephone switchboard", the same words in unrelated books (issue 35). The offline
writer cannot invent an image that fits, so it takes one only from the project's own docs ("Think
of the middleware as being layered like an onion", axum), quoted with where it is, and only in the
chapter whose code the sentence is about; otherwise the chapter has none. A model writer draws its
own (the writer's prompt), checked for reuse by R2."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .project import Project

# "think of the middleware as (being layered) like an onion", "a Context is like a luggage tag",
# "works like a pipe"; the image is the noun phrase after the article, cut at punctuation
_EN = re.compile(
    r"\b(?:think of\s+(?P<subj>[\w`' -]{1,40}?)\s+as\s+(?:being\s+\w+\s+)?(?:like\s+)?"
    r"|(?P<subj2>[\w`'-]{2,30})\s+(?:is|are|works|acts|behaves)\s+(?:much\s+|just\s+|a\s+bit\s+)?like\s+)"
    r"(?P<image>(?:an?|the)\s+[a-z][\w -]{2,40}?)(?=[,.;:!?)]|\s+(?:where|that|which|with|in|of|for|and)\b|$)",
    re.IGNORECASE)
_ZH = re.compile(r"(?P<subj>[\w\u4e00-\u9fff`]{1,12})(?:就像|好比|好像|如同)(?:一个|一座|一条|一张)?(?P<image>[\u4e00-\u9fff]{2,10})")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_NOT_IMAGES = {"the following", "the example", "the one", "the same", "the rest", "a function", "a method", "the previous",
               "the above", "a string", "a list", "a dict", "a map", "an object", "a class", "the other", "this"}


@dataclass(frozen=True)
class Image:
    phrase: str  # "an onion"
    sentence: str  # the docs' whole sentence, as written
    file: str  # the docs file, relative to the project's root
    line: int  # 1-based
    words: frozenset[str]  # lower-case words of the sentence's subject: what the image is of


def doc_images(p: Project) -> list[Image]:
    """Every image the README and guides draw, in reading order (cached on the project)."""
    from .ideas import doc_texts

    key = ("doc_images",)
    if key not in p._keys:
        p._keys[key] = [im for rel, text in doc_texts(p) for im in _images(text, rel)]
    return list(p._keys[key])


def _images(text: str, rel: str) -> list[Image]:
    out: list[Image] = []
    fenced = False
    for i, ln in enumerate(text.splitlines(), 1):
        if ln.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        if fenced or ln.lstrip().startswith(("#", "|", ">", "    ")):
            continue
        for rx in (_ZH, _EN) if _CJK.search(ln) else (_EN,):
            m = rx.search(ln)
            if not m:
                continue
            phrase = m.group("image").strip()
            if phrase.lower() in _NOT_IMAGES or "`" in phrase:
                continue
            subj = m.groupdict().get("subj") or m.groupdict().get("subj2") or ""
            words = frozenset(w for w in re.split(r"[^\w\u4e00-\u9fff]+", subj.lower().strip("`")) if len(w) > 2)
            if words:
                out.append(Image(phrase, _sentence(ln, m.start()), rel, i, words))
            break
    return out


def _sentence(line: str, at: int) -> str:
    """The sentence around position `at` of a docs line (a wrapped sentence is cut at the line)."""
    start = max(line.rfind(". ", 0, at), line.rfind("。", 0, at))
    end = min((j for j in (line.find(". ", at), line.find("。", at)) if j >= 0), default=len(line) - 1)
    return line[start + 1 if start >= 0 else 0:end + 1].strip()


def _words(text: str) -> set[str]:
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return {w for w in re.split(r"[^\w\u4e00-\u9fff]+", text.lower()) if len(w) > 2}


def chapter_image(p: Project, about: list[str], taken: set[str], language: str) -> Image | None:
    """The first image of the docs whose subject this chapter is about (`about`: its title, its
    files and key names), not taken by another chapter; in a book's own language only."""
    mine = set().union(*(_words(a) for a in about)) if about else set()
    mine |= {w.rstrip("s") for w in mine}
    for im in doc_images(p):
        if im.phrase.lower() in taken or bool(_CJK.search(im.sentence)) != (language == "zh"):
            continue
        if any(w in mine or w.rstrip("s") in mine for w in im.words):
            return im
    return None
