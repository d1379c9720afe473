"""One exemplary, correct answer per role, for the roles' cached instructions (issue 11 part 6).

Every example is about the same made-up library, `throttle` (a token-bucket rate limiter), so
that no example can be mistaken for the book's own source; the intro sentence of each says
so. The structured roles' examples are built from the contract classes and printed as the
JSON the model must answer with, so they always satisfy the schemas (tests check that they
parse with `from_json`, that the Markdown ones pass the structure check, and their length).

`example(role)` gives the text to place in a role's `system` block; `EXAMPLES` holds them all."""

from __future__ import annotations

import json

from .findings import Action, Finding, MergedReview, Review
from .memory import CrossRef, MemoryUpdate, Metaphor, Term
from .outline import OutlinePlan, PlannedChapter, PlannedPart
from .panel import Confusion, PanelFeedback, ReaderFeedback

_ABOUT = ("The example below is about a made-up library, `throttle` (a token-bucket rate limiter); it shows the "
          "form and the level of care expected, not content for this book.")

_DRAFT_LINES = """For reference, lines 38-52 of the made-up draft the reviewers read:

```
38 | In a Token-Bucket, `take` is where a request pays for itself:
39 |
40 | ```python file=throttle/bucket.py lines=41-52
41 | def take(self, tokens=1, *, now=None):
42 |     now = self.clock() if now is None else now
43 |     self._refill(now)
44 |     if self.tokens < tokens:
45 |         raise Throttled(retry_after=(tokens - self.tokens) / self.rate)
46 |     self.tokens -= tokens
47 |     return self.tokens
48 | ```
49 |
50 | Because the refill happens lazily, a bucket that nobody touches costs nothing:
51 | there is no timer thread, and the token count is brought up to date only when
52 | somebody asks.
```"""


def _json(obj: object) -> str:
    return "```json\n" + json.dumps(obj, ensure_ascii=False, indent=2) + "\n```"


R1 = Review((
    Finding("r1.code", "blocking", 40, "The block claims to quote throttle/bucket.py lines 41-52, but the source's "
            "`take` has no `now` parameter and raises `Throttled(wait)`, not `retry_after=`; quote the function "
            "exactly as it is in the source (lines 41-46) or remove the block.", end_line=48,
            quote="def take(self, tokens=1, *, now=None):"),
    Finding("r1.symbol", "major", 50, "`_refill` is not called lazily from `take` only: `TokenBucket.__init__` also "
            "calls it (bucket.py line 23), so 'brought up to date only when somebody asks' is not quite true; say "
            "that construction refills too.", end_line=52,
            quote="the token count is brought up to date only when\nsomebody asks."),
    Finding("r1.path", "minor", 40, "The fence names `lines=41-52` but the function ends at line 46 in the source; "
            "correct the range when you fix the block."),
), "I compared the two code blocks of the draft with throttle/bucket.py and throttle/clock.py and looked up every "
   "path and symbol the prose cites. The first block is correct; the second is not the source (a parameter and "
   "an exception argument differ), which blocks the chapter. Everything else the chapter says about the refill "
   "arithmetic matches the code.")

R2 = Review((
    Finding("r2.glossary", "major", 38, "The glossary (ch02) defines **token bucket** in lower case and as two "
            "words; the draft writes 'Token-Bucket' in prose at line 38. Use 'token bucket' in prose and keep "
            "`TokenBucket` only for the class name in code.", quote="In a Token-Bucket, `take` is where a request "
            "pays for itself:"),
    Finding("r2.xref", "major", 50, "The lazy refill was explained in [Reading time, and faking it](ch02.md#lazy-refill); link "
            "there instead of explaining it again in three lines.", end_line=52),
    Finding("r2.metaphor", "minor", 38, "'pays for itself' reuses the toll-booth metaphor that ch03 registered; "
            "this chapter's own metaphor is the water tank, so say 'draws from the tank'.",
            quote="where a request pays for itself"),
), "I checked the draft against the glossary (14 terms), the metaphor registry and the chapters it links to. "
   "Two links point to sections that exist; one explanation repeats ch02 instead of linking to it. Term spelling "
   "drifts in two places.")

R3 = Review((
    Finding("r3.clarity", "major", 38, "The section shows `take` before it has said what a caller does when "
            "`Throttled` is raised; the reader meets the exception in code before the prose introduces it. Start "
            "the section with the caller's view (retry after `retry_after` seconds), then show the code.",
            end_line=48),
    Finding("r3.clarity", "minor", 50, "'costs nothing' is vague for a maintainer; say what it saves: no timer "
            "thread and no wake-ups while the bucket is idle.", end_line=52, quote="a bucket that nobody touches "
            "costs nothing:"),
), "The chapter covers its outline entry: the refill arithmetic, `take`, and the exception. The order within the "
   "second section is the main problem; the length (1,850 words) is within the range for this book.")

# The merger lists only what the reviews' findings miss (the tool keeps every collected finding
# itself): here R3's notes say the length is fine and nothing is missing, so `findings` is empty.
MERGED = MergedReview(
    (),
    (Action("Replace the code block with `take` exactly as throttle/bucket.py lines 41-46 has it (the research "
            "report quotes it), fix the fence to `lines=41-46`, and adjust the sentence before it: the function "
            "takes no `now` and raises `Throttled(wait)`.", 40, 48, ("r1.code", "r1.path")),
     Action("Open the section with the caller's view (what to do with `Throttled`), then the code.", 38, 48,
            ("r3.clarity",)),
     Action("Cut the three-line explanation of the lazy refill and link to ch02's 'Lazy refill' section; mention "
            "that the constructor refills too.", 50, 52, ("r2.xref", "r1.symbol", "r3.clarity")),
     Action("Write 'token bucket' in prose (line 38) and 'draws from the tank' instead of 'pays for "
            "itself'.", 38, None, ("r2.glossary", "r2.metaphor"))),
    "R1 and R3 both touch lines 38-48; the code fix comes first because the new block is shorter and changes "
    "what the prose around it must say.")

PANEL = PanelFeedback((
    ReaderFeedback("newcomer", "revise", 3, (
        "What should my code do when `take` raises `Throttled`: sleep, drop the request, or queue it?",
        "Why is the refill lazy instead of a background timer?"),
        (Confusion("The code uses `Throttled` before the text says what it is; I had to scroll down to learn it is "
                   "the 'try again later' signal.", 40, 48, "raise Throttled(wait)",
                   "Say in one sentence before the block what `Throttled` means for a caller."),
         Confusion("'rate' and 'capacity' are both 'how many' to me; the difference only became clear at line 75.",
                   61, suggestion="Define both where the constructor is shown, with one example number each."))),
    ReaderFeedback("maintainer", "ready", 4, ("Is `take` safe to call from two threads at once?",),
                   (Confusion("The chapter never says that `TokenBucket` holds no lock.", 0,
                              suggestion="Add one sentence: the class is not thread-safe; wrap it if you share it."),)),
    ReaderFeedback("architect", "revise", 3, (
        "Why a token bucket rather than a sliding window, which would not allow a burst after an idle period?",
        "What does the lazy refill cost under contention, when thousands of buckets are touched per second?"),
        (Confusion("The chapter shows how the bucket works but never the trade-off it makes: bursts up to "
                   "`capacity` are allowed on purpose, and that is a design decision, not a detail.", 50, 52,
                   suggestion="Add a short paragraph on what a burst is and why the library accepts it."),
         Confusion("'costs nothing' hides the real cost, a clock read per call; for an architect that is the number "
                   "that matters.", 50, quote="a bucket that nobody touches costs nothing:",
                   suggestion="Name the per-call cost: one clock read, one multiplication, one comparison."))),
))

MEMORY = MemoryUpdate(
    "The chapter explains how `TokenBucket` limits a rate: tokens refill lazily in `_refill` from the time elapsed, "
    "and `take` spends them or raises `Throttled` with the wait a caller needs. It shows the refill arithmetic, the "
    "cap at `capacity`, and why no timer thread is needed. Later chapters build the per-client limiter "
    "(`KeyedLimiter`) on top of it. A writer who needs the arithmetic can cite the 'Lazy refill' section of ch02 "
    "and this chapter's 'Spending tokens' section instead of explaining it again.",
    (Term("token bucket", "A counter of permits that refills at a fixed rate up to a cap; each request spends some."),
     Term("lazy refill", "Bringing the token count up to date only when the bucket is used, from the time elapsed."),
     Term("Throttled", "The exception `take` raises when too few tokens are left; it carries the seconds to wait."),
     Term("capacity", "The most tokens a bucket holds: the largest burst it lets through after an idle period."),
     Term("rate", "The tokens added per second: the long-run number of requests the bucket allows.")),
    (Metaphor("a water tank with a dripping tap", "tokens flow in at a steady rate, requests draw water out, and "
                                                  "the tank never holds more than it can"),),
    (CrossRef("ch02", "the clock that `_refill` reads"), CrossRef("ch04", "`KeyedLimiter` keeps one bucket per key")))

OUTLINE = OutlinePlan("Inside throttle: rate limiting, explained", (
    "This book explains the throttle library to Python developers who use it and want to know what it does under "
    "load. Chapters follow the import graph: the clock first, then the bucket, then the limiters built on it."), (
    PlannedChapter("ch01", "What throttle is for", 1, "The problem a rate limiter solves and the library's parts.",
                   ("Say what a rate limiter protects and what it costs a caller",
                    "Name the three modules and what each one owns")),
    PlannedChapter("ch02", "Reading time, and faking it", 1, "How time is read, and faked in tests.",
                   ("Explain why the bucket reads a clock object instead of `time.monotonic`",
                    "Write a test that controls time"), (), ("throttle/clock.py",)),
    PlannedChapter("ch03", "The token bucket", 2, "`TokenBucket`: lazy refill, `take`, and `Throttled`.",
                   ("Compute how many tokens a bucket holds after a pause",
                    "Handle `Throttled` correctly in a caller", "Explain why no timer thread is needed"),
                   ("ch02",), ("throttle/bucket.py",)),
    PlannedChapter("ch04", "One bucket per client", 3, "`KeyedLimiter` and how it forgets idle clients.",
                   ("Configure a limiter per API key", "Bound the memory a limiter uses"), ("ch03",),
                   ("throttle/keyed.py", "throttle/lru.py")),
    PlannedChapter("ch05", "Throttling an HTTP server", 3, "Putting a limiter in front of a request handler.",
                   ("Return 429 with a correct `Retry-After` header", "Choose a rate and a capacity from traffic data"),
                   ("ch03", "ch04"), ("examples/server.py",)),
), (PlannedPart("The big picture", ("ch01",)), PlannedPart("The building blocks", ("ch02", "ch03")),
    PlannedPart("Limiting real traffic", ("ch04", "ch05"))))

AUDIT = Review((
    Finding("audit.xref", "major", 12, "ch04 says 'as chapter 2 showed, the bucket refills every second', but the "
            "refill is continuous (ch03, 'Lazy refill'); correct the sentence and link to ch03.", chapter="ch04",
            quote="as chapter 2 showed, the bucket refills every second"),
    Finding("audit.link", "major", 33, "The link [One bucket per client](ch04.md#locking) points to an anchor "
            "that does not exist; ch04's section is 'Sharing a bucket between threads' "
            "(#sharing-a-bucket-between-threads).", chapter="ch03", quote="[One bucket per client](ch04.md#locking)"),
    Finding("audit.glossary", "minor", 0, "The glossary term 'burst' (defined in ch03) is never used after ch03; "
            "use it in ch04 where bursts are discussed as 'spikes', or drop it from the glossary.", chapter="ch03"),
), "I read the four final chapters in order, followed every link, and compared what each chapter says about "
   "another with what that chapter says. One cross reference is wrong; the rest of the book is consistent.")

WRITER = """## Spending tokens when a request arrives

A caller never asks the bucket whether it may proceed; it simply takes what it needs. Either there are enough
tokens and the call returns, or there are not and the bucket raises **`Throttled`**: the signal that the caller
must wait before trying again. The exception carries that wait in seconds, so the caller does not need to know
how the bucket computes it.

```python file=throttle/bucket.py lines=41-46
def take(self, tokens=1):
    self._refill(self.clock())
    if self.tokens < tokens:
        raise Throttled((tokens - self.tokens) / self.rate)
    self.tokens -= tokens
    return self.tokens
```

The first line brings the bucket up to date. `_refill` adds the tokens that have dripped in since the last call
(the elapsed time multiplied by `rate`) and caps the result at `capacity`, so a bucket left alone overnight is
full, never overflowing. Only then does `take` compare: if fewer tokens remain than requested, it computes the
shortfall, `tokens - self.tokens`, and divides by the rate to turn "how many tokens are missing" into "how many
seconds until they are there". Otherwise it spends them and returns what is left, which a caller can log or use
to slow down before it hits the limit.

Think of the bucket as *a water tank with a dripping tap*: water flows in at a steady rate, each request draws
a cup, and the tank never holds more than it can. Nothing needs to watch the tank; you only look at the level
when you want to draw. That is why `TokenBucket` needs no timer thread: the refill is computed from the clock
when someone asks, as [Reading time, and faking it](ch02.md#lazy-refill) explains.

Two consequences follow for callers. A request for more tokens than `capacity` can never succeed, so `take`
would raise every time; a caller that sends large batches should split them first. And because `take` is not guarded by a lock, two threads sharing one bucket can both see enough tokens and
both spend them; [One bucket per client](ch04.md) shows how `KeyedLimiter` adds the lock.
"""

RESEARCHER = """## Central use case

An API server calls `TokenBucket.take()` once per incoming request and answers HTTP 429 with a `Retry-After`
header when `Throttled` is raised. Every section of the chapter should serve this reader: someone wiring the
bucket into a request handler who must know what `take` costs, what it raises, and what it guarantees.

## Questions the readers will ask

- newcomer: What do I do when `take` raises: sleep, drop, queue? (The source answers: the exception carries the
  wait; the handler decides. `examples/server.py` line 30 returns 429.)
- newcomer: What is the difference between `rate` and `capacity`? (`rate` is tokens per second, `capacity` the
  most the bucket holds: `bucket.py` lines 14-22.)
- maintainer: Is `take` thread-safe? (No: no lock in `bucket.py`; `keyed.py` line 18 wraps buckets in a lock.)
- architect: Why a lazy refill instead of a timer? (No thread, no wake-ups for idle buckets; the cost is one
  subtraction and one multiplication per call: `_refill`, `bucket.py` lines 30-38.)

## Symbols

- `TokenBucket` (class, `throttle/bucket.py`:10): `TokenBucket(rate, capacity, clock=MONOTONIC)`: holds the
  token count and refills it from the clock.
- `TokenBucket.take` (method, `throttle/bucket.py`:41): `take(self, tokens=1) -> float`: spends tokens or raises
  [throttle/bucket.py:41-46](source:throttle/bucket.py#L41-L46).
- `TokenBucket._refill` (method, `throttle/bucket.py`:30): `_refill(self, now) -> None`: adds
  `(now - self.updated) * self.rate`, capped at `capacity`.
- `Throttled` (class, `throttle/errors.py`:5): `Throttled(wait)`: `wait` is the seconds until enough tokens.

## Excerpts

### `TokenBucket.take` — throttle/bucket.py:41-46

Spend `tokens`, or raise `Throttled` with the wait until they are available
[throttle/bucket.py:41-46](source:throttle/bucket.py#L41-L46).

```python file=throttle/bucket.py lines=41-46
def take(self, tokens=1):
    self._refill(self.clock())
    if self.tokens < tokens:
        raise Throttled((tokens - self.tokens) / self.rate)
    self.tokens -= tokens
    return self.tokens
```

## Relations

- imports `throttle.clock`, covered in ch02 (the `clock` the bucket reads)
- used by `throttle.keyed.KeyedLimiter`, covered in ch04

## Open questions

- The constructor rejects `capacity < 1` but not `rate == 0`; with `rate == 0` the wait is a division by zero.
  The draft should say what happens (a `ZeroDivisionError`) rather than claim every bucket refills.
"""

EDITOR = """The action said: "Replace the code block with `take` exactly as throttle/bucket.py lines 41-46 has it, fix
the fence, and open the section with the caller's view." The revised section, as it goes into the final chapter:

""" + WRITER


def _collected() -> str:
    lines = [f"- **{f.severity}** `{f.check}`" + (f" line {f.line}" if f.line else "") + f": {f.message}"
             for r in (R1, R2, R3) for f in r.findings]
    return ("For reference, the findings the tool collected from the three example reviews (it keeps every one "
            "of them in the merged review, so the answer does not copy them):\n\n" + "\n".join(lines))


_COLLECTED = _collected()


def _with(json_obj: object, intro: str, context: str = "") -> str:
    return "\n\n".join(x for x in (_ABOUT + " " + intro, context, _json(json_obj)) if x)


EXAMPLES: dict[str, str] = {
    "planner": _with(OUTLINE.to_json(), "A correct outline answer for a four-module library: batches follow the "
                     "dependencies, every chapter names its sources and two to four goals a reader can check."),
    "researcher": _ABOUT + " An excerpt of a correct research report: the central use case, the readers' questions "
                  "answered from the source with file and line, symbols with signatures, a verbatim excerpt.\n\n"
                  + RESEARCHER,
    "writer": _ABOUT + " One correct section of a draft: the reader's problem first, the code quoted exactly with "
              "its path and lines, every line of the code explained, a term defined in bold where it first appears, "
              "the chapter's metaphor, and links to the chapters that explain what this one builds on.\n\n" + WRITER,
    "r1_code": _with(R1.to_json(), "A correct R1 answer: each finding quotes the text it objects to, cites the "
                     "line range of the numbered draft, and says how to fix it.", _DRAFT_LINES),
    "r2_consistency": _with(R2.to_json(), "A correct R2 answer: each finding names the glossary entry, link or "
                            "metaphor it compares with, quotes the draft, and says what to write instead.",
                            _DRAFT_LINES),
    "r3_content": _with(R3.to_json(), "A correct R3 answer: findings about order, clarity and coverage, each with "
                        "the lines and, where one phrase is the problem, the quote.", _DRAFT_LINES),
    "merger": _with(MERGED.to_json(), "A correct merged review of the three example reviews: no finding of its own "
                    "(the tool keeps the reviews' findings), then actions saying where, what, how, and which "
                    "findings they settle, and a note on the order to follow.", _COLLECTED),
    "reader_panel": _with(PANEL.to_json(), "A correct panel answer for two readers: each reader's verdict and "
                          "score, the questions the chapter leaves them with, and where they stumbled, with the line, "
                          "the words that lost them and what would help."),
    "memory_keeper": _with(MEMORY.to_json(), "A correct memory update: a summary a later writer can build on "
                           "without reading the chapter, the terms it defines (each spelled exactly as the chapter "
                           "spells it, with a definition of one sentence that would make sense in a glossary at the "
                           "back of the book), its own metaphor with what it stands for, and the chapters it refers "
                           "to with the reason in a few words. Terms that earlier chapters defined are left out even "
                           "when this chapter uses them: here 'clock' belongs to ch02, so it is not listed."),
    "editor": _ABOUT + " " + EDITOR,
    "auditor": _with(AUDIT.to_json(), "A correct audit answer: each finding names the chapter and the line in "
                     "that chapter's final text, quotes it, and says what to change. The audit reads the whole book "
                     "at once, so its findings are the ones no single chapter's review could see: a chapter that "
                     "contradicts another, a link whose target section was renamed by the editor, a term that the "
                     "glossary keeps but the book stopped using, a promise in one chapter ('we come back to this in "
                     "chapter 4') that the later chapter does not keep. A finding that one chapter's reviewers "
                     "would have caught on their own is not the audit's business unless it is still in the final "
                     "text. Severity follows the same scale as the reviews: blocking only for a chapter that would "
                     "teach something false or is broken.", """For reference, line 12 of ch04's final text:

```
12 | As chapter 2 showed, the bucket refills every second, so a burst is capped per second.
```"""),
}


def example(role: str) -> str:
    """The exemplary answer for a role (the names of prompts/<role>.md.j2); KeyError if none."""
    return EXAMPLES[role]
