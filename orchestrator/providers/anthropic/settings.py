"""Per-role model settings: `models:` in book.yaml may give a role a model name, or a mapping
with its model, max_tokens, extended thinking and effort, validated against
data/models.yaml. `effective_settings(config, role)` is what `book doctor` shows and what the
provider sends. Nothing here imports `anthropic`.

    models:
      writer: claude-opus-5                       # just the model
      editor: {model: claude-sonnet-5-5, max_tokens: 32000, thinking: adaptive, effort: high}
      researcher: {thinking: {budget_tokens: 8000}}   # manual extended thinking (models that allow it)

`temperature` is not accepted: the models that think refuse it, and the installed SDK's
`messages.stream` has no such parameter.
"""

from __future__ import annotations

from typing import Any

from ...errors import ConfigError
from .models import ModelInfo, model_info

EFFORTS = ("low", "medium", "high", "xhigh", "max")  # OutputConfigParam.effort in the SDK
ROLE_KEYS = ("model", "max_tokens", "thinking", "effort", "cache_ttl")
MIN_THINKING_BUDGET = 1024  # ThinkingConfigEnabledParam: budget_tokens >= 1024 and < max_tokens
EXAMPLE = ("models: {writer: claude-opus-5, editor: {model: claude-sonnet-5-5, max_tokens: 32000, "
           "thinking: adaptive, effort: high}}")


def thinking_param(value: Any) -> dict[str, Any] | None:
    """The SDK's `thinking` parameter for a book.yaml value (None: no thinking)."""
    if value in (None, False, "off", "none", "disabled"):
        return None
    if value in (True, "adaptive"):
        return {"type": "adaptive"}
    if isinstance(value, int) and not isinstance(value, bool):
        return {"type": "enabled", "budget_tokens": value}
    if isinstance(value, dict) and set(value) <= {"budget_tokens", "type"} and \
            isinstance(value.get("budget_tokens"), int) and value.get("type", "enabled") == "enabled":
        return {"type": "enabled", "budget_tokens": value["budget_tokens"]}
    if isinstance(value, dict) and value.get("type") == "adaptive" and set(value) == {"type"}:
        return {"type": "adaptive"}
    raise ValueError("thinking must be `adaptive`, a budget of tokens (e.g. {budget_tokens: 8000}) or `off`")


def check_role(role: str, entry: Any, default_model: str, max_tokens: int | None = None) -> dict[str, Any]:
    """One role's settings, normalised; raises ValueError with what is wrong."""
    if isinstance(entry, str):
        entry = {"model": entry}
    if not isinstance(entry, dict):
        raise ValueError(f"models maps a role to a model name or a mapping of {', '.join(ROLE_KEYS)} "
                         f"(models.{role} is {entry!r})")
    unknown = [k for k in entry if k not in ROLE_KEYS]
    if "temperature" in unknown:
        raise ValueError(f"models.{role}: temperature is not supported (thinking models refuse it, "
                         "and the SDK does not send it); use effort")
    if unknown:
        raise ValueError(f"models.{role}: unknown setting {unknown[0]!r} (known: {', '.join(ROLE_KEYS)})")
    model = entry.get("model", default_model)
    if not isinstance(model, str) or not model.strip():
        raise ValueError(f"models.{role}.model must be a model name")
    info = model_info(model)
    out: dict[str, Any] = {"model": model.strip()}
    mt = entry.get("max_tokens", max_tokens)
    if mt is not None:
        if not isinstance(mt, int) or isinstance(mt, bool) or mt < 1:
            raise ValueError(f"models.{role}.max_tokens must be a positive whole number")
        if info.known and mt > info.max_output:
            raise ValueError(f"models.{role}.max_tokens is {mt}, but {model} writes at most {info.max_output} "
                             f"tokens (data/models.yaml)")
        out["max_tokens"] = mt
    thinking = thinking_param(entry.get("thinking"))
    if thinking is not None:
        if thinking["type"] not in info.thinking_types:
            allowed = " or ".join(info.thinking_types) or "no thinking"
            raise ValueError(f"models.{role}.thinking: {model} accepts {allowed}, not {thinking['type']} "
                             f"(data/models.yaml)")
        budget = thinking.get("budget_tokens")
        if budget is not None:
            cap = out.get("max_tokens") or info.max_output
            if budget < MIN_THINKING_BUDGET or budget >= cap:
                raise ValueError(f"models.{role}.thinking: budget_tokens must be at least {MIN_THINKING_BUDGET} "
                                 f"and below max_tokens ({cap})")
        out["thinking"] = thinking
    effort = entry.get("effort")
    if effort is not None:
        if effort not in EFFORTS:
            raise ValueError(f"models.{role}.effort must be one of {', '.join(EFFORTS)}")
        if not info.effort:
            raise ValueError(f"models.{role}.effort: {model} does not accept an effort level (data/models.yaml)")
        if effort not in info.efforts:  # xhigh and max only where the model takes them
            raise ValueError(f"models.{role}.effort: {model} accepts {', '.join(info.efforts)}, not {effort} "
                             "(data/models.yaml)")
        out["effort"] = effort
    ttl = entry.get("cache_ttl")
    if ttl is not None:
        if ttl not in ("5m", "1h"):
            raise ValueError(f"models.{role}.cache_ttl must be 5m or 1h")
        out["cache_ttl"] = ttl
    return out


def validate_models(value: dict[str, Any], node: Any, file: str, default_model: str) -> dict[str, Any]:
    """Check book.yaml's `models:` (the YAML node gives each role's line); returns it unchanged."""
    lines: dict[str, int] = {}
    for k, v in getattr(node, "value", []) or []:
        if hasattr(k, "value"):
            lines[str(k.value)] = v.start_mark.line + 1
    base_line = node.start_mark.line + 1 if node is not None else None
    for role, entry in value.items():
        try:
            check_role(str(role), entry, default_model)
        except ValueError as e:
            raise ConfigError(str(e), file, lines.get(str(role), base_line), fix=f"e.g. {EXAMPLE}") from None
    return value


EFFORT_DOWN = {"max": "xhigh", "xhigh": "high", "high": "medium", "medium": "low"}


def larger_budget(settings: dict[str, Any], info: ModelInfo | None = None) -> dict[str, Any] | None:
    """The settings to ask again with after an answer the output cap cut (thinking took it, or a
    structured answer that cannot be continued): twice the max_tokens within the model's limit,
    or, at the limit, one effort level lower (less thinking). None: nothing left to give.
    `info`: the limits to use instead of the table's (a compatible server's, server.py)."""
    info = info or model_info(settings["model"])
    out = dict(settings)
    if settings["max_tokens"] < info.max_output:
        out["max_tokens"] = min(info.max_output, settings["max_tokens"] * 2)
        return out
    effort = settings.get("effort") or ("high" if info.effort else "")
    if effort in EFFORT_DOWN and info.effort:
        out["effort"] = EFFORT_DOWN[effort]
        return out
    return None


def default_fallback(model: str, table: dict[str, Any] | None = None) -> str:
    """The model a refused request goes to when book.yaml names no `fallback_model`: another
    model of the same family in data/models.yaml (the next older known one, whose classifiers
    differ), else the newest other one; "" when the family has no other."""
    from .models import load_models

    table = table if table is not None else load_models()
    info = model_info(model, table)
    if not info.family:
        return ""
    same = [k for k, v in table.items() if v.family == info.family and v.known and k != info.key]
    if not same:
        return ""
    keys = list(table)  # the table lists each family newest first
    older = [k for k in same if keys.index(k) > keys.index(info.key)] if info.key in keys else []
    return (older or same)[0]


def model_for(models: dict[str, Any], role: str, default_model: str) -> str:
    entry = models.get(role)
    if isinstance(entry, dict):
        return str(entry.get("model") or default_model)
    return entry or default_model


def resolve_settings(model: str, max_tokens: int, entry: Any = None, effort: str = "",
                     info: ModelInfo | None = None) -> dict[str, Any]:
    """What one request is sent with: the role's entry over the request's model/max_tokens/effort
    (the step registry's), max_tokens capped by the model's table limit, plus what the request
    builder needs (min_cache_tokens, prefill). An effort goes only to a model that takes one.
    `info`: a compatible server's limits (server.py), used instead of the model table's."""
    try:
        s = check_role("role", entry if entry is not None else {}, model, None)
    except ValueError:
        s = {"model": model}  # book.yaml was validated on load; a request built by hand gets the basics
    info = info or model_info(s["model"])
    if "effort" not in s and effort in EFFORTS and info.effort:
        s["effort"] = effort
    wanted = s.get("max_tokens") or max_tokens
    s["max_tokens"] = max(1, min(int(wanted), info.max_output))
    thinking = s.get("thinking")
    if thinking and thinking.get("budget_tokens", 0) >= s["max_tokens"]:
        s["max_tokens"] = min(info.max_output, thinking["budget_tokens"] + max_tokens)
    s["min_cache_tokens"] = info.min_cache_tokens
    s["prefill"] = info.prefill
    return s


def capped(settings: dict[str, Any], ceiling: int) -> dict[str, Any]:
    """`settings` with max_tokens at most `ceiling` (the budget's, pipeline/budget.py; 0: none)."""
    return with_max_tokens(settings, ceiling) if 0 < ceiling < settings["max_tokens"] else settings


def with_max_tokens(params: dict[str, Any], n: int) -> dict[str, Any]:
    """Settings or request params with a lower max_tokens; a fixed thinking budget shrinks with it
    (it must stay below max_tokens), and goes when even its minimum does not fit."""
    if n >= int(params["max_tokens"]):
        return params
    out = dict(params, max_tokens=n)
    thinking = params.get("thinking")
    if thinking and thinking.get("budget_tokens", 0) >= n:
        if n > 2 * MIN_THINKING_BUDGET:
            out["thinking"] = dict(thinking, budget_tokens=n // 2)
        else:
            out.pop("thinking")
    return out


def effective_settings(config: Any, role: str) -> dict[str, Any]:
    """For `book doctor`: the model, max_tokens, thinking and effort a role's calls are sent
    with, and the table limits behind them."""
    from ...steps import ALL_STEPS

    role_max = {st.role: st.max_tokens for st in ALL_STEPS.values()}
    role_effort = {st.role: st.effort for st in ALL_STEPS.values() if st.model}
    models = getattr(config, "models", {}) or {}
    default_model = getattr(config, "model", "")
    model = model_for(models, role, default_model)
    need = (getattr(config, "max_tokens", {}) or {}).get(role, role_max.get(role, 8000))
    entry = models.get(role)
    entry = {"model": entry} if isinstance(entry, str) else dict(entry or {})
    entry.setdefault("model", model)
    from .server import limits

    profile = getattr(config, "server", "anthropic") == "compatible"  # book.yaml's limits, not the table's
    info = limits(config, model)
    s = resolve_settings(model, need, entry, role_effort.get(role, ""), info if profile else None)
    from .models import model_warnings

    return {"role": role, "model": s["model"], "max_tokens": s["max_tokens"], "thinking": s.get("thinking"),
            "effort": s.get("effort"), "cache_ttl": s.get("cache_ttl", "5m"),
            "max_output": info.max_output, "context_window": info.context_window,
            "min_cache_tokens": info.min_cache_tokens, "continuation": "prefill" if s["prefill"] and
            not s.get("thinking") else "continue turn",
            "warnings": [] if profile else model_warnings(s["model"])}  # a local model is in no table
