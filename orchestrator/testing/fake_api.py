"""A fake Anthropic Messages API: a real HTTP server on 127.0.0.1 that the real `anthropic`
SDK talks to through `ANTHROPIC_BASE_URL`. Tests run it in-process; it also runs standalone:

    python -m orchestrator.testing.fake_api --port 8765 [--latency 0.2]
    ANTHROPIC_BASE_URL=http://127.0.0.1:8765 ANTHROPIC_API_KEY=sk-ant-dummy book run --provider anthropic

What it does, like the real API:

- `POST /v1/messages`, streaming (SSE: `message_start` with usage including the cache
  fields, `content_block_start`, `ping`, `content_block_delta`/`text_delta` chunks,
  `content_block_stop`, `message_delta` with `stop_reason` and usage, `message_stop`) and
  non-streaming (one JSON `message`); `POST /v1/messages/count_tokens`. Every response
  carries a `request-id` header; errors have the API's JSON error shape.
- Usage: tokens ~ len(text)/4. Every `cache_control` block (system or message content) is a
  breakpoint; the prefix up to it is remembered by hash: the first request with it pays
  `cache_creation_input_tokens`, a request repeating it gets `cache_read_input_tokens`.
  `cache_rules=True` models the real API: a prefix shorter than the model's minimum
  cacheable length (data/models.yaml) is not cached, and a prefix is readable only once the
  request writing it has started its answer (requests sent together all write).
- A request with no `x-api-key`/`authorization` gets a 401. A request whose last message
  is an assistant message (a prefill) gets the 400 that Claude 4.6+ models give when the
  model's table entry says `prefill: false` (or `allow_prefill=False`), or when it thinks.
- Structured outputs: a request with `output_config.format` = json_schema is answered with
  a JSON document valid for the schema (schema_instance.py, deterministic from the prompt).
- The answer is `answerer(request_json) -> str` (default: a short Markdown document with a
  `# Title` and `## Sections` derived from the prompt). The answerer always sees the request
  as first asked: the system prompt and the first user message only. The fake handles
  continuations itself: when the messages carry an assistant turn (the text so far, followed
  by a user "continue" turn, or a prefill), it answers with exactly what the uncut answer has
  after that text, byte for byte, wherever the cut was (`fake.diverged` counts continuations
  whose text was not a start of the uncut answer: a client that altered the text). A
  request whose `max_tokens` is smaller than the answer stops at `max_tokens`.
- Cut faults: `cut_share=0.3, cut_seed=7` (or FAKE_API_CUT="0.3:7" / --cut 0.3:7) cuts that
  share of answers, continuations too, at `max_tokens`, at a position drawn from the seed
  and the request (inside words, code blocks, between multi-byte characters, on repeated
  lines). Streamed events are also split across HTTP chunks inside multi-byte UTF-8
  characters, so the client's decoder is exercised.

Scripting faults: each call queues a fault that applies to the next request whose system
prompt or messages contain `match` (any request when `match` is None), `times` times:

    fake.status(429, retry_after=1)         fake.status(529)      fake.status(500)
    fake.delay(0.5)                          fake.drop_mid_stream()  (socket closed after some deltas)
    fake.error_event()                       (`event: error` overloaded_error mid-stream, HTTP 200)
    fake.no_message_stop()                   (stream ends cleanly without message_delta/message_stop)
    fake.max_tokens(at=0.5)                  (stop at max_tokens at that share of the answer;
                                              the continuation gets exactly the rest)
    fake.refusal()   fake.marker_text()   fake.empty()   fake.malformed("text")
    fake.spend_limit()                       (429 enforced_spend_limit_reached, x-should-retry: false)

What a real model does inside an answer, at a configurable share (fake_model.py): thinking that
counts against max_tokens, preambles and closing remarks, a restated line on continuation,
refusals: `FakeAPI(model_like=ModelLike(0.3, seed=7))` or FAKE_API_MODEL_LIKE="0.3:7". Always,
as the real API: a continuation under a JSON schema starts a new object at `{`
(`fake.structured_continuations` counts such requests) and a prefill with a schema is a 400;
usage carries `cache_creation` by TTL and `output_tokens_details.thinking_tokens`.

It records every request (`fake.requests`: method, path, headers without the key, JSON
body, the fault applied) and never logs or records the `x-api-key`/`authorization` value.
"""

from __future__ import annotations

import argparse
import hashlib
import http.server
import itertools
import json
import os
import random
import socket
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

# The wire-level pieces the batch endpoints and the role answerer share (re-exported here).
from .fake_model import REFUSAL, ModelLike, Plan, dress, restated, thinking_text
from .fake_wire import (  # noqa: F401
    ERROR_TYPES,
    Fault,
    Reply,
    _Dropped,
    block_text,
    cache_creation,
    default_answerer,
    message_json,
    tokens,
)

Answerer = Callable[[dict], str]

SECRET_HEADERS = {"x-api-key", "authorization", "proxy-authorization", "cookie"}

DEFAULT_MARKER = "<!-- DRAFT_COMPLETE -->"


def _json_schema(body: dict) -> dict | None:
    fmt = (body.get("output_config") or {}).get("format") if isinstance(body.get("output_config"), dict) else None
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema" and isinstance(fmt.get("schema"), dict):
        return fmt["schema"]
    return None


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    fake: FakeAPI

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that closes a kept-alive connection (or a test that stops the server)
        # is normal here; anything else is printed (without headers).
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError, OSError)) or self.fake._stopping:
            return
        super().handle_error(request, client_address)


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    # http.server logs every request to stderr with the client address; the fake logs
    # nothing by default (and never a header).
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        if self.server.fake.verbose:
            sys.stderr.write("fake_api: " + (format % args) + "\n")

    def setup(self) -> None:
        super().setup()
        self.server.fake._track(self.connection, True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.fake._track(self.connection, False)

    # ------------------------------------------------------------------ plumbing

    def _read_body(self) -> bytes:
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""

    def _send_json(self, status: int, payload: dict, rid: str, extra: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", rid)
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_error(self, status: int, rid: str, message: str | None = None, error_type: str | None = None,
                    extra: dict[str, str] | None = None, details: dict | None = None) -> None:
        etype = error_type or ERROR_TYPES.get(status, "api_error")
        error: dict[str, Any] = {"type": etype, "message": message or etype.replace("_", " ")}
        if details:
            error["details"] = details
        body = {"type": "error", "error": error, "request_id": rid}
        self._send_json(status, body, rid, extra)

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _event(self, name: str, payload: dict) -> None:
        data = f"event: {name}\ndata: {json.dumps(payload, ensure_ascii=False)}\n\n".encode()
        # Split inside a multi-byte character when there is one: the client must reassemble it.
        cut = next((i for i in range(1, len(data)) if 0x80 <= data[i] <= 0xBF), None)
        if cut is None:
            self._chunk(data)
        else:
            self._chunk(data[:cut])
            self._chunk(data[cut:])

    def _drop(self) -> None:
        """Close the socket without finishing the chunked body: the client sees a dropped
        connection in the middle of the stream."""
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        raise _Dropped()

    # ------------------------------------------------------------------ routes

    def do_GET(self) -> None:  # noqa: N802
        fake = self.server.fake
        rid = fake._next_id("req")
        fake._record(self, None, None)
        listed = fake.compatible.listed("GET", self.path, None) if fake.compatible is not None else None
        if listed is not None:  # a local server's model listing (fake_compatible.py)
            self._send_json(listed[0], listed[1], rid)
            return
        if fake.compatible is not None and self.path.startswith("/v1/messages/batches"):
            refused = fake.compatible.refuse(self.path.split("?")[0], {})
            assert refused is not None
            self._send_json(refused[0], refused[1], rid)
            return
        if self.path.startswith("/v1/messages/batches"):
            from . import fake_batches

            return fake_batches.handle(self, "GET", None, rid)
        if self.path.rstrip("/") == "/v1/models":
            data = [{"type": "model", "id": m, "display_name": m} for m in fake.models]
            self._send_json(200, {"data": data, "has_more": False, "first_id": None, "last_id": None}, rid)
        else:
            self._send_error(404, rid, f"no route {self.path}")

    def do_POST(self) -> None:  # noqa: N802
        fake = self.server.fake
        rid = fake._next_id("req")
        raw = self._read_body()
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            fake._record(self, None, None)
            self._send_error(400, rid, "request body is not valid JSON")
            return
        path = self.path.split("?")[0].rstrip("/")
        if not (self.headers.get("x-api-key") or self.headers.get("authorization")):
            fake._record(self, body, None)
            self._send_error(401, rid, "x-api-key header is required")
            return
        if fake.compatible is not None:  # a local server: what it lacks is refused as such servers do
            refused = fake.compatible.refuse(path, body)
            if refused is not None:
                fake._record(self, body, None)
                self._send_json(refused[0], refused[1], rid)
                return
            body = fake.compatible.strip(body)
            listed = fake.compatible.listed("POST", path, body)
            if listed is not None:  # Ollama's /api/show
                fake._record(self, body, None)
                self._send_json(listed[0], listed[1], rid)
                return
        if path.startswith("/v1/messages/batches"):
            from . import fake_batches

            fake._record(self, body, None)
            return fake_batches.handle(self, "POST", body, rid)
        if path == "/v1/messages/count_tokens":
            fake._record(self, body, None)
            # every input token, as the real endpoint counts them (not split into cache reads/writes)
            self._send_json(200, {"input_tokens": sum(fake._usage(body, remember=False))}, rid)
            return
        if path != "/v1/messages":
            fake._record(self, body, None)
            self._send_error(404, rid, f"no route {self.path}")
            return
        fault = fake._take_fault(body) or fake._random_failure()
        fake._record(self, body, fault)
        try:
            self._messages(body, fault, rid)
        except _Dropped:
            pass
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _messages(self, body: dict, fault: Fault | None, rid: str) -> None:
        fake = self.server.fake
        # Real cache rules: what a request can read is decided when it arrives; what it writes
        # becomes readable only once its answer starts (after the latency of reading the prompt).
        arrived = fake._usage(body, remember=False) if fake.cache_rules and "messages" in body else None
        if fake.latency:
            time.sleep(fake.latency)
        kind = fault.kind if fault else None
        args = fault.args if fault else {}
        if kind == "delay":
            time.sleep(float(args.get("seconds", 0)))
        if kind == "status":
            extra = {}
            if args.get("retry_after") is not None:
                extra["retry-after"] = str(args["retry_after"])
            if args.get("should_retry") is not None:
                extra["x-should-retry"] = "true" if args["should_retry"] else "false"
            self._send_error(int(args["code"]), rid, args.get("message"), args.get("error_type"), extra,
                             args.get("details"))
            return
        for key in ("model", "max_tokens", "messages"):
            if key not in body:
                self._send_error(400, rid, f"{key}: Field required")
                return
        messages = body.get("messages") or []
        if not messages or not isinstance(messages, list):
            self._send_error(400, rid, "messages: at least one message is required")
            return
        if messages[-1].get("role") == "assistant" and _json_schema(body) is not None:
            self._send_error(400, rid, "Prefilling the assistant message is not supported when using structured "
                                       "outputs (output_config.format).")
            return
        if messages[-1].get("role") == "assistant" and not fake._prefill_ok(body):
            self._send_error(400, rid, "This model does not support assistant message prefill. "
                                       "The conversation must end with a user message.")
            return
        if messages[-1].get("role") == "assistant" and block_text(messages[-1].get("content")) != \
                block_text(messages[-1].get("content")).rstrip():
            self._send_error(400, rid,
                             "messages: final assistant content cannot end with trailing whitespace")
            return
        for m in messages:
            if m.get("role") == "assistant" and not block_text(m.get("content")):
                self._send_error(400, rid, "messages: all messages must have non-empty content "
                                           "except for the optional final assistant message")
                return

        reply = fake._reply(body, fault)
        text, stop, thought = reply.text, reply.stop, reply.thinking_tokens
        input_tokens, created, read = arrived or fake._usage(body, remember=not fake.cache_rules)
        out_tokens = tokens(text) + thought
        # usage.cache_creation split by TTL, from the breakpoints that wrote (billed_usage)
        usage_start = dict(fake.billed_usage(body, input_tokens, created, read, out_tokens), output_tokens=1)
        msg_id = fake._next_id("msg")
        model = body["model"]
        if not body.get("stream"):
            if kind in ("drop_mid_stream",):
                self._drop()
            if kind in ("error_event", "no_message_stop"):
                self._send_error(529, rid, "Overloaded")
                return
            self._send_json(200, message_json(msg_id, model, reply, {**usage_start, "output_tokens": out_tokens}),
                            rid)
            return

        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", rid)
        self.end_headers()
        self._event("message_start", {"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": usage_start}})
        if fake.cache_rules:  # the prefix is written now: later requests may read it
            fake._usage(body, remember=True)
        pieces = fake._pieces(text)
        index = 0
        if thought:  # a thinking block first: a summary streamed, its signature, then the text at index 1
            self._event("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {
                "type": "thinking", "thinking": "", "signature": ""}})
            self._event("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {
                "type": "thinking_delta", "thinking": thinking_text(thought)}})
            self._event("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {
                "type": "signature_delta", "signature": "sig" + msg_id}})
            self._event("content_block_stop", {"type": "content_block_stop", "index": 0})
            index = 1
        if pieces or (kind not in ("empty",) and not thought):
            self._event("content_block_start", {"type": "content_block_start", "index": index,
                                                "content_block": {"type": "text", "text": ""}})
            self._event("ping", {"type": "ping"})
        cut_after = None
        if kind in ("drop_mid_stream", "error_event"):
            cut_after = max(0, min(int(args.get("after", 2)), len(pieces) - 1)) if pieces else 0
        for i, piece in enumerate(pieces):
            if cut_after is not None and i == cut_after:
                if kind == "drop_mid_stream":
                    self._drop()
                self._event("error", {"type": "error", "error": {
                    "type": args.get("error_type", "overloaded_error"), "message": "Overloaded"}})
                self._chunk(b"")  # the real API ends the response after an error event
                return
            self._event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                "delta": {"type": "text_delta", "text": piece}})
            if fake.delta_delay:
                time.sleep(fake.delta_delay)
        if cut_after is not None and not pieces:
            if kind == "drop_mid_stream":
                self._drop()
            self._event("error", {"type": "error",
                                  "error": {"type": "overloaded_error", "message": "Overloaded"}})
            self._chunk(b"")
            return
        if pieces or (kind not in ("empty",) and not thought):
            self._event("content_block_stop", {"type": "content_block_stop", "index": index})
        if kind == "no_message_stop":
            self._chunk(b"")
            return
        delta: dict[str, Any] = {"stop_reason": stop, "stop_sequence": None}
        if reply.stop_details:
            delta["stop_details"] = reply.stop_details
        self._event("message_delta", {"type": "message_delta", "delta": delta, "usage": {
            "output_tokens": out_tokens, "output_tokens_details": {"thinking_tokens": thought}}})
        self._event("message_stop", {"type": "message_stop"})
        self._chunk(b"")


class FakeAPI:
    """The fake Messages API server. `start()` returns the base URL; use it as a context
    manager in tests."""

    def __init__(self, answerer: Answerer | None = None, *, host: str = "127.0.0.1", port: int = 0,
                 latency: float = 0.0, delta_delay: float = 0.0, chunk_chars: int = 40,
                 allow_prefill: bool | None = None, min_cache_tokens: int = 0, verbose: bool = False,
                 models: list[str] | None = None, cache_rules: bool = False, cut_share: float | None = None,
                 cut_seed: int = 0, model_like: ModelLike | None = None, compatible: Any = None):
        self.answerer: Answerer = answerer or default_answerer
        # a local compatible server (fake_compatible.Compatible): no output_config, cache, batches, ...
        self.compatible = compatible
        if compatible is not None:
            self.answerer = compatible.wrap(self.answerer)
        self.host, self.port = host, port
        self.latency, self.delta_delay, self.chunk_chars = latency, delta_delay, max(1, chunk_chars)
        self.allow_prefill, self.min_cache_tokens, self.verbose = allow_prefill, min_cache_tokens, verbose
        self.models = models or ["claude-sonnet-5-5", "claude-opus-5-5", "claude-haiku-5-5"]
        self.requests: list[dict[str, Any]] = []
        self.billed: list[dict[str, Any]] = []  # the usage of every answer sent (billed_usage)
        self.faults: list[Fault] = []
        self._cache: set[str] = set()
        self.cache_rules = cache_rules
        if cut_share is None:  # FAKE_API_CUT="0.3:7": cut 30 % of answers, seed 7
            env = os.environ.get("FAKE_API_CUT", "").strip()
            share, _, seed = env.partition(":")
            cut_share, cut_seed = (float(share), int(seed or 0)) if share else (0.0, cut_seed)
        self.cut_share, self.cut_seed = float(cut_share), int(cut_seed)
        # A share of POST /v1/messages calls answered 529 or 500 before anything is streamed
        # (`--message-fail-rate`): the flaky network a benchmark runs a whole book through.
        self.message_fail_rate, self._fail_rng = 0.0, random.Random(int(os.environ.get("FAKE_API_SEED", "0") or 0))
        self.diverged = 0  # continuations whose text was not a start of the uncut answer
        # What a real model does inside an answer (fake_model.py); FAKE_API_MODEL_LIKE="0.3:7".
        self.model_like = model_like if model_like is not None else (ModelLike.from_env() or ModelLike())
        self.structured_continuations = 0  # requests that continued an answer under a JSON schema
        self.cuts = 0
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._conns: set[socket.socket] = set()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._stopping = False

    # ------------------------------------------------------------------ lifecycle

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("FakeAPI is not started")
        return f"http://{self.host}:{self._server.server_address[1]}"

    def start(self) -> str:
        if self._server is None:
            self._stopping = False
            self._server = _Server((self.host, self.port), _Handler)
            self._server.fake = self
            self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                            name="fake-anthropic-api", daemon=True)
            self._thread.start()
        return self.base_url

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping = True
        server.shutdown()
        server.server_close()
        with self._lock:
            conns = list(self._conns)
        for c in conns:  # kept-alive connections: wake their handler threads so they end
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeAPI:
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def _track(self, conn: socket.socket, alive: bool) -> None:
        with self._lock:
            (self._conns.add if alive else self._conns.discard)(conn)

    # ------------------------------------------------------------------ scripting

    def add_fault(self, kind: str, match: str | None = None, times: int = 1, **args: Any) -> FakeAPI:
        with self._lock:
            self.faults.append(Fault(kind, match, times, args))
        return self

    def delay(self, seconds: float, match: str | None = None, times: int = 1) -> FakeAPI:
        return self.add_fault("delay", match, times, seconds=seconds)

    def status(self, code: int, retry_after: float | None = None, match: str | None = None, times: int = 1,
               message: str | None = None, error_type: str | None = None) -> FakeAPI:
        return self.add_fault("status", match, times, code=code, retry_after=retry_after, message=message,
                              error_type=error_type)

    def drop_mid_stream(self, after: int = 2, match: str | None = None, times: int = 1) -> FakeAPI:
        return self.add_fault("drop_mid_stream", match, times, after=after)

    def error_event(self, after: int = 2, match: str | None = None, times: int = 1,
                    error_type: str = "overloaded_error") -> FakeAPI:
        return self.add_fault("error_event", match, times, after=after, error_type=error_type)

    def no_message_stop(self, match: str | None = None, times: int = 1) -> FakeAPI:
        return self.add_fault("no_message_stop", match, times)

    def max_tokens(self, at: float = 0.5, match: str | None = None, times: int = 1) -> FakeAPI:
        return self.add_fault("max_tokens", match, times, at=at)

    def spend_limit(self, match: str | None = None, times: int = 1) -> FakeAPI:
        """The organization's spend limit: HTTP 429 `rate_limit_error` whose details say
        `enforced_spend_limit_reached`, with `x-should-retry: false` (a batch create gets it too)."""
        return self.add_fault("status", match, times, code=429, error_type="rate_limit_error", should_retry=False,
                              message="You have reached your specified API usage limits. You will regain access "
                                      "on the first day of next month at 00:00 UTC.",
                              details={"error_code": "enforced_spend_limit_reached"})

    def restart(self, match: str | None = None, times: int = 1) -> FakeAPI:
        """A continuation that starts the whole answer over (out of line with the text so far)."""
        return self.add_fault("restart", match, times)

    def refusal(self, match: str | None = None, times: int = 1) -> FakeAPI:
        return self.add_fault("refusal", match, times)

    def marker_text(self, text: str = DEFAULT_MARKER, match: str | None = None, times: int = 1,
                    share: float | None = None, seed: int = 0) -> FakeAPI:
        """Inject marker text into the next `times` matching answers; with `share`, into that
        share of all matching answers (a seeded draw per answer; the fault never runs out)."""
        if share is not None:
            return self.add_fault("marker_text", match, 1, text=text, share=float(share), rng=random.Random(seed))
        return self.add_fault("marker_text", match, times, text=text)

    def empty(self, match: str | None = None, times: int = 1) -> FakeAPI:
        return self.add_fault("empty", match, times)

    def malformed(self, text: str, match: str | None = None, times: int = 1) -> FakeAPI:
        return self.add_fault("malformed", match, times, text=text)

    def _random_failure(self) -> Fault | None:
        with self._lock:
            if self.message_fail_rate <= 0 or self._fail_rng.random() >= self.message_fail_rate:
                return None
            code = self._fail_rng.choice((500, 529))
        return Fault("status", args={"code": code, "error_type": "overloaded_error" if code == 529 else "api_error"})

    def clear(self) -> None:
        """Forget queued faults, recorded requests and the prompt cache."""
        with self._lock:
            self.faults.clear()
            self.requests.clear()
            self._cache.clear()
            self.diverged = self.cuts = 0

    # ------------------------------------------------------------------ inspection

    def message_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["path"].startswith("/v1/messages") and
                not r["path"].startswith("/v1/messages/count_tokens")]

    def dump(self) -> str:
        """Everything recorded, as JSON (what a test would print or save)."""
        with self._lock:
            return json.dumps(self.requests, indent=1, sort_keys=True, default=str)

    # ------------------------------------------------------------------ internals

    def _next_id(self, prefix: str) -> str:
        return f"{prefix}_fake{next(self._ids):06x}"

    def _record(self, handler: _Handler, body: dict | None, fault: Fault | None) -> None:
        headers = {}
        for k, v in handler.headers.items():
            headers[k.lower()] = "***" if k.lower() in SECRET_HEADERS else v
        with self._lock:
            self.requests.append({"method": handler.command, "path": handler.path, "headers": headers,
                                  "body": body, "fault": fault.kind if fault else None, "time": time.time()})

    @staticmethod
    def _haystack(body: dict) -> str:
        parts = [block_text(body.get("system"))]
        for m in body.get("messages") or []:
            if isinstance(m, dict):
                parts.append(block_text(m.get("content")))
        return "\n".join(parts)

    def _take_fault(self, body: dict) -> Fault | None:
        hay = self._haystack(body)
        with self._lock:
            for i, f in enumerate(self.faults):
                if f.match is None or f.match in hay:
                    if "share" in f.args:  # a share-based fault: drawn per answer, never used up
                        if f.args["rng"].random() < f.args["share"]:
                            return f
                        continue
                    f.times -= 1
                    if f.times <= 0:
                        del self.faults[i]
                    return f
        return None

    def _take_spend_limit(self) -> Fault | None:
        """A queued spend-limit fault (`spend_limit()`), for an endpoint with no prompt (a batch create)."""
        with self._lock:
            for i, f in enumerate(self.faults):
                if f.kind == "status" and (f.args.get("details") or {}).get("error_code") == \
                        "enforced_spend_limit_reached":
                    f.times -= 1
                    if f.times <= 0:
                        del self.faults[i]
                    return f
        return None

    def _prefill_ok(self, body: dict) -> bool:
        if body.get("thinking") and body["thinking"].get("type") != "disabled":
            return False  # prefill is not supported with extended thinking
        if self.allow_prefill is not None:
            return self.allow_prefill
        from ..providers.anthropic.models import model_info

        return model_info(str(body.get("model"))).prefill

    def _min_cache(self, model: str) -> int:
        if self.min_cache_tokens or not self.cache_rules:
            return self.min_cache_tokens
        from ..providers.anthropic.models import model_info

        return model_info(model).min_cache_tokens

    @staticmethod
    def _blocks(body: dict) -> list[tuple[str, bool]]:
        """The request as (text, is_breakpoint) pieces in prompt order: system blocks, then each
        message's content blocks (with its role, so the same text in another turn differs)."""
        out: list[tuple[str, bool]] = []
        system = body.get("system")
        for b in ([{"type": "text", "text": system}] if isinstance(system, str) else list(system or [])):
            if isinstance(b, dict):
                out.append((str(b.get("text", "")), bool(b.get("cache_control"))))
        for m in body.get("messages") or []:
            if not isinstance(m, dict):
                continue
            content = m.get("content")
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
            out.append((f"\x00{m.get('role')}\x00", False))
            for b in blocks:
                if isinstance(b, dict):
                    out.append((str(b.get("text", "")), bool(b.get("cache_control"))))
        return out

    def billed_usage(self, body: dict, input_tokens: int, created: int, read: int, output_tokens: int,
                     batch: bool = False) -> dict[str, Any]:
        """The response's `usage` as the API bills it, with `cache_creation` split by TTL: each
        written span takes the `ttl` of the breakpoint that ends it (`"1h"`, or 5 minutes when
        absent). Recorded in `self.billed`, so a test can price what was returned on its own."""
        minimum = max(1, self._min_cache(str(body.get("model"))))
        one_hour, before, texts = 0, 0, []
        for (text, mark), ttl in zip(self._blocks(body), self._ttls(body), strict=True):
            texts.append(text)
            if not mark:
                continue
            n = tokens("".join(texts).replace("\x00user\x00", "").replace("\x00assistant\x00", ""))
            if n < minimum:
                continue  # a breakpoint below the minimum caches nothing (as in _usage)
            if ttl == "1h":  # the part of (before, n] that this request wrote: (read, read + created]
                one_hour += max(0, min(n, read + created) - max(before, read))
            before = n
        one_hour = min(one_hour, created)
        usage = {"input_tokens": input_tokens, "cache_creation_input_tokens": created,
                 "cache_read_input_tokens": read, "output_tokens": output_tokens,
                 "cache_creation": {"ephemeral_5m_input_tokens": created - one_hour,
                                    "ephemeral_1h_input_tokens": one_hour}}
        with self._lock:
            self.billed.append({"model": str(body.get("model")), "usage": usage, "batch": batch})
        return usage

    @staticmethod
    def _ttls(body: dict) -> list[str | None]:
        """The `cache_control.ttl` of each piece of `_blocks(body)`, in the same order."""
        def ttl(b: dict) -> str | None:
            cc = b.get("cache_control")
            return cc.get("ttl") if isinstance(cc, dict) else None

        out: list[str | None] = []
        system = body.get("system")
        for b in ([{"type": "text", "text": system}] if isinstance(system, str) else list(system or [])):
            if isinstance(b, dict):
                out.append(ttl(b))
        for m in body.get("messages") or []:
            if not isinstance(m, dict):
                continue
            content = m.get("content")
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
            out.append(None)
            out += [ttl(b) for b in blocks if isinstance(b, dict)]
        return out

    def _usage(self, body: dict, remember: bool) -> tuple[int, int, int]:
        """(input_tokens, cache_creation_input_tokens, cache_read_input_tokens). Like the API,
        each `cache_control` block is a breakpoint: the longest prefix seen before is read from
        the cache, what follows it up to the last breakpoint is written."""
        blocks = self._blocks(body)
        if self.compatible is not None:  # no prompt cache: every token is read afresh
            return tokens("".join(t for t, _ in blocks if not t.startswith("\x00"))), 0, 0
        model = str(body.get("model"))
        minimum = self._min_cache(model)
        texts: list[str] = []
        marks: list[tuple[int, str]] = []  # (tokens up to the breakpoint, key)
        for text, mark in blocks:
            texts.append(text)
            if mark:
                prefix = "".join(texts)
                n = tokens(prefix.replace("\x00user\x00", "").replace("\x00assistant\x00", ""))
                if n >= max(1, minimum):
                    marks.append((n, hashlib.sha256((model + "\0" + prefix).encode()).hexdigest()))
        total = tokens("".join(t for t, _ in blocks if not t.startswith("\x00")))
        if not marks:
            return total, 0, 0
        cached = marks[-1][0]
        read = 0
        with self._lock:
            for n, key in reversed(marks):
                if key in self._cache:
                    read = n
                    break
            if remember:
                self._cache.update(k for _, k in marks)
        return total - cached, cached - read, read

    def _answer(self, body: dict, fault: Fault | None) -> tuple[str, str]:
        """The text of this response and its stop reason."""
        r = self._reply(body, fault)
        return r.text, r.stop

    def _reply(self, body: dict, fault: Fault | None) -> Reply:
        """The response: its text, stop reason, thinking tokens and stop details."""
        messages = body.get("messages") or []
        first = dict(body)
        first["messages"] = messages[:1]
        schema = _json_schema(body)
        continuing = any(m.get("role") == "assistant" for m in messages[1:] if isinstance(m, dict))
        if schema is not None and continuing:
            with self._lock:
                self.structured_continuations += 1
        plan = self.model_like.plan(body, json.dumps([body.get("system"), messages[:1]], sort_keys=True, default=str),
                                    continuing, schema is not None)
        if plan.refusal:
            text, _ = self._text(body, fault, first, schema, Plan())
            return Reply(text[: max(1, len(text) // 3)], "refusal", plan.thinking_tokens, dict(REFUSAL))
        if plan.thinking_tokens >= int(body.get("max_tokens") or 0) > 0:
            return Reply("", "max_tokens", int(body["max_tokens"]))  # it thought until the budget ran out
        text, stop = self._text(body, fault, first, schema, plan)
        return Reply(text, stop, plan.thinking_tokens)

    def _text(self, body: dict, fault: Fault | None, first: dict, schema: dict | None, plan: Plan) -> tuple[str, str]:
        kind = fault.kind if fault else None
        args = fault.args if fault else {}
        messages = body.get("messages") or []
        if kind == "malformed":
            full = str(args.get("text", ""))
        elif kind == "empty":
            return "", "end_turn"
        elif schema is not None and not getattr(self.answerer, "structured", False):
            from .schema_instance import instance

            prompt = block_text(messages[0].get("content")) if messages else ""
            full = json.dumps(instance(schema, prompt), ensure_ascii=False, indent=1)
        else:
            full = dress(self.answerer(first), plan)
        assistant = [block_text(m.get("content")) for m in messages[1:] if m.get("role") == "assistant"]
        already = assistant[-1] if assistant else ""
        if already and (schema is not None or kind == "restart"):
            rest = full  # under a schema the model starts a new JSON object at `{`: the join cannot parse
        elif already:
            if full.startswith(already):
                rest = full[len(already):]
            else:  # the client altered the text: continue from where it still agrees
                k = 0
                while k < min(len(full), len(already)) and full[k] == already[k]:
                    k += 1
                with self._lock:
                    self.diverged += 1
                rest = full[k:]
        else:
            rest = full
        if already and plan.restate and schema is None:
            rest = restated(already, rest)
            self.model_like._count("restate")
        if kind == "marker_text":
            mid = len(rest) // 2
            nl = rest.find("\n", mid)
            mid = nl + 1 if nl >= 0 else mid
            rest = rest[:mid] + str(args.get("text", DEFAULT_MARKER)) + "\n" + rest[mid:]
        if kind == "refusal":
            return rest[: max(1, len(rest) // 3)], "refusal"
        if kind == "max_tokens":
            cut = max(1, int(len(rest) * float(args.get("at", 0.5))))
            return rest[:cut], "max_tokens"
        if kind == "no_message_stop":
            return rest[: max(1, len(rest) // 2)], "end_turn"
        limit = max(1, int(body.get("max_tokens") or 0) - plan.thinking_tokens) * 4 if body.get("max_tokens") else 0
        if limit and len(rest) > limit:
            return rest[:limit], "max_tokens"
        # A cut keeps at least one character past the leading whitespace: a real max_tokens
        # budget is thousands of tokens, and a continuation of only the whitespace that was held
        # back makes no progress (the identical next request would be cut identically).
        lo = len(rest) - len(rest.lstrip()) + 1
        if self.cut_share > 0 and lo < len(rest):
            seed = hashlib.sha256(f"{self.cut_seed}\0{json.dumps(messages, sort_keys=True)}".encode()).hexdigest()
            rng = random.Random(seed)
            if rng.random() < self.cut_share:
                with self._lock:
                    self.cuts += 1
                return rest[: rng.randrange(lo, len(rest))], "max_tokens"
        return rest, "end_turn"

    def _pieces(self, text: str) -> list[str]:
        n = self.chunk_chars
        return [text[i:i + n] for i in range(0, len(text), n)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m orchestrator.testing.fake_api",
                                 description="A fake Anthropic Messages API on 127.0.0.1, "
                                             "for tests and demos.")
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--latency", type=float, default=0.0, help="seconds before each response")
    ap.add_argument("--delta-delay", type=float, default=0.0, help="seconds between streamed chunks")
    ap.add_argument("--verbose", action="store_true", help="log each request line (never headers)")
    ap.add_argument("--cut", default="", help="SHARE:SEED: cut that share of answers at max_tokens (e.g. 0.3:7)")
    ap.add_argument("--cache-rules", action="store_true",
                    help="model the real cache rules (minimum length; no read before the first write started)")
    ap.add_argument("--model-like", default="", help="SHARE:SEED[:quirks]: behave like a real model on that share "
                    "of answers (thinking, preamble, closing, restate, refusal; see fake_model.py), e.g. 0.3:7")
    ap.add_argument("--message-fail-rate", type=float, default=0.0,
                    help="share of POST /v1/messages calls answered 500/529 (e.g. 0.05)")
    ap.add_argument("--compatible", default="", help="WINDOW[:OFF_CONTRACT[:SEED]]: answer like a local server "
                    "(no output_config, cache, batches, count_tokens; that context window; that share of answers "
                    "off their contract), e.g. 8192:0.2:3")
    ap.add_argument("--ignore-output-config", action="store_true",
                    help="with --compatible: ignore output_config instead of refusing it with a 400")
    ap.add_argument("--listing", default="", choices=["", "llama.cpp", "ollama", "vllm", "anthropic"],
                    help="with --compatible: serve that server's model listing (its limits), e.g. llama.cpp")
    from . import fake_batches

    fake_batches.add_arguments(ap)
    ns = ap.parse_args(argv)
    compat = None
    if ns.compatible:
        from .fake_compatible import Compatible

        window, _, rest = ns.compatible.partition(":")
        rate, _, cseed = rest.partition(":")
        compat = Compatible(window=int(window), off_contract=float(rate or 0), seed=int(cseed or 0),
                            reject_output_config=not ns.ignore_output_config, listing=ns.listing)
    from .role_answers import answer  # every role answered in the format its prompt asks for

    share, _, seed = ns.cut.partition(":")
    fake = FakeAPI(answer, host=ns.host, port=ns.port, latency=ns.latency, delta_delay=ns.delta_delay,
                   verbose=ns.verbose, cache_rules=ns.cache_rules,
                   cut_share=float(share) if share else None, cut_seed=int(seed or 0),
                   model_like=ModelLike.from_spec(ns.model_like) if ns.model_like else None, compatible=compat)
    fake_batches.configure(fake, ns)
    fake.message_fail_rate = min(1.0, max(0.0, ns.message_fail_rate))
    url = fake.start()
    print(f"fake Anthropic API listening on {url}", file=sys.stderr)
    print(f"  export ANTHROPIC_BASE_URL={url} ANTHROPIC_API_KEY=sk-ant-dummy", file=sys.stderr)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
