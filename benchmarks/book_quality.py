"""How good is a built book? For one workspace (after `book run`), print: the chapter titles,
code blocks per chapter (and how many cite a file), R1's blocking findings over the finals,
Sphinx/RST markup left in the finals' prose, the share of the project's core symbols (from
EXPECTED.md, written before any book was built) the finals mention, and the share that is the
subject of a section of its own (a `## ` heading naming it in code), and for a Chinese book
the CJK share of the prose (code and quoted source aside). What a reader trips over: chapters
whose opening sentence is another's with only the names changed (a template), glossary
entries whose definition is another's with only the names changed (a definition that says
nothing of its term), and links to chapters that do not exist.

    .venv/bin/python benchmarks/book_quality.py WORKSPACE [--expected /work/corpus/EXPECTED.md] [--project NAME]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from orchestrator import checks, config  # noqa: E402
from orchestrator.text.docstrings import markup_leaks  # noqa: E402
from orchestrator.text.measure import cjk_share  # noqa: E402

ALIASES = {"json": "serde_json"}  # corpus directory -> its name in EXPECTED.md


def expected_symbols(path: Path, project: str) -> list[tuple[str, list[str]]]:
    """(entry as written, the names that count as mentioning it) for one project."""
    for line in path.read_text(encoding="utf-8").splitlines():
        name, sep, rest = line.partition(":")
        if sep and name.strip() == project:
            entries, depth, cur = [], 0, ""
            for ch in rest:
                depth += ch == "("
                depth -= ch == ")"
                if ch == "," and depth == 0:
                    entries.append(cur.strip())
                    cur = ""
                else:
                    cur += ch
            entries.append(cur.strip())
            out = []
            for e in filter(None, entries):
                head = re.sub(r"\(.*?\)", "", e).strip()
                alts = re.split(r"\s*/\s*", head.split()[0]) if head else []
                inner = re.findall(r"\(([^)]*)\)", e)
                names = []
                for a in alts:
                    a = a.strip("!()").replace("::", ".")
                    if "." in a and "/" not in a:
                        owner, _, member = a.rpartition(".")
                        names.append(member.split("/")[0])
                    else:
                        names.append(a)
                if inner:
                    names += [x.strip().strip("!()").rsplit(".", 1)[-1] for x in re.split(r"[/,]| or ", inner[0])
                              if re.match(r"^[\w.!()]+$", x.strip())]
                out.append((e, [n for n in names if n]))
            return out
    return []


def mentioned(text: str, names: list[str]) -> bool:
    return any(re.search(rf"(?<![\w$]){re.escape(n)}(?![\w$])", text) for n in names)


def section_names(md: str) -> set[str]:
    """The names a chapter's sections are about: the code spans of its `## ` headings, each as
    written and by its last component (`Flask.wsgi_app` counts for `wsgi_app`)."""
    out: set[str] = set()
    for line in prose(md).splitlines():
        if line.startswith("## "):
            for code in re.findall(r"`([^`]+)`", line):
                out.add(code)
                out.add(re.split(r"\.|::", code)[-1])
    return out


def prose(md: str) -> str:
    return re.sub(r"(?ms)^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?^[ \t]*\1[ \t]*$", "", md)


def _shape(text: str) -> str:
    """A sentence with its names (code spans, bold terms, link texts and targets, numbers) blanked:
    two sentences of the same shape differ only in the names a template filled in."""
    text = re.sub(r"\[[^\]]*\]\([^)]*\)", "[]", text)
    text = re.sub(r"`[^`]*`|\*\*[^*]+\*\*|\d+", "_", text)
    return " ".join(text.split())


def opening_sentence(md: str) -> str:
    """The first sentence of the first paragraph after the title, its names blanked (_shape)."""
    for para in prose(md).split("\n\n"):
        para = _shape(para.strip())  # names blanked first: a `.` in `cache.py` or `ch01.md` ends no sentence
        if para and not para.startswith("#"):
            return re.split(r"(?<=[.!?。！？])\s*", para, maxsplit=1)[0]
    return ""


def glossary_definitions(md: str) -> list[str]:
    """The definitions of the `**term**: definition` entries under a Key terms heading."""
    out, inside = [], False
    for line in prose(md).splitlines():
        if line.startswith("## "):
            inside = line[3:].strip() in ("Key terms", "关键术语")
            continue
        m = re.match(r"^\*\*[^*]+\*\*\s*[:：]\s*(.+)$", line) if inside else None
        if m:
            out.append(m.group(1))
    return out


def reader_trips(finals: dict[str, str]) -> dict[str, int]:
    """Counts of what a reader trips over (see the module doc)."""
    shapes = [opening_sentence(t) for t in finals.values()]
    defs = [_shape(d) for t in finals.values() for d in glossary_definitions(t)]
    links = [m for t in finals.values() for m in re.findall(r"\]\((ch\d{2,})\.md(?:#[^)]*)?\)", prose(t))]
    return {"templated openings": sum(1 for x in shapes if x and shapes.count(x) > 1),
            "glossary entries": len(defs),
            "templated definitions": sum(1 for x in defs if defs.count(x) > 1),
            "broken chapter links": sum(1 for c in links if c not in finals)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workspace", type=Path)
    ap.add_argument("--expected", type=Path, default=Path("/work/corpus/EXPECTED.md"))
    ap.add_argument("--project", default=None, help="the project's name in EXPECTED.md (default: the source's directory)")
    a = ap.parse_args()
    cfg = config.load(a.workspace)
    src = cfg.source_dir
    finals_dir = a.workspace / "output" / "chapters" / "final"
    finals = {p.name.split("-")[0]: p.read_text(encoding="utf-8") for p in sorted(finals_dir.glob("ch*-final.md"))}
    if not finals:
        print(f"{finals_dir}: no final chapters", file=sys.stderr)
        return 1
    print(f"# {a.workspace} (source {src}, language {cfg.language})")
    blocking = leaks = 0
    print("\n## chapters: title | code blocks (citing a file) | R1 blocking | markup")
    for ch, text in finals.items():
        title = next((ln[2:] for ln in text.splitlines() if ln.startswith("# ")), "?")
        blocks = checks.code_blocks(text)
        found, _verified = checks.check_code(text, src)
        b = sum(1 for f in found if f.severity == "blocking")
        m = markup_leaks(text)
        blocking += b
        leaks += m
        print(f"- {ch} | {title} | {len(blocks)} ({sum(1 for x in blocks if x.file)}) | {b} | {m}")
    titles = [next((ln[2:] for ln in t.splitlines() if ln.startswith("# ")), "") for t in finals.values()]
    subjects = [re.split(r" — |：", t, maxsplit=1)[0] for t in titles]
    shared = sorted({x for x in subjects if subjects.count(x) > 1})
    print(f"\ntitles distinct: {len(set(titles)) == len(titles)}; titles sharing a subject: "
          f"{sum(subjects.count(x) for x in shared)} ({'; '.join(shared) or 'none'}); chapters without a cited code block: "
          f"{sum(1 for t in finals.values() if not any(x.file for x in checks.code_blocks(t)))}")
    trips = reader_trips(finals)
    print("reader trips: " + "; ".join(f"{k} {v}" for k, v in trips.items()))
    print(f"R1 blocking findings: {blocking}")
    print(f"Sphinx/RST markup in prose: {leaks}")
    project = a.project or ALIASES.get(src.name, src.name)
    exp = expected_symbols(a.expected, project) if a.expected.is_file() else []
    if exp:
        whole = "\n".join(finals.values())
        in_prose = prose(whole)
        anywhere = [e for e, names in exp if mentioned(whole, names)]
        told = [e for e, names in exp if mentioned(in_prose, names)]
        missing = [e for e, names in exp if not mentioned(whole, names)]
        heads = section_names(whole)
        taught = [e for e, names in exp if any(n in heads for n in names)]
        print(f"EXPECTED ({project}): {len(anywhere)}/{len(exp)} mentioned ({len(anywhere) / len(exp):.0%}); "
              f"in prose {len(told)}/{len(exp)} ({len(told) / len(exp):.0%}); "
              f"taught in a section of their own {len(taught)}/{len(exp)} ({len(taught) / len(exp):.0%})")
        untaught = [e for e, names in exp if not any(n in heads for n in names)]
        if untaught:
            print("  no section: " + "; ".join(untaught))
        if missing:
            print("  missing: " + "; ".join(missing))
    if cfg.language == "zh":
        shares = {ch: cjk_share(t) for ch, t in finals.items()}
        whole = cjk_share("\n".join(finals.values()))
        print(f"CJK share of prose: {whole:.0%} (lowest chapter {min(shares.values()):.0%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
