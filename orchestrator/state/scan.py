"""Files → state. Everything here is inferred from the file tree alone: no database, no log is needed to know where a book stands.

A step's status: missing, half_finished, done, edited; plus `stale` when an input it was
made from has changed since (its marker's `inputs` hashes differ from the inputs' current
hashes). What each step reads is declared once, in the step registry (`Step.reads`)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BookError
from ..steps import (
    BOOK_STEPS,
    DRAFT,
    FINAL,
    GATES_DIR,
    MEMORY,
    MEMORY_FILES,
    OUTLINE,
    R1,
    RESEARCH,
    STEPS,
    STYLE_GUIDE,
    chapter_sort_key,
    check_chapter_id,
    step_dirs,
)
from . import cited
from .hashcache import HashCache
from .markers import body_of, read_marker, short_hash
from .snapshot import DONE, Snapshot, StepState, status_word  # noqa: F401  (re-exported: what a scan finds)

if TYPE_CHECKING:  # the outline (and the source walk it imports) loads when a workspace has one
    from .. import outline as outline_mod

_STEP_DIRS = step_dirs()  # directory -> [(file-name regex, step key)]


def _dir_matchers() -> dict[str, tuple[re.Pattern[str], tuple[str, ...]]]:
    """Directory -> (one regex for all of its steps' file names, their step keys): a listing
    matches each name once, not once per step of the directory. Alternative i (in the order
    of _STEP_DIRS, so the same step wins) has group i + 1 for the chapter: `m.lastindex`."""
    out = {}
    for d, pats in _STEP_DIRS.items():
        alts = [rx.pattern.removeprefix("^").removesuffix("$") for rx, _key in pats]
        out[d] = (re.compile("^(?:" + "|".join(alts) + ")$"), tuple(key for _rx, key in pats))
    return out


_DIR_MATCH = _dir_matchers()
_STEP_DIR = {k: s.path.rpartition("/")[0] for k, s in STEPS.items()}  # step -> its directory

# R1's input for the evidence it asks of a chapter (a file written before it had none asked the default)
EVIDENCE, WAIVED = "evidence", "waived"
QUALITY = "quality"  # the audit's input: the hash of the book's quality figures

# A citation in a memory file (evidence.cite.CITE_RE's form), left out of what R2 reads of it
_CITATION_RE = re.compile(rb"\s*\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]\(source:[^)\s#]+#L\d+(?:-L?\d+)?\)")

# Recorded in a marker for provenance only (a person's instructions for a redo): never stale.
PROVENANCE = frozenset({"instructions"})

class Scanner:
    """Reads the tree, memoising what it has seen; `invalidate` after a write."""

    def __init__(self, root: str | os.PathLike[str], cache: HashCache | None = None, source_dir: Path | None = None,
                 config_hash: str | None = None):
        self.root = Path(root).resolve()
        self._prefix = str(self.root) + os.sep
        self.cache = cache or HashCache()
        self.source_dir = source_dir
        self.config_hash = config_hash  # what the style guide is made from (language, audience)
        self.site_hash: str | None = None  # what the pages show from book.yaml (title, language, audience)
        self.evidence_min: float | None = None  # the coverage R1 asks (book.yaml): an input of R1
        self._holds: dict[tuple, Any] = {}  # evidence_holds' memo (and cited.py's)
        self._files: object | None = None  # the source's lines, read once per invalidation of everything
        self.gates: str | None = None  # book.yaml's gates: a final gate decides which chapters are ready
        self.gate_grain: str | None = None  # book.yaml's gate_grain: a card per chapter, batch or phase
        self.quality_hash: Callable[[], str | None] | None = None  # the audit's `quality` input (state.quality_view)
        self._states: dict[str, StepState] = {}
        self._listed: set[str] = set()  # directories listed whole: a file not seen there is missing
        self._seen: set[str] = set()  # every file name seen in those directories
        self._outline: outline_mod.Outline | None = None
        self._outline_loaded = False
        self.outline_error: BookError | None = None
        self._templates_hash: str | None = None
        self._rels: dict[tuple[str, str], str] = {}  # (chapter, step) -> its file: formatted once
        self._chapters: list[str] | None = None  # chapters(), kept while only known chapters' files change
        self._plan_hashes: dict[str, tuple[outline_mod.Outline, str]] = {}  # "summaries"/"toc" -> (outline, hash)
        self._ready: tuple[str | None] | None = None  # the `ready` input, while no final and no outline changed
        self._rows: dict[str, dict[str, StepState]] = {}  # chapter -> its steps' states, until one is invalidated
        self._memory_hashes: dict[str, tuple[StepState, str | None, str | None]] = {}  # longmem_hash's memo
        self._partial_hashes: dict[str, tuple[str | None, str | None]] = {}  # _partial_hash's memo
        self.final_titles: dict[str, tuple[tuple, str | None]] = {}  # ready.ready_hash's memo: path -> (version, title)
        self.epochs: dict[str, int] = {}  # directory ("" for all) -> invalidations: memory.long_memory's cache key

    # ------------------------------------------------------------ files

    def invalidate(self, rel: str | None = None) -> None:
        d = "" if rel is None else rel.rpartition("/")[0]
        self.epochs[d] = self.epochs.get(d, 0) + 1
        if rel is None:
            self._files = None
            self._states.clear()
            self._listed.clear()
            self._seen.clear()
            self._outline_loaded = False
            self._chapters = None
            self._rows.clear()
            self._ready = None
            return
        self._states.pop(rel, None)
        self._seen.discard(rel)
        d, _, name = rel.rpartition("/")
        if d == GATES_DIR:
            self._ready = None  # a decision at the final gate changes which chapters are ready
        self._listed.discard(d)
        for rx, key in _STEP_DIRS.get(d, ()):
            if m := rx.match(name):
                self._rows.pop(m.group(1), None)
                if key == FINAL:
                    self._ready = None  # which chapters are ready, and their titles
                break
        if rel == BOOK_STEPS[OUTLINE].path:
            self._outline_loaded = False
            self._chapters = None
            self._ready = None
        elif self._chapters is not None and d in _STEP_DIRS:
            # a file of a chapter the outline does not name may add or remove that chapter;
            # the outline's own chapters are listed whatever their files
            o = self._outline if self._outline_loaded else None
            for rx, _key in _STEP_DIRS[d]:
                if (m := rx.match(name)) and (o is None or m.group(1) not in o.by_id):
                    self._chapters = None
                    break

    def file_state(self, rel: str, marker_name: str, st: os.stat_result | None = None) -> StepState:
        hit = self._states.get(rel)
        if hit is not None:
            return hit
        p = self._prefix + rel
        if st is None and rel not in self._seen and rel.rpartition("/")[0] in self._listed:
            state = self._states[rel] = StepState("missing", rel)
            return state
        try:
            st = st or os.stat(p)
        except OSError:
            state = StepState("missing", rel)
        else:
            state = self._read_state(rel, p, marker_name, st)
        self._states[rel] = state
        return state

    def _read_state(self, rel: str, p: str, marker_name: str, st: os.stat_result) -> StepState:
        """The state of a file that is there (`p`: its absolute path, `st`: its stat)."""
        try:
            mk = read_marker(p, st.st_size)
        except OSError:
            mk = None
        if mk is None or mk.name != marker_name:
            status = "half_finished"
            mk = None
        elif mk.extra.get("by") == "person" or mk.extra.get("person"):  # accepted, or a person's sections kept
            status = "edited"
        elif mk.body:
            hit = self.cache.rows.get(p)  # HashCache.body_hash's hit, inline: once per marked file of the tree
            now = hit[2] if hit and hit[0] == st.st_size and hit[1] == st.st_mtime_ns else self.cache.body_hash(p, st)
            status = "done" if mk.body == now else "edited"
        else:
            status = "done"
        return StepState(status, rel, mk, [], False, st.st_size, st.st_mtime, st.st_mtime_ns)

    def body_hash(self, rel: str) -> str | None:
        return self.cache.body_hash(self._prefix + rel)

    # ------------------------------------------------------------ the outline

    @property
    def outline(self) -> outline_mod.Outline | None:
        if not self._outline_loaded:
            self._outline_loaded = True
            self.outline_error = None
            if not os.path.exists(self._prefix + BOOK_STEPS[OUTLINE].path):
                self._outline = None  # what outline.load says of a workspace without one, without its import
                return None
            from .. import outline as outline_mod

            try:
                self._outline = outline_mod.load(self.root, self.source_dir)
            except BookError as e:
                self._outline, self.outline_error = None, e
        return self._outline

    @property
    def outline_broken(self) -> bool:
        """The outline exists but cannot be read (a person's edit to fix): what is stale cannot
        be told, and nothing runs until it reads, so nothing is called stale meanwhile."""
        return self.outline is None and self.outline_error is not None

    # ------------------------------------------------------------ steps and inputs

    def step(self, ch: str, key: str) -> StepState:
        s = STEPS[key]
        rel = self._rels.get((ch, key))
        if rel is None:
            rel = self._rels[(ch, key)] = s.file(ch)
        state = self.file_state(rel, s.marker)
        if state.marker is not None and state.marker.inputs and not state.checked:
            self._check_stale(ch, key, state)
        return state

    def _check_stale(self, ch: str, key: str, state: StepState) -> None:
        """state.stale: the inputs whose hashes differ from the marker's (a complete state with inputs)."""
        if not state.complete or self.outline_broken:
            return
        state.checked = True
        mk = state.marker
        assert mk is not None
        now = self.input_hashes(ch, key)
        state.stale = sorted(n for n in set(now) | set(mk.inputs)
                             if n not in PROVENANCE and now.get(n) != mk.inputs.get(n)
                             and not (n == "deps" and mk.inputs.get(n) == self._legacy_deps(ch))
                             and not (n == "longmem" and mk.inputs.get(n) == self.longmem_hash(ch, legacy=True))
                             and not (n == EVIDENCE and n not in mk.inputs and now[n] != WAIVED))
        if any(n.startswith("src:") for n in state.stale):  # a source that moved on: do the claims still hold?
            state.stale = [n for n in state.stale if not (n.startswith("src:") and self.evidence_holds(ch, n[4:]))]
        state.stale = cited.followed(self, ch, key, mk, state.stale)  # another chapter's file it cites (cited.py)

    def evidence_holds(self, ch: str, path: str) -> bool:
        """The chapter's recorded claims resting on source file `path` all hold in the tree as it
        is (evidence.follow): a change there is not one the chapter needs to be redone for.
        Memoised by the file's and the claims file's hashes."""
        if self.source_dir is None or self.evidence_min is None:
            return False
        from ..evidence.claims import claims_path

        key = (ch, path, self.input_hash(ch, "src:" + path), self.body_hash(claims_path(ch)))
        hit = self._holds.get(key)
        if hit is None:
            from ..evidence.follow import holds

            hit = self._holds[key] = holds(self.root, self.source_dir, ch, path, self._source_files())
        return hit

    def _source_files(self):
        from ..evidence.resolve import SourceFiles

        if self._files is None:
            assert self.source_dir is not None  # evidence_holds asks only with a source
            self._files = SourceFiles(self.source_dir)
        return self._files

    def row(self, ch: str) -> dict[str, StepState]:
        """Every step of a chapter (`step` for each), kept until one of its files is invalidated:
        a snapshot of a live run re-reads only the chapters whose files the run wrote."""
        r = self._rows.get(ch)
        if r is not None:
            return r
        # `step` for each key, inlined: a scan of a big book asks for every (chapter, step)
        check_chapter_id(ch)
        r = {}
        rels, states, seen, listed = self._rels, self._states, self._seen, self._listed
        for key, s in STEPS.items():
            rel = rels.get((ch, key))
            if rel is None:
                rel = rels[(ch, key)] = s.path.replace("{ch}", ch)
            state = states.get(rel)
            if state is None:
                if rel not in seen and _STEP_DIR[key] in listed:  # file_state's shortcut, without the call
                    state = states[rel] = StepState("missing", rel)
                else:
                    state = self.file_state(rel, s.marker)
            if state.marker is not None and state.marker.inputs and not state.checked:
                self._check_stale(ch, key, state)
            r[key] = state
        self._rows[ch] = r
        return r

    def _legacy_deps(self, ch: str) -> str | None:
        """The `deps` hash as files written before it left the titles out recorded it: such a
        file is not stale while those titles are unchanged (no redraft on upgrading)."""
        o = self.outline
        c = o.by_id.get(ch) if o else None
        if o is None or c is None:
            return None
        return short_hash(json.dumps([(d, o.by_id[d].title) for d in c.depends_on if d in o.by_id], ensure_ascii=False))

    def book_step(self, key: str) -> StepState:
        s = BOOK_STEPS[key]
        state = self.file_state(s.path, s.marker)
        if state.complete and state.marker and state.marker.inputs and not state.checked and s.reads \
                and not self.outline_broken:
            state.checked = True
            now = self.book_input_hashes(key)
            # an audit written before it measured the book's quality is not stale for that alone
            state.stale = sorted(n for n in set(now) | set(state.marker.inputs)
                                 if now.get(n) != state.marker.inputs.get(n)
                                 and not (n == QUALITY and n not in state.marker.inputs))
        return state

    def book_input_hashes(self, key: str) -> dict[str, str | None]:
        names: list[str] = []
        unread: set[str] = set()
        o = self.outline
        for r in BOOK_STEPS[key].reads:
            if r == "finals":
                names += [f"{FINAL}:{c.id}" for c in (o.chapters if o else ())]
                # the audit reads only complete finals (ready_chapters): one it did not read is
                # not its input, so the day it is complete (accepted, written) the audit is stale
                unread |= {f"{FINAL}:{c.id}" for c in (o.chapters if o else ()) if not self.step(c.id, FINAL).complete}
            else:
                names.append(r)
        return {n: None if n in unread else self.input_hash("", n) for n in names}

    def input_names(self, ch: str, key: str) -> list[str]:
        names: list[str] = [EVIDENCE] if key == R1 and self.evidence_min is not None else []
        for r in STEPS[key].reads:
            if r == "sources":
                o = self.outline
                c = o.by_id.get(ch) if o else None
                names += [f"src:{p}" for p in (c.sources if c else ())]
            else:
                names.append(r)
        return names

    def input_hashes(self, ch: str, key: str) -> dict[str, str | None]:
        return {n: self.input_hash(ch, n) for n in self.input_names(ch, key)}

    def input_hash(self, ch: str, name: str) -> str | None:
        if name in STEPS:
            return self.body_hash(STEPS[name].file(ch))
        step, _, other = name.partition(":")
        if other and step in STEPS:  # another chapter's file, e.g. final:ch03
            return self.body_hash(STEPS[step].file(other))
        if name.startswith("src:"):
            if self.source_dir is None:
                return None
            from ..repo.read import source_problem  # light: no tree-sitter, no walk

            if source_problem(self.source_dir, name[4:]) is not None:  # a link out, a FIFO, too big
                return None
            return self.cache.body_hash(str(self.source_dir / name[4:]))
        o = self.outline
        if name == OUTLINE:
            c = o.by_id.get(ch) if o else None
            return c.entry_hash if c else None
        if name == "style":
            return self.body_hash(BOOK_STEPS[STYLE_GUIDE].path)
        if name == "outline_file":
            return self.body_hash(BOOK_STEPS[OUTLINE].path)
        if name == "config":
            return self.config_hash
        if name == "glossary":
            return self.body_hash(MEMORY_FILES["glossary"])
        if name == "templates":
            return self.templates_hash()
        if name in ("summaries", "toc"):  # the whole plan's: once per outline, not once per step that reads it
            if o is None:
                return None
            hit = self._plan_hashes.get(name)
            if hit is None or hit[0] is not o:
                rows: list = [(c.id, c.title, c.summary) if name == "summaries" else (c.id, c.title) for c in o.chapters]
                if name == "toc" and o.parts:  # every page's contents shows the parts (none: the hash as before)
                    rows.append([(p.title, sorted(p.chapters, key=chapter_sort_key)) for p in o.parts])
                hit = self._plan_hashes[name] = (o, short_hash(json.dumps(rows, ensure_ascii=False)))
            return hit[1]
        if name == "deps":
            c = o.by_id.get(ch) if o else None
            if o is None or c is None:
                return None
            # which chapters, not their titles: a rename reaches the links at publish time
            return short_hash(json.dumps([d for d in c.depends_on if d in o.by_id], ensure_ascii=False))
        if name == EVIDENCE:  # the coverage R1 asks: book.yaml's, or none once a person accepted the draft
            d = self.step(ch, DRAFT)
            return WAIVED if d.marker is not None and d.marker.extra.get("by") == "person" else f"{self.evidence_min:g}"
        if name == "longmem":
            return self.longmem_hash(ch)
        if name == "site":
            return self.site_hash
        if name == "partial":  # what of the sources the research prompt could not carry: the page says it
            return self._partial_hash(ch)
        if name == QUALITY:  # the audit's figures (state.quality_view): read from their cache, never measured here
            return self.quality_hash() if self.quality_hash is not None else None
        if name == "ready":  # every page reads it: computed again only when a final or the outline changes
            if self._ready is None:
                from .ready import ready_hash

                self._ready = (ready_hash(self),)
            return self._ready[0]
        raise KeyError(f"unknown input {name!r}")

    def templates_hash(self) -> str:
        """The HTML templates in effect (a workspace's templates/ over the built-in ones)."""
        if self._templates_hash is None:
            from ..resources import search_path

            files: dict[str, str] = {}
            for d in reversed(search_path("templates", self.root)):
                for p in sorted(d.iterdir()):
                    if p.is_file():
                        files[p.name] = self.cache.body_hash(str(p)) or ""
            self._templates_hash = short_hash(json.dumps(sorted(files.items())))
        return self._templates_hash

    def longmem_hash(self, ch: str, legacy: bool = False) -> str | None:
        """The long memory the chapter may read, as R2 reads it: the memory files' words, their
        citations left out (a citation's lines are evidence, re-checked against the source by R1
        and the claims; a range that moved with the source is no change of a term, a summary or a
        link). `legacy`: the hash of the whole bodies, as R2's files written before recorded it."""
        o = self.outline
        if o is None or ch not in o.by_id:
            return None
        parts = []
        for v in o.visible(ch):
            st = self.step(v, MEMORY)
            if st.complete:
                # the hash of this very state: a state is replaced (re-stat) only when its file is
                # invalidated, so the visible chapters' memory costs no stat per question
                hit = self._memory_hashes.get(v)
                if hit is None or hit[0] is not st:
                    hit = self._memory_hashes[v] = (st, self.body_hash(st.path), self._words_hash(st.path))
                parts.append(f"{v}:{(hit[1] if legacy else hit[2]) or '-'}")
        return short_hash("\n".join(parts))

    def _partial_hash(self, ch: str) -> str | None:
        """The `partial` input of a chapter's page (state.partial_view), read again only when
        the research report changes."""
        from .partial_view import partial_hash

        rel = STEPS[RESEARCH].file(ch)
        body = self.body_hash(rel)
        hit = self._partial_hashes.get(ch)
        if hit is None or hit[0] != body:
            try:
                text = body_of(Path(self._prefix + rel).read_bytes()).decode("utf-8", "replace")
            except OSError:
                text = ""
            hit = self._partial_hashes[ch] = (body, partial_hash(text))
        return hit[1]

    def _words_hash(self, rel: str) -> str | None:
        try:
            data = Path(self._prefix + rel).read_bytes()
        except OSError:
            return None
        return short_hash(_CITATION_RE.sub(b"", body_of(data)))

    def chapters(self) -> list[str]:
        """Chapters of the outline, and any chapter that has files (a bare tree works too).
        Listed once, then kept: `invalidate` drops it when a write may change it (the outline,
        a file of a chapter the outline does not name), so a live run does not re-list the tree
        per step."""
        o = self.outline
        if self._chapters is not None:
            return list(self._chapters)
        found: set[str] = set()
        seen, states, rels = self._seen, self._states, self._rels
        for d, (rx, keys) in _DIR_MATCH.items():
            markers = [STEPS[k].marker for k in keys]
            prefix = f"{d}/"
            try:
                with os.scandir(self._prefix + d) as it:
                    for e in it:
                        rel = prefix + e.name
                        seen.add(rel)
                        m = rx.match(e.name)
                        if m is None:
                            continue
                        i = m.lastindex or 0
                        ch = m.group(i)
                        found.add(ch)
                        rels[(ch, keys[i - 1])] = rel
                        if rel not in states:
                            try:
                                st = e.stat()
                            except OSError:  # gone since the listing
                                states[rel] = StepState("missing", rel)
                                continue
                            states[rel] = self._read_state(rel, e.path, markers[i - 1], st)
            except OSError:
                continue
            self._listed.add(d)
        if o:
            found |= {c.id for c in o.chapters}
        self._chapters = sorted(found, key=chapter_sort_key)
        return list(self._chapters)


def snapshot(scanner: Scanner) -> Snapshot:
    chapters = scanner.chapters()
    rows = {ch: dict(scanner.row(ch)) for ch in chapters}
    book = {k: scanner.book_step(k) for k in BOOK_STEPS}
    mem = {k: (scanner.root / p).exists() for k, p in MEMORY_FILES.items()}
    return Snapshot(scanner.root, rows, book, mem, scanner.outline,
                    str(scanner.outline_error) if scanner.outline_error else None)
