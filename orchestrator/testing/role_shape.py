"""The fake API's chapters in the book's shape (issue 23), shared by the prose and the JSON
answers: the planner's first chapter is the big picture, its chapters are grouped in named parts
and its introduction names them;
chapter 1's writer quotes what the prompt's "project's front door" gives (the README's words,
the first example copied exactly, the entry points, one call's path); the editor keeps the
numbered draft it was given. What a careful model does with the same prompt, so the validators
and R3 can hold a run through the fake to the shape."""

from __future__ import annotations

import re

FRONT = "## The project's front door"
_FENCE = re.compile(r"^(```+|~~~+)[^\n]*\n.*?^\1\s*$", re.S | re.M)
_NUMBERED = re.compile(r"^ *(\d+) \| ?(.*)$", re.M)


def overview_title(project: str) -> str:
    return f"{project} at a glance"


def parts_intro(titles: list[str]) -> str:
    """The outline's introduction with its parts: Part 1 the big picture, then using the
    project, then what is inside it."""
    if not titles:
        return "A path through the code."
    using = ", ".join(f"ch{i:02d}" for i in range(2, min(len(titles), 4) + 1))
    inside = ", ".join(f"ch{i:02d}" for i in range(5, len(titles) + 1))
    out = "A path through the code in the order a newcomer explores it. Part 1, The big picture: ch01."
    if using:
        out += f" Part 2, Using it: {using}."
    if inside:
        out += f" Part 3, Inside it: {inside}."
    return out


def in_parts(chapters: list[dict]) -> list[dict]:
    """The chapters under the parts parts_intro names: the big picture (ch01), using it (up to
    ch04), inside it (the rest)."""
    groups = [("The big picture", chapters[:1]), ("Using it", chapters[1:4]), ("Inside it", chapters[4:])]
    return [{"title": t, "chapters": cs} for t, cs in groups if cs]


def front_of(text: str) -> str:
    if FRONT not in text:
        return ""
    after = text.split(FRONT, 1)[1]
    # the block ends at the next `## ` heading outside code
    body, pos = [], 0
    for m in re.finditer(r"^## ", after, re.M):
        if m.start() == 0:
            continue
        inside = [f for f in _FENCE.finditer(after) if f.start() < m.start() < f.end()]
        if not inside:
            pos = m.start()
            break
    body.append(after[:pos] if pos else after)
    return "".join(body)


def overview_chapter(title: str, front: str, para: str) -> str:
    """Chapter 1 from the front door: every quote copied, nothing invented."""
    name = re.search(r"Project: \*\*(.+?)\*\*", front)
    project = name.group(1) if name else "the project"
    quote = "\n".join(ln for ln in front.splitlines() if ln.startswith(">"))
    ex = _FENCE.search(front)
    ex_from = re.search(r"Its first usage example, `([^`]+)` lines (\d+)-(\d+)", front)
    # each name cited at its definition's line, as the front door gives it (the writer's Evidence rule)
    entries = [f"{n} ([{rel}:{ln}](source:{rel}#L{ln}-L{ln}))"
               for n, rel, ln in re.findall(r"^- (`[^`]+`) \([^,]+, `([^`]+)` line (\d+)\)", front, re.M)]
    path = re.search(r"^(`[^\n]*→[^\n]*)$", front, re.M)
    if path:
        cites = " ".join(f"([{rel}:{ln}](source:{rel}#L{ln}-L{ln}))" for rel, ln in re.findall(r"\(`([^`]+)`:(\d+)\)", path.group(1)))
        path = re.match(r"(.*)", re.sub(r" \(`[^`]+`:\d+\)", "", path.group(1)) + " " + cites)
    out = [f"# {title}", "", f"This chapter is the big picture of {project}: what it is for, how a user meets it, "
           "its entry points and parts, and the path one call takes through them. " + para, ""]
    out += [f"## What {project} is for", "", (quote or para), ""]
    out += ["## A first example", ""]
    if ex is not None and ex_from:
        out += [f"A user meets {project} through the example in `{ex_from.group(1)}` (lines {ex_from.group(2)}"
                f"–{ex_from.group(3)}), copied exactly:", "", ex.group(0), ""]
    else:
        out += [para, ""]
    out += ["## The entry points", "", "The names a user writes first: " + (", ".join(entries) or "none listed") + ".",
            "", para, ""]
    out += ["## Following one call", "", (f"One call, step by step: {path.group(1)}." if path else para), "", para, ""]
    out += _path_diagram(path.group(1) if path else "", entries)
    out += ["## Summary", "", "You can now say what the project is for, run its first example and follow one call "
            "from its entry point to the core.", ""]
    return "\n".join(out)


def _path_diagram(path: str, entries: list[str]) -> list[str]:
    """The call path (or else the entry points) the prompt names, as a writer draws it: only
    names the prompt shows, so R1 finds each one in the source."""
    from ..diagrams.mermaid import is_path

    def name(n: str) -> str | None:
        n = n.strip().removesuffix("()")
        return n if re.fullmatch(r"[\w.:$]+", n) and not is_path(n) else None

    # a step is the first name of its segment; "(first `X` …)" is the work the step does before
    # it hands on, drawn as the step's own call, not as a step of the chain
    edges: list[tuple[str, str]] = []
    steps: list[str] = []
    for seg in (path.split("→") if path else []):
        found = [n for n in map(name, re.findall(r"`([^`]+)`", seg.split("(first", 1)[0])) if n]
        first = re.search(r"\(first `([^`]+)`", seg)
        if not found:
            continue
        if steps:
            edges.append((steps[-1], found[0]))
        steps.append(found[0])
        if first and name(first.group(1)):
            edges.append((found[0], name(first.group(1)) or ""))
    names = list(dict.fromkeys([n for e in edges for n in e] or steps or
                               [n for n in map(name, re.findall(r"`([^`]+)`", " ".join(entries))) if n]))[:8]
    if not names:
        return []
    ids = {n: f"n{i}" for i, n in enumerate(names)}
    lines = ["flowchart LR", *[f'    {ids[n]}["{n}"]' for n in names]]
    lines += [f"    {ids[a]} --> {ids[b]}" for a, b in edges if a in ids and b in ids]
    return ["The path, drawn:", "", "```mermaid", *lines, "```", ""]


def draft_in(text: str) -> str:
    """The numbered draft of an editor's or reviewer's prompt, as the draft's text."""
    block = text.split("<draft>", 1)[1].split("</draft>", 1)[0] if "<draft>" in text else ""
    return "\n".join(m.group(2) for m in _NUMBERED.finditer(block)) + "\n" if block.strip() else ""
