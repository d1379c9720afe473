"""What a Python module defines and imports, through `ast` (the legacy offline planner and
researcher in providers/offline.py). Listing and reading the source tree is repo/walk.py's
job alone: every reader goes through `walk` and `read_source`."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

CODE_EXT = {".py", ".pyi", ".js", ".ts", ".go", ".rs", ".c", ".h", ".cc", ".cpp", ".hpp", ".java", ".kt", ".rb", ".sh",
            ".sql", ".lua", ".swift"}


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
