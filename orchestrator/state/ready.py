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


def ready_hash(scanner) -> str | None:
    """The `ready` input of the pages and the index: they change when a chapter becomes ready."""
    return short_hash(json.dumps(ready_chapters(scanner))) if scanner.outline else None
