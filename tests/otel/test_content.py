"""Content capture: prompts, completions and tool data are recorded only when asked for."""

from __future__ import annotations

import json

import pytest

from agentsm_fn.otel import CAPTURE_CONTENT_ENV
from tests.otel.agents import parallel_agent
from tests.otel.spans import attributes, traced

CONTENT_KEYS = {
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.system_instructions",
    "gen_ai.tool.definitions",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
}


def test_content_is_not_recorded_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CAPTURE_CONTENT_ENV, raising=False)
    tracing = traced()
    parallel_agent(tracing.observer).run()
    recorded = {key for span in tracing.spans() for key in (span.attributes or {})}
    assert not recorded & CONTENT_KEYS
    everything = repr([(s.attributes, [e.attributes for e in s.events]) for s in tracing.spans()])
    assert "Paris" not in everything and "2,102,650" not in everything


@pytest.mark.parametrize("how", ["option", "environment"])
def test_content_capture_records_the_conventions_attributes(
    how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if how == "environment":
        monkeypatch.setenv(CAPTURE_CONTENT_ENV, "true")
        tracing = traced()
    else:
        monkeypatch.setenv(CAPTURE_CONTENT_ENV, "true")  # the option wins either way
        tracing = traced(capture_content=True)
    parallel_agent(tracing.observer).run()
    first, second = tracing.named("chat m")
    assert json.loads(str(attributes(first)["gen_ai.input.messages"])) == [
        {"role": "user", "parts": [{"type": "text", "content": "Population and weather of Paris?"}]}
    ]
    assert json.loads(str(attributes(first)["gen_ai.output.messages"])) == [
        {
            "role": "assistant",
            "parts": [
                {"type": "tool_call", "id": "c1", "name": "search", "arguments": {"city": "Paris"}},
                {"type": "tool_call", "id": "c2", "name": "weather", "arguments": {"city": "Paris"}},
            ],
            "finish_reason": "tool_calls",
        }
    ]
    assert json.loads(str(attributes(first)["gen_ai.system_instructions"])) == [
        {"type": "text", "content": "Answer in one sentence."}
    ]
    assert [t["name"] for t in json.loads(str(attributes(first)["gen_ai.tool.definitions"]))] == [
        "search",
        "weather",
    ]
    history = json.loads(str(attributes(second)["gen_ai.input.messages"]))
    assert [m["role"] for m in history] == ["user", "assistant", "tool", "tool"]
    assert history[2]["parts"] == [
        {"type": "tool_call_response", "id": "c1", "response": "SUCCESS: Paris: 2,102,650 inhabitants"}
    ]
    (search,) = tracing.named("execute_tool search")
    assert attributes(search, ["gen_ai.tool.call.arguments", "gen_ai.tool.call.result"]) == {
        "gen_ai.tool.call.arguments": '{"city":"Paris"}',
        "gen_ai.tool.call.result": "Paris: 2,102,650 inhabitants",
    }


def test_the_option_can_turn_capture_off_whatever_the_environment_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(CAPTURE_CONTENT_ENV, "true")
    tracing = traced(capture_content=False)
    parallel_agent(tracing.observer).run()
    assert not {key for span in tracing.spans() for key in (span.attributes or {})} & CONTENT_KEYS
