"""Deltas: a streaming provider's text and tool-call arguments reach the stream of the run that asked.

Twenty ReAct agents share one provider (one httpx pool) on one event loop; the server
(an httpx MockTransport) streams each reply in small chunks and lets the loop switch
runs between chunks, so the runs' deltas interleave on the wire and in the provider.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Mapping

import httpx
from returns.result import Success

from agentsm_fn.agents.react import ReactCompleted
from agentsm_fn.providers import openai_provider
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.stream import EffectRequested, Finished, LlmTextDelta, RunEvent, ToolCallArgsDelta
from tests.stream.helpers import collect, positions

RUNS = 20
DONE = b"data: [DONE]\n\n"
SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


def _chunk(delta: Mapping[str, object], finish: str | None = None) -> bytes:
    body = {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(body)}\n\n".encode()


def _pieces(text: str, size: int = 3) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def answer_for(task: str) -> str:
    return f"Done with {task}: everything was echoed back as asked."


def arguments_for(task: str) -> str:
    return json.dumps({"text": f"echo for {task}"})


def _reply(request: httpx.Request) -> tuple[str, list[bytes]]:
    messages = json.loads(request.content)["messages"]
    task = next(m["content"] for m in messages if m["role"] == "user")
    if not any(m["role"] == "tool" for m in messages):
        call = {"index": 0, "id": f"call-{task}", "type": "function", "function": {"name": "echo"}}
        arguments = [
            {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}
            for piece in _pieces(arguments_for(task))
        ]
        return task, [
            _chunk({"tool_calls": [call]}),
            *(_chunk(delta) for delta in arguments),
            _chunk({}, "tool_calls"),
            DONE,
        ]
    text = [{"content": piece} for piece in _pieces(answer_for(task))]
    return task, [
        _chunk({"role": "assistant", "content": ""}),
        *(_chunk(delta) for delta in text),
        _chunk({}, "stop"),
        DONE,
    ]


SENT: list[str] = []
"""The task of each chunk the server sent, in the order it sent them."""


async def _interleaved(task: str, parts: list[bytes]) -> AsyncIterator[bytes]:
    for part in parts:
        await asyncio.sleep(0)  # a yield, not a wait: another run's chunk may come first
        SENT.append(task)
        yield part


def _server(request: httpx.Request) -> httpx.Response:
    task, parts = _reply(request)
    return httpx.Response(
        200, headers={"content-type": "text/event-stream"}, content=_interleaved(task, parts)
    )


def echo(text: str) -> str:
    return text


async def test_concurrent_runs_on_one_loop_get_their_own_deltas_and_nobody_elses() -> None:
    async with httpx.AsyncClient(transport=httpx.MockTransport(_server)) as client:
        provider = openai_provider(
            "m", api_key="k", base_url="http://llm.test", async_client=client, stream=True, env={}
        )
        agents = [
            AgentBuilder.new(f"task-{i}")
            .llm(provider)
            .tool("echo", "Echo text", SCHEMA, echo)
            .build()
            .unwrap()
            for i in range(RUNS)
        ]
        SENT.clear()
        streams = await asyncio.gather(*(collect(agent.astream()) for agent in agents))
    switches = sum(1 for before, after in itertools.pairwise(SENT) if before != after)
    assert switches > 4 * RUNS  # the runs' chunks did interleave (not one whole reply after another)
    for i, events in enumerate(streams):
        task = f"task-{i}"
        _check_one_run(task, events)


def _check_one_run(task: str, events: list[RunEvent]) -> None:
    run_id = events[0].run_id
    assert {event.run_id for event in events} == {run_id}
    finished = events[-1]
    assert isinstance(finished, Finished)
    result = finished.result
    assert isinstance(result, Success) and isinstance(result.unwrap(), ReactCompleted)
    assert result.unwrap().answer == answer_for(task)
    texts = [event for event in events if isinstance(event, LlmTextDelta)]
    assert "".join(event.text for event in texts) == answer_for(task)
    fragments = [event for event in events if isinstance(event, ToolCallArgsDelta)]
    assert "".join(event.fragment for event in fragments) == arguments_for(task)
    assert {(event.index, event.call_id, event.name) for event in fragments} == {(0, f"call-{task}", "echo")}
    llm_calls = [
        event.position for event in events if isinstance(event, EffectRequested) and event.effect == "LlmCall"
    ]
    assert {event.position for event in fragments} == {llm_calls[0]}
    assert {event.position for event in texts} == {llm_calls[-1]}
    assert positions(events) == list(range(len(positions(events))))
