"""The regression tests' shared fixtures: aimock (the live model re-recording runs against)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.providers.conftest import Aimock, aimock_server
from tests.regression import weather

__all__ = ["aimock_server"]


@pytest.fixture
def aimock(aimock_server: Aimock, monkeypatch: pytest.MonkeyPatch) -> Iterator[Aimock]:
    """aimock with its fixtures loaded, as the weather assistant's live model (read from the environment)."""
    aimock_server.reset()
    monkeypatch.setenv("OPENAI_BASE_URL", f"{aimock_server.base}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key-not-a-secret")
    yield aimock_server
    while weather.CLIENT:
        weather.CLIENT.pop().close()
