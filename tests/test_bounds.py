"""Issue 22 (items 4-8): what a run says and settles at the edges: a reordered outline named by
`book run` as by `book scan`, a pasted final accepted, an audit that read a missing final,
file names the walker accepts, and a signal during the plan of a huge tree."""

from __future__ import annotations

from pathlib import Path

from conftest import scan

from orchestrator.steps import BOOK_STEPS, STEPS
from orchestrator.testing.cli import run_cli
from orchestrator.testing.helpers import run_book


def test_a_run_warns_of_an_outline_listed_out_of_order_as_the_scan_does(built_ws: Path):
    outline = built_ws / BOOK_STEPS["outline"].path
    text = outline.read_text()
    a, b, end = text.index("- id: ch02"), text.index("- id: ch03"), text.index("- id: ch04")
    outline.write_text(text[:a] + text[b:end] + text[a:b] + text[end:])
    proc = run_cli("run", "--workspace", str(built_ws))
    assert proc.returncode == 0, proc.stderr
    assert "outline.md lists ch03 before ch02" in proc.stderr and "swap the ids" in proc.stderr


def test_accepting_a_final_that_only_lost_its_marker_settles_it(built_ws: Path):
    final = built_ws / STEPS["final"].file("ch03")
    lines = final.read_text().rstrip("\n").split("\n")
    assert lines[-1].startswith("<!-- CHAPTER_FINAL")
    final.write_text("\n".join(lines[:-1]) + "\n")  # a whole-file paste without the marker line
    code, _ = run_book(built_ws)
    assert code == 3  # kept for the person: it waits for `book accept`
    proc = run_cli("accept", "ch03", "final", "--workspace", str(built_ws))
    assert proc.returncode == 0, proc.stderr
    rep = scan(built_ws)
    assert rep["chapters"]["ch03"]["steps"]["final"] == "edited"
    assert "ch03" not in (built_ws / "output/memory/needs-human.md").read_text()
    code, summary = run_book(built_ws)
    assert code == 0, summary.needs_human
    assert scan(built_ws)["complete"]
