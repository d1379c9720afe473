"""The model table (orchestrator/data/models.yaml, issue 21 part 8): every model id in it is one
the installed SDK names (anthropic.types.Model), the limits are those of the models overview,
end-of-life ids are flagged, `xhigh`/`max` effort only where the model takes it, and the token
count of a request includes its structured-output schema."""

from __future__ import annotations

import asyncio
import typing

import pytest

from orchestrator.providers.anthropic import build_params, resolve_settings
from orchestrator.providers.anthropic.models import (
    clamp_effort,
    end_of_life,
    is_family_key,
    load_models,
    load_retired,
    model_info,
    model_warnings,
)
from orchestrator.providers.anthropic.settings import check_role
from orchestrator.providers.anthropic.tokens import TokenGate
from orchestrator.providers.base import Request


def sdk_models() -> set[str]:
    from anthropic.types import Model

    out: set[str] = set()
    stack = list(typing.get_args(Model))
    while stack:
        a = stack.pop()
        if isinstance(a, str):
            out.add(a)
        else:
            stack += list(typing.get_args(a))
    return out


def test_every_model_id_of_the_table_is_in_the_installed_sdk_s_model_list():
    sdk = sdk_models()
    assert len(sdk) > 10
    ids = [k for k in load_models() if not is_family_key(k)]
    assert ids and sorted(set(ids) - sdk) == []
    # the retired ids are not model entries: the API refuses them, and the SDK dropped most of them
    assert not set(load_retired()) & set(load_models())


@pytest.mark.parametrize(("model", "window", "output"), [
    ("claude-sonnet-5-5", 1_000_000, 128_000),  # once listed with 64k output
    ("claude-haiku-5-5", 1_000_000, 128_000),  # once guessed at 200k / 64k
    ("claude-opus-5-5", 1_000_000, 128_000),
    ("claude-haiku-4-5", 200_000, 64_000),
])
def test_limits_are_those_of_the_models_overview(model, window, output):
    info = model_info(model)
    assert info.known and (info.context_window, info.max_output) == (window, output)


@pytest.mark.parametrize("model", ["claude-sonnet-4-5", "claude-sonnet-4-5-20250929", "claude-opus-4-1",
                                   "claude-opus-4-20250514", "claude-sonnet-4", "claude-mythos-preview",
                                   "claude-opus-4-5"])
def test_end_of_life_ids_are_flagged(model):
    why = end_of_life(model)
    assert why and ("retired" in why or "deprecated" in why)
    assert why in model_warnings(model)


@pytest.mark.parametrize("model", ["claude-sonnet-5-5", "claude-opus-4-8", "claude-haiku-5-5", "claude-sonnet-4-6"])
def test_current_ids_are_not(model):
    assert end_of_life(model) is None


@pytest.mark.parametrize(("model", "level", "ok"), [
    ("claude-opus-4-8", "max", True), ("claude-opus-4-8", "xhigh", True), ("claude-sonnet-5-5", "xhigh", True),
    ("claude-sonnet-4-6", "max", True), ("claude-sonnet-4-6", "xhigh", False), ("claude-opus-4-6", "xhigh", False),
    ("claude-opus-4-5", "max", False), ("claude-opus-4-5", "high", True), ("claude-haiku-4-5", "low", False),
    ("claude-mythos-preview", "xhigh", False),
])
def test_xhigh_and_max_effort_only_where_the_model_takes_them(model, level, ok):
    if ok:
        assert check_role("writer", {"model": model, "effort": level}, model)["effort"] == level
    else:
        with pytest.raises(ValueError, match="effort"):
            check_role("writer", {"model": model, "effort": level}, model)


def test_the_token_count_includes_the_schema():
    """count_tokens gets the request's output_config, so the schema's tokens count against the window."""
    schema = {"type": "object", "properties": {"notes": {"type": "string", "description": "x " * 3000}},
              "required": ["notes"], "additionalProperties": False}
    req = Request(role="r1_code", step="r1", chapter="ch01", system="S", prompt="p " * 10,
                  model="claude-haiku-4-5", output_schema=schema)
    params = build_params(req, resolve_settings("claude-haiku-4-5", 1000))
    seen: list[dict] = []

    class Client:
        class messages:  # noqa: N801 - the SDK's attribute name
            @staticmethod
            async def count_tokens(**kw):
                seen.append(kw)
                return type("R", (), {"input_tokens": 7000})()

    gate = TokenGate()
    params["messages"][0]["content"][0]["text"] = "p " * 200_000  # past half the 200k window
    assert asyncio.run(gate.check(Client(), params)) == 7000
    assert seen and seen[0]["output_config"]["format"]["schema"] == schema


def test_a_wanted_effort_is_clamped_to_what_the_model_takes():
    assert clamp_effort("claude-opus-4-8", "max") == "max"
    assert clamp_effort("claude-sonnet-4-6", "xhigh") == "high"
    assert clamp_effort("claude-opus-4-5", "max") == "high"
    assert clamp_effort("claude-haiku-4-5", "low") is None
    assert clamp_effort("claude-sonnet-5-5", None) is None
