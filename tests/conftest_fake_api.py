"""Fixtures for tests that talk to the fake Messages API through the real SDK. Import them
into a test module: `from conftest_fake_api import fake_api, DUMMY_KEY  # noqa: F401`."""

from __future__ import annotations

import pytest

from orchestrator.testing.fake_api import FakeAPI

DUMMY_KEY = "sk-ant-test-SECRET123"
# Everything in the environment that the SDK would read besides these two.
OTHER_SDK_ENV = ("ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE", "ANTHROPIC_CONFIG_DIR",
                 "ANTHROPIC_CUSTOM_HEADERS", "ANTHROPIC_IDENTITY_TOKEN", "ANTHROPIC_IDENTITY_TOKEN_FILE",
                 "ANTHROPIC_FEDERATION_RULE_ID", "ANTHROPIC_ORGANIZATION_ID", "ANTHROPIC_LOG")


@pytest.fixture
def fake_api(monkeypatch: pytest.MonkeyPatch):
    """A started FakeAPI, with ANTHROPIC_BASE_URL pointing at it and a dummy key set."""
    fake = FakeAPI()
    url = fake.start()
    monkeypatch.setenv("ANTHROPIC_API_KEY", DUMMY_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    for var in OTHER_SDK_ENV:
        monkeypatch.delenv(var, raising=False)
    try:
        yield fake
    finally:
        fake.stop()
