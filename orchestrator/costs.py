"""`book cost`: spend per chapter, step and model from the `llm_calls` table."""

from __future__ import annotations

from typing import Any


def cost_report(calls: list[dict[str, Any]]) -> dict[str, Any]:
    def group(key: str) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        for c in calls:
            g = out.setdefault(str(c.get(key) or "book"), {"calls": 0, "cost_usd": 0.0, "input_tokens": 0, "output_tokens": 0})
            g["calls"] += 1
            g["cost_usd"] += c.get("cost_usd") or 0.0
            g["input_tokens"] += c.get("input_tokens") or 0
            g["output_tokens"] += c.get("output_tokens") or 0
        return dict(sorted(out.items()))

    fresh = sum(c.get("input_tokens") or 0 for c in calls)
    read = sum(c.get("cache_read_tokens") or 0 for c in calls)
    written = sum(c.get("cache_creation_tokens") or 0 for c in calls)
    total_in = fresh + read + written
    return {
        "calls": len(calls),
        "errors": sum(1 for c in calls if c.get("error")),
        "cost_usd": round(sum(c.get("cost_usd") or 0.0 for c in calls), 6),
        "total_usd": round(sum(c.get("cost_usd") or 0.0 for c in calls), 6),  # streamed and batched, each at its rate
        "input_tokens": fresh, "cache_read_tokens": read, "cache_creation_tokens": written,
        "output_tokens": sum(c.get("output_tokens") or 0 for c in calls),
        "thinking_tokens": sum(c.get("thinking_tokens") or 0 for c in calls),  # of output_tokens
        "cache_hit_ratio": round(read / total_in, 4) if total_in else 0.0,
        "by_chapter": group("chapter"), "by_step": group("step"), "by_model": group("model"),
        "by_mode": mode_totals(calls),
    }


def mode_totals(calls: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Calls and spend streamed vs. through Message Batches (`llm_calls.batch`, priced at the
    batch rate when logged)."""
    out = {m: {"calls": 0, "cost_usd": 0.0} for m in ("stream", "batch")}
    for c in calls:
        g = out["batch" if c.get("batch") else "stream"]
        g["calls"] += 1
        g["cost_usd"] = round(g["cost_usd"] + (c.get("cost_usd") or 0.0), 6)
    return out


def print_cost(rep: dict[str, Any]) -> None:
    print(f"{rep['calls']} calls ({rep['errors']} failed), ${rep['cost_usd']:.4f}; "
          f"input {rep['input_tokens']} + cache read {rep['cache_read_tokens']} + cache write "
          f"{rep['cache_creation_tokens']}, output {rep['output_tokens']} (thinking {rep.get('thinking_tokens', 0)}); cache hit ratio {rep['cache_hit_ratio']:.0%}")
    mode = rep.get("by_mode") or {}
    if mode.get("batch", {}).get("calls"):
        print(f"Message Batches: {mode['batch']['calls']} calls, ${mode['batch']['cost_usd']:.4f} (batch rate); "
              f"streamed: {mode['stream']['calls']} calls, ${mode['stream']['cost_usd']:.4f}")
    for title, key in (("chapter", "by_chapter"), ("step", "by_step"), ("model", "by_model")):
        print(f"\nby {title}:")
        for k, g in rep[key].items():
            print(f"  {k:<28} {int(g['calls']):>5} calls  ${g['cost_usd']:.4f}  in {int(g['input_tokens'])}  out {int(g['output_tokens'])}")
