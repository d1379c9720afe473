"""Deterministic checks of a chapter, run by the reviewers in both modes and by the final
audit: R1 (`code`) verifies quoted code, cited paths and symbols against the source repo;
R2 (`consistency`) checks cross references, glossary terms and metaphor reuse; R3
(`structure`) checks structure and length; `audit` checks links, leftovers and cross
references across the final chapters. `findings` is what they all report.

Markdown conventions: one `# Title`, `##` sections; code quoted from the source is a fence
whose info string names the file (```` ```python file=minikv/store.py lines=10-24 ````);
cited paths and symbols are inline code; chapter links are `[text](chNN.md#anchor)`.

Everything is a pure function of its arguments (plus reading files under the source
directory); findings come out sorted by line, then message. Only the stdlib is used."""

from ..text.markdown import CodeBlock, code_blocks, heading_slugs, slugify, text_length
from .audit import audit_book
from .claims import check_claims
from .code import check_code, source_index
from .consistency import check_consistency
from .findings import SEVERITIES, Finding, blocking, format_findings, parse_findings
from .structure import check_structure

__all__ = ["SEVERITIES", "CodeBlock", "Finding", "audit_book", "blocking", "check_claims", "check_code", "check_consistency", "source_index",
           "check_structure", "code_blocks", "format_findings", "heading_slugs", "parse_findings", "slugify",
           "text_length"]
