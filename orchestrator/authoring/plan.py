"""The offline planner: chapters are cohesive groups of code files, read from the repository map.

Files are grouped bottom-up: each file starts alone (a large directory tree starts as its
directories), then the pair of groups that references each other most, relative to their
size, and that live close in the tree (same directory first) is merged, until the book has
as many chapters as its size warrants. Tests and examples never become chapters: they are
the researcher's evidence. The chapters are then ordered so that a chapter comes after the
chapters it references (its real dependencies, from the map's file graph), and chapters that
do not depend on each other share a batch."""

from __future__ import annotations

import heapq
import math
import posixpath
import re
from collections import Counter, defaultdict
from dataclasses import dataclass

from . import roles as roles_mod
from .project import Project, Sym

LINES_PER_CHAPTER = 600  # a chapter's share of the code when the book may have as many as it likes
MIN_LINES_PER_CHAPTER = 100  # below this, modules share a chapter
DEP_SHARE = 0.08  # a reference is a dependency when it is at least this share of the chapter's references
MAX_DEPS = 3
MAX_UNITS = 400  # the pairwise merging keeps a score per pair: a wider start is coarsened first
TITLE_KINDS = ("class", "struct", "interface", "trait", "enum", "type", "macro")
PLAIN_KINDS = ("function", "method", "constant")


@dataclass
class Group:
    files: list[str]
    lines: int
    defs: int


def dep_graph(p: Project) -> dict[str, dict[str, float]]:
    """Code file -> {code file: weight}: the top-level names (types, functions, constants, macros)
    a file uses that another file defines. Methods are left out: `fh.close()` does not make a file
    depend on every class with a `close` method. A name defined in k files counts 1/k for each of
    those the file can reach (Project.reaches: in Go, another package's name only with its qualifier)."""
    if p._deps is not None:
        return p._deps
    files = p.code_files()
    homes: dict[str, list[str]] = defaultdict(list)
    for f in files:
        for d in p.map.files[f].definitions:
            q = d.qualified_name
            # a Ruby class lives inside its gem's module (`Faraday::Connection`): still a name other files use
            nested_type = p.lang(f) == "ruby" and d.kind in ("class", "struct", "interface", "enum")
            if ("." not in q and "::" not in q or nested_type) and d.kind not in ("method", "impl", "module") and len(d.name) > 2:
                if f not in homes[d.name]:
                    homes[d.name].append(f)
    out: dict[str, dict[str, float]] = {}
    for f in files:
        own = {d.name for d in p.map.files[f].definitions}
        edges: dict[str, float] = defaultdict(float)
        refs = dict(p.map.files[f].references)
        if p.lang(f) == "go":  # the map keeps `middleware` of `middleware.New`: the name is the reference
            for _q, name in p.go_qualified(f):
                refs[name] = refs.get(name, 0) + 1
        for name, count in refs.items():
            where = homes.get(name)
            if not where or name in own:
                continue
            where = [g for g in where if g != f and p.reaches(f, g, name)]  # Go: another package's name needs its qualifier
            for g in where:
                edges[g] += min(count, 5) / len(where)
        out[f] = dict(edges)
    p._deps = out
    return out


def group_files(p: Project, max_chapters: int) -> list[list[str]]:
    """The chapters' files (group_files_of), generated code and locale tables sized out of the plan and
    each left a group of its own for fold_peripheral to give to the chapter it serves: validator's twenty
    translation files, each a single-file group, took eleven of twelve chapters and left its 27,000 lines
    of core one."""
    every = p.code_files()
    core = [f for f in every if not peripheral(p, f)] or every
    kept = set(core)
    return group_files_of(p, core, max_chapters) + [[f] for f in every if f not in kept]


def group_files_of(p: Project, files: list[str], max_chapters: int) -> list[list[str]]:
    """Those files in chapters. Linear in the tree but for the pairwise merging, which starts from at
    most MAX_UNITS units (a wider start is coarsened first: _coarsen), so a directory of 20,000
    files (the walk's bound) plans in seconds and bounded memory."""
    fg = dep_graph(p)
    total = sum(max(p.size(f), 1) for f in files) or 1
    ndefs = {f: sum(1 for d in p.map.files[f].definitions if d.kind not in ("variable", "impl", "module"))
             for f in files}  # what a chapter could explain: a file of variables alone joins a neighbour
    explainable = sum(1 for f in files if ndefs[f])
    target = math.ceil(total / LINES_PER_CHAPTER)
    if explainable <= max_chapters:  # a small project of real modules: a chapter per module reads best
        target = max(target, min(explainable, math.ceil(total / MIN_LINES_PER_CHAPTER)))
    target = max(1, min(max_chapters, target, explainable))
    avg = total / target
    # A huge tree starts from its directories (a big directory from its files): the merging is quadratic.
    if len(files) > 6 * target:
        by_dir: dict[str, list[str]] = defaultdict(list)
        for f in files:
            by_dir[posixpath.dirname(f)].append(f)
        units = []
        for _, fs in sorted(by_dir.items()):
            if sum(p.size(f) for f in fs) > 2 * avg:
                units += [[f] for f in fs]
            else:
                units.append(fs)
    else:
        units = [[f] for f in files]
    out_total = {f: sum(fg.get(f, {}).values()) or 1.0 for f in files}
    if len(units) > MAX_UNITS:
        units = _coarsen(p, units, fg, out_total, total)
    groups = {k: Group(sorted(u), sum(p.size(f) for f in u), sum(ndefs[f] for f in u)) for k, u in enumerate(units)}
    # conn[a][b]: the references between two groups, each file's relative to all it makes; kept per
    # group and summed on a merge, so a pair's score costs O(1) whatever the groups' sizes
    unit_of = {f: k for k, u in enumerate(units) for f in u}
    conn: dict[int, dict[int, float]] = {k: defaultdict(float) for k in groups}
    for f in files:
        for g, w in fg.get(f, {}).items():
            u, v = unit_of[f], unit_of.get(g)
            if v is not None and u != v:
                conn[u][v] += w / out_total[f]
                conn[v][u] += w / out_total[f]
    dirs = {k: {posixpath.dirname(f) for f in g.files} for k, g in groups.items()}

    def closeness(a: int, b: int) -> float:
        da, db = dirs[a], dirs[b]
        if da & db:
            return 1.0
        if any(x.startswith(y + "/") or y.startswith(x + "/") or not x or not y for x in da for y in db):
            return 0.02  # a package and its sub-package: related, but each is a chapter of its own first
        if {posixpath.dirname(x) for x in da} & {posixpath.dirname(y) for y in db}:
            return 0.012
        return 0.004

    def score(i: int, j: int, strict: bool) -> float:
        a, b = groups[i], groups[j]
        if not a.defs or not b.defs:  # a file with nothing to explain joins its neighbour first
            return 100.0 * closeness(i, j)
        near = closeness(i, j)
        if strict and near < 1.0 and min(a.lines, b.lines) > 0.2 * avg:
            return 0.0  # another directory is another chapter while the book has room for it
        size = (a.lines + b.lines) / avg
        if strict and size > 1.6 and a.lines > 0.3 * avg and b.lines > 0.3 * avg:
            return 0.0  # two substantial groups that would make a chapter too long to read
        return (conn[i].get(j, 0.0) + 0.05) * near / max(size, 0.15)

    serial = len(groups)
    for strict, goal in ((True, target), (False, max(1, max_chapters))):
        # every pair's score once (a pair's score never changes while both live), best first; a tie
        # goes to the older pair, as a scan of the groups in the order they were made would choose
        ids = sorted(groups)
        heap = [(-score(a, b, strict), a, b) for n, a in enumerate(ids) for b in ids[n + 1:]]
        heapq.heapify(heap)
        empty = sum(1 for g in groups.values() if not g.defs)
        while heap and (len(groups) > goal or empty and len(groups) > 1):
            neg, i, j = heapq.heappop(heap)
            if i not in groups or j not in groups:
                continue  # a pair of which one side was merged since
            if neg >= 0 and not empty:
                break  # every remaining merge would make a chapter too large, or mix directories
            ga, gb = groups.pop(i), groups.pop(j)
            empty -= (not ga.defs) + (not gb.defs)
            c, serial = serial, serial + 1
            groups[c] = Group(sorted(ga.files + gb.files), ga.lines + gb.lines, ga.defs + gb.defs)
            empty += not groups[c].defs
            dirs[c] = dirs.pop(i) | dirs.pop(j)
            merged: dict[int, float] = defaultdict(float)
            for old in (conn.pop(i), conn.pop(j)):
                for x, w in old.items():
                    if x not in (i, j):
                        merged[x] += w
            conn[c] = merged
            for x, w in merged.items():
                conn[x].pop(i, None)
                conn[x].pop(j, None)
                conn[x][c] = w
            for x in groups:
                if x != c:
                    heapq.heappush(heap, (-score(x, c, strict), x, c))
    return [groups[k].files for k in sorted(groups)]


def _coarsen(p: Project, units: list[list[str]], fg: dict[str, dict[str, float]], out_total: dict[str, float],
             total: int) -> list[list[str]]:
    """At most MAX_UNITS units from many, in time linear in the files and references: first the
    files of one directory that reference each other most are joined (strongest reference first,
    up to a unit's share of the code), then neighbours in path order are packed together. Every
    file stays in exactly one unit."""
    cap = 2 * total / (MAX_UNITS - 1)  # two neighbours always exceed it: at most MAX_UNITS units left
    parent = list(range(len(units)))
    lines = [sum(max(p.size(f), 1) for f in u) for u in units]
    one_dir = [len({posixpath.dirname(f) for f in u}) == 1 for u in units]
    unit_of = {f: k for k, u in enumerate(units) for f in u}

    def find(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    pairs: dict[tuple[int, int], float] = defaultdict(float)
    for f, edges in fg.items():
        a = unit_of.get(f)
        for g, w in edges.items():
            b = unit_of.get(g)
            if a is not None and b is not None and a != b and one_dir[a] and one_dir[b] \
                    and posixpath.dirname(f) == posixpath.dirname(g):
                pairs[(min(a, b), max(a, b))] += w / out_total[f]
    for (a, b), _w in sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0])):
        ra, rb = find(a), find(b)
        if ra != rb and lines[ra] + lines[rb] <= cap:
            parent[rb] = ra
            lines[ra] += lines[rb]
    joined: dict[int, list[str]] = defaultdict(list)
    for k, u in enumerate(units):
        joined[find(k)] += u
    out: list[list[str]] = []
    size = 0.0
    for u in sorted((sorted(fs) for fs in joined.values()), key=lambda fs: fs[0]):
        n = sum(max(p.size(f), 1) for f in u)
        if out and size + n <= cap:
            out[-1] += u
            size += n
        else:
            out.append(list(u))
            size = n
    return out


_PERIPHERAL = re.compile(r"(?i)(?:^|/|_)(?:\w*completions?\w*|locales?|i18n|l10n|translations?|lang|languages|zz_generated\w*)"
                         r"(?:/|\.\w+$)|_pb2\.py$|\.pb\.go$|_generated\.\w+$|\.gen\.\w+$"
                         # the maintainers' tooling: scripts, benchmarks, fuzzers (send's scripts/version-history.js,
                         # jsonpickle's benchmarking/ and jsonpickle_benchmarks.py, markdown2's perf/ and sandbox/)
                         r"|^(?:scripts?|tools|fuzz(?:ing)?|bench(?:es|marks?|marking)?|perf|sandbox|buildSrc|xtask)/|^[^/]*_bench(?:marks?)?\.\w+$"
                         # a code generator the maintainers run (markdown-rs's generate/, testify's _codegen/)
                         r"|^_?(?:codegen|generate|generator)/"
                         # a packager's hook (lark's `__pyinstaller/hook-lark.py`)
                         r"|(?:^|/)__pyinstaller/|(?:^|/)hook-[\w.-]+\.py$"
                         # a sub-project of examples (picocli-examples/): uses of the project, not its code
                         r"|^[\w.-]+[-_]examples?/")
_GENERATED = re.compile(r"(?i)code generated .* do not edit|@generated|auto-?generated")


def peripheral(p: Project, rel: str) -> bool:
    """Generated code, shell-completion scripts, locale tables, the maintainers' scripts, benchmarks and
    build logic, a sub-project of examples: what a book covers in a section of the chapter they serve, never in chapters of their own (issue 35)."""
    return bool(_PERIPHERAL.search(rel)) or any(_GENERATED.search(ln) for ln in p.lines_of(rel)[:5])


def fold_peripheral(p: Project, groups: list[list[str]]) -> list[list[str]]:
    """The groups with those made only of peripheral files folded into the group they reference
    most (cobra's five completion generators join `completions.go`'s chapter; a schema library's
    locale tables join its messages): a section there, not chapters."""
    side = [i for i, g in enumerate(groups) if g and all(peripheral(p, f) for f in g)]
    if not side or len(side) == len(groups):
        return groups
    gg = group_graph(p, groups)
    main = [i for i in range(len(groups)) if i not in side]
    into: dict[int, int] = {}
    for i in side:
        into[i] = max(main, key=lambda j: (gg.get(i, {}).get(j, 0.0) + gg.get(j, {}).get(i, 0.0),
                                           sum(1 for f in groups[j] if peripheral(p, f)), -j))
    out = {j: list(groups[j]) for j in main}
    for i, j in into.items():
        out[j] = sorted(out[j] + groups[i])
    return [out[j] for j in main]


def group_graph(p: Project, groups: list[list[str]]) -> dict[int, dict[int, float]]:
    fg = dep_graph(p)
    where = {f: i for i, g in enumerate(groups) for f in g}
    out: dict[int, dict[int, float]] = defaultdict(lambda: defaultdict(float))
    for src, edges in fg.items():
        a = where.get(src)
        if a is None or not any(d.kind not in ("variable", "impl", "module") for d in p.map.files[src].definitions):
            continue  # a file that only re-exports (`__init__.py`, `index.ts`) depends on nothing itself
        for dst, w in edges.items():
            b = where.get(dst)
            if b is not None and b != a:
                out[a][b] += w
    return out


def order_groups(p: Project, groups: list[list[str]]) -> tuple[list[int], dict[int, list[int]]]:
    """(reading order, each group's real dependencies): the book opens with what a newcomer meets
    first (entry.entry_scores: the names the README's code writes, the root file), and a group
    comes after the groups it references, except internals no user meets (they come later, when
    the public chapters have shown what they serve); a cycle is broken at the group the others
    lean on most."""
    from .entry import entry_scores

    gg = group_graph(p, groups)
    deps: dict[int, list[int]] = {}
    for a in range(len(groups)):
        edges = gg.get(a, {})
        total = sum(edges.values()) or 1.0
        deps[a] = sorted((b for b, w in edges.items() if w / total >= DEP_SHARE), key=lambda b: (-edges[b], b))
    rank = p.map.file_rank()
    entry = entry_scores(p, groups)
    public = {i for i, e in enumerate(entry) if e > 0}
    if not public:  # no README code and no root file: the dependency order alone
        public = set(range(len(groups)))
    # internals: the ones fewer groups lean on first (ptr.rs, which every file uses, is the lowest level)
    leaned = Counter(d for ds in deps.values() for d in ds)
    weight = {i: (i in public, entry[i], -leaned[i] if i not in public else 0, sum(rank.get(f, 0.0) for f in g))
              for i, g in enumerate(groups)}
    # a public group waits for the public groups it uses that a newcomer meets about as early,
    # not for internals (chi's mux.go does not wait for tree.go, which the README barely names)
    order_deps = {a: [d for d in ds if a not in public or (d in public and entry[d] >= 0.5 * entry[a])]
                  for a, ds in deps.items()}
    placed: list[int] = []
    left = set(range(len(groups)))
    from .overview import opening_symbol

    first = opening_symbol(p) if any(entry) else None
    holder = next((i for i, g in enumerate(groups) if first is not None and first.rel in g), None)
    if holder is not None:  # the opening chapter holds the first name the project's first example writes
        placed.append(holder)
        left.discard(holder)
    elif any(entry):  # the opening chapter: what a newcomer meets first, whatever it builds on
        placed.append(max(sorted(left), key=lambda g: weight[g]))
        left.discard(placed[0])
    while left:
        ready = [g for g in left if all(d not in left for d in order_deps[g])]
        pool = left & public or left
        if not set(ready) & pool:  # a cycle (among the public groups while some are left): start with
            # what the others lean on most, relative to what it leans on
            share = {o: sum(gg.get(o, {}).values()) or 1.0 for o in pool}
            lean = {g: sum(gg.get(o, {}).get(g, 0.0) / share[o] for o in pool if o != g)
                    - sum(gg.get(g, {}).get(o, 0.0) for o in pool if o != g) / share[g] for g in pool}
            ready = [max(sorted(pool), key=lambda g: (lean[g], weight[g]))]
        nxt = max(sorted(ready), key=lambda g: weight[g])
        placed.append(nxt)
        left.discard(nxt)
    pos = {g: k for k, g in enumerate(placed)}
    # all of them order the book; the strongest few are what a chapter says it builds on
    deps = {g: [d for d in ds if pos[d] < pos[g]][:MAX_DEPS] for g, ds in deps.items()}
    return placed, deps


def batches(order: list[int], deps: dict[int, list[int]], batch_size: int) -> dict[int, int]:
    """Each group's batch, in reading order: after every batch it depends on, at most `batch_size`
    per batch. A batch never runs ahead of the reading order (the book is numbered by batch, so a
    chapter with no dependencies is not pulled in front of the entry points)."""
    out: dict[int, int] = {}
    batch, count = 1, 0
    for g in order:
        need = max((out[d] for d in deps[g]), default=0) + 1
        if count >= batch_size or need > batch:
            batch, count = max(batch + 1, need), 0
        out[g] = batch
        count += 1
    return out


# ---------------------------------------------------------------- key symbols and roles


def key_symbols(p: Project, files: list[str], n: int) -> list[Sym]:
    key = (tuple(files), n)
    if key not in p._keys:
        p._keys[key] = _key_symbols(p, files, n)
    return list(p._keys[key])


def _key_symbols(p: Project, files: list[str], n: int) -> list[Sym]:
    """The chapter's most important symbols by rank: exported before private, things with a body
    before variables, at most a few from one file so a large file does not crowd out the rest."""
    syms = [s for s in p.symbols(within=files) if s.kind not in ("variable", "impl", "module")]
    per_file: dict[str, int] = defaultdict(int)
    total = sum(max(p.size(f), 1) for f in files) or 1
    # a file's share of the chapter's symbols follows its share of the code (a large file is
    # covered through more of its ranked symbols), with room for each file's best
    cap = {f: max(2, round(n * max(p.size(f), 1) / total) + 1) for f in files}

    def called_here(s: Sym) -> int:
        """How often the symbol's own file calls it (`self.dispatch_request(`, `mx.handle(`): the
        steps a type takes inside, which its public rank alone does not show."""
        if s.rel not in p._calls:
            p._calls[s.rel] = Counter(re.findall(r"[.:]([A-Za-z_$][\w$]*)\s*\(", "\n".join(p.lines_of(s.rel))))
        return p._calls[s.rel][s.short]

    def weight(s: Sym) -> float:
        w = s.score * (1.0 if s.d.exported else 0.15) * (1.3 if s.d.doc else 1.0)
        w *= (1 + math.log2(max(1, min(s.lines, 120)))) / 3  # a one-line getter explains less than a body
        if s.kind == "method":
            w *= 1 + 0.5 * min(called_here(s), 4)
        w *= 1 + 0.25 * math.log2(1 + len(s.d.doc) / 200)  # maintainers document at length what matters
        if s.kind == "type alias" or (s.kind == "type" and s.lines <= 2):
            w *= 0.4  # a type alias explains little on its own
        if s.short.startswith(("_", "#")) and not s.short.startswith("__init"):
            w *= 0.1  # private by convention: explained where a public name leads to it
        w *= 1 + 2 * readme_weight(p, s)  # what the README's examples write is what a newcomer meets first
        if retired(p, s):
            w *= 0.2  # kept for old callers: a chapter is not built around what is on its way out
        return w

    from .entry import readme_weight

    out: list[Sym] = []
    for s in sorted(syms, key=lambda s: (-weight(s), s.rel, s.d.start_line)):
        if per_file[s.rel] >= cap.get(s.rel, n) or any(o.name == s.name for o in out):
            continue
        per_file[s.rel] += 1
        out.append(s)
        if len(out) >= n:
            break
    from .spine import arrange

    return arrange(p, out, n)


_RETIRED_RE = re.compile(r"(?i)\b(?:deprecated|is unused|are unused|should be removed|do not use|"
                         r"only for compatibility|exists only for compatibility)\b")


def retired(p: Project, s: Sym) -> bool:
    """The symbol's doc, or a comment just above it (cobra's `// FIXME Gt is unused by cobra and
    should be removed`), says it is deprecated or kept only for old callers."""
    if _RETIRED_RE.search(s.d.doc or ""):
        return True
    lines = p.lines_of(s.rel)
    comments = []
    for ln in reversed(lines[max(0, s.d.start_line - 1 - 12):s.d.start_line - 1]):
        if ln.strip() and not ln.lstrip().startswith(("//", "#", "*", "/*")):
            break  # code: what is above it belongs to another definition
        comments.append(ln)
    return bool(_RETIRED_RE.search("\n".join(comments)))


def chapter_roles(p: Project, files: list[str]) -> list[tuple[float, roles_mod.Role]]:
    key = ("roles", tuple(files))
    if key not in p._keys:
        p._keys[key] = _chapter_roles(p, files)
    return list(p._keys[key])


def _chapter_roles(p: Project, files: list[str]) -> list[tuple[float, roles_mod.Role]]:
    prefix = posixpath.commonpath(files) if len(files) > 1 else posixpath.dirname(files[0])
    total = sum(max(p.size(f), 1) for f in files)
    # a file's name speaks for the chapter in proportion to its code: zustand's five-line
    # `types.d.ts` does not make a chapter of stores "Types and interfaces"
    shown = [f[len(prefix):].lstrip("/") or posixpath.basename(f) for f in files
             if len(files) == 1 or p.size(f) >= 0.1 * total]
    dirs = [d for d in prefix.split("/") if d not in ("src", "lib", "source", "pkg", "internal")][-1:] * len(files)
    keys = key_symbols(p, files, 8)
    names = [s.short for s in keys]
    # the doc's subject: the modules' docs and the opening of the key symbols' docs
    doc = (" ".join(p.module_doc(f) for f in files)[:2000] + " " + " ".join(s.d.doc[:300] for s in keys[:4])).strip()
    # what the code is: the interfaces it implements (`impl DoubleEndedIterator for Chain`,
    # `class X extends Y`), not every signature (Go's `http.Handler` is in all of chi's)
    sigs = [d.signature for f in files for d in p.map.files[f].definitions
            if d.signature and (d.kind == "impl" or re.search(r"\b(?:extends|implements)\b", d.signature))][:60]
    # (a program that reads its command line, markdownify's main.py with argparse, is the command-line tool)
    cli = sum(p.size(f) for f in files if roles_mod.reads_command_line(f, "\n".join(p.lines_of(f)))) * 2 >= total
    fits = roles_mod.detect(names, shown, doc, sigs, dirs + ["cli"] * cli)  # (as sure as a folder named so)
    # a folder named for a role (axum's `middleware/`) was chosen by the maintainers: that role is the
    # chapter's kind, before the request and response words its functions' names carry (`map_request`)
    folder = {w for d in dirs for w in roles_mod._words(d)}
    fits = [(s * (1.5 if folder & set(r.words) else 1.0), r) for s, r in fits]
    return sorted(fits, key=lambda x: (-x[0], x[1].key))


def assign_roles(p: Project, groups: list[list[str]]) -> list[roles_mod.Role | None]:
    """Each chapter's role: the strongest chapter-role fits are settled first, so a topic goes to
    the chapter it fits best; a chapter whose good roles are all taken gets its best one again
    (for its metaphor and opening; its title takes another subject, see titles.py)."""
    return settled_roles(p, groups)[0]


def settled_roles(p: Project, groups: list[list[str]]) -> tuple[list[roles_mod.Role | None], set[int]]:
    """assign_roles, and the chapters that hold their role alone (the others repeat a taken one).
    Once per plan and project: every draft asks it of the whole book (O(N) each, O(N²) a book)."""
    key = ("settled", tuple(tuple(files) for files in groups))
    if key not in p._keys:
        p._keys[key] = _settled_roles(p, groups)
    roles, alone = p._keys[key]
    return list(roles), set(alone)


def _settled_roles(p: Project, groups: list[list[str]]) -> tuple[list[roles_mod.Role | None], set[int]]:
    scored = [chapter_roles(p, files) if files else [] for files in groups]
    out: list[roles_mod.Role | None] = [None] * len(groups)
    used: set[str] = set()
    pairs = sorted(((s, -i, r.key, i, r) for i, sc in enumerate(scored) for s, r in sc
                    if s >= 0.9 * sc[0][0]), reverse=True)
    for _s, _neg, key, i, role in pairs:
        if out[i] is None and key not in used:
            out[i] = role
            used.add(key)
    alone = {i for i, r in enumerate(out) if r is not None}
    for i, sc in enumerate(scored):
        if out[i] is None and sc:
            out[i] = sc[0][1]
    return out, alone
