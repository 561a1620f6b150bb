"""The agent against Ollama's wire format (in-process MockTransport, no network).

PLAN goes to /api/generate with the plan schema as ``format``; EXECUTE goes to
/api/chat with the tools; tool results go back as ``role: tool`` messages.
"""

from __future__ import annotations

import asyncio
import json

import httpx

from agentsm_fn.agents.plan_execute import DEFAULT_PLAN_SCHEMA
from agentsm_fn.llm import thaw
from agentsm_fn.providers import ollama_provider
from agentsm_fn.shell import StepClock
from agentsm_fn.shell.plan_execute_agent import AgentFSM

from .helpers import seed_tools

PLAN = {
    "goal": "Recommend a Ruby PDF library",
    "required_capabilities": ["search"],
    "initial_steps": ["search"],
}


class FakeOllama:
    """Answers /api/generate with a plan, then /api/chat with one tool call and an answer."""

    def __init__(self) -> None:
        self.bodies: list[tuple[str, dict[str, object]]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.bodies.append((request.url.path, body))
        if request.url.path == "/api/generate":
            reply = {"model": "llama3.2", "response": json.dumps(PLAN), "done": True, "eval_count": 20}
            return httpx.Response(200, json=reply)
        chats = sum(path == "/api/chat" for path, _ in self.bodies)
        if chats == 1:
            call = {"function": {"name": "search", "arguments": {"query": "ruby pdf"}}}
            message: dict[str, object] = {"role": "assistant", "content": "", "tool_calls": [call]}
        else:
            message = {"role": "assistant", "content": "Use Prawn."}
        return httpx.Response(
            200, json={"model": "llama3.2", "message": message, "done": True, "eval_count": 5}
        )


def agent_for(server: FakeOllama) -> AgentFSM:
    transport = httpx.MockTransport(server)
    provider = ollama_provider(
        "llama3.2",
        base_url="http://ollama.test",
        client=httpx.Client(transport=transport),
        async_client=httpx.AsyncClient(transport=transport),
        env={},
    )
    return AgentFSM(provider=provider, tools=seed_tools(), clock=StepClock())


def test_plan_uses_generate_with_the_schema_as_format_and_execute_uses_chat_with_tools() -> None:
    server = FakeOllama()
    done = agent_for(server).run("Find best PDF library for Ruby").unwrap()

    assert done.result.answer == "Use Prawn."
    assert [path for path, _ in server.bodies] == ["/api/generate", "/api/chat", "/api/chat"]
    _, generate = server.bodies[0]
    assert generate["format"] == thaw(DEFAULT_PLAN_SCHEMA)
    assert str(generate["prompt"]).startswith("Create a plan for: Find best PDF library for Ruby")
    _, first_chat = server.bodies[1]
    assert "format" not in first_chat
    tools = first_chat["tools"]
    assert isinstance(tools, list) and [t["function"]["name"] for t in tools] == ["search", "read"]
    _, second_chat = server.bodies[2]
    messages = second_chat["messages"]
    assert isinstance(messages, list)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool"]
    assert messages[-1]["content"] == '{"results": "Search results for: ruby pdf"}'
    assert done.fsm.usage.output_tokens == 30


def test_the_async_run_speaks_the_same_wire_format() -> None:
    server = FakeOllama()
    done = asyncio.run(agent_for(server).arun("Find best PDF library for Ruby")).unwrap()
    assert done.result.answer == "Use Prawn."
    assert [path for path, _ in server.bodies] == ["/api/generate", "/api/chat", "/api/chat"]
