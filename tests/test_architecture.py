"""The shape of the package, checked from its source: no import cycle among its modules
(function-local imports count: they still form a cycle at run time; so do the imports made for
types, under `if TYPE_CHECKING:`: a module that names another's types depends on it), no class
built from more than three bases, no module over 500 lines, and the step names spelled as
strings in few modules (the registry names them)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "orchestrator"
MAX_LINES = 500
# Modules still to split, with the size they may not grow past (a ratchet, not a licence).
OVERSIZE: dict[str, int] = {}
STEP_NAMES = {"research", "draft", "r1", "r2", "r3", "review", "panel", "memory", "final", "html",
              "outline", "source_map", "style_guide", "audit", "index"}
MAX_STEP_LITERAL_MODULES = 1  # steps.py, the registry: every other module says STEPS[...], DRAFT, ...


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


@functools.cache
def _parsed(p: Path) -> ast.Module:
    """A module's syntax tree, read once for all the checks (none changes it)."""
    return ast.parse(p.read_text(encoding="utf-8"))


def _imports(name: str) -> set[str]:
    """The package's modules that `name` imports, anywhere in its body."""
    tree = _parsed(MODULES[name])
    here = name.split(".") if _is_package(name) else name.split(".")[:-1]
    found: set[str] = set()
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


@pytest.mark.slow  # builds a whole book or waits on a clock: the full suite runs it
def test_no_import_cycle():
    graph = {m: _imports(m) for m in MODULES}
    assert _cycles(graph) == []


def test_the_cycle_check_counts_imports_made_for_types(tmp_path, monkeypatch):
    (tmp_path / "x.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .walk import Walk\n",
                                   encoding="utf-8")
    monkeypatch.setitem(MODULES, "orchestrator.pipeline.x", tmp_path / "x.py")
    assert "orchestrator.pipeline.walk" in _imports("orchestrator.pipeline.x")


MAX_BASES = 3


def test_no_class_is_built_from_more_than_three_bases():
    """A class of many bases (mixins over one shared state) is read only whole: each part sees
    and may change all of the others' state. Parts are built with what they need instead."""
    wide = sorted(f"{m}.{n.name}" for m, p in MODULES.items()
                  for n in ast.walk(_parsed(p))
                  if isinstance(n, ast.ClassDef) and len(n.bases) > MAX_BASES)
    assert wide == []


def test_the_cycle_finder_finds_cycles():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_over_500_lines():
    too_long = {}
    for m, p in MODULES.items():
        if m.startswith("orchestrator.testing"):
            continue
        n = len(p.read_text(encoding="utf-8").splitlines())
        if n > OVERSIZE.get(m, MAX_LINES):
            too_long[m] = n
    assert too_long == {}


def _other_words(tree: ast.AST) -> set[int]:
    """The constants that merely share a step's spelling: a word in a literal collection whose
    members are mostly not step names is a word of that other kind (`"html"` among file
    extensions, `"index"` among entry-point file stems), not a step named behind the registry's
    back. A collection of step names (`("r1", "r2", "audit")`) still counts, whole."""
    out: set[int] = set()
    for n in ast.walk(tree):
        if isinstance(n, (ast.Tuple, ast.List, ast.Set)) and n.elts and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in n.elts):
            words = [e for e in n.elts if isinstance(e, ast.Constant)]
            if sum(e.value in STEP_NAMES for e in words) * 2 < len(words):
                out |= {id(e) for e in words}
    return out


def _step_literals(p: Path) -> int:
    return _step_literals_of(p.read_text(encoding="utf-8"))


def test_a_step_name_among_other_words_is_not_a_step():
    assert _step_literals_of('EXT = ("py", "md", "html", "css")') == 0
    assert _step_literals_of('FAMILIES = ("r1", "r2", "audit", "editor")') == 3
    assert _step_literals_of('ctx.get("memory", {})') == 1


def _step_literals_of(src: str) -> int:
    tree = ast.parse(src)
    other = _other_words(tree)
    return sum(1 for n in ast.walk(tree)
               if isinstance(n, ast.Constant) and n.value in STEP_NAMES and id(n) not in other)


def test_step_names_are_spelled_in_few_modules():
    spelled = {m for m, p in MODULES.items() if not m.startswith("orchestrator.testing") and _step_literals(p)}
    assert len(spelled) <= MAX_STEP_LITERAL_MODULES, sorted(spelled)


# Lower layers never import higher ones (function-local imports count): the state of the
# files, the source walker, the Markdown rules and the agents' contracts are what the
# pipeline, the agents and the CLI are built on, and a provider only answers requests.
LOWER = ("orchestrator.state", "orchestrator.repo", "orchestrator.text", "orchestrator.contracts")
HIGHER = ("orchestrator.pipeline", "orchestrator.agents", "orchestrator.cli")
NEVER_IMPORTS = {**{low: HIGHER for low in LOWER}, "orchestrator.providers": ("orchestrator.pipeline",)}


def _within(m: str, pkg: str) -> bool:
    return m == pkg or m.startswith(pkg + ".")


def test_lower_layers_never_import_higher_ones():
    wrong = sorted((m, d) for m in MODULES for low, highs in NEVER_IMPORTS.items() if _within(m, low)
                   for d in _imports(m) if any(_within(d, h) for h in highs))
    assert wrong == []


def test_the_layer_rule_sees_function_local_imports(tmp_path, monkeypatch):
    (tmp_path / "x.py").write_text("def f():\n    from ..pipeline import gates\n", encoding="utf-8")
    monkeypatch.setitem(MODULES, "orchestrator.state.x", tmp_path / "x.py")
    assert "orchestrator.pipeline.gates" in _imports("orchestrator.state.x")
