"""Reading the source tree the book is about: which files count, and what a Python module
defines and imports (the offline planner and researcher build on this)."""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from pathlib import Path

TEXT_EXT = {".py", ".pyi", ".md", ".rst", ".txt", ".toml", ".cfg", ".ini", ".yaml", ".yml", ".json", ".js", ".ts",
            ".go", ".rs", ".c", ".h", ".cc", ".cpp", ".hpp", ".java", ".kt", ".rb", ".sh", ".sql", ".lua", ".swift"}
CODE_EXT = TEXT_EXT - {".md", ".rst", ".txt", ".toml", ".cfg", ".ini", ".yaml", ".yml", ".json"}
SKIP_DIRS = {".git", "__pycache__", "node_modules", ".venv", "venv", "build", "dist", ".tox", ".mypy_cache"}
MAX_BYTES = 200_000


def list_files(root: Path) -> list[str]:
    """Relative POSIX paths of the text files worth reading, sorted."""
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not x.startswith("."))
        for f in files:
            p = Path(d) / f
            if p.suffix in TEXT_EXT and not f.startswith(".") and p.stat().st_size <= MAX_BYTES:
                out.append(p.relative_to(root).as_posix())
    return sorted(out)


@dataclass
class Symbol:
    name: str  # qualified within the module: `Store.get`
    kind: str  # class | function | method
    line: int
    end: int
    signature: str
    doc: str


@dataclass
class Module:
    path: str
    name: str  # dotted module name
    doc: str = ""
    imports: list[str] = field(default_factory=list)  # dotted names of modules imported
    symbols: list[Symbol] = field(default_factory=list)
    lines: int = 0


def module_name(path: str) -> str:
    parts = path[:-3].split("/") if path.endswith(".py") else path.split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    args = ast.unparse(node.args)
    ret = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    return f"{'async ' if isinstance(node, ast.AsyncFunctionDef) else ''}def {node.name}({args}){ret}"


def analyse_python(path: str, text: str) -> Module:
    mod = Module(path, module_name(path), lines=text.count("\n") + 1)
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return mod
    mod.doc = ast.get_docstring(tree) or ""
    pkg = mod.name.split(".")
    if not path.endswith("__init__.py"):
        pkg = pkg[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mod.imports += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg[: len(pkg) - node.level + 1] if node.level > 1 else pkg
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            if node.module is None and node.level:
                mod.imports += [f"{prefix}.{a.name}" for a in node.names]
            else:
                mod.imports.append(prefix)
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            bases = ", ".join(ast.unparse(b) for b in node.bases)
            mod.symbols.append(Symbol(node.name, "class", node.lineno, node.end_lineno or node.lineno,
                                      f"class {node.name}({bases})" if bases else f"class {node.name}",
                                      ast.get_docstring(node) or ""))
            for sub in node.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                        not sub.name.startswith("_") or sub.name == "__init__"):
                    mod.symbols.append(Symbol(f"{node.name}.{sub.name}", "method", sub.lineno,
                                              sub.end_lineno or sub.lineno, _signature(sub), ast.get_docstring(sub) or ""))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            mod.symbols.append(Symbol(node.name, "function", node.lineno, node.end_lineno or node.lineno,
                                      _signature(node), ast.get_docstring(node) or ""))
    return mod


def read_text(root: Path, rel: str) -> str:
    try:
        return (root / rel).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
