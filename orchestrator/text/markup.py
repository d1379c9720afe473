"""Inline markup of doc comments turned into Markdown: Sphinx roles and RST literals become
inline code, JSDoc `{@link}`, godoc `[Name]` and rustdoc intra-doc links become names, links
into a documentation site become their text, markers and raw HTML tags become inert; and the
comment syntax around a doc comment (`/** */`, `///`, `//`, `#`) is taken off."""

from __future__ import annotations

import html
import inspect
import re
import textwrap

from .markdown import code_marker_words

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


def _outside_spans(rx: re.Pattern[str], fn, text: str) -> str:
    """`rx.sub(fn, text)` for the matches that start outside inline code (a link may hold code)."""
    if "`" not in text:
        return rx.sub(fn, text)
    return rx.sub(lambda m: m.group(0) if text.count("`", 0, m.start()) % 2 else fn(m), text)


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
    text = re.sub(r"(?<=[^\s`]`)\\(?=[a-z])", "", text) if "`\\" in text else text  # RST's :func:`option`\s
    text = _FOOTNOTE_REF_RE.sub("", text)
    text = _outside_spans(_MD_LINK_RE, _link, text)
    text = _outside_spans(_REF_LINK_RE, lambda m: m.group(1), text)  # never `f()[key][0]` → `f()key`
    text = _INTRA_RE.sub(lambda m: m.group(1), text)  # rustdoc [`Foo`]
    text = _outside_code(text, lambda s: _BRACKET_NAME_RE.sub(lambda m: f"`{m.group(1)}`", s))  # godoc [Foo]
    text = _outside_code(text, lambda s: _SHORTCUT_RE.sub(lambda m: m.group(1), s))  # `[a phrase]`: a link whose target was dropped
    text = re.sub(r"\s*<br\s*/?>\s*", " ", text).strip() if "<br" in text else text
    text = _HTML_CODE_RE.sub(_html_code, text) if "<" in text else text  # rustdoc's <code>Result&lt;_&gt;</code>
    text = code_marker_words(_MARKER_RE.sub("&lt;!--", text))
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


# ---------------------------------------------------------------- HTML in doc comments

# Javadoc (and JSDoc, and some C++ and Go comments) write HTML and inline tags: `<p>`,
# `<pre>{@code …}</pre>`, `{@code x}`, `{@link A#b label}`, `&lt;`. Turned into Markdown before
# the block parser reads the comment, so a `<pre>` block is an example and `<p>` a paragraph.
_PRE_RE = re.compile(r"<pre\b[^>]*>(.*?)</pre>", re.S | re.I)
_INLINE_TAG_RE = re.compile(r"\{@(code|literal|link|linkplain|linkcode|value|inheritDoc|docRoot)\b\s?")
_ANCHOR_RE = re.compile(r"<a\s[^>]*?href\s*=\s*[\"']([^\"']*)[\"'][^>]*>(.*?)</a>", re.S | re.I)
_HTML_SIMPLE = [
    (re.compile(r"\s*<p\b[^>]*>\s*", re.I), "\n\n"), (re.compile(r"\s*</p>", re.I), ""),
    (re.compile(r"\s*</?(?:ul|ol|dl|blockquote|div|table|tbody|thead)\b[^>]*>\s*", re.I), "\n\n"),
    (re.compile(r"\s*<(?:li|dt)\b[^>]*>\s*", re.I), "\n- "), (re.compile(r"\s*</(?:li|dt)>", re.I), ""),
    (re.compile(r"\s*<dd\b[^>]*>\s*", re.I), ": "), (re.compile(r"\s*</dd>", re.I), ""),
    (re.compile(r"</?(?:b|strong)>", re.I), "**"), (re.compile(r"</?(?:i|em)>", re.I), "*"),
]
_HEADING_RE = re.compile(r"\s*<h\d\b[^>]*>\s*(.*?)\s*</h\d>\s*", re.I | re.S)  # may hold code: whole text
_ENTITY_RE = re.compile(r"&(?:#\d+|#x[0-9a-fA-F]+|[A-Za-z]\w*);")
_GENERIC_RE = re.compile(r"[\w.$@]*&lt;[^\s]*?&gt;(?:\[\])*")


def _braced(text: str, start: int) -> int:
    """The index after the `}` that closes the `{` at `start` (nested braces counted), or -1."""
    depth = 0
    for j in range(start, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j + 1
    return -1


def _link_target(target: str) -> str:
    """`Gson#toJson(Object)` → `Gson.toJson()`, `#of` → `of()`: as a reader calls it."""
    target = target.lstrip("#").replace("#", ".")
    return re.sub(r"\(.*\)$", "()", target)


def _inline_tags(text: str) -> str:
    out, i = [], 0
    for m in _INLINE_TAG_RE.finditer(text):
        if m.start() < i:
            continue
        end = _braced(text, m.start())
        if end < 0:
            continue
        body = text[m.end():end - 1]
        tag = m.group(1)
        if tag in ("code", "value"):
            rep = "`" + " ".join(html.unescape(body).replace("`", "'").split()) + "`" if body.strip() else ""
        elif tag == "literal":
            rep = html.unescape(body)
        elif tag.startswith("link"):
            m2 = re.match(r"(\S*?\([^)]*\)|\S+)\s*(.*)$", body.strip(), re.S)
            target, label = (m2.group(1), m2.group(2)) if m2 else (body.strip(), "")
            rep = " ".join(label.split()) or f"`{_link_target(target)}`"
        else:
            rep = ""  # {@inheritDoc}, {@docRoot}: for the documentation tool
        out.append(text[i:m.start()] + rep)
        i = end
    return "".join(out) + text[i:]


def _pre_block(m: re.Match[str], lang: str) -> str:
    code = m.group(1)
    inner = code.strip()
    if inner.startswith("{@code") and _braced(inner, 0) == len(inner):
        code = inner[len("{@code"):-1]
    code = re.sub(r"</?code>", "", code)
    code = textwrap.dedent(html.unescape(code).strip("\n")).rstrip()
    return f"\n\n```{lang}\n{code}\n```\n\n"


def _entities(text: str) -> str:
    """`List&lt;String&gt;` in prose is a type: inline code; other entities become characters."""
    def generic(m: re.Match[str]) -> str:
        word = m.group(0)
        return "`" + html.unescape(word) + "`"
    text = _outside_code(text, lambda s: _GENERIC_RE.sub(generic, s))
    # only complete entities (`&lt;`, `&#64;`): html.unescape alone also reads `&copy` in `&copyFrom`
    return _outside_code(text, lambda s: _ENTITY_RE.sub(_entity, s) if "&" in s else s)


def _entity(m: re.Match[str]) -> str:
    import html.entities

    word = m.group(0)
    if word.startswith("&#"):
        return html.unescape(word)
    return html.entities.html5.get(word[1:], word)  # `&notify;` is no entity (unescape reads `&not`)


def html_doc(text: str, lang: str = "") -> str:
    """A doc comment's HTML and Javadoc inline tags as Markdown (fenced code left as it is)."""
    if not re.search(r"</?[a-zA-Z][^>]*>|\{@|&[#\w]+;", text):
        return text
    text = _PRE_RE.sub(lambda m: _pre_block(m, lang or "text"), text)
    pieces = re.split(r"(^\s*```.*?^\s*```[^\n]*$)", text, flags=re.S | re.M)
    for k in range(0, len(pieces), 2):  # the prose between fences
        s = _inline_tags(pieces[k])
        s = _ANCHOR_RE.sub(lambda m: f"[{m.group(2).strip()}]({m.group(1)})" if re.match(r"https?://", m.group(1))
                           else m.group(2).strip(), s)
        s = _HEADING_RE.sub(lambda m: "\n\n**" + " ".join(m.group(1).split()) + "**\n\n", s)
        for rx, rep in _HTML_SIMPLE:
            s = "\n".join(_outside_code(ln, lambda p, rx=rx, rep=rep: rx.sub(rep, p)) for ln in s.split("\n"))
        pieces[k] = "\n".join(_entities(ln) for ln in s.split("\n"))
    return re.sub(r"\n{3,}", "\n\n", "".join(pieces)).strip("\n")


# ---------------------------------------------------------------- Doxygen in C and C++ doc comments

# Doxygen writes its commands with `\` or `@`: `\brief`, `@param[in] x`, `\return`, `\code … \endcode`.
# They are turned into the JSDoc-like tags the block parser reads (`@param x …`, `@returns …`) and
# into Markdown (fences, inline code), so a parameter list is a list and an example stays whole.
_DOX_BLOCK_RE = re.compile(r"^([ \t]*)[\\@](code|verbatim)(?:\{\.?(\w+)\})?[ \t]*\n(.*?)^[ \t]*[\\@]end\2\b[^\n]*$",
                           re.S | re.M)
_DOX_TAG_RE = re.compile(r"(?m)^([ \t]*)[\\@](brief|short|details|param|tparam|returns?|retval|result|throws?|exception|"
                         r"note|remark|remarks|attention|warning|see|sa|since|deprecated|pre|post|par|li|arg)"
                         r"(?:\[[\w, ]*\])?(?=[\s:]|$)[ \t]*")
_DOX_INLINE_RE = re.compile(r"(?<![\w\\])[\\@](c|p|a|e|em|b|ref)[ \t]+((?:[^\s,;:()]|::)+?(?:\(\))?)(?=[.,;:!?)]*(?:\s|$))")
_DOX_TAGS = {"param": "@param ", "tparam": "@param ", "return": "@returns ", "returns": "@returns ",
             "result": "@returns ", "retval": "@returns ", "throw": "@throws ", "throws": "@throws ",
             "exception": "@throws ", "note": "@note ", "remark": "@note ", "remarks": "@note ",
             "attention": "@warning ", "warning": "@warning ", "see": "@see ", "sa": "@see ", "since": "@since ",
             "deprecated": "@deprecated ", "pre": "@note Precondition: ", "post": "@note Postcondition: ",
             "li": "- ", "arg": "- ", "brief": "", "short": "", "details": "", "par": ""}


def _dox_inline(m: re.Match[str]) -> str:
    cmd, word = m.group(1), m.group(2)
    if cmd in ("c", "p", "ref"):
        return f"`{word}`"
    return f"**{word}**" if cmd == "b" else f"*{word}*"


def doxygen(text: str, lang: str = "") -> str:
    """A C/C++ doc comment's Doxygen commands as tags and Markdown (code blocks kept whole)."""
    if not re.search(r"[\\@][a-z]", text):
        return text
    fence = "cpp" if lang == "cpp" else (lang or "text")

    def block(m: re.Match[str]) -> str:
        code = textwrap.dedent(m.group(4)).rstrip("\n")
        tag = (m.group(3) or "").lower()
        info = "text" if m.group(2) == "verbatim" else ({"c++": "cpp", "cxx": "cpp", "cc": "cpp", "h": "c"}.get(tag, tag)
                                                        or fence)
        return f"{m.group(1)}```{info}\n{code}\n{m.group(1)}```"

    text = _DOX_BLOCK_RE.sub(block, text)
    pieces = re.split(r"(^[ \t]*```.*?^[ \t]*```[^\n]*$)", text, flags=re.S | re.M)
    for k in range(0, len(pieces), 2):  # the prose between fences
        s = _DOX_TAG_RE.sub(lambda m: m.group(1) + _DOX_TAGS[m.group(2)], pieces[k])
        s = re.sub(r"(?m)^(\s*@returns\s+)(\S+)(?=\s)", lambda m: m.group(1) + (f"`{m.group(2)}`" if re.fullmatch(
            r"[A-Z_0-9]+|-?\d+|true|false|NULL|nullptr", m.group(2)) else m.group(2)), s)  # `\retval REDIS_OK …`
        pieces[k] = _outside_code(s, lambda t: _DOX_INLINE_RE.sub(_dox_inline, t)) if "\\" in s or "@" in s else s
    return "".join(pieces)
