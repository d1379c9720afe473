"""A compatible server's limits from its own model listing (issue 27): the context window the model
supports and the one the server runs it with, whichever of them the server says.

What each server answers (read in their docs and sources):

- Anthropic's Models API, and proxies that copy it: `GET /v1/models/{id}` (the SDK's
  `client.models.retrieve`) is a ModelInfo with `max_input_tokens` (the input window) and
  `max_tokens` (the longest answer); `GET /v1/models` lists the same objects in `data`.
- llama.cpp's server: `GET /v1/models` lists its one model (`owned_by: "llamacpp"`) with
  `meta.n_ctx_train`, the window the model was trained for; `GET /props` has
  `default_generation_settings.n_ctx`, the window of one slot, what `--ctx-size` (divided among
  `--parallel` slots) gives a request.
- vLLM: `GET /v1/models` lists ModelCards with `max_model_len` (prompt and answer together, what
  `--max-model-len` set or the model's config gave): the model's and the server's at once.
- Ollama: `POST /api/show {"model": m}` has `model_info["<architecture>.context_length"]` (the
  model's) and, when its Modelfile sets one, `num_ctx N` in `parameters`; `GET /api/ps` lists the
  loaded models with `context_length`, the window Ollama actually allocated (its default, from
  OLLAMA_CONTEXT_LENGTH or the VRAM, is often far below the model's). Its `/v1/models` says
  nothing of limits.

The window used is the smaller of the model's and the server's; book.yaml's `context_window` and
`max_output` win when given (server.py). Every request is one cheap GET (one POST for Ollama's
/api/show) with a short timeout, within an overall deadline; a 404, a timeout or an answer of
another shape only means "not from here". Importing this module imports nothing of `anthropic`.
"""

from __future__ import annotations

import json
import logging
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from typing import Any

log = logging.getLogger("orchestrator.providers.anthropic")
OLLAMA_DEFAULT_WINDOW = 4096  # Ollama's default below 24 GiB of VRAM (docs/context-length): assumed when it says nothing

# (method, path, body) -> the JSON answer, or None (absent, refused, timed out, not JSON)
Fetch = Callable[[str, str, "dict | None"], Any]


@dataclass(frozen=True)
class Limits:
    """What the listing said; 0 and "" where it said nothing."""
    context_window: int = 0  # the window to use: min(model's, server's)
    window_source: str = ""  # where that number came from, e.g. "llama.cpp /props"
    max_output: int = 0
    output_source: str = ""
    model_window: int = 0  # what the model supports
    model_source: str = ""
    run_window: int = 0  # what the server runs it with
    run_source: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> Limits:
        if not isinstance(data, dict):
            raise TypeError("limits: not an object")
        kw: dict[str, Any] = {}
        for f in fields(cls):
            v = data.get(f.name, 0 if f.type in ("int", int) else "")
            kw[f.name] = int(v) if f.type in ("int", int) else str(v)
        return cls(**kw)


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else 0


def _names(model: str) -> set[str]:
    """The names a server may list `model` under: Ollama adds `:latest`, llama.cpp lists a path."""
    m = model.strip()
    out = {m, m.removesuffix(":latest")}
    if ":" not in m:
        out.add(m + ":latest")
    return out


def _matches(entry: dict, model: str) -> bool:
    names = _names(model)
    for key in ("id", "root", "name", "model"):
        v = entry.get(key)
        if isinstance(v, str) and (v in names or v.rsplit("/", 1)[-1].removesuffix(".gguf") in names):
            return True
    return False


def _entry(listing: Any, model: str) -> dict | None:
    """The model's entry of a `GET /v1/models` answer; a server that lists one model (llama.cpp
    serves whatever name a request gives) answers for it."""
    data = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(data, list):
        return None
    entries = [e for e in data if isinstance(e, dict)]
    hit = next((e for e in entries if _matches(e, model)), None)
    if hit is None and len(entries) == 1 and (entries[0].get("owned_by") == "llamacpp" or "meta" in entries[0]):
        hit = entries[0]
    return hit


@dataclass
class _Found:
    model: list[tuple[int, str]]
    run: list[tuple[int, str]]
    output: list[tuple[int, str]]

    def add(self, kind: str, value: Any, source: str) -> None:
        n = _int(value)
        if n:
            getattr(self, kind).append((n, source))


def _anthropic(obj: Any, found: _Found, source: str) -> None:
    if isinstance(obj, dict):
        found.add("model", obj.get("max_input_tokens"), source + " (max_input_tokens)")
        found.add("output", obj.get("max_tokens"), source + " (max_tokens)")


def _ollama_params(text: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in str(text or "").splitlines():
        k, _, v = line.strip().partition(" ")
        if k and v:
            out[k] = v.strip()
    return out


def read(fetch: Fetch, model: str, deadline: float = 10.0, clock: Callable[[], float] = time.monotonic) -> Limits:
    """Ask the server's listing endpoints in turn (stopping at `deadline` seconds) and combine
    what they say. `fetch` does one request (`fetcher` makes the real one)."""
    t0 = clock()
    found = _Found([], [], [])
    shape = ""

    def ask(method: str, path: str, body: dict | None = None) -> Any:
        if clock() - t0 > deadline:
            return None
        return fetch(method, path, body)

    one = ask("GET", "/v1/models/" + urllib.parse.quote(model, safe=""))
    if isinstance(one, dict) and _matches(one, model):
        _anthropic(one, found, "/v1/models/{id}")
    listed = _entry(ask("GET", "/v1/models"), model)
    if listed is not None:
        raw = listed.get("meta")
        meta: dict = raw if isinstance(raw, dict) else {}
        if meta or listed.get("owned_by") == "llamacpp":
            shape = "llama.cpp"
            found.add("model", meta.get("n_ctx_train"), "llama.cpp /v1/models (n_ctx_train)")
        if "max_model_len" in listed:
            shape = "vLLM"
            # the server's cap of prompt and answer together: the model's and the server's at once
            found.add("run", listed.get("max_model_len"), "vLLM /v1/models (max_model_len)")
        if not found.model and not found.output:
            _anthropic(listed, found, "/v1/models")
    if shape == "llama.cpp":
        props = ask("GET", "/props")
        settings = props.get("default_generation_settings") if isinstance(props, dict) else None
        if isinstance(settings, dict):
            found.add("run", settings.get("n_ctx"), "llama.cpp /props")
    if not shape and not found.model and not found.run:
        show = ask("POST", "/api/show", {"model": model})
        if isinstance(show, dict) and isinstance(show.get("model_info"), dict):
            shape = "Ollama"
            info = show["model_info"]
            arch = info.get("general.architecture")
            found.add("model", info.get(f"{arch}.context_length"), "Ollama /api/show")
            params = _ollama_params(show.get("parameters"))
            found.add("run", _digits(params.get("num_ctx")), "Ollama /api/show (num_ctx)")
            ps = ask("GET", "/api/ps")
            for m in (ps.get("models") if isinstance(ps, dict) else None) or []:
                if isinstance(m, dict) and _matches(m, model):
                    found.add("run", m.get("context_length"), "Ollama /api/ps")
                    break
            if not found.run and found.model:
                found.add("run", OLLAMA_DEFAULT_WINDOW, "Ollama's default (the model is not loaded; set num_ctx "
                          "or OLLAMA_CONTEXT_LENGTH, or context_window in book.yaml)")
    return combine(found)


def _digits(v: Any) -> int:
    try:
        return int(str(v))
    except (TypeError, ValueError):
        return 0


def combine(found: _Found) -> Limits:
    """The smaller of the model's and the server's windows, each the smallest any endpoint gave."""
    model = min(found.model, default=(0, ""))
    run = min(found.run, default=(0, ""))
    known = [x for x in (model, run) if x[0]]
    window = min(known, default=(0, ""))
    out = min(found.output, default=(0, ""))
    return Limits(window[0], window[1], out[0], out[1], model[0], model[1], run[0], run[1])


def fetcher(base_url: str, key: str, timeout: float = 3.0) -> Fetch:
    """One request to the server at `base_url`, with the same credentials a call carries."""
    base = base_url.rstrip("/")

    def fetch(method: str, path: str, body: dict | None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(base + path, data=data, method=method, headers={
            "x-api-key": key, "authorization": f"Bearer {key}", "anthropic-version": "2023-06-01",
            "accept": "application/json", **({"content-type": "application/json"} if data else {})})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 - the configured server
                return json.loads(resp.read(1 << 22).decode("utf-8", "replace"))
        except (urllib.error.URLError, OSError, ValueError) as e:  # 404, refused, timed out, not JSON
            log.info("server listing: %s %s: %s", method, path, getattr(e, "code", None) or type(e).__name__)
            return None

    return fetch
