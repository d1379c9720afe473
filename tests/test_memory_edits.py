"""A person's edits of a chapter's memory file: a prose line in its Glossary is read as an entry
when it is one and reported (file, line) when it is not, never dropped unseen; a memory file that
cannot be read fails only the steps that read it, naming the file, and the rest of the book goes on."""

from __future__ import annotations

from pathlib import Path

from orchestrator.contracts.parse import parse_memory
from orchestrator.steps import STEPS

MEMORY = """# Memory: ch02 — The cache

## Summary

How the cache keeps answers.

## Glossary

Terms this chapter defines:

- **LRU**: least recently used.

Hit ratio: the share of lookups the cache answers.

Remember to check this later

## Metaphors

(none)

## Cross references

(none)
"""


def test_a_prose_line_in_the_glossary_is_kept_or_reported():
    p = parse_memory(MEMORY, file="output/memory/chapters/ch02.md")
    assert [(t.term, t.definition) for t in p.update.terms] == [
        ("LRU", "least recently used."), ("Hit ratio", "the share of lookups the cache answers.")]
    assert len(p.warnings) == 2
    assert p.warnings[0].startswith("output/memory/chapters/ch02.md:9: the line 'Terms this chapter defines:'")
    assert p.warnings[1].startswith("output/memory/chapters/ch02.md:15: the line 'Remember to check this later'")
    assert "- **term**: definition" in p.warnings[1]
    # a placeholder is not prose
    assert not parse_memory(MEMORY.replace("Terms this chapter defines:\n\n", "").replace(
        "Remember to check this later\n\n", ""), file="m.md").warnings


def _edit_body(path: Path, new_body: bytes) -> None:
    """Replace a file's body, keeping its marker: a person's edit."""
    data = path.read_bytes()
    _, marker = data.rsplit(b"<!--", 1)
    path.write_bytes(new_body.rstrip() + b"\n\n<!--" + marker)


def test_an_unreadable_memory_file_fails_only_what_reads_it(built_ws: Path, capsys):
    from orchestrator.state.book import Book
    from orchestrator.testing.helpers import run_book

    book = Book.open(built_ws)
    try:
        o = book.scanner.outline
        assert o is not None
        chapters = [c.id for c in o.chapters]
        readers = {c for c in chapters if "ch02" in o.visible(c) and c != "ch02"}
        others = [c for c in chapters if c not in readers]
    finally:
        book.close()
    assert readers and others
    # a malformed edit, a heading misspelt: the file cannot be read (a file that is not UTF-8
    # at all stops the whole run before it starts, naming its line: tests/test_hand_edits.py)
    _edit_body(built_ws / STEPS["memory"].file("ch02"),
               b"# Memory: ch02\n\n## Summary\n\nS.\n\n## Glxossary\n\n- **x**: y\n")
    # a prose line in another chapter's glossary: reported, and the run goes on
    path = built_ws / STEPS["memory"].file("ch01")
    body = path.read_bytes().rsplit(b"<!--", 1)[0].replace(b"## Metaphors", b"just a note\n\n## Metaphors")
    _edit_body(path, body)
    code, _ = run_book(built_ws)
    err = capsys.readouterr().err
    assert code == 3  # stopped for a person, not crashed
    assert "output/memory/chapters/ch02.md:" in err and "unknown section" in err
    assert "output/memory/chapters/ch01.md:" in err and "'just a note'" in err
    import re

    needs = (built_ws / "output/memory/needs-human.md").read_text()
    failed = set(re.findall(r"(?m)^- (ch\d+):", needs))
    assert failed and failed <= readers, (failed, readers)  # only chapters that read ch02's memory
    assert "output/memory/chapters/ch02.md" in needs  # and each says which file and what is wrong
    assert "fix output/memory/chapters/ch02.md, then `book run`" in needs  # the fix is that file,
    assert "book accept" not in needs  # not writing the failed step's own file by hand
    for c in others:  # what does not read ch02's memory is complete
        assert (built_ws / STEPS["final"].file(c)).is_file()
    assert (built_ws / "output/publish/index.html").is_file()
    glossary = (built_ws / "output/memory/glossary.md").read_text()
    assert "(ch01)" in glossary  # the aggregates were made without the unreadable file


def test_a_prose_lead_in_with_a_colon_is_not_a_term():
    text = MEMORY.replace("Remember to check this later", "Note: the cache is cleared on restart.\n\n"
                          "See: chapter three for the eviction.\n\n`Cache.get`: returns the stored answer.\n\n"
                          "The cache is refreshed on every request, then: it is cleared.\n\n注意：缓存会在重启时清空。")
    p = parse_memory(text, file="m.md")
    assert [t.term for t in p.update.terms] == ["LRU", "Hit ratio", "`Cache.get`"]
    left = " ".join(p.warnings)
    for lead in ("'Note: the cache", "'See: chapter three", "'The cache is refreshed", "'注意：缓存"):
        assert lead in left


def test_reads_as_term():
    from orchestrator.contracts.lists import reads_as_term

    for t in ("Hit ratio", "Mux.Use", "anyhow!", "`with_context`", "url_for()", "Error::msg", "请求上下文"):
        assert reads_as_term(t), t
    for t in ("Note", "TODO", "Example", "see also", "注意", "The cache is refreshed on every request, then"):
        assert not reads_as_term(t), t
