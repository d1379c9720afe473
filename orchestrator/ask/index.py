"""The book as passages in an SQLite FTS5 index (BM25), kept in output/.book/ask-index.sqlite.

A passage is a prose block of a committed chapter (with the `## ` section that holds it and the
citations it carries), a glossary entry, or a definition of the repository map (its name, kind,
signature and doc line, cited at its own lines). The index records a hash of what it was built
from (the chapters' and glossary's file stamps, the book's revision, the source's commit); it is
rebuilt, into a temporary file put in place atomically, only when that hash changes, so asking a
book that has not changed costs a few stats and one query. FTS5 ships with Python's sqlite3: no
new dependency, and no network."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..evidence.cite import blocks
from ..evidence.revision import git_revision
from ..steps import FINAL, MEMORY_DIR, PUBLISH_DIR, STEPS
from ..text.markdown import slugify
from . import corpus

INDEX = "output/.book/ask-index.sqlite"
SCHEMA = 6
CODE_LINES = 150  # of a definition's lines, those searched
WINDOW = 30  # lines of source per window passage
MAX_PASSAGES = 200_000  # of the map and the windows: a huge tree's index stays a few hundred MB at most
SOURCE_MAP = f"{MEMORY_DIR}/source-map.md"
_MAP_ROW_RE = re.compile(r"^\|\s*`([^`]+)`\s*\|\s*(ch\d{2,})\b")
_WORD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+|[^\W\d_]+")
_CJK_RE = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_CAMEL_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
# words a question is made of that say nothing about the code
STOP = frozenset("""a an the and or of to in on at by for from with without into onto is are was were be been
being do does did doing how what which who whom whose where when why this that these those it its
there here can could should would will shall may might must i you we they he she me my our your
their as if then than so not no yes any some each every all both about after before over under
up down out off again once only own same such too very just also get got make made use used using
happen happens happened become becomes turned turn turns run runs code book chapter
如何 什么 哪里 哪个 哪些 怎么 怎样 为什 是否 这个 那个 一个 代码 本书 章节""".split())


KINDS = ("chapter", "glossary", "map", "source")


@dataclass(frozen=True)
class Passage:
    kind: str  # chapter | glossary | map | source (a window of a source file's lines)
    chapter: str  # the chapter it is in (or that explains its file); "" when none
    title: str  # the chapter's title
    section: str  # the `## ` heading ("" for a chapter's opening)
    slug: str  # that heading's anchor
    first: int  # lines of the chapter it spans (0 for glossary and map passages)
    last: int
    text: str
    cites: tuple[tuple[str, int, int], ...]  # (path, first, last) of the citations it carries
    score: float = 0.0
    name: str = ""  # a map definition's qualified name (searched with more weight than its text)
    code: str = ""  # a map definition's own lines (searched, with less weight; never shown)


    @property
    def link(self) -> str:
        """Where it is in the published site (relative to the workspace), or "" outside a chapter."""
        if not self.chapter:
            return ""
        return f"{PUBLISH_DIR}/{self.chapter}.html" + (f"#{self.slug}" if self.slug else "")


def split_words(text: str) -> list[str]:
    """The words of a text with identifiers split: `resolve_command` → resolve, command;
    `ClickException` → click, exception (and the whole, lowercased). A run of CJK characters,
    which has no spaces between its words, gives its overlapping pairs (内存表 → 内存, 存表): the
    same pairs from the question and from the book meet whatever the words' edges."""
    out = []
    for w in _WORD_RE.findall(text):
        if _CJK_RE.search(w):
            out += [w[i:i + 2] for i in range(len(w) - 1)] or [w]
            continue
        parts = [p for chunk in w.split("_") for p in _CAMEL_RE.findall(chunk)] or [w]
        out += [p.lower() for p in parts]
        if len(parts) > 1:
            out.append(w.lower().replace("_", ""))
    return out


def _stamp(p: Path) -> str:
    try:
        st = p.stat()
    except OSError:
        return "-"
    return f"{st.st_size}:{st.st_mtime_ns}"


def inputs_hash(root: Path, source: Path | None) -> str:
    """What the index is built from, as stamps: cheap enough to take on every question."""
    parts = [f"schema={SCHEMA}"]
    for ch in corpus.chapter_ids(root):
        for rel in (STEPS[FINAL].path.format(ch=ch), f"{PUBLISH_DIR}/{ch}.md"):
            parts.append(f"{rel}={_stamp(root / rel)}")
    for rel in (corpus.GLOSSARY, SOURCE_MAP):
        parts.append(f"{rel}={_stamp(root / rel)}")
    rev = corpus.recorded_revision(root)
    parts.append(f"revision={rev.id if rev else '-'}")
    now = git_revision(source) if source is not None and source.is_dir() else None
    parts.append(f"head={now.id if now else '-'}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def _chapter_passages(c: corpus.Chapter) -> list[Passage]:
    out = []
    for b in blocks(c.text):
        if b.first == 1 and b.text.startswith("# "):
            continue
        cites = tuple(dict.fromkeys((x.path, x.first, x.last) for x in b.cites))
        out.append(Passage("chapter", c.id, c.title, b.section, slugify(b.section) if b.section else "",
                           b.first, b.last, b.text, cites))
    return out


def file_chapters(root: Path) -> dict[str, str]:
    """source file → the chapter that explains it (the source map's table)."""
    try:
        text = (root / SOURCE_MAP).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    return {m.group(1): m.group(2) for ln in text.splitlines() if (m := _MAP_ROW_RE.match(ln))}


def _map_passages(source: Path, owners: dict[str, str], titles: dict[str, str]) -> list[Passage]:
    from ..authoring.project import load  # tree-sitter: only when the index is built

    proj = load(source)
    out = []
    for rel in proj.code_files():
        ch = owners.get(rel, "")
        lines = proj.lines_of(rel)
        for d in proj.map.files[rel].definitions:
            sig = " ".join(d.signature.split())
            sig = f": `{sig}`" if sig else ""
            doc = f" — {d.doc_line}" if d.doc_line else ""
            text = f"{d.kind} `{d.qualified_name}` in `{rel}` (lines {d.start_line}–{d.end_line}){sig}{doc}"
            out.append(Passage("map", ch, titles.get(ch, ""), "", "", 0, 0, text, ((rel, d.start_line, d.end_line),),
                               name=d.qualified_name,
                               code="\n".join(lines[d.start_line - 1:min(d.end_line, d.start_line + CODE_LINES)])))
        # the code itself, a window at a time: what the map has no definition for (an object
        # literal's getters in JavaScript, a script's top level) is still found, and cited
        for a in range(0, len(lines), WINDOW):
            if len(out) >= MAX_PASSAGES:
                break
            z = min(a + WINDOW, len(lines))
            if any(ln.strip() for ln in lines[a:z]):
                out.append(Passage("source", ch, titles.get(ch, ""), "", "", 0, 0, f"`{rel}` lines {a + 1}–{z}",
                                   ((rel, a + 1, z),), code="\n".join(lines[a:z])))
    return out


def build(root: Path, source: Path | None, with_map: bool, progress: Callable[[str], None] | None = None,
          dest: Path | None = None) -> Path:
    """Build the index afresh (a temporary file, then os.replace): readers never see half of it."""
    key = inputs_hash(root, source)
    chs = corpus.chapters(root)
    titles = {c.id: c.title for c in chs}
    passages = [p for c in chs for p in _chapter_passages(c)]
    terms, _ = corpus.glossary(root)
    passages += [Passage("glossary", t.chapter, titles.get(t.chapter, ""), "Glossary", "", 0, 0,
                         f"**{t.term}**: {t.text}", ()) for t in terms]
    if with_map and source is not None and source.is_dir():
        if progress:
            progress(f"mapping {source} for the index")
        passages += _map_passages(source, file_chapters(root), titles)
    dest = dest or root / INDEX
    dest.parent.mkdir(parents=True, exist_ok=True)
    _sweep(dest.parent)
    fd, tmp = tempfile.mkstemp(prefix=".ask-index.", suffix=".tmp", dir=dest.parent)
    os.close(fd)
    try:
        db = sqlite3.connect(tmp)
        try:
            db.executescript("""
                create table meta(key text primary key, value text);
                create table passages(id integer primary key, kind, chapter, title, section, slug, first, last,
                                      text, cites);
                create virtual table fts using fts5(name, section, text, terms, code, tokenize='porter unicode61');
            """)
            for i, p in enumerate(passages, 1):
                db.execute("insert into passages values (?,?,?,?,?,?,?,?,?,?)",
                           (i, p.kind, p.chapter, p.title, p.section, p.slug, p.first, p.last, p.text,
                            json.dumps(p.cites)))
                db.execute("insert into fts(rowid, name, section, text, terms, code) values (?,?,?,?,?,?)",
                           (i, " ".join(split_words(p.name)), p.section, p.text, " ".join(split_words(p.text)),
                            " ".join(split_words(p.code))))
            db.executemany("insert into meta values (?,?)",
                           [("inputs", key), ("passages", str(len(passages))), ("chapters", str(len(chs)))])
            db.commit()
        finally:
            db.close()
        os.replace(tmp, dest)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return dest


def _sweep(d: Path, older_than: float = 600.0) -> None:
    """Temporary index files a killed build left behind (a live build's is younger)."""
    import time

    for p in d.glob(".ask-index.*.tmp"):
        try:
            if time.time() - p.stat().st_mtime > older_than:
                p.unlink()
        except OSError:
            pass


def _meta(path: Path) -> dict[str, str]:
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return dict(db.execute("select key, value from meta").fetchall())
        finally:
            db.close()
    except sqlite3.Error:
        return {}


def ensure(root: Path, source: Path | None, with_map: bool = True,
           progress: Callable[[str], None] | None = None) -> tuple[Path, bool]:
    """(the index, whether it was rebuilt now): built when missing or when its inputs changed. A
    book on a read-only file system (a mounted copy served by `book mcp`) keeps its index in the
    temporary directory instead, one per book."""
    key = inputs_hash(root, source)
    spare = Path(tempfile.gettempdir()) / f"book-ask-{hashlib.sha256(str(root).encode()).hexdigest()[:12]}.sqlite"
    for path in (root / INDEX, spare):
        if path.is_file() and _meta(path).get("inputs") == key:
            return path, False
    try:
        return build(root, source, with_map, progress), True
    except OSError as e:
        if progress:
            progress(f"cannot write {INDEX} ({e.strerror}); the index goes to {spare}")
        return build(root, source, with_map, progress, dest=spare), True


def query_words(question: str) -> list[str]:
    """The question's informative words, split and lowercased, each once."""
    return [w for w in dict.fromkeys(split_words(question)) if w not in STOP and len(w) > 1]


def match_query(question: str) -> str:
    """An FTS5 query from a question: its informative words, any of which may match."""
    return " OR ".join(f'"{w}"' for w in query_words(question))


def search(path: Path, question: str, limit: int = 8, kinds: tuple[str, ...] = ()) -> list[Passage]:
    """The passages that best match the question, best first (BM25; a definition's name and a
    section's heading weigh more than the text). The chapter's title is not searched: it would lift
    every passage of a chapter whose title shares a word with the question."""
    q = match_query(question)
    if not q:
        return []
    where = f" and p.kind in ({','.join('?' * len(kinds))})" if kinds else ""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "select p.kind, p.chapter, p.title, p.section, p.slug, p.first, p.last, p.text, p.cites, "
            "bm25(fts, 3.0, 1.5, 1.0, 1.0, 0.5) as s from fts join passages p on p.id = fts.rowid "
            f"where fts match ?{where} order by s limit ?", (q, *kinds, limit)).fetchall()
    finally:
        db.close()
    return [Passage(k, ch, t, sec, slug, a, z, text, tuple(tuple(c) for c in json.loads(cites)), -s)
            for k, ch, t, sec, slug, a, z, text, cites, s in rows]
