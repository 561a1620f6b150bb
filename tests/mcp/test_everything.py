"""The client against the protocol's reference server, @modelcontextprotocol/server-everything (stdio)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agentsm_fn.agents.react import ReactCompleted
from agentsm_fn.agents.react.effects import RunTool
from agentsm_fn.llm import LlmReply, ToolCall
from agentsm_fn.llm.json import thaw
from agentsm_fn.mcp import McpClient
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.shell.scripted_llm import ScriptedLlm
from agentsm_fn.shell.tools import ToolRunner
from tests.mcp.conftest import everything_client


@pytest.fixture(scope="module")
def everything(everything_command: tuple[str, ...]) -> Iterator[McpClient]:
    with everything_client(everything_command, prefix="everything", timeout=30.0) as client:
        yield client


def observe(client: McpClient, tool: str, timeout: float | None = None, **arguments: object) -> str:
    call = RunTool(ToolCall(id="c1", name=f"everything_{tool}", arguments=arguments), timeout=timeout)
    return ToolRunner(client.registry()).run_one(call).observation


def test_its_tools_are_listed_with_their_draft_07_schemas(everything: McpClient) -> None:
    tools = {tool.remote_name: tool for tool in everything.listing().tools}
    assert {
        "echo",
        "get-sum",
        "get-tiny-image",
        "get-structured-content",
        "trigger-long-running-operation",
    } <= set(tools)
    echo = tools["echo"].definition
    assert echo.name == "everything_echo" and echo.description == "Echoes back the input string"
    assert thaw(echo.parameters["$schema"]) == "http://json-schema.org/draft-07/schema#"
    assert echo.argument_problems({"message": 3}) == "message: 3 is not of type 'string'"
    structured = tools["get-structured-content"].output_schema
    assert structured is not None and thaw(structured["required"]) == [
        "temperature",
        "conditions",
        "humidity",
    ]
    assert tools["echo"].read_only is True


def test_text_results(everything: McpClient) -> None:
    assert observe(everything, "echo", message="hi") == "SUCCESS: Echo: hi"
    assert observe(everything, "get-sum", a=19, b=23) == "SUCCESS: The sum of 19 and 23 is 42."


def test_images_resources_and_structured_content_are_text_for_the_model(everything: McpClient) -> None:
    image = observe(everything, "get-tiny-image")
    assert image.startswith("SUCCESS: Here's the image you requested:\n[image image/png, ")
    assert image.endswith(" bytes]\nThe image above is the MCP logo.")
    weather = observe(everything, "get-structured-content", location="Chicago")
    assert weather == 'SUCCESS: {"temperature":36,"conditions":"Light rain / drizzle","humidity":82}'
    reference = observe(everything, "get-resource-reference", resourceType="Text", resourceId=1)
    assert (
        "[resource demo://resource/dynamic/text/1 (text/plain)]\nResource 1: This is a plaintext" in reference
    )
    links = observe(everything, "get-resource-links", count=2)
    assert "[resource link 'Text Resource 2' demo://resource/dynamic/text/2 (text/plain)" in links


def test_bad_arguments_never_reach_the_server(everything: McpClient) -> None:
    observation = observe(everything, "echo", message=3)
    assert observation == (
        "ERROR: McpInvalidArguments: arguments do not match the schema: message: 3 is not of type 'string'"
    )


def test_a_long_call_times_out_as_a_failure_and_the_session_goes_on(everything: McpClient) -> None:
    observation = observe(everything, "trigger-long-running-operation", timeout=0.5, duration=600, steps=2)
    assert observation == "ERROR: TimeoutError: no result within 0.5s"
    assert observe(everything, "echo", message="still here") == "SUCCESS: Echo: still here"


def test_a_react_run_uses_the_reference_server(everything: McpClient) -> None:
    llm = ScriptedLlm(
        [
            LlmReply(tool_calls=(ToolCall("c1", "everything_get-sum", {"a": 19, "b": 23}),)),
            LlmReply(content="19 + 23 = 42, by the reference server."),
        ]
    )
    agent = AgentBuilder.new("What is 19 + 23?").llm(llm).tools(*everything.tools()).build().unwrap()
    done = agent.run().unwrap()
    assert isinstance(done, ReactCompleted) and done.answer == "19 + 23 = 42, by the reference server."
    assert [entry.observation for entry in done.snapshot.memory.history] == [
        "SUCCESS: The sum of 19 and 23 is 42."
    ]
