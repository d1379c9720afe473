"""Constant work per step (issue 14): what is computed once and reused gives exactly what
computing it afresh gives, and follows the files when they change."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

from orchestrator.agents.memory_budget import _WORD_RE, _uses, bounded_memory
from orchestrator.agents.source_context import load_project
from orchestrator.state.memory import ChapterMemory, LongMemory, long_memory
from orchestrator.steps import MEMORY, STEPS

ROOT = Path(__file__).resolve().parents[1]


def test_long_memory_is_read_once_and_follows_an_edit_of_a_memory_file(built_ws: Path):
    from orchestrator.state.book import Book

    book = Book.open(built_ws)
    try:
        chs = book.scanner.chapters()
        first = long_memory(book, chs)
        assert long_memory(book, chs) is first  # nothing changed: the same object, not a re-read
        book.scanner.invalidate(STEPS["draft"].file(chs[0]))  # another kind of file changed
        assert long_memory(book, chs) is first
        rel = STEPS[MEMORY].file(chs[0])
        book.scanner.invalidate(rel)  # the memory file "changed" but its bytes did not
        assert long_memory(book, chs) is first
        p = built_ws / rel
        old = first.by_id[chs[0]].summary
        assert old
        p.write_text(p.read_text(encoding="utf-8").replace(old, "A summary a person rewrote."), encoding="utf-8")
        book.scanner.invalidate(rel)
        again = long_memory(book, chs)
        assert again is not first and again.by_id[chs[0]].summary == "A summary a person rewrote."
        assert first.by_id[chs[0]].summary == old  # what was handed out earlier is not changed under it
    finally:
        book.close()


def test_bounded_memory_finds_the_terms_a_scan_of_every_term_finds():
    """The word index gives the ranking a regex count of each glossary term gives."""
    rng = random.Random(7)
    words = ["map", "mapping", "Key", "keys", "log-file", "write ahead", "b-tree", "naïve", "a_b", "C++", "x"]
    for _ in range(300):
        chapters = [ChapterMemory(f"ch{i:02d}", f"T{i}", "s", [(rng.choice(words), "d")] * rng.randint(0, 2))
                    for i in range(rng.randint(0, 12))]
        mem = LongMemory(chapters)
        texts = [" ".join(rng.choice(words + ["mapping", "keys"]) for _ in range(rng.randint(0, 60)))
                 for _ in range(2)]
        ctx, _ = bounded_memory(mem, SimpleNamespace(depends_on=[]), texts, "writer", budget=10_000)
        hay = "\n".join(texts).lower()
        scanned = [(n, list(e)) for e in mem.glossary_entries() if (n := _uses(e[0], hay, None))]
        scanned.sort(key=lambda x: -x[0])
        assert ctx["glossary"] == [e for _, e in scanned]
        assert Counter(_WORD_RE.findall(hay)) == sum((Counter(_WORD_RE.findall(t.lower())) for t in texts), Counter())


def _render_by_scan(m, budget: int, within: list[str] | None) -> str:
    """RepoMap.render as a plain scan of the whole ranking (the oracle for its early stop)."""
    files = None if within is None else set(within)
    chosen: dict[str, list] = {}
    used = 0
    for rel, d, _ in m.ranked_definitions():
        if files is not None and rel not in files:
            continue
        from orchestrator.repo.map import _render_line

        line = _render_line(d)
        cost = len(line) + 1 + (0 if rel in chosen else len(rel) + 3)
        if used + cost > budget:
            continue
        chosen.setdefault(rel, []).append(d)
        used += cost
    blocks = ["\n".join([rel + ":"] + [_render_line(d) for d in sorted(ds, key=lambda d: d.start_line)])
              for rel, ds in chosen.items()]
    return "\n\n".join(blocks)[:budget]


@pytest.mark.slow  # a whole run, or hundreds of examples: the full suite runs it
def test_the_map_render_that_stops_early_and_is_kept_equals_a_full_scan(tmp_path: Path):
    p = load_project(ROOT / "orchestrator", tmp_path / "state.db")
    files = sorted(p.map.files)
    rng = random.Random(3)
    for budget in (0, 7, 50, 400, 3000, 100_000):
        for within in (None, files[:5], rng.sample(files, 20)):
            want = _render_by_scan(p.map, budget, within)
            assert p.map.render(budget, within=within) == want
            assert p.map.render(budget, within=within) == want  # the kept text


def test_users_of_through_the_reverse_index_equals_a_scan_of_the_graph(tmp_path: Path):
    p = load_project(ROOT / "orchestrator", tmp_path / "state.db")
    m = p.map
    m._ensure_ranked()
    g = m._graph
    assert g is not None
    for target in sorted(m.files)[:40]:
        weights = {src: edges[target] for src, edges in g.edges.items() if target in edges and src != target}
        assert m.users_of(target) == [r for r, _ in sorted(weights.items(), key=lambda x: (-x[1], x[0]))]
    names = sorted({d.name for fm in m.files.values() for d in fm.definitions})[:200]
    for name in names:
        homes = [(rel, d) for rel, fm in m.files.items() for d in fm.definitions
                 if d.qualified_name == name or d.name == name]
        w: dict[str, float] = {}
        for src, carried in g.carried.items():
            for rel, d in homes:
                x = carried.get((rel, d.name), 0.0)
                if x > 0 and src != rel:
                    w[src] = w.get(src, 0.0) + x
        assert m.users_of(name) == [r for r, _ in sorted(w.items(), key=lambda x: (-x[1], x[0]))]
