"""The outline (`output/memory/outline.md`): written by the planner, editable by a person.

The machine-readable part is one fenced ```yaml block; the text around it is for people.
A broken edit is reported with the line in outline.md and what to fix, never a crash.

The chapters are grouped under the book's parts, as a reader sees them in the contents:

    parts:
    - title: The big picture
      chapters:
      - id: ch01
        ...

A part's title is the book's (site, EPUB, PDF), not a chapter's: a chapter's entry, and so
the staleness of its steps, does not hold it. An older outline lists `chapters:` with no parts;
it still reads (the parts are then derived from the batches, as before), and is never rewritten."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from . import steps
from .errors import ConfigError
from .repo.walk import source_problem
from .state.markers import body_hash, body_of, read_marker, short_hash
from .steps import BOOK_STEPS, CHAPTER_RE, chapter_sort_key, check_relpath

OUTLINE = BOOK_STEPS[steps.OUTLINE].path
_BLOCK_RE = re.compile(r"^```ya?ml[^\n]*\n(.*?)^```\s*$", re.S | re.M)


@dataclass(frozen=True)
class Chapter:
    id: str
    title: str
    batch: int
    summary: str = ""
    depends_on: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    goals: tuple[str, ...] = ()  # what a reader can check they learned (the planner's JSON contract)

    def entry(self) -> dict:
        # `goals` only when there are some, so the entries (and hashes) of older outlines stay as they were
        return {"id": self.id, "title": self.title, "batch": self.batch, "summary": self.summary,
                **({"goals": list(self.goals)} if self.goals else {}),
                "depends_on": list(self.depends_on), "sources": list(self.sources)}

    @property
    def entry_hash(self) -> str:
        """The grain of staleness for the outline: this chapter's entry, not the whole file."""
        return short_hash(json.dumps(self.entry(), sort_keys=True, ensure_ascii=False))


@dataclass(frozen=True)
class Part:
    title: str
    chapters: tuple[str, ...]  # chapter ids, as the file lists them


@dataclass(frozen=True)
class Outline:
    title: str
    chapters: tuple[Chapter, ...]
    notes: str = ""
    parts: tuple[Part, ...] = ()  # () for an outline without parts (the site derives them)
    by_id: dict[str, Chapter] = field(default_factory=dict, compare=False)
    # (a, b): the file lists a before b though b's number comes first. The book's order is the
    # chapters' numbers, so a reordered list changes nothing: the scan says so.
    listed_out_of_order: tuple[str, str] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        self.by_id.update({c.id: c for c in self.chapters})

    @property
    def batches(self) -> list[int]:
        return sorted({c.batch for c in self.chapters})

    def part_of(self, ch: str) -> int:
        """The 1-based number of the part that lists `ch`; 0 when the outline has no parts."""
        return next((k for k, p in enumerate(self.parts, 1) if ch in p.chapters), 0)

    def in_batch(self, b: int) -> list[Chapter]:
        return [c for c in self.chapters if c.batch == b]

    def visible(self, ch: str) -> list[str]:
        """Chapters whose long memory `ch` reads: every chapter of an earlier batch, and its
        own dependencies. Chapters of one batch run at once, so they never read each other
        unless one depends on the other; this keeps every generation deterministic."""
        me = self.by_id[ch]
        ids = {c.id for c in self.chapters if c.batch < me.batch} | set(me.depends_on)
        return sorted(ids, key=chapter_sort_key)

    @cached_property
    def yaml_text(self) -> str:
        """The YAML block's text (cached: every prompt's stable prefix carries it)."""
        import yaml

        data: dict[str, Any] = {"title": self.title}
        if self.parts:
            data["parts"] = [{"title": p.title, "chapters": [self.by_id[c].entry() for c in p.chapters]}
                             for p in self.parts]
        else:
            data["chapters"] = [c.entry() for c in self.chapters]
        return yaml.dump(data, Dumper=_dumper(), sort_keys=False, allow_unicode=True, width=100)

    def to_yaml(self) -> str:
        return self.yaml_text


def _dumper():
    import yaml

    class Dumper(yaml.SafeDumper):
        """Safe, readable YAML (unicode as is) that also survives a round trip: a string with a
        character YAML reads as a line break (NEL, LS, PS) is written double-quoted, escaped."""

    def str_repr(dumper, value: str):
        style = '"' if any(c in value for c in "\x85\u2028\u2029") else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, str_repr)
    return Dumper


def render(outline: Outline, intro: str) -> str:
    """outline.md body (without marker): a short intro for people, then the YAML block."""
    return (f"# Outline: {outline.title}\n\n{intro.strip()}\n\n"
            "Edit the block below to change the plan; `book scan` tells you what your edit makes stale.\n\n"
            f"```yaml\n{outline.to_yaml()}```\n")


def parse(text: str, file: str = OUTLINE, source_dir: Path | None = None, gone_ok: bool = False) -> Outline:
    """The outline in `text`; a source that does not exist is an error naming its line, unless
    `gone_ok` (the planner's own outline, unedited: its paths were there when it was written, so a
    missing one is the source's next release having removed it; the chapter's research, stale on
    it, is made again from what is left)."""
    import yaml

    m = _BLOCK_RE.search(text)
    if not m:
        raise ConfigError("no ```yaml block with the chapters", file,
                          fix="put the chapters back in a fenced ```yaml block (an earlier version may be in a "
                              f"{Path(file).name}.bak.* file beside it), or `book redo book outline` for a new plan")
    base = text.count("\n", 0, m.start(1))  # lines before the block's content

    def err(msg: str, node=None, fix: str | None = None) -> ConfigError:
        line = base + node.start_mark.line + 1 if node is not None else base
        return ConfigError(msg, file, line, fix)

    try:
        root, data = _read_block(m.group(1))
    except yaml.YAMLError:
        root = data = None  # say where, with the pure-Python reader's words, below
    try:
        if root is None:
            root = yaml.compose(m.group(1))
    except yaml.YAMLError as e:
        from .text.yaml_lines import error_line

        line, problem = error_line(e, m.group(1)), str(getattr(e, "problem", e))
        # the likeliest hand edit that breaks YAML: a title with ": " in it, unquoted
        fix = ('put the value in quotes: title: "Routing: how a request finds its handler"'
               if "mapping values are not allowed" in problem else None)
        raise ConfigError(f"the yaml block is not valid YAML: {problem}", file,
                          base + line if line else base, fix) from None
    if not isinstance(root, yaml.MappingNode):
        raise err("the yaml block must be a mapping with `title` and `chapters`", root)
    nodes = {k.value: v for k, v in root.value}
    try:
        if data is None:
            data = yaml.safe_load(m.group(1))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise ConfigError(f"the yaml block cannot be read: {getattr(e, 'problem', None) or e}", file,
                          base + mark.line + 1 if mark else base, fix="write plain YAML values (no !tags)") from None
    listed, parts, chapters_node = _listed(nodes, data, root, err)
    chapters: list[Chapter] = []
    seen: dict[str, Chapter] = {}
    for cnode, c in listed:
        if not isinstance(c, dict):
            raise err("each chapter must be a mapping (id, title, batch, ...)", cnode)
        fields_ = {k.value: v for k, v in cnode.value}
        unknown = {str(k) for k in c} - {"id", "title", "batch", "summary", "goals", "depends_on", "sources"}
        if unknown:
            k = sorted(unknown)[0]
            at = next((n[0] for n in cnode.value if str(n[0].value) == k), cnode)
            raise err(f"unknown chapter field {k!r}", at,
                      fix="a chapter's part is the part it is listed under (`parts:` ... `chapters:`)" if k == "part"
                      else "fields are id, title, batch, summary, goals, depends_on, sources")
        cid = c.get("id")
        if cid is None:
            raise err(f"chapter {len(chapters) + 1} of the list has no id", cnode,
                      fix=f"add `id: ch{len(chapters) + 1:02d}` (a chapter id not used by another chapter)")
        if not isinstance(cid, str) or not CHAPTER_RE.match(cid):
            raise err(f"chapter id {cid!r} is not like ch01", fields_.get("id", cnode))
        if cid in seen:
            raise err(f"chapter id {cid} appears twice", fields_.get("id", cnode), fix="give each chapter its own id")
        twin = next((s for s in seen if int(s[2:]) == int(cid[2:])), None)
        if twin:  # ch001 beside ch01: one number, two file names, a contents out of order
            raise err(f"chapter id {cid} is ambiguous beside {twin} (the same number)", fields_.get("id", cnode),
                      fix=f"use {twin}'s spelling of numbers: a new number, written with as many digits")
        if not isinstance(c.get("title"), str) or not c["title"].strip():
            raise err(f"{cid} needs a title", cnode)
        batch = c.get("batch")
        if not isinstance(batch, int) or isinstance(batch, bool) or batch < 1:
            raise err(f"{cid}: batch must be a whole number from 1, not {batch!r}", fields_.get("batch", cnode))
        deps = c.get("depends_on") or []
        srcs = c.get("sources") or []
        if not isinstance(deps, list) or not all(isinstance(d, str) for d in deps):
            raise err(f"{cid}: depends_on must be a list of chapter ids", fields_.get("depends_on", cnode))
        if not isinstance(srcs, list) or not all(isinstance(s, str) for s in srcs):
            raise err(f"{cid}: sources must be a list of paths", fields_.get("sources", cnode))
        goals = c.get("goals") or []
        if not isinstance(goals, list) or not all(isinstance(g, str) for g in goals):
            raise err(f"{cid}: goals must be a list of sentences", fields_.get("goals", cnode))
        for s in srcs:
            try:
                check_relpath(s, "source path")
            except Exception as e:
                raise err(f"{cid}: {e}", fields_.get("sources", cnode)) from None
            if source_dir is not None and (why := _source_problem(source_dir, s)) and not (gone_ok and why == GONE):
                raise err(f"{cid}: source file {s!r} {why} in {source_dir}", fields_.get("sources", cnode),
                          fix="fix the path or remove it from `sources`")
        ch = Chapter(cid, c["title"].strip(), batch, str(c.get("summary") or "").strip(), tuple(deps), tuple(srcs),
                     tuple(g.strip() for g in goals if g.strip()))
        seen[cid] = ch
        chapters.append(ch)
    for (cnode, _), ch in zip(listed, chapters):
        for d in ch.depends_on:
            if d not in seen:
                raise err(f"{ch.id} depends on {d}, which is not in the outline", cnode)
            if seen[d].batch > ch.batch:
                raise err(f"{ch.id} (batch {ch.batch}) depends on {d} of a later batch ({seen[d].batch})", cnode,
                          fix=f"move {d} to batch {ch.batch} or earlier, or {ch.id} later")
    cycle = find_cycle({c.id: c.depends_on for c in chapters})
    if cycle:
        raise err("chapters depend on each other in a cycle: " + " -> ".join(cycle), chapters_node)
    title = data.get("title") if isinstance(data.get("title"), str) else ""
    ids = [c.id for c in chapters]
    chapters.sort(key=lambda c: chapter_sort_key(c.id))
    # within a part, or across parts that keep the reading order: a reordered list changes nothing
    moved = next(((a, b) for a, b in zip(ids, ids[1:]) if chapter_sort_key(a) > chapter_sort_key(b)), None)
    it = iter(ids)
    grouped = tuple(Part(t, tuple(next(it) for _ in range(n))) for t, n in parts)
    return Outline(title, tuple(chapters), notes=text[: m.start()].strip(), parts=grouped, listed_out_of_order=moved)


_PART_FIELDS = ("title", "chapters")


def _listed(nodes: dict, data: dict, root, err) -> tuple[list[tuple[Any, Any]], list[tuple[str, int]], Any]:
    """The chapters as the file lists them, (node, data) each, and the parts as (title, how many
    chapters), [] for an outline without parts; and the node that holds them (for errors)."""
    import yaml

    parts_node, chapters_node = nodes.get("parts"), nodes.get("chapters")
    if parts_node is not None and chapters_node is not None:
        raise err("the yaml block has both `parts` and `chapters`", chapters_node,
                  fix="list every chapter under its part (parts: - title: ..., chapters: [...]) and remove the "
                      "top-level `chapters`")
    if parts_node is None:
        if not isinstance(chapters_node, yaml.SequenceNode) or not chapters_node.value:
            raise err("`chapters` must be a non-empty list", chapters_node or root)
        return list(zip(chapters_node.value, data["chapters"])), [], chapters_node
    if not isinstance(parts_node, yaml.SequenceNode) or not parts_node.value:
        raise err("`parts` must be a non-empty list of parts, each with a title and its chapters", parts_node,
                  fix="write `parts:`, then `- title: The big picture` and its `chapters:` under it, one part after another")
    listed: list[tuple[Any, Any]] = []
    parts: list[tuple[str, int]] = []
    for k, (pnode, p) in enumerate(zip(parts_node.value, data["parts"]), 1):
        if not isinstance(p, dict):
            raise err(f"part {k} must be a mapping with `title` and `chapters`", pnode)
        fields_ = {str(n[0].value): n for n in pnode.value}
        unknown = sorted(set(fields_) - set(_PART_FIELDS))
        if unknown:
            raise err(f"part {k}: unknown field {unknown[0]!r}", fields_[unknown[0]][0],
                      fix="a part has a `title` and its `chapters`; a chapter's fields go under `chapters`")
        title = p.get("title")
        if not isinstance(title, str) or not title.strip():
            raise err(f"part {k} needs a title", fields_["title"][1] if "title" in fields_ else pnode,
                      fix='give it the words the contents show, e.g. title: "Using the library"')
        cnode = fields_["chapters"][1] if "chapters" in fields_ else None
        if not isinstance(cnode, yaml.SequenceNode) or not cnode.value:
            raise err(f"part {k} ({title.strip()}) has no chapters", cnode or pnode,
                      fix="list its chapters under `chapters:`, or remove the part")
        listed += list(zip(cnode.value, p["chapters"]))
        parts.append((" ".join(title.split()), len(cnode.value)))
    return listed, parts, parts_node


def find_cycle(graph: dict[str, tuple[str, ...]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for d in graph.get(n, ()):
            if state.get(d) == 1:
                return stack[stack.index(d):] + [d]
            if d not in state:
                found = visit(d)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


@lru_cache(maxsize=8)
def _read_block(block: str) -> tuple[Any, Any]:
    """(node tree, data) of an outline's yaml block, read once per process for the same text
    (a run asks for the outline many times) and with libyaml when it is there. Both are shared:
    callers only read them."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    root = yaml.compose(block, Loader=loader)
    data = yaml.load(block, Loader=loader)
    if data is None:
        raise yaml.YAMLError("empty")  # the slow path reports it
    return root, data


def load(root: Path, source_dir: Path | None = None) -> Outline | None:
    """The outline if the planner (or a person) has finished it; None if there is none yet.
    A half-written outline (no marker) is not trusted."""
    p = root / OUTLINE
    if not p.exists():
        return None
    mk = read_marker(p)
    if mk is None:
        return None
    data = p.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"not UTF-8 text ({e})", str(p)) from None
    own = bool(mk.body) and mk.body == body_hash(body_of(data)) and mk.extra.get("by") != "person"
    return parse(text, str(p), source_dir, gone_ok=own)


def _source_problem(source_dir: Path, rel: str) -> str | None:
    """Why a chapter's source cannot be read (missing, a link out of the source, a FIFO, too
    big), by the same rules as every other reader of the source; None when it can."""
    why = source_problem(Path(source_dir), rel)
    if why is None:
        return None
    why = why.removeprefix(f"source file {rel}: ")
    return GONE if why.startswith("does not exist") else f"cannot be read ({why})"


GONE = "does not exist"
