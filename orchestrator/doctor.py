"""`book doctor`: is this workspace ready to run? Config, source, provider key, the model
reachable (one tiny call), the prompt templates rendering. Each check says how to fix it."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass

from . import config as config_mod
from .agents import render_prompt
from .errors import BookError, StepFailed
from .providers import resolve_name
from .providers.base import Request, Sink
from .repo.walk import SourceReadError, walk
from .steps import ALL_STEPS, MEMORY, STEPS, STYLE_GUIDE


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    warning: bool = False  # something to fix that does not stop a run (shown as "warn", not "BAD")


def sample_context(cfg) -> dict:
    """Every context key a prompt may use (agents.gather), with small sample values."""
    chapter = {"id": "ch01", "title": "Sample", "summary": "A sample chapter.", "batch": 1, "depends_on": [],
               "sources": ["pkg/mod.py"]}
    finding = {"check": "r1.code", "severity": "minor", "line": 3, "message": "sample", "chapter": "ch01"}
    doc = "# Sample\n\nText.\n\n## Findings\n\n- none\n"
    return {"book": {"title": cfg.title, "language": cfg.language, "audience": cfg.audience, "brief": cfg.brief},
            "language": cfg.language, "personas": list(cfg.personas), STYLE_GUIDE: "# Style", "outline_yaml": "",
            "chapters": [{k: chapter[k] for k in ("id", "title", "batch", "summary")}], "chapter": chapter,
            MEMORY: {"glossary": [], "summaries": [], "metaphors": []}, "sources": {"pkg/mod.py": "x = 1\n"},
            "imports_from": {}, **{k: doc for s in STEPS.values() for k in s.context},
            "findings": [finding], "verified_blocks": [], "blocked": False, "finals": {"ch01": doc},
            "limits": {"max_chapters": cfg.max_chapters, "batch_size": cfg.batch_size},
            "source_files": [{"path": "pkg/mod.py", "kind": "code", "lines": 1}], "source_summary": "1 files (1 code)",
            "repo_map": "pkg/mod.py:\n    1 x = 1", "related_map": "", "tests_map": "", "related_files": [],
            "test_files": []}


def _walk_summary(src) -> str:
    """What the book reads of the source and what it leaves out (the safe walker's summary)."""
    try:
        return walk(src).summary()
    except SourceReadError as e:
        return str(e)


def config_problem(e: BookError) -> Check:
    """A bad book.yaml as one check with one fix: the error's own fix when it names one (a
    ConfigError's message carries it as a `fix:` line, which must not be printed twice)."""
    own = getattr(e, "fix", None)
    detail = str(e)
    if own:
        detail = detail.split("\n  fix: ", 1)[0]
    return Check("config", False, detail, own or "fix book.yaml as the message says (`book init` shows every key)")


def run_checks(root, provider: str | None = None, call_model: bool = True) -> list[Check]:
    out: list[Check] = []
    try:
        cfg = config_mod.load(root, require=True, check_source=False)
        out.append(Check("config", True, f"{cfg.file} is valid"))
    except BookError as e:
        return [config_problem(e)]
    src = cfg.source_dir
    out.append(Check("source", src.is_dir(), f"{src}" + (f": {_walk_summary(src)}" if src.is_dir() else " does not exist"),
                     "" if src.is_dir() else "point `source:` in book.yaml at the repository to write about"))
    roles = sorted({s.role for s in ALL_STEPS.values() if s.model})
    ctx = sample_context(cfg)
    bad = []
    for role in roles:
        try:
            render_prompt(cfg.root, role, ctx)
        except BookError as e:
            bad.append(f"{role}: {e}")
    out.append(Check("prompts", not bad, f"{len(roles)} role templates render" if not bad else "; ".join(bad),
                     "" if not bad else "fix or remove the override in prompts/"))
    name = resolve_name(provider, cfg)
    if name == "offline":
        out.append(Check("provider", True, "offline (deterministic, no network); set ANTHROPIC_API_KEY for Claude"))
        return out
    if getattr(cfg, "server", "anthropic") == "compatible":
        out += server_checks(cfg, roles, call_model)
        return out
    out += model_checks(cfg, roles)
    has_key = bool(os.environ.get("ANTHROPIC_API_KEY"))
    out.append(Check("api key", has_key, "ANTHROPIC_API_KEY is set" if has_key else "ANTHROPIC_API_KEY is not set",
                     "" if has_key else "export ANTHROPIC_API_KEY=... (it is read from the environment, never stored)"))
    if has_key and call_model:
        out.append(asyncio.run(_ping(cfg)))
    return out


def cache_lifetimes(cfg, role: str) -> str:
    """The lifetimes a role's breakpoints ask for in a run of this book (cache_ttl.py): the book's
    block and the material by the gates and batches in force, the user turn none."""
    from .providers.anthropic.cache_ttl import block_ttls
    from .state.gatecards import active
    from .steps import REVIEW

    entry = (getattr(cfg, "models", {}) or {}).get(role)
    own = entry.get("cache_ttl") if isinstance(entry, dict) else None
    gates = active(getattr(cfg, "gates", "off"))
    settings = {"cache_ttl": own or ("1h" if gates else "5m"), "batch": bool(getattr(cfg, "message_batches", False))}
    book, material = block_ttls(["book", "material"], settings, "1h" if REVIEW in gates else None)
    return f"cache: book {book}, chapter material {material}, user turn none"


def model_checks(cfg, roles: list[str]) -> list[Check]:
    """The limits in force for each role's calls (model, max_tokens, thinking, effort and the
    levels the model takes, each breakpoint's cache lifetime, how a cut answer continues), and
    what the model tables warn about: an id at its end of life (retired or deprecated), an
    unknown model (priced at the most expensive rate of its family), an id the SDK does not list."""
    from .providers.anthropic import effective_settings
    from .providers.anthropic.models import effort_levels

    out: list[Check] = []
    warned: list[str] = []
    for role in roles:
        s = effective_settings(cfg, role)
        levels = effort_levels(s["model"])
        effort = (f"effort {s['effort'] or 'the model default'} (takes {', '.join(levels)})" if levels
                  else "no effort parameter")
        thinking = f", thinking {s['thinking']}" if s.get("thinking") else ""
        out.append(Check(f"settings: {role}", True, f"{s['model']}, max_tokens {s['max_tokens']} (model limit "
                         f"{s['max_output']}){thinking}, {effort}, {cache_lifetimes(cfg, role)}, context window "
                         f"{s['context_window']}, a cut answer continues by {s['continuation']}"))
        warned += [w for w in s["warnings"] if w not in warned]
    for w in warned:
        eol = ": retired" in w or ": deprecated" in w
        out.append(Check("model end of life" if eol else "model warning", False, w,
                         "name a current model in book.yaml (`model:` or `models:`)" if eol else
                         "name a model of data/models.yaml in book.yaml (`model:` or `models:`), or add it to the table",
                         warning=not eol))
    return out


def server_checks(cfg, roles: list[str], call_model: bool) -> list[Check]:
    """A compatible server (issue 27): its address, the model's limits and where each comes from
    (book.yaml, or the server's model listing), what the server accepts (probed afresh, and the
    workspace's cache updated), one tiny call."""
    from .providers.anthropic.server import (
        NONE,
        PLACEHOLDER_KEY,
        cached_limits,
        describe,
        features_for,
        from_config,
        resolved,
    )

    try:
        profile = from_config(cfg)
    except BookError as e:
        return [config_problem(e)]
    features, problem = None, None
    if call_model:  # probed first, so that the limits shown are the ones the listing gives now
        key = os.environ.get("ANTHROPIC_API_KEY", "").strip() or PLACEHOLDER_KEY
        try:
            features = features_for(profile, cfg.root, key, refresh=True)
        except BookError as e:
            problem = config_problem(e)
        except Exception as e:  # noqa: BLE001 - the server is not there: said, with the address
            problem = Check("server features", False, f"{profile.base_url} did not answer: {e}",
                            "start the server (ollama serve, llama-server) or fix ANTHROPIC_BASE_URL")
    shown = resolved(profile, cfg.root)
    d = describe(shown, NONE, cached_limits(profile, cfg.root))
    out = [Check("server", True, f"compatible server at {profile.base_url}, model {profile.model} taken as given "
                 f"(context window {d['context_window']} tokens, from {d['window_source']}; answers up to "
                 f"{d['max_output']}, from {d['output_source']}; {_listed(d['listing'])}"
                 f"{'priced by book.yaml' if profile.prices else 'cost 0'})")]
    for role in roles:
        from .providers.anthropic import effective_settings

        s = effective_settings(cfg, role)
        out.append(Check(f"settings: {role}", True, f"{s['model']}, max_tokens {s['max_tokens']} (limit "
                         f"{s['max_output']}), context window {s['context_window']}"))
    if not call_model:
        return out
    if problem is not None or features is None:
        return out + ([problem] if problem is not None else [])
    has = [k for k, v in describe(shown, features)["features"].items() if v]
    lacks = features.lacking()
    out.append(Check("server features", True, f"accepts {', '.join(has) or 'none of the optional features'}; "
                     f"lacks {', '.join(lacks) or 'nothing'} (" + "; ".join(_DEGRADED[k] for k in lacks) + ")"
                     if lacks else f"accepts {', '.join(has)}"))
    out.append(asyncio.run(_ping(cfg, shown, features)))
    return out


def _listed(listing: dict | None) -> str:
    """What the server's listing said of the model's and the server's own windows, when it said both."""
    if not listing or not (listing.get("model_window") and listing.get("run_window")):
        return ""
    return (f"the model supports {listing['model_window']} ({listing['model_source']}), the server runs it with "
            f"{listing['run_window']} ({listing['run_source']}); ")


# How a run does without each feature (params.py, tokens.py, batch_wave.py).
_DEGRADED = {"structured": "JSON by instruction, validated and asked again", "cache": "no cache breakpoints",
             "count_tokens": "tokens estimated locally", "batches": "every step streams",
             "thinking": "no thinking blocks", "effort": "no effort level"}


async def _ping(cfg, profile=None, features=None) -> Check:
    from .providers.anthropic import AnthropicProvider

    # One short call: no continuation of the 5-token answer, and no ten minutes of overload patience.
    p = AnthropicProvider(concurrency=1, max_attempts=2, base_delay=0.5, max_continuations=0, overload_budget=20.0,
                          overload_base=1.0, server=profile, features=features)
    req = Request(role="doctor", step="doctor", chapter=None, system="You check that the API works.",
                  prompt="Reply with the single word OK.", model=cfg.model, max_tokens=5)
    url = os.environ.get("ANTHROPIC_BASE_URL", "the Anthropic API")
    try:
        res = await p.generate(req, Sink())  # the answer goes nowhere: it only has to come
        return Check("model", True, f"{cfg.model} answered through {url} (stop reason {res.stop_reason})")
    except StepFailed as e:
        if "incomplete" in str(e) or "max_tokens" in str(e):
            return Check("model", True, f"{cfg.model} answered through {url}")
        return Check("model", False, f"{cfg.model} through {url}: {e}", "check the model name in book.yaml, the key, "
                     "and ANTHROPIC_BASE_URL if you set it")
    finally:
        await p.aclose()
