#!/usr/bin/env python3
"""usage: python benchmarks/bench_bill.py gated|open   (PYTHONPATH=../main to measure main)

A 12-chapter book (flask) through the fake (real cache rules, ~1500-word chapters) with the TTLs a
gated run asks for (every role's cache_ttl 1h, the review gate's material 1h where supported),
priced at the official prices from what the fake billed; `book cost` beside it."""

import os
import sys
import tempfile
from pathlib import Path

from orchestrator.providers.anthropic import AnthropicProvider
from orchestrator.state.book import Book
from orchestrator.testing.fake_api import FakeAPI
from orchestrator.testing.helpers import make_example, run_book
from orchestrator.testing.role_answers import answerer

P = {"input": 2.00, "output": 10.00, "w5": 2.50, "w1": 4.00, "read": 0.10}
ROLES = [
    "planner",
    "researcher",
    "writer",
    "r1_code",
    "r2_consistency",
    "r3_content",
    "merger",
    "reader_panel",
    "memory_keeper",
    "editor",
    "auditor",
]
gated = sys.argv[1] == "gated"
fake = FakeAPI(answerer=answerer(1500), cache_rules=True)
os.environ.update(ANTHROPIC_API_KEY="sk-ant-bench", ANTHROPIC_BASE_URL=fake.start())
with tempfile.TemporaryDirectory() as tmp:
    ws = make_example(Path(tmp) / "ws", max_chapters=12, batch_size=4, source='"/work/corpus/flask/src"')
    rs = {r: {"cache_ttl": "1h"} for r in ROLES} if gated else {}
    prov = AnthropicProvider(concurrency=4, base_delay=0.01, role_settings=rs)
    import orchestrator.pipeline.run_state as rsm

    if gated and hasattr(rsm, "REVIEW"):  # the branch: material across the review gate
        orig = rsm.RunState.__init__

        def init(self, *a, **k):
            orig(self, *a, **k)
            self.material_ttl = "1h"

        rsm.RunState.__init__ = init
    code, s = run_book(ws, provider=prov)
    assert code == 0, s.needs_human
    book = Book.open(ws)
    calls = book.ledger.calls()
    book.close()
    ttl_sets = []
    for r in fake.message_requests():
        b = r["body"]
        blocks = list(b.get("system") or []) + [
            c for m in b["messages"] for c in (m["content"] if isinstance(m["content"], list) else [])
        ]
        ttl_sets.append(
            {
                (x.get("cache_control") or {}).get("ttl", "5m")
                for x in blocks
                if isinstance(x, dict) and x.get("cache_control")
            }
        )
    billed = getattr(fake, "billed", None)
    truth = 0.0
    read = total = 0
    if billed:
        for b in billed:
            u = b["usage"]
            c = u["cache_creation"]
            truth += (
                u["input_tokens"] * P["input"]
                + u["output_tokens"] * P["output"]
                + c["ephemeral_5m_input_tokens"] * P["w5"]
                + c["ephemeral_1h_input_tokens"] * P["w1"]
                + u["cache_read_input_tokens"] * P["read"]
            ) / 1e6
    else:  # main: no breakdown; a request with only 1h breakpoints wrote at 1h
        all1h = all(t <= {"1h"} for t in ttl_sets)
        w = P["w1"] if gated and all1h else P["w5"]
        for c in calls:
            truth += (
                c["input_tokens"] * P["input"]
                + c["output_tokens"] * P["output"]
                + c["cache_creation_tokens"] * w
                + c["cache_read_tokens"] * P["read"]
            ) / 1e6
    for c in calls:
        read += c["cache_read_tokens"] or 0
        total += (c["input_tokens"] or 0) + (c["cache_read_tokens"] or 0) + (c["cache_creation_tokens"] or 0)
    chapters = {c["chapter"] for c in calls if c["chapter"]}
    ledger = sum(c["cost_usd"] for c in calls)
    print(
        f"{sys.argv[1]}: {len(chapters)} chapters, {len(calls)} calls; cache share {read / total:.1%}; "
        f"book cost ${ledger:.4f} (${ledger / len(chapters):.4f}/chapter); at the real prices ${truth:.4f} "
        f"(${truth / len(chapters):.4f}/chapter); book cost off by {(ledger - truth) / truth:+.1%}"
    )
fake.stop()
