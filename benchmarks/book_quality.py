"""How good is a built book? For one workspace (after `book run`), print: the chapter titles,
code blocks per chapter (and how many cite a file), R1's blocking findings over the finals,
Sphinx/RST markup left in the finals' prose, the share of the project's core symbols (from
EXPECTED.md, written before any book was built) the finals mention, and the share that is the
subject of a section of its own (a `## ` heading naming it in code), and for a Chinese book
the CJK share of the prose (code and quoted source aside). What a reader trips over: chapters
whose opening sentence is another's with only the names changed (a template), glossary
entries whose definition is another's with only the names changed (a definition that says
nothing of its term), and links to chapters that do not exist.

The book's shape (issue 23): the share of sections that are one symbol's doc (a `##`/`###`
heading that is a lone code span), whether chapter 1 is the big picture (it quotes, verbatim, a
code example that is in the project's README, docs or examples, and names in code the entry
points written down in benchmarks/first_meeting.md before any book was built), whether the
book's title is the project's name, and chapter 1's title and opening paragraph.

    .venv/bin/python benchmarks/book_quality.py WORKSPACE [--expected /work/corpus/EXPECTED.md] [--project NAME]
        [--first-meeting benchmarks/first_meeting.md --repo click]
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


def prose_sentences(md: str) -> list[str]:
    """The prose sentences of a chapter: its paragraphs and list items, not its headings, code,
    tables, block quotes (the source's own words) or diagrams; split at sentence ends once the
    names are blanked (a `.` in `cache.py` ends no sentence). A list item that is no sentence (a
    table of contents' entry, `- `x` of type `int``) is a fragment, not prose: left out."""
    out: list[str] = []
    for para in re.split(r"\n\s*\n", prose(md)):
        lines = [ln for ln in para.splitlines() if ln.strip() and not ln.lstrip().startswith(("#", "|", ">", "<!--"))]
        for item in re.split(r"\n(?=\s*(?:[-*+]|\d+[.)])\s)", "\n".join(lines)):
            listed = re.match(r"^\s*(?:[-*+]|\d+[.)])\s+", item)
            bare = re.sub(r"\s*\(\[[^\]]*\]\([^)]*\)\)", "", item).rstrip()  # its citations off
            if listed and not bare.endswith((".", "!", "?", ":", "。", "！", "？", "：")):
                continue
            text = _shape(re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", item))
            out += [x for x in re.split(r"(?<=[.!?。！？])\s+", text) if len(re.findall(r"[A-Za-z]{2,}|[\u4e00-\u9fff]", x)) >= 3]
    return out


def template_share(finals: dict[str, str]) -> tuple[int, int]:
    """(sentences whose shape three or more of the book's prose sentences share, all prose
    sentences): a sentence counts when it shares its shape (names, numbers, links masked) with two
    or more others — the share of the book a template wrote."""
    from collections import Counter

    shapes = [s.strip().lower() for t in finals.values() for s in prose_sentences(t)]
    counts = Counter(shapes)
    return sum(1 for s in shapes if counts[s] >= 3), len(shapes)


def traced_path(chapter: str) -> list[str]:
    """The calls a chapter traces: the numbered steps of its section that follows a call ("1. `A` calls
    `B` …", or "`A` runs `B` through `via`": a step a framework's convention makes, story.ov_path_hop),
    with what a step says its caller ran before the hand-off ("Before that, at line 185, it calls `gatherInfo`")."""
    path_sec = next((sec for sec in re.split(r"(?m)^## ", prose(chapter)) if re.search(r"(?m)^1\. `[^`]+` (?:calls|runs) `", sec)), "")
    # (the example's set-up first, when it has one, then the run: each list's first step names where it starts)
    steps = re.findall(r"(?m)^(\d+)\. `([^`]+)` (?:calls|runs) `([^`]+)`(.*)$", path_sec)
    return [x for k, a, b, rest in steps
            for x in ([a] if k == "1" else []) + re.findall(r"\b(?:calls|runs) `([^`]+)`", rest) + [b]]


def story_report(ws: Path, finals: dict[str, str]) -> dict[str, object]:
    """Issue 35's figures: the chapter titles and the share that only name code (a module's name,
    a list of symbols: contracts.title_shape), the template share of the prose, the calls chapter
    1 traces (its numbered steps `A` calls `B`), and its first diagram's nodes and how many are files."""
    from orchestrator.contracts.title_shape import name_title
    from orchestrator.diagrams.mermaid import MermaidError, is_path, parse
    from orchestrator.outline import load as load_outline

    try:
        o = load_outline(ws)
    except Exception:  # noqa: BLE001 - a benchmark reads what there is
        o = None
    sources = {c.id: list(c.sources) for c in o.chapters} if o else {}
    names = {re.split(r"\.|::", c.rstrip("()!"))[-1] for t in finals.values() for c in re.findall(r"`([^`]+)`", prose(t))}
    names = {n for n in names if re.fullmatch(r"[A-Za-z_$][\w$]*", n)}
    project = config.load(ws).source_dir.name
    from orchestrator.repo.project import discover

    try:
        project = discover(config.load(ws).source_dir).name
    except OSError:
        pass
    titles = [(ch, next((ln[2:] for ln in t.splitlines() if ln.startswith("# ")), "")) for ch, t in finals.items()]
    named = [(ch, t, why) for ch, t in titles if (why := name_title(t, sources.get(ch, []), names, project))]
    shared, total = template_share(finals)
    first = finals.get(min(finals), "") if finals else ""
    path = traced_path(first)
    nodes, files, kind = 0, 0, ""
    for b in checks.code_blocks(first):
        if b.lang.lower() == "mermaid":
            try:
                d = parse(b.code)
            except MermaidError:
                continue
            kind = d.kind
            labels = [n.label for n in d.nodes.values()]
            nodes = len(labels)
            files = sum(1 for lab in labels if is_path(lab.rsplit(": ", 1)[-1]) and not lab.rstrip().endswith("/"))
            break
    return {"titles": [t for _c, t in titles], "name_titles": [f"{c}: {t} ({w})" for c, t, w in named],
            "name_title_share": round(len(named) / max(1, len(titles)), 3),
            "template_sentences": shared, "prose_sentences": total, "template_share": round(shared / max(1, total), 3),
            "ch1_path": path, "first_diagram": {"kind": kind, "nodes": nodes, "files": files}}


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


def first_meeting(path: Path, repo: str) -> list[str]:
    """The `names:` line of a repository's entry in first_meeting.md."""
    text = path.read_text(encoding="utf-8")
    m = re.search(rf"(?ms)^## {re.escape(repo)} \(.*?(?=^## |\Z)", text)
    names = re.search(r"(?m)^- names: (.+)$", m.group(0)) if m else None
    return [n.strip() for n in names.group(1).split(",")] if names else []


def _norm(code: str) -> list[str]:
    import textwrap

    lines = [ln.rstrip() for ln in textwrap.dedent(code.replace("\t", "    ")).splitlines()]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def quoted_from(code: str, texts: dict[str, str]) -> str | None:
    """The project file whose text holds the block verbatim (modulo indentation; a line `...`
    elides), or None."""
    parts = [p for p in re.split(r"(?m)^\s*(?:\.\.\.|# \.\.\.|// \.\.\.)\s*$", code) if p.strip()]
    if not parts:
        return None
    for rel, text in texts.items():
        hay = "\n".join(ln.strip() for ln in text.splitlines())
        if all("\n".join(ln.strip() for ln in _norm(part)) in hay for part in parts):
            return rel
    return None


def shape_report(ws: Path, src: Path, finals: dict[str, str], names: list[str]) -> dict[str, object]:
    """The book's shape, measured (see the module doc)."""
    from orchestrator.repo.project import discover

    info = discover(src)
    heads: list[str] = []
    single = 0
    for t in finals.values():
        # a section is one symbol's when its heading names one symbol (`## `Name``, "What `Name` does")
        # and its body quotes at most one block of code: the per-symbol lookup the issue counted
        for head, body in re.findall(r"(?ms)^#{2,3} ([^\n]+)\n(.*?)(?=^#{1,3} |\Z)", t):
            heads.append(head)
            if len(re.findall(r"`[^`]+`", head)) == 1 and len(re.findall(r"(?m)^[ \t]*(?:```|~~~)", body)) <= 2:
                single += 1
    first = finals.get(min(finals)) or ""
    texts: dict[str, str] = {}
    for rel in ([info.readme] if info.readme else []) + list(info.docs[:60]) + list(info.examples[:60]):
        try:
            texts[rel] = info.read(rel)
        except OSError:
            continue
    quoted = [q for b in checks.code_blocks(first) if (q := quoted_from(b.code, texts))]
    code_spans = {c for c in re.findall(r"`([^`]+)`", prose(first))} | {
        w for b in checks.code_blocks(first) for w in re.findall(r"[A-Za-z_]\w*", b.code)}
    spans_last = {re.split(r"\.|::", c.rstrip("()!"))[-1] for c in code_spans}
    named = [n for n in names if n in spans_last or n in code_spans]
    title_line = next((ln[2:] for ln in first.splitlines() if ln.startswith("# ")), "")
    paras = [x.strip() for x in prose(first).split("\n\n") if x.strip() and not x.strip().startswith("#")]
    from orchestrator.outline import load as load_outline  # the book's title as the site shows it

    try:
        o = load_outline(ws)
        book_title = o.title if o else ""
    except Exception:  # noqa: BLE001 - a benchmark reads what there is
        book_title = ""
    book_title = book_title or config.load(ws).title
    return {"sections": len(heads), "single_symbol_sections": single,
            "single_symbol_share": round(single / max(1, len(heads)), 3),
            "example_quoted_from": quoted[0] if quoted else "", "entry_points_named": named, "entry_points_expected": names,
            "overview": bool(quoted) and bool(named), "book_title": book_title, "project_name": info.name,
            "title_is_project": info.name.lower() in book_title.lower() and not re.search(
                r"(?i)^inside (src|lib|java|include|source)\b", book_title),
            "ch1_title": title_line, "ch1_opening": paras[0] if paras else ""}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workspace", type=Path)
    ap.add_argument("--expected", type=Path, default=Path("/work/corpus/EXPECTED.md"))
    ap.add_argument("--project", default=None, help="the project's name in EXPECTED.md (default: the source's directory)")
    ap.add_argument("--first-meeting", type=Path, default=Path(__file__).with_name("first_meeting.md"))
    ap.add_argument("--repo", default=None, help="the repository's entry in first_meeting.md (default: the project's name)")
    ap.add_argument("--shape-json", action="store_true", help="print only the shape figures, as one JSON document")
    ap.add_argument("--story-json", action="store_true", help="print only issue 35's figures (titles, template share, "
                    "chapter 1's path, first diagram), as one JSON document")
    a = ap.parse_args()
    cfg = config.load(a.workspace)
    src = cfg.source_dir
    finals_dir = a.workspace / "output" / "chapters" / "final"
    finals = {p.name.split("-")[0]: p.read_text(encoding="utf-8") for p in sorted(finals_dir.glob("ch*-final.md"))}
    if not finals:
        print(f"{finals_dir}: no final chapters", file=sys.stderr)
        return 1
    if a.story_json:
        import json

        print(json.dumps(story_report(a.workspace, finals), ensure_ascii=False, indent=1))
        return 0
    from orchestrator.repo.project import discover

    repo = a.repo or discover(src).name.lower()
    shape = shape_report(a.workspace, src, finals,
                         first_meeting(a.first_meeting, repo) if a.first_meeting.is_file() else [])
    if a.shape_json:
        import json

        print(json.dumps(shape, ensure_ascii=False, indent=1))
        return 0
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
    story = story_report(a.workspace, finals)
    print(f"titles that only name code: {len(story['name_titles'])}/{len(titles)} ({story['name_title_share']:.0%}); "
          f"template share of prose: {story['template_sentences']}/{story['prose_sentences']} "
          f"({story['template_share']:.0%}); chapter 1 traces {' → '.join(story['ch1_path']) or 'nothing'}; "
          f"first diagram {story['first_diagram']}")
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
    print(f"shape: single-symbol sections {shape['single_symbol_sections']}/{shape['sections']} "
          f"({shape['single_symbol_share']:.0%}); overview {shape['overview']} (example quoted from "
          f"{shape['example_quoted_from'] or 'nowhere'}; entry points named {shape['entry_points_named']}); "
          f"title '{shape['book_title']}' is the project's name ({shape['project_name']}): {shape['title_is_project']}")
    print(f"chapter 1: {shape['ch1_title']}\n  {shape['ch1_opening'][:400]}")
    if cfg.language == "zh":
        shares = {ch: cjk_share(t) for ch, t in finals.items()}
        whole = cjk_share("\n".join(finals.values()))
        print(f"CJK share of prose: {whole:.0%} (lowest chapter {min(shares.values()):.0%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
