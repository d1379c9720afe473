"""The publisher's input (`Site`, `ChapterDoc`), its UI strings and its templates."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
from markupsafe import Markup

from .markdown import plain_inline, render_inline

if TYPE_CHECKING:
    from .links import SourceLinks

SEARCH_INDEX = "search-index.js"
SITE_PAGES = ("index.html", "glossary.html", "print.html", "404.html", "files.html", "sitemap.xml", "llms.txt")

# Every page carries this policy: scripts and styles from our own files only, images from
# the site's folder, nothing from the network. A hostile chapter that got past the renderer
# would still be inert, and the site cannot make a request to anywhere else.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "base-uri 'none'; form-action 'none'"
)


@dataclass(frozen=True)
class ChapterDoc:
    id: str  # "ch01"
    title: str
    summary: str
    batch: int
    markdown: str  # the final chapter's Markdown (body only, no marker)
    # A partial book: a chapter not ready (failed, blocked, waiting for a person) has no page;
    # the contents list it with `note` (its state and what a person can do).
    ready: bool = True
    note: str = ""
    # Titles the chapter had before (the outline's, earlier finals'): a link whose text is one
    # of them is shown with the current title.
    former_titles: tuple[str, ...] = ()
    # The workspace file the page is made from ("edit this page"), and the source files the
    # chapter explains (the file -> chapter index, the parts' names).
    file: str = ""
    sources: tuple[str, ...] = ()
    # Written from a partial view: (path, what of it was shown) for each source file a small
    # context window cut (the research report's "Left out" section); the page says so.
    partial: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Site:
    title: str
    language: str  # "en" | "zh" -> <html lang>
    audience: str
    chapters: tuple[ChapterDoc, ...]  # in book order
    glossary: tuple[tuple[str, str, str], ...]  # (term, definition, defining chapter id), in book order
    template_dirs: tuple[Path, ...]  # workspace templates/ first, then the built-in ones
    # The folder the pages are published into: a relative link to any other file must exist
    # there. None: only the site's own files count (check_links reports the rest).
    root: Path | None = None
    retired: tuple[str, ...] = ()  # chapters deleted from the outline: links to them become text
    revision: str = ""  # the source's revision (git commit or tree hash), shown when known
    built: str = ""  # the date the book was built (YYYY-MM-DD): its newest final's, not the clock
    # The outline's parts, (title, chapter ids) in the outline's order; () for an outline without
    # parts: then one part per batch, named by what its chapters are about
    parts: tuple[tuple[str, tuple[str, ...]], ...] = ()
    site_url: str = ""  # where the site is served (for sitemap.xml's absolute URLs); "" = relative
    source: SourceLinks | None = None  # where citations of the source go (publish.links); None: they become text


@dataclass(frozen=True, order=True)
class LinkProblem:
    chapter: str
    line: int  # 1-based, in the chapter's Markdown
    target: str
    message: str


# --------------------------------------------------------------------------- UI strings

_UI: dict[str, dict[str, str]] = {
    "en": {
        "contents": "Contents",
        "toc": "Table of contents",
        "part": "Part {n}",
        "chapter": "Chapter {n}",
        "prev": "Previous",
        "next": "Next",
        "pager": "Chapter navigation",
        "search": "Search the book",
        "search_placeholder": "Search… (press / )",
        "no_results": "No results for “{q}”",
        "results": "{n} chapters match “{q}”",
        "results_one": "1 chapter matches “{q}”",
        "theme": "Switch between light and dark",
        "theme_light": "Light",
        "theme_dark": "Dark",
        "page_toc": "On this page",
        "edit": "Edit this page",
        "edit_file": "this page is made from {file}",
        "built": "Built {date}",
        "revision": "Revision",
        "files": "Source files",
        "files_intro": "Every source file the book explains, and the chapters that explain it.",
        "file_col": "File",
        "explained_in": "Explained in",
        "not_found": "Page not found",
        "not_found_text": "There is no page at this address. The book's contents are one click away.",
        "part_named": "Part {n} · {name}",
        "searching": "Loading the search index…",
        "glossary": "Glossary",
        "print": "Print or save the whole book as PDF",
        "print_short": "Print",
        "skip": "Skip to content",
        "toggle": "Show or hide the table of contents",
        "permalink": "Link to this section",
        "audience": "Written for",
        "start": "Start reading",
        "defined_in": "Defined in",
        "other_terms": "Other terms",
        "lines": "lines {lines}",
        "copy_text": "Copy",
        "copied": "Copied",
        "copy_label": "Copy this code",
        "backref": "Back to the text",
        "on_this_page": "In this chapter",
        "whole_book": "The whole book",
        "terms": "{n} terms",
        "glossary_intro": "Every term the book defines, grouped by the chapter that introduces it.",
        "no_chapters": "This book has no chapters yet.",
        "not_ready": "not ready yet",
        "diagram_source": "Mermaid source",
    },
    "zh": {
        "contents": "目录",
        "toc": "目录",
        "part": "第 {n} 部分",
        "chapter": "第 {n} 章",
        "prev": "上一章",
        "next": "下一章",
        "pager": "章节导航",
        "search": "搜索全书",
        "search_placeholder": "搜索…（按 / 键）",
        "no_results": "没有找到“{q}”",
        "results": "{n} 章包含“{q}”",
        "results_one": "1 章包含“{q}”",
        "theme": "切换浅色与深色",
        "theme_light": "浅色",
        "theme_dark": "深色",
        "page_toc": "本页内容",
        "edit": "编辑本页",
        "edit_file": "本页由 {file} 生成",
        "built": "构建于 {date}",
        "revision": "源码版本",
        "files": "源文件索引",
        "files_intro": "本书讲解的每个源文件，以及讲解它的章节。",
        "file_col": "文件",
        "explained_in": "讲解章节",
        "not_found": "页面不存在",
        "not_found_text": "这个地址没有页面。目录就在一步之外。",
        "part_named": "第 {n} 部分 · {name}",
        "searching": "正在加载搜索索引…",
        "glossary": "术语表",
        "print": "打印全书或保存为 PDF",
        "print_short": "打印",
        "skip": "跳到正文",
        "toggle": "显示或隐藏目录",
        "permalink": "本节链接",
        "audience": "读者对象",
        "start": "开始阅读",
        "defined_in": "出自",
        "other_terms": "其他术语",
        "lines": "第 {lines} 行",
        "copy_text": "复制",
        "copied": "已复制",
        "copy_label": "复制这段代码",
        "backref": "回到正文",
        "on_this_page": "本章内容",
        "whole_book": "全书",
        "terms": "{n} 个术语",
        "glossary_intro": "本书定义的全部术语，按首次引入它们的章节分组。",
        "no_chapters": "本书还没有章节。",
        "not_ready": "尚未完成",
        "diagram_source": "Mermaid 源码",
    },
}


def ui_strings(language: str) -> dict[str, str]:
    return _UI["zh"] if language.lower().startswith("zh") else _UI["en"]


# --------------------------------------------------------------------------- templates


def load_templates(dirs: Any) -> jinja2.Environment:
    """One environment for a search path of template folders (first match wins, file by
    file); autoescape on, StrictUndefined so a typo in a template fails loudly."""
    return _environment(tuple(Path(d) for d in dirs))


@functools.lru_cache(maxsize=8)
def _environment(dirs: tuple[Path, ...]) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(d) for d in dirs]),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    # Titles, summaries and definitions may carry `code` and *emphasis*: rendered safely,
    # without links (they appear inside links).
    env.filters["md_inline"] = lambda s: Markup(render_inline(str(s)))
    env.filters["md_plain"] = lambda s: plain_inline(str(s))
    return env


def _static(site: Site, name: str) -> str:
    env = load_templates(site.template_dirs)
    assert env.loader is not None
    return env.loader.get_source(env, name)[0]
