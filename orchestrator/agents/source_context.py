"""What the model steps read of the source tree, always through the safe walker and the
repository map (issue 10): the planner gets the file listing and the ranked map instead of
the head of every file; a chapter's researcher gets the chapter's files plus the ranked
symbols of what they use and of the tests that exercise them, bounded by rank.

The walk and the map are built once per process and tree state (authoring.project keeps
them; parsed files are cached by content hash in the workspace's state.db). Building them
runs in a worker thread so that SIGINT/SIGTERM stop it within a second even though the
caller sits on the event loop's thread, where the loop's own handlers cannot run."""

from __future__ import annotations

import re
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..authoring import project as project_mod
from ..repo.map import _render_line
from ..repo.walk import read_source
from ..state.partial_view import CUT_HEADING  # one spelling: the publisher reads the section back
from ..text.markdown import split_lines

if TYPE_CHECKING:
    from ..authoring.project import Project
    from ..repo.map import RepoMap

SOURCE_CHARS = 400_000  # ~115k tokens: a chapter's sources must leave room in the context window
# A chapter's sources are also bounded by the model's context window: what is left after the
# answer (max_tokens) and the rest of the prompt (instructions, long memory, the related maps, R1's
# draft: RESERVE_TOKENS), at a high estimate of tokens (code runs ~3 characters a token).
SOURCE_CHARS_PER_TOKEN = 3.0
RESERVE_TOKENS = 40_000
MAP_CHARS = 60_000  # ~17k tokens of ranked symbols for the planner
FEEDBACK_TOKENS = 400  # room kept in a small window for a re-ask's feedback (the reasons an answer failed)
RELATED_CHARS = 24_000  # ranked symbols of what a chapter uses and of its tests, for the researcher
_STOP_SIGNALS: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def load_project(src_dir: Path, state_db: Path | None, *,
                 progress: Callable[[str], None] | None = None) -> Project:
    """The walked and mapped source tree, built in a worker thread that a stop signal ends."""

    def work(should_stop: Callable[[], bool]) -> Project:
        p = project_mod.load(src_dir, state_db, should_stop=should_stop, progress=progress)
        p.map.file_rank()  # the ranking too (seconds on a huge tree): here, where a signal is heard
        return p

    project = stoppable(work)
    _say_bound(project)
    return project


def stoppable(fn: Callable[[Callable[[], bool]], Any]) -> Any:
    """`fn(should_stop)`, run in a worker thread so that a stop signal ends the wait at once
    (seconds of work on a huge tree: the walk, the map, the front matter read from it).

    On the main thread, SIGINT/SIGTERM/SIGHUP set a stop flag `fn` may check every few entries;
    once the worker has stopped (or 0.1 s later: what it still does is abandoned), the signal is
    raised again under the handlers that were there before, so the run stops the way it always
    does."""
    if threading.current_thread() is not threading.main_thread():
        # Off the main thread no handler can be installed, so a worker of our own would only be
        # waited for: run `fn` here, where an abandoned caller's `Stopping` reaches it at once,
        # and where no thread is started from a thread that may be abandoned mid-start.
        from ..signals import stop_requested

        return fn(stop_requested)
    stop = threading.Event()
    box: dict[str, Any] = {}
    got: list[int] = []

    def work() -> None:
        try:
            box["result"] = fn(stop.is_set)
        except BaseException as e:  # handed to the caller's thread
            box["error"] = e

    def on_signal(signum: int, frame: object) -> None:
        got.append(signum)
        stop.set()

    before: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for s in _STOP_SIGNALS:
            try:
                before[s] = signal.signal(s, on_signal)
            except (ValueError, OSError):
                pass
    worker = threading.Thread(target=work, name="source-walk", daemon=True)
    try:
        worker.start()
        while worker.is_alive() and not got:
            worker.join(0.2)
        worker.join(0.1)
    finally:
        for s, h in before.items():
            signal.signal(s, h)
    if got:
        signal.raise_signal(got[0])  # the run's own handler now stops it cleanly
        raise KeyboardInterrupt  # only reached when that handler returned
    if "error" in box:
        raise box["error"]
    return box["result"]


_BOUND_SAID: set[str] = set()


def _say_bound(p: Project) -> None:
    """A tree larger than the walk's bounds is planned from the files before the bound: said
    once per tree and process (source-map.md lists the rest), never left silent."""
    stop = next(((rel, why) for rel, why in p.skipped if why.startswith("walk stopped here")), None)
    if stop is None or str(p.root) in _BOUND_SAID:
        return
    _BOUND_SAID.add(str(p.root))
    rel, why = stop
    print(f"warning: {p.root} is larger than the walk reads: {why.removeprefix('walk stopped here: ').split(' (')[0]} "
          f"(stopped at {rel}); the book covers the files before it, and "
          "output/memory/source-map.md lists what was left out", file=sys.stderr, flush=True)


def progress_printer(prefix: str, after: float = 2.0) -> Callable[[str], None]:
    """Progress lines on stderr for a walk that takes longer than `after` seconds (a small tree
    says nothing)."""
    start = time.monotonic()

    def show(msg: str) -> None:
        if time.monotonic() - start >= after:
            print(f"{prefix}{msg}", file=sys.stderr, flush=True)
    return show


def planner_context(p: Project, budget: int = MAP_CHARS) -> dict[str, Any]:
    """The listing (path, lines, kind) of every file read, the ranked map and what was left out."""
    return planner_context_of({rel: kind for rel, (_lang, kind) in p.files.items()}, p.map, p.tree_summary, budget)


def planner_context_of(kinds: dict[str, str], repo_map: RepoMap, summary: str,
                       budget: int = MAP_CHARS) -> dict[str, Any]:
    files = [{"path": rel, "kind": kind, "lines": repo_map.files[rel].lines if rel in repo_map.files else None}
             for rel, kind in sorted(kinds.items())]
    return {"source_files": files, "repo_map": repo_map.render(budget), "source_summary": summary}


def source_limit(context_window: int, max_tokens: int) -> int:
    """Characters of a chapter's sources one prompt may carry for a model with this context
    window answering in up to `max_tokens`: never more than SOURCE_CHARS, never so much that the
    prompt overflows the window (an unknown window: SOURCE_CHARS)."""
    if context_window <= 0:
        return SOURCE_CHARS
    # the rest of the prompt takes RESERVE_TOKENS of a Claude's window, half of a small one (issue 27)
    room = context_window - max_tokens - min(RESERVE_TOKENS, context_window // 2)
    return max(4_000, min(SOURCE_CHARS, int(room * SOURCE_CHARS_PER_TOKEN)))


def window_for(cfg: Any, role: str, default_max_tokens: int) -> tuple[int, int]:
    """(context window, max_tokens) of `role`'s calls: the model table's, or a compatible
    server's limits from book.yaml (providers/anthropic/server.py)."""
    from ..providers.anthropic.server import limits

    model = cfg.model_for(role)
    info = limits(cfg, model)
    return info.context_window, max(1, min(int(cfg.max_tokens.get(role, default_max_tokens)), info.max_output))


def source_limit_for(cfg: Any, role: str, default_max_tokens: int) -> int:
    """`source_limit` for the model and max_tokens the book's config gives `role`."""
    return source_limit(*window_for(cfg, role, default_max_tokens))


def map_limit_for(cfg: Any, role: str, default_max_tokens: int) -> int:
    """Characters of the planner's ranked map: MAP_CHARS, or what a small window leaves."""
    return min(MAP_CHARS, source_limit_for(cfg, role, default_max_tokens))


# The researcher's sources carry their line numbers, so that its excerpts and citations give real
# ones: `  12→    def put(...)`, the form of a numbered listing models are used to copying code out
# of. The number and the arrow are before the line's first character, so the code after the arrow
# is the line exactly; an excerpt that kept them is asked again (agents.validation), since R1 would
# find such a block nowhere in the source.
GUTTER = "→"
NUMBERED_RE = re.compile(r"^ *\d+→")
# What a line's number costs beyond its characters at SOURCE_CHARS_PER_TOKEN: `  12→` is about three
# tokens (the padding, the digits, the arrow), not the five characters' one and a half.
GUTTER_EXTRA = 3


def size(text: str) -> int:
    """Characters of `text` as the source budgets count them: a numbered line's number at its cost."""
    return len(text) + GUTTER_EXTRA * text.count(GUTTER)


def numbered(text: str) -> str:
    """`text` with each line prefixed by its 1-based number and GUTTER, numbers right-aligned to
    the widest: the lines as a citation counts them (evidence.resolve: split at `\n` only, a
    byte-order mark and `\r` dropped; the newline ending the last line starts none)."""
    lines = split_lines(text.removeprefix("\ufeff"))
    if lines and lines[-1] == "":
        lines.pop()
    width = len(str(len(lines)))
    return "".join(f"{n:>{width}}{GUTTER}{line}\n" for n, line in enumerate(lines, 1))


def chapter_context(p: Project, sources: list[str], limit: int = SOURCE_CHARS, *,
                    related: bool = True, need: str = "") -> dict[str, Any]:
    """A chapter's files (bounded by rank) and, with `related`, the ranked symbols of the files
    they use and of the tests that exercise them. The ranking is computed only when it is
    needed (a chapter over the limit, or `related`): a reviewer of a small chapter costs no
    PageRank of the repository. The files are numbered before they are bounded (the researcher
    cites line ranges and R1 checks them): the numbers cost room, and the limit counts them.
    `need`: the outline entry's words; over the limit, what they name and what that calls are
    kept first (packing.py), then the rest by rank."""
    texts: dict[str, str] = {}
    for rel in sources:
        try:
            text = read_source(p.root, rel, max_bytes=8_000_000)
            texts[rel] = numbered(text)  # the researcher cites and R1 checks line ranges: both see the numbers
        except OSError as e:  # outside the root, a FIFO, vanished: said, never read
            texts[rel] = f"(not shown: {e})"
    defs = _ranked_defs(p, sources, texts, need) if sum(size(t) for t in texts.values()) > limit else {}
    ranked = {rel: [(a, b) for _, a, b in ds] for rel, ds in defs.items()}
    shown, cut = bounded_sources_cut(texts, limit, ranked=ranked)
    if not related:  # a reviewer: R1's own checks read the files whole
        return {"sources": shown}
    # the definitions the cut left out, named in the research report (not in the prompt: a small
    # window's room is for the code); their names and lines kept for a window that cuts further
    kept = {"source_defs": {rel: [list(d) for d in ds] for rel, ds in defs.items()},
            "sources_left_out": left_out_by_file(shown, defs)} if defs else {}
    mine = set(sources)
    graph = p.map.file_graph()
    used: dict[str, float] = {}
    for rel in sources:
        for dst, w in graph.get(rel, {}).items():
            if dst not in mine:
                used[dst] = used.get(dst, 0.0) + w
    uses = [rel for rel, _ in sorted(used.items(), key=lambda x: (-x[1], x[0]))]
    room = min(RELATED_CHARS, limit // 2)  # the related maps shrink with a small window's sources
    tests = [t for t in p.map.tests_for(sources) if t not in mine][:12]
    return {"sources": shown, "sources_cut": cut,
            "related_map": p.map.render(room // 2, within=uses) if uses else "",
            "tests_map": _render_unranked(p, tests, room // 2),
            "related_files": uses[:40], "test_files": tests, **kept}


def _render_unranked(p: Project, rels: list[str], budget: int) -> str:
    """Files the ranking leaves out (tests, examples) as the map renders them: per file, its
    definitions in file order, files in the given order, the whole within `budget`."""
    blocks, used = [], 0
    for rel in rels:
        fm = p.map.files.get(rel)
        if fm is None or not fm.definitions:
            continue
        lines = [rel + ":"]
        for d in fm.definitions:
            line = _render_line(d)
            if used + len(lines[0]) + len(line) + 3 > budget:
                break
            lines.append(line)
            used += len(line) + 1
        if len(lines) > 1:
            blocks.append("\n".join(lines))
            used += len(rel) + 3
    return "\n\n".join(blocks)


def _ranked_defs(p: Project, sources: list[str], texts: dict[str, str] | None = None,
                 need: str = "") -> dict[str, list[tuple[str, int, int]]]:
    """Per file, its definitions (name, line range), most needed first (packing.py): those the
    outline entry names, those they call, then the rest by rank."""
    from .packing import need_defs

    return need_defs(list(p.map.ranked_definitions(within=sources)), texts or {}, need)


def bounded_sources(files: dict[str, str], limit: int = SOURCE_CHARS,
                    ranked: dict[str, list[tuple[int, int]]] | None = None) -> dict[str, str]:
    """A chapter's source files for a prompt within `limit` characters (see bounded_sources_cut)."""
    return bounded_sources_cut(files, limit, ranked)[0]


def bounded_sources_cut(files: dict[str, str], limit: int = SOURCE_CHARS,
                        ranked: dict[str, list[tuple[int, int]]] | None = None) -> tuple[dict[str, str], list[str]]:
    """(files as shown, what was cut): a chapter's source files for a prompt within `limit`
    characters: files in order of their best symbol's rank in the repository map (the given order
    when no ranking is known) whole while they fit; past that, each further file shows its best
    ranked definitions' code while room is left, then only its first lines, always with a note
    saying what is not shown. Short files are never cut. The result never exceeds the limit by
    more than the notes (R1 still reads the files). The cut list says, per file cut, what was
    left out and why (the research report carries it: agents.validation)."""
    shown = _bounded(files, limit, ranked or {})
    total = sum(size(t) for t in files.values())
    cut = []
    for rel, text in shown.items():
        if text == files[rel]:
            continue
        n = files[rel].count("\n") + 1
        kept = sum(1 for line in text.splitlines() if not line.startswith("# … "))
        what = f"not shown ({n} lines)" if kept == 0 else \
            f"{kept} of {n} lines shown ({'its best ranked definitions' if (ranked or {}).get(rel) else 'its first lines'})"
        cut.append(f"`{rel}`: {what}")
    if cut:
        cut.append(f"why: the chapter's sources ({total:,} characters) are more than one prompt may carry "
                   f"({limit:,} characters for this model's context window); the lowest ranked parts in the "
                   "repository map were left out first")
    return shown, cut


def left_out_by_file(shown: dict[str, str], defs: dict[str, Any]) -> dict[str, list[str]]:
    """Per file of `defs` (its definitions' names and lines, most needed first), the names of
    those whose first line its shown text does not show; files that lost none are left out."""
    from .packing import left_out

    return {rel: names for rel, ds in defs.items() if (names := left_out(shown.get(rel, ""), ds))}


def with_sources_cut(report: str, cut: list[str], language: str = "en",
                     left_out: dict[str, list[str]] | None = None) -> str:
    """The research report with the tool's own section saying what of the chapter's sources the
    prompt could not carry and why (the writer and a person reading the report see it), each
    file's line naming the definitions it lost (`left_out`, most needed first; LISTED of them).
    Added once: a report that already has the section is returned as it is."""
    from .packing import LEFT_OUT, naming

    heading = CUT_HEADING.get(language, CUT_HEADING["en"])
    if not cut or heading in report:
        return report
    names = left_out or {}
    cut = [x + LEFT_OUT + naming(names[rel]) if (rel := _entry_path(x)) in names and names[rel] else x for x in cut]
    intro = ("调研时提示词装不下本章的全部源码；以下内容按仓库图的排名从低到高被删去：" if language == "zh" else
             "The research prompt could not carry all of this chapter's sources; these were cut, lowest "
             "ranked in the repository map first:")
    return report.rstrip("\n") + f"\n\n{heading}\n\n{intro}\n\n" + "".join(f"- {x}\n" for x in cut)


def _entry_path(entry: str) -> str | None:
    """The file a cut list's entry is about ("`path`: ..."), or None (the closing "why: ...")."""
    m = re.match(r"`([^`\n]+)`: ", entry)
    return m[1] if m else None


def _bounded(files: dict[str, str], limit: int, ranked: dict[str, list[tuple[int, int]]]) -> dict[str, str]:
    order = sorted(files, key=lambda rel: (0 if rel in ranked else 1,
                                           list(ranked).index(rel) if rel in ranked else 0))
    short = {rel: t for rel, t in files.items() if t.count("\n") < 40}  # never cut: taken first
    out: dict[str, str] = dict(short)
    used = sum(size(t) for t in short.values())
    for rel in order:
        text = files[rel]
        if rel not in out and used + size(text) <= limit:
            out[rel] = text
            used += size(text)
    cut = [rel for rel in order if rel not in out]
    for i, rel in enumerate(cut):
        share = (limit - used) // (len(cut) - i) if limit > used else 0
        out[rel] = _excerpt(files[rel], ranked.get(rel, []), share) if share >= 200 else \
            f"# … {files[rel].count(chr(10)) + 1} lines not shown: the chapter's sources are too long for one prompt\n"

        used += size(out[rel])
    return {rel: out[rel] for rel in files}


def _excerpt(text: str, spans: list[tuple[int, int]], budget: int) -> str:
    """The best ranked definitions of a file (whole, in file order) within `budget`, or its
    first lines when nothing is ranked, with a note on what is left out."""
    lines = text.splitlines()
    keep: set[int] = set()
    used = 0
    budget -= 160  # the closing note
    for a, b in spans:
        piece = range(max(a, 1), min(b, len(lines)) + 1)
        cost = sum(size(lines[k - 1]) + 1 for k in piece if k not in keep)
        cost += 0 if (a - 1 in keep or not keep) else 40  # the note for the gap before it
        if used + cost > budget:
            continue
        keep.update(piece)
        used += cost
    for k in range(2, len(lines)):  # a gap of blank lines only is shown, not noted
        if k not in keep and not lines[k - 1].strip() and k - 1 in keep:
            j = k
            while j <= len(lines) and j not in keep and not lines[j - 1].strip():
                j += 1
            if j in keep:
                keep.update(range(k, j))
    if not keep:
        for k in range(1, len(lines) + 1):
            if used + size(lines[k - 1]) + 1 > budget:
                break
            keep.add(k)
            used += size(lines[k - 1]) + 1
    out, prev = [], 0
    for k in sorted(keep):
        if k != prev + 1:
            out.append(f"# … lines {prev + 1}-{k - 1} not shown")
        out.append(lines[k - 1])
        prev = k
    if prev < len(lines):
        out.append(f"# … lines {prev + 1}-{len(lines)} not shown: the chapter's sources are too long for one "
                   "prompt (the most used definitions are shown)")
    return "\n".join(out) + "\n"


def fit_window(cfg: Any, role: str, max_tokens: int, ctx: dict[str, Any], render: Callable[[], Any],
               extra_chars: int = 0) -> Any:
    """A compatible server's small window (issue 27): the rendered prompt (`render()` ->
    Parts) measured as the token gate measures it (JSON-escaped, ~3.5 characters a token) and,
    while prompt plus answer overflow the window, cut further: the chapter's sources by rank,
    then the ranked maps from their lowest ranked end, then the project's front door, then the
    audit's longest chapter (each keeps its opening). What
    cannot be cut is left to the token gate, which names the fix."""
    import json

    from ..providers.anthropic.tokens import CHARS_PER_TOKEN

    window, answer = window_for(cfg, role, max_tokens)
    parts = render()
    for _ in range(8):
        size = sum(len(json.dumps(x or "")) for x in (parts.shared, parts.material, parts.system, parts.prompt))
        over = int((size + extra_chars) / CHARS_PER_TOKEN + answer + FEEDBACK_TOKENS - window)
        if over <= 0 or not _cut_one(ctx, int((over + 64) * SOURCE_CHARS_PER_TOKEN)):
            return parts
        parts = render()
    return parts


SHRINKABLE = ("repo_map", "related_map", "tests_map", "project_front")  # best ranked (or most important) first


def _cut_one(ctx: dict[str, Any], chars: int) -> bool:
    """Cut about `chars` characters from the first part of the context that has them; False
    when nothing is left to cut."""
    sources = ctx.get("sources") or {}
    have = sum(size(t) for t in sources.values())
    if have - chars >= 1_000:
        ctx["sources"], cut = bounded_sources_cut(sources, have - chars)
        if cut and ctx["sources"] != sources:
            ctx["sources_cut"] = [*(ctx.get("sources_cut") or []), *cut[:-1]]
            if ctx.get("source_defs"):
                ctx["sources_left_out"] = left_out_by_file(ctx["sources"], ctx["source_defs"])
            return True
    for key in SHRINKABLE:
        text = ctx.get(key)
        if isinstance(text, str) and len(text) > 400:
            keep = max(200, len(text) - chars)
            ctx[key] = text[:keep].rsplit("\n", 1)[0] + "\n(cut to fit the context window)\n"
            return True
    # the audit's chapters, longest first: each keeps its opening (a small window still sees every chapter)
    finals = ctx.get("finals")
    if isinstance(finals, dict) and finals:
        ch, text = max(finals.items(), key=lambda kv: len(kv[1]))
        if isinstance(text, str) and len(text) > 600:
            keep = max(400, len(text) - chars)
            ctx["finals"] = {**finals, ch: text[:keep].rsplit("\n", 1)[0] + "\n(cut to fit the context window)\n"}
            return True
    return False
