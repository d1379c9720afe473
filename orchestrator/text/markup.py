"""Inline markup of doc comments turned into Markdown: Sphinx roles and RST literals become
inline code, JSDoc `{@link}`, godoc `[Name]` and rustdoc intra-doc links become names, links
into a documentation site become their text, markers and raw HTML tags become inert; and the
comment syntax around a doc comment (`/** */`, `///`, `//`, `#`) is taken off."""

from __future__ import annotations

import inspect
import re

_ROLE_RE = re.compile(r"(?::[\w-]+)?:([\w-]+):`([^`\s]+|[^`<]+<[^`>]+>)`")
_BROKEN_ROLE_RE = re.compile(r"(?::[\w-]+)?:([\w-]+):`([~.\w]+):?(?=[\s,;)]|$)")  # `:data:`g:` (never closed)
_RST_LINK_RE = re.compile(r"`([^`<]+?)\s*<([^>`]+)>`__?")
_STRAY_ROLE_RE = re.compile(r":(?:py:)?(?:class|meth|func|data|attr|exc|obj|mod|const|ref|doc|term|envvar|option):(?=`)?")
_DOUBLE_TICK_RE = re.compile(r"``(.+?)``")
_JSDOC_LINK_RE = re.compile(r"\{@(?:link|linkcode|linkplain)\s+([^}|\s]+)(?:[\s|]+([^}]*))?\}")
_MD_LINK_RE = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^()\s]*(?:\([^)]*\))?[^()\s]*)(?:\s+\"[^\"]*\")?\)")
_REF_LINK_RE = re.compile(r"\[([^\[\]]+)\]\[([^\[\]]*)\]")
_INTRA_RE = re.compile(r"\[(`[^`\]]+`)\](?![(\[:])")
_BRACKET_NAME_RE = re.compile(r"(?<![\w\]`!])\[([A-Za-z_][\w.:]*(?:\(\))?)\](?![(\[:])")
_MARKER_RE = re.compile(r"<!--")
_SHORTCUT_RE = re.compile(r"(?<![\]`!])\[([^\[\]`]+)\](?![(\[:])")
_TAG_RE = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>")
_FOOTNOTE_REF_RE = re.compile(r"\s*\[(?:#\w*|\d+|\*)\]_")
_SUBST_RE = re.compile(r"\|([\w -]+)\|_?")


def _role_target(role: str, target: str) -> str:
    target = target.strip()
    m = re.match(r"^(.*?)\s*<([^>]+)>$", target)  # `title <target>`: the title reads better
    if m and m.group(1):
        return m.group(1) if role in ("ref", "doc", "term") else m.group(2).lstrip("~!")
    if role in ("ref", "doc"):  # a label in the documentation site: its words are what a reader needs
        return target.rstrip("/").rsplit("/", 1)[-1].replace("_", " ").replace("-", " ")
    short = target.startswith("~")
    target = target.lstrip("~!").lstrip(".")
    # SQLAlchemy-style private module aliases (`_engine.Engine`, `_sa.create_engine`) name no module a reader knows
    # (object roles only, and never a dunder: `:file:`__init__.py`` keeps its name)
    if role != "file":
        target = re.sub(r"^(?:_(?!_)\w+\.)+", "", target)
    if short:
        target = target.rsplit(".", 1)[-1]
    if role in ("meth", "func") and not target.endswith(")"):
        target += "()"
    return target


def _outside_code(text: str, fn) -> str:
    """Apply `fn` to the parts of a line that are not inline code."""
    parts = re.split(r"(`[^`]*`)", text)
    return "".join(p if i % 2 else fn(p) for i, p in enumerate(parts))


def _link(m: re.Match[str]) -> str:
    bang, label, url = m.groups()
    if bang:  # an image: a documentation site's picture is not ours to ship
        return label
    if re.match(r"https?://", url):
        return f"[{label}]({url})"
    return label  # site-relative, a local file, an anchor: the book has none of them


_HTML_CODE_RE = re.compile(r"<(code|tt|kbd)>(.+?)</\1>", re.S)


def _html_code(m: re.Match[str]) -> str:
    """An HTML code element as inline code: its entities decoded and its Markdown escapes
    (`\\.`) dropped, as the documentation shows it (it was `<code>`…`</code>` in the book)."""
    import html

    code = html.unescape(re.sub(r"\\([\\`*_{}\[\]()#+\-.!<>])", r"\1", m.group(2)))
    return "`" + " ".join(code.replace("`", "'").split()) + "`"


def inline(text: str) -> str:
    """One piece of doc prose as Markdown: roles and RST literals become inline code, links into
    the documentation site become their text, markers and raw HTML tags become inert."""
    text = _DOUBLE_TICK_RE.sub(lambda m: "`" + m.group(1).replace("`", "'") + "`", text)
    text = _ROLE_RE.sub(lambda m: (_role_target(m.group(1), m.group(2)) if m.group(1) in ("ref", "doc", "term")
                                   else "`" + _role_target(m.group(1), m.group(2)) + "`"), text)
    text = _BROKEN_ROLE_RE.sub(lambda m: "`" + _role_target(m.group(1), m.group(2)) + "`", text)
    text = _JSDOC_LINK_RE.sub(lambda m: (m.group(2).strip() if m.group(2) else f"`{m.group(1)}`"), text)
    text = _RST_LINK_RE.sub(lambda m: f"[{m.group(1).strip()}]({m.group(2)})" if re.match(r"https?://", m.group(2))
                            else m.group(1).strip(), text)
    text = _STRAY_ROLE_RE.sub("", text)  # a role name left without its target
    text = _FOOTNOTE_REF_RE.sub("", text)
    text = _MD_LINK_RE.sub(_link, text)
    text = _REF_LINK_RE.sub(lambda m: m.group(1), text)
    text = _INTRA_RE.sub(lambda m: m.group(1), text)  # rustdoc [`Foo`]
    text = _outside_code(text, lambda s: _BRACKET_NAME_RE.sub(lambda m: f"`{m.group(1)}`", s))  # godoc [Foo]
    text = _outside_code(text, lambda s: _SHORTCUT_RE.sub(lambda m: m.group(1), s))  # `[a phrase]`: a link whose target was dropped
    text = re.sub(r"\s*<br\s*/?>\s*", " ", text).strip() if "<br" in text else text
    text = _HTML_CODE_RE.sub(_html_code, text) if "<" in text else text  # rustdoc's <code>Result&lt;_&gt;</code>
    text = _MARKER_RE.sub("&lt;!--", text)
    text = _outside_code(text, lambda s: _TAG_RE.sub(lambda m: f"`{m.group(0)}`", s))
    text = _outside_code(text, lambda s: _SUBST_RE.sub(lambda m: m.group(1), s) if "|" in s and not s.strip().startswith("|") else s)
    return text


def _single_backtick_refs(text: str) -> str:
    """RST's `interpreted text` (single backticks) is a reference, already inline code in Markdown;
    `text`_ (a hyperlink reference) loses its trailing underscore."""
    return re.sub(r"(`[^`]+`)__?(?!\w)", r"\1", text)


def first_sentence(text: str) -> str:
    """The first sentence of a paragraph; never cut inside a `code span` or after "e.g."."""
    text = " ".join(text.split())
    for m in re.finditer(r"[.!?。！？](?=\s|$)", text):
        head = text[: m.end()]
        if head.count("`") % 2 == 0 and not re.search(r"\b(?:e\.g|i\.e|etc|vs|cf)\.$", head):
            return head.strip()
    return text.strip()


# ---------------------------------------------------------------- comment markers

def strip_comment(raw: str) -> str:
    """A doc comment's text without its comment syntax (`/** */`, `///`, `//!`, `//`, `#`, `*`)."""
    text = raw.strip("\n")
    s = text.strip()
    if s.startswith("/*"):
        s = re.sub(r"^/\*+!?", "", s)
        s = re.sub(r"\*+/$", "", s).rstrip()
        lines = [re.sub(r"^\s*\* ?", "", ln) if re.match(r"^\s*\*(?!\*)", ln) else ln for ln in s.splitlines()]
        return inspect.cleandoc("\n".join(lines))
    lines = text.splitlines()
    for prefix in (r"//[/!]", r"//", r"#(?!\[)"):
        if lines and all(re.match(rf"^\s*{prefix}", ln) or not ln.strip() for ln in lines):
            return "\n".join(re.sub(rf"^\s*{prefix} ?", "", ln) for ln in lines).strip("\n")
    return inspect.cleandoc(text)
