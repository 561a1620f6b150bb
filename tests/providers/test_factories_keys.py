"""A provider aimed at the vendor's own API without a key fails at once, clearly, and sends nothing."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from agentsm_fn.llm import LlmFailure, LlmFailureKind, LlmRequest, UserMessage
from agentsm_fn.providers import anthropic_provider, openai_provider

REQUEST = LlmRequest(model="m", messages=(UserMessage("hi"),))


def _refuse(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"nothing may be sent, but {request.url} was")


@pytest.mark.parametrize(
    ("factory", "variable"), [(openai_provider, "OPENAI_API_KEY"), (anthropic_provider, "ANTHROPIC_API_KEY")]
)
def test_no_key_for_the_official_api_is_a_configuration_failure(factory: object, variable: str) -> None:
    client = httpx.Client(transport=httpx.MockTransport(_refuse))
    provider = factory("m", env={}, client=client)  # type: ignore[operator]  # one of the two factories
    outcome = provider.complete(REQUEST)
    assert isinstance(outcome, LlmFailure)
    assert outcome.kind is LlmFailureKind.CONFIGURATION
    assert variable in outcome.message
    assert isinstance(asyncio.run(provider.acomplete(REQUEST)), LlmFailure)


def test_a_compatible_server_needs_no_key() -> None:
    client = httpx.Client(
        transport=httpx.MockTransport(lambda r: httpx.Response(500, json={"error": {"message": "x"}}))
    )
    provider = openai_provider("m", env={}, base_url="http://127.0.0.1:9/v1", client=client)
    assert provider.missing_key == ""
