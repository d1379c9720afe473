"""What a chapter cannot tell because no grammar reads its files' language (issue 33 item 3): a
chapter about files read by their lines (repo/lexical.py) says so once, under its first
paragraph, in a quote (words about the book, not claims about the code to cite)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .phrases import lang_name

if TYPE_CHECKING:
    from .project import Project

_NOTE = {
    "en": ("> This chapter reads {langs} without a grammar: no grammar this tool has reads {it}. Its definitions "
           "are the lines that open with a defining keyword at the left margin, with the comments right above "
           "them as their documentation; nested definitions are not listed, and a call is matched to a "
           "definition by its name alone, not resolved through scopes, imports or types."),
    "zh": ("> 本章在没有语法解析器的情况下阅读 {langs}：本工具没有能解析{it}的语法。定义是从行首以定义关键字开头的行中找到的，"
           "紧挨其上的注释作为文档；嵌套的定义不会列出，调用只按名字对应到定义，并未通过作用域、导入或类型解析。"),
}


# Languages no grammar here reads, as their users write their names (phrases.LANG_NAMES has the read ones).
_NAMES = {"zig": "Zig", "haskell": "Haskell", "ocaml": "OCaml", "perl": "Perl", "erlang": "Erlang", "dart": "Dart",
          "julia": "Julia", "nim": "Nim", "clojure": "Clojure", "groovy": "Groovy", "r": "R", "objc": "Objective-C",
          "objcpp": "Objective-C++", "cython": "Cython", "sql": "SQL", "protobuf": "Protocol Buffers"}


def lexical_languages(p: Project, files: list[str]) -> list[str]:
    """The languages of ``files`` that the map read by their lines, most files first."""
    counts: dict[str, int] = {}
    for rel in files:
        fm = p.map.files.get(rel)
        if fm is not None and fm.lexical and fm.language:
            counts[fm.language] = counts.get(fm.language, 0) + 1
    return sorted(counts, key=lambda lang: (-counts[lang], lang))


def with_note(md: str, ctx: dict[str, Any], p: Project) -> str:
    """``md`` with the note under its first paragraph when the chapter's files were read by their lines."""
    files = [f for f in ctx.get("chapter", {}).get("sources", []) if f in p.map.files]
    langs = lexical_languages(p, files)
    if not langs:
        return md
    zh = ctx.get("language", "en") == "zh"
    names = [_NAMES.get(lang) or lang_name(lang) for lang in langs]
    note = _NOTE["zh" if zh else "en"].format(langs=("、" if zh else ", ").join(names),
                                               it="它" if zh else "it" if len(names) == 1 else "them")
    lines = md.split("\n")
    head = next((i for i, ln in enumerate(lines) if ln.startswith("# ")), -1)
    k = head + 1
    while k < len(lines) and not lines[k].strip():
        k += 1
    while k < len(lines) and lines[k].strip():
        k += 1  # the end of the first paragraph
    return "\n".join(lines[:k] + ["", note] + lines[k:])
