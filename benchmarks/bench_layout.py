#!/usr/bin/env python3
"""Every role's handbook in every call, or each role's own instructions only? (issue 36, item 3)
The same 12-chapter book (flask by default) through the fake Messages API with the real cache
rules and a model that thinks, once per `prompt_layout`; prints the bill, the tokens read from
and written to the cache, and what the prompts carried.

usage: python benchmarks/bench_layout.py [SOURCE_DIR] [CHAPTERS]"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from orchestrator.costs import cost_report
from orchestrator.providers.anthropic import AnthropicProvider
from orchestrator.state.book import Book
from orchestrator.testing.fake_api import FakeAPI
from orchestrator.testing.fake_model import ModelLike
from orchestrator.testing.helpers import make_example, run_book
from orchestrator.testing.role_answers import answerer


def one(layout: str, source: str, chapters: int) -> None:
    fake = FakeAPI(answerer=answerer(1500), cache_rules=True, model_like=ModelLike(0.3, seed=7, quirks=("thinking",)))
    os.environ.update(ANTHROPIC_API_KEY="sk-ant-bench", ANTHROPIC_BASE_URL=fake.start())
    try:
        with tempfile.TemporaryDirectory() as tmp:
            ws = make_example(Path(tmp) / "ws", max_chapters=chapters, batch_size=4, source=f'"{source}"',
                              budget_usd=0, prompt_layout=layout)
            code, summary = run_book(ws, provider=AnthropicProvider(concurrency=4, base_delay=0.01))
            assert code == 0, summary.needs_human
            book = Book.open(ws, repair=False)
            try:
                rep = cost_report(book.ledger.calls())
            finally:
                book.close()
        print(f"{layout:9}: {rep['calls']} calls, ${rep['cost_usd']:.4f}; fresh input {rep['input_tokens']:,}, "
              f"cache read {rep['cache_read_tokens']:,}, cache write {rep['cache_creation_tokens']:,}, output "
              f"{rep['output_tokens']:,}; cache hit ratio {rep['cache_hit_ratio']:.0%}", flush=True)
    finally:
        fake.stop()


if __name__ == "__main__":
    src = sys.argv[1] if len(sys.argv) > 1 else "/tmp/budget_corpus/flask/src"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    for layout in ("handbook", "roles"):
        one(layout, src, n)
