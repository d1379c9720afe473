"""The site's pages of the source files its chapters cite, for a source with no hosting service
to link to: one page per file (`source/PATH.html`), every line with its anchor (`#L12`), and an
anchor per cited range (`#L10-L20`, at its first line) whose lines are marked, so a citation opens
on the very lines it cites. Read through the safe reader; a file that cannot be read gets no page
(R1 has reported the citation)."""

from __future__ import annotations

import html
import posixpath
from collections.abc import Iterable

from .links import SourceLinks, source_page

_STYLE = (".source-lines{font:13px/1.45 ui-monospace,monospace;white-space:pre;overflow-x:auto}"
          ".source-lines .ln{display:inline-block;width:5ch;text-align:right;margin-right:1.5ch;color:#888;"
          "text-decoration:none}.source-lines .cited{background:#fff6d5}.source-lines :target{background:#ffe58f}"
          ".source-lines .range{display:block;height:0}")


def source_pages(links: SourceLinks | None, cited: Iterable[tuple[str, int, int]], title: str) -> dict[str, str]:
    """Page name (relative to the site) -> HTML, for every file cited (none when the source has a
    remote: citations go to the hosting service)."""
    if links is None or links.root is None or links.revision.permalink("x", 1, 1) is not None:
        return {}
    from ..repo.read import SourceReadError, read_source

    by_file: dict[str, set[tuple[int, int]]] = {}
    for path, a, b in cited:
        by_file.setdefault(path, set()).add((a, b))
    out = {}
    for path, ranges in sorted(by_file.items()):
        try:
            text = read_source(links.root, path, max_bytes=8_000_000).removeprefix("\ufeff")
        except (SourceReadError, OSError):
            continue
        out[source_page(path)] = _page(path, text, ranges, title, links.revision.label())
    return out


def _page(path: str, text: str, ranges: set[tuple[int, int]], title: str, revision: str) -> str:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    starts: dict[int, list[str]] = {}
    marked: set[int] = set()
    for a, b in sorted(ranges):
        if b > a:
            starts.setdefault(a, []).append(f"L{a}-L{b}")
        marked.update(range(a, b + 1))
    up = "../" * (path.count("/") + 1)
    rows = []
    for n, ln in enumerate(lines, 1):
        anchors = "".join(f'<span class="range" id="{rid}"></span>' for rid in starts.get(n, []))
        cls = "line cited" if n in marked else "line"
        rows.append(f'{anchors}<span class="{cls}" id="L{n}"><a class="ln" href="#L{n}">{n}</a>{html.escape(ln)}</span>')
    name = html.escape(path)
    return (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{name} — {html.escape(title)}</title>\n'
            f'<link rel="stylesheet" href="{up}book.css"><style>{_STYLE}</style></head>\n'
            f'<body><main class="source-file"><p><a href="{up}index.html">{html.escape(title)}</a></p>\n'
            f'<h1>{name}</h1><p class="revision">{html.escape(revision)} · {html.escape(posixpath.basename(path))}, '
            f'{len(lines)} lines</p>\n<pre class="source-lines">' + "\n".join(rows) + "</pre></main></body></html>\n")
