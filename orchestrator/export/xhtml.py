"""The site's HTML as well-formed XHTML: parsed by an HTML5 parser (tinyhtml5, which WeasyPrint
brings), so inline SVG keeps its namespace and its camel-case attributes (`viewBox`), and
written back as XML that an HTML parser reads the same way (`<br/>`, but `<div></div>`).
Links to an anchor the export does not hold become plain text: a reader never follows a
link into nothing (a chapter that waits, a permalink)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from xml.sax.saxutils import escape, quoteattr

XHTML = "http://www.w3.org/1999/xhtml"
SVG = "http://www.w3.org/2000/svg"
MATHML = "http://www.w3.org/1998/Math/MathML"
_XMLNS = "http://www.w3.org/2000/xmlns/"
_ATTR_PREFIX = {"http://www.w3.org/1999/xlink": "xlink", "http://www.w3.org/XML/1998/namespace": "xml"}
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# What the site's pages have and a book does not: a lazy-loading hint, the permalinks' tab stops.
_DROP_ATTRS = {"loading"}


def parse(fragment: str) -> ET.Element:
    """The fragment inside a `<body>` element (namespaced tags: `{XHTML}p`, `{SVG}svg`)."""
    import tinyhtml5

    root = tinyhtml5.parse(f"<!DOCTYPE html><html><head></head><body>{fragment}</body></html>")
    body = root.find(f"{{{XHTML}}}body")
    assert body is not None  # the HTML5 algorithm always makes one
    return body


def local(tag: str) -> tuple[str, str]:
    ns, _, name = tag[1:].partition("}") if tag.startswith("{") else ("", "", tag)
    return ns, name


def ids(body: ET.Element) -> set[str]:
    return {e.get("id", "") for e in body.iter() if e.get("id")}


def clean(body: ET.Element) -> None:
    """Drop the site's permalinks (`¶`) and attributes that mean nothing off the web."""
    for parent in list(body.iter()):
        for child in list(parent):
            if local(child.tag)[1] == "a" and "anchor" in (child.get("class") or "").split():
                _remove(parent, child)
    for e in body.iter():
        for a in _DROP_ATTRS & set(e.attrib):
            del e.attrib[a]


def _remove(parent: ET.Element, child: ET.Element) -> None:
    """Remove `child`, keeping the text that followed it (a permalink's leading space goes too)."""
    idx = list(parent).index(child)
    tail = child.tail or ""
    last = idx == len(parent) - 1
    parent.remove(child)
    if idx:
        prev = parent[idx - 1]
        prev.tail = (prev.tail or "") + tail
        if last:
            prev.tail = prev.tail.rstrip() or None
    else:
        parent.text = (parent.text or "") + tail
        if last:
            parent.text = parent.text.rstrip() or None


def rewrite_links(body: ET.Element, resolve: Callable[[str], str | None]) -> list[str]:
    """Each `<a href="#x">`: `resolve("x")` gives its new href, or None: the link becomes a
    `<span>` (its text stays). Returns the fragments that were unlinked."""
    gone = []
    for e in body.iter(f"{{{XHTML}}}a"):
        href = e.get("href", "")
        if not href.startswith("#"):
            continue
        new = resolve(href[1:])
        if new is None:
            gone.append(href[1:])
            e.tag = f"{{{XHTML}}}span"
            e.attrib.pop("href", None)
        else:
            e.set("href", new)
    return gone


def serialize(body: ET.Element) -> str:
    """The body's content (not the body tag) as XHTML."""
    out: list[str] = [escape(body.text or "")]
    for child in body:
        _write(child, XHTML, out)
    return "".join(out)


def _write(e: ET.Element, parent_ns: str, out: list[str]) -> None:
    if not isinstance(e.tag, str):  # a comment or processing instruction: the site writes none
        out.append(escape(e.tail or ""))
        return
    ns, name = local(e.tag)
    attrs = [] if ns == parent_ns else [f' xmlns="{ns}"']
    for k, v in e.attrib.items():
        ans, aname = local(k)
        if ans == _XMLNS or (not ans and aname == "xmlns"):
            continue  # declared above, from the element's own namespace
        if ans in _ATTR_PREFIX:
            if ans == "http://www.w3.org/1999/xlink" and ' xmlns:xlink=' not in "".join(attrs):
                attrs.append(f' xmlns:xlink="{ans}"')
            aname = f"{_ATTR_PREFIX[ans]}:{aname}"
        attrs.append(f" {aname}={quoteattr(v)}")
    out.append(f"<{name}{''.join(attrs)}")
    if len(e) == 0 and not e.text and (ns != XHTML or name in _VOID):
        out.append("/>")
    else:
        out.append(">" + escape(e.text or ""))
        for child in e:
            _write(child, ns, out)
        out.append(f"</{name}>")
    out.append(escape(e.tail or ""))
