"""The server a book talks to (issue 27): Anthropic's API, or any server that speaks the
Messages API (Ollama, the llama.cpp server, vLLM) at `ANTHROPIC_BASE_URL`.

    server: compatible        # beside provider: anthropic (default: anthropic)
    model: qwen3-coder        # taken as given: no model table, no family pricing
    context_window: 8192      # the server's limits (its n_ctx / num_ctx), not a Claude's
    max_output: 2048
    prices: {input: 0, output: 0}   # USD per million tokens; cost 0 when not given

`ServerProfile` is what book.yaml says; `Features` is what the server accepts, found by
`probe` (one tiny request per feature), and `Limits` what its model listing says of the window
(listing.py); both are cached in output/.book/server.json by base URL and model, so a run probes
once. book.yaml's `context_window` / `max_output` win over the listing; without either, 8192. The request builder (params.py), the token gate, the provider and
the budgets (agents/source_context.py, agents/memory_budget.py) are handed these objects:
nothing here is global. Importing this module does not import `anthropic`.
"""

from __future__ import annotations

import contextvars
import json
import logging
import os
import time
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from ...errors import ConfigError
from ..base import Usage
from .listing import Limits
from .models import EFFORTS, UNKNOWN, ModelInfo

log = logging.getLogger("orchestrator.providers.anthropic")
KINDS = ("anthropic", "compatible")
PLACEHOLDER_KEY = "sk-local-no-key"  # the SDK needs some key; a local server ignores it
CACHE_FILE = Path("output") / ".book" / "server.json"
PROBE_SCHEMA = {"type": "object", "properties": {"zq_probe": {"type": "integer"}}, "required": ["zq_probe"],
                "additionalProperties": False}
DEFAULT_WINDOW = 8192  # a compatible server's window when book.yaml names none (Ollama's default is smaller)
DEFAULT_OUTPUT = 2048
# The share of the window's room for a prompt that the request being built may use: below 1 while a
# smaller ask is built (agents/smaller_ask.py), so that every budget following the window shrinks.
PROMPT_SHARE: contextvars.ContextVar[float] = contextvars.ContextVar("prompt_share", default=1.0)


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
    window_source: str = ""  # where context_window came from ("book.yaml", "llama.cpp /props", ...)
    output_source: str = ""

    @property
    def compatible(self) -> bool:
        return self.kind == "compatible"

    @property
    def window(self) -> int:
        return self.context_window or DEFAULT_WINDOW

    @property
    def output(self) -> int:
        # without a cap of its own: 2048, but never more than a quarter of a small window
        return self.max_output or min(DEFAULT_OUTPUT, self.window // 4)

    def sources(self) -> tuple[str, str]:
        """Where the window and the output cap come from, said for `book doctor`."""
        win = self.window_source or ("book.yaml" if self.context_window else
                                     "the default, as the server's listing gave none (set context_window in book.yaml)")
        out = self.output_source or ("book.yaml" if self.max_output else
                                     f"the default ({DEFAULT_OUTPUT}, at most a quarter of the window)")
        return win, out

    def with_limits(self, found: Limits | None) -> ServerProfile:
        """The profile with the listing's limits where book.yaml gives none (book.yaml wins)."""
        if not self.compatible or found is None:
            return self
        window, wsrc = (self.context_window, "book.yaml") if self.context_window else \
            (found.context_window, found.window_source)
        output, osrc = (self.max_output, "book.yaml") if self.max_output else (found.max_output, found.output_source)
        if window and output and output >= window:  # a listing's answer cap that leaves no room for a prompt
            output, osrc = 0, ""
        return replace(self, context_window=window, max_output=output, window_source=wsrc if window else "",
                       output_source=osrc if output else "")

    def info(self, base: ModelInfo) -> ModelInfo:
        """The limits a request is built with: the table's for Claude; for a compatible server the
        configured (or listed) window and output cap, no prefill (continue turns), nothing cached."""
        if not self.compatible:
            return base
        return ModelInfo(key="", family=None, context_window=self.window, max_output=self.output,
                         min_cache_tokens=1 << 30, thinking="both", efforts=EFFORTS, prefill=False, known=True)

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


def limits(cfg: Any, model: str, environ: Any = None) -> ModelInfo:
    """The limits a role's prompts are budgeted against (agents/source_context.py,
    agents/memory_budget.py): the model table's, or a compatible server's: book.yaml's, else what
    the server's listing said when it was probed (the workspace's cache; budgets never call the
    server themselves)."""
    from .models import model_info

    base = _share(model_info(model))
    if getattr(cfg, "server", "anthropic") != "compatible":
        return base
    env = os.environ if environ is None else environ
    profile = ServerProfile("compatible", str(env.get("ANTHROPIC_BASE_URL", "")).strip(), model,
                            int(getattr(cfg, "context_window", 0) or 0), int(getattr(cfg, "max_output", 0) or 0))
    root = getattr(cfg, "root", None)
    if root is not None and profile.base_url and not (profile.context_window and profile.max_output):
        profile = profile.with_limits(cached_limits(profile, Path(root)))
    return _share(profile.info(base))


def _share(info: ModelInfo) -> ModelInfo:
    """`info` with only PROMPT_SHARE of the room a prompt has beside the answer (a smaller ask)."""
    share = PROMPT_SHARE.get()
    if share >= 1.0 or info.context_window <= 0:
        return info
    room = max(0, info.context_window - info.max_output)
    return replace(info, context_window=info.max_output + int(room * share))


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


_memo: dict[tuple[str, int, str], Any] = {}  # (cache file, its mtime, key) -> its entry: budgets ask often


def _entry(profile: ServerProfile, root: Path) -> Any:
    path = _cache_path(root)
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return None
    memo = (str(path), stamp, _key(profile))
    if memo not in _memo:
        try:
            _memo[memo] = json.loads(path.read_text(encoding="utf-8")).get(_key(profile))
        except (OSError, ValueError, AttributeError):
            _memo[memo] = None
    return _memo[memo]


def cached(profile: ServerProfile, root: Path) -> Features | None:
    try:
        entry = _entry(profile, root)["features"]
        return Features(**{f.name: bool(entry[f.name]) for f in fields(Features)})
    except (KeyError, TypeError):
        return None  # none yet, or unreadable: probe again (the file is only a cache)


def cached_limits(profile: ServerProfile, root: Path) -> Limits | None:
    """What the server's listing said when it was last probed (None: not probed since)."""
    try:
        return Limits.from_json(_entry(profile, root)["limits"])
    except (KeyError, TypeError, ValueError):
        return None


def _store(profile: ServerProfile, root: Path, features: Features, found: Limits) -> None:
    from ...state.fsio import atomic_write

    path = _cache_path(root)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        data = data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        data = {}
    data[_key(profile)] = {"features": asdict(features), "limits": found.to_json(),
                           "probed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(data, indent=1, sort_keys=True) + "\n")


def features_for(profile: ServerProfile, root: Path | None, key: str, refresh: bool = False) -> Features:
    """What to use against this server: everything for Anthropic's; for a compatible one the
    cached probe, else a new probe with a read of its model listing (stored when `root` is given)."""
    if not profile.compatible:
        return ALL
    if root is not None and not refresh:
        hit = cached(profile, root)
        if hit is not None and cached_limits(profile, root) is not None:
            return hit
    found = probe(profile, key)
    listed = read_listing(profile, key)
    if root is not None:
        _store(profile, root, found, listed)
    return found


def resolved(profile: ServerProfile, root: Path | None) -> ServerProfile:
    """The profile with the cached listing's limits where book.yaml gives none."""
    return profile.with_limits(cached_limits(profile, root)) if root is not None and profile.compatible else profile


def read_listing(profile: ServerProfile, key: str) -> Limits:
    """The server's model listing (listing.py), after the probe's requests loaded the model."""
    from .listing import fetcher, read

    found = read(fetcher(profile.base_url, key), profile.model)
    log.info("server %s (%s): window %s from %s", profile.base_url, profile.model, found.context_window or "unknown",
             found.window_source or "no listing")
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
    # Thinking and effort count only where they take effect: a server that accepts `thinking` and
    # answers without a thinking block ignores it; one that ignores output_config's format
    # (above) ignores its effort too. Either is then never sent (params.py).
    msg = accepted(lambda: client.messages.create(
        model=model, max_tokens=1100, messages=hello,
        extra_body={"thinking": {"type": "enabled", "budget_tokens": 1024}}))
    thinking = msg is not None and any(getattr(b, "type", "") == "thinking" for b in getattr(msg, "content", []) or [])
    effort = structured and accepted(lambda: client.messages.create(
        model=model, max_tokens=16, messages=hello, extra_body={"output_config": {"effort": "low"}})) is not None
    client.close()
    found = Features(structured, cache, count_tokens, batches, thinking, effort)
    log.info("server %s (%s): lacks %s", profile.base_url, model, ", ".join(found.lacking()) or "nothing")
    return found


def describe(profile: ServerProfile, features: Features, found: Limits | None = None) -> dict[str, Any]:
    """For `book doctor --json` and its text: the limits in force, where each comes from, and
    what the listing said of the model's and the server's windows."""
    info = profile.info(UNKNOWN)
    win, out = profile.sources()
    return {"server": profile.kind, "base_url": profile.base_url, "model": profile.model,
            "context_window": info.context_window, "window_source": win, "max_output": info.max_output,
            "output_source": out, "listing": found.to_json() if found is not None else None,
            "features": asdict(features), "priced": bool(profile.prices)}
