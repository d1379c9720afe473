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
        "errors": sum(1 for c in calls if failed(c)),
        "restored": sum(1 for c in calls if restored(c)),  # put back from the spend journal: not failures
        "interrupted": sum(1 for c in calls if c.get("status") == "interrupted"),  # cut off, counted at what is known
        "cost_usd": round(sum(c.get("cost_usd") or 0.0 for c in calls), 6),
        "total_usd": round(sum(c.get("cost_usd") or 0.0 for c in calls), 6),  # streamed and batched, each at its rate
        "input_tokens": fresh, "cache_read_tokens": read, "cache_creation_tokens": written,
        "output_tokens": sum(c.get("output_tokens") or 0 for c in calls),
        "thinking_tokens": sum(c.get("thinking_tokens") or 0 for c in calls),  # of output_tokens
        "cache_hit_ratio": round(read / total_in, 4) if total_in else 0.0,
        "by_chapter": group("chapter"), "by_step": group("step"), "by_model": group("model"),
        "by_mode": mode_totals(calls),
    }


def restored(c: dict[str, Any]) -> bool:
    """A call put back from the spend journal (older ledgers said so in `error` alone)."""
    return c.get("status") == "restored" or (c.get("status") in (None, "ok")
                                              and str(c.get("error") or "").startswith("restored from"))


def failed(c: dict[str, Any]) -> bool:
    """An attempt that failed (an error, a cancel), not one restored, cut off or never sent."""
    if c.get("status") in ("error", "cancelled"):
        return True
    return c.get("status") in (None, "ok") and bool(c.get("error")) and not restored(c)


def mode_totals(calls: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Calls and spend streamed vs. through Message Batches (`llm_calls.batch`, priced at the
    batch rate when logged)."""
    out = {m: {"calls": 0, "cost_usd": 0.0} for m in ("stream", "batch")}
    for c in calls:
        g = out["batch" if c.get("batch") else "stream"]
        g["calls"] += 1
        g["cost_usd"] = round(g["cost_usd"] + (c.get("cost_usd") or 0.0), 6)
    return out


def expected(book: Any, calls: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole book's expected bill (estimate.py): `estimate_usd` [low, high] and its basis;
    nothing when the book's config or plan cannot be read (`book cost` still shows the spend)."""
    from .estimate import estimate

    try:
        est = estimate(book, calls)
    except Exception as e:  # noqa: BLE001 - an estimate never hides what was spent
        return {"estimate_error": f"no estimate: {e}"}
    return {"estimate_usd": est["estimate_usd"], "expected_usd": est["expected_usd"], "estimate_basis": est["basis"],
            "estimate_chapters": est["chapters"], "estimate_batch": est["batch"]}


def print_cost(rep: dict[str, Any]) -> None:
    kinds = [f"{rep['errors']} failed"] + [f"{rep[k]} {what}" for k, what in (
        ("restored", "restored from the spend journal"), ("interrupted", "cut off, counted at what the journal knows"))
        if rep.get(k)]
    print(f"{rep['calls']} calls ({', '.join(kinds)}), ${rep['cost_usd']:.4f}; "
          f"input {rep['input_tokens']} + cache read {rep['cache_read_tokens']} + cache write "
          f"{rep['cache_creation_tokens']}, output {rep['output_tokens']} (thinking {rep.get('thinking_tokens', 0)}); cache hit ratio {rep['cache_hit_ratio']:.0%}")
    if rep.get("estimate_usd"):
        low, high = rep["estimate_usd"]
        print(f"expected for the whole book: ${low:.2f}–${high:.2f} ({rep['estimate_chapters']} chapters; "
              f"from {rep['estimate_basis']})")
    mode = rep.get("by_mode") or {}
    if mode.get("batch", {}).get("calls"):
        print(f"Message Batches: {mode['batch']['calls']} calls, ${mode['batch']['cost_usd']:.4f} (batch rate); "
              f"streamed: {mode['stream']['calls']} calls, ${mode['stream']['cost_usd']:.4f}")
    for title, key in (("chapter", "by_chapter"), ("step", "by_step"), ("model", "by_model")):
        print(f"\nby {title}:")
        for k, g in rep[key].items():
            print(f"  {k:<28} {int(g['calls']):>5} calls  ${g['cost_usd']:.4f}  in {int(g['input_tokens'])}  out {int(g['output_tokens'])}")


def incomplete(book: Any, calls: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """(the spend journal's calls the ledger lacks, as rows `cost_report` counts; why the spend
    shown is not the whole spend). A read-only look: nothing is written."""
    from .state import spend
    from .state.ledger_faults import files_were_generated
    from .steps import LOCK, OUT

    led = book.ledger
    extra, journal = spend.missing_from(calls, led.path)
    notes: list[str] = []
    if extra:
        usd = sum(float(e["usd"]) for e in extra)
        notes.append(f"{len(extra)} model call(s) (${usd:.4f}) are in {journal.path} but not in the ledger {led.path} "
                     "(deleted or rebuilt, or cut off by a kill): counted here from the journal, without their "
                     "tokens; the next writing command puts them back")
    if journal.damaged:
        notes.append(f"the spend journal {journal.path} {journal.damaged}: the next writing command moves it aside")
    unknown = led.spend_unknown() or journal.unknown
    if unknown:
        notes.append(f"the spend before the ledger was rebuilt is unknown ({unknown}): enter it with "
                     "`book cost --lost-spend USD` (from your provider's console)")
    elif (led.conn is None or led.created) and not journal.exists and files_were_generated(book.root / OUT):
        notes.append(f"the ledger {led.path} and the spend journal {journal.path} are both missing or unreadable, "
                     "but the files show that models were called: what they cost is not known here")
    from .state.lock import Lock

    cut = [c for c in calls if c.get("status") == "started"]
    rows = [{"call_id": e["id"], "cost_usd": float(e["usd"]), "role": e.get("role"), "chapter": e.get("chapter"),
             "step": e.get("step"), "model": e.get("model"), "batch": e.get("batch") or 0,
             "status": e.get("status") or "restored", "input_tokens": 0, "output_tokens": 0} for e in extra]
    if cut and Lock(book.root / LOCK).holder() is None:  # cut off by a kill: counted at what the journal knows
        for c in cut:
            c["cost_usd"] = spend.owed({"worst": c.get("worst_usd"), **journal.open.get(c.get("call_id") or "", {})})
            c["status"] = "interrupted"
        notes.append(f"{len(cut)} model call(s) started and never logged as ended (cut off by a kill?): counted at "
                     f"what the spend journal knows of them (${sum(c['cost_usd'] for c in cut):.4f}); the next "
                     "writing command closes them in the ledger")
    return rows, notes
