"""A whole ReAct run whose LLM is aimock (each provider) and whose tool is on the MCP reference server."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from agentsm_fn.agents.react import ReactCompleted
from agentsm_fn.mcp import McpClient
from agentsm_fn.shell.react_agent import AgentBuilder
from tests.mcp.conftest import everything_client, require_everything
from tests.providers.conftest import Aimock, Sleeps
from tests.providers.openapi import assert_matches_spec
from tests.providers.peer import PROVIDERS, make, requests_sent
from tests.providers.sdk_types import assert_anthropic_turn_rules, assert_valid_request


@pytest.fixture(scope="module")
def everything() -> Iterator[McpClient]:
    with everything_client(require_everything(), prefix="everything") as client:
        yield client


@pytest.mark.parametrize("kind", PROVIDERS)
def test_the_llm_calls_an_mcp_tool_and_answers_from_its_result(
    kind: str, aimock: Aimock, everything: McpClient
) -> None:
    provider = make(kind, aimock, Sleeps())
    agent = (
        AgentBuilder.new("What is the sum of 19 and 23 with MCP?").llm(provider).tools(*everything.tools())
    )
    done = agent.build().unwrap().run().unwrap()
    assert isinstance(done, ReactCompleted) and done.answer == "19 + 23 = 42, says the MCP reference server."
    sent = requests_sent(aimock)
    for path, body in sent:
        assert_matches_spec(path, body)  # the provider's OpenAPI description
        if (
            kind != "ollama"
        ):  # Ollama keeps a small subset of JSON Schema ($schema, default, minimum... are dropped)
            assert_valid_request(path, body)  # exactly a request of the provider's own SDK
        if path == "/v1/messages":
            assert_anthropic_turn_rules(body)
    assert len(sent) == 2
    offered = json.dumps(sent[0][1]["tools"])
    assert "everything_get-sum" in offered and "Returns the sum of two numbers" in offered
    assert "The sum of 19 and 23 is 42." in json.dumps(sent[1][1])  # the server's result went back to the LLM
