"""The shape of the package, checked from its source: no import cycle among its modules
(function-local imports count: they still form a cycle at run time), no module over 500 lines,
and the step names spelled as strings in at most five modules (the registry names them)."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "orchestrator"
MAX_LINES = 500
# Another helper is rewriting these now; they join the rules when that work lands.
EXEMPT = {"orchestrator.providers.anthropic", "orchestrator.testing.fake_api"}
# Modules still to split, with the size they may not grow past (a ratchet, not a licence).
OVERSIZE = {"orchestrator.pipeline.runner": 760,
            "orchestrator.providers.offline": 581, "orchestrator.text.docstrings": 531, "orchestrator.repo.walk": 503}
STEP_NAMES = {"research", "draft", "r1", "r2", "r3", "review", "panel", "memory", "final", "html",
              "outline", "source_map", "style_guide", "audit", "index"}
MAX_STEP_LITERAL_MODULES = 14  # back to 5 once authoring/ and contracts/ ask the registry (in progress)


def _modules() -> dict[str, Path]:
    out = {}
    for p in PKG.rglob("*.py"):
        parts = list(p.relative_to(PKG.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = p
    return out


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _imports(name: str) -> set[str]:
    """The package's modules that `name` imports, anywhere in its body."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    here = name.split(".") if _is_package(name) else name.split(".")[:-1]
    found: set[str] = set()
    # `if TYPE_CHECKING:` imports never run: they are annotations, not dependencies
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            node.body = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found |= {f"{target}.{a.name}" for a in node.names}
    deps = set()
    for t in found:
        # importing a.b.c runs a/__init__, a/b/__init__ and a/b/c
        parts = t.split(".")
        deps |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)} & set(MODULES)
    deps.discard(name)
    deps -= {p for p in deps if name.startswith(p + ".")}  # a module's own parent packages are already running
    return deps


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle():
    graph = {m: _imports(m) - EXEMPT for m in MODULES if m not in EXEMPT}
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_cycles():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_over_500_lines():
    too_long = {}
    for m, p in MODULES.items():
        if m in EXEMPT or m.startswith("orchestrator.testing"):
            continue
        n = len(p.read_text(encoding="utf-8").splitlines())
        if n > OVERSIZE.get(m, MAX_LINES):
            too_long[m] = n
    assert too_long == {}


def _step_literals(p: Path) -> int:
    tree = ast.parse(p.read_text(encoding="utf-8"))
    return sum(1 for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value in STEP_NAMES)


def test_step_names_are_spelled_in_few_modules():
    spelled = {m for m, p in MODULES.items() if not m.startswith("orchestrator.testing") and _step_literals(p)}
    assert len(spelled) <= MAX_STEP_LITERAL_MODULES, sorted(spelled)
