"""Which lifetime each cache breakpoint of a request asks for, by the reuse it can expect.

A cache write costs 1.25x the input rate for 5 minutes and 2x for 1 hour; a read 0.1x, and a
read refreshes the lifetime. So a 1-hour write pays only for a prefix that is read again after
more than 5 minutes without a read, and a breakpoint pays only when its prefix is read at all:

- the book's block (`shared`: the book's context, or the handbook) and, when it follows the book
  directly, the role's instructions: read by every later call of the book (the role's: by the
  next chapter's call of that role). While a run goes, those calls come within minutes of each
  other: 5 minutes. 1 hour when the run may stop at a gate for a person (`Request.cache_ttl`,
  or a role's `cache_ttl` in `models:`), so the prefix outlives the wait, and in a Message Batch,
  whose requests may start processing more than 5 minutes apart (the batch docs recommend 1 hour).
- the chapter's material (entry and draft): read by the seven roles of the chapter, within
  minutes, unless a gate waits between them (the review gate: `Request.material_ttl`) or they
  go in batches: then 1 hour. A block after the material is this chapter's and role's alone,
  read only by a re-send of the same request: 5 minutes.
- the user turn: read again only by a re-send of this very request (a retry, a continuation, a
  re-ask). A 5-minute write (0.25x extra) pays back from 0.28 re-sends per call (0.9x saved
  each), a 1-hour write (1x extra) only from 1.1: no breakpoint there unless `cache_user_turn`
  asks for one, and then 5 minutes.

The API requires a longer lifetime to come before a shorter one in a request: once a
breakpoint is 5 minutes, every later one is too.
"""

from __future__ import annotations

from typing import Any

BOOK, MATERIAL, ROLE = "book", "material", "role"


def long_ttl(settings: dict[str, Any]) -> str:
    """The lifetime of the prefixes read across a gate wait or a batch."""
    return "1h" if settings.get("batch") or settings.get("cache_ttl") == "1h" else "5m"


def block_ttls(kinds: list[str], settings: dict[str, Any], material_ttl: str | None = None) -> list[str]:
    """The lifetime of each system block's breakpoint, in order (`kinds`: BOOK, MATERIAL, ROLE)."""
    out: list[str] = []
    after_material = False
    for kind in kinds:
        if kind == MATERIAL:
            ttl = "1h" if settings.get("batch") or material_ttl == "1h" else "5m"
            after_material = True
        elif kind == ROLE and after_material:
            ttl = "5m"  # this chapter's and role's alone: only a re-send reads it
        else:
            ttl = long_ttl(settings)
        if out and out[-1] == "5m":
            ttl = "5m"  # a longer lifetime may not follow a shorter one
        out.append(ttl)
    return out


def user_turn_ttl(settings: dict[str, Any]) -> str | None:
    """The user turn's breakpoint: none unless `cache_user_turn` is set, then 5 minutes."""
    return "5m" if settings.get("cache_user_turn") else None


def cache_control(ttl: str) -> dict[str, Any]:
    """The `cache_control` of a breakpoint (5 minutes is the API's default: no `ttl` field)."""
    return {"type": "ephemeral", "ttl": "1h"} if ttl == "1h" else {"type": "ephemeral"}
