"""What a file's imports bring in by a bare name: Python's `from x import name`, Rust's `use`
declarations (`use crate::a::{b, c as d};`, `pub use html::format_document as format_html;`)."""

from __future__ import annotations

import posixpath
import re

from .project import Project, Sym


def python_imports(p: Project, rel: str, name: str) -> bool:
    """The Python file imports `name` by that name (so a bare call reaches the project's definition)."""
    rx = re.compile(rf"^\s*(?:from\s+\S+\s+)?import\s+(?:\(?[^\n]*\b{re.escape(name)}\b)")
    return any(rx.match(ln) for ln in p.lines_of(rel)[:400])


def rust_uses(p: Project, rel: str, name: str) -> bool:
    """The Rust file brings `name` in with a `use` of its own crate (similar's `use crate::{…, capture_diff_deadline, …};`)."""
    return any(local == name and _own(p, path[0]) for path, local in rust_use_items(p, rel))


def _own(p: Project, first: str) -> bool:
    """A `use` path's first segment is this crate's: `crate`, `self`, `super`, or one of its modules (a child
    module too: comfy-table's `use arrangement::arrange_content;` in `utils/mod.rs`)."""
    key = ("rust_modules",)
    if key not in p._keys:
        p._keys[key] = {seg for r in p.files if r.endswith(".rs") for seg in rust_module(r)}
    return first in ("crate", "self", "super") or first in p._keys[key]


def rust_use_items(p: Project, rel: str) -> list[tuple[list[str], str]]:
    """Each name a Rust file's `use` declarations bring in: (its path, the local name), a tree
    `a::{b, c::{d as e}}` flattened (`(['a', 'c', 'd'], 'e')`); paths of other crates too."""
    key = ("rust_uses", rel)
    if key not in p._keys:
        text = re.sub(r"//[^\n]*", "", "\n".join(p.lines_of(rel)))
        out: list[tuple[list[str], str]] = []
        for m in re.finditer(r"(?m)^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", text):
            _flatten(re.sub(r"\s*(::|[{},])\s*", r"\1", re.sub(r"\s+", " ", m.group(1).strip())), [], out)
        p._keys[key] = out
    return list(p._keys[key])


def _flatten(tree: str, prefix: list[str], out: list[tuple[list[str], str]]) -> None:
    head, brace, rest = tree.partition("{")
    if not brace:
        m = re.fullmatch(r"(.*?)(?: as (\w+))?", tree)
        segs = prefix + [x for x in (m.group(1) if m else tree).split("::") if x]
        if segs and segs[-1] not in ("*", "self"):
            out.append((segs, (m.group(2) if m else None) or segs[-1]))
        return
    depth, cur = 0, ""
    for ch in rest[:rest.rfind("}")] + ",":
        if ch == "," and depth == 0:
            if cur:
                _flatten(cur, prefix + [x for x in head.split("::") if x], out)
            cur = ""
            continue
        depth += (ch == "{") - (ch == "}")
        cur += ch


def rust_module(rel: str) -> list[str]:
    """The module path of a Rust file: `src/parser/mod.rs` → ['parser'], `src/html.rs` → ['html']."""
    path = rel.rsplit("src/", 1)[-1] if "src/" in rel else rel
    segs = posixpath.splitext(path)[0].split("/")
    return [x for x in segs if x not in ("mod", "lib", "main")]


def rust_used(p: Project, rel: str, name: str, by_short: dict[str, list[Sym]]) -> list[Sym]:
    """The definition a `use` of its own crate in `rel` brings in as `name`, in the module the `use`
    names (comrak's `pub use html::format_document_with_plugins as format_html_with_plugins`); []
    when none does, or more than one definition of that name is in that module."""
    for path, local in rust_use_items(p, rel):
        if local != name or not _own(p, path[0]):
            continue
        mods = [x for x in path[:-1] if x not in ("crate", "self", "super")]
        hit = [x for x in by_short.get(path[-1], ()) if "." not in x.dotted and x.kind != "macro"
               and (not mods or rust_module(x.rel)[-len(mods):] == mods)]
        if len(hit) == 1:
            return hit
    return []


def rust_type_narrowed(p: Project, s: Sym, typ: str, hits: list[Sym]) -> list[Sym]:
    """Of `hits` (members of several types named `typ`, called in `s`), those of the type the first `use` of its own
    crate in `s`'s file brings in (reqwest's lib.rs: `pub use self::async_impl::{…, Client, …}` before the `wasm` one
    behind another `cfg`, as C#'s first `#if` branch is read); `hits` when no `use` tells them apart, or `s` is no
    Rust of a file."""
    if s.lang != "rust" or len(hits) < 2 or not s.rel:
        return hits
    for path, local in rust_use_items(p, s.rel):
        mods = [x for x in path[:-1] if x not in ("crate", "self", "super")]
        if local != typ or not mods or not _own(p, path[0]):
            continue
        mine = [x for x in hits if rust_module(x.rel)[:len(mods)] == mods]
        if mine:
            return mine
    return hits
