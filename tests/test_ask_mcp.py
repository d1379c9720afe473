"""`book mcp` (issue 37): a client built on the official MCP SDK starts the server as a process
on stdio, lists its tools, searches, reads chapter 1, asks a question whose answer carries
citations, and gets an MCP error for each bad input; the server holds no lock (it serves while a
writer holds the book's) and writes nothing of the book."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
from conftest import tree

from orchestrator.ask.service import Shelf
from orchestrator.ask.source import check_citations
from orchestrator.state.fsio import Lock
from orchestrator.steps import LOCK

BOOK = str(Path(sys.executable).parent / "book")

pytestmark = pytest.mark.slow  # starts `book mcp` as a process


async def _session(ws: Path) -> dict:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp.shared.exceptions import MCPError

    out: dict = {}
    params = StdioServerParameters(command=BOOK, args=["mcp", "--workspace", str(ws)])
    async with Client(params, read_timeout_seconds=60) as c:
        tools = (await c.list_tools()).tools
        out["tools"] = sorted(t.name for t in tools)
        out["read_only"] = sorted(t.name for t in tools if t.annotations and t.annotations.read_only_hint)
        r = await c.call_tool("book_structure", {})
        out["structure"] = json.loads(r.content[0].text)
        r = await c.call_tool("search_book", {"query": "write-ahead log replay", "limit": 3})
        out["search"] = (r.is_error, json.loads(r.content[0].text))
        r = await c.call_tool("search_book", {"query": "record checksum", "kind": "map"})
        out["search_map"] = json.loads(r.content[0].text)
        r = await c.call_tool("read_chapter", {"chapter": "ch01"})
        out["ch01"] = (r.is_error, r.content[0].text)
        r = await c.call_tool("read_chapter", {"chapter": "ch02", "section": "Key terms"})
        out["section"] = r.content[0].text
        r = await c.call_tool("ask_book", {"question": "how does the store flush the memtable to a table?"})
        out["ask"] = (r.is_error, json.loads(r.content[0].text))
        r = await c.call_tool("read_source", {"path": "minikv/record.py", "first": 1, "last": 5})
        out["source"] = (r.is_error, r.content[0].text)
        out["bad"] = {}
        for name, args in [("read_chapter", {"chapter": "ch99"}), ("read_source", {"path": "../../etc/passwd"}),
                           ("read_source", {"path": "/etc/passwd"}), ("ask_book", {"question": ""}),
                           ("ask_book", {"question": "why " * 2000}), ("search_book", {"query": "  "}),
                           ("search_book", {"query": "record", "kind": "everything"})]:
            r = await c.call_tool(name, args)
            out["bad"][name + str(len(out["bad"]))] = (r.is_error, r.content[0].text)
        out["resources"] = sorted(str(x.uri) for x in (await c.list_resources()).resources)
        out["resource"] = (await c.read_resource("book://chapter/ch01")).contents[0].text
        try:
            await c.read_resource("book://chapter/ch99")
            out["missing_resource"] = None
        except MCPError as e:
            out["missing_resource"] = str(e)
    return out


def test_an_mcp_client_reads_searches_and_asks_the_book(built_ws):
    lock = Lock(built_ws / LOCK)
    lock.acquire()  # a run is updating the book: the server does not need its lock
    try:
        before = {k: v for k, v in tree(built_ws).items() if k != "output/.lock"}
        got = asyncio.run(_session(built_ws))
    finally:
        lock.release()
    assert got["tools"] == ["ask_book", "book_structure", "read_chapter", "read_source", "search_book"]
    assert got["read_only"] == ["book_structure", "read_chapter", "read_source", "search_book"]
    assert [c["id"] for c in got["structure"]["chapters"]][:2] == ["ch01", "ch02"]
    err, hits = got["search"]
    assert not err and hits and any("wal" in h["text"].lower() or "WriteAheadLog" in h["text"] for h in hits)
    assert got["search_map"] and {h["kind"] for h in got["search_map"]} == {"map"}
    err, ch01 = got["ch01"]
    assert not err and ch01.startswith("# ") and "CHAPTER_FINAL" not in ch01
    assert got["section"].startswith("## Key terms")
    err, answer = got["ask"]
    assert not err and answer["citations"] and answer["chapters"]
    checked = check_citations(answer["answer"], Shelf.open(built_ws).files)
    assert checked and all(c.problem is None for c in checked)
    err, src = got["source"]
    assert not err and src.startswith("minikv/record.py lines 1-5")
    for what, (is_error, text) in got["bad"].items():
        assert is_error, what
        assert "Traceback" not in text and len(text) < 400, what
    assert "ch99 does not exist" in got["bad"]["read_chapter0"][1]
    assert "outside the source tree" in got["bad"]["read_source1"][1]
    assert "empty" in got["bad"]["ask_book3"][1] and "characters long" in got["bad"]["ask_book4"][1]
    assert "book://chapter/ch01" in got["resources"] and got["resource"] == ch01
    assert got["missing_resource"] and "ch99" in got["missing_resource"]
    after = {k: v for k, v in tree(built_ws).items() if k != "output/.lock"}
    new = set(after) - set(before)
    assert all(k.startswith("output/asked/") for k in new) and len(new) == 1  # the question asked, kept
    assert {k: v for k, v in after.items() if k in before} == before  # the book as it was


def test_an_offline_question_imports_neither_anthropic_nor_mcp_nor_tree_sitter(built_ws):
    import subprocess

    from orchestrator.ask import index

    index.ensure(built_ws, Shelf.open(built_ws).cfg.source_dir)  # the index exists: the everyday question
    probe = ("import sys\nsys.argv = ['book', 'ask', 'how is a record encoded?', '-q', '-w', sys.argv[1]]\n"
             "from orchestrator.main import main as run\n"
             "try:\n    run()\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in ('anthropic', 'mcp', 'tree_sitter') if m in sys.modules), file=sys.stderr)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    r = subprocess.run([sys.executable, "-c", probe, str(built_ws)], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0 and "minikv/record.py" in r.stdout, r.stderr
    assert r.stderr.strip().splitlines()[-1] == "[]"


def test_the_server_reads_a_chapter_whole_while_a_run_rewrites_it(built_ws, monkeypatch):
    """`book redo ch03 final` (the old final to .bak, the new one streamed beside it, then put in
    place) while a client reads ch03 again and again: every read is a whole chapter."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    from orchestrator.testing.cli import run_cli

    before = Shelf.open(built_ws).chapter("ch03")
    monkeypatch.setenv("BOOK_OFFLINE_LATENCY", "0.3")  # each model call of the redo takes a while

    async def session() -> tuple[list, object]:
        params = StdioServerParameters(command=BOOK, args=["mcp", "--workspace", str(built_ws)])
        reads = []
        async with Client(params, read_timeout_seconds=60) as c:
            redo = asyncio.create_task(asyncio.to_thread(run_cli, "redo", "ch03", "final", "-w", built_ws))
            while not redo.done() or len(reads) < 3:
                r = await c.call_tool("read_chapter", {"chapter": "ch03"})
                reads.append((r.is_error, r.content[0].text))
                await asyncio.sleep(0.02)
            return reads, await redo

    reads, done = asyncio.run(session())
    assert done.returncode == 0, done.stderr
    assert list((built_ws / "output/chapters/final").glob("ch03-final.md.bak.*"))  # the run did rewrite it
    assert len(reads) >= 3, len(reads)
    print(f"{len(reads)} reads during the redo")
    for is_error, text in reads:
        assert not is_error, text
        assert text.startswith("# ") and "CHAPTER_FINAL" not in text and len(text) > 0.8 * len(before)
