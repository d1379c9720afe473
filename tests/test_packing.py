"""A small window packs a chapter's sources by need (issue 36, item 5): the definitions its
outline entry names, then what those call, then the rest by rank; and R1 sees them numbered."""

from __future__ import annotations

from orchestrator.agents import packing, source_context


def _src(tmp_path):
    # `helper_N` fill the file; `take` (named by the entry) sits at its end and calls `_refill`
    filler = "".join(f"def helper_{i}(x):\n    y = x + {i}\n    return y * 2\n\n" for i in range(300))
    text = filler + "def _refill(b):\n    return b + 1\n\n\ndef take(b):\n    return _refill(b) - 1\n"
    (tmp_path / "bucket.py").write_text(text)
    return text


def test_the_named_definition_and_its_callee_fit_before_the_rest_by_rank(tmp_path):
    text = _src(tmp_path)
    p = source_context.load_project(tmp_path, None)
    need = packing.entry_text({"title": "Spending tokens", "summary": "How `take` spends a token.", "goals": []})
    ctx = source_context.chapter_context(p, ["bucket.py"], limit=2500, related=False, need=need)
    shown = ctx["sources"]["bucket.py"]
    assert len(shown) < len(text)  # cut to the window
    assert "def take(b):" in shown and "def _refill(b):" in shown  # what the chapter needs is kept
    assert "→" in shown.splitlines()[0] or shown.startswith("# …")  # numbered lines (R1 checks line ranges)
    blind = source_context.chapter_context(p, ["bucket.py"], limit=2500, related=False)["sources"]["bucket.py"]
    assert "def take(b):" not in blind  # without the entry's words, rank alone would leave it out


def test_a_reviewer_sees_its_sources_numbered(tmp_path):
    (tmp_path / "m.py").write_text("a = 1\nb = 2\n")
    p = source_context.load_project(tmp_path, None)
    assert source_context.chapter_context(p, ["m.py"], related=False)["sources"]["m.py"] == "1→a = 1\n2→b = 2\n"


def test_a_small_window_cuts_the_audits_longest_chapter_keeping_every_opening():
    from orchestrator.agents.source_context import _cut_one

    ctx = {"finals": {"ch01": "a line of the first chapter\n" * 80, "ch02": "short\n" * 20}}
    assert _cut_one(ctx, 1_000)
    ch1, ch2 = ctx["finals"]["ch01"], ctx["finals"]["ch02"]
    assert ch2 == "short\n" * 20  # the longest is cut first
    assert ch1.startswith("a line of the first chapter\n") and ch1.endswith("(cut to fit the context window)\n")
    assert len(ch1) < 80 * 28 - 900
    tiny = {"finals": {"ch01": "x\n" * 100}}
    assert not _cut_one(tiny, 1_000)  # nothing left that is worth cutting: the token gate names the fix
