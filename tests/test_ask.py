"""`book ask` (issue 37): the finished book asked offline and through a model (the fake Messages
API), every printed citation checked; the index rebuilt only when the book changes; bad input a
clear error that changes nothing."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from conftest import tree
from conftest_fake_api import fake_api  # noqa: F401

from orchestrator.ask import index
from orchestrator.ask.service import MAX_QUESTION, Shelf
from orchestrator.ask.source import check_citations
from orchestrator.errors import UsageError
from orchestrator.testing.cli import run_cli
from orchestrator.testing.fake_wire import block_text

QUESTION = "how is a record encoded before it is written?"


def _book_files(ws: Path) -> dict[str, bytes]:
    """The book: every file but the asker's own (its index, output/asked/)."""
    return {k: v for k, v in tree(ws).items() if not k.startswith("output/asked/")}


def _all_hold(ws: Path, text: str) -> list:
    shelf = Shelf.open(ws)
    checked = check_citations(text, shelf.files)
    assert [c.problem for c in checked if c.problem] == []
    return checked


def test_offline_answer_cites_lines_that_hold_and_is_kept(built_ws):
    before = _book_files(built_ws)
    r = run_cli("ask", QUESTION, "--json", "-w", built_ws)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert set(doc) >= {"answer", "citations", "chapters"}
    assert doc["citations"] and doc["chapters"]
    assert any(c["path"] == "minikv/record.py" for c in doc["citations"])
    assert all(isinstance(c["lines"], list) and len(c["lines"]) == 2 for c in doc["citations"])
    printed = _all_hold(built_ws, doc["answer"])
    assert {(c.citation.path, c.citation.first, c.citation.last) for c in printed} == \
        {(c["path"], *c["lines"]) for c in doc["citations"]}
    kept = built_ws / doc["record"]
    assert kept.parent.name == "asked" and QUESTION in kept.read_text()
    assert _book_files(built_ws) == before  # the book is as it was: only its index and the record are new


def test_the_index_is_rebuilt_only_when_the_book_changes(built_ws):
    shelf = Shelf.open(built_ws)
    src = shelf.cfg.source_dir
    path, built = index.ensure(built_ws, src)
    assert built and path.is_file()
    assert index.ensure(built_ws, src) == (path, False)
    final = built_ws / "output/chapters/final/ch02-final.md"
    text = final.read_text()
    final.write_text(text.replace("Record", "Recordz", 1))  # a person's edit
    assert index.ensure(built_ws, src)[1] is True
    assert index.ensure(built_ws, src)[1] is False


def test_a_half_written_final_is_not_read(built_ws):
    final = built_ws / "output/chapters/final/ch03-final.md"
    final.write_text("# Half a chapter\n\nA sentence a run is still writing about `zebra_only_here`")
    hits = Shelf.open(built_ws).search("zebra_only_here")
    assert all("zebra" not in h["text"] for h in hits)  # the published page is read instead


def test_bad_input_is_a_clear_error_that_changes_nothing(built_ws, tmp_path):
    before = tree(built_ws)
    cases = [(("ask", "", "-w", built_ws), "empty"),
             (("ask", "   ", "-w", built_ws), "empty"),
             (("ask", "x" * (MAX_QUESTION + 1), "-w", built_ws), "characters long"),
             (("ask", "how is the?", "-w", built_ws), "no word"),
             (("ask", QUESTION, "-w", tmp_path / "nothing"), "does not exist"),
             (("ask", QUESTION, "-w", tmp_path), "no book here")]
    for args, words in cases:
        r = run_cli(*args)
        assert r.returncode == 2, (args[1][:20], r.stderr)
        assert words in r.stderr and "Traceback" not in r.stderr
    assert tree(built_ws) == before
    assert not (built_ws / "output/asked").exists()


def test_a_chapter_or_a_source_path_that_does_not_exist(built_ws, tmp_path):
    shelf = Shelf.open(built_ws)
    with pytest.raises(UsageError, match="ch99 does not exist.*ch01"):
        shelf.chapter("ch99")
    with pytest.raises(UsageError, match="invalid chapter id"):
        shelf.chapter("../etc")
    with pytest.raises(UsageError, match="no section"):
        shelf.chapter("ch02", "No such heading")
    assert shelf.chapter("ch02", "key-terms").startswith("## Key terms")
    outside = tmp_path / "secret.txt"
    outside.write_text("secret\n")
    (shelf.cfg.source_dir / "link.txt").symlink_to(outside)
    for bad in ("../secret.txt", str(outside), "/etc/passwd", "minikv/../../secret.txt", "C:/x", "link.txt"):
        with pytest.raises(UsageError) as e:
            shelf.source(bad)
        assert "secret" not in str(e.value).replace("secret.txt", "")
    with pytest.raises(UsageError, match="has .* lines"):
        shelf.source("minikv/record.py", 100000)
    got = shelf.source("minikv/record.py", 1, 3)
    assert got["first"] == 1 and got["last"] == 3 and got["text"].count("\n") == 2


def test_a_book_without_finished_chapters(example_ws):
    r = run_cli("ask", QUESTION, "-w", example_ws)
    assert r.returncode == 2 and "no finished chapter" in r.stderr


# ------------------------------------------------------------------ with a model (the fake API)

_EXCERPT_RE = re.compile(r"source:(\S+) lines (\d+)-(\d+)\n```\n(.*?)```", re.S)
_DEF_RE = re.compile(r"^\s*\d+\s+(?:async\s+)?(?:def|class)\s+(\w+)", re.M)


def _prompt(body: dict) -> str:
    return block_text(body["messages"][0]["content"])


def _true_answer(prompt: str) -> str:
    """What a careful model writes: a sentence per excerpt that names what the lines define."""
    out = []
    for path, a, z, code in _EXCERPT_RE.findall(prompt):
        m = _DEF_RE.search(code)
        if m:
            out.append(f"`{m.group(1)}` does it ([{path}:{a}-{z}](source:{path}#L{a}-L{z})).")
    return " ".join(out[:3]) or "The passages do not answer this."


def _inventing(times: int):
    """A model that invents a citation in its first `times` answers (a file that does not exist,
    and lines past the end of a real one), then answers as `_true_answer`."""
    seen = {"n": 0}

    def answer(body: dict) -> str:
        if "Passages of the book" not in _prompt(body):
            return "OK"  # a local server's probe of what it accepts
        seen["n"] += 1
        good = _true_answer(_prompt(body))
        if seen["n"] <= times:
            return (good + " Records are packed by `pack_record` ([minikv/packing.py:1-9](source:minikv/packing.py#L1-L9))"
                    " and `encode` checks them ([minikv/record.py:900-910](source:minikv/record.py#L900-L910)).")
        return good
    return answer, seen


def _ask_with_model(ws: Path) -> dict:
    r = run_cli("ask", QUESTION, "--json", "--provider", "anthropic", "-w", ws)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_a_written_answer_prints_only_citations_that_hold(built_ws, fake_api):  # noqa: F811
    fake_api.answerer = lambda body: _true_answer(_prompt(body))
    doc = _ask_with_model(built_ws)
    assert doc["citations"] and doc["asked_again"] == 0 and doc["dropped"] == []
    checked = _all_hold(built_ws, doc["answer"])
    assert len(checked) == len(doc["citations"]) >= 1
    assert "Source at the book's revision" in _prompt(fake_api.message_requests()[-1]["body"])


def test_an_invented_citation_is_asked_again(built_ws, fake_api):  # noqa: F811
    fake_api.answerer, seen = _inventing(times=1)
    doc = _ask_with_model(built_ws)
    assert seen["n"] == 2 and doc["asked_again"] == 1 and doc["dropped"] == []
    again = _prompt(fake_api.message_requests()[-1]["body"])
    assert "minikv/packing.py#L1-L9" in again and "does not exist" in again and "which has" in again
    assert "packing.py" not in doc["answer"] and "L900" not in doc["answer"]
    _all_hold(built_ws, doc["answer"])


def test_a_citation_still_invented_after_asking_again_is_dropped_and_said(built_ws, fake_api):  # noqa: F811
    fake_api.answerer, seen = _inventing(times=5)
    doc = _ask_with_model(built_ws)
    assert seen["n"] == 2  # asked again once, not more
    assert len(doc["dropped"]) == 2 and "left out" in doc["answer"]
    assert "(source:minikv/packing.py" not in doc["answer"] and "(source:minikv/record.py#L900" not in doc["answer"]
    assert "`pack_record` and `encode` checks them." in doc["answer"]  # the links gone, the words kept
    _all_hold(built_ws, doc["answer"].split("Citations left out")[0])
    assert {(c["path"]) for c in doc["citations"]} <= {"minikv/record.py", "minikv/wal.py", "minikv/store.py",
                                                        "minikv/sstable.py", "minikv/memtable.py", "minikv/cli.py",
                                                        "minikv/cache.py", "minikv/fileio.py"}
    assert os.listdir(built_ws / "output/asked") == ["0001.md"]


def test_a_book_whose_output_cannot_be_written_is_still_asked(built_ws, tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    (built_ws / index.INDEX).mkdir(parents=True)  # where the index goes cannot take a file
    (built_ws / "output/asked").write_text("a file where the records' directory goes\n")
    r = run_cli("ask", QUESTION, "--json", "-w", built_ws)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["citations"]
    assert "the index goes to" in r.stderr and "was not kept" in r.stderr
    assert list(tmp_path.glob("book-ask-*.sqlite"))
    r = run_cli("ask", QUESTION, "-w", built_ws)
    assert r.returncode == 0 and "the index goes to" not in r.stderr  # the spare index is fresh: used as it is


def test_a_local_compatible_server_answers_and_its_citations_are_checked(built_ws, monkeypatch):
    from orchestrator.testing.fake_api import FakeAPI
    from orchestrator.testing.fake_compatible import Compatible

    cfg = built_ws / "book.yaml"
    local = {"server": '"compatible"', "model": '"qwen3-coder"', "context_window": "8192", "max_output": "2048"}
    cfg.write_text("\n".join(f"{ln.split(':', 1)[0]}: {local[ln.split(':', 1)[0]]}" if ln.split(":", 1)[0] in local
                             else ln for ln in cfg.read_text().splitlines()) + "\n")
    answer, seen = _inventing(times=1)
    api = FakeAPI(answerer=answer, compatible=Compatible(window=8192, off_contract=0.0, seed=1))
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.start())
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)  # a local server needs no key
    try:
        doc = _ask_with_model(built_ws)
    finally:
        api.stop()
    assert seen["n"] == 2 and doc["asked_again"] == 1 and doc["provider"] == "qwen3-coder"
    assert doc["citations"] and doc["dropped"] == []
    _all_hold(built_ws, doc["answer"])


def test_code_the_map_has_no_definition_for_is_found_in_the_source_windows(built_ws):
    src = Shelf.open(built_ws).cfg.source_dir
    (src / "minikv/limits.py").write_text("import os\n\n# the quokka rule: at most three segments are kept\n"
                                          "LIMIT = 3\n")
    a = Shelf.open(built_ws).ask("where is the quokka rule?", "offline", record=None)
    assert ("minikv/limits.py", 1, 4) in a.citations
    assert "   ```\n   import os\n\n   # the quokka rule" in a.text  # the lines themselves, in the list item
    _all_hold(built_ws, a.text)


def test_book_mcp_on_a_workspace_without_a_book_says_so_before_serving(tmp_path, example_ws):
    for ws, words in ((tmp_path, "no book here"), (example_ws, "no finished chapter")):
        r = run_cli("mcp", "-w", ws)
        assert r.returncode == 2 and words in r.stderr and r.stdout == ""  # stdout is the protocol's: nothing on it


def _git(cwd: Path, *args: str) -> str:
    import subprocess

    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()


def test_citations_are_checked_at_the_books_commit_when_the_source_moved_on(built_ws):
    src = Shelf.open(built_ws).cfg.source_dir
    _git(src, "init", "-q")
    _git(src, "add", "-A")
    _git(src, "commit", "-qm", "the book's revision")
    book_commit = _git(src, "rev-parse", "HEAD")
    for claims in (built_ws / "output/memory/claims").glob("ch*.json"):  # the book was checked at that commit
        doc = json.loads(claims.read_text())
        doc["revision"] = {"kind": "git", "id": book_commit, "remote": "", "prefix": ""}
        claims.write_text(json.dumps(doc))
    record_py = src / "minikv/record.py"
    at_book = record_py.read_text()
    record_py.write_text("# moved\n" * 50 + at_book)  # the work tree moves on: every line 50 further down
    _git(src, "commit", "-qam", "later")
    shelf = Shelf.open(built_ws)
    assert shelf.files.commit == book_commit
    got = shelf.source("minikv/record.py", 1, 2)
    assert "# moved" not in got["text"] and got["text"].split("\n")[0].endswith(at_book.split("\n")[0])
    a = shelf.ask(QUESTION, "offline", record=None)
    assert any(p == "minikv/record.py" for p, _, _ in a.citations) and a.dropped == []
    _all_hold(built_ws, a.text)  # the lines the book cites, at the book's commit


def test_words_of_a_question_and_of_the_book():
    assert index.split_words("Group.resolve_command ClickException") == [
        "group", "resolve", "command", "resolvecommand", "click", "exception", "clickexception"]
    assert index.split_words("内存表保存记录") == ["内存", "存表", "表保", "保存", "存记", "记录"]
    assert index.match_query("How does the store flush?") == '"store" OR "flush"'
    assert index.match_query("内存表如何保存记录？") == '"内存" OR "存表" OR "表如" OR "何保" OR "保存" OR "存记" OR "记录"'
    assert index.match_query("how is the?") == ""


def test_a_build_killed_midway_leaves_the_old_index_whole_and_its_leftover_is_swept(built_ws, monkeypatch):
    src = Shelf.open(built_ws).cfg.source_dir
    path, _ = index.ensure(built_ws, src)
    before = path.read_bytes()
    (built_ws / "output/chapters/final/ch02-final.md").write_text("# Changed\n\nNew words about `Record`.\n")

    class Killed(BaseException):
        pass

    def killed(*a, **k):
        raise Killed

    monkeypatch.setattr(index.os, "replace", killed)
    with pytest.raises(Killed):
        index.ensure(built_ws, src)
    monkeypatch.undo()
    assert path.read_bytes() == before  # readers still see the whole old index
    left = list(path.parent.glob(".ask-index.*.tmp"))
    assert left == []  # a build that fails removes its own temporary file
    stale = path.parent / ".ask-index.killed.tmp"
    stale.write_bytes(b"half")
    os.utime(stale, (1, 1))  # as a kill long ago left it
    assert index.ensure(built_ws, src)[1] is True and not stale.exists()


def test_a_long_definition_is_pointed_at_by_its_lines_that_match(tmp_path):
    from orchestrator.ask.answer import matching_lines
    from orchestrator.ask.source import SourceAt
    from orchestrator.testing.helpers import make_example

    ws = make_example(tmp_path / "ws")
    files = SourceAt(ws / "src", None)
    words = index.query_words("where does decode compare the crc32 checksum?")
    first, last = matching_lines(files, "minikv/record.py", 85, 110, words)
    shown = files.lines("minikv/record.py")[first - 1:last]
    assert 92 <= first <= last <= first + 3  # in the body: not the head nor the doc string that repeats it
    assert any("zlib.crc32" in ln and "!= crc" in ln for ln in shown)
    assert matching_lines(files, "minikv/record.py", 85, 110, index.query_words("sorted tables flush")) is None
