"""The cache gate (providers/anthropic/gate.py) keeps a prefix warm for the lifetime it was
written with: a 1-hour breakpoint is still read 10 minutes later, a 5-minute one is new again."""

from __future__ import annotations

import asyncio

from orchestrator.providers.anthropic.gate import CacheGate, window
from orchestrator.providers.anthropic.params import build_params, prefix_keys, prefix_ttls
from orchestrator.providers.anthropic.settings import resolve_settings
from orchestrator.providers.base import Request


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def _written(gate: CacheGate, key: str, ttl: str) -> None:
    """A leader claims `key` and its stream starts: the prefix is in the cache."""
    assert asyncio.run(gate.enter(key, ttl)) is True
    gate.opened(key)


def test_a_prefix_lives_as_long_as_the_ttl_it_was_written_with():
    clock = Clock()
    gate = CacheGate(timeout=0.01, clock=clock)
    _written(gate, "book-1h", "1h")
    _written(gate, "book-5m", "5m")
    clock.t += 600  # ten minutes without a read: past 5 minutes, well within 1 hour
    assert asyncio.run(gate.enter("book-1h", "1h")) is False  # still cached: it reads, leads nothing
    assert asyncio.run(gate.enter("book-5m", "5m")) is True  # expired: this one writes it again
    gate.opened("book-5m")
    # a read refreshes the lifetime: the 1-hour prefix read at +10 min lives to +10 min + 1 h
    clock.t += 3400
    assert asyncio.run(gate.enter("book-1h", "1h")) is False
    clock.t += window("1h") + 1
    assert asyncio.run(gate.enter("book-1h", "1h")) is True
    assert gate.waited == 0  # every entry found its prefix warm or led: nobody waited on a leader


def test_the_window_is_the_ttl_less_a_margin_and_defaults_to_five_minutes():
    assert window("5m") == window(None) == 270.0
    assert 3500 < window("1h") < 3600


def test_enter_all_gives_each_prefix_its_own_ttl():
    clock = Clock()
    gate = CacheGate(timeout=0.01, clock=clock)
    assert asyncio.run(gate.enter_all(["book", "material"], ["1h", "5m"])) == ["book", "material"]
    gate.opened_all(["book", "material"])
    clock.t += 400
    # the book's block (1 hour) is read; the material (5 minutes) is gone and is led again
    assert asyncio.run(gate.enter_all(["book", "material"], ["1h", "5m"])) == ["material"]


def test_prefix_ttls_follow_the_breakpoints_of_the_request():
    req = Request(role="r2", step="r2", chapter="ch05", shared="book " * 1200, material="draft line " * 800,
                  system="You are r2. " + "instructions " * 600, prompt="Review it.", model="claude-sonnet-5-5",
                  max_tokens=4000, material_ttl="1h")
    s = resolve_settings("claude-sonnet-5-5", 4000) | {"cache_ttl": "1h"}  # a gate may make a person wait
    p = build_params(req, s)
    ttls = prefix_ttls(p)
    assert len(ttls) == len(prefix_keys(p)) == 3
    assert ttls == ["1h", "1h", "5m"]  # the book, the material across the review gate, the role's own
    plain = build_params(Request(**{**req.__dict__, "material_ttl": None}), resolve_settings("claude-sonnet-5-5", 4000))
    assert set(prefix_ttls(plain)) == {"5m"}
