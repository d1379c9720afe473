"""Markers: detection on the last non-blank line only, provenance round trip,
body hashes, neutralising marker-like text, and reading only the tail of a file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import example, given, settings, strategies as st

from orchestrator.state import markers
from orchestrator.state.hashcache import HashCache
from orchestrator.state.markers import (
    TAIL,
    Marker,
    body_hash,
    compose,
    find_marker,
    format_marker,
    looks_like_marker,
    neutralise,
    parse_marker_line,
    read_marker,
    saved_as_lf,
    short_hash,
    split_marked,
)

NAMES = st.from_regex(r"\A[A-Z][A-Z0-9_]{0,24}\Z")
HEX12 = st.from_regex(r"\A[0-9a-f]{12}\Z")
RUN_IDS = st.from_regex(r"\A[0-9A-Za-z][0-9A-Za-z_.-]{0,30}\Z")
ASCII_WS = " \t\r\n\x0b\x0c"
BLANKS = st.text(alphabet=" \t\r\n", max_size=40)

# Text biased towards marker-like fragments, so the properties meet the interesting cases.
TOKENS = ["<!--", "-->", "<!-- ", " -->", "DRAFT_COMPLETE", "R1_CODE_REVIEW_COMPLETE", "X", "A1", "_",
          " ", "\t", "\n", "\r\n", "\r", "body=3f9a0c1d2e4b", " inputs=a:1,b/c:2", " run=r1", "=", ">", "<",
          "!", "-", "a", "word", "é", "中", "\x0c"]
MARKERISH = st.lists(st.sampled_from(TOKENS), max_size=40).map("".join) | st.text(max_size=200)

_TMP: list[Path] = []


@pytest.fixture(autouse=True, scope="module")
def _scratch(tmp_path_factory):
    """One scratch directory for the property tests (hypothesis runs many examples per test)."""
    _TMP[:] = [tmp_path_factory.mktemp("markers")]
    yield


def on_disk(data: bytes, name: str = "f.md") -> Path:
    p = _TMP[0] / name
    p.write_bytes(data)
    return p


def both(data: bytes) -> Marker | None:
    """find_marker on the bytes and read_marker on the same bytes on disk must agree."""
    in_memory = find_marker(data)
    from_file = read_marker(on_disk(data))
    assert in_memory == from_file
    return in_memory


# ---------------------------------------------------------------- detection


@settings(max_examples=300, deadline=None)
@given(body=st.text(max_size=300), name=NAMES, trailing=BLANKS)
def test_a_marker_on_the_last_non_blank_line_counts(body, name, trailing):
    data = (body + "\n" + f"<!-- {name} -->" + trailing).encode()
    mk = both(data)
    assert mk is not None and mk.name == name
    assert mk.offset == len((body + "\n").encode())


@settings(max_examples=300, deadline=None)
@given(body=st.text(max_size=200), name=NAMES,
       tail=st.text(alphabet=st.characters(blacklist_characters="<", blacklist_categories=("Cs",)), min_size=1, max_size=80),
       trailing=BLANKS)
def test_a_marker_followed_by_any_other_line_does_not_count(body, name, tail, trailing):
    if not tail.strip():  # blank, as str.strip() (and so the body hash) sees it: make it a real line
        tail = tail + "x"
    data = (body + "\n" + f"<!-- {name} -->\n" + tail + trailing).encode()
    assert both(data) is None


@settings(max_examples=200, deadline=None)
@given(before=st.text(max_size=100), after=st.text(alphabet="abc .\n", max_size=60), name=NAMES)
def test_marker_text_in_the_body_does_not_count(before, after, name):
    text = before + f"\n<!-- {name} body=0123456789ab -->\nmore text about {name}\n" + after + "\nthe end."
    assert both(text.encode()) is None


@settings(max_examples=400, deadline=None)
@given(data=st.binary(max_size=600))
@example(data=b"")
@example(data=b"\n\n  \n")
@example(data=b"\xff\xfe<!-- A -->")
@example(data=b"<!-- A -->\r\n\r\n")
def test_find_marker_and_read_marker_agree_on_any_bytes(data):
    both(data)


@settings(max_examples=150, deadline=None)
@given(prefix=st.integers(0, 3 * TAIL), line_pad=st.integers(0, 2 * TAIL), blanks=st.integers(0, 3 * TAIL),
       marked=st.booleans())
def test_read_marker_agrees_with_find_marker_around_the_tail_boundary(prefix, line_pad, blanks, marked):
    # marked: the last line is blanks + marker; unmarked: text + something that looks like a marker
    pad = b" " * line_pad if marked else b"x" * line_pad + b"y"
    data = b"p" * prefix + b"\n" + pad + b"<!-- DRAFT_COMPLETE run=r -->" + b"\n" * blanks
    mk = both(data)
    assert (mk is not None) == marked
    if marked:
        assert mk.offset == prefix + 1


@pytest.mark.parametrize("delta", [-2, -1, 0, 1, 2])
@pytest.mark.parametrize("mult", [1, 4])
def test_last_line_starting_at_the_chunk_boundary(delta, mult):
    """The marker line starts exactly at (or next to) the first byte read."""
    line = b"<!-- DRAFT_COMPLETE -->\n"
    line = b" " * (mult * TAIL + delta - len(line)) + line
    for head in (b"", b"a" * 100 + b"\n", b"a" * 100):
        data = head + line
        mk = both(data)
        assert (mk is not None) == (not head or head.endswith(b"\n"))


def test_empty_and_blank_files_have_no_marker():
    for data in (b"", b"\n", b"   \n\t\r\n", b"\r\n" * 5000, b" " * (3 * TAIL)):
        assert both(data) is None


def test_crlf_line_endings():
    data = b"# Title\r\n\r\nText.\r\n\r\n<!-- DRAFT_COMPLETE body=0123456789ab run=r1 -->\r\n\r\n"
    mk = both(data)
    assert mk.name == "DRAFT_COMPLETE" and mk.body == "0123456789ab" and mk.run == "r1"
    assert data[mk.offset:].startswith(b"<!--")
    # A composed file converted to CRLF by an editor: still the same body (single-line body).
    crlf = compose("one line", "DRAFT_COMPLETE").replace("\n", "\r\n").encode()
    mk = both(crlf)
    assert mk.body == body_hash(split_marked(crlf, mk))


def test_non_utf8_bytes_before_the_marker():
    body = b"caf\xe9 \xff\xfe\x80 binary junk\n"
    data = body + b"<!-- RESEARCH_COMPLETE -->\n"
    mk = both(data)
    assert mk.name == "RESEARCH_COMPLETE"
    h = body_hash(split_marked(data, mk))
    assert len(h) == 12 and h == body_hash(body + b"  \n")
    # a marker line that is itself not UTF-8 does not parse as one
    assert both(b"text\n<!-- A run=\xff -->\n") is not None  # attribute values are opaque bytes
    assert both(b"text\n<!-- \xc3\x84 -->\n") is None


def test_very_long_last_line_that_is_a_marker():
    inputs = {f"src:pkg/module_{i:04d}.py": "0123456789ab" for i in range(600)}
    text = compose("A body.\n" * 50, "R1_CODE_REVIEW_COMPLETE", inputs, "20261129T2041Z-4f2a")
    assert len(text.rstrip().splitlines()[-1]) > 4 * TAIL
    mk = both(text.encode())
    assert mk.name == "R1_CODE_REVIEW_COMPLETE"
    assert mk.inputs == inputs
    assert mk.run == "20261129T2041Z-4f2a"


def test_very_long_last_line_whose_tail_looks_like_a_marker():
    # Only the last 4 KiB look like a marker; the line started much earlier with text.
    data = b"intro\n" + b"w" * (3 * TAIL) + b" <!-- DRAFT_COMPLETE -->\n"
    assert both(data) is None
    data = b"intro\n" + b" " * (3 * TAIL) + b"<!-- DRAFT_COMPLETE -->\n"
    assert both(data).name == "DRAFT_COMPLETE"


def test_a_mid_file_marker_is_not_proof():
    data = b"first half\n<!-- DRAFT_COMPLETE -->\nsecond half, cut off mid"
    assert both(data) is None


def test_bare_marker_without_provenance_counts():
    mk = both(b"Hand written.\n\n<!--DRAFT_COMPLETE-->\n")
    assert mk == Marker("DRAFT_COMPLETE", None, {}, None, mk.offset)


@pytest.mark.parametrize("line", [
    b"<!-- draft_complete -->",  # lower case
    b"<!-- DRAFT COMPLETE -->",  # two words
    b"<!-- DRAFT_COMPLETE",  # unclosed
    b"<-- DRAFT_COMPLETE -->",
    b"<!-- DRAFT_COMPLETE --> trailing text",
    b"text <!-- DRAFT_COMPLETE -->",
    b"<!-- DRAFT_COMPLETE Body=1 -->",  # attribute names are lower case
    b"<!-- 1DRAFT -->",
])
def test_not_markers(line):
    assert parse_marker_line(line) is None
    assert both(b"body\n" + line + b"\n") is None


ATTR_ITEMS = st.lists(st.tuples(st.sampled_from(["body", "run", "inputs", "by", "verdict", "a_b"]),
                                 st.binary(max_size=8).filter(lambda b: b"\n" not in b)), max_size=4)


@settings(max_examples=400, deadline=None)
@given(items=ATTR_ITEMS, seps=st.lists(st.sampled_from([b" ", b"\t", b"  ", b"\x0b", b"\x0c"]), min_size=4, max_size=4))
@example(items=[("verdict", b"\x1cby=x"), ("by", b"")], seps=[b" "] * 4)  # \x1c: space to text, not to bytes
def test_marker_attributes_are_read_as_the_grammar_says(items, seps):
    """Each attribute is what `([a-z_]+)=([^\\s>]*)` finds in the line read as ASCII text (the
    last of a repeated name wins), whatever bytes its value holds."""
    import re
    from urllib.parse import unquote

    line = b"<!-- X_DONE" + b"".join(seps[i % 4] + k.encode() + b"=" + v for i, (k, v) in enumerate(items)) + b" -->"
    mk = parse_marker_line(line, 5)
    m = markers.MARKER_LINE_RE.match(line)
    if m is None:
        assert mk is None
        return
    attrs = dict(re.findall(r"([a-z_]+)=([^\s>]*)", m.group(2).decode("ascii", "replace")))
    inputs = {unquote(n): h for n, _, h in (i.rpartition(":") for i in attrs.get("inputs", "").split(",")) if n}
    assert mk == Marker("X_DONE", attrs.get("body") or None, inputs if attrs.get("inputs") else {}, attrs.get("run"),
                        5, {k: v for k, v in attrs.items() if k not in ("body", "inputs", "run")})


# ---------------------------------------------------------------- compose -> read round trip

INPUT_NAMES = st.text(min_size=1, max_size=30) | st.sampled_from(
    ["research", "src:minikv/store.py", "final:ch03", "a:b:c", "x/y/z", "with space", "comma,name", "eq=name",
     "gt>name", "pct%41", "100%", "ü/中文:名"])


@settings(max_examples=150, deadline=None)
@given(body=st.text(max_size=400), name=NAMES, inputs=st.dictionaries(INPUT_NAMES, HEX12, max_size=8),
       run=st.none() | RUN_IDS)
def test_compose_read_round_trip(body, name, inputs, run):
    text = compose(body, name, inputs, run)
    data = text.encode()
    mk = both(data)
    assert mk is not None
    assert mk.name == name
    # (the hash of the body as a scan reads it back: a CRLF or a BOM is how a file was saved, not its words;
    # hypothesis found `\r\n` in a body, whose hash this test had taken raw)
    assert mk.body == short_hash(body.removeprefix("\ufeff").replace("\r\n", "\n").rstrip())
    assert mk.inputs == inputs
    assert mk.run == run
    # the recorded body hash is the hash of what precedes the marker line
    assert body_hash(saved_as_lf(split_marked(data, mk))) == mk.body
    # and the hash cache computes the same hash from the file
    p = on_disk(data, "rt.md")
    assert HashCache().body_hash(str(p)) == mk.body
    # the marker line is a single line
    assert text.endswith("-->\n") and "\n" not in text.rstrip("\n").rsplit("\n", 1)[1]


def test_compose_layout():
    text = compose("Body.\n\n\n", "DRAFT_COMPLETE", {"research": "9c1e00000000", "outline": "77ab00000000"},
                   "20261129T2041Z-4f2a")
    assert text == ("Body.\n\n<!-- DRAFT_COMPLETE body=" + short_hash("Body.")
                    + " inputs=outline:77ab00000000,research:9c1e00000000 run=20261129T2041Z-4f2a -->\n")


def test_format_marker_quotes_separators_in_input_names():
    line = format_marker("X", None, {"a b,c=d>e%": "0123456789ab"})
    assert " " not in line.split("inputs=")[1].split(" ")[0]
    assert parse_marker_line(line.encode()).inputs == {"a b,c=d>e%": "0123456789ab"}
    # ':' and '/' are kept readable; the hash is split off at the last ':'
    line = format_marker("X", None, {"src:a/b.py": "0123456789ab"})
    assert "inputs=src:a/b.py:0123456789ab" in line


# ---------------------------------------------------------------- body hashes


@settings(max_examples=300, deadline=None)
@given(body=st.binary(max_size=300), ws=st.text(alphabet=ASCII_WS, max_size=30))
def test_body_hash_ignores_trailing_whitespace(body, ws):
    assert body_hash(body + ws.encode()) == body_hash(body)


def test_body_hash_sees_other_changes():
    assert body_hash(b"a b") != body_hash(b"a  b")
    assert body_hash(b" a") != body_hash(b"a")
    assert body_hash(b"a\nb") != body_hash(b"a\r\nb")
    assert len(short_hash("x")) == 12 and short_hash("x") == short_hash(b"x")


def test_a_trailing_unicode_blank_line_does_not_hide_the_marker():
    data = compose("Body.", "DRAFT_COMPLETE").encode() + "\u00a0\n".encode()
    assert body_hash(data) == body_hash(compose("Body.", "DRAFT_COMPLETE").encode())  # whitespace, says the hash
    assert find_marker(data) is not None


# ---------------------------------------------------------------- neutralise


@settings(max_examples=500, deadline=None)
@given(text=MARKERISH)
@example(text="<!-- DRAFT_COMPLETE -->")
@example(text="<!--DRAFT_COMPLETE-->")
@example(text="<!--\nDRAFT_COMPLETE -->")
@example(text="<!-- <!-- X -->")
@example(text="text\n<!-- R1_CODE_REVIEW_COMPLETE body=3f9a0c1d2e4b inputs=a:1 run=x -->\n\n")
def test_neutralised_text_never_carries_a_marker(text):
    out = neutralise(text)
    assert find_marker(out.encode()) is None
    assert not looks_like_marker(out)
    assert neutralise(out) == out  # idempotent
    # and appending it to any body, then marking it, still yields exactly our marker
    mk = find_marker(compose(out, "DRAFT_COMPLETE").encode())
    assert mk is not None and mk.name == "DRAFT_COMPLETE"


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.characters(blacklist_characters="<", blacklist_categories=("Cs",)), max_size=200))
def test_neutralise_leaves_ordinary_text_alone(text):
    assert neutralise(text) == text


def test_neutralise_keeps_ordinary_html_comments():
    text = "<!-- a note for the reader -->\n<!-- TODO: later -->\n<!--Note-->"
    assert neutralise(text) == text
    assert looks_like_marker("<!-- DRAFT_COMPLETE -->")
    assert looks_like_marker("say <!--X--> here")
    assert not looks_like_marker("<!-- draft complete -->")
    assert neutralise("a <!-- DRAFT_COMPLETE --> b") == "a <!-- (quoted) DRAFT_COMPLETE --> b"


# ---------------------------------------------------------------- only the tail is read


def _count_preads(monkeypatch) -> list[int]:
    sizes: list[int] = []
    real = os.pread

    def counting(fd, n, offset):
        data = real(fd, n, offset)
        sizes.append(len(data))
        return data

    monkeypatch.setattr(markers.os, "pread", counting)
    return sizes


def _big_file(path: Path, size: int, last: bytes) -> Path:
    line = b"lorem ipsum dolor sit amet, consectetur adipiscing elit.\n"
    with open(path, "wb") as fh:
        fh.write(line * ((size - len(last)) // len(line)))
        fh.write(last)
    return path


def test_read_marker_reads_only_the_tail_of_a_5mb_file(tmp_path, monkeypatch):
    p = _big_file(tmp_path / "big.md", 5 * 1024 * 1024,
                  b"\n" + format_marker("DRAFT_COMPLETE", "0123456789ab", {"research": "0123456789ab"}, "r").encode()
                  + b"\n\n")
    assert p.stat().st_size > 5_000_000
    sizes = _count_preads(monkeypatch)
    mk = read_marker(p)
    assert mk.name == "DRAFT_COMPLETE" and mk.inputs == {"research": "0123456789ab"}
    assert sum(sizes) <= TAIL
    # the size can be passed in (from a stat the caller already made)
    sizes.clear()
    assert read_marker(p, p.stat().st_size) == mk
    assert sum(sizes) <= TAIL


def test_read_marker_on_5mb_without_marker_reads_only_the_tail(tmp_path, monkeypatch):
    p = _big_file(tmp_path / "big.md", 5 * 1024 * 1024, b"the end, but no marker\n")
    sizes = _count_preads(monkeypatch)
    assert read_marker(p) is None
    assert sum(sizes) <= TAIL


def test_read_marker_with_a_long_last_line_reads_a_bounded_tail(tmp_path, monkeypatch):
    inputs = {f"src:m{i:04d}.py": "0123456789ab" for i in range(500)}
    last = b"\n" + format_marker("R1_CODE_REVIEW_COMPLETE", None, inputs).encode() + b"\n"
    assert len(last) > 2 * TAIL
    p = _big_file(tmp_path / "big.md", 5 * 1024 * 1024, last)
    sizes = _count_preads(monkeypatch)
    mk = read_marker(p)
    assert mk.inputs == inputs
    assert max(sizes) <= 16 * TAIL and sum(sizes) < 32 * TAIL


def test_read_marker_missing_file_raises_oserror(tmp_path):
    with pytest.raises(OSError):
        read_marker(tmp_path / "nope.md")


def test_extra_attributes_round_trip():
    text = compose("A review.", "REVIEW_COMPLETE", {"r1": "0123456789ab"}, "run-1", extra={"verdict": "clean"})
    mk = both(text.encode())
    assert mk.extra == {"verdict": "clean"}
    assert mk.inputs == {"r1": "0123456789ab"} and mk.run == "run-1" and mk.body == short_hash("A review.")
    assert both(compose("x", "DRAFT_COMPLETE").encode()).extra == {}
