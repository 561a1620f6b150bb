"""The exact span trees of traced runs, read from the OpenTelemetry SDK's in-memory exporters.

One idea over 300 lines: the tests of one module, ``agentsm_fn/otel/observer.py``, which they mirror.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from opentelemetry.trace import StatusCode

from agentsm_fn import Performers, Shell, StepClock, run
from agentsm_fn.agents.plan_execute import PlanExecutePolicy
from agentsm_fn.agents.react import ReactCompleted, Suspended
from agentsm_fn.llm import LlmReply, ToolCall
from agentsm_fn.otel import trace_context
from agentsm_fn.providers import RetryPolicy, openai_provider
from agentsm_fn.shell.plan_execute_agent import AgentFSM
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.shell.scripted_llm import ScriptedLlm
from tests.core.sample import Ask, Mem, sample_machine
from tests.otel.agents import approval_agent, parallel_agent
from tests.otel.spans import attributes, operations, traced, transitions
from tests.providers.conftest import Sleeps, instant_transport

ROOT = Path(__file__).resolve().parents[2]
REACT_PARALLEL_TREE = (
    "invoke_agent react",
    (("chat m", ()), ("execute_tool search", ()), ("execute_tool weather", ()), ("chat m", ())),
)
REACT_PARALLEL_TRANSITIONS = [
    (1, "Idle", "Start", "Planning"),
    (2, "Planning", "LlmParallelToolCalls", "ParallelActing"),
    (3, "ParallelActing", "ToolSuccess", "Observing"),
    (4, "Observing", "Continue", "Planning"),
    (5, "Planning", "LlmFinalAnswer", "Done"),
]


@pytest.mark.parametrize("mode", ["run", "arun"])
def test_a_react_run_with_parallel_tool_calls(mode: str) -> None:
    tracing = traced()
    agent = parallel_agent(tracing.observer)
    result = agent.run() if mode == "run" else asyncio.run(agent.arun())
    assert isinstance(result.unwrap(), ReactCompleted)
    tree = tracing.trees()
    first, second = tracing.named("chat m")
    search, weather = tracing.named("execute_tool search")[0], tracing.named("execute_tool weather")[0]
    # the two calls of one reply are siblings; which starts first is up to the threads
    assert sorted(tree[0][1][1:3]) == list(REACT_PARALLEL_TREE[1][1:3])
    assert tree == [("invoke_agent react", (tree[0][1][0], *tree[0][1][1:3], tree[0][1][3]))]
    assert (tree[0][1][0], tree[0][1][3]) == (REACT_PARALLEL_TREE[1][0], REACT_PARALLEL_TREE[1][3])
    (root,) = tracing.roots()
    assert transitions(root) == REACT_PARALLEL_TRANSITIONS
    assert attributes(root) == {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "react",
        "gen_ai.agent.id": attributes(root)["gen_ai.agent.id"],
        "agentsm.machine.name": "react",
        "agentsm.run.status": "finished",
        "agentsm.run.final_state": "Done",
        "agentsm.run.steps": 5,
    }
    assert attributes(first) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "m",
        "gen_ai.output.type": "text",
        "agentsm.llm.purpose": "plan",
        "agentsm.effect.summary": "LlmCall plan model='m' messages=2 tools=2",
        "gen_ai.usage.input_tokens": 120,
        "gen_ai.usage.output_tokens": 30,
        "gen_ai.response.finish_reasons": ("tool_calls",),
        "gen_ai.response.model": "m-1",
        "gen_ai.response.id": "r1",
    }
    assert attributes(second)["gen_ai.response.id"] == "r2"
    assert attributes(search) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "search",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.call.id": "c1",
        "agentsm.effect.summary": "RunTool search",
    }
    assert attributes(weather)["gen_ai.tool.call.id"] == "c2"
    assert all(s.status.status_code is StatusCode.UNSET for s in tracing.spans())
    tokens = tracing.histogram("gen_ai.client.token.usage")
    assert sorted((str((p.attributes or {})["gen_ai.token.type"]), p.sum) for p in tokens) == [
        ("input", 320),
        ("output", 45),
    ]
    durations = tracing.histogram("gen_ai.client.operation.duration")
    assert operations(durations) == ["chat", "execute_tool", "execute_tool", "invoke_agent"]
    assert sorted(p.count for p in durations) == [1, 1, 1, 2]  # the two tools differ in gen_ai.tool.name


def _always_busy(_request: httpx.Request) -> httpx.Response:
    return httpx.Response(503, json={"error": {"message": "overloaded, try again"}})


def test_a_failed_llm_call_with_retries() -> None:
    tracing = traced()
    sleeps = Sleeps()
    provider = openai_provider(
        "gpt-4o",
        api_key="sk-test",
        base_url="http://llm.test/v1",
        client=httpx.Client(transport=httpx.MockTransport(_always_busy)),
        transport=instant_transport(sleeps),
        policy=RetryPolicy(max_retries=2),
        env={},
    )
    agent = AgentBuilder.new("hello").llm(provider).model("gpt-4o").observe(tracing.observer).build().unwrap()
    failed = agent.run()
    assert len(sleeps.delays) == 2  # two retries, three attempts
    assert "503" in failed.failure().describe()
    assert tracing.trees() == [("invoke_agent react", (("chat gpt-4o", ()),))]
    (root,), (chat,) = tracing.roots(), tracing.named("chat gpt-4o")
    assert chat.status.status_code is StatusCode.ERROR
    assert chat.status.description == "http_status (503): overloaded, try again"
    assert attributes(chat, ["error.type", "gen_ai.provider.name", "agentsm.llm.attempts"]) == {
        "error.type": "503",
        "gen_ai.provider.name": "openai",
        "agentsm.llm.attempts": 3,
    }
    assert root.status.status_code is StatusCode.ERROR
    assert root.status.description is not None and "503" in root.status.description
    assert attributes(root, ["error.type", "agentsm.run.final_state"]) == {
        "error.type": "Error",
        "agentsm.run.final_state": "Error",
    }
    assert transitions(root)[-1] == (2, "Planning", "FatalError", "Error")
    (chat_duration,) = [
        p
        for p in tracing.histogram("gen_ai.client.operation.duration")
        if p.attributes is not None and p.attributes["gen_ai.operation.name"] == "chat"
    ]
    assert chat_duration.attributes is not None and chat_duration.attributes["error.type"] == "503"


def test_a_suspended_run_resumed_in_another_process_links_to_its_first_trace() -> None:
    tracing = traced(provider_name="scripted")
    paused = approval_agent(tracing.observer).run().unwrap()
    assert isinstance(paused, Suspended)
    assert tracing.trees() == [("invoke_agent react", (("chat m", ()), ("AskHuman", ())))]
    (first,), (ask,) = tracing.roots(), tracing.named("AskHuman")
    assert attributes(first, ["agentsm.run.status", "agentsm.run.final_state"]) == {
        "agentsm.run.status": "awaiting",
        "agentsm.run.final_state": "WaitingForHuman",
    }
    assert attributes(ask) == {
        "agentsm.effect.type": "AskHuman",
        "agentsm.effect.summary": "AskHuman refund",
        "agentsm.effect.suspended": True,
    }
    context = trace_context(paused.snapshot)
    assert first.context is not None
    assert context["traceparent"].startswith(
        f"00-{first.context.trace_id:032x}-{first.context.span_id:016x}-"
    )
    stored = json.dumps({"suspended": paused.to_json(), "trace_context": context})
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.run(
        [sys.executable, "-m", "tests.otel.resume_child"],
        input=stored,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        check=True,
    )
    spans = {s["name"]: s for s in json.loads(child.stdout)}
    assert sorted(spans) == ["chat m", "execute_tool refund", "invoke_agent react"]
    resumed = spans["invoke_agent react"]
    assert resumed["parent"] is None and resumed["trace_id"] != first.context.trace_id
    assert resumed["links"] == [[first.context.trace_id, first.context.span_id]]
    assert resumed["attributes"]["agentsm.run.resumed"] is True
    assert resumed["attributes"]["agentsm.run.status"] == "finished"
    assert spans["execute_tool refund"]["parent"] == spans["chat m"]["parent"] == resumed["span_id"]
    events = [
        (name, attrs.get("agentsm.state"), attrs.get("agentsm.event")) for name, attrs in resumed["events"]
    ]
    assert events[:2] == [
        ("agentsm.resumed", None, None),
        ("agentsm.transition", "WaitingForHuman", "HumanApproved"),
    ]


def test_a_run_resumed_in_the_same_process_links_without_being_asked() -> None:
    tracing = traced()
    paused = approval_agent(tracing.observer).run().unwrap()
    assert isinstance(paused, Suspended)
    tracing.exporter.clear()
    agent = approval_agent(tracing.observer, [LlmReply(content="The trip to Rome has been refunded.")])
    from agentsm_fn.agents.react import Approved

    assert isinstance(agent.resume(paused, Approved()).unwrap(), ReactCompleted)
    assert tracing.trees() == [("invoke_agent react", (("execute_tool refund", ()), ("chat m", ())))]
    (root,) = tracing.roots()
    assert [link.context.span_id for link in root.links] == [
        int(trace_context(paused.snapshot)["traceparent"].split("-")[2], 16)
    ]


def test_the_plan_and_execute_agent() -> None:
    tracing = traced(provider_name="scripted")
    plan = '{"goal": "pick a PDF library", "required_capabilities": ["search"], "initial_steps": ["search"]}'
    llm = ScriptedLlm(
        [
            LlmReply(content=plan),
            LlmReply(tool_calls=(ToolCall("c1", "search", {"query": "ruby pdf"}),)),
            LlmReply(content="Prawn is the usual choice."),
        ]
    )

    def search(query: str) -> str:
        return f"results for {query}"

    fsm = AgentFSM(
        provider=llm,
        tools={"search": search},
        policy=PlanExecutePolicy(time_limit_seconds=600),
        model="m",
        clock=StepClock(),
        observer=tracing.observer,
    )
    assert (
        fsm.run("Find the best PDF library for Ruby").unwrap().result.answer == "Prawn is the usual choice."
    )
    assert tracing.trees() == [
        (
            "invoke_agent plan_execute",
            (
                ("ReadClock", ()),
                ("chat m", ()),
                ("chat m", ()),
                ("execute_tool search", ()),
                ("ReadClock", ()),
                ("chat m", ()),
            ),
        )
    ]
    (root,) = tracing.roots()
    assert [t[1:] for t in transitions(root)] == [
        ("INTAKE", "NORMALIZED", "PLAN"),
        ("PLAN", "VALID_PLAN", "DECIDE"),
        ("DECIDE", "CONTINUE", "EXECUTE"),
        ("EXECUTE", "TOOL_CALLS_PRESENT", "OBSERVE"),
        ("OBSERVE", "OBSERVED", "LOOP_CHECK"),
        ("LOOP_CHECK", "CONTINUE", "EXECUTE"),
        ("EXECUTE", "NO_TOOL_CALLS", "FINALIZE"),
    ]
    chats = tracing.named("chat m")
    assert [attributes(c)["gen_ai.output.type"] for c in chats] == ["json", "text", "text"]
    assert {attributes(c)["gen_ai.provider.name"] for c in chats} == {"scripted"}
    (tool,) = tracing.named("execute_tool search")
    assert attributes(tool, ["gen_ai.tool.call.id", "gen_ai.tool.name"]) == {
        "gen_ai.tool.call.id": "c1",
        "gen_ai.tool.name": "search",
    }


def test_the_plan_and_execute_agent_under_arun_reports_a_failing_tool() -> None:
    tracing = traced()
    plan = '{"goal": "g", "required_capabilities": [], "initial_steps": ["s"]}'
    calls = (ToolCall("c1", "broken", {}), ToolCall("c2", "missing", {}))
    llm = ScriptedLlm([LlmReply(content=plan), LlmReply(tool_calls=calls)])

    async def broken() -> str:
        raise ValueError("no")

    fsm = AgentFSM(provider=llm, tools={"broken": broken}, model="m", observer=tracing.observer)
    assert asyncio.run(fsm.arun("go")).failure() is not None
    broken_span, missing_span = (
        tracing.named("execute_tool broken")[0],
        tracing.named("execute_tool missing")[0],
    )
    assert attributes(broken_span)["error.type"] == "ValueError"
    assert attributes(missing_span)["error.type"] == "ToolNotFound"
    (root,) = tracing.roots()
    assert root.status.status_code is StatusCode.ERROR and attributes(root)["error.type"] == "HALT"


def test_a_user_machine_with_a_custom_effect() -> None:
    tracing = traced()
    answers = iter([4, 5, 6])
    shell = Shell(Performers().on(Ask, lambda _e: next(answers)), StepClock(), tracing.observer)
    assert run(sample_machine(), Mem(), shell).unwrap().memory.total == 15
    assert tracing.trees() == [("invoke_agent sample", (("Ask", ()), ("Ask", ()), ("Ask", ())))]
    (root,) = tracing.roots()
    assert [t[1:] for t in transitions(root)] == [
        ("IDLE", "START", "WORK"),
        ("WORK", "MORE", "WORK"),
        ("WORK", "MORE", "WORK"),
        ("WORK", "MORE", "WORK"),
        ("WORK", "FINISHED", "DONE"),
    ]
    assert attributes(tracing.named("Ask")[0]) == {
        "agentsm.effect.type": "Ask",
        "agentsm.effect.summary": "Ask",
    }
    # custom effects are no GenAI operation: no duration measured for them
    assert operations(tracing.histogram("gen_ai.client.operation.duration")) == ["invoke_agent"]


def test_a_raising_performer_fails_its_span_and_the_run() -> None:
    tracing = traced()

    def boom(_effect: Ask) -> int:
        raise RuntimeError("the manager is out")

    run(sample_machine(), Mem(), Shell(Performers().on(Ask, boom), StepClock(), tracing.observer))
    (ask,), (root,) = tracing.named("Ask"), tracing.roots()
    assert ask.status.status_code is StatusCode.ERROR and attributes(ask)["error.type"] == "RuntimeError"
    assert ask.status.description == "performer raised RuntimeError: the manager is out"
    assert root.status.status_code is StatusCode.ERROR and attributes(root)["error.type"] == "EffectFailed"
    assert attributes(root)["agentsm.run.status"] == "failed"
