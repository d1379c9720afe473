"""The book's default words, per language: what `book init` writes and what the planner
recognises as "not chosen by a person" (so it may name the book after the project). The
personas' defaults follow the project's main language and the book's language."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

DEFAULT_TITLE = "A Book About a Codebase"
LOCALIZED_DEFAULTS: dict[str, dict[str, str]] = {
    "zh": {"title": "一本关于代码库的书", "audience": "将要参与这份代码开发的工程师",
           "brief": "结合真实代码，逐个模块讲解这份代码是如何工作的。"},
}
DEFAULT_TITLES = {"en": "Inside {name}", "zh": "{name} 源码解读"}  # when the source names its project

# The model for every role unless book.yaml names another: here, below config, so that the
# providers that fall back on it need not import config (which imports them to check models).
DEFAULT_MODEL = "claude-sonnet-5-5"

_PERSONAS = {
    "en": ["newcomer: knows {lang}, has never seen this codebase",
           "maintainer: knows the codebase, checks that nothing is wrong or missing",
           "architect: wants the design decisions and their trade-offs"],
    "zh": ["新人: 熟悉 {lang}，但从未读过这份代码",
           "维护者: 熟悉这份代码，检查内容有没有错误或遗漏",
           "架构师: 想了解设计上的决定及其取舍"],
}
# The personas of the earlier default, which said "knows Python" whatever the project: a
# book.yaml that still holds them untouched gets the project's own.
LEGACY_PERSONAS = [p.format(lang="Python") for p in _PERSONAS["en"]]
_LANG_NAMES = {"python": "Python", "go": "Go", "javascript": "JavaScript", "typescript": "TypeScript",
               "rust": "Rust", "java": "Java", "c": "C", "cpp": "C++", "csharp": "C#", "ruby": "Ruby",
               "php": "PHP", "kotlin": "Kotlin", "swift": "Swift", "scala": "Scala"}
_SKIP_DIRS = {"node_modules", "vendor", "third_party", "build", "dist", "target", "__pycache__", "venv", ".venv"}
_MAX_FILES = 20000  # enough to know a project's main language; a huge tree is not walked whole


def main_language(source: Path) -> str | None:
    """The language most of the source's code files are written in (`go` for a Go router), or
    None when there is no code (or the tree cannot be read)."""
    from .repo.classify import language_of

    counts: Counter[str] = Counter()
    seen = 0
    for _dirpath, dirs, files in os.walk(source):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS]
        for f in files:
            lang = language_of(f)
            if lang:
                counts[lang] += 1
            seen += 1
        if seen > _MAX_FILES:
            break
    return counts.most_common(1)[0][0] if counts else None


def default_personas(code_language: str | None, language: str = "en") -> list[str]:
    """The reader panel's default personas: the newcomer knows the project's own language."""
    name = _LANG_NAMES.get(code_language or "", code_language or "")
    forms = _PERSONAS.get(language, _PERSONAS["en"])
    if not name:
        name = "这门编程语言" if language == "zh" else "the project's language"
    return [p.format(lang=name) for p in forms]
