"""The fake Messages API as a local compatible server (Ollama, the llama.cpp server, vLLM):
`FakeAPI(answerer, compatible=Compatible(window=8192, off_contract=0.2))`. Like those servers:

- no structured outputs: a request with `output_config` gets a 400 (`reject_output_config`),
  or it is ignored (`reject_output_config=False`), the answer then written as if it were absent;
- no prompt caching: `cache_control` is accepted and ignored, usage has no cache tokens;
- no `count_tokens`, no Message Batches: 404;
- no thinking: a request with `thinking` gets a 400;
- a small context window: a prompt over `window` tokens gets llama.cpp's 400
  `exceed_context_size_error`;
- a model listing of one of the three shapes (`listing`: "llama.cpp", "ollama", "vllm", or
  "anthropic" for a proxy that copies the Models API; "" serves none): llama.cpp's `/v1/models`
  with `meta.n_ctx_train` and `/props` with `default_generation_settings.n_ctx`; Ollama's
  `/api/show` (`model_info`, `num_ctx` in `parameters` when `modelfile_num_ctx`) and `/api/ps`
  (the loaded models' `context_length`, once a request loaded one); vLLM's `/v1/models` with
  `max_model_len`; `/v1/models/{id}` with `max_input_tokens` and `max_tokens`. The server runs
  with `window`; the model supports `model_window` (default 4 x window); another shape's routes 404;
- a weak model: `off_contract` of the answers break their contract (prose around JSON cut
  short; Markdown without its `# ` title, cut a third of the way in), drawn from a seed, the
  request and how often it was asked (a model samples: the same request again is drawn afresh).
  With `size_hazard` the chance grows with what the model must hold, prompt and answer:
  1 - (1 - off_contract) ** (tokens / (window / 2)): `off_contract` at half the window, less for a
  smaller ask, more for a larger one (a weak model loses a contract more often the longer it holds it).

The model follows the JSON shape its prompt describes (params.FORMAT_HEADER, the schema as
words): the role answerer is shown the request with that schema as if structured outputs were on,
and its answer keeps to that schema's `maxItems` and listed properties (a smaller ask's schema).
Every request that used a feature the server lacks is listed in `violations`; `prompt_tokens`
has each prompt's size, `off_contract` counts the broken answers by role.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

FORMAT_HEADER = "## The form of your answer"  # providers/anthropic/params.py


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


def prompt_tokens(body: dict) -> int:
    """The fake's tokens (~4 characters each) of the system prompt and the messages."""
    n = len(_text(body.get("system") if not isinstance(body.get("system"), str) else body["system"]))
    n += sum(len(_text(m.get("content"))) for m in body.get("messages") or [] if isinstance(m, dict))
    return n // 4


@dataclass
class Compatible:
    window: int = 8192
    off_contract: float = 0.0
    seed: int = 0
    reject_output_config: bool = True
    listing: str = ""
    model_window: int = 0
    modelfile_num_ctx: bool = False
    max_tokens: int = 0  # the "anthropic" listing's max_tokens (0: not listed)
    size_hazard: bool = False
    loaded: list[str] = field(default_factory=list)  # models a request has loaded (Ollama's /api/ps)
    violations: list[str] = field(default_factory=list)
    prompt_tokens: list[int] = field(default_factory=list)
    broken: Counter[str] = field(default_factory=Counter)
    chances: list[float] = field(default_factory=list)  # each answer's chance of breaking (for the benchmark)
    _seen: dict[str, int] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def refuse(self, path: str, body: dict) -> tuple[int, dict] | None:
        """(status, error body) for a request such a server refuses, else None."""
        if path.startswith("/v1/messages/batches") or path == "/v1/messages/count_tokens":
            self._note(f"{path}: not served")
            return 404, {"error": {"code": 404, "message": "File Not Found", "type": "not_found_error"}}
        if path != "/v1/messages":
            return None
        uses_cache = any(isinstance(b, dict) and b.get("cache_control") for b in _blocks(body))
        if uses_cache:
            self._note("cache_control sent")
        if "output_config" in body:
            self._note("output_config sent")
            if self.reject_output_config:
                return 400, _invalid("output_config: Extra inputs are not permitted")
        if body.get("thinking"):
            self._note("thinking sent")
            return 400, _invalid("thinking: Extra inputs are not permitted")
        n = prompt_tokens(body)
        with self._lock:
            self.prompt_tokens.append(n)
            if body.get("model") and body["model"] not in self.loaded:
                self.loaded.append(str(body["model"]))
        if n > self.window:
            return 400, {"error": {"code": 400, "type": "exceed_context_size_error", "n_prompt_tokens": n,
                                   "n_ctx": self.window, "message": "the request exceeds the available context "
                                   "size. try increasing the context size or enable context shift"}}
        return None

    def listed(self, method: str, path: str, body: dict | None) -> tuple[int, dict] | None:
        """(status, body) of a model-listing route (404 when this server's shape has no such
        route), None for any other path."""
        path = path.split("?")[0].rstrip("/")
        routes = ("/v1/models", "/props", "/api/show", "/api/ps")
        if not (path in routes or path.startswith("/v1/models/")):
            return None
        names = self.loaded or ["qwen3-coder"]
        trained = self.model_window or 4 * self.window
        missing = (404, {"error": {"code": 404, "message": "File Not Found", "type": "not_found_error"}})
        shape = self.listing
        if shape == "llama.cpp" and method == "GET" and path == "/v1/models":  # one model, named by its path
            return 200, {"object": "list", "data": [{
                "id": "../models/Qwen3-Coder-30B-A3B-Instruct-Q4_K_M.gguf", "object": "model", "created": 1735142223,
                "owned_by": "llamacpp", "meta": {"vocab_type": 2, "n_vocab": 151936, "n_ctx_train": trained,
                                                 "n_embd": 2048, "n_params": 30532122624, "size": 18556684288}}]}
        if shape == "llama.cpp" and method == "GET" and path == "/props":
            return 200, {"default_generation_settings": {"id": 0, "id_task": -1, "n_ctx": self.window,
                                                         "params": {"n_predict": -1, "max_tokens": -1}},
                         "total_slots": 1, "model_path": "../models/Qwen3-Coder-30B-A3B-Instruct-Q4_K_M.gguf",
                         "build_info": "b6000-fake"}
        if shape == "vllm" and method == "GET" and path == "/v1/models":
            return 200, {"object": "list", "data": [{"id": m, "object": "model", "created": 1735142223,
                                                     "owned_by": "vllm", "root": m, "parent": None,
                                                     "max_model_len": self.window, "permission": []} for m in names]}
        if shape == "ollama" and method == "GET" and path == "/v1/models":
            return 200, {"object": "list", "data": [{"id": m + ":latest", "object": "model", "created": 1735142223,
                                                     "owned_by": "library"} for m in names]}
        if shape == "ollama" and method == "GET" and path.startswith("/v1/models/"):
            return 200, {"id": path.rsplit("/", 1)[1], "object": "model", "created": 1735142223, "owned_by": "library"}
        if shape == "ollama" and method == "POST" and path == "/api/show":
            params = f"num_ctx {self.window}\ntemperature 0.7" if self.modelfile_num_ctx else "temperature 0.7"
            return 200, {"parameters": params, "details": {"format": "gguf", "family": "qwen3moe"},
                         "model_info": {"general.architecture": "qwen3moe", "qwen3moe.context_length": trained},
                         "capabilities": ["completion", "tools"]}
        if shape == "ollama" and method == "GET" and path == "/api/ps":
            return 200, {"models": [{"name": m + ":latest", "model": m + ":latest", "size_vram": 1 << 34,
                                     "context_length": self.window} for m in self.loaded]}
        if shape == "anthropic" and method == "GET" and path.startswith("/v1/models/"):
            return 200, {"type": "model", "id": path.rsplit("/", 1)[1], "display_name": "local",
                         "created_at": "2026-01-01T00:00:00Z", "max_input_tokens": self.window,
                         **({"max_tokens": self.max_tokens} if self.max_tokens else {})}
        if shape == "" and path.startswith("/v1/models"):
            return None  # the fake's own listing (Claude ids, no limits)
        return missing

    def strip(self, body: dict) -> dict:
        """The request as the server reads it: output_config ignored (when it is not refused)."""
        out = dict(body)
        out.pop("output_config", None)
        return out

    def wrap(self, answerer: Any) -> Any:
        """The answerer of a weak model that reads the JSON shape from its prompt."""
        def answer(request: dict) -> str:
            shown = dict(request)
            shown.pop("output_config", None)
            messages = request.get("messages") or [{}]
            text = _text(messages[0].get("content"))
            schema = _schema_in(text)
            if schema is not None:  # it follows the shape its prompt describes
                shown["output_config"] = {"format": {"type": "json_schema", "schema": schema}}
            full = answerer(shown)
            if schema is not None:
                full = _fit(full, schema)
            return self._maybe_break(request, full, schema is not None)

        answer.structured = True  # type: ignore[attr-defined]  # it writes JSON itself
        return answer

    def _maybe_break(self, request: dict, full: str, is_json: bool) -> str:
        if self.off_contract <= 0:
            return full
        key = json.dumps([self.seed, request.get("system"), request.get("messages")], sort_keys=True, default=str)
        with self._lock:  # a model samples: the same request asked again is drawn afresh
            seen = self._seen[key] = self._seen.get(key, -1) + 1
        rng = random.Random(hashlib.sha256(f"{key}\0{seen}".encode()).hexdigest())
        chance = self.off_contract
        if self.size_hazard:
            held = prompt_tokens(request) + len(full) // 4
            chance = 1 - (1 - self.off_contract) ** (held / max(1, self.window / 2))
        with self._lock:
            self.chances.append(chance)
        if rng.random() >= chance:
            return full
        from .role_answers import role_of

        with self._lock:
            self.broken[role_of(request)] += 1
        if is_json:  # prose around it and the object cut short: no JSON parser reads it
            return "Sure! Here is the JSON you asked for:\n" + full[: max(1, len(full) // 2)]
        # prose without its `# ` title, stopping a third of the way in (a weak model's usual miss)
        lines = [line for line in full.splitlines() if not line.startswith("# ")]
        body = "\n".join(lines)
        return body[: max(1, len(body) // 3)].rsplit("\n", 1)[0] or "I am not sure what to write here."

    def _note(self, what: str) -> None:
        with self._lock:
            self.violations.append(what)


def _invalid(message: str) -> dict:
    return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}


def _blocks(body: dict) -> list[Any]:
    out: list[Any] = []
    if isinstance(body.get("system"), list):
        out += body["system"]
    for m in body.get("messages") or []:
        if isinstance(m, dict) and isinstance(m.get("content"), list):
            out += m["content"]
    return out


def _fit(text: str, schema: dict) -> str:
    """The answer kept to the schema it was shown: arrays cut to their `maxItems`, objects to the
    properties the schema lists (a model follows the shape its prompt describes)."""
    try:
        obj = json.loads(text)
    except ValueError:
        return text
    return json.dumps(_fit_value(obj, schema), ensure_ascii=False)


def _fit_value(value: Any, schema: Any) -> Any:
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict) and isinstance(schema.get("properties"), dict):
        props = schema["properties"]
        return {k: _fit_value(v, props[k]) for k, v in value.items() if k in props}
    if isinstance(value, list):
        items = [_fit_value(v, schema.get("items")) for v in value]
        cap = schema.get("maxItems")
        return items[:cap] if isinstance(cap, int) else items
    return value


def _schema_in(text: str) -> dict | None:
    i = text.find(FORMAT_HEADER)
    if i < 0:
        return None
    j = text.find("{", i)
    if j < 0:
        return None
    try:
        obj, _ = json.JSONDecoder().raw_decode(text[j:])
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None
