"""`book` installed from a built wheel into a fresh virtual environment, run in a directory
outside the repository, finds its prompts, templates and example (they ship in the wheel)."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest
from conftest import REPO


@pytest.mark.slow
def test_wheel_installs_and_builds_a_book_outside_the_repo(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(REPO)],
                   check=True, capture_output=True)
    wheel, = wheels.glob("book-*.whl")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    py = env_dir / "bin" / "python"
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    # The dependencies come from the test's environment (a plain path: its .pth files, such as
    # the editable install of this repository, are not processed); the package from the wheel.
    Path(site, "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", str(wheel)],
                   check=True, capture_output=True)
    book = env_dir / "bin" / "book"
    where = subprocess.run([str(py), "-c", "import orchestrator; print(orchestrator.__file__)"], check=True,
                           capture_output=True, text=True, cwd=tmp_path).stdout
    assert str(env_dir) in where and str(REPO) not in where
    ws = tmp_path / "elsewhere" / "demo"
    subprocess.run([str(book), "init", str(ws), "--example"], check=True, capture_output=True, cwd=tmp_path)
    cfg = ws / "book.yaml"
    cfg.write_text(cfg.read_text().replace('gates: "normal"', 'gates: "off"'))
    proc = subprocess.run([str(book), "run", "-q", "--workspace", str(ws)], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (ws / "output/publish/index.html").exists() and (ws / "output/publish/book.css").exists()
