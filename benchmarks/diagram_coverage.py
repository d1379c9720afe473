"""Diagrams of a built book: per chapter, its Mermaid blocks, whether each one renders, and every
name it shows checked against the repository map of the book's source (independently of R1:
a file of the map, or a definition by qualified or bare name; a member or a message to a type
by its qualified name).

    python benchmarks/diagram_coverage.py WORKSPACE [--json]
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import yaml

from orchestrator.authoring.project import load
from orchestrator.diagrams import MermaidError, parse, render_svg
from orchestrator.diagrams.mermaid import is_path


def problems(p, source: str) -> list[str]:
    files = set(p.map.files)
    # qualified names and their dotted suffixes: a nested `Outer.Node.get` is drawn as class `Node`, member `get`
    dotted = {".".join(q[k:]) for fm in p.map.files.values() for d in fm.definitions
              for q in [d.qualified_name.replace("::", ".").split(".")] for k in range(len(q))}
    short = {d.name for fm in p.map.files.values() for d in fm.definitions}
    try:
        d = parse(source)
        render_svg(source)
    except MermaidError as e:
        return [f"does not render: {e}"]
    out = []
    for _, what, name in d.identifiers():
        if is_path(name) and (name in files or any(f.startswith(name.rstrip("/") + "/") for f in files)):
            ok = True
        elif is_path(name) and "/" in name:
            ok = False
        elif what in ("member", "message") and "." in name:
            ok = name in dotted
        else:
            ok = name in dotted or name in short
        if not ok:
            out.append(f"{what} `{name}` is not in the map")
    return out


def main(argv: list[str]) -> int:
    ws = Path(argv[0])
    cfg = yaml.safe_load((ws / "book.yaml").read_text(encoding="utf-8"))
    src = (ws / cfg.get("source", "src")).resolve()
    p = load(src)
    finals = sorted((ws / "output" / "chapters" / "final").glob("ch*-final.md"))
    rows, kinds = [], {"flowchart": 0, "sequence": 0, "class": 0}
    for f in finals:
        blocks = re.findall(r"^```mermaid\n(.*?)^```$", f.read_text(encoding="utf-8"), re.M | re.S)
        bad = [x for b in blocks for x in problems(p, b)]
        for b in blocks:
            try:
                kinds[parse(b).kind] += 1
            except MermaidError:
                pass
        rows.append({"chapter": f.name[:-len("-final.md")], "diagrams": len(blocks), "problems": bad})
    with_one = sum(1 for r in rows if r["diagrams"])
    report = {"source": str(src), "chapters": len(rows), "with_diagram": with_one,
              "diagrams": sum(r["diagrams"] for r in rows), "kinds": kinds,
              "problems": [f"{r['chapter']}: {x}" for r in rows for x in r["problems"]]}
    if "--json" in argv:
        print(json.dumps(report, indent=1))
    else:
        print(f"{src.name}: {with_one}/{len(rows)} chapters with a diagram, {report['diagrams']} diagrams "
              f"({', '.join(f'{k} {v}' for k, v in kinds.items())}), {len(report['problems'])} names not in the map")
        for x in report["problems"][:20]:
            print("  ", x)
    return 1 if report["problems"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
