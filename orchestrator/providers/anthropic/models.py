"""Model limits and capabilities from `data/models.yaml` (beside the prices): max output,
context window, minimum cacheable prefix, thinking/effort support, prefill support.
`model_warnings(model)` is what `book doctor` shows. No `anthropic` import here."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...errors import ConfigError
from .pricing import DATA, family_of, is_family_key, is_priced_exactly, match_key, normalise

MODELS_PATH = DATA / "models.yaml"
THINKING = ("none", "enabled", "adaptive", "both")
EFFORTS = ("low", "medium", "high", "xhigh", "max")  # OutputConfigParam.effort in the SDK
STATUSES = ("active", "legacy", "deprecated", "retired")
FIELDS = {"family": str, "context_window": int, "max_output": int, "min_cache_tokens": int,
          "thinking": str, "prefill": bool}
RETIRED_KEY = "retired"  # the section of ids that are gone (not model entries)


@dataclass(frozen=True)
class ModelInfo:
    key: str  # the models.yaml key that matched ("" when none did)
    family: str | None
    context_window: int
    max_output: int
    min_cache_tokens: int
    thinking: str  # none | enabled | adaptive | both
    efforts: tuple[str, ...]  # the effort levels it accepts (empty: no effort parameter)
    prefill: bool
    known: bool  # the id matched a model's own entry, not only its family
    status: str = "active"  # active | legacy | deprecated | retired (the deprecations page)
    retires: str | None = None  # the retirement date, when known

    @property
    def effort(self) -> bool:
        return bool(self.efforts)

    @property
    def thinking_types(self) -> tuple[str, ...]:
        return {"none": (), "enabled": ("enabled",), "adaptive": ("adaptive",),
                "both": ("enabled", "adaptive")}[self.thinking]


# An id no table knows: the limits that every current model accepts.
UNKNOWN = ModelInfo("", None, 200_000, 8192, 4096, "none", (), False, False)


def load_models(path: str | os.PathLike[str] | None = None) -> dict[str, ModelInfo]:
    return dict(_load(str(path) if path else str(MODELS_PATH))[0])


def load_retired(path: str | os.PathLike[str] | None = None) -> dict[str, dict[str, Any]]:
    """The ids that are gone from the API: id -> {retired: date or None, use: replacement}."""
    return dict(_load(str(path) if path else str(MODELS_PATH))[1])


def _efforts(name: str, v: Any, path: str, fix: str) -> tuple[str, ...]:
    if v is False:
        return ()
    if v is True:  # an older table: the three levels every effort model takes
        return EFFORTS[:3]
    if not isinstance(v, list) or not v or any(x not in EFFORTS for x in v):
        raise ConfigError(f"{name}: `effort` must be false or a list of the levels {', '.join(EFFORTS)}", path, fix=fix)
    return tuple(x for x in EFFORTS if x in v)


@lru_cache(maxsize=8)
def _load(path: str) -> tuple[dict[str, ModelInfo], dict[str, dict[str, Any]]]:
    import yaml

    try:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError("the model table is missing", path) from None
    except yaml.YAMLError as e:
        raise ConfigError(f"the model table is not valid YAML: {e}", path) from None
    if not isinstance(raw, dict):
        raise ConfigError("the model table must map model names to their limits", path)
    out: dict[str, ModelInfo] = {}
    fix = ("e.g. claude-sonnet-5-5: {family: sonnet, context_window: 1000000, max_output: 128000, "
           "min_cache_tokens: 1024, thinking: adaptive, effort: [low, medium, high], prefill: false}")
    retired = raw.pop(RETIRED_KEY, None) or {}
    if not isinstance(retired, dict) or any(not isinstance(v, dict) or "use" not in v for v in retired.values()):
        raise ConfigError("`retired` must map model ids to {retired: DATE, use: REPLACEMENT}", path)
    for name, entry in raw.items():
        key = str(name).lower()
        if not isinstance(entry, dict):
            raise ConfigError(f"{name}: expected a mapping", path, fix=fix)
        for f, t in FIELDS.items():
            v = entry.get(f)
            if not isinstance(v, t) or (t is int and isinstance(v, int) and (isinstance(v, bool) or v < 1)):
                raise ConfigError(f"{name}: `{f}` must be {'a positive whole number' if t is int else t.__name__}",
                                  path, fix=fix)
        if entry["thinking"] not in THINKING:
            raise ConfigError(f"{name}: `thinking` must be one of {', '.join(THINKING)}", path, fix=fix)
        status = entry.get("status", "active")
        if status not in STATUSES:
            raise ConfigError(f"{name}: `status` must be one of {', '.join(STATUSES)}", path, fix=fix)
        retires = entry.get("retires")
        out[key] = ModelInfo(key, entry["family"], entry["context_window"], entry["max_output"],
                             entry["min_cache_tokens"], entry["thinking"],
                             _efforts(str(name), entry.get("effort", False), path, fix), entry["prefill"],
                             not is_family_key(key), status, str(retires) if retires else None)
    gone = {str(k).lower(): {"retired": str(v["retired"]) if v.get("retired") else None, "use": str(v["use"])}
            for k, v in retired.items()}
    return out, gone


def model_info(model: str, table: dict[str, ModelInfo] | None = None) -> ModelInfo:
    table = table if table is not None else load_models()
    key = match_key(model, table)
    if key is None:
        return UNKNOWN
    return table[key]


def max_output(model: str) -> int:
    return model_info(model).max_output


def cap_max_tokens(model: str, wanted: int) -> int:
    """A role's max_tokens as sent: what the role needs, never more than the model allows."""
    return max(1, min(int(wanted), model_info(model).max_output))


def end_of_life(model: str) -> str | None:
    """Why a model id is at or near its end of life (retired: requests fail; deprecated: a
    retirement date is set), with what to use instead; None for an active or legacy model."""
    m = normalise(model)
    gone = load_retired()
    key = match_key(m, gone)
    own = match_key(m, load_models())
    if key is not None and (own is None or is_family_key(own) or len(key) > len(own)):  # opus-4-5 is not opus-4
        when = f" on {gone[key]['retired']}" if gone[key]["retired"] else ""
        return f"{model}: retired{when}: requests to it fail; use {gone[key]['use']}"
    info = model_info(m)
    if info.known and info.status in ("deprecated", "retired"):
        when = f" ({'retired' if info.status == 'retired' else 'retires'} {info.retires})" if info.retires else ""
        verb = "retired: requests to it fail" if info.status == "retired" else "deprecated: it will stop answering"
        return f"{model}: {verb}{when}; choose a current model (data/models.yaml)"
    return None


def effort_levels(model: str) -> tuple[str, ...]:
    """The effort levels `model` accepts (empty: it takes no effort parameter)."""
    return model_info(model).efforts


def clamp_effort(model: str, wanted: str | None) -> str | None:
    """The effort to send for a role that wants `wanted`: the highest level the model takes at or
    below it (`max` on a model without it becomes `high`), None when it takes no effort at all."""
    levels = effort_levels(model)
    if not wanted or not levels or wanted not in EFFORTS:
        return None
    below = [x for x in levels if EFFORTS.index(x) <= EFFORTS.index(wanted)]
    return below[-1] if below else levels[0]


def model_warnings(model: str) -> list[str]:
    """What `book doctor` should say about a model id: at its end of life, unknown to the tables
    (priced at its family's most expensive rate, or the highest rate of all), not in the SDK's list."""
    out: list[str] = []
    m = normalise(model)
    if not m:
        return ["no model is configured"]
    eol = end_of_life(m)
    if eol:
        out.append(eol)
    info = model_info(m)
    fam = family_of(m)
    if not info.known:
        where = f"its family ({fam})" if fam else "any family"
        out.append(f"{model}: not in data/models.yaml; the limits of {where} are assumed "
                   f"(max_tokens <= {info.max_output}, no prefill)")
    if not is_priced_exactly(m):
        rate = f"the most expensive {fam} rate" if fam else "the highest rate of all (`default`)"
        out.append(f"{model}: not in data/prices.yaml; priced at {rate} so the budget cap errs on the safe side")
    sdk = sdk_model_ids()
    if sdk and m not in sdk and not any(m.startswith(k + "-") for k in sdk) and "." not in m.split("claude-")[0]:
        out.append(f"{model}: not in the installed anthropic SDK's model list (a typo, or a model newer than the SDK)")
    return out


@lru_cache(maxsize=1)
def sdk_model_ids() -> frozenset[str]:
    """The model ids the installed SDK names (types/model_param.py), read as text so that
    this does not import `anthropic`; empty when the SDK is not installed."""
    import importlib.util
    import re

    spec = importlib.util.find_spec("anthropic")
    if spec is None or not spec.submodule_search_locations:
        return frozenset()
    path = Path(list(spec.submodule_search_locations)[0]) / "types" / "model_param.py"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return frozenset()
    return frozenset(re.findall(r'"(claude-[a-z0-9.\-@]+)"', text))


def describe(info: ModelInfo) -> dict[str, Any]:
    return {"table_key": info.key or None, "family": info.family, "context_window": info.context_window,
            "max_output": info.max_output, "min_cache_tokens": info.min_cache_tokens,
            "thinking": info.thinking, "effort": list(info.efforts), "prefill": info.prefill, "known": info.known,
            "status": info.status, "retires": info.retires}
