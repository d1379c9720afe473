"""Chapter Markdown -> safe HTML for the published book.

Chapters come from models and from people, so the renderer treats them as hostile: raw
HTML is off (tags come out as text), and a URL becomes a link only if it is http(s),
mailto, relative or a `#fragment` (see `classify_url`). Anything the parser refuses stays
visible as plain, escaped text.

A chapter is parsed once (`parse_chapter`): heading slugs, glossary links, the links to
check and the text to index are all taken from that one token stream. It is then rendered
once per mode: "page" (chNN.html) or "print" (print.html, where every id is prefixed with
the chapter id so that the whole book fits on one page without collisions)."""

from __future__ import annotations

import functools
import html
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.footnote import footnote_plugin
from pygments.formatters import HtmlFormatter

from .glossary_linker import GlossaryTerm, _GlossaryLinker
from .highlight import _r_code_block, _r_fence

# Cross references: `ch03.md`, `./ch03.md`, `ch03-final.md`, `ch03.html`, with an optional #anchor.
CHAPTER_LINK_RE = re.compile(r"^(?:\./)?(ch\d{2,})(?:-final)?\.(?:md|html)$")
_SITE_PAGES = {
    "glossary.md": "glossary.html",
    "glossary.html": "glossary.html",
    "index.md": "index.html",
    "index.html": "index.html",
    "readme.md": "index.html",
    "print.html": "print.html",
}

# --------------------------------------------------------------------------- URLs and slugs

_SCHEME_RE = re.compile(r"^([a-z][a-z0-9+.\-]*):")


def classify_url(url: str) -> str | None:
    """'external' (http/https), 'mailto', 'fragment' (#x), 'relative', or None: not a link.

    Decides on a de-obfuscated copy: percent-encoding and entities undone (repeatedly, for
    nested encodings), compatibility forms folded (NFKC: a full-width colon is a colon),
    whitespace, control and invisible format characters removed, lower case. So
    `JaVa&#x09;Script:`, `java%0ascript:` and a zero-width space in `javascript:` are all
    refused, even where a browser might not have read them as javascript: either."""
    s = url
    for _ in range(3):
        s = unicodedata.normalize("NFKC", html.unescape(unquote(s)))  # NFKC: full-width `：` too
    s = "".join(c for c in s if not (c.isspace() or unicodedata.category(c)[0] in "CZ")).lower()
    if s.startswith(("//", "\\", "/\\")):
        return None  # network-path reference: another host, over whatever scheme the page has
    m = _SCHEME_RE.match(s)
    if m:
        # `source:PATH#La-Lb`: a citation of the source, pointed at it when the book is published (links.py)
        return {"http": "external", "https": "external", "mailto": "mailto", "source": "source"}.get(m.group(1))
    if ":" in re.split(r"[/?#]", s, maxsplit=1)[0]:
        return None  # scheme-like but malformed: nothing a book needs, so refuse it
    return "fragment" if s.startswith("#") else "relative"


def slugify(text: str) -> str:
    """Heading anchor: lower case, punctuation dropped except `-` and `_`, each space -> `-`.
    `\\w` is Unicode-aware, so letters of every script (and CJK characters) are kept."""
    s = re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")
    return s or "section"


def unique_slug(slug: str, used: set[str]) -> str:
    """`slug`, or `slug-1`, `slug-2`… for the second and later headings of the same name."""
    candidate, n = slug, 0
    while candidate in used:
        n += 1
        candidate = f"{slug}-{n}"
    used.add(candidate)
    return candidate


def inline_text(children: list[Token] | None) -> str:
    """The plain text of an inline token's children (markup dropped, code kept)."""
    out: list[str] = []
    for t in children or []:
        if t.type in ("text", "code_inline"):
            out.append(t.content)
        elif t.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif t.type == "image":
            out.append(inline_text(t.children))
    return "".join(out)


# --------------------------------------------------------------------------- parse results


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    slug: str
    line: int  # 1-based line in the Markdown


@dataclass(frozen=True)
class Link:
    line: int
    href: str
    image: bool


@dataclass
class Section:
    """A stretch of a chapter under one heading, for the search index."""

    anchor: str  # "" for the chapter title: the result links to the top of the page
    title: str
    parts: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return re.sub(r"\s+", " ", " ".join(self.parts)).strip()


@dataclass
class ParsedChapter:
    tokens: list[Token]
    headings: list[Heading]
    anchors: frozenset[str]  # every id a `#fragment` may name in this chapter
    links: list[Link]
    sections: list[Section]
    title_slug: str | None  # set when the Markdown has no `# Title` and one is added



# --------------------------------------------------------------------------- core rules


def _core_headings(state: Any) -> None:
    """Give every heading a unique slug (kept in token.meta; the id is written at render)."""
    ctx: _ParseCtx = state.env["book"]
    tokens = state.tokens
    if not any(t.type == "heading_open" and t.tag == "h1" for t in tokens):
        ctx.title_slug = unique_slug(slugify(ctx.title), ctx.used)
    for i, tok in enumerate(tokens):
        if tok.type != "heading_open":
            continue
        text = inline_text(tokens[i + 1].children).strip()
        slug = unique_slug(slugify(text), ctx.used)
        tok.meta["slug"], tok.meta["text"] = slug, text
        ctx.headings.append(Heading(int(tok.tag[1]), text, slug, (tok.map[0] + 1) if tok.map else 1))


def _core_glossary(state: Any) -> None:
    """First use of each term, outside headings, links and code (code is not a text token)."""
    linker: _GlossaryLinker | None = state.env["book"].glossary
    if linker is None:
        return
    tokens = state.tokens
    for i, tok in enumerate(tokens):
        if tok.type != "inline" or (i and tokens[i - 1].type == "heading_open") or not tok.children:
            continue
        out: list[Token] = []
        depth = 0
        for child in tok.children:
            if child.type == "link_open":
                depth += 1
            elif child.type == "link_close":
                depth -= 1
            if child.type == "text" and depth == 0 and not linker.done:
                out.extend(linker.link(child))
            else:
                out.append(child)
        tok.children = out


@dataclass
class _ParseCtx:
    title: str
    glossary: _GlossaryLinker | None
    used: set[str] = field(default_factory=set)
    headings: list[Heading] = field(default_factory=list)
    title_slug: str | None = None


# --------------------------------------------------------------------------- render rules


@dataclass
class RenderCtx:
    """What the render rules need to know about the page being written."""

    chapter: str
    mode: str  # "page" | "print"
    ui: dict[str, str]
    formatter: HtmlFormatter

    def id_for(self, slug: str) -> str:
        return slug if self.mode == "page" else f"{self.chapter}--{slug}"

    def resolve(self, href: str) -> str:
        """Rewrite a link: cross references to the published pages (or, in print, to ids
        on the one page); external and unknown local links unchanged."""
        if classify_url(href) in ("external", "mailto"):
            return href
        path, sep, frag = href.partition("#")
        page = site_page(path)
        if re.fullmatch(r"[\w\-]+", unquote(frag)):
            frag = unquote(frag)  # a slug: written as the heading's id is, `#写入路径`, not %-escapes
        if self.mode == "print":
            if page == "":
                return f"#{self.chapter}--{frag}" if frag else f"#{self.chapter}"
            if page is not None and (CHAPTER_LINK_RE.match(page) or page == "glossary.html"):
                stem = page[: -len(".html")]
                return f"#{stem}--{frag}" if frag else f"#{stem}"
        if page is None:
            return href
        if page == "":
            return f"#{frag}"  # `#` alone stays `#` (the top), not an empty href
        return page + (f"#{frag}" if sep and frag else "")


def site_page(path: str) -> str | None:
    """The published page a link's path names: "" (this page), `chNN.html`, a site page,
    or None for anything else (a local file)."""
    if path == "":
        return ""
    m = CHAPTER_LINK_RE.match(path)
    if m:
        return f"{m.group(1)}.html"
    return _SITE_PAGES.get(path.lower().removeprefix("./"))


def _attrs(pairs: dict[str, str]) -> str:
    return "".join(f' {k}="{escapeHtml(v)}"' for k, v in pairs.items())


def _r_heading_open(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    tok, ctx = tokens[idx], env["book"]
    return f'<{tok.tag} id="{escapeHtml(ctx.id_for(tok.meta["slug"]))}">'


def _r_heading_close(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    # heading_open, inline, heading_close: the slug sits on the opening token.
    opening, ctx = tokens[idx - 2], env["book"]
    return (
        permalink(ctx.id_for(opening.meta["slug"]), opening.meta["text"], ctx.ui) + f"</{tokens[idx].tag}>\n"
    )


def permalink(anchor: str, text: str, ui: dict[str, str]) -> str:
    label = f"{ui['permalink']}: {text}"
    return f' <a class="anchor" href="#{escapeHtml(anchor)}" aria-label="{escapeHtml(label)}">¶</a>'


def _r_link_open(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    tok, ctx = tokens[idx], env["book"]
    href = str(tok.attrGet("href") or "")
    attrs = {"href": ctx.resolve(href)}
    if tok.attrGet("title"):
        attrs["title"] = str(tok.attrGet("title"))
    if tok.meta.get("glossary"):
        attrs["class"] = "glossary-term"
    elif classify_url(href) == "external":
        attrs["class"] = "external"
    return "<a" + _attrs(attrs) + ">"


def _r_image(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    """Only local images are loaded: an image from a URL would be a network request, so it
    becomes a link to that URL instead."""
    tok = tokens[idx]
    src = str(tok.attrGet("src") or "")
    alt = self.renderInlineAsText(tok.children, options, env)
    kind = classify_url(src)
    if kind == "relative" and not src.startswith("/"):
        attrs = {"src": src, "alt": alt, "loading": "lazy"}
        if tok.attrGet("title"):
            attrs["title"] = str(tok.attrGet("title"))
        return "<img" + _attrs(attrs) + ">"
    if kind == "external":
        return f'<a class="external image-link" href="{escapeHtml(src)}">{escapeHtml(alt or src)}</a>'
    return escapeHtml(alt)



def _r_cell(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    """Table alignment as a class, not a style attribute: the page's CSP forbids inline styles."""
    tok = tokens[idx]
    style = str(tok.attrGet("style") or "")
    cls = f' class="align-{style.split(":", 1)[1]}"' if style.startswith("text-align:") else ""
    return f"<{tok.tag}{cls}>"


def _r_escaped(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    # Raw HTML is off, so these never come from the parser; if a plugin makes one, show it as text.
    return escapeHtml(tokens[idx].content)


# Footnotes: the plugin's own rules, but ids through RenderCtx.id_for, so a `#fn1` link
# written in a chapter still finds its note on print.html (as `#ch03--fn1`).
def _fn_ids(tok: Token, ctx: RenderCtx) -> tuple[str, str]:
    n = str(tok.meta["id"] + 1)
    sub = tok.meta.get("subId", 0)
    return ctx.id_for(f"fn{n}"), ctx.id_for(f"fnref{n}" + (f":{sub}" if sub > 0 else ""))


def _r_footnote_ref(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    note, ref = _fn_ids(tokens[idx], env["book"])
    caption = self.rules["footnote_caption"](tokens, idx, options, env)
    return f'<sup class="footnote-ref"><a href="#{note}" id="{ref}">{caption}</a></sup>'


def _r_footnote_open(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    return f'<li id="{_fn_ids(tokens[idx], env["book"])[0]}" class="footnote-item">'


def _r_footnote_backref(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    ref = _fn_ids(tokens[idx], env["book"])[1]
    label = escapeHtml(env["book"].ui["backref"])
    return f' <a href="#{ref}" class="footnote-backref" aria-label="{label}">↩\ufe0e</a>'


def _safe_validate(url: str) -> bool:
    return classify_url(url) is not None


def _r_fence_or_diagram(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    """A ```mermaid fence becomes its diagram, drawn at build time (diagrams.svg: no script, no
    network), with the Mermaid source kept beside it as its text; one that does not render
    stays its source, shown as code (R1 refuses it before it gets here)."""
    tok, ctx = tokens[idx], env["book"]
    if tok.info.strip().split(maxsplit=1)[:1] != ["mermaid"]:
        return _r_fence(self, tokens, idx, options, env)
    from ..diagrams import MermaidError, render_svg

    n = env["_diagrams"] = env.get("_diagrams", 0) + 1
    source = escapeHtml(tok.content.rstrip("\n"))
    try:
        svg = render_svg(tok.content, uid=ctx.id_for(f"diagram-{n}"))
    except MermaidError:
        return f'<pre class="diagram-invalid" tabindex="0"><code class="language-mermaid">{source}</code></pre>\n'
    summary = escapeHtml(ctx.ui.get("diagram_source", "Mermaid"))
    return (f'<figure class="diagram">{svg}<details class="diagram-source"><summary>{summary}</summary>'
            f'<pre tabindex="0"><code class="language-mermaid">{source}</code></pre></details></figure>\n')


def make_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", dict(html=False, xhtmlOut=False)).enable(["table", "strikethrough"])
    md.use(footnote_plugin).use(deflist_plugin)
    md.validateLink = _safe_validate  # type: ignore[method-assign]  # the one URL policy
    md.core.ruler.push("book_headings", _core_headings)
    md.core.ruler.push("book_glossary", _core_glossary)
    for name, rule in {
        "heading_open": _r_heading_open,
        "heading_close": _r_heading_close,
        "link_open": _r_link_open,
        "image": _r_image,
        "fence": _r_fence_or_diagram,
        "code_block": _r_code_block,
        "th_open": _r_cell,
        "td_open": _r_cell,
        "html_block": _r_escaped,
        "html_inline": _r_escaped,
        "footnote_anchor": _r_footnote_backref,
        "footnote_ref": _r_footnote_ref,
        "footnote_open": _r_footnote_open,
    }.items():
        md.add_render_rule(name, rule)
    return md


def make_inline_parser() -> MarkdownIt:
    """For titles, summaries and definitions: emphasis and code only, never links (they sit
    inside links in the tables of contents)."""
    md = MarkdownIt("commonmark", dict(html=False, xhtmlOut=False)).enable(["strikethrough"])
    md.disable(["link", "image", "autolink"])
    md.add_render_rule("html_inline", _r_escaped)
    return md


_MD = make_parser()
_INLINE_MD = make_inline_parser()


# Pure functions of the text: every page's sidebar renders every chapter's title, so a book
# of N chapters would render each title N times.
@functools.lru_cache(maxsize=16384)
def render_inline(text: str) -> str:
    return _INLINE_MD.renderInline(text)


@functools.lru_cache(maxsize=16384)
def plain_inline(text: str) -> str:
    return inline_text(_INLINE_MD.parseInline(text)[0].children if text else []).strip()


# --------------------------------------------------------------------------- parse + render


def parse_chapter(markdown: str, title: str, glossary: list[GlossaryTerm]) -> ParsedChapter:
    ctx = _ParseCtx(title=title, glossary=_GlossaryLinker(glossary) if glossary else None)
    tokens = _MD.parse(markdown, {"book": ctx})
    links: list[Link] = []
    sections = [Section("", title)]
    base = 0
    first_h1 = True
    for i, tok in enumerate(tokens):
        if tok.map:
            base = tok.map[0]
        if tok.type == "heading_open":
            level = int(tok.tag[1])
            if level == 1 and first_h1:
                first_h1 = False  # the chapter title: its section is the top of the page
                sections[0].title = tok.meta["text"] or title
            elif level <= 3:
                sections.append(Section(tok.meta["slug"], tok.meta["text"]))
        elif tok.type == "inline":
            offset = 0
            for child in tok.children or []:
                if child.type in ("softbreak", "hardbreak"):
                    offset += 1
                elif child.type == "link_open" and not child.meta.get("glossary"):
                    links.append(Link(base + offset + 1, str(child.attrGet("href") or ""), False))
                elif child.type == "image":
                    links.append(Link(base + offset + 1, str(child.attrGet("src") or ""), True))
            if not (i and tokens[i - 1].type == "heading_open"):
                sections[-1].parts.append(inline_text(tok.children))
        elif tok.type in ("fence", "code_block"):
            sections[-1].parts.append(tok.content)
    anchors = {h.slug for h in ctx.headings}
    if ctx.title_slug:
        anchors.add(ctx.title_slug)
    # footnote ids of the page mode, so `#fn1` is a valid anchor too
    for tok in tokens:
        if tok.type == "footnote_open":
            anchors.add(f"fn{tok.meta['id'] + 1}")
        elif tok.type == "footnote_ref":
            sub = tok.meta.get("subId", 0)
            anchors.add(f"fnref{tok.meta['id'] + 1}" + (f":{sub}" if sub > 0 else ""))
    return ParsedChapter(tokens, ctx.headings, frozenset(anchors), links, sections, ctx.title_slug)


def render_tokens(parsed: ParsedChapter, ctx: RenderCtx, title: str) -> str:
    env: dict[str, Any] = {"book": ctx}
    body = _MD.renderer.render(parsed.tokens, _MD.options, env)
    if parsed.title_slug:  # the Markdown had no `# Title`: the page still gets one
        anchor = ctx.id_for(parsed.title_slug)
        plain = plain_inline(title)
        body = (
            f'<h1 id="{escapeHtml(anchor)}">{render_inline(title)}{permalink(anchor, plain, ctx.ui)}</h1>\n'
            + body
        )
    return body

