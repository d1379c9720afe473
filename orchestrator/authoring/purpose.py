"""What a project says it is for: the README's opening words that chapter 1 quotes ("What X is for"), not its
badges, menus, notices or the lead-in to a list of its users."""

from __future__ import annotations

import re

from .overview import info_of
from .project import Project

_SKIP_LINE = re.compile(r"^\s*(?:<|!\[|\[!\[|\[[^\]]*\]:|\.\.\s|[-=*~^#+]{3,}\s*$|\||:\w+:|https?://|"
                        r"[-*+]\s|\d+[.)]\s|\[[^\]]*\]\([^)]*\)\s*$|(?i:[*_]{0,2}(?:table\s+of\s+)?contents\b))")  # (a TOC's head)


# a notice, not what the project is for: a warning, thanks, a request, where to read more
_NOTICE = re.compile(r"(?:⚠|\W*(?:please|recommended|made with|thanks|note|warning|important|deprecated|i am no longer|if you|"
                     r"you can (?:see|find)|see |this (?:library|project|repository|package) (?:is|has been) (?:no longer|"
                     r"supported|deprecated|archived|maintained)))", re.I)
_DEFINES = re.compile(r"\b(?:is|are)\s+(?:a|an|the)\s|\b(?:a|an|the)\s+(?:\S+\s+){0,4}(?:library|framework|package|toolkit|"
                      r"implementation|parser|engine|crate|gem|module)\b", re.I)


def purpose(p: Project) -> tuple[str, int, str] | None:
    """(README path, first line, text) of what the project says it is for: the README's first
    paragraph of prose, and the next one when it continues the thought (badges, images, a table
    of contents and headings left out)."""
    info = info_of(p)
    if info is None or not info.readme:
        return None
    try:
        lines = info.read(info.readme).splitlines()
    except OSError:
        return None
    paras: list[tuple[int, list[str]]] = []
    cur: list[str] = []
    start = 0
    fence = ""
    for i, ln in enumerate(lines[:400]):
        s = ln.strip()
        if fence or s.startswith(("```", "~~~")):  # code is no sentence of the introduction (known-folders
            opener = s[:3] if s.startswith(("```", "~~~")) else ""  # opens its README with its API block)
            fence = "" if fence and opener == fence[:3] else (fence or opener)
            s = ""
        # (not a bar of links to the README's translations: dayjs's "English | [简体中文](…) | …")
        prose = s and not _SKIP_LINE.match(ln) and not s.startswith(("#", "- [", "* [", "```", "~~~", ">", "= ", "== ")) \
            and not re.fullmatch(r"[=\-~^*`#]+", s) and s.count(" | ") < 2
        heading = s.startswith("#") or bool(re.match(r"={1,6}\s+\S", s)) or bool(s and i + 1 < len(lines) and re.fullmatch(r"[=\-~^*#+]{3,}", lines[i + 1].strip()))
        if heading and any(len(" ".join(ps).split()) >= 6 for _a, ps in paras + [(start, cur)]):
            if cur:  # a new section: PyYAML's "Installation" says nothing more of what the project is for
                paras.append((start, cur))
                cur = []
            break
        if prose and not heading:
            if not cur:
                start = i + 1
            cur.append(s)
        elif cur:
            paras.append((start, cur))
            cur = []
            if len(paras) >= 6:
                break
        if fence and paras:
            break  # the example begins: what came before was the introduction
    if cur and len(paras) < 6:
        paras.append((start, cur))
    def says(ps: list[str]) -> bool:  # a paragraph of prose, or the README's bold tagline ("**Go configuration with
        # fangs!**"); not a list's lead-in ("Many Go projects are built using Viper including:") nor a notice
        text = " ".join(ps).strip()
        tagline = re.fullmatch(r"\*\*[^*]+\*\*", text) and len(text.split()) >= 3 \
            and not re.match(r"\*\*(?:Note|Warning|Important|Deprecated|Notice)\b", text, re.I)
        lead_in = text.endswith(":") and len(text.split()) < 12  # (Erubi's "… with the following differences:" says more)
        return bool(tagline) or (len(text.split()) >= 6 and not lead_in and not re.match(r"^\*\*?This ", ps[0])
                                 and not _NOTICE.match(text) and "-->" not in text)

    paras = [(a, ps) for a, ps in paras if says(ps)]
    if not paras:
        return None
    # of the introduction's paragraphs, the first that says what the project is (`X is a …`, a library, a parser),
    # else the first (money's opens with an upgrade warning, java-jwt's with the Java versions it supports)
    k = next((i for i, (_a, ps) in enumerate(paras) if _DEFINES.search(" ".join(ps))), 0)
    paras = paras[k:]
    text = " ".join(paras[0][1])
    second = " ".join(paras[1][1]) if len(paras) > 1 else ""
    if second and len(text.split()) < 60 and second[:1].isupper() and second.rstrip().endswith((".", "!", ")")):
        text += "\n\n" + " ".join(paras[1][1])
    # a link to another file of the repository (jwt's "See the [`MIGRATION_GUIDE.md`](./MIGRATION_GUIDE.md)") goes
    # nowhere in the book: its words stay, the link does not
    text = re.sub(r"(?<!!)\[([^\]]+)\]\((?![a-z][\w+.-]*:|#)[^)\s]+\)", r"\1", text)
    return info.readme, paras[0][0], text
