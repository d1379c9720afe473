"""Prices from `data/prices.yaml` and the cost of a call. No `anthropic` import here."""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...errors import ConfigError
from ..base import Usage

DATA = Path(__file__).resolve().parent.parent.parent / "data"
PRICES_PATH = DATA / "prices.yaml"
PRICE_FIELDS = ("input", "output", "cache_write", "cache_write_1h", "cache_read")
# The prompt-caching multipliers of the input rate (platform docs, "Pricing" and "Prompt caching"):
# a 5-minute write 1.25x, a 1-hour write 2x, a read 0.1x; batches halve every rate.
WRITE_5M, WRITE_1H, READ = 1.25, 2.0, 0.1
# Used when prices.yaml has no `default`: the highest current rates, so a cap errs on the safe side.
FALLBACK_PRICE = {"input": 10.0, "output": 50.0, "cache_write": 12.5, "cache_write_1h": 20.0, "cache_read": 1.0}
FAMILIES = ("fable", "mythos", "opus", "sonnet", "haiku")
CHARS_PER_TOKEN = 3.5  # for the upper cost estimate (and the output of a stream cut short)


def load_prices(path: str | os.PathLike[str] | None = None) -> dict[str, dict[str, Any]]:
    """Read a prices file (default: the packaged `data/prices.yaml`): model id or id prefix
    -> USD per million tokens for input, output, cache_write (5 minutes), cache_write_1h,
    cache_read (+ an optional `long_prompt` tier). Missing cache rates are derived (1.25x, 2x
    and 0.1x input)."""
    return dict(_load_prices(str(path) if path else str(PRICES_PATH)))


@lru_cache(maxsize=8)
def _load_prices(path: str) -> dict[str, dict[str, Any]]:
    import yaml

    try:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError("the prices file is missing", path) from None
    except yaml.YAMLError as e:
        raise ConfigError(f"the prices file is not valid YAML: {e}", path) from None
    if not isinstance(raw, dict):
        raise ConfigError("the prices file must map model names to prices", path)
    return {str(name).lower(): _price_entry(str(name), entry, path) for name, entry in raw.items()}


def _price_entry(name: str, entry: Any, path: str) -> dict[str, Any]:
    fix = "e.g. claude-sonnet-5-5: {input: 2.0, output: 10.0, cache_write: 2.5, cache_read: 0.1}"
    if not isinstance(entry, dict):
        raise ConfigError(f"{name}: expected a mapping of prices", path, fix=fix)
    out: dict[str, Any] = {}
    for f in ("input", "output"):
        if not isinstance(entry.get(f), (int, float)) or entry[f] < 0:
            raise ConfigError(f"{name}: `{f}` must be a number of USD per million tokens", path, fix=fix)
        out[f] = float(entry[f])
    for f, times in (("cache_write", WRITE_5M), ("cache_write_1h", WRITE_1H), ("cache_read", READ)):
        v = entry.get(f, out["input"] * times)
        if not isinstance(v, (int, float)) or v < 0:
            raise ConfigError(f"{name}: `{f}` must be a number of USD per million tokens", path, fix=fix)
        out[f] = float(v)
    long = entry.get("long_prompt")
    if long is not None:
        if not isinstance(long, dict) or not isinstance(long.get("threshold_tokens"), int):
            raise ConfigError(f"{name}: `long_prompt` needs threshold_tokens and rates", path, fix=fix)
        rates = {k: v for k, v in long.items() if k != "threshold_tokens"}
        out["long_prompt"] = {"threshold_tokens": long["threshold_tokens"],
                              **_price_entry(f"{name}.long_prompt", rates, path)}
    return out


def normalise(model: str) -> str:
    """A model id as the tables key it: lower case, cloud prefixes (`us.anthropic.`) dropped."""
    m = (model or "").strip().lower()
    at = m.find("claude-")
    return m[at:] if at > 0 else m


def match_key(model: str, keys: Any) -> str | None:
    """The longest key the id starts with at a `-`/`@`/`:`/`[`/`.` boundary (dated ids find
    their model, new versions their family), or None."""
    m = normalise(model)
    best = None
    for key in keys:
        if key == "default":
            continue
        if m == key or (m.startswith(key) and m[len(key)] in "-@:[."):
            if best is None or len(key) > len(best):
                best = key
    return best


def family_of(key_or_model: str) -> str | None:
    found = re.search(r"\b(" + "|".join(FAMILIES) + r")\b", normalise(key_or_model).replace("-", " "))
    return found.group(1) if found else None


def is_family_key(key: str) -> bool:
    return key in {f"claude-{f}" for f in FAMILIES}


def _dearest(entries: list[dict[str, Any]]) -> dict[str, Any]:
    return max(entries, key=lambda p: (p["output"], p["input"], p["cache_write"], p["cache_read"]))


def price_for(model: str, prices: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """The price entry of a model: its own entry (longest matching key). A model known only by
    its family (`claude-sonnet-7`) gets the most expensive entry of that family, so a spending
    cap never under-counts; anything else gets `default` (the highest rates)."""
    prices = prices if prices is not None else load_prices()
    best = match_key(model, prices)
    if best is not None and not is_family_key(best):
        return prices[best]
    fam = family_of(best) if best else None
    if fam:
        return _dearest([p for k, p in prices.items() if k != "default" and family_of(k) == fam])
    return prices.get("default", FALLBACK_PRICE)


def is_priced_exactly(model: str, prices: dict[str, dict[str, Any]] | None = None) -> bool:
    prices = prices if prices is not None else load_prices()
    best = match_key(model, prices)
    return best is not None and not is_family_key(best)


def write_rate(price: dict[str, Any], ttl: str | None) -> float:
    """USD per million tokens written to the cache with `ttl` ("1h", else 5 minutes)."""
    return price["cache_write_1h"] if ttl == "1h" else price["cache_write"]


def usage_of(u: Any) -> Usage:
    """Our Usage from the API's (an SDK object or its JSON): the cache writes split by TTL from
    `usage.cache_creation.ephemeral_1h_input_tokens` (without that breakdown all count as 5-minute
    writes, the API's default TTL)."""
    def get(obj: Any, key: str) -> Any:
        return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)

    created = int(get(u, "cache_creation_input_tokens") or 0)
    split = get(u, "cache_creation")
    one_hour = int(get(split, "ephemeral_1h_input_tokens") or 0) if split is not None else 0
    details = get(u, "output_tokens_details")
    thinking = int(get(details, "thinking_tokens") or 0) if details is not None else 0
    return Usage(int(get(u, "input_tokens") or 0), int(get(u, "output_tokens") or 0), created,
                 int(get(u, "cache_read_input_tokens") or 0), cache_creation_1h_tokens=min(one_hour, created),
                 thinking_tokens=thinking)


def cost_usd(usage: Usage, model: str, prices: dict[str, dict[str, Any]] | None = None,
             batch: bool = False) -> float:
    """USD of one call: fresh input, output, cache writes at their TTL's rate (5 minutes 1.25x,
    1 hour 2x input), cache reads. `batch`: the Message Batches rate (half of every rate)."""
    p = price_for(model, prices)
    long = p.get("long_prompt")
    prompt = usage.input_tokens + usage.cache_creation_tokens + usage.cache_read_tokens
    if long and prompt > long["threshold_tokens"]:
        p = long
    one_hour = min(usage.cache_creation_1h_tokens, usage.cache_creation_tokens)
    usd = (usage.input_tokens * p["input"] + usage.output_tokens * p["output"]
           + (usage.cache_creation_tokens - one_hour) * p["cache_write"] + one_hour * p["cache_write_1h"]
           + usage.cache_read_tokens * p["cache_read"]) / 1e6
    return usd / 2 if batch else usd
