"""A small, deterministic JSON Schema instance generator for the fake API's structured
outputs: given a schema and a seed (the prompt), a document valid for that schema. Handles
the subset structured outputs use: object/properties/required, array/items/minItems/maxItems,
string (enum, const, minLength, pattern-free), integer/number (minimum/maximum), boolean,
null, anyOf/oneOf (the first branch), $ref to #/$defs or #/definitions."""

from __future__ import annotations

import hashlib
import random
from typing import Any

WORDS = ["module", "function", "parser", "cache", "request", "reader", "chapter", "example", "error", "state"]


def instance(schema: dict[str, Any], seed: str) -> Any:
    rng = random.Random(hashlib.sha256(seed.encode()).hexdigest())
    return _gen(schema, schema, rng, 0)


def _resolve(root: dict[str, Any], ref: str) -> dict[str, Any]:
    node: Any = root
    for part in ref.lstrip("#/").split("/"):
        node = node[part]
    return node


def _gen(s: dict[str, Any], root: dict[str, Any], rng: random.Random, depth: int) -> Any:
    if "$ref" in s:
        return _gen(_resolve(root, s["$ref"]), root, rng, depth)
    if "const" in s:
        return s["const"]
    if "enum" in s:
        return s["enum"][rng.randrange(len(s["enum"]))]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in s:
            return _gen(s[key][0], root, rng, depth)
    t = s.get("type", "object" if "properties" in s else "string")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "null")
    if t == "object":
        props = s.get("properties", {})
        required = set(s.get("required", props))
        return {k: _gen(v, root, rng, depth + 1) for k, v in props.items() if k in required or depth < 2}
    if t == "array":
        lo = int(s.get("minItems", 1))
        hi = int(s.get("maxItems", max(lo, 3)))
        n = lo if depth > 3 else rng.randint(lo, max(lo, min(hi, lo + 2)))
        return [_gen(s.get("items", {"type": "string"}), root, rng, depth + 1) for _ in range(n)]
    if t == "integer":
        lo, hi = int(s.get("minimum", 1)), int(s.get("maximum", 200))
        return rng.randint(lo, max(lo, hi))
    if t == "number":
        flo, fhi = float(s.get("minimum", 0)), float(s.get("maximum", 100))
        return round(rng.uniform(flo, max(flo, fhi)), 2)
    if t == "boolean":
        return rng.random() < 0.5
    if t == "null":
        return None
    n = max(int(s.get("minLength", 1)), 1)
    text = " ".join(rng.choice(WORDS) for _ in range(3))
    while len(text) < n:
        text += " " + rng.choice(WORDS)
    if "maxLength" in s:
        text = text[: int(s["maxLength"])]
    return text
