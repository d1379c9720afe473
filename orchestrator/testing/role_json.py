"""The fake API's structured answers (issue 11): for a request carrying a JSON Schema
(`output_config.format`), the JSON a careful model of that role would send, read from the
prompt — the deterministic findings it was given (with the quoted draft line), the personas,
the chapter, the planner's file listing. Valid for the role's contract (`from_json`), so a
whole book runs through the fake on the structured path."""

from __future__ import annotations

import re
from typing import Any

FINDING_RE = re.compile(r"^- \*\*(blocking|major|minor)\*\* `([^`]+)`(?: (ch\d{2,}))?(?: line (\d+))?: (.*)$", re.M)
NUMBERED_RE = re.compile(r"^ *(\d+) \| (.*)$", re.M)


def _findings(prompt: str, with_chapter: bool, material: str = "") -> list[dict[str, Any]]:
    """The findings the prompt lists (the tool's), each with the numbered draft's line quoted
    (the draft is in the prompt, or in the system's cached chapter material)."""
    draft = {int(n): t for n, t in NUMBERED_RE.findall(material + "\n" + prompt)}
    out, seen = [], set()
    for sev, check, ch, line, msg in FINDING_RE.findall(prompt):
        key = (sev, check, ch, line, msg)
        if key in seen:
            continue
        seen.add(key)
        f: dict[str, Any] = {"severity": sev, "check": check, "message": msg}
        if line and int(line):
            f["line"] = int(line)
            if draft.get(int(line), "").strip():
                f["quote"] = draft[int(line)]
        if ch and with_chapter:
            f["chapter"] = ch
        out.append(f)
    return out


def _outline(system: str, prompt: str) -> dict[str, Any]:
    paths = re.findall(r"^- `([^`]+\.py)` \((?:code, )?\d+ lines\)", prompt, re.M)  # the planner's file listing
    most = re.search(r"At most (\d+) chapters per batch", system + prompt)
    per_batch = int(most.group(1)) if most else 3
    cap = re.search(r"at most (\d+) chapters", system + prompt, re.I)
    paths = [p for p in paths if not p.endswith("__init__.py")][: int(cap.group(1)) if cap else 8] or paths[:1]
    title_m = re.search(r'Propose the outline of "(.+?)"', prompt)
    chapters = [{"id": f"ch{i + 1:02d}", "title": f"What {p.rsplit('/', 1)[-1][:-3]} does for its callers", "batch": i // per_batch + 1,
                 "summary": f"How {p} works.", "goals": [f"Explain what {p} does and why"],
                 "depends_on": [f"ch{(i // per_batch) * per_batch:02d}"] if i >= per_batch else [], "sources": [p]}
                for i, p in enumerate(paths)]
    from .role_shape import in_parts, overview_title, parts_intro

    if chapters:  # Part 1: the big picture
        front = re.search(r"Project: \*\*(.+?)\*\*", prompt)
        chapters[0]["title"] = overview_title(front.group(1) if front else "The project")
        chapters[0]["summary"] = "The big picture: what the project is for, a first example, its parts, one call's path."
        chapters[0]["goals"] = ["Say what the project is for and run its first example"]
    return {"title": title_m.group(1) if title_m else "A book",
            "intro": parts_intro([str(c["title"]) for c in chapters]), "parts": in_parts(chapters)}


def structured_answer(role: str, system: str, prompt: str, ch: str, title: str) -> dict[str, Any] | None:
    """The JSON object for a structured role, or None when the role answers prose."""
    if role == "planner":
        return _outline(system, prompt)
    if role in ("r1", "r2", "r3", "auditor"):
        fs = _findings(prompt, with_chapter=role == "auditor", material=system)
        return {"findings": fs, "notes": f"Checked {ch}: {len(fs)} finding(s), each from the tool's checks."}
    if role == "merger":
        fs = _findings(prompt, with_chapter=False, material=system)
        actions = [{"change": f"Fix: {f['message']}", "settles": [f["check"]], **({"line": f["line"]} if "line" in f else {})}
                   for f in fs]
        return {"findings": fs, "actions": actions, "notes": "" if fs else "Nothing to change."}
    if role == "panel":
        readers = system.split("## The readers", 1)[-1].split("\n## ", 1)[0]  # the panel prompt's list
        names = re.findall(r"^- \*\*(.+?)\*\*", readers, re.M) or ["newcomer"]
        return {"readers": [{"persona": n, "verdict": "ready", "score": 4,
                             "questions": [f"Where does {title} fit in the rest of the code?"], "confusions": []}
                            for n in dict.fromkeys(names)]}
    if role == "memory":
        return {"summary": f"{title}: what the chapter explains, and how later chapters can build on it.",
                "terms": [{"term": title.split()[-1], "definition": f"The subject of {ch}."}],
                "metaphors": [], "cross_references": []}
    return None
