"""Which chapters are ready to be read: their final is complete (generated or a person's).
A partial book is audited and published from these; the others are listed as not ready."""

from __future__ import annotations

import json

from ..steps import FINAL
from .markers import short_hash


def ready_chapters(scanner) -> list[str]:
    """The outline's chapters whose final is complete, in book order."""
    o = scanner.outline
    return [c.id for c in o.chapters if scanner.step(c.id, FINAL).complete] if o else []


def final_title(root, rel: str) -> str | None:
    """The `# ` line of a final: the chapter's title everywhere it is shown (a person's edit
    of it reaches the page title, the sidebar, the index and the links)."""
    try:
        with open(f"{root}/{rel}", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                line = line.removeprefix("\ufeff")  # a byte-order mark an editor saved
                if line.startswith("# "):
                    return line[2:].strip() or None
                if line.startswith("## "):
                    return None
    except OSError:
        return None
    return None


def ready_hash(scanner) -> str | None:
    """The `ready` input of the pages and the index: they change when a chapter becomes ready
    or its final's title changes. A final's title is read once per version of the file (the
    scan's size, mtime and body hash), not once per page that asks."""
    if not scanner.outline:
        return None
    titles = scanner.final_titles
    out = []
    for ch in ready_chapters(scanner):
        st = scanner.step(ch, FINAL)
        ident = (st.size, st.mtime, st.marker.body if st.marker else None)
        hit = titles.get(st.path)
        if hit is None or hit[0] != ident or not st.size:
            hit = titles[st.path] = (ident, final_title(scanner.root, st.path))
        out.append((ch, hit[1]))
    return short_hash(json.dumps(out, ensure_ascii=False))
