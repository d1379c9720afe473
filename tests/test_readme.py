"""Issue 25, item 7: the README's quick starts work as written. Each `sh` block under "A book
about your repository" and "With Claude" runs line by line in a shell, with the installed
`book` on PATH; the only substitutions are the ones the README asks of its reader (the path of
your repository, your key: here the demo's source and the fake Messages API)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from orchestrator.testing.fake_api import FakeAPI
from orchestrator.testing.role_answers import answer

ROOT = Path(__file__).resolve().parent.parent
BIN = str(Path(sys.executable).parent)

pytestmark = pytest.mark.slow


def block(section: str) -> list[str]:
    """The command lines of the first `sh` block under the README heading `section`."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    after = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    body = re.search(r"```sh\n(.*?)```", after, re.S)
    assert body, f"no sh block under '{section}'"
    return [line for line in body.group(1).splitlines() if line.strip()]


def shell(lines: list[str], cwd: Path, env: dict[str, str], stdin: str = "") -> list[tuple[str, int, str]]:
    """Run the lines in one shell (a `cd` or `export` carries on, as for a reader) and give
    each line's exit code and output."""
    script = []
    for n, line in enumerate(lines):
        script += [line, f'echo "@@{n} $?" >&2']
    proc = subprocess.run(["bash", "-c", "\n".join(script)], cwd=cwd, env=env, input=stdin,
                          capture_output=True, text=True, timeout=600)
    out, codes = proc.stdout + proc.stderr, dict(re.findall(r"^@@(\d+) (\d+)$", proc.stderr, re.M))
    return [(line, int(codes.get(str(n), -1)), out) for n, line in enumerate(lines)]


def test_a_book_about_your_repository(tmp_path: Path):
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "example", repo, ignore=shutil.ignore_patterns("__pycache__"))
    lines = [line.replace("/path/to/your/repo", str(repo)) for line in block("A book about your repository")]
    env = dict(os.environ, PATH=BIN + os.pathsep + os.environ["PATH"])
    env.pop("ANTHROPIC_API_KEY", None)  # the offline provider, as on a machine without a key
    results = shell(lines, tmp_path, env, stdin="\n" * 500)  # Enter approves every card
    codes = {line.split()[1]: code for line, code, _ in results if line.startswith("book ")}
    out = results[0][2]
    assert codes == {"init": 0, "run": 3, "review": 0}, out[-3000:]
    assert (tmp_path / "mybook/output/publish/index.html").exists()
    scan = subprocess.run([f"{BIN}/book", "scan", "--json", "-w", str(tmp_path / "mybook")],
                          capture_output=True, text=True)
    assert json.loads(scan.stdout)["complete"], scan.stdout[-2000:]


def test_with_claude(tmp_path: Path):
    api = FakeAPI(answerer=answer)
    url = api.start()
    try:
        ws = tmp_path / "ws"
        subprocess.run([f"{BIN}/book", "init", str(ws), "--example"], check=True, capture_output=True)
        cfg = ws / "book.yaml"
        cfg.write_text(re.sub(r"(?m)^gates:.*$", "gates: off", cfg.read_text())
                       .replace("max_chapters: 12", "max_chapters: 2"))
        env = dict(os.environ, PATH=BIN + os.pathsep + os.environ["PATH"], ANTHROPIC_BASE_URL=url)
        results = shell(block("With Claude"), ws, env)
        got = {" ".join(line.split()[:2]) + (" --dry-run" if "--dry-run" in line else ""): code
               for line, code, _ in results if line.startswith("book ")}
        out = results[0][2]
        assert got == {"book doctor": 0, "book run --dry-run": 0, "book run": 0, "book cost": 0}, out[-3000:]
        assert any(r["path"].startswith("/v1/messages/batches") for r in api.requests)  # --message-batches
        assert "$" in out
    finally:
        api.stop()
