"""Completion markers: an HTML comment on the last non-blank line of a file,
`<!-- DRAFT_COMPLETE body=3f9a0c1d2e4b inputs=research:9c1e..,outline:77ab.. run=... -->`.

Reading a marker reads only the tail of a file; hashing a body reads it all, so callers
hash through the cache in `hashcache.py`."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

TAIL = 4096
MARKER_LINE_RE = re.compile(rb"^\s*<!--\s*([A-Z][A-Z0-9_]*)((?:\s+[a-z_]+=[^\s>]*)*)\s*-->\s*$")
_ATTR_RE = re.compile(r"([a-z_]+)=([^\s>]*)")
_STR_ONLY_SPACE = re.compile(rb"[\x1c-\x1f]")  # whitespace to _ATTR_RE (text), not to bytes.split()
# Marker-like text inside a model's answer: an HTML comment that opens with an upper-case word.
_LOOKALIKE_RE = re.compile(r"<!--(\s*)(?=[A-Z][A-Z0-9_]*(?:\s|-->|$))")


@dataclass(frozen=True)
class Marker:
    name: str
    body: str | None = None  # short hash of everything before the marker line
    inputs: dict[str, str] = field(default_factory=dict)  # input name -> short hash
    run: str | None = None
    offset: int = 0  # byte offset where the marker line starts
    extra: dict[str, str] = field(default_factory=dict)  # other attributes, e.g. verdict= on a review
    # Where the text after the marker line starts, when a person appended some (0: the marker
    # is the last non-blank line). That text is theirs: part of the body, the file `edited`.
    end: int = 0


def short_hash(data: bytes | str) -> str:
    import hashlib  # a scan of an unchanged tree never hashes: keep the import off its path

    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    return hashlib.sha256(data).hexdigest()[:12]


def saved_as_lf(data: bytes) -> bytes:
    """A marked file's bytes as our writer saves them: an editor's byte-order mark and CRLF
    line endings are how it was saved, not what it says (not an edit, and no BOM in a prompt)."""
    return data.removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n")


def body_hash(body: bytes) -> str:
    """Hash of a body: its text with trailing whitespace stripped, so an editor's final newline changes nothing."""
    text = body.decode("utf-8", "surrogateescape").rstrip()
    return short_hash(text)


def _last_line(data: bytes) -> tuple[int, bytes] | None:
    """(start offset, line) of the last non-blank line of `data`, or None if all blank.
    Blank means whitespace as str.strip() sees it (a no-break space too), the same notion
    of whitespace as the body hash's."""
    end = len(data.rstrip())
    if end and 0x20 < data[end - 1] < 0x7F:
        # the common case (a marker ends in `-->`): a line that ends in a printable ASCII
        # character is not blank, whatever comes before it
        start = data.rfind(b"\n", 0, end) + 1
        return start, data[start:end]
    while True:
        end = len(data[:end].rstrip())
        if end == 0:
            return None
        start = data.rfind(b"\n", 0, end) + 1
        line = data[start:end]
        if line.decode("utf-8", "replace").strip():
            return start, line
        end = start


def _marker(name: str, body: str | None, inputs: dict[str, str], run: str | None, offset: int,
            extra: dict[str, str], end: int = 0) -> Marker:
    """Marker(...) without the frozen dataclass's per-field object.__setattr__: a scan makes one
    per file of the tree (thousands), and the constructor was a fifth of reading a marker."""
    mk = object.__new__(Marker)
    object.__setattr__(mk, "__dict__", {"name": name, "body": body, "inputs": inputs, "run": run,
                                        "offset": offset, "extra": extra, "end": end})
    return mk


def parse_marker_line(line: bytes, offset: int = 0) -> Marker | None:
    """The marker on `line` (one line, without its newline), or None; `offset`: where the
    line starts in its file (Marker.offset)."""
    m = MARKER_LINE_RE.match(line)
    if not m:
        return None
    raw = m.group(2)
    if not raw:  # a bare marker
        return _marker(m.group(1).decode(), None, {}, None, offset, {})
    attrs: dict[str, str] = {}
    if _STR_ONLY_SPACE.search(raw) is None:
        # The regex proved `raw` a run of ` key=value` items ([a-z_]+=[^\s>]*, after \s, which
        # in a bytes pattern is the whitespace bytes.split() splits on): split, not parsed again.
        for item in raw.split():
            k, _, v = item.partition(b"=")
            attrs[k.decode()] = v.decode("ascii", "replace")
    else:  # \x1c-\x1f end a value as text: read as text
        attrs = dict(_ATTR_RE.findall(raw.decode("ascii", "replace")))
    body = attrs.pop("body", None) or None
    run = attrs.pop("run", None)
    spec = attrs.pop("inputs", None)  # what is left in attrs: the extra attributes
    inputs: dict[str, str] = {}
    if spec:
        from urllib.parse import unquote

        for item_s in spec.split(","):
            name, _, h = item_s.rpartition(":")
            if name:
                inputs[unquote(name) if "%" in name else name] = h
    return _marker(m.group(1).decode(), body, inputs, run, offset, attrs)


_ANY_MARKER_LINE_RE = re.compile(rb"^[ \t]*<!--[ \t]*[A-Z][A-Z0-9_]*(?:[ \t]+[a-z_]+=[^\s>]*)*[ \t]*-->[ \t]*\r?$", re.M)


def find_marker(data: bytes) -> Marker | None:
    """The marker on the last non-blank line of `data` (already in memory); failing that,
    the last marker line with a person's text after it (`Marker.end` says where that starts),
    if its body hash proves the text before it whole."""
    found = _last_line(data)
    if found is None:
        return None
    mk = parse_marker_line(found[1], found[0])
    if mk is not None:
        return mk
    last = next(reversed(list(_ANY_MARKER_LINE_RE.finditer(data))), None)
    if last is None:
        return None
    mk = parse_marker_line(last.group(0))
    # Proof that the text before it is whole: its body hash matches. A bare or mismatched
    # marker mid-file (a quoted one, a file cut off after it) proves nothing.
    if mk is None or not mk.body or body_hash(saved_as_lf(data[: last.start()])) != mk.body:
        return None
    end = last.end() + 1 if data[last.end():last.end() + 1] == b"\n" else last.end()
    return Marker(mk.name, mk.body, mk.inputs, mk.run, last.start(), mk.extra, end)


def read_marker(path: str | os.PathLike[str], size: int | None = None) -> Marker | None:
    """The marker on the last non-blank line, reading only the file's tail."""
    fd = os.open(path, os.O_RDONLY)
    try:
        if size is None:
            size = os.fstat(fd).st_size
        chunk = TAIL
        while True:
            start = max(0, size - chunk)
            data = os.pread(fd, size - start, start)
            found = _last_line(data)
            if found is None:
                if start == 0:
                    return None
                chunk *= 4  # a long run of trailing blank lines
                continue
            off, line = found
            if off > 0 or start == 0:
                mk = parse_marker_line(line, start + off)
                if mk is None:  # not on the last line: a person may have appended after it (a tail's worth)
                    return find_marker(_whole(fd, size)) if b"<!--" in data else None
                return mk
            chunk *= 4  # the last line began before this chunk
    finally:
        os.close(fd)


def _whole(fd: int, size: int) -> bytes:
    return os.pread(fd, size, 0)


def split_marked(data: bytes, marker: Marker) -> bytes:
    """The body of a marked file: everything but the marker line (a person's text after it
    included, after a blank line)."""
    if not marker.end:
        return data[: marker.offset]
    return data[: marker.offset].rstrip() + b"\n\n" + data[marker.end:].lstrip(b"\r\n")


def body_of(data: bytes) -> bytes:
    """A file's body: everything but its marker line; the whole text if it has none."""
    mk = find_marker(data)
    return data if mk is None else split_marked(data, mk)


def format_marker(name: str, body: str | None = None, inputs: dict[str, str] | None = None,
                  run: str | None = None, extra: dict[str, str] | None = None) -> str:
    parts = [name]
    if body:
        parts.append(f"body={body}")
    if inputs:
        from urllib.parse import quote

        parts.append("inputs=" + ",".join(f"{quote(k, safe='/._-:')}:{v}" for k, v in sorted(inputs.items())))
    parts += [f"{k}={v}" for k, v in sorted((extra or {}).items())]
    if run:
        parts.append(f"run={run}")
    return "<!-- " + " ".join(parts) + " -->"


def compose(body: str, name: str, inputs: dict[str, str] | None = None, run: str | None = None,
            extra: dict[str, str] | None = None) -> str:
    """Complete file text: the body, a blank line, the marker with provenance, a newline."""
    body = body.rstrip()
    digest = body_hash(saved_as_lf(body.encode("utf-8", "surrogateescape")))  # as a scan reads it back
    return body + "\n\n" + format_marker(name, digest, inputs, run, extra) + "\n"


def neutralise(text: str) -> str:
    """Make marker-like comments in a model's text inert, so only the orchestrator marks."""
    return _LOOKALIKE_RE.sub(r"<!--\1(quoted) ", text)


def looks_like_marker(text: str) -> bool:
    return bool(_LOOKALIKE_RE.search(text))
