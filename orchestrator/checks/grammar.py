"""The grammar the offline writer's sentences need checked after their parts are joined
(issue 23): the article before a word ("a enum" -> "an enum", "an struct" -> "a struct") and
"is a <verb>" where a doc's summary opens with a verb ("`X` is a represents …" -> "`X`
represents …"). Prose only: code blocks and inline code are left exactly as they are. The same
rules find the mistakes in any chapter (R3: checks/structure.py)."""

from __future__ import annotations

import re

# words after which "a"/"an" follows the sound, not the letter
_AN_EXCEPT = ("one", "once", "uni", "use", "usu", "uti", "eu", "ure", "uri")
_A_EXCEPT = ("hour", "honest", "honou", "heir")
VERBS = frozenset("""represents returns creates provides holds contains defines implements wraps stores handles
manages describes allows makes builds reads writes checks converts parses formats sends receives registers
adds removes sets gets runs calls loads saves opens closes starts stops finds matches resolves renders
generates computes applies extends encodes decodes serializes deserializes validates executes invokes dispatches
emits raises throws yields maps filters merges splits joins copies moves keeps tracks collects reports logs
prints formats installs initializes constructs""".split())
_CODE = re.compile(r"(```.*?```|~~~.*?~~~|`[^`\n]*`)", re.S)
# "a"/"an" in a sentence, "A"/"An" only where a sentence starts ("Plan A is" is a name, not an article)
_ARTICLE = re.compile(r"(?:(?<![\w'’-])(a)|(?:(?<=^)|(?<=[.!?:]\s)|(?<=\n)|(?<=- ))(A))n?( )([A-Za-z][\w-]*)", re.M)
_IS_A_VERB = re.compile(r"\b(is|are) an? ([a-z]+)\b")


def _article_for(word: str) -> str:
    """"a" or "an" by the word's first sound: an acronym by its letter's name ("an HTTP", "a URL")."""
    if word.isupper() and len(word) > 1:
        return "an" if word[0] in "AEFHILMNORSX" else "a"
    w = word.lower()
    if w.startswith(_A_EXCEPT):
        return "an"
    if w.startswith(_AN_EXCEPT):
        return "a"
    return "an" if w[0] in "aeiou" else "a"


def _fix_prose(text: str) -> str:
    def art(m: re.Match[str]) -> str:
        a, sp, word = m.group(1) or m.group(2), m.group(3), m.group(4)
        want = _article_for(word)
        return (want if a == "a" else want.capitalize()) + sp + word
    text = _ARTICLE.sub(art, text)
    return _IS_A_VERB.sub(lambda m: m.group(2) if m.group(2) in VERBS else m.group(0), text)


def fix(md: str) -> str:
    """The chapter with its prose's articles and "is a <verb>" mended (code untouched)."""
    parts = _CODE.split(md)
    return "".join(p if k % 2 else _fix_prose(p) for k, p in enumerate(parts))


def mistakes(md: str) -> list[tuple[int, str, str]]:
    """(line, what was written, what it should be) for every prose line `fix` would change."""
    out = []
    fence = None
    for n, line in enumerate(md.splitlines(), 1):
        s = line.lstrip()
        if s.startswith(("```", "~~~")):
            fence = None if fence and s.startswith(fence) else (fence or s[:3])
            continue
        if fence is not None:
            continue
        fixed = fix(line)
        if fixed != line:
            a = next(i for i, (x, y) in enumerate(zip(line, fixed + "\0")) if x != y)
            out.append((n, line[max(0, a - 12):a + 24].strip(), fixed[max(0, a - 12):a + 24].strip()))
    return out
