"""Issue 38: a newcomer's first hour. `--source` as people type it (relative to where `book init`
runs; no path of the machine in what a reader sees), help that works, a read-only publish
folder, YAML errors at the right line, a source with nothing to read, and the offline writer
following a person's words at a gate."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from orchestrator.authoring.person_asks import read, said, shorten
from orchestrator.config import load, stored_source
from orchestrator.resources import builtin
from orchestrator.testing.cli import run_cli
from orchestrator.testing.helpers import make_example, run_book
from orchestrator.text.yaml_lines import error_line


def _project(root: Path) -> Path:
    """A small project as people clone one: a README above the package the book is about."""
    (root / "repo").mkdir(parents=True)
    (root / "repo/README.md").write_text("# minikv\n\nA small key-value store.\n")
    shutil.copytree(builtin("example") / "minikv", root / "repo/pkg/minikv")
    return root / "repo/pkg"


# ---------------------------------------------------------------- 1. paths as people type them


def test_source_relative_to_where_init_runs(tmp_path: Path):
    _project(tmp_path)
    proc = run_cli("init", "nb", "--source", "repo/pkg", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert load(tmp_path / "nb").source == "../repo/pkg"  # beside the book: stored relative to it
    assert load(tmp_path / "nb").source_dir == (tmp_path / "repo/pkg").resolve()


def test_source_dot_from_inside_the_source(tmp_path: Path):
    src = _project(tmp_path)
    proc = run_cli("init", "../../nb", "--source", ".", cwd=src)
    assert proc.returncode == 0, proc.stderr
    cfg = load(tmp_path / "nb")
    assert cfg.source == "../repo/pkg" and cfg.source_dir == src.resolve()


def test_stored_source_inside_beside_and_far(tmp_path: Path):
    book = tmp_path / "a/nb"
    assert stored_source(book, book / "src") == "./src"
    assert stored_source(book, tmp_path / "a/repo") == "../repo"
    assert stored_source(book, tmp_path / "elsewhere/x") == str((tmp_path / "elsewhere/x").resolve())


def test_a_missing_relative_source_names_where_it_looked(tmp_path: Path):
    proc = run_cli("init", "nb", "--source", "nope", cwd=tmp_path)
    assert proc.returncode == 2 and "'nope' does not exist" in proc.stderr and str(tmp_path / "nope") in proc.stderr
    assert not (tmp_path / "nb").exists()


@pytest.mark.slow  # builds a small book
def test_no_machine_path_in_what_a_reader_sees(tmp_path: Path):
    _project(tmp_path)
    assert run_cli("init", "nb", "--source", "repo/pkg", cwd=tmp_path).returncode == 0
    ws = tmp_path / "nb"
    cfg = ws / "book.yaml"
    cfg.write_text(re.sub(r"(?m)^(gates|max_chapters|exports): .*$",
                          lambda m: {"gates": "gates: off", "max_chapters": "max_chapters: 2",
                                     "exports": "exports: [epub]"}[m.group(1)], cfg.read_text()))
    code, summary = run_book(ws)
    assert code == 0, summary.needs_human
    outline = (ws / "output/memory/outline.md").read_text()
    assert "`minikv/pkg`" in outline  # the project's name and the source's place in it
    seen = [ws / "output/memory/outline.md", ws / "output/memory/checkpoint.md",
            *(ws / "output/publish").rglob("*.*")]
    for p in seen:
        assert str(tmp_path) not in p.read_text(encoding="utf-8", errors="replace"), p
    import zipfile

    for name in zipfile.ZipFile(ws / "output/export/book.epub").namelist():
        data = zipfile.ZipFile(ws / "output/export/book.epub").read(name).decode("utf-8", "replace")
        assert str(tmp_path) not in data, name


# ---------------------------------------------------------------- 5. small breakages


def test_dash_h_is_help():
    proc = run_cli("-h")
    assert proc.returncode == 0 and "Usage: book" in proc.stdout and "review" in proc.stdout


def test_review_help_keeps_its_key_letters():
    proc = run_cli("review", "--help")
    text = re.sub(r"[│\s]+", " ", proc.stdout)
    assert proc.returncode == 0
    for word in ("[a]pprove", "[r]eject", "[m]odify", "[s]kip", "[q]uit"):
        assert word in text, text


def test_a_binary_only_source_is_refused_by_init(tmp_path: Path):
    (tmp_path / "bin/sub").mkdir(parents=True)
    (tmp_path / "bin/a.bin").write_bytes(bytes(range(256)) * 20)
    (tmp_path / "bin/sub/b.dat").write_bytes(b"\0\1\2" * 500)
    proc = run_cli("init", "nb", "--source", "bin", cwd=tmp_path)
    assert proc.returncode == 2 and "has no file to read" in proc.stderr and "binary" in proc.stderr
    assert not (tmp_path / "nb").exists()


def test_a_step_that_fails_before_its_first_word_leaves_no_partial(tmp_path: Path):
    ws = make_example(tmp_path / "ws")
    (ws / "bin").mkdir()
    (ws / "bin/a.bin").write_bytes(b"\0" * 100)
    cfg = ws / "book.yaml"
    cfg.write_text(re.sub(r"(?m)^source: .*$", 'source: "./bin"', cfg.read_text()))
    proc = run_cli("run", "--workspace", ws)
    assert proc.returncode == 3 and "no code files" in proc.stderr
    assert not list((ws / "output").rglob("*.partial"))


@pytest.mark.parametrize("text,line", [
    ('a: 1\ntitle: "Inside click\n# a comment\nlanguage: "en"\nb: 2\n', 2),  # a quote never closed
    ("a: 1\nlanguage: [en\n# c\naudience: x\nb: 2\n", 2),  # a bracket never closed
    ("a: 1\ntitle: 'Inside\nb: 2\nc: 3\n", 2),
    ("a: 1\n  b: 2\nc: 3\n", 2),
    ('a: "x\n  y"\nb: [1\n', 3),  # a quoted value over two lines is fine; the bracket is not
])
def test_yaml_errors_point_at_the_line_to_fix(text: str, line: int):
    with pytest.raises(yaml.YAMLError) as e:
        yaml.compose(text)
    assert error_line(e.value, text) == line


def test_invalid_book_yaml_names_the_line_of_the_open_quote(tmp_path: Path):
    ws = make_example(tmp_path / "ws")
    lines = (ws / "book.yaml").read_text().splitlines()
    at = next(i for i, t in enumerate(lines) if t.startswith("title:"))
    lines[at] = 'title: "A title never closed'
    (ws / "book.yaml").write_text("\n".join(lines) + "\n")
    proc = run_cli("scan", "--workspace", ws)
    assert proc.returncode == 2 and f"book.yaml:{at + 1}: not valid YAML" in proc.stderr


@pytest.mark.slow  # a real read-only file system: a tmpfs mounted read-only (root only)
def test_a_read_only_publish_folder_is_one_message_and_exit_2(tmp_path: Path):
    if os.geteuid() != 0:
        pytest.skip("mounting a read-only tmpfs needs root")
    ws = make_example(tmp_path / "ws", max_chapters=2)
    assert run_book(ws, scope=None)[0] == 0
    publish = ws / "output/publish"
    shutil.rmtree(publish)
    publish.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,ro", "tmpfs", str(publish)]).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        proc = run_cli("run", "--workspace", ws)
    finally:
        subprocess.run(["umount", "-l", str(publish)])
    assert proc.returncode == 2, proc.stderr
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("error:")]
    assert errors == [f"error: {publish} is on a read-only file system: work in a writable copy of the workspace"]
    assert "OSError" not in proc.stderr and "partial book" not in proc.stderr
    assert "(nothing is waiting)" in (ws / "output/memory/needs-human.md").read_text()


# ---------------------------------------------------------------- 2. the offline writer and a person's words


def test_a_persons_words_read_into_requests():
    asks = read("Shorter, and explain Store.get; make it funnier")
    assert asks.shorter and asks.explain == ["Store.get"] and asks.cannot == ["make it funnier"]
    assert read("add an example please").example
    assert read("更短，并且解释 Store").shorter and read("更短，并且解释 Store").explain == ["Store"]
    assert "cannot follow 'make it funnier'" in said("make it funnier")
    assert said("too long").startswith("offline, the writer will follow: shorter")
    # the opposite of shorter is not shorter: the offline writer cannot lengthen, and says so
    assert not read("too short").shorter and read("too short").cannot == ["too short"]
    assert not read("make it longer").shorter and not read("太短了").shorter


def test_shorten_keeps_every_heading_and_fences_whole():
    body = "\n\n".join([f"Paragraph {k} with words." for k in range(6)] + ["```python\nx = 1\n```", "After."])
    text = f"# T\n\nOpening.\n\n## One\n\n{body}\n\n## Two\n\n{body}\n"
    short = shorten(text)
    assert len(short) < len(text) * 0.85
    assert [h for h in short.splitlines() if h.startswith("#")] == ["# T", "## One", "## Two"]
    assert short.count("```") % 2 == 0


def test_reject_and_modify_offline_change_the_text(tmp_path: Path):
    ws = make_example(tmp_path / "ws", gates="normal", max_chapters=2)
    run_cli("run", "--workspace", ws)
    run_cli("approve", "outline", "--workspace", ws)
    run_cli("run", "--workspace", ws)
    report = ws / "output/research/ch01-report.md"
    before = report.read_text()
    proc = run_cli("reject", "research", "ch01", "--reason", "shorter; make it funnier", "--workspace", ws)
    assert "will follow: shorter" in proc.stderr and "cannot follow 'make it funnier'" in proc.stderr
    run_cli("run", "--workspace", ws)
    shorter = report.read_text()
    assert len(shorter) < len(before) * 0.9
    proc = run_cli("modify", "research", "ch01", "--instructions", "explain Store and add an example",
                   "--workspace", ws)
    assert proc.returncode == 0, proc.stderr
    run_cli("run", "--workspace", ws)
    after = report.read_text()
    assert "## `Store` explained" in after and "## An example" in after and after != shorter


# ---------------------------------------------------------------- 3. findings that are right

PKG = '''"""The command decorator.

The name defaults to the function's, with the suffixes ``_command`` and ``_cmd`` removed.
"""
import enum
import shlex
import typing as t


class Source(enum.IntEnum):
    """Where a value came from."""

    DEFAULT = 1


class Response:
    def json(self) -> t.Any:
        return {}


def split(text: str) -> list[str]:
    lex = shlex.shlex(text, posix=True)
    lex.whitespace_split = True
    if text == "store_const":
        return []
    return list(lex)
'''


def _sourced(tmp_path: Path) -> Path:
    """A project laid out as click is: README and docs above `src/pkg`."""
    (tmp_path / "proj/src/pkg").mkdir(parents=True)
    (tmp_path / "proj/pyproject.toml").write_text('[project]\nname = "pkg"\n')
    (tmp_path / "proj/README.md").write_text("# pkg\n\nUse `MultiGroup` for nested commands.\n")
    (tmp_path / "proj/docs").mkdir()
    (tmp_path / "proj/docs/guide.md").write_text("# Guide\n\nThe `mix_stderr` flag is gone. Put the app in "
                                                 "`yourapp/app.py`.\n")
    (tmp_path / "proj/src/pkg/__init__.py").write_text(PKG)
    return tmp_path / "proj/src/pkg"


def test_the_projects_words_are_not_unknown_code(tmp_path: Path):
    from orchestrator.checks import check_code

    src = _sourced(tmp_path)
    md = ("# T\n\nAs `README.md` and `docs/guide.md` say (of `yourapp/app.py`), the suffixes `_cmd` and `_command` go; `IntEnum`, "
          "`t.Any`, `lex.whitespace_split`, `store_const`, `Response.json`, `MultiGroup` and `mix_stderr` "
          "are all the project's.\n")
    findings, _ = check_code(md, src)
    assert [f for f in findings if f.check in ("r1.path", "r1.symbol")] == [], findings


def test_an_invented_name_is_still_major_and_a_guess_is_a_note(tmp_path: Path):
    from orchestrator.checks import check_code

    src = _sourced(tmp_path)
    findings, _ = check_code("# T\n\n`frobnicate_all` is called, and `Response.yaml` and `docs/none.md`.\n", src)
    sev = {f.message.split("`")[1]: f.severity for f in findings if f.check in ("r1.path", "r1.symbol")}
    assert sev == {"frobnicate_all": "major", "Response.yaml": "major", "docs/none.md": "major"}
    findings, _ = check_code("# T\n\nThe handle's `fh.peekaboo` is read.\n", src)
    assert [(f.check, f.severity) for f in findings if f.check == "r1.symbol"] == [("r1.symbol", "minor")]


def test_a_reviews_verdict_follows_its_findings():
    from orchestrator.contracts.findings import Finding, Review
    from orchestrator.contracts.parse import parse_review
    from orchestrator.contracts.render import render_review

    major = Finding("r1.symbol", "major", 3, "`x` is cited but no such name is defined in the source")
    minor = Finding("r3.length", "minor", 0, "short")
    blocking = Finding("r1.code", "blocking", 5, "not in the source")
    for found, word in (((minor,), "clean"), ((minor, major), "revise"), ((major, blocking), "blocked")):
        text = render_review(Review(found, "checked"), heading="R1 code review: ch01")
        assert f"Verdict: {word}\n" in text
        parsed = parse_review(text, file="r.md")
        assert parsed.person_verdict == ("blocked" if word == "blocked" else "clean")


# ---------------------------------------------------------------- 4. a run you can watch


def test_progress_lines_count_steps_and_give_an_eta(monkeypatch):
    import io

    from orchestrator.cli import progress as P

    clock = iter([0.0, 0.0, 1.0, 2.0, 2.0, 4.0, 4.0, 4.0, 4.0, 4.0])
    monkeypatch.setattr(P.time, "monotonic", lambda: next(clock))
    out = io.StringIO()
    spent = iter([0.25, 0.5])
    p = P.Progress(total=4, spent=lambda: next(spent), stream=out)
    p("start", ("ch01", "research"), "missing")
    p("done", ("ch01", "research"), "")
    p("start", ("ch01", "draft"), "")
    p("done", ("ch01", "draft"), "")
    p("warning", ("", ""), "a warning line")
    p.close()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("[   2.0s] ✅ ch01 research — 1/4 · ETA 6s · $0.25 spent"), lines
    assert lines[1].startswith("[   4.0s] ✅ ch01 draft — 2/4 · ETA 4s · $0.50 spent"), lines
    assert lines[2] == "a warning line"


def test_progress_counts_a_step_the_plan_did_not_foresee():
    import io

    from orchestrator.cli.progress import Progress

    p = Progress(total=1, stream=io.StringIO())
    for step in ("draft", "r1"):
        p("start", ("ch01", step), "")
        p("done", ("ch01", step), "")
    assert (p.finished, p.total) == (2, 2)


@pytest.mark.slow  # builds a small gated book
def test_no_disagreement_line_after_a_hand_edit_or_in_the_review_loop(tmp_path: Path):
    ws = make_example(tmp_path / "ws", gates="normal", max_chapters=2, gate_grain="phase")
    said = []
    for _ in range(6):
        said.append(run_cli("run", "--workspace", ws).stderr)
        if run_cli("approve", "--all", "--workspace", ws).stderr.startswith("no "):
            break
    with open(ws / "output/chapters/draft/ch01-draft.md", "a") as fh:
        fh.write("\nA person's line.\n")
    said.append(run_cli("run", "--workspace", ws).stderr)
    assert not [s for s in said if "disagreement: " in s], said


@pytest.mark.slow  # builds a small book
def test_dry_run_after_a_hand_edit_predicts_what_the_run_does(tmp_path: Path):
    ws = make_example(tmp_path / "ws", max_chapters=2)
    assert run_book(ws)[0] == 0
    with open(ws / "output/chapters/draft/ch01-draft.md", "a") as fh:
        fh.write("\nA person's line.\n")
    plan = run_cli("run", "--dry-run", "--workspace", ws).stdout.splitlines()
    sure = {tuple(line.split()[:2]) for line in plan if not line.startswith(("then, ", "expected bill"))}
    maybe = next(line for line in plan if line.startswith("then, only if what they read comes back changed"))
    ran = {tuple(m.groups()) for m in re.finditer(r"✅ (\S+) (\S+)", run_cli("run", "--workspace", ws).stderr)}
    assert sure <= ran  # every step said to run ran
    n_maybe = int(re.search(r": (\d+) more step", maybe).group(1))
    assert len(ran - sure) <= n_maybe  # the rest were among those that might
    assert ("ch01", "draft") not in ran  # the person's draft is kept


def test_standard_module_names_are_read_without_importing():
    from orchestrator.checks.known_names import stdlib_names

    assert "IntEnum" in stdlib_names("enum") and "Any" in stdlib_names("typing")
    assert {"makedirs", "path"} <= stdlib_names("os")  # a frozen module, read from its source
    assert "frobnicate" not in stdlib_names("enum")
