"""The batch journal: what was submitted as a Message Batch, in files.

One JSON file per submission, `output/.book/batches/<submission>.json`, written with
`fsio.atomic_write` (temp, fsync, rename, fsync dir) so that it always holds a complete
state:

    {"format": 1,
     "submission": "b261130120000-3fa2",        # also the prefix of every custom_id
     "created": "2026-11-30T12:00:00.123Z",      # written BEFORE the create call is made
     "state": "submitting",                      # see STATES
     "batch_id": null,                           # set once create has returned
     "batch_created_at": null,
     "candidates": [],                           # batch ids that may be ours (re-attach search)
     "listed_at": null,                          # when that search listed the server's batches
     "counts": null,                             # the last request_counts seen
     "note": "",                                 # why it was abandoned/refused, for a person
     "items": [{"custom_id": "b261130120000-3fa2-ch01-draft-9c1e0a", "chapter": "ch01",
                "step": "draft", "role": "writer", "target": "chapters/draft/ch01-draft.md",
                "input_hash": "9c1e0a4b...", "params_hash": "77ab...", "reask": false,
                "outcome": null, "reason": "", "feedback": "", "at": null}, ...]}

An item's `outcome` is null while it waits, then one of OUTCOMES. An item whose outcome is
set is never handed to the pipeline again, so a results download that is interrupted (a
kill, a dropped connection) and started again skips what was already handled.

The re-attach rule (never a custom_id twice)
--------------------------------------------
The journal is written before `batches.create` is called, and the batch id after it
returns. A kill, Ctrl-C or an ambiguous failure (5xx, timeout, dropped connection: the server
may have created the batch and the response was lost) between the two leaves a journal in
state `submitting`/`searching` without a batch id. Such a journal is resolved, never simply
resubmitted:

1. Wait until `SEARCH_GRACE` seconds have passed since `created`, so a create still in
   flight on the server has landed.
2. List the workspace's batches (newest first) back to `created - CLOCK_SKEW`. A batch is a
   *candidate* if it was created in that window, is not claimed by another journal (its id is
   no journal's `batch_id`), and its total of request_counts equals this journal's number of
   items.
3. No candidate, with the listing complete back to the window's start: the server certainly
   has no batch of this submission. The journal becomes `abandoned` and its items may be
   submitted again, in a NEW submission (new custom_ids).
4. Otherwise the candidates are polled like any batch in flight; when one ends, the first
   line of its results tells whose it is (custom_ids begin with the submission id). The one
   that carries our submission id is ours: its id is recorded and its results collected.
   Candidates that turn out to be someone else's are dropped; when none is left, step 3.

So a submission's requests are sent again only after the server is known not to have them,
and always under new custom_ids: no custom_id is ever submitted twice. The price of certainty:
someone else's batch of the same size, created in the window, keeps the submission unconfirmed
until that batch ends (at most 24 hours). A batch that is gone from the server (deleted, or
archived 29 days after it ended) is no candidate; a submitted batch that is gone has its
unhandled requests asked again.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import re
import secrets
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..state.fsio import atomic_write

FORMAT = 1
DIR = ".book/batches"  # under the workspace's output/
CUSTOM_ID_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
SEARCH_GRACE = 60.0  # seconds after `created` before "the server has no such batch" may be decided
CLOCK_SKEW = 120.0  # seconds of difference between our clock and the server's that are tolerated

# submitting: journal written, create not returned · searching: create failed ambiguously ·
# submitted: batch id known, processing · ended: processing ended, results being collected ·
# done: every item has an outcome · abandoned: the server certainly has no such batch ·
# refused: the create was refused (4xx): nothing was created
STATES = ("submitting", "searching", "submitted", "ended", "done", "abandoned", "refused")
OPEN_STATES = ("submitting", "searching", "submitted", "ended")
# committed: the result was validated and written · discarded: its inputs changed meanwhile ·
# rejected: validation failed (re-asked) · requeued: errored/expired/canceled/never created
# (asked again) · to_stream: handed to streaming (a bound was reached, or a batch cannot help)
OUTCOMES = ("committed", "discarded", "rejected", "requeued", "to_stream")


class JournalError(UsageError):
    """A journal file that cannot be read: it is the only record of a batch in flight, so it is
    never skipped (that could submit its requests twice)."""


def now_iso() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_iso(s: str) -> _dt.datetime:
    return _dt.datetime.fromisoformat(s.replace("Z", "+00:00"))


def new_submission_id() -> str:
    """`b` + UTC yymmddHHMMSS + 4 hex: short, sortable, unique enough per workspace."""
    return "b" + _dt.datetime.now(_dt.UTC).strftime("%y%m%d%H%M%S") + "-" + secrets.token_hex(2)


def _slug(s: str, n: int) -> str:
    return re.sub(r"[^a-zA-Z0-9_]", "_", s)[:n] or "x"


def make_custom_id(submission: str, chapter: str | None, step: str, input_hash: str) -> str:
    cid = f"{submission}-{_slug(chapter or 'book', 12)}-{_slug(step, 16)}-{_slug(input_hash, 8)}"
    if not CUSTOM_ID_RE.match(cid):
        raise ValueError(f"custom_id {cid!r} does not match {CUSTOM_ID_RE.pattern}")
    return cid


def inputs_hash(inputs: dict[str, str | None]) -> str:
    """One hash for a step's inputs (the name -> short hash map its marker records), so a batch
    item can be compared with the files when its result arrives."""
    flat = ",".join(f"{k}:{v}" for k, v in sorted(inputs.items()) if v is not None)
    return hashlib.sha256(flat.encode()).hexdigest()[:12]


def params_hash(params: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(params, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


@dataclass
class Item:
    custom_id: str
    chapter: str | None
    step: str
    target: str  # the file the result is committed to, as the pipeline names it (workspace-relative)
    input_hash: str
    role: str = ""
    params_hash: str = ""
    reask: bool = False  # the request carried a re-ask (validation feedback)
    outcome: str | None = None
    reason: str = ""
    feedback: str = ""  # the validation failure the next request for this step must answer
    at: str | None = None

    @property
    def key(self) -> tuple[str | None, str]:
        return (self.chapter, self.step)


@dataclass
class Journal:
    submission: str
    created: str
    items: list[Item]
    state: str = "submitting"
    batch_id: str | None = None
    batch_created_at: str | None = None
    candidates: list[str] = field(default_factory=list)
    listed_at: str | None = None  # when the re-attach search listed the server's batches
    counts: dict[str, int] | None = None
    note: str = ""
    path: Path | None = field(default=None, repr=False, compare=False)

    def item(self, custom_id: str) -> Item | None:
        for it in self.items:
            if it.custom_id == custom_id:
                return it
        return None

    @property
    def open(self) -> bool:
        return self.state in OPEN_STATES

    def pending(self) -> list[Item]:
        return [it for it in self.items if it.outcome is None]

    def set_outcome(self, it: Item, outcome: str, reason: str = "", feedback: str = "") -> None:
        if outcome not in OUTCOMES:
            raise ValueError(f"unknown outcome {outcome!r}")
        it.outcome, it.reason, it.feedback, it.at = outcome, reason[:2000], feedback[:4000], now_iso()

    def to_json(self) -> str:
        d = {"format": FORMAT, "submission": self.submission, "created": self.created, "state": self.state,
             "batch_id": self.batch_id, "batch_created_at": self.batch_created_at,
             "candidates": self.candidates, "listed_at": self.listed_at, "counts": self.counts,
             "note": self.note,
             "items": [asdict(it) for it in self.items]}
        return json.dumps(d, indent=1, ensure_ascii=False) + "\n"

    def save(self) -> None:
        if self.path is None:
            raise ValueError("journal has no path")
        if self.state not in STATES:
            raise ValueError(f"unknown journal state {self.state!r}")
        atomic_write(self.path, self.to_json())


def journal_dir(output_dir: Path) -> Path:
    return Path(output_dir) / DIR


def new_journal(output_dir: Path, submission: str, items: list[Item]) -> Journal:
    ids = [it.custom_id for it in items]
    if len(set(ids)) != len(ids):
        raise ValueError("custom_ids must be unique within a submission")
    keys = [it.key for it in items]
    if len(set(keys)) != len(keys):
        raise ValueError("one request per chapter and step in a submission")
    return Journal(submission, now_iso(), items, path=journal_dir(output_dir) / f"{submission}.json")


_ITEM_FIELDS = {f for f in Item.__dataclass_fields__}


def load(path: Path) -> Journal:
    """Read one journal; anything unreadable is a JournalError naming the file and the fault."""
    fix = ("it records a Message Batch that may still be running; restore it from the .bak, "
           "or move it aside only if you are sure its batch is gone (the Console lists batches)")
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise JournalError(f"{path}: the batch journal cannot be read ({e}); {fix}") from None
    try:
        if d.get("format") != FORMAT:
            raise ValueError(f"unknown format {d.get('format')!r}")
        if d.get("state") not in STATES:
            raise ValueError(f"unknown state {d.get('state')!r}")
        items = []
        for n, raw in enumerate(d["items"]):
            extra = set(raw) - _ITEM_FIELDS
            if extra:
                raise ValueError(f"item {n}: unknown field(s) {sorted(extra)}")
            it = Item(**raw)
            if not CUSTOM_ID_RE.match(it.custom_id) or not it.custom_id.startswith(d["submission"] + "-"):
                raise ValueError(f"item {n}: custom_id {it.custom_id!r} is not one of this submission's")
            if it.outcome is not None and it.outcome not in OUTCOMES:
                raise ValueError(f"item {n}: unknown outcome {it.outcome!r}")
            items.append(it)
        parse_iso(d["created"])
        j = Journal(d["submission"], d["created"], items, d["state"], d.get("batch_id"),
                    d.get("batch_created_at"), list(d.get("candidates") or []), d.get("listed_at"),
                    d.get("counts"), d.get("note") or "", path)
    except (KeyError, TypeError, ValueError) as e:
        raise JournalError(f"{path}: the batch journal is malformed: {e}; {fix}") from None
    if path.stem != j.submission:
        raise JournalError(f"{path}: holds submission {j.submission!r}, not {path.stem!r}; {fix}")
    return j


def load_all(output_dir: Path) -> list[Journal]:
    """Every journal of the workspace, oldest first."""
    d = journal_dir(output_dir)
    if not d.is_dir():
        return []
    return sorted((load(p) for p in d.glob("*.json")), key=lambda j: (parse_iso(j.created), j.submission))


def claimed_batch_ids(journals: list[Journal]) -> set[str]:
    return {j.batch_id for j in journals if j.batch_id}


@dataclass
class Waiting:
    chapter: str | None
    step: str
    submission: str
    batch_id: str | None
    state: str
    since: str


def waiting(output_dir: Path) -> dict[tuple[str | None, str], Waiting]:
    """(chapter, step) -> the batch it waits in: what `book scan` and checkpoint.md show as
    "waiting in a batch". Reads files only (no SDK import); an unreadable journal raises."""
    out: dict[tuple[str | None, str], Waiting] = {}
    for j in load_all(output_dir):
        if not j.open:
            continue
        for it in j.pending():
            out[it.key] = Waiting(it.chapter, it.step, j.submission, j.batch_id, j.state, j.created)
    return out


def history(journals: list[Journal], chapter: str | None, step: str, input_hash: str) -> Iterator[Item]:
    """Every journal item for this step made from these inputs, oldest first."""
    for j in journals:
        for it in j.items:
            if it.chapter == chapter and it.step == step and it.input_hash == input_hash:
                yield it
