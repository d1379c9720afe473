"""Local servers, honestly (issue 36, item 5): a compatible server is sent only what book.yaml
asks for or what a probe has seen take effect. Behind a server that refuses output_config and
behind one that accepts and silently drops it, a weak model (off-contract answers) with a 32k
window writes the whole book with no request asking for effort or thinking."""

from __future__ import annotations

import json

import pytest
from conftest import make_example

from orchestrator import config as config_mod
from orchestrator.providers.anthropic.server import PLACEHOLDER_KEY, features_for, from_config
from orchestrator.state.partial_view import cut_items
from orchestrator.testing.fake_api import FakeAPI
from orchestrator.testing.fake_compatible import Compatible
from orchestrator.testing.helpers import run_book
from orchestrator.testing.role_answers import answer

LOCAL = {"server": "compatible", "model": "qwen3-coder", "context_window": 32768, "max_output": 4096,
         "provider": "anthropic", "retries": 5}


def _asked_for(bodies: list[dict], what: str) -> int:
    if what == "effort":
        return sum(1 for b in bodies if "effort" in (b.get("output_config") or {}))
    return sum(1 for b in bodies if b.get("thinking"))


@pytest.mark.slow
@pytest.mark.parametrize("refuses", [True, False], ids=["refuses", "drops"])
def test_a_weak_local_model_writes_the_book_asked_for_nothing_it_ignores(tmp_path, monkeypatch, refuses):
    compat = Compatible(window=32768, off_contract=0.2, seed=5, reject_output_config=refuses)
    api = FakeAPI(answerer=answer, compatible=compat)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.start())
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    try:
        ws = make_example(tmp_path / "ws", **LOCAL)
        cfg = config_mod.load(ws)
        found = features_for(from_config(cfg), cfg.root, PLACEHOLDER_KEY)
        assert not found.effort and not found.thinking and not found.structured  # accepted is not support
        api.requests.clear()
        code, summary = run_book(ws)
        bodies = [r["body"] for r in api.message_requests() if r["body"]]
    finally:
        api.stop()
    assert code == 0, summary.needs_human
    assert _asked_for(bodies, "effort") == 0 and _asked_for(bodies, "thinking") == 0
    assert all("output_config" not in b for b in bodies)  # neither a format the server drops
    assert compat.broken  # the weak model broke contracts, and the book still completed
    assert json.dumps(bodies).count("Your previous answer was rejected") >= 1
    # a chapter researched from sources cut to the 32k window says so on its page; the others do not
    partial = 0
    for report in (ws / "output/research").glob("ch*-report.md"):
        page = (ws / "output/publish" / report.name.replace("-report.md", ".html")).read_text(encoding="utf-8")
        cut = bool(cut_items(report.read_text(encoding="utf-8")))
        assert ('class="partial-view"' in page) == cut, report.name
        partial += cut
    assert partial  # e.g. minikv/sstable.py does not fit the window whole
