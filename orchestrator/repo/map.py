"""The repository map: every file's FileMap, the reference graph, and what ranks highest.

``build_map`` parses each file once per content (through MapCache when given one); the
ranking is computed on first use and kept. ``render`` is the text the planner and the
researcher get: per file, its best symbols with signature and first doc line, best first,
within a character budget.

No tree_sitter at import time: parse.py reaches it only through languages.grammar().
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from . import commonjs
from .cache import MapCache, content_hash
from .parse import Definition, FileMap, parse_source
from .rank import (
    TARGET_KINDS,
    Graph,
    build_graph,
    definition_scores,
    is_local_module,
    local_module_names,
    pagerank,
)

FLUSH_EVERY = 200          # cache rows written per transaction during a long build
EXPORTED_BONUS = 1.5
ENTRY_POINT_BONUS = 1.3
API_BONUS = 2.0           # exported and named by an entry point (re-exported, `pub use`, index.ts)
CODE_START_WEIGHT = 0.25   # a random restart lands on a code file 4× less than on a test or entry
BASE_SHARE = 0.01          # of its file's rank, so unreferenced definitions still order by file


class RankedDef(NamedTuple):
    rel: str
    definition: Definition
    score: float


def build_map(files: Sequence[tuple[str, str | None, str]], *, read: Callable[[str], bytes | str],
              cache: MapCache | None = None, should_stop: Callable[[], bool] | None = None,
              package: str = "") -> RepoMap:
    """Map ``files`` given as (relative path, language or None, kind).

    ``read(rel)`` returns the file's content; a file it cannot read, decode or parse gets an
    empty FileMap with ``error`` set. Files whose language is None are classified (their kind
    is kept) but not parsed. ``should_stop`` is asked before each file; when it says stop,
    the map holds the files done so far and ``stats["stopped"]`` is 1.
    """
    maps: dict[str, FileMap] = {}
    kinds: dict[str, str] = {}
    stats: Counter[str] = Counter()
    project_names: set[str] = set()
    try:
        for rel, lang, kind in files:
            if should_stop is not None and should_stop():
                stats["stopped"] = 1
                break
            kinds[rel] = kind
            if lang is None:
                stats["unparsed"] += 1
                if posixpath.basename(rel) in _MANIFESTS and rel.count("/") <= 1:
                    project_names |= _project_names(rel, read)
                continue
            try:
                raw = read(rel)
            except Exception as exc:  # the walker's refusal, a vanished file, a permission error
                maps[rel] = FileMap(language=lang, error=f"could not read {rel}: {exc}")
                stats["errors"] += 1
                continue
            data = raw.encode("utf-8", "surrogateescape") if isinstance(raw, str) else raw
            sha = content_hash(data)
            fm = cache.get(sha, lang) if cache is not None else None
            if fm is None:
                fm = parse_source(data, lang)
                stats["parsed"] += 1
                if cache is not None:
                    cache.put(sha, lang, fm)
                    if stats["parsed"] % FLUSH_EVERY == 0:
                        cache.flush()
            else:
                stats["cached"] += 1
            if lang in ("javascript", "typescript", "tsx"):
                fm = commonjs.named_by_file(rel, fm)
            if fm.error:
                stats["errors"] += 1
            stats["lines"] += fm.lines
            maps[rel] = fm
    finally:
        if cache is not None:
            cache.flush()
    _set_aside_lexical(maps, kinds, stats)
    if package and "__init__.py" in kinds:  # the source is the package itself: `from starlette.requests import …`
        project_names.add(package)
    return RepoMap(files=maps, kinds=kinds, stats=dict(stats), project_names=project_names)


def _set_aside_lexical(maps: dict[str, FileMap], kinds: dict[str, str], stats: Counter[str]) -> None:
    """Files read by their lines (no grammar reads their language) are the subject only of a
    project no grammar reads at all: beside Python or Go code, a shell script or a Perl helper
    stays out of the map, as it always did, with the reason."""
    read = sorted({fm.language or "" for rel, fm in maps.items()
                   if not fm.lexical and not fm.error and fm.definitions and kinds.get(rel) == "code"})
    if not read:
        return
    for rel, fm in maps.items():
        if fm.lexical and not fm.error:
            maps[rel] = FileMap(language=fm.language, lines=fm.lines,
                                error=f"no grammar reads {fm.language}; the map reads this project's {', '.join(read)}")
            stats["errors"] += 1


_MANIFESTS = {"Cargo.toml": r'^name\s*=\s*"([^"]+)"', "package.json": r'^\s*"name"\s*:\s*"([^"]+)"',
              "pyproject.toml": r'^name\s*=\s*"([^"]+)"', "go.mod": r"^module\s+(\S+)"}


def _project_names(rel: str, read: Callable[[str], bytes | str]) -> set[str]:
    """The names the project's own tests import it by (`use anyhow::…`, `from 'ky'`), from its
    manifest: imports of those are local, not another project's."""
    try:
        raw = read(rel)
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    except Exception:
        return set()
    match = re.search(_MANIFESTS[posixpath.basename(rel)], text[:20_000], re.MULTILINE)
    if not match:
        return set()
    name = match.group(1).rsplit("/", 1)[-1] if "/" in match.group(1) and not match.group(1).startswith("@") \
        else match.group(1)
    return {name, name.replace("-", "_"), name.lstrip("@")}


@dataclass
class RepoMap:
    files: dict[str, FileMap]
    kinds: dict[str, str] = field(default_factory=dict)   # rel → code/test/example/doc/config/build
    stats: dict[str, int] = field(default_factory=dict)
    project_names: set[str] = field(default_factory=set)   # from Cargo.toml, package.json, …
    _graph: Graph | None = field(default=None, repr=False)
    _rank: dict[str, float] | None = field(default=None, repr=False)
    _defs: list[RankedDef] | None = field(default=None, repr=False)
    _files_graph: dict[str, dict[str, float]] | None = field(default=None, repr=False)  # file_graph(), once
    _lines: dict[int, str] = field(default_factory=dict, repr=False)  # id(definition) -> its rendered line
    _users: tuple | None = field(default=None, repr=False)  # users_of's reverse index (_reverse_index)
    _renders: dict[tuple, str] = field(default_factory=dict, repr=False)  # (budget, files) -> render's text

    # ------------------------------------------------------------------ ranking

    def _ensure_ranked(self) -> None:
        if self._defs is not None:
            return
        entries = set(self.entry_points())
        api_names = self._api_names(entries)
        graph = build_graph(self.files, self.kinds, local_modules=self.project_names, api_names=api_names)
        # The walk starts where a user of the code stands: tests, examples, entry points.
        personal = {rel: (1.0 if rel in entries or self.kinds.get(rel) in ("test", "example")
                          else CODE_START_WEIGHT)
                    for rel in self.files}
        rank = pagerank(self.files, graph.edges, personalization=personal)
        scores = definition_scores(graph, rank)
        ranked: list[RankedDef] = []
        for rel, fm in self.files.items():
            if self.kinds.get(rel) not in TARGET_KINDS:
                continue
            same_name = Counter(d.name for d in fm.definitions)
            for d in fm.definitions:
                score = scores.get((rel, d.name), 0.0) / same_name[d.name] + BASE_SHARE * rank.get(rel, 0.0)
                if d.exported:
                    score *= EXPORTED_BONUS
                if rel in entries:
                    score *= ENTRY_POINT_BONUS
                if d.exported and d.name in api_names:
                    score *= API_BONUS  # re-exported by the package's entry point: public API
                if d.kind == "impl":
                    score *= 0.5  # the type it implements carries the same name and ranks for it
                ranked.append(RankedDef(rel, d, score))
        ranked.sort(key=lambda r: (-r.score, r.rel, r.definition.start_line))
        self._graph, self._rank, self._defs = graph, rank, ranked

    def _api_names(self, entries: set[str]) -> set[str]:
        """Names a library's entry point (`__init__.py`, `index.ts`, `lib.rs`) imports or
        re-exports from the repository itself: its public API. Scripts (a `__main__` guard,
        `package main`) import what they use, which says nothing about the API."""
        local = local_module_names(self.files) | self.project_names
        names: set[str] = set()
        for rel in entries:
            fm = self.files[rel]
            if not fm.has_main:
                names.update(n for n, module in fm.imported.items() if is_local_module(module, local))
        return names

    def ranked_definitions(self, n: int | None = None, *, within: Iterable[str] | None = None,
                           kinds: Iterable[str] | None = None) -> list[RankedDef]:
        """Definitions of code files, best first; ``within`` limits the files, ``kinds`` the
        definition kinds ("class", "method", …)."""
        self._ensure_ranked()
        assert self._defs is not None
        files = set(within) if within is not None else None
        wanted = set(kinds) if kinds is not None else None
        out = [r for r in self._defs
               if (files is None or r.rel in files) and (wanted is None or r.definition.kind in wanted)]
        return out if n is None else out[:n]

    def file_rank(self) -> dict[str, float]:
        """Code files → their share of the rank (summing to 1), best first."""
        self._ensure_ranked()
        assert self._rank is not None
        code = {rel: r for rel, r in self._rank.items() if self.kinds.get(rel) in TARGET_KINDS}
        total = sum(code.values()) or 1.0
        return dict(sorted(((rel, r / total) for rel, r in code.items()), key=lambda x: (-x[1], x[0])))

    def file_graph(self) -> dict[str, dict[str, float]]:
        """Code file → {code file whose definitions it references: weight}. Built once (every
        researcher asks; the graph can hold every pair of files): read it, do not change it."""
        if self._files_graph is None:
            self._ensure_ranked()
            assert self._graph is not None
            self._files_graph = {
                src: {dst: w for dst, w in sorted(edges.items()) if self.kinds.get(dst) in TARGET_KINDS}
                for src, edges in sorted(self._graph.edges.items()) if self.kinds.get(src) in TARGET_KINDS}
        return self._files_graph

    # ------------------------------------------------------------------ questions

    def users_of(self, rel_or_qualname: str) -> list[str]:
        """Files (tests and examples included) that use a file or a definition, most first."""
        self._ensure_ranked()
        assert self._graph is not None
        weights: dict[str, float] = defaultdict(float)
        if self._users is None:  # the graph read backwards, once: each question is then O(its answer)
            self._users = _reverse_index(self)
        by_file, by_name, by_carried = self._users
        if rel_or_qualname in self.files:
            for src, w in by_file.get(rel_or_qualname, ()):
                if src != rel_or_qualname:
                    weights[src] += w
        else:
            # per user, the weights added in the homes' order (files, then definitions), as a scan would
            for rel, d in by_name.get(rel_or_qualname, ()):
                for src, w in by_carried.get((rel, d.name), ()):
                    if w > 0 and src != rel:
                        weights[src] += w
        return [rel for rel, _ in sorted(weights.items(), key=lambda x: (-x[1], x[0]))]

    def tests_for(self, rels: Iterable[str]) -> list[str]:
        """Test files that exercise ``rels``: named after one of them first, then by use."""
        targets = list(rels)
        tests = {rel for rel, kind in self.kinds.items() if kind == "test"}
        stems = {_stem(rel) for rel in targets}
        named = sorted(t for t in tests if _stem(t) in stems)
        weights: dict[str, float] = defaultdict(float)
        self._ensure_ranked()
        assert self._graph is not None
        for t in tests:
            edges = self._graph.edges.get(t, {})
            weights[t] = sum(edges.get(rel, 0.0) for rel in targets)
        used = [t for t, w in sorted(weights.items(), key=lambda x: (-x[1], x[0])) if w > 0 and t not in named]
        return named + used

    def entry_points(self) -> list[str]:
        """Where a reader starts: main packages, __main__, bin/, cmd/, index.ts, lib.rs, main.rs, cli."""
        found = []
        for rel, fm in sorted(self.files.items()):
            if self.kinds.get(rel, "code") != "code":
                continue
            base = posixpath.basename(rel)
            stem = base.rsplit(".", 1)[0]
            parts = rel.split("/")
            top = [p for p in parts[:-1] if p not in ("src", "lib", "source")]
            if (fm.has_main or base in ("__main__.py", "main.rs", "lib.rs")
                    or stem == "cli" or "bin" in parts[:-1] or "cmd" in parts[:-1]
                    or (stem in ("index", "main", "mod") and base.endswith((".ts", ".js", ".mjs", ".tsx"))
                        and len(top) <= 1)
                    or (base == "__init__.py" and len(top) == 1)):
                found.append(rel)
        return found

    # ------------------------------------------------------------------ rendering

    def render(self, budget_chars: int, *, within: Iterable[str] | None = None) -> str:
        """Per file, its best symbols (signature, first doc line), files by their best symbol,
        the whole within ``budget_chars``."""
        files = None if within is None else frozenset(within)
        key = (budget_chars, files)
        hit = self._renders.get(key)
        if hit is not None:  # the map does not change once built: the same question, the same text
            return hit
        chosen: dict[str, list[Definition]] = {}
        order: list[str] = []
        used = 0
        lines = self._lines  # every researcher renders the map of the files it uses: each line once
        self._ensure_ranked()
        assert self._defs is not None
        for rel, d, _score in self._defs:
            if budget_chars - used < _MIN_LINE_COST:
                break  # no line can fit any more: the rest of the ranking changes nothing
            if files is not None and rel not in files:
                continue
            line = lines.get(id(d))
            if line is None:
                line = lines[id(d)] = _render_line(d)
            # A line and its newline; a new file adds "rel:", its newline and a blank line.
            cost = len(line) + 1 + (0 if rel in chosen else len(rel) + 3)
            if used + cost > budget_chars:
                continue
            if rel not in chosen:
                chosen[rel] = []
                order.append(rel)
            chosen[rel].append(d)
            used += cost
        blocks = []
        for rel in order:
            block = [rel + ":"] + [lines[id(d)] for d in sorted(chosen[rel], key=lambda d: d.start_line)]
            blocks.append("\n".join(block))
        text = self._renders[key] = "\n\n".join(blocks)[:budget_chars]
        if len(self._renders) > 256:
            self._renders.pop(next(iter(self._renders)))
        return text


def _reverse_index(m: RepoMap) -> tuple[dict[str, list[tuple[str, float]]], dict[str, list[tuple[str, Definition]]],
                                         dict[tuple[str, str], list[tuple[str, float]]]]:
    """(file -> [(user, weight)], name or qualified name -> [(file, definition)] in file and
    definition order, (file, name) -> [(user, carried weight)]), every list in the graph's order."""
    assert m._graph is not None
    by_file: dict[str, list[tuple[str, float]]] = {}
    for src, edges in m._graph.edges.items():
        for dst, w in edges.items():
            by_file.setdefault(dst, []).append((src, w))
    by_name: dict[str, list[tuple[str, Definition]]] = {}
    for rel, fm in m.files.items():
        for d in fm.definitions:
            for key in {d.qualified_name, d.name}:
                by_name.setdefault(key, []).append((rel, d))
    by_carried: dict[tuple[str, str], list[tuple[str, float]]] = {}
    for src, carried in m._graph.carried.items():
        for dst_name, w in carried.items():
            by_carried.setdefault(dst_name, []).append((src, w))
    return by_file, by_name, by_carried


_SPACES = re.compile(r"\s+")
# the least a line costs in render: the 5-wide line number, a space (an empty signature), the newline
_MIN_LINE_COST = 7


def _render_line(d: Definition) -> str:
    sig = _SPACES.sub(" ", d.signature).replace("( ", "(").replace(" )", ")")
    if len(sig) > 160:
        sig = sig[:157] + "…"
    doc = d.doc_line
    if len(doc) > 100:
        doc = doc[:97] + "…"
    return f"{d.start_line:>5} {sig}" + (f"  # {doc}" if doc else "")


def _stem(rel: str) -> str:
    """`tests/test_app.py`, `app_test.go`, `app.spec.ts` → `app`."""
    base = posixpath.basename(rel).split(".", 1)[0]
    for affix in ("test_", "_test", "_spec", "tests_"):
        base = base.removeprefix(affix) if affix.endswith("_") else base.removesuffix(affix)
    return base
