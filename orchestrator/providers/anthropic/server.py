"""The server a book talks to (issue 27): Anthropic's API, or any server that speaks the
Messages API (Ollama, the llama.cpp server, vLLM) at `ANTHROPIC_BASE_URL`.

    server: compatible        # beside provider: anthropic (default: anthropic)
    model: qwen3-coder        # taken as given: no model table, no family pricing
    context_window: 8192      # the server's limits (its n_ctx / num_ctx), not a Claude's
    max_output: 2048
    prices: {input: 0, output: 0}   # USD per million tokens; cost 0 when not given

`ServerProfile` is what book.yaml says; `Features` is what the server accepts, found by
`probe` (one tiny request per feature) and cached in output/.book/server.json by base URL and
model, so a run probes once. The request builder (params.py), the token gate, the provider and
the budgets (agents/source_context.py, agents/memory_budget.py) are handed these objects:
nothing here is global. Importing this module does not import `anthropic`.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from ...errors import ConfigError
from ..base import Usage
from .models import EFFORTS, UNKNOWN, ModelInfo

log = logging.getLogger("orchestrator.providers.anthropic")
KINDS = ("anthropic", "compatible")
PLACEHOLDER_KEY = "sk-local-no-key"  # the SDK needs some key; a local server ignores it
CACHE_FILE = Path("output") / ".book" / "server.json"
PROBE_SCHEMA = {"type": "object", "properties": {"zq_probe": {"type": "integer"}}, "required": ["zq_probe"],
                "additionalProperties": False}
DEFAULT_WINDOW = 8192  # a compatible server's window when book.yaml names none (Ollama's default is smaller)
DEFAULT_OUTPUT = 2048


@dataclass(frozen=True)
class Features:
    """What the server accepts. Anthropic's API: everything."""
    structured: bool = True  # output_config.format (json_schema)
    cache: bool = True  # cache_control breakpoints, reported in usage
    count_tokens: bool = True  # POST /v1/messages/count_tokens
    batches: bool = True  # the Message Batches endpoints
    thinking: bool = True  # `thinking` blocks
    effort: bool = True  # output_config.effort

    def lacking(self) -> list[str]:
        return [f.name for f in fields(self) if not getattr(self, f.name)]


ALL = Features()
NONE = Features(False, False, False, False, False, False)


@dataclass(frozen=True)
class ServerProfile:
    kind: str = "anthropic"
    base_url: str = ""
    model: str = ""
    context_window: int = 0  # 0: the model table's
    max_output: int = 0
    prices: dict[str, float] | None = None  # per million tokens (input, output); None: free

    @property
    def compatible(self) -> bool:
        return self.kind == "compatible"

    def info(self, base: ModelInfo) -> ModelInfo:
        """The limits a request is built with: the table's for Claude; for a compatible server the
        configured window and output cap, no prefill (continue turns), nothing cached."""
        if not self.compatible:
            return base
        return ModelInfo(key="", family=None, context_window=self.context_window or DEFAULT_WINDOW,
                         max_output=self.max_output or DEFAULT_OUTPUT, min_cache_tokens=1 << 30, thinking="both",
                         efforts=EFFORTS, prefill=False, known=True)

    def cost(self, usage: Usage) -> float:
        p = self.prices or {}
        return (usage.input_tokens + usage.cache_creation_tokens + usage.cache_read_tokens) * float(p.get("input", 0)) \
            / 1e6 + usage.output_tokens * float(p.get("output", 0)) / 1e6


def from_config(cfg: Any, environ: Any = None) -> ServerProfile:
    """The profile of a loaded Config (book.yaml's `server`, `context_window`, `max_output`,
    `prices`; the base URL from the environment). A compatible server without a base URL is a
    config error: there is nothing to talk to."""
    env = os.environ if environ is None else environ
    kind = getattr(cfg, "server", "anthropic") or "anthropic"
    url = str(env.get("ANTHROPIC_BASE_URL", "")).strip()
    if kind != "compatible":
        return ServerProfile("anthropic", url, getattr(cfg, "model", ""))
    if not url:
        raise ConfigError("server: compatible needs ANTHROPIC_BASE_URL, the address of the server",
                          str(getattr(cfg, "file", None) or "book.yaml"),
                          fix="export ANTHROPIC_BASE_URL=http://localhost:11434 (Ollama) or http://localhost:8080 "
                              "(llama.cpp server)")
    prices = getattr(cfg, "prices", None) or None
    return ServerProfile("compatible", url, cfg.model, int(getattr(cfg, "context_window", 0) or 0),
                         int(getattr(cfg, "max_output", 0) or 0), dict(prices) if prices else None)


def limits(cfg: Any, model: str) -> ModelInfo:
    """The limits a role's prompts are budgeted against (agents/source_context.py,
    agents/memory_budget.py): the model table's, or a compatible server's from book.yaml (no
    base URL needed: budgets are computed without talking to the server)."""
    from .models import model_info

    base = model_info(model)
    if getattr(cfg, "server", "anthropic") != "compatible":
        return base
    return ServerProfile("compatible", "", model, int(getattr(cfg, "context_window", 0) or 0),
                         int(getattr(cfg, "max_output", 0) or 0)).info(base)


def check_prices(value: Any) -> str:
    """'' when book.yaml's `prices:` is valid, else what is wrong."""
    if not isinstance(value, dict):
        return "prices maps input and output to USD per million tokens"
    bad = [k for k in value if k not in ("input", "output")]
    if bad:
        return f"prices: unknown key {bad[0]!r} (known: input, output)"
    for k, v in value.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            return f"prices.{k} must be a number of USD per million tokens, not {v!r}"
    return ""


# ------------------------------------------------------------------ the probe


def _cache_path(root: Path) -> Path:
    return Path(root) / CACHE_FILE


def _key(profile: ServerProfile) -> str:
    return f"{profile.base_url.rstrip('/')} {profile.model}"


def cached(profile: ServerProfile, root: Path) -> Features | None:
    try:
        data = json.loads(_cache_path(root).read_text(encoding="utf-8"))
        entry = data[_key(profile)]["features"]
        return Features(**{f.name: bool(entry[f.name]) for f in fields(Features)})
    except (OSError, ValueError, KeyError, TypeError):
        return None  # none yet, or unreadable: probe again (the file is only a cache)


def _store(profile: ServerProfile, root: Path, features: Features) -> None:
    from ...state.fsio import atomic_write

    path = _cache_path(root)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        data = data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        data = {}
    data[_key(profile)] = {"features": asdict(features), "probed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(data, indent=1, sort_keys=True) + "\n")


def features_for(profile: ServerProfile, root: Path | None, key: str, refresh: bool = False) -> Features:
    """What to use against this server: everything for Anthropic's; for a compatible one the
    cached probe, else a new probe (stored when `root` is given)."""
    if not profile.compatible:
        return ALL
    if root is not None and not refresh:
        hit = cached(profile, root)
        if hit is not None:
            return hit
    found = probe(profile, key)
    if root is not None:
        _store(profile, root, found)
    return found


def _status(e: BaseException) -> int | None:
    return getattr(e, "status_code", None)


def probe(profile: ServerProfile, key: str, timeout: float = 120.0) -> Features:
    """One tiny request per feature. A 4xx (or a 5xx the server gives for what it does not
    know) means absent; a connection error is raised: the server is not there at all."""
    import anthropic

    client = anthropic.Anthropic(api_key=key, base_url=profile.base_url, max_retries=0, timeout=timeout)
    model = profile.model
    hello: Any = [{"role": "user", "content": "Reply with the word hello."}]

    def accepted(call: Any) -> Any:
        try:
            return call()
        except (anthropic.APIConnectionError, anthropic.APITimeoutError):
            raise
        except anthropic.APIStatusError as e:
            log.info("server probe: %s answered %s", profile.base_url, _status(e))
            return None

    def text_of(msg: Any) -> str:
        return "".join(getattr(b, "text", "") for b in getattr(msg, "content", []) or [])

    try:
        base = client.messages.create(model=model, max_tokens=16, messages=hello)  # the server and the model answer
    except (anthropic.APIConnectionError, anthropic.APITimeoutError) as e:
        raise ConfigError(f"no server answers at {profile.base_url} ({type(e).__name__})", "ANTHROPIC_BASE_URL",
                          fix="start it (`ollama serve`, `llama-server -m model.gguf`) or correct ANTHROPIC_BASE_URL") \
            from None
    except anthropic.APIStatusError as e:
        raise ConfigError(f"the server at {profile.base_url} refused a one-word request to {model} "
                          f"({_status(e)}: {str(e)[:200]})", "book.yaml",
                          fix="check `model:` (the server's name for it, e.g. `ollama list`) and ANTHROPIC_BASE_URL") from None
    del base
    # Structured outputs: a server that ignores the format answers "hello", not the schema's object.
    msg = accepted(lambda: client.messages.create(
        model=model, max_tokens=64, messages=hello,
        extra_body={"output_config": {"format": {"type": "json_schema", "schema": PROBE_SCHEMA}}}))
    structured = False
    if msg is not None:
        try:
            structured = isinstance(json.loads(text_of(msg)).get("zq_probe"), int)
        except (ValueError, AttributeError):
            structured = False
    # Caching: accepted and reported (a server that ignores cache_control reports no cache tokens).
    system: Any = [{"type": "text", "text": "You answer in one word. " * 8, "cache_control": {"type": "ephemeral"}}]
    cache = False
    for _ in range(2):
        msg = accepted(lambda: client.messages.create(model=model, max_tokens=8, system=system,
                                                      messages=hello))
        u = getattr(msg, "usage", None)
        if u is not None and ((getattr(u, "cache_creation_input_tokens", 0) or 0)
                              + (getattr(u, "cache_read_input_tokens", 0) or 0)) > 0:
            cache = True
            break
        if msg is None:
            break
    counted = accepted(lambda: client.messages.count_tokens(model=model, messages=hello))
    count_tokens = counted is not None and isinstance(getattr(counted, "input_tokens", None), int)
    batches = accepted(lambda: client.messages.batches.list(limit=1)) is not None
    thinking = accepted(lambda: client.messages.create(
        model=model, max_tokens=1100, messages=hello,
        extra_body={"thinking": {"type": "enabled", "budget_tokens": 1024}})) is not None
    effort = accepted(lambda: client.messages.create(
        model=model, max_tokens=16, messages=hello, extra_body={"output_config": {"effort": "low"}})) is not None
    client.close()
    found = Features(structured, cache, count_tokens, batches, thinking, effort)
    log.info("server %s (%s): lacks %s", profile.base_url, model, ", ".join(found.lacking()) or "nothing")
    return found


def describe(profile: ServerProfile, features: Features) -> dict[str, Any]:
    """For `book doctor --json` and its text."""
    info = profile.info(UNKNOWN)
    return {"server": profile.kind, "base_url": profile.base_url, "model": profile.model,
            "context_window": info.context_window, "max_output": info.max_output,
            "features": asdict(features), "priced": bool(profile.prices)}
