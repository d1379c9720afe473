"""A chapter's idea in its maintainers' words (issue 35): what a doc's first sentence says the code
does ("Throttle is a middleware that limits requests." → "Limiting requests") or is ("A generated
annotation on a declaration")."""

from __future__ import annotations

import re

from .project import Sym
from .verbs import VERBS, gerund as _gerund

_WEAK_VERBS = frozenset({"returns", "gets", "sets", "is", "has", "was", "does", "represents", "holds", "describes",
                         "defines", "contains", "implements", "provides", "stores", "exposes", "allows", "lets",
                         "can", "may", "should", "will", "must", "uses", "calls", "wraps", "creates", "reports",
                         "tells", "checks", "determines", "indicates", "specifies", "overrides", "satisfies"})
# what a doc's first verb may be for its sentence to name the code's job
DOC_VERBS = frozenset(v for v in VERBS.values() if " " not in v) | frozenset({
    "limits", "logs", "stops", "gzips", "compresses", "marks", "prints", "recovers", "throttles", "times", "strips",
    "starts", "sanitizes", "escapes", "caches", "counts", "measures", "traces", "guards", "protects", "rewrites",
    "sorts", "joins", "splits", "copies", "moves", "renames", "watches", "notifies", "signals", "tracks", "records"})
# (a dot inside a name is no sentence's end: "Thin wrappers around `concurrent.futures`")
_DOC_CUT = re.compile(r"[,;:(]|[.!?](?=\s|$)|\s(?:that|which|when|if|so|and then|unless|because|by|using|via|as|like|"
                      r"and (?:returns?|sets|gets|then|also|optionally))\s|\s-\s")


def doc_title(s: Sym) -> str:
    """'Limiting requests' from "Throttle is a middleware that limits requests."; '' when the doc's
    first sentence does not say what the code does with a verb and an object."""
    first = re.split(r"(?<=[.!?])\s", " ".join(s.d.doc.split()), maxsplit=1)[0] if s.d.doc else ""
    first = re.sub(r"`([^`]*)`", r"\1", first)
    # (erubi's "An engine class that supports capturing blocks via …": what it supports is what it does)
    m = re.match(rf"^(?:(?:the )?{re.escape(s.short)}\s+(?:is|are)\s+)?(?:a|an|the)\s+[\w\s-]*?\s(?:that|which|to)\s+"
                 r"(?:(?:supports|allows|enables)\s+(?=\w+ing\s))?(\w+)\s+(.+)$", first, re.I) \
        or re.match(rf"^(?:{re.escape(s.short)}\s+)?([A-Z]?[a-z]+s)\s+(.+)$", first) \
        or re.match(r"^(?:(?:here are|a|an|the)\s+)?[\w\s-]*?\b(?:for|useful (?:in|for))\s+([a-z-]+ing)\s+(.+)$", first, re.I)
    # (and what it is for: pyparsing's "A namespace class for defining common language unicode_sets.")
    verb, rest = (m.group(1).lower(), m.group(2)) if m else ("", "")
    # said as an order: "Parse raw bodies.", or what for: body-parser's "Create a middleware to parse raw bodies."
    imp = None if m else re.match(r"^([A-Z][a-z]+)\s+(?:(?:a|an|the)\s+[\w\s-]*?\s+to\s+([a-z]+)\s+)?(.+)$", first)
    if imp and (imp.group(2) or imp.group(1)).lower() in VERBS and (imp.group(2) or VERBS[imp.group(1).lower()] not in _WEAK_VERBS):
        verb, rest = _gerund((imp.group(2) or imp.group(1)).lower()), imp.group(3)
    if (verb in _WEAK_VERBS or verb not in DOC_VERBS) and not verb.endswith("ing"):
        return ""
    base = verb[:-3] + "y" if verb.endswith("ies") else verb[:-2] if verb.endswith(("ches", "shes", "sses", "xes", "zes")) \
        else verb[:-1]
    obj = [w.replace("_", " ") if w.islower() else w for w in _DOC_CUT.split(" " + rest, maxsplit=1)[0].split()]
    # (a type's plural is the things, not a name: fastjson's "pooling Parsers for similarly typed JSONs")
    obj = [w.lower() if re.fullmatch(r"[A-Z][a-z]+[a-rt-z]s", w) else w for w in " ".join(obj).split()]
    while obj and obj[-1].lower() in ("the", "a", "an", "of", "to", "for", "and", "or", "in", "on", "with", "its", "like"):
        obj.pop()
    if not obj or len(obj) > 6 or not re.fullmatch(r"[A-Za-z -]+", " ".join(obj)) \
            or any(len(w) < 2 or w.lower() in ("given", "this", "these", "that", "such", "like", "similar") for w in obj) \
            or any(w[:1].isupper() and not w.isupper() and not re.fullmatch(r"[A-Z]{2,}s", w) for w in obj):  # a name of the code
        return ""
    return f"{(verb if verb.endswith('ing') else _gerund(base)).capitalize()} {' '.join(obj)}"


def doc_noun_title(s: Sym) -> str:
    """'Simple HTTP route multiplexer' from "Mux is a simple HTTP route multiplexer that …",
    'Generated annotation on a declaration' from "A generated annotation on a declaration.": what
    the maintainers say the thing is, when they say it in a few words; '' otherwise."""
    first = re.split(r"(?<=[.!?])\s", " ".join(s.d.doc.split()), maxsplit=1)[0] if s.d.doc else ""
    first = re.sub(r"`([^`]*)`", r"\1", first)
    # (json-rust's "A `Short` is a small string, up to …": the thing named with its article)
    m = re.match(rf"^(?:(?:the|an?)\s+)?{re.escape(s.short)}\s+(?:is|are|represents)\s+(?:a|an|the)\s+(.+)$", first, re.I) \
        or re.match(r"^(?:A|An)\s+(.+)$", first)
    if not m:
        return ""
    words = _DOC_CUT.split(" " + m.group(1), maxsplit=1)[0].split()
    # (cut at an example's opening: "A combinatorial style such as bold, italics, …" is a combinatorial style)
    words = words[:next((k for k, w in enumerate(words) if w.lower() in ("such", "e.g", "e.g.", "i.e", "i.e.", "including")), len(words))]
    while words and words[-1].lower() in ("the", "a", "an", "of", "to", "for", "and", "or", "in", "on", "with", "its", "like"):
        words.pop()
    if len(words) >= 3 and re.fullmatch(r"[a-z]+ed", words[-1]):
        words.pop()  # "A single CSV record stored as …", cut at "as": the record, not "record stored"
    if not 2 <= len(words) <= 7 or not re.fullmatch(r"[A-Za-z -]+", " ".join(words)) \
            or any(w[:1].isupper() and not w.isupper() for w in words) \
            or words[0].lower() in ("way", "thing", "type", "function", "method", "helper", "wrapper", "convenience"):
        return ""
    return words[0][:1].upper() + " ".join(words)[1:]


# "X allow you to …", "X are used to …": the sentence says what its subject is for
_FOR = re.compile(r"^(?:the\s+)?[\w\s-]{1,40}?\s+(?:allows?|lets?|enables?|helps?)\s+(?:you|users?|callers?)\s+(?:to\s+)?"
                  r"|^(?:the\s+)?[\w\s-]{1,40}?\s+(?:is|are|can be)\s+used\s+to\s+", re.I)


def section_title(text: str) -> str:
    """'Filtering and modifying HTML nodes' from a docs section that opens "Transformers allow you to filter
    and modify HTML nodes using your own custom logic, …", 'Extracting an excerpt' from "Extract an excerpt that …":
    what the section's subject lets a user do, when its first sentence says it with verbs and an object; ''
    otherwise. (A heading that is only the module's name, sanitize's "Transformers", still has its idea in the
    sentence under it.)"""
    prose = next((ln for ln in re.split(r"\n\s*\n", text) if ln.strip() and not ln.lstrip().startswith(("```", "    ", "\t", "#", "|", "-", "*", ">"))), "")
    first = re.split(r"(?<=[.!?])\s", " ".join(prose.split()), maxsplit=1)[0]
    first = re.sub(r"`([^`]*)`", r"\1", first)
    m = _FOR.match(first)
    # (or says it as an order: gray-matter's `options.excerpt`, "Extract an excerpt that directly follows front-matter")
    start = m.end() if m else 0 if _base_verb(first.split(" ", 1)[0].lower()) else -1
    if start < 0:
        return ""
    words = _DOC_CUT.split(" " + first[start:], maxsplit=1)[0].split()
    verbs: list[str] = []
    while words and (_base_verb(words[0].lower()) or words[0].lower() in ("and", "or")):
        verbs.append(words.pop(0).lower())
    while words and words[-1].lower() in ("the", "a", "an", "of", "to", "for", "and", "or", "in", "on", "with", "its", "your", "own"):
        words.pop()
    if not verbs or verbs[-1] in ("and", "or") or verbs[0] in ("and", "or") or not 1 <= len(words) <= 5 \
            or words[0].lower() in ("with", "from", "via", "in", "on", "to", "for", "by", "into", "it", "this", "them") \
            or not re.fullmatch(r"[A-Za-z -]+", " ".join(words)) or any(_base_verb(v) + "s" in _WEAK_VERBS for v in verbs if v not in ("and", "or")):
        return ""
    said = " ".join(v if v in ("and", "or") else _gerund(v) for v in verbs)
    return f"{said[:1].upper()}{said[1:]} {' '.join(words)}"


# verbs a section may say its subject lets a user do, beyond the code's own (VERBS)
_USER_VERBS = frozenset({"modify", "extend", "customize", "customise", "change", "add", "control", "configure", "define",
                         "adjust", "tweak", "replace", "override", "hook", "inspect", "observe", "intercept", "filter"})


def _base_verb(word: str) -> str:
    """`word` when it is a verb's base form a sentence may open with (filter, modify, extend), else ''."""
    return word if word in VERBS or word in _USER_VERBS or word + "s" in DOC_VERBS or word + "es" in DOC_VERBS else ""
