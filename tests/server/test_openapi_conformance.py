"""The server against its own OpenAPI document: schemathesis generates requests for every operation
(valid and invalid bodies, path parameters and query strings); no answer is a 500, and every answer
matches the document (status, content type, body schema). Threads' turns are runs of the thread
tests' chatter (a message beginning ``ask:`` waits, so busy threads are met too).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import checks
from schemathesis.core.result import Ok
from schemathesis.schemas import APIOperation

from agentsm_fn.durable import SqliteStore
from agentsm_fn.server import create_app
from tests.durable.machines import DURABLE_ORDERS
from tests.server.live import orders_store
from tests.threads.chatter import CHATTY

TOKEN = "conformance-token-0123456789"
HEADERS = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def cases() -> Iterator[st.SearchStrategy[schemathesis.Case[APIOperation[Any, Any, Any, Any]]]]:
    store: SqliteStore = orders_store(Path(tempfile.mkdtemp()) / "runs.db")
    with closing(store):
        app = create_app(store, [DURABLE_ORDERS, CHATTY], token=TOKEN)
        schema = schemathesis.openapi.from_asgi("/openapi.json", app, headers=HEADERS)
        operations = [result.ok() for result in schema.get_all_operations() if isinstance(result, Ok)]
        assert len(operations) >= 20  # the runs' routes and the threads'

        yield st.one_of([operation.as_strategy() for operation in operations])


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_operation_answers_as_documented_and_never_500(
    cases: st.SearchStrategy[schemathesis.Case[APIOperation[Any, Any, Any, Any]]], data: st.DataObject
) -> None:
    case = data.draw(cases)
    # A well-formed request may still be refused: a run id or cursor this store does not have, a
    # memory whose values do not fit the machine's types (which the document cannot spell out).
    case.call_and_validate(headers=HEADERS, excluded_checks=[checks.positive_data_acceptance])
