"""A worker process that traces runs: every span it ends is written to ``DIR/spans-<pid>.jsonl``.

    python -m tests.temporal.traced_worker TARGET QUEUE DIR KIND [SLOW,...]

KIND: ``orders`` (the crash test's orders spec), ``orders-continued`` (continues as new after
each effect), ``team`` (a parent that delegates to a child, tests/teams/programs.py) or
``react`` (the ReAct agent on an OpenAI-compatible provider whose HTTP
transport is in-process, with the sentinel API key). The global tracer provider is the
Temporal SDK's replay-safe one, as docs/temporal.md says to set it.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import httpx
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from temporalio.contrib.opentelemetry import create_tracer_provider

from agentsm_fn.agents.react import AgentConfig
from agentsm_fn.otel import OtelObserver
from agentsm_fn.providers import openai_provider
from agentsm_fn.shell.react_agent import Agent, AgentBuilder
from agentsm_fn.temporal import TemporalMachine, as_temporal, connect, machine_worker, react_on_temporal
from tests.teams.programs import CHILD, DELEGATOR
from tests.temporal.agents import search
from tests.temporal.helpers import serve_until_killed, slow_arg
from tests.temporal.machines import order_performers
from tests.temporal.worker_process import SPEC

SENTINEL = "sk-SENTINEL-4f2a9c-never-in-a-span"
CONTINUED = attrs.evolve(SPEC, continue_after=1)


class JsonLines(SpanExporter):
    """Each ended span as one JSON line: name, ids, parent, attributes, events, status."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        with self.path.open("a", encoding="utf-8") as out:
            for s in spans:
                row = {
                    "name": s.name,
                    "trace_id": s.context.trace_id if s.context else 0,
                    "span_id": s.context.span_id if s.context else 0,
                    "parent": s.parent.span_id if s.parent else None,
                    "attributes": {k: repr(v) for k, v in (s.attributes or {}).items()},
                    "events": [
                        [e.name, {k: repr(v) for k, v in (e.attributes or {}).items()}] for e in s.events
                    ],
                    "status": s.status.status_code.name,
                }
                out.write(json.dumps(row) + "\n")
            out.flush()
        return SpanExportResult.SUCCESS


def _chat(request: httpx.Request) -> httpx.Response:
    """Call ``search`` first, then answer once a tool result is in the conversation."""
    assert request.headers["authorization"] == f"Bearer {SENTINEL}"
    messages = json.loads(request.content)["messages"]
    if any(m["role"] == "tool" for m in messages):
        message: dict[str, object] = {"role": "assistant", "content": "Prawn is the usual choice."}
    else:
        call = {
            "id": "c1",
            "type": "function",
            "function": {"name": "search", "arguments": '{"query": "pdf"}'},
        }
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
    body = {
        "id": "chatcmpl-1",
        "model": "gpt-4o",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17},
    }
    return httpx.Response(200, json=body)


def sentinel_agent() -> Agent:
    """The ReAct agent on an OpenAI-compatible provider with the sentinel key (HTTP in-process)."""
    provider = openai_provider(
        "gpt-4o",
        api_key=SENTINEL,
        base_url="http://llm.test/v1",
        client=httpx.Client(transport=httpx.MockTransport(_chat)),
        async_client=httpx.AsyncClient(transport=httpx.MockTransport(_chat)),
        env={},
    )
    config = AgentConfig(max_steps=6, reflect_every_n_steps=0)
    builder = AgentBuilder.new("Find the best PDF library for Ruby").llm(provider).tools(search)
    return builder.config(config).model("gpt-4o").build().unwrap()


async def serve(target: str, task_queue: str, directory: Path, kind: str, slow: frozenset[str]) -> None:
    provider = create_tracer_provider()
    provider.add_span_processor(SimpleSpanProcessor(JsonLines(directory / f"spans-{os.getpid()}.jsonl")))
    trace.set_tracer_provider(provider)
    client = await connect(target, tracing=True)
    programs: list[Any] = []
    if kind == "react":
        agent = sentinel_agent()
        spec: TemporalMachine[Any, Any, Any] = react_on_temporal(agent)
        performers = agent.shell().performers
    elif kind == "team":  # the teams tests' delegating parent, its child served as a child workflow
        spec, performers, programs = as_temporal(DELEGATOR.machine), CHILD.shell().performers, [CHILD]
    else:
        spec = CONTINUED if kind == "orders-continued" else SPEC
        performers = order_performers(directory, slow)
    observer = OtelObserver(capture_content=True)
    worker = machine_worker(
        client,
        task_queue,
        [spec],
        performers,
        passed_through=["tests"],
        sticky_timeout=1.0,
        observer=observer,
        programs=programs,
    )
    await serve_until_killed(worker, directory)


if __name__ == "__main__":  # the sandbox may import this module: only a script run serves
    target, task_queue, directory, kind = sys.argv[1], sys.argv[2], Path(sys.argv[3]), sys.argv[4]
    slow = slow_arg(sys.argv, 5)
    asyncio.run(serve(target, task_queue, directory, kind, slow))
