"""Answers for the fake Messages API in the format each role's prompt asks for, so a whole
`book run --provider anthropic` can be rehearsed against it (tests, and people without a
key). The role comes from the user turn's "follow the section 'The writer' of the handbook"
(the handbook layout) or else the system prompt's "You are the writer ..." sentence,
the chapter from the prompt ("## This chapter: ch03 — Title"); the planner reads the file
listing of its prompt. The answers are short but pass every validation. A request with a
JSON Schema (structured outputs) gets the role's JSON (role_json.py)."""

from __future__ import annotations

import re

ROLES = [("the planner", "planner"), ("the researcher", "researcher"), ("the writer", "writer"),
         ("R1, the source-code", "r1"), ("R2, the consistency", "r2"), ("R3, the content", "r3"),
         ("the review merger", "merger"), ("the reader panel", "panel"), ("the long-memory keeper", "memory"),
         ("the editor", "editor"), ("the auditor", "auditor")]


def _text(content) -> str:
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if isinstance(b, dict))


# The handbook layout (agents/handbook.py): the system holds every role's instructions, and the
# user turn opens with "You are ...: follow the section '<title>' of the handbook".
_SECTION = re.compile(r"follow the section '([^']+)' of the handbook")


def role_of(request: dict) -> str:
    messages = request.get("messages") or [{}]
    m = _SECTION.search(_text(messages[0].get("content", ""))[:400])
    if m:
        from ..agents.handbook import ROLE_TITLES

        full = {t: r for r, t in ROLE_TITLES.items()}.get(m.group(1), "")
        return {"r1_code": "r1", "r2_consistency": "r2", "r3_content": "r3", "reader_panel": "panel",
                "memory_keeper": "memory"}.get(full, full or "unknown")
    system = _text(request.get("system", ""))  # the shared book context, then "You are the <role> ..."
    found = [(system.find(f"You are {phrase}"), role) for phrase, role in ROLES]
    found = [(i, role) for i, role in found if i >= 0]
    return min(found)[1] if found else "unknown"


def answer(request: dict, draft_words: int = 0) -> str:
    """The role's answer. `draft_words`: the writer's and the editor's chapters run to about that
    many words (default: ~400, shorter than a real chapter; benchmarks ask for real sizes)."""
    system = _text(request.get("system", ""))
    messages = request.get("messages", [])
    prompt = _text(messages[0]["content"]) if messages else ""
    role = role_of(request)
    m = re.search(r"## This chapter: (ch\d{2,}) — (.+)", prompt)
    ch, title = (m.group(1), m.group(2).strip()) if m else ("ch01", "A chapter")
    para = ("This chapter explains how the code works, one piece at a time, and why it is built the way it is. "
            "It names each function it discusses, says what it takes and returns, and how it fits with the rest. ") * 3
    if request.get("output_config"):  # a structured request: the role's JSON (role_json.py)
        import json

        from .role_json import structured_answer

        obj = structured_answer(role, system, prompt, ch, title)
        if obj is not None:
            return json.dumps(obj, ensure_ascii=False, indent=1)
    if role == "planner":
        paths = re.findall(r"^- `([^`]+\.py)` \((?:code, )?\d+ lines\)", prompt, re.M)  # the planner's listing
        most = re.search(r"At most (\d+) chapters per batch", system + prompt)
        per_batch = int(most.group(1)) if most else 3
        cap = re.search(r"at most (\d+) chapters", system + prompt, re.I)
        paths = [p for p in paths if not p.endswith("__init__.py")][: int(cap.group(1)) if cap else 8] or paths[:1]
        title_m = re.search(r'Propose the outline of "(.+?)"', prompt)
        # Chapter i builds on the last chapter of the previous batch: dependencies point backwards.
        from .role_shape import in_parts, overview_title, parts_intro

        # a careful model's titles say the idea, never only the module's name (issue 35)
        chapters = [{"id": f"ch{i + 1:02d}", "title": f"What {p.rsplit('/', 1)[-1][:-3]} does for its callers",
                     "batch": i // per_batch + 1, "summary": f"How {p} works.",
                     "depends_on": [f"ch{(i // per_batch) * per_batch:02d}"] if i >= per_batch else [],
                     "sources": [p]} for i, p in enumerate(paths)]
        import yaml

        if chapters:  # Part 1: the big picture, named after the project the front door names
            front = re.search(r"Project: \*\*(.+?)\*\*", prompt)
            chapters[0]["title"] = overview_title(front.group(1) if front else "The project")
            chapters[0]["summary"] = "The big picture: what the project is for, a first example, its parts, one call's path."
        block = yaml.safe_dump({"title": title_m.group(1) if title_m else "A book", "parts": in_parts(chapters)},
                               sort_keys=False, allow_unicode=True)
        intro = parts_intro([str(c["title"]) for c in chapters])
        return f"# Outline\n\n{intro}\n\n```yaml\n{block}```\n"
    if role == "researcher":
        symbols = "".join(f"- `{c}` (class): {', '.join(ms)}\n" for c, ms in _classes(prompt))
        return (f"# Research: {ch} — {title}\n\n## Sources\n\n{para}\n\n## Key ideas\n\n- one idea\n- another idea\n\n"
                + (f"## Symbols\n\n{symbols}\n" if symbols else "") + _excerpt(prompt) + "## Open questions\n\n- none\n")
    task = prompt.rsplit("## Your task", 1)[-1]
    start = re.search(r"only, starting with the line `(#{1,2} [^`\n]+)`", task)
    if role in ("writer", "editor") and start:  # a section rewrite (the opening first when asked: its title line)
        heads = re.findall(r"`## ([^`]+)`", task.split("Answer with", 1)[0])
        opening = f"{start.group(1)}\n\n{para}\n\n" if not start.group(1).startswith("## ") else ""
        return opening + "\n\n".join(f"## {h}\n\n{para}" for h in dict.fromkeys(heads)) + "\n"
    if role in ("writer", "editor"):
        from .role_shape import FRONT, draft_in, front_of, overview_chapter

        if role == "writer" and FRONT in prompt:  # chapter 1: the big picture, from the front door
            return overview_chapter(title, front_of(prompt), para)
        kept = draft_in(system + "\n" + prompt) if role == "editor" else ""
        if kept.startswith("# ") and "## What " in kept and "```" in kept:  # the overview: the editor keeps it
            return kept
        body = para
        if draft_words > 4 * len(para.split()):  # more paragraphs per section, to the length asked
            body = "\n\n".join([para] * max(1, round(draft_words / (4 * len(para.split())))))
        cited = _cited(system + "\n" + prompt)
        return (f"# {title}\n\n{body}\n\n## How it works\n\n{cited}{body}\n\n{_diagram(system + chr(10) + prompt)}## Why it is built this way\n\n"
                f"{body}\n\n## Summary\n\n{para}\n")
    if role in ("r1", "r2", "r3", "merger", "auditor"):
        found = re.findall(r"^- \*\*(blocking|major|minor)\*\* .*$", prompt, re.M)
        lines = [ln for ln in prompt.splitlines() if re.match(r"^- \*\*(blocking|major|minor)\*\* `", ln)]
        verdict = "blocked" if "blocking" in found else "clean"
        findings = "\n".join(dict.fromkeys(lines)) or "- none"
        extra = "\n\n## Actions for the editor\n\n- keep the chapter as it is" if role == "merger" else ""
        return f"# Review: {ch} — {title}\n\nVerdict: {verdict}\n\n## Findings\n\n{findings}{extra}\n\n## Notes\n\nChecked.\n"
    if role == "panel":
        names = re.findall(r"^- \*\*(.+?)\*\*", system + "\n" + prompt, re.M)[:3] or ["newcomer"]
        return f"# Reader panel: {ch} — {title}\n\n" + "".join(f"## {n}\n\n- Reads well.\n\n" for n in names)
    if role == "memory":
        return (f"# Memory: {ch} — {title}\n\n## Summary\n\n{title}: what the chapter explains.\n\n## Glossary\n\n"
                f"- **{title.split()[-1]}**: the subject of {ch}.\n\n## Metaphors\n\n(none)\n\n## Cross references\n\n(none)\n")
    from .fake_wire import default_answerer  # not one of book's roles: a generic document

    return default_answerer(request)


_NUMBERED = re.compile(r"^ *(\d+)→(.*)$")  # a source line as the researcher's prompt shows it (source_context.numbered)
_DEF = re.compile(r"^(?:async )?def ([A-Za-z]\w*)\(|^class ([A-Za-z]\w*)\b")
_CITED = re.compile(r"^`([A-Za-z]\w*)` is defined at (\[[^\]\n]+\]\(source:[^)\s]+\))\.$", re.M)


def _excerpt(prompt: str) -> str:
    """The report's excerpt, as a careful researcher makes it from the numbered sources: the first
    top-level class or function of the first file shown, copied without the numbers, its lines
    (`lines=a-b`, the heading, a citation) read off the numbers beside them."""
    for m in re.finditer(r"^(`{3,})\w* file=(\S+)\n(.*?)^\1[ \t]*$", prompt, re.M | re.S):
        rows = [(int(r.group(1)), r.group(2)) for ln in m.group(3).split("\n") if (r := _NUMBERED.match(ln))]
        for i, (n, code) in enumerate(rows):
            d = _DEF.match(code)
            if not d:
                continue
            body = [(n, code)]
            for k, line in rows[i + 1:i + 12]:
                if k != body[-1][0] + 1 or (line.strip() and not line[:1].isspace()):
                    break  # a gap the prompt cut, or the next top-level statement
                body.append((k, line))
            while body and not body[-1][1].strip():
                body.pop()
            name, path, a, b = d.group(1) or d.group(2), m.group(2), body[0][0], body[-1][0]
            code_text = "\n".join(line for _, line in body)
            return (f"## Excerpts\n\n### `{name}` — {path}:{a}-{b}\n\n`{name}` is defined at "
                    f"[{path}:{a}-{b}](source:{path}#L{a}-L{b}).\n\n```python file={path} lines={a}-{b}\n{code_text}\n```\n\n")
    return ""


def _cited(prompt: str) -> str:
    """The research report's cited sentence, as the writer copies it (its citation as it stands)."""
    plain = re.sub(r"^ *\d+ \| ?", "", prompt, flags=re.M)  # the editor's numbered draft
    m = _CITED.search(plain)
    return f"`{m.group(1)}` is defined at {m.group(2)}.\n\n" if m else ""


def _classes(prompt: str) -> list[tuple[str, list[str]]]:
    """(class, its public methods) of the Python sources shown to the researcher (their numbers
    left out)."""
    out: list[tuple[str, list[str]]] = []
    for line in (_NUMBERED.sub(r"\2", ln) for ln in prompt.splitlines()):
        m = re.match(r"^class ([A-Za-z_]\w*)\b", line)
        if m:
            out.append((m.group(1), []))
            continue
        m = re.match(r"^    (?:async )?def ([A-Za-z]\w*)\(", line)
        if m and out and len(out[-1][1]) < 4:
            out[-1][1].append(m.group(1))
        elif (line[:1].isalpha() and not line.startswith("class ")) or line.startswith("# … "):
            out.append(("", []))  # module level again, or an excerpt's gap: the next method is no class's
    return [(c, ms) for c, ms in out if c and ms][:3]


def _diagram(prompt: str) -> str:
    """A diagram of names the prompt shows, as a writer must draw it: the classes and methods of
    the research report's symbols, else the chapter's source files (R1 holds every name). The
    editor keeps the draft's diagram (its material shows the draft with numbered lines)."""
    plain = re.sub(r"^ *\d+ \| ?", "", prompt, flags=re.M)
    kept = re.search(r"^```mermaid\n(.*?)^```$", plain, re.M | re.S)
    if kept:
        return "The parts this chapter explains:\n\n```mermaid\n" + kept.group(1) + "```\n\n"
    classes = re.findall(r"^- `([A-Za-z_]\w*)` \(class\): (.+)$", prompt, re.M)
    if classes:
        lines = ["classDiagram"]
        for c, methods in classes[:3]:
            lines += [f"    class {c} {{", *[f"        +{m.strip()}()" for m in methods.split(",")], "    }"]
    else:
        files = re.findall(r"`([\w./-]+\.\w+)`", (re.findall(r"^- Source files: (.+)$", prompt, re.M) or [""])[0])
        if not files:
            return ""
        lines = ["flowchart LR", *[f'    f{i}["{f}"]' for i, f in enumerate(files[:6])]]
    return "The parts this chapter explains:\n\n```mermaid\n" + "\n".join(lines) + "\n```\n\n"


answer.structured = True  # type: ignore[attr-defined]  # the fake API lets it answer schema requests


def answerer(draft_words: int = 0):
    """`answer` with chapters of about `draft_words` words (0: the short default)."""
    if not draft_words:
        return answer

    def _answer(request: dict) -> str:
        return answer(request, draft_words)

    _answer.structured = True  # type: ignore[attr-defined]
    return _answer
