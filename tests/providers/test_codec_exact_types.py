"""Tool arguments and schemas that differ only by 1, 1.0 or true are sent as themselves.

Frozen JSON compares with ``==`` and 1 == 1.0 == True in Python: a codec memo keyed by
equality would send one conversation's arguments (or one tool's schema) for another's.
"""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from agentsm_fn.llm import AssistantMessage, LlmRequest, ToolCall, ToolResultMessage, ToolSpec, UserMessage
from agentsm_fn.providers.anthropic_codec import AnthropicCodec
from agentsm_fn.providers.codec import WireRequest
from agentsm_fn.providers.ollama_codec import OllamaCodec
from agentsm_fn.providers.openai_codec import OpenAiCodec, cached_function_tools

alike = st.sampled_from([1, 1.0, True, 0, 0.0, False])
CODECS = (OpenAiCodec(model="m"), OllamaCodec(model="m"), AnthropicCodec(model="m"))


def _found(value: object, key: str, into: list[object]) -> list[object]:
    """Every value under ``key`` in a parsed body (and in JSON text inside it, as OpenAI's arguments)."""
    if isinstance(value, dict):
        for k, item in value.items():
            if k == key:
                into.append(item)
            _found(item, key, into)
    elif isinstance(value, list):
        for item in value:
            _found(item, key, into)
    elif isinstance(value, str) and value.startswith("{"):
        _found(json.loads(value), key, into)
    return into


def _request(flag: object, choice: object) -> LlmRequest:
    call = ToolCall("c1", "set", {"flag": flag})
    schema = {"type": "object", "properties": {"choice": {"enum": [choice]}}}
    return LlmRequest(
        model="",
        messages=(
            UserMessage("go"),
            AssistantMessage(tool_calls=(call,)),
            ToolResultMessage("c1", "set", "ok"),
        ),
        tools=(ToolSpec("set", "Sets the flag", schema),),
    )


def _same(found: list[object], value: object) -> bool:
    return bool(found) and all(type(item) is type(value) and item == value for item in found)


@given(st.lists(st.tuples(alike, alike), min_size=1, max_size=4))
def test_each_request_is_sent_with_its_own_values(pairs: list[tuple[object, object]]) -> None:
    for flag, choice in pairs:  # fresh, equal-by-== values one after another: memos are warm
        request = _request(flag, choice)
        for codec in CODECS:
            for stream in (False, True):
                wire: WireRequest = codec.encode(request, stream=stream)
                body = json.loads(wire.body)
                assert _same(_found(body, "flag", []), flag), (codec.name, flag, wire.body)
                assert _same(_found(body, "enum", []), [choice]), (codec.name, choice, wire.body)


@given(alike, alike)
def test_cached_function_tools_keeps_each_schema(first: object, second: object) -> None:
    def tools(value: object) -> tuple[ToolSpec, ...]:
        return (ToolSpec("f", "", {"type": "object", "properties": {"x": {"const": value}}}),)

    cached_function_tools(tools(first))
    wire = cached_function_tools(tools(second))
    const = json.loads(json.dumps(wire))[0]["function"]["parameters"]["properties"]["x"]["const"]
    assert type(const) is type(second) and const == second
