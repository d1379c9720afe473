"""The Message Batches endpoints of the fake Messages API (`fake_api.py` routes
`/v1/messages/batches*` here). Like the real API:

- `POST /v1/messages/batches` {"requests": [{"custom_id", "params"}]} creates a batch
  (`processing_status: in_progress`); custom_ids must match `^[a-zA-Z0-9_-]{1,64}$` and be
  unique within the batch.
- `GET /v1/messages/batches/{id}` retrieves it; it ends `delay` seconds after creation
  (`--batch-delay`), and only then are `request_counts` and `results_url` filled in.
- `GET /v1/messages/batches?limit&after_id&before_id` lists batches, newest first.
- `GET /v1/messages/batches/{id}/results` streams the results as JSONL, not in request order.
- `POST /v1/messages/batches/{id}/cancel`: `canceling`, then ended with the requests that had
  not been processed `canceled`.

Each request of a batch is answered exactly as a non-streaming `POST /v1/messages` with the
same body would be: the same answerer, the same usage and prompt cache, and the same scripted
message faults (`fake.malformed(...)`, `fake.marker_text()`, `fake.max_tokens()`,
`fake.refusal()`, `fake.status(code)` → an `errored` result, ...).

Scripting, on the store (`store(fake)`):

    store(fake).outcome("errored", match="ch02", error_type="api_error")   one request errored
    store(fake).outcome("expired", match="ch03", times=2)                   expired (not processed)
    store(fake).fail(503, times=1, after=True)   the next batch-endpoint call fails with 503
                                                 after doing its work (a lost response)
    store(fake).error_rate = 0.05                a share of requests end `errored` (expire_rate: `expired`)
    store(fake).fail_rate = 0.15                 a share of batch-endpoint calls fail with 5xx; half
                                                 of the failing writes (create, cancel) fail after
                                                 doing their work, a failing results download is
                                                 cut off half way

    held = store(fake).hold("create", min_requests=2)   the next create of 2+ requests makes its
                                                 batch, then holds its response (the client
                                                 waits for it); "results": sends half of the
                                                 results of a 2+ request batch, then holds.
                                                 `held.reached` is set once holding: a test then
                                                 kills the client (a real kill -9 at that
                                                 instant); `held.release()` lets it go on.

`store(fake).received` lists every custom_id ever accepted into a batch, in order, so a test
can assert that none was submitted twice."""

from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import io
import json
import random
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

from .fake_wire import Fault, Reply


class FakeAPI(Protocol):
    """What the batch endpoints use of fake_api.FakeAPI, said here: fake_api.py imports this
    module to route `/v1/messages/batches`, and this module imports nothing of it."""

    host: str
    port: int
    latency: float
    allow_prefill: bool | None
    _lock: threading.Lock

    def _haystack(self, body: dict) -> str: ...

    def _take_fault(self, body: dict) -> Fault | None: ...

    def _take_spend_limit(self) -> Fault | None: ...

    def _reply(self, body: dict, fault: Fault | None) -> Reply: ...

    def _usage(self, body: dict, remember: bool) -> tuple[int, int, int]: ...

    def _next_id(self, prefix: str) -> str: ...

    def billed_usage(self, body: dict, input_tokens: int, created: int, read: int, output_tokens: int,
                     batch: bool = False) -> dict[str, Any]: ...


class _Server(Protocol):
    @property
    def fake(self) -> FakeAPI: ...


class _Handler(Protocol):
    """What the batch endpoints use of fake_api's request handler."""

    path: str
    headers: Any  # an email.message.Message
    wfile: io.BufferedIOBase

    @property
    def server(self) -> _Server: ...

    def send_response(self, code: int, message: str | None = None) -> None: ...

    def send_header(self, keyword: str, value: str) -> None: ...

    def end_headers(self) -> None: ...

    def _send_json(self, status: int, payload: dict, rid: str, extra: dict[str, str] | None = None) -> None: ...

    def _send_error(self, status: int, rid: str, message: str | None = None, error_type: str | None = None,
                    extra: dict[str, str] | None = None, details: dict | None = None) -> None: ...

    def _drop(self) -> None: ...

PREFIX = "/v1/messages/batches"
CUSTOM_ID_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MAX_REQUESTS = 100_000
FAIL_CODES = (500, 502, 503, 529)


def _iso(t: float | None) -> str | None:
    if t is None:
        return None
    stamp = _dt.datetime.fromtimestamp(t, _dt.UTC).isoformat(timespec="microseconds")
    return stamp.replace("+00:00", "Z")


@dataclass
class _Script:
    kind: str  # errored | expired | canceled
    match: str | None
    times: int
    error_type: str = "api_error"
    message: str = "scripted error"


@dataclass
class _EndpointFault:
    status: int
    times: int
    after: bool  # do the work, then fail (the response is lost)
    path: str | None  # only calls whose path contains this


@dataclass
class _Batch:
    id: str
    created: float
    requests: list[dict[str, Any]]
    delay: float
    status: str = "in_progress"
    cancel_at: float | None = None
    ended: float | None = None
    results: dict[str, dict[str, Any]] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        c = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        if self.status != "ended":
            c["processing"] = len(self.requests)  # tallies move only when the whole batch ends
            return c
        for r in self.results.values():
            c[r["type"]] += 1
        return c


@dataclass
class Hold:
    """A batch-endpoint call stopped at a point until released (see BatchStore.hold)."""
    point: str
    min_requests: int = 1
    reached: threading.Event = field(default_factory=threading.Event)
    released: threading.Event = field(default_factory=threading.Event)

    def release(self) -> None:
        self.released.set()

    def wait_here(self, limit: float = 120.0) -> None:
        self.reached.set()
        self.released.wait(limit)


class BatchStore:
    """The batches of one FakeAPI, and what is scripted for them."""

    def __init__(self, fake: FakeAPI, delay: float = 0.0, fail_rate: float = 0.0, seed: int = 0):
        self.fake = fake
        self.delay = delay
        self.fail_rate = fail_rate
        self.error_rate = 0.0  # share of requests that end `errored` (api_error)
        self.expire_rate = 0.0  # share of requests that end `expired`
        self.rng = random.Random(seed)
        self.batches: dict[str, _Batch] = {}
        self.received: list[str] = []
        self.scripts: list[_Script] = []
        self.faults: list[_EndpointFault] = []
        self.calls: list[tuple[str, str, int]] = []  # (method, path, status) of every batch-endpoint call
        self.lock = threading.RLock()
        self.holds: list[Hold] = []
        self._n = 0

    # ------------------------------------------------------------------ scripting

    def outcome(self, kind: str, match: str | None = None, times: int = 1,
                error_type: str = "api_error", message: str = "scripted error") -> BatchStore:
        """The next `times` requests whose custom_id or content contains `match` end `kind`."""
        if kind not in ("errored", "expired", "canceled"):
            raise ValueError(f"unknown batch outcome {kind!r}")
        with self.lock:
            self.scripts.append(_Script(kind, match, times, error_type, message))
        return self

    def fail(self, status: int = 500, times: int = 1, after: bool = False,
             path: str | None = None) -> BatchStore:
        with self.lock:
            self.faults.append(_EndpointFault(status, times, after, path))
        return self

    def hold(self, point: str, min_requests: int = 1) -> Hold:
        """Stop the next `point` call ("create": after the batch is made, before its response;
        "results": half way through the download) of a batch of at least `min_requests`."""
        if point not in ("create", "results"):
            raise ValueError(f"unknown hold point {point!r}")
        h = Hold(point, min_requests)
        with self.lock:
            self.holds.append(h)
        return h

    def _take_hold(self, point: str, n_requests: int) -> Hold | None:
        with self.lock:
            for i, h in enumerate(self.holds):
                if h.point == point and n_requests >= h.min_requests:
                    return self.holds.pop(i)
        return None

    # ------------------------------------------------------------------ state

    def _new_id(self) -> str:
        self._n += 1
        return f"msgbatch_fake{self._n:06d}{hashlib.sha256(str(time.time()).encode()).hexdigest()[:8]}"

    def _advance(self, b: _Batch) -> None:
        now = time.time()
        if b.status == "canceling" or (b.status == "in_progress" and now >= b.created + b.delay):
            for req in b.requests:
                cid = req["custom_id"]
                if cid not in b.results:
                    b.results[cid] = ({"type": "canceled"} if b.status == "canceling" else self._process(req))
            b.status, b.ended = "ended", now

    def _take_script(self, req: dict) -> _Script | None:
        hay = req["custom_id"] + "\n" + self.fake._haystack(req.get("params") or {})
        for i, s in enumerate(self.scripts):
            if s.match is None or s.match in hay:
                s.times -= 1
                if s.times <= 0:
                    del self.scripts[i]
                return s
        return None

    def _process(self, req: dict) -> dict[str, Any]:
        """The result of one request: what a non-streaming /v1/messages call would answer."""
        from .fake_wire import ERROR_TYPES, tokens

        script = self._take_script(req)
        if script is None and self.error_rate + self.expire_rate > 0:
            roll = self.rng.random()
            if roll < self.error_rate:
                script = _Script("errored", None, 1, "api_error", "random error (--batch-error-rate)")
            elif roll < self.error_rate + self.expire_rate:
                script = _Script("expired", None, 1)
        if script is not None:
            if script.kind == "errored":
                return _errored(script.error_type, script.message)
            return {"type": script.kind}
        fake = self.fake
        body = req.get("params") or {}
        for key in ("model", "max_tokens", "messages"):
            if key not in body:
                return _errored("invalid_request_error", f"{key}: Field required")
        if body.get("stream"):
            return _errored("invalid_request_error", "stream: batch requests cannot stream")
        messages = body.get("messages") or []
        if not messages:
            return _errored("invalid_request_error", "messages: at least one message is required")
        if messages[-1].get("role") == "assistant" and not fake.allow_prefill:
            return _errored("invalid_request_error", "This model does not support assistant message prefill.")
        fault = fake._take_fault(body)
        kind = fault.kind if fault else None
        if fault is not None and kind == "status":
            return _errored(ERROR_TYPES.get(int(fault.args["code"]), "api_error"), "scripted status")
        if kind in ("drop_mid_stream", "error_event", "no_message_stop"):
            return _errored("overloaded_error", "Overloaded")
        from .fake_wire import message_json

        reply = fake._reply(body, fault)
        input_tokens, created, read = fake._usage(body, remember=True)
        usage = fake.billed_usage(body, input_tokens, created, read, tokens(reply.text) + reply.thinking_tokens,
                                  batch=True)  # cache_creation split by TTL, recorded for the bill
        return {"type": "succeeded", "message": message_json(fake._next_id("msg"), body["model"], reply, usage)}

    def view(self, b: _Batch, base: str) -> dict[str, Any]:
        self._advance(b)
        return _plain_view(b, base)

    # ------------------------------------------------------------------ endpoint faults

    def _endpoint_fault(self, method: str, path: str) -> _EndpointFault | None:
        with self.lock:
            for i, f in enumerate(self.faults):
                if f.path is None or f.path in path:
                    f.times -= 1
                    if f.times <= 0:
                        del self.faults[i]
                    return f
            if self.fail_rate > 0 and self.rng.random() < self.fail_rate:
                return _EndpointFault(self.rng.choice(FAIL_CODES), 1, self.rng.random() < 0.5, None)
        return None


def _errored(etype: str, message: str) -> dict[str, Any]:
    return {"type": "errored", "error": {"type": "error", "error": {"type": etype, "message": message}}}


def store(fake: FakeAPI) -> BatchStore:
    """The batch store of `fake`, made on first use (so FakeAPI itself needs no change)."""
    with fake._lock:
        s = getattr(fake, "_batch_store", None)
        if s is None:
            s = BatchStore(fake)
            fake._batch_store = s  # type: ignore[attr-defined]  # FakeAPI knows nothing of batches: the store rides on it
        return s


def handle(handler: _Handler, method: str, body: dict | None, rid: str) -> None:
    """Answer one call to a batch endpoint."""
    fake = handler.server.fake
    st = store(fake)
    url = urlsplit(handler.path)
    path = url.path.rstrip("/")
    base = f"http://{handler.headers.get('host') or f'{fake.host}:{fake.port}'}"
    if fake.latency:
        time.sleep(fake.latency)
    if not (handler.headers.get("x-api-key") or handler.headers.get("authorization")):
        return _reply(handler, st, method, path, 401, rid, error="x-api-key header is required")
    if method == "POST" and path == PREFIX:  # the organization's spend limit refuses a batch too
        limit = fake._take_spend_limit()
        if limit is not None:
            with st.lock:
                st.calls.append((method, path, 429))
            return handler._send_error(429, rid, limit.args.get("message"), "rate_limit_error",
                                       {"x-should-retry": "false"}, limit.args.get("details"))
    fault = st._endpoint_fault(method, path)
    if fault is not None and not fault.after:
        return _reply(handler, st, method, path, fault.status, rid, error="injected failure")
    rest = path[len(PREFIX):].strip("/").split("/") if path != PREFIX else []
    with st.lock:
        if method == "POST" and not rest:
            status, payload = _create(st, body or {}, base)
        elif method == "GET" and not rest:
            status, payload = _list(st, parse_qs(url.query), base)
        elif len(rest) == 1 and method == "GET":
            b = st.batches.get(rest[0])
            status, payload = (200, st.view(b, base)) if b else (404, None)
        elif len(rest) == 2 and rest[1] == "cancel" and method == "POST":
            status, payload = _cancel(st, rest[0], base)
        elif len(rest) == 2 and rest[1] == "results" and method == "GET":
            b = st.batches.get(rest[0])
            if b is None:
                status, payload = 404, None
            else:
                st._advance(b)
                if b.status != "ended":
                    status, payload = 400, {"message": f"batch {b.id} is still {b.status}: no results yet"}
                else:
                    status, payload = 200, {"lines": _result_lines(b)}
        else:
            status, payload = 404, {"message": f"no route {method} {handler.path}"}
    if status == 200 and payload is not None and "lines" in payload:
        return _results(handler, st, payload["lines"], rid, fault, st._take_hold("results", len(payload["lines"])))
    if method == "POST" and not rest and status == 200 and payload is not None:
        h = st._take_hold("create", len((body or {}).get("requests") or []))
        if h is not None:  # the batch exists on the server; its creator has no answer yet
            h.wait_here()
    if fault is not None:  # the work is done, the response is lost
        return _reply(handler, st, method, path, fault.status, rid, error="injected failure after the work")
    if status != 200:
        msg = (payload or {}).get("message") if isinstance(payload, dict) else None
        return _reply(handler, st, method, path, status, rid, error=msg or f"not found: {path}")
    return _reply(handler, st, method, path, 200, rid, payload=payload)


def _reply(handler: _Handler, st: BatchStore, method: str, path: str, status: int, rid: str,
           payload: dict | None = None, error: str | None = None) -> None:
    with st.lock:
        st.calls.append((method, path, status))
    if status == 200:
        handler._send_json(200, payload or {}, rid)
    else:
        handler._send_error(status, rid, error)


def _create(st: BatchStore, body: dict, base: str) -> tuple[int, dict | None]:
    reqs = body.get("requests")
    if not isinstance(reqs, list) or not reqs:
        return 400, {"message": "requests: at least one request is required"}
    if len(reqs) > MAX_REQUESTS:
        return 400, {"message": f"requests: at most {MAX_REQUESTS} requests per batch"}
    seen: set[str] = set()
    for r in reqs:
        cid = r.get("custom_id") if isinstance(r, dict) else None
        if not isinstance(cid, str) or not CUSTOM_ID_RE.match(cid):
            return 400, {"message": f"requests: custom_id {cid!r} must match ^[a-zA-Z0-9_-]{{1,64}}$"}
        if cid in seen:
            return 400, {"message": f"requests: custom_id {cid!r} is not unique within the batch"}
        if not isinstance(r.get("params"), dict):
            return 400, {"message": f"requests: {cid}: params must be an object"}
        seen.add(cid)
    b = _Batch(st._new_id(), time.time(), [dict(r) for r in reqs], st.delay)
    st.batches[b.id] = b
    st.received.extend(r["custom_id"] for r in reqs)
    return 200, st.view(b, base)


def _list(st: BatchStore, query: dict[str, list[str]], base: str) -> tuple[int, dict]:
    order = sorted(st.batches.values(), key=lambda b: (b.created, b.id), reverse=True)  # newest first
    ids = [b.id for b in order]
    limit = max(1, min(1000, int((query.get("limit") or ["20"])[0])))
    after, before = next(iter(query.get("after_id") or []), None), next(iter(query.get("before_id") or []), None)
    if after in ids:
        page = order[ids.index(after) + 1:][:limit]
        more = ids.index(after) + 1 + limit < len(order)
    elif before in ids:
        end = ids.index(before)
        page = order[max(0, end - limit):end]
        more = end - limit > 0
    else:
        page = order[:limit]
        more = limit < len(order)
    data = [st.view(b, base) for b in page]
    return 200, {"data": data, "has_more": more, "first_id": data[0]["id"] if data else None,
                 "last_id": data[-1]["id"] if data else None}


def _cancel(st: BatchStore, bid: str, base: str) -> tuple[int, dict | None]:
    b = st.batches.get(bid)
    if b is None:
        return 404, None
    st._advance(b)
    if b.status == "in_progress":
        b.status, b.cancel_at = "canceling", time.time()
    return 200, _plain_view(b, base)  # `canceling`: it ends on the next look


def _plain_view(b: _Batch, base: str) -> dict[str, Any]:
    """The batch as it stands, without advancing it (a cancel answers `canceling`)."""
    return {"id": b.id, "type": "message_batch", "processing_status": b.status,
            "request_counts": b.counts(), "created_at": _iso(b.created),
            "expires_at": _iso(b.created + 86400), "ended_at": _iso(b.ended),
            "cancel_initiated_at": _iso(b.cancel_at), "archived_at": None,
            "results_url": f"{base}{PREFIX}/{b.id}/results" if b.status == "ended" else None}


def _result_lines(b: _Batch) -> list[str]:
    # Not in request order, as the API warns: a client must match results by custom_id.
    ids = sorted(b.results, key=lambda c: hashlib.sha256(c.encode()).hexdigest())
    return [json.dumps({"custom_id": c, "result": b.results[c]}) + "\n" for c in ids]


def _results(handler: _Handler, st: BatchStore, lines: list[str], rid: str,
             fault: _EndpointFault | None, hold: Hold | None = None) -> None:
    from .fake_wire import _Dropped

    data = "".join(lines).encode()
    with st.lock:
        st.calls.append(("GET", handler.path, 200 if fault is None else -1))
    handler.send_response(200)
    handler.send_header("content-type", "application/binary")
    handler.send_header("content-length", str(len(data)))
    handler.send_header("request-id", rid)
    handler.end_headers()
    if fault is not None:  # cut off half way through the download
        half = "".join(lines[: max(1, len(lines) // 2)]).encode()
        handler.wfile.write(half[: max(1, len(half) - 3)])
        try:
            handler._drop()
        except _Dropped:
            return
    if hold is not None:  # half the results sent, then stopped until released
        half = "".join(lines[: max(1, len(lines) // 2)]).encode()
        handler.wfile.write(half)
        handler.wfile.flush()
        hold.wait_here()
        data = data[len(half):]
    handler.wfile.write(data)
    handler.wfile.flush()


# ---------------------------------------------------------------------- command line

def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--batch-delay", type=float, default=0.0,
                    help="seconds a Message Batch takes to process")
    ap.add_argument("--batch-fail-rate", type=float, default=0.0,
                    help="share of batch-endpoint calls that fail with a 5xx (0..1)")
    ap.add_argument("--batch-error-rate", type=float, default=0.0,
                    help="share of requests in a batch that end `errored` (0..1)")
    ap.add_argument("--batch-expire-rate", type=float, default=0.0,
                    help="share of requests in a batch that end `expired` (0..1)")
    ap.add_argument("--batch-seed", type=int, default=0, help="seed of the random faults above")


def configure(fake: FakeAPI, ns: argparse.Namespace) -> None:
    st = store(fake)
    st.delay = max(0.0, float(ns.batch_delay))
    st.fail_rate = min(1.0, max(0.0, float(ns.batch_fail_rate)))
    st.error_rate = min(1.0, max(0.0, float(ns.batch_error_rate)))
    st.expire_rate = min(1.0 - st.error_rate, max(0.0, float(ns.batch_expire_rate)))
    st.rng.seed(ns.batch_seed)
