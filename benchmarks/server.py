"""Serving runs: what streaming a run costs (and, as the server lands, what serving runs costs).

Section "run stream" (docs/server.md): the same ReAct agent run (3 tool calls and an
answer, 4 LLM calls, 11 transitions) measured three ways in one process:

* ``arun``: ``Agent.arun()``, as today (the stream hook in place);
* ``astream``: ``Agent.astream()`` with a consumer that takes every event;
* the stream's frame (scripted LLM only): the same run in the task a stream runs it in, consumed
  through the stream's buffer, with only its first and last events: what a stream costs before
  it makes a single history event (the floor under ``astream``, beside its cost per event);
* no consumer: the same ``arun`` with the stream hook (the provider's ``report_delta``
  call per delta) replaced by a function that does nothing, the engine before the hook;
  and the hook's own cost: one call's best time outside a stream, times the deltas of a run.

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
import timeit
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial

import httpx
from _serving import measure_serving

import agentsm_fn.providers.provider as provider_module
from agentsm_fn.agents.react import ReactCompleted
from agentsm_fn.agents.react.result import interpret_react
from agentsm_fn.core.fingerprint import machine_fingerprint
from agentsm_fn.llm import AnyLlmProvider, LlmReply, LlmRequest, ToolCall, ToolResultMessage
from agentsm_fn.providers import TextDelta, openai_provider
from agentsm_fn.shell import arun, redact_credentials, report_delta
from agentsm_fn.shell._event_values import transitioned
from agentsm_fn.shell._stream_buffer import EventBuffer
from agentsm_fn.shell.react_agent import Agent, AgentBuilder
from agentsm_fn.shell.stream_history import standing_events
from agentsm_fn.shell.streaming import BUFFER_SIZE, new_run_id
from agentsm_fn.stream import Finished, LlmTextDelta, RunEvent, RunStarted, ToolCallArgsDelta

TOOL_CALLS = 3
ANSWER = "Looked up all three keys; every value was found and checked twice."
SCHEMA = {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}
SCRIPTED = "scripted LLM in process (no deltas)"
STREAMING = "OpenAI provider streaming over httpx (~60 deltas)"
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
    return {SCRIPTED: _agent(ScriptedLookups()), STREAMING: _agent(streaming)}


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


async def through_frame(agent: Agent) -> int:
    """One run in the stream's frame alone: its task, its buffer, its first and last events (no others)."""
    run_id, machine = new_run_id(), agent.machine
    events = EventBuffer(BUFFER_SIZE)
    events.put(
        RunStarted(
            run_id=run_id,
            machine=machine.name,
            fingerprint=machine_fingerprint(machine),
            state=machine.initial.name,
            steps=0,
            resumed=False,
        )
    )

    async def run() -> tuple[RunEvent, ...]:
        done = await arun(machine, agent.memory, agent.shell())
        return standing_events(run_id, 2, done, interpret_react(done), redact_credentials)

    last = None
    async for event in events.events(run):
        last = event
    assert isinstance(last, Finished)
    return last.steps


@contextmanager
def stream_hook(hook: Callable[[object], None]) -> Iterator[None]:
    """The provider reporting its deltas to ``hook`` (``_nothing``: the engine before the stream hook)."""
    kept = getattr(provider_module, HOOK)
    setattr(provider_module, HOOK, hook)
    try:
        yield
    finally:
        setattr(provider_module, HOOK, kept)


def _nothing(delta: object) -> None:
    """The engine before the stream hook: a delta goes nowhere."""


async def hooked(agent: Agent, hook: Callable[[object], None]) -> int:
    """One run through ``arun`` with ``hook`` as the stream hook (both sides of the hook figure)."""
    with stream_hook(hook):
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


def _one_event(put: Callable[[RunEvent], None]) -> None:
    put(transitioned("r", 1, 1, "Planning", "TOOL_CALLS", "Acting", 0.0))


def event_seconds() -> float:
    """Best seconds to build one ``Transitioned`` as a stream builds it and buffer it, alone."""
    runs = []
    for _ in range(15):
        one = partial(_one_event, EventBuffer(10**9).put)  # a fresh buffer per round, never full
        runs.append(timeit.timeit(one, number=20_000) / 20_000)
    empty = min(timeit.timeit(lambda: None, number=20_000) / 20_000 for _ in range(15))
    return max(min(runs) - empty, 0.0)


def hook_call_seconds() -> float:
    """Best seconds of one ``report_delta`` call outside any stream (what each delta costs a plain run)."""
    delta = TextDelta("abc")
    runs = [timeit.timeit(lambda: report_delta(delta), number=100_000) / 100_000 for _ in range(15)]
    empty = min(timeit.timeit(lambda: None, number=100_000) / 100_000 for _ in range(15))
    return max(min(runs) - empty, 0.0)


async def events_per_run(agent: Agent) -> tuple[int, int]:
    """How many events one run's stream yields, and how many of them are deltas."""
    events = [event async for event in agent.astream()]
    return len(events), sum(isinstance(event, LlmTextDelta | ToolCallArgsDelta) for event in events)


def measure_stream(budget: float, batch: int) -> None:
    """The run stream's figures: astream vs arun, its frame alone, and arun with and without the hook."""
    print("\nrun stream: one ReAct run (3 tool calls, 4 LLM calls), best CPU time per run")
    print(
        f"{'LLM':<50} {'events':>6} {'arun us':>8} {'astream us':>10} {'ratio':>6} {'frame us':>8}"
        f" {'frame ratio':>11} {'us/event':>8} {'no hook us':>10} {'hook ratio':>10}"
    )
    ratios: dict[str, float] = {}
    worst_hook, hook_base = 0.0, (1.0, 0)
    floor = (1.0, 1.0, 0, 1.0)
    # A Runner, not a bare loop: closing it finishes the async generators the runs left (httpx's own, which
    # a closed stream leaves to the loop's finalizer) instead of destroying their pending aclose tasks.
    with asyncio.Runner() as runner:
        loop = runner.get_loop()
        for label, agent in agents().items():
            events, deltas = loop.run_until_complete(events_per_run(agent))
            arun_s, astream_s, frame_s, bare_s = best_times(
                loop,
                [
                    partial(hooked, agent, report_delta),
                    partial(through_astream, agent),
                    partial(through_frame, agent),
                    partial(hooked, agent, _nothing),
                ],
                budget,
                batch,
            )
            ratios[label], hook_ratio = astream_s / arun_s, arun_s / bare_s
            per_event = (astream_s - frame_s) / (events - 2)  # the frame has the first and last
            if label == STREAMING:
                hook_base = (bare_s, deltas)
            else:
                floor = (frame_s / arun_s, per_event / arun_s, events, arun_s)
            worst_hook = max(worst_hook, hook_ratio)
            print(
                f"{label:<50} {events:>6} {arun_s * 1e6:>8.0f} {astream_s * 1e6:>10.0f} {ratios[label]:>6.2f}"
                f" {frame_s * 1e6:>8.0f} {frame_s / arun_s:>11.2f} {per_event * 1e6:>8.1f}"
                f" {bare_s * 1e6:>10.0f} {hook_ratio:>10.3f}"
            )
    streaming, scripted = ratios[STREAMING], ratios[SCRIPTED]
    print(f"a run consumed through astream (streaming provider): ratio {streaming:.2f} (target <= 1.3)")
    print(f"the same with no IO at all (scripted LLM, the worst case): ratio {scripted:.2f}")
    frame, event_share, count, base = floor
    print(
        f"  of which the stream's frame (its task and buffer, no history event): {frame:.2f}x, and each"
        f" of its {count - 2} other events {event_share * 100:.1f}% of the run"
    )
    left = max(1.3 - frame, 0) / (count - 2)
    print(f"  one history event built and buffered alone: {event_seconds() * 1e6:.2f} us")
    print(
        f"  1.3x with this frame leaves {left * 100:.2f}% of the run ({left * base * 1e6:.1f} us) per event"
    )
    print(f"a run with no consumer (stream hook vs none): worst ratio {worst_hook:.3f} (target <= 1.03)")
    call, (base, deltas) = hook_call_seconds(), hook_base
    print(
        f"  the hook itself: {call * 1e9:.0f} ns per delta with no stream, {deltas:.0f} deltas per run:"
        f" {1 + deltas * call / base:.4f}x of the streaming run"
    )


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
    measure_stream(budget, batch=2 if args.quick else 20)
    measure_serving(args.quick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
