"""Code blocks: highlighted at build time by Pygments, with CSS classes (no script), and the
file an info string names shown as a caption."""

from __future__ import annotations

import functools
import re
from typing import Any, Protocol

from markdown_it.common.utils import escapeHtml, unescapeAll
from markdown_it.token import Token
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

LIGHT_STYLE = "default"
DARK_STYLE = "github-dark"


class CodeCtx(Protocol):
    """What a code block needs of the page being written (markdown.RenderCtx has it): said here,
    so that this module, which markdown.py imports, imports nothing of it."""

    formatter: HtmlFormatter
    ui: dict[str, str]


_INFO_ATTR_RE = re.compile(r"""([A-Za-z_][\w-]*)=(?:"([^"]*)"|'([^']*)'|(\S+))""")


def parse_info(info: str) -> tuple[str, dict[str, str]]:
    """```` ```python file=minikv/store.py lines=10-20 ```` -> ("python", {"file": …, "lines": …})."""
    info = unescapeAll(info).strip()
    lang, _, rest = info.partition(" ")
    if "=" in lang:  # no language, only attributes
        lang, rest = "", info
    attrs = {
        m.group(1): next(g for g in m.groups()[1:] if g is not None) for m in _INFO_ATTR_RE.finditer(rest)
    }
    return lang.strip("{}."), attrs


# Plain text stays plain: no lexer, no highlight classes.
_PLAIN = {"text", "txt", "plain", "plaintext", "none", "output", "console-output"}


def _lexer(lang: str, filename: str | None) -> Any:
    """The lexer of the block's declared language only: a block without one (or `text`) is
    plain, whatever file it names (a `.py` file's excerpt may be prose, a log, a diagram)."""
    if not lang or lang.lower() in _PLAIN:
        return None
    return _lexer_by_name(lang.lower())


# Lexers are reusable; looking one up is not free, and a book has hundreds of blocks.
@functools.lru_cache(maxsize=256)
def _lexer_by_name(lang: str) -> Any:
    try:
        return get_lexer_by_name(lang, stripnl=False, ensurenl=True)
    except ClassNotFound:
        return None


def _r_fence(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    tok, ctx = tokens[idx], env["book"]
    lang, attrs = parse_info(tok.info)
    return code_block_html(tok.content, lang, attrs.get("file"), attrs.get("lines"), ctx, tok.meta.get("source_href"))


def code_block_html(code: str, lang: str, filename: str | None, lines: str | None, ctx: CodeCtx,
                    href: str | None = None) -> str:
    """Highlighted at build time with CSS classes: no script needed. The file named in the
    info string (code quoted from the source, checked by R1) becomes a caption."""
    lexer = _lexer(lang, filename)
    safe_lang = re.sub(r"[^\w+#.-]", "", lang)[:40]
    code_attr = f' class="language-{safe_lang}"' if safe_lang else ""
    if lexer is not None:
        body = _highlighted(code, lang, filename) if _plain(ctx.formatter) else \
            highlight(code, lexer, ctx.formatter).rstrip("\n")
        pre = f'<pre class="highlight" tabindex="0"><code{code_attr}>{body}</code></pre>'
    else:
        pre = f'<pre tabindex="0"><code{code_attr}>{escapeHtml(code.rstrip(chr(10)))}</code></pre>'
    if not filename:
        return pre + "\n"
    caption = f'<span class="listing-file">{escapeHtml(filename)}</span>'
    if href:  # the source at the pinned revision (publish.links)
        caption = f'<a class="source-link" href="{escapeHtml(href)}">{caption}</a>'
    if lines:
        caption += f' <span class="listing-lines">{escapeHtml(ctx.ui["lines"].format(lines=lines))}</span>'
    return f'<figure class="listing">\n<figcaption>{caption}</figcaption>\n{pre}\n</figure>\n'


def _plain(f: HtmlFormatter) -> bool:
    """The formatter `formatter()` makes (every page's): its output may come from the cache."""
    return type(f) is HtmlFormatter and f.nowrap and not f.noclasses and not f.linenos and f.classprefix == ""


# A listing is highlighted once per text: a chapter's code is on its page and again in print.html,
# and a republished page repeats the rest.
@functools.lru_cache(maxsize=4096)
def _highlighted(code: str, lang: str, filename: str | None) -> str:
    return highlight(code, _lexer(lang, filename), formatter()).rstrip("\n")


def _r_code_block(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    return code_block_html(tokens[idx].content, "", None, None, env["book"])



def formatter() -> HtmlFormatter:
    # nowrap: we write the <pre> ourselves; classes only, never inline styles.
    return HtmlFormatter(nowrap=True)


def pygments_css() -> str:
    """Token colours: a light style, and a dark one under `prefers-color-scheme: dark` (screen
    only, so printing stays light). The dark block first resets every light token colour,
    because the two styles do not colour the same set of tokens."""
    light = HtmlFormatter(style=LIGHT_STYLE).get_token_style_defs(".highlight")
    dark = HtmlFormatter(style=DARK_STYLE).get_token_style_defs(".highlight")
    reset = (
        ".highlight [class] { color: inherit; background-color: transparent;"
        " font-weight: inherit; font-style: inherit; border: 0 }"
    )
    # dark by the system setting unless the reader chose light, or chosen with the toggle
    by_system = [r.replace(".highlight", ':root:not([data-theme="light"]) .highlight') for r in [reset, *dark]]
    chosen = [r.replace(".highlight", ':root[data-theme="dark"] .highlight') for r in [reset, *dark]]
    return (
        f"/* Syntax highlighting: Pygments {LIGHT_STYLE} and {DARK_STYLE}, generated at build time. */\n"
        + "\n".join(light)
        + "\n@media screen and (prefers-color-scheme: dark) {\n"
        + "\n".join("  " + line for line in by_system)
        + "\n}\n@media screen {\n"
        + "\n".join("  " + line for line in chosen)
        + "\n}\n"
    )
