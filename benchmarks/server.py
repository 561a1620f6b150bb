"""Serving runs: what streaming a run costs (and, as the server lands, what serving runs costs).

Section "run stream" (docs/server.md): the same ReAct agent run (3 tool calls and an
answer, 4 LLM calls, 11 transitions) measured three ways in one process:

* ``arun``: ``Agent.arun()``, as today;
* ``astream``: ``Agent.astream()`` with a consumer that takes every event;
* no consumer: ``arun`` with the stream hook (the provider's ``report_delta`` call per
  delta) against the same engine with the hook replaced by nothing.

with two LLMs: a stateless scripted one in process (no deltas: the run is pure engine and
agent work, the hardest case for a stream's fixed cost per event), and the OpenAI provider
streaming its replies over httpx (a MockTransport: no socket) in chunks of 3 characters
(about 60 deltas per run). Best CPU time of many alternating rounds per side. Targets: a
run consumed through ``astream`` costs at most 1.3x the same run through ``arun``; a run
with no consumer costs what it does today (ratio <= 1.03).

Then the server's sections (benchmarks/_serving.py): listing 10,000 runs a page at a time,
how fast events of a run executing in another process reach an SSE client, and 100 SSE
clients on 20 live runs each receiving every event in order, none twice.

    python benchmarks/server.py [--quick] [--budget SECONDS]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sys
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial

import httpx
from _serving import measure_serving

import agentsm_fn.providers.provider as provider_module
from agentsm_fn.agents.react import ReactCompleted
from agentsm_fn.llm import AnyLlmProvider, LlmReply, LlmRequest, ToolCall, ToolResultMessage
from agentsm_fn.providers import openai_provider
from agentsm_fn.shell.react_agent import Agent, AgentBuilder
from agentsm_fn.stream import Finished

TOOL_CALLS = 3
ANSWER = "Looked up all three keys; every value was found and checked twice."
SCHEMA = {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}
HOOK = "report_delta"
"""The provider module's name for the stream hook (``agentsm_fn.shell.report_delta``)."""
MIN_ROUNDS = 15
"""Rounds measured even past the time budget."""


async def lookup(key: str) -> str:
    """The tool as a coroutine: a run calls it on the loop (a sync tool would take a thread hop)."""
    return f"value of {key}"


# ---- the run stream -------------------------------------------------------------------------------------


class ScriptedLookups:
    """Asks for ``lookup`` until the request holds TOOL_CALLS results, then answers (stateless)."""

    def complete(self, request: LlmRequest) -> LlmReply:
        done = sum(isinstance(m, ToolResultMessage) for m in request.messages)
        if done < TOOL_CALLS:
            return LlmReply(tool_calls=(ToolCall(f"call_{done}", "lookup", {"key": f"k{done}"}),))
        return LlmReply(content=ANSWER)


def _chunk(delta: dict[str, object], finish: str | None = None) -> bytes:
    body = {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(body)}\n\n".encode()


def _sse(messages: list[dict[str, object]]) -> bytes:
    """The streamed reply the scripted LLM would give, in the OpenAI wire format, 3 characters a chunk."""
    done = sum(message["role"] == "tool" for message in messages)
    if done < TOOL_CALLS:
        arguments = json.dumps({"key": f"k{done}"})
        call = {"index": 0, "id": f"call_{done}", "type": "function", "function": {"name": "lookup"}}
        parts = [_chunk({"tool_calls": [call]})]
        parts += [
            _chunk({"tool_calls": [{"index": 0, "function": {"arguments": arguments[i : i + 3]}}]})
            for i in range(0, len(arguments), 3)
        ]
        parts.append(_chunk({}, "tool_calls"))
    else:
        parts = [_chunk({"role": "assistant", "content": ""})]
        parts += [_chunk({"content": ANSWER[i : i + 3]}) for i in range(0, len(ANSWER), 3)]
        parts.append(_chunk({}, "stop"))
    return b"".join(parts) + b"data: [DONE]\n\n"


def _server(request: httpx.Request) -> httpx.Response:
    body = _sse(json.loads(request.content)["messages"])
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)


def agents() -> dict[str, Agent]:
    """The agent with each LLM (one agent per LLM, reused: runs share nothing but the provider)."""
    streaming = openai_provider(
        "m",
        api_key="k",
        base_url="http://llm.bench",
        async_client=httpx.AsyncClient(transport=httpx.MockTransport(_server)),
        stream=True,
        env={},
    )
    return {
        "scripted LLM in process (no deltas)": _agent(ScriptedLookups()),
        "OpenAI provider streaming over httpx (~60 deltas)": _agent(streaming),
    }


def _agent(llm: AnyLlmProvider) -> Agent:
    return (
        AgentBuilder.new("Look three keys up")
        .llm(llm)
        .tool("lookup", "Look a key up", SCHEMA, lookup)
        .build()
        .unwrap()
    )


async def through_arun(agent: Agent) -> int:
    """One run through ``arun``; its transitions."""
    done = (await agent.arun()).unwrap()
    assert isinstance(done, ReactCompleted)
    return done.snapshot.steps


async def through_astream(agent: Agent) -> int:
    """One run through ``astream``, every event taken; its transitions."""
    last = None
    async for event in agent.astream():
        last = event
    assert isinstance(last, Finished)
    return last.steps


@contextmanager
def without_stream_hook() -> Iterator[None]:
    """The engine as it was before the stream hook: the provider reports its deltas to nobody."""
    hook = getattr(provider_module, HOOK)
    setattr(provider_module, HOOK, lambda delta: None)
    try:
        yield
    finally:
        setattr(provider_module, HOOK, hook)


async def _without_hook(agent: Agent) -> int:
    with without_stream_hook():
        return await through_arun(agent)


def best_times(
    loop: asyncio.AbstractEventLoop, sides: Sequence[Callable[[], Awaitable[int]]], budget: float, batch: int
) -> list[float]:
    """Best CPU seconds per run of each side, measured batch by batch in alternation."""
    steps = [loop.run_until_complete(side()) for side in sides]  # also warms them up
    assert len(set(steps)) == 1, steps
    best = [float("inf")] * len(sides)
    deadline = time.perf_counter() + budget
    rounds = 0
    while rounds < MIN_ROUNDS or (time.perf_counter() < deadline and rounds < 1_000):
        for index in range(len(sides)):
            side = sides[(index + rounds) % len(sides)]
            gc.collect()
            started = time.process_time()
            for _ in range(batch):
                loop.run_until_complete(side())
            taken = (time.process_time() - started) / batch
            position = (index + rounds) % len(sides)
            best[position] = min(best[position], taken)
        rounds += 1
    return best


def measure_stream(budget: float, batch: int) -> None:
    """The run stream's figures: astream vs arun, and arun with vs without the stream hook."""
    print("\nrun stream: one ReAct run (3 tool calls, 4 LLM calls), best CPU time per run")
    print(f"{'LLM':<50} {'arun us':>9} {'astream us':>11} {'ratio':>6} {'no hook us':>11} {'hook ratio':>10}")
    loop = asyncio.new_event_loop()
    worst_stream, worst_hook = 0.0, 0.0
    try:
        for label, agent in agents().items():
            arun_s, astream_s, bare_s = best_times(
                loop,
                [
                    partial(through_arun, agent),
                    partial(through_astream, agent),
                    partial(_without_hook, agent),
                ],
                budget,
                batch,
            )
            stream_ratio, hook_ratio = astream_s / arun_s, arun_s / bare_s
            worst_stream, worst_hook = max(worst_stream, stream_ratio), max(worst_hook, hook_ratio)
            print(
                f"{label:<50} {arun_s * 1e6:>9.0f} {astream_s * 1e6:>11.0f} {stream_ratio:>6.2f}"
                f" {bare_s * 1e6:>11.0f} {hook_ratio:>10.3f}"
            )
    finally:
        loop.close()
    print(f"a run consumed through astream: worst ratio {worst_stream:.2f} (target <= 1.3)")
    print(f"a run with no consumer (stream hook vs none): worst ratio {worst_hook:.3f} (target <= 1.03)")


# ---- the command line -----------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short timings (a smoke run)")
    parser.add_argument(
        "--budget", type=float, help="seconds per measurement (default 3, or 0.3 with --quick)"
    )
    args = parser.parse_args(argv)
    budget = args.budget if args.budget is not None else 0.3 if args.quick else 3.0
    print(f"python {sys.version.split()[0]}; ~{budget:.1f} s per measurement")
    measure_stream(budget, batch=2 if args.quick else 10)
    measure_serving(args.quick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
