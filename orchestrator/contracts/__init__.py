"""Agent contracts (issue 11): what passes between agents is structured, validated and
rendered deterministically; what people write is read strictly; the verdict is computed.

- `findings`: Finding, Action, Review (R1/R2/R3/audit), MergedReview — with SCHEMA, from_json
- `memory`: MemoryUpdate (Term, Metaphor, CrossRef); `panel`: PanelFeedback (ReaderFeedback,
  Confusion); `outline`: OutlinePlan (PlannedChapter, PlannedPart)
- `schemas`: SCHEMAS by step, output_config(step) for the SDK, from_answer(step, text)
- `render`: JSON contract -> the Markdown file (reviews, merged review, memory, panel, outline)
- `parse`: the Markdown files -> contracts, leniently in form, strictly in substance
- `verdict`: verdict(findings, person_verdict), merge_findings
- `review_state`: read_merged_review, review_state (a merged review file as the runner reads it)
- `markers_guard`: marker_problems(text), check_no_markers(text)
- `examples`: one exemplary answer per role, for the cached instructions

Nothing here imports anthropic, yaml (except to render/parse the outline) or the runner."""

from .errors import ContractError
from .findings import Action, Finding, MergedReview, Review
from .markers_guard import check_no_markers, marker_problems
from .memory import CrossRef, MemoryUpdate, Metaphor, Term
from .outline import OutlinePlan, PlannedChapter, PlannedPart
from .panel import Confusion, PanelFeedback, ReaderFeedback
from .review_state import read_merged_review, review_state
from .verdict import blocked_reason, merge_findings, verdict

__all__ = ["Action", "Confusion", "ContractError", "CrossRef", "Finding", "MemoryUpdate", "MergedReview", "Metaphor",
           "OutlinePlan", "PanelFeedback", "PlannedChapter", "PlannedPart", "ReaderFeedback", "Review", "Term", "blocked_reason",
           "check_no_markers", "marker_problems", "merge_findings", "read_merged_review", "review_state", "verdict"]
