"""A server's tool list as our definitions (pure): names, schemas, policy, what is left out."""

from __future__ import annotations

import re

import mcp_types as types
from hypothesis import given
from hypothesis import strategies as st

from agentsm_fn.llm.json import thaw
from agentsm_fn.mcp import agent_tool_name, mcp_listing

OBJECT = {"type": "object"}


def tool(name: str, **extra: object) -> types.Tool:
    return types.Tool.model_validate({"name": name, "inputSchema": OBJECT, **extra})


@given(st.one_of(st.none(), st.from_regex(r"[A-Za-z0-9_-]{1,8}", fullmatch=True)), st.text(min_size=1))
def test_agent_names_only_use_characters_every_provider_accepts(prefix: str | None, name: str) -> None:
    agent_name = agent_tool_name(prefix, name)
    assert re.fullmatch(r"[A-Za-z0-9_-]+", agent_name)
    assert agent_name.startswith(f"{prefix}_") if prefix else len(agent_name) == len(name)


def test_the_prefix_names_the_tools_and_the_server_names_are_kept() -> None:
    listing = mcp_listing("files", [tool("read.file"), tool("write")], prefix="fs")
    assert [(t.name, t.remote_name, t.server) for t in listing.tools] == [
        ("fs_read_file", "read.file", "files"),
        ("fs_write", "write", "files"),
    ]


def test_two_tools_that_would_share_a_name_keep_the_first_and_say_why() -> None:
    listing = mcp_listing("s", [tool("a.b"), tool("a_b")])
    assert [t.remote_name for t in listing.tools] == ["a.b"]
    assert listing.skipped == ("'a_b': its name 'a_b' is taken by 'a.b'",)


def test_needs_approval_is_all_none_or_the_named_tools() -> None:
    tools = [tool("read"), tool("delete")]
    assert [t.definition.needs_approval for t in mcp_listing("s", tools, needs_approval=True).tools] == [
        True,
        True,
    ]
    assert [t.definition.needs_approval for t in mcp_listing("s", tools).tools] == [False, False]
    named = mcp_listing("s", tools, prefix="p", needs_approval={"delete"}).tools  # the server's names
    assert [t.definition.needs_approval for t in named] == [False, True]


def test_description_schema_output_schema_and_hints_are_carried() -> None:
    listed = tool(
        "weather",
        description="The weather",
        inputSchema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        outputSchema={"type": "object", "properties": {"celsius": {"type": "number"}}},
        annotations={"title": "Weather", "readOnlyHint": True, "destructiveHint": False},
    )
    (weather,) = mcp_listing("w", [listed], timeout=3.0).tools
    assert weather.definition.description == "The weather" and weather.definition.timeout == 3.0
    assert weather.definition.argument_problems({"city": 1}) == "city: 1 is not of type 'string'"
    assert thaw(weather.output_schema) == {"type": "object", "properties": {"celsius": {"type": "number"}}}
    assert (weather.title, weather.read_only, weather.destructive) == ("Weather", True, False)


def test_a_tool_without_a_description_falls_back_to_its_title() -> None:
    (titled,) = mcp_listing("s", [tool("t", title="A title")]).tools
    assert titled.definition.description == "A title"


def test_an_invalid_input_schema_fails_each_call_as_data_not_the_listing() -> None:
    (odd,) = mcp_listing(
        "s", [tool("odd", inputSchema={"type": "object", "properties": {"x": {"type": 5}}})]
    ).tools
    problems = odd.definition.argument_problems({"x": 1})
    assert problems is not None and problems.startswith("the tool's schema is invalid")
