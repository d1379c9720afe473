"""A person's files as a scan sees them: a marker-less file at a step's path that looks
complete (kept for its author), text that is not UTF-8, a per-chapter memory file that cannot
be read. Each is judged once per version of the file, through the hash cache, so a scan of an
unchanged tree reads none of them. (reconcile re-exports these.)"""

from __future__ import annotations

import functools

from ..steps import OUTLINE, STEPS
from .hashcache import HashCache
from .snapshot import Snapshot, StepState


def looks_truncated(text: str) -> tuple[bool, str]:
    """The decision tree for a file without a marker: whose it is, and whether it looks truncated."""
    if len(text) < 100:
        return True, "under 100 characters"
    fences = sum(1 for line in text.splitlines() if line.lstrip().startswith(("```", "~~~")))
    if fences % 2:
        return True, "an unclosed code fence"
    last = text.rstrip().splitlines()[-1].strip() if text.strip() else ""
    if last.startswith("|") and not last.endswith("|"):
        return True, "a cut-off table row"
    if last.startswith(("- ", "* ")) and len(last) < 4:
        return True, "a cut-off list item"
    if last and last[-1] not in ".!?。！？:：)）]】`*|>\"'-" and not last.startswith("#"):
        return True, "it ends mid-sentence"
    return False, "it looks complete but has no marker"


def kept_for_person(root, rel: str, unit: str, step: str, data: bytes | None = None) -> str | None:
    """Why a marker-less file at a model step's path is held for a person rather than backed
    up and redone, or None. Our writer only ever renames complete, marked text onto that path,
    so a marker-less file that looks complete (not cut short, by the decision tree) is a
    person's (a whole-file paste drops the marker line): it is kept as it is and waits for
    them, whatever the strategy. One that looks cut short is a crash's, and is redone."""
    try:  # `data`: the file's bytes when the caller has read them already
        raw = data if data is not None else (root / rel).read_bytes()
    except OSError:
        return None
    text = raw.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")  # as read_text reads it
    if looks_truncated(text)[0]:
        return None
    from ..steps import BOOK, BOOK_STEPS
    from .markers import find_marker

    mk = find_marker(text.encode("utf-8", "surrogateescape"))
    want = (BOOK_STEPS[step] if unit == BOOK else STEPS[step]).marker
    other = f" (its marker is {mk.name}, another step's, not {want}: a copied file?)" if mk and mk.name != want else ""
    return (f"looks complete{other}: kept for you; `book accept {unit} {step}` adopts it, "
            f"`book redo {unit} {step}` replaces it (yours goes to a .bak file)")


def kept_files(book, snap: Snapshot) -> dict[str, str]:
    """path -> kept_for_person's word, for every half-finished file a person may have written:
    a model step's, or the style guide (the one derived file that is theirs to rewrite).
    Judged through the hash cache: an unchanged file is not read again."""
    from ..steps import BOOK, BOOK_STEPS, STYLE_GUIDE

    OUTLINE_PATH = BOOK_STEPS[OUTLINE].path  # noqa: N806

    out = {}
    for unit, k, s in snap.half_finished_steps:
        if (BOOK_STEPS[k] if unit == BOOK else STEPS[k]).model or k == STYLE_GUIDE:
            why = book.cache.verdict(f"{book.root}/{s.path}", f"kept:{unit}:{k}",
                                     lambda data, u=unit, k=k, p=s.path: kept_for_person(book.root, p, u, k, data) or "",
                                     version(s))
            if why and unit != BOOK and snap.outline is not None and unit not in snap.outline.by_id:
                why = (f"looks complete: kept for you; {unit} is not in the outline: add an entry for it to "
                       f"{OUTLINE_PATH}, then `book accept {unit} {k}` adopts it")
            if why:
                out[s.path] = why
    return out


def _utf8_word(rel: str, data: bytes) -> str:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        return (f"{rel}:{line}: not UTF-8 (byte 0x{data[e.start]:02x}); the book reads \ufffd in its place: "
                "save the file as UTF-8")
    return ""


def version(s: StepState) -> tuple[int, int] | None:
    """(size, mtime_ns) of the file a scan read `s` from, so a check through the hash cache
    needs no second stat of it; None for a state not read from a file (a test's)."""
    return (s.size, s.mtime_ns) if s.mtime_ns else None


def not_utf8(root, paths: list[str], cache: HashCache | None = None,
             versions: dict[str, tuple[int, int] | None] | None = None) -> list[str]:
    """A warning for each file (a person's: edited or marker-less) that is not UTF-8 text: what
    the book reads of it has U+FFFD in place of the bytes, so the person is told where.
    `versions`: path -> (size, mtime_ns) as a scan saw it (else each file is stat'ed)."""
    cache = cache or HashCache()
    versions = versions or {}
    out = []
    for rel in paths:
        said = cache.verdict(f"{root}/{rel}", "utf8", functools.partial(_utf8_word, rel), versions.get(rel))
        if said:
            out.append(said)
    return out


def unreadable_memory(book, snap: Snapshot) -> list[str]:
    """The error for each per-chapter memory file a person edited that cannot be read: every
    later chapter's steps that read it fail on it (the rest of the book goes on), so the scan
    says it first, naming the file and what is wrong."""
    from ..steps import MEMORY

    def judge(ch: str, rel: str) -> str:
        from ..errors import BookError
        from .memory import parse, read_body  # only for a file not judged before

        try:
            parse(ch, read_body(book.root, rel), file=rel)
        except BookError as e:
            return str(e)
        return ""

    out = []
    for ch, row in snap.chapters.items():
        st = row[MEMORY]
        if st.status == "edited":
            said = book.cache.verdict(f"{book.root}/{st.path}", "memory-file", lambda _data, ch=ch, rel=st.path: judge(ch, rel),
                                      version(st))
            if said:
                out.append(said)
    return out
