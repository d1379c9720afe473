"""The agents: for each model step, what it reads (`context`), its prompt (`prompts`) and how
its answer is judged (`validation`). One role per step; the step registry names it."""

from .context import Gathered, bounded_finals, gather, warm
from .prompts import Parts, build_request, prompt_env, render_layout, render_parts, render_prompt
from .source_context import bounded_sources
from .validation import VALIDATORS, clean_and_validate

__all__ = ["VALIDATORS", "Gathered", "Parts", "bounded_finals", "bounded_sources", "build_request", "clean_and_validate",
           "gather", "prompt_env", "warm", "render_layout", "render_parts", "render_prompt"]
