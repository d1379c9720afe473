"""Where the built-in prompts, HTML templates and the example source live: inside the wheel
(`orchestrator/_data/...`) when installed, at the top of the repository when run from a
checkout. A workspace's own `prompts/` and `templates/` override them file by file."""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def builtin(kind: str) -> Path:
    """kind: prompts | templates | example."""
    for p in (_PKG / "_data" / kind, _PKG.parent / kind):
        if p.is_dir():
            return p
    raise FileNotFoundError(f"built-in {kind}/ not found next to {_PKG}; the installation is incomplete")


def search_path(kind: str, workspace: Path | None) -> list[Path]:
    """Workspace override first, then the built-in directory."""
    paths = []
    if workspace is not None and (workspace / kind).is_dir():
        paths.append(workspace / kind)
    paths.append(builtin(kind))
    return paths
