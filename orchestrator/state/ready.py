"""Which chapters are ready to be read: their final is complete (generated or a person's) and,
when a final gate is in force, a person approved that very final. A partial book is published
from these; the others are listed as not ready. The audit reads every complete final, approved
or not: an approval changes what a reader may see, not the text the audit checks."""

from __future__ import annotations

import json

from ..steps import FINAL, GATE_MODES
from . import gatecards
from .markers import short_hash


def complete_finals(scanner) -> list[str]:
    """The outline's chapters whose final is complete, in book order (what the audit reads)."""
    o = scanner.outline
    return [c.id for c in o.chapters if scanner.step(c.id, FINAL).complete] if o else []


def ready_chapters(scanner) -> list[str]:
    """The chapters a reader sees: a complete final that, under a final gate, a person approved
    as it stands now (a card for an older version of the file has expired)."""
    done = complete_finals(scanner)
    if FINAL not in GATE_MODES.get(scanner.gates or "", ()):
        return done
    return [ch for ch in done if _approved(scanner, ch)]


def _approved(scanner, ch: str) -> bool:
    card = gatecards.read_card(scanner, FINAL, ch)
    return card is not None and card.decision == "approved" \
        and card.artifact_hash == gatecards.current_hash(scanner, FINAL, ch)


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
    (its final completes, or a person approves it at the final gate) or leaves (a rejection,
    an edit after approval), and when its final's title changes. A final's title is read once per version of the file (the
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
