"""The values a definition's body gives a local name, by language (valuetypes reads their types): an
assignment (`md = Markdown(…)`, `let doc = &docs[0]`, Go's `x, err := f()`), and Python's `with f() as r:` (a
context manager's `__enter__` gives back the manager itself, as nearly every one does)."""

from __future__ import annotations

import re

# NAME is the local; group 1 the type it is declared with (or empty), group 2 the value
LOCAL_ASSIGN = {
    "python": r"^[ \t]*NAME\s*(?::\s*([\w.]+)[^=\n]*)?=(?!=)\s*(.+)$",
    "ruby": r"^[ \t]*NAME\s*()(?:\|\|)?=(?![=~])\s*(.+)$",
    "javascript": r"(?:\b(?:const|let|var)\s+|^[ \t]*)NAME\s*()=(?![=>])\s*(.+)$",
    "typescript": r"(?:\b(?:const|let|var)\s+|^[ \t]*)NAME\s*(?::\s*([\w.]+)[^=\n]*)?=(?![=>])\s*(.+)$",
    "go": r"(?:^|;|\bif\s+|\bvar\s+)[ \t]*NAME(?:\s*,\s*\w+)*\s*(?:\s([\w.*]+)\s*)?:?=(?!=)\s*(.+)$",
    "rust": r"\blet\s+(?:mut\s+)?NAME\s*(?::\s*&?(?:mut\s+)?([\w:]+)[^=\n]*)?=(?!=)\s*(.+)$",
    "kotlin": r"\b(?:val|var)\s+NAME\s*(?::\s*([\w.]+)[^=\n]*)?=(?!=)\s*(.+)$",
    "java": r"(?:\b(?:var|final)\s+|\b([A-Z]\w*)(?:<[^;=()]*>)?\s+|^[ \t]*)NAME\s*=(?!=)\s*(.+)$",
    "csharp": r"(?:\bvar\s+|\b([A-Z]\w*)(?:<[^;=()]*>)?\s+|^[ \t]*)NAME\s*=(?!=)\s*(.+)$",
}
LOCAL_ASSIGN["tsx"] = LOCAL_ASSIGN["typescript"]
LOCAL_LANGS = frozenset(LOCAL_ASSIGN)


def assigned_values(code: str, name: str, lang: str) -> list[tuple[str, str]]:
    """(declared type or '', value) of each place `code` gives the local `name` a value."""
    out = [(m.group(1) or "", m.group(2)) for m in re.finditer(LOCAL_ASSIGN[lang].replace("NAME", re.escape(name)), code, re.M)]
    if lang == "python":  # (one manager per `with`: in `with a() as x, b() as y:` the value of y is not readable so)
        out += [("", m.group(1)) for m in re.finditer(rf"(?m)^[ \t]*(?:async\s+)?with\s+(.+?)\s+as\s+{re.escape(name)}\s*:", code)
                if " as " not in m.group(1)]
    return out
