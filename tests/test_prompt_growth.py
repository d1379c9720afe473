"""Prompts bounded by tokens, measured on a real run: a 30-chapter book (six batches, each
building on the batch before) through the Claude provider and the fake Messages API; the input
tokens the last chapter's calls really sent are within 1.2x of the first chapter's, step by step
(benchmarks/bench_prompt_growth.py measures the 100-chapter book of the done-when)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from bench_prompt_growth import STEPS, measure  # noqa: E402


@pytest.mark.slow
def test_the_last_chapter_s_prompts_are_the_size_of_the_first_s():
    chapters, sent, _ = measure(30, 5)
    assert len(chapters) == 30
    first, last = chapters[0], chapters[-1]
    for step in STEPS:
        assert sent[(last, step)] <= 1.2 * sent[(first, step)], (step, sent[(first, step)], sent[(last, step)])
    assert sent[(last, "draft")] > 1000  # a real prompt was measured, not an empty one
