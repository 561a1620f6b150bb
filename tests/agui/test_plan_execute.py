"""The plan-and-execute agent over AG-UI: its input from the request, a step per state, its tool batches as
tool calls, its answer as a text message and its result, and a halt as RUN_ERROR with its HaltCause."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonpatch
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from agentsm_fn.agents.plan_execute import PLAN_EXECUTE_MACHINE, RunTools, ToolBatch
from agentsm_fn.agents.plan_execute.effects import PlanExecuteToolResult
from agentsm_fn.agents.react import AgentConfig
from agentsm_fn.durable import Durable, SqliteStore
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.llm import LlmCall, LlmReply, LlmRequest, ToolCall, UserMessage
from agentsm_fn.server.agui import (
    AguiAgent,
    AguiRequest,
    agui_for,
    agui_routes,
    plan_execute_agui,
    react_agui,
    with_agui,
)
from agentsm_fn.server.agui.feed import EffectEnded, EffectStarted
from agentsm_fn.server.agui.state import public_state
from agentsm_fn.server.agui.translate import Translator
from agentsm_fn.shell.plan_execute_agent import AgentFSM
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.shell.scripted_llm import ScriptedLlm
from agentsm_fn.tools import tool
from tests.agui.agents import COMPARED, PLAN, SECRET, lookup, research_agent

Events = list[dict[str, Any]]


def _body(run_id: str, text: str = "Is it sunny in Paris and Rome?") -> dict[str, object]:
    return {"threadId": "t", "runId": run_id, "messages": [{"id": "u", "role": "user", "content": text}]}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    opened = SqliteStore.open(tmp_path / "runs.db").unwrap()
    yield opened
    opened.close()


def _run(store: SqliteStore, agent: AguiAgent[Any, Any, Any], run_id: str) -> Events:
    app = FastAPI()
    app.include_router(agui_routes(store, [agent]))
    with TestClient(app) as http:
        response = http.post(f"/agui/{agent.name}", json=_body(run_id))
    assert response.status_code == 200, response.text
    return [json.loads(part.removeprefix("data: ")) for part in response.text.strip().split("\n\n")]


def _planner_durable(name: str = "app:PLANNER") -> Durable[Any, Any, Any]:
    agent = AgentFSM(provider=ScriptedLlm([]), tools={"lookup": lookup}, max_iterations=3)
    return Durable(name=name, machine=PLAN_EXECUTE_MACHINE, shell=agent.shell, template=agent.memory(""))


@given(st.text(min_size=1).filter(lambda text: text.strip() != ""))
def test_agui_for_drives_a_plan_and_execute_durable_with_the_last_user_message_as_its_input(
    text: str,
) -> None:
    durable = _planner_durable()
    served = agui_for(durable).unwrap()
    template = durable.template
    assert template is not None
    request = AguiRequest(thread_id="t", run_id="r", messages=(UserMessage("earlier"), UserMessage(text)))
    first = served.memory(request).unwrap()
    assert first.input == text.strip()
    assert (first.config, first.max_iterations) == (template.config, template.max_iterations)  # kept
    assert [tool.name for tool in first.config.tools] == ["lookup"]
    empty = served.memory(AguiRequest(thread_id="t", run_id="r", messages=()))
    assert empty.failure().field == "messages"


def test_serve_agui_takes_a_plan_and_execute_durable_and_still_refuses_a_bare_one() -> None:
    routers = with_agui([_planner_durable(), research_agent().durable])
    assert routers.unwrap()[-1] is not None
    refused = with_agui([_planner_durable(), Durable(name="app:BARE", machine=PLAN_EXECUTE_MACHINE)])
    assert refused.failure().startswith("AG-UI cannot drive app:BARE: AG-UI drives a ReAct agent's or a plan")


def test_a_run_streams_a_step_per_state_its_tool_batch_its_answer_and_its_result(store: SqliteStore) -> None:
    agent = research_agent()
    events = _run(store, agent, "p-1")
    types = [e["type"] for e in events]
    assert types[:4] == ["RUN_STARTED", "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT", "STEP_STARTED"]
    assert types[-1] == "RUN_FINISHED"
    steps = [e["stepName"] for e in events if e["type"] == "STEP_STARTED"]
    ended = [e["stepName"] for e in events if e["type"] == "STEP_FINISHED"]
    assert steps == ["INTAKE", "PLAN", "DECIDE", "EXECUTE", "OBSERVE", "LOOP_CHECK", "EXECUTE", "FINALIZE"]
    assert ended == steps
    stored = replay_stored(store, agent.durable.machine, "p-1").unwrap()
    ids = [seen.call_id for seen in stored.memory.observations]
    assert ids[1] == "c_rome" and ids[0] not in ("", "c_rome")  # the machine named the call sent without one
    calls = [e for e in events if e["type"].startswith("TOOL_CALL")]
    for call_id, city in zip(ids, ("Paris", "Rome"), strict=True):
        own = [e["type"] for e in calls if e["toolCallId"] == call_id]
        assert own == ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT"], own
        args = "".join(
            e["delta"] for e in calls if e["toolCallId"] == call_id and e["type"] == "TOOL_CALL_ARGS"
        )
        assert json.loads(args) == {"city": city}
        result = next(e for e in calls if e["toolCallId"] == call_id and e["type"] == "TOOL_CALL_RESULT")
        assert city in result["content"]
    assert {e["toolCallId"] for e in calls} == set(ids)  # every call announced is one the run made
    texts: dict[str, str] = {}
    for event in events:
        if event["type"] == "TEXT_MESSAGE_CONTENT":
            texts[event["messageId"]] = texts.get(event["messageId"], "") + event["delta"]
    assert list(texts.values()) == [json.dumps(PLAN), COMPARED]  # the planner's reply, then the answer
    result = events[-1]["result"]
    assert result == {
        "answer": COMPARED,
        "content": COMPARED,
        "done": True,
        "iterations": 2,
        "stopped_by": "no_tool_calls",
        "summary": None,
    }
    state = events[2]["snapshot"]
    assert state["input"] == "Is it sunny in Paris and Rome?" and state["final_result"] is None
    for event in events:
        if event["type"] == "STATE_DELTA":
            state = jsonpatch.apply_patch(state, event["delta"])
    assert state == json.loads(json.dumps(public_state(stored.memory)))
    assert state["plan"]["goal"] == PLAN["goal"] and state["final_result"]["content"] == COMPARED
    assert store.get("p-1").unwrap().status.value == "finished"


@pytest.mark.parametrize(
    ("agent", "code", "state"),
    [
        (research_agent(LlmReply(content=f"I would search first. {SECRET}")), "invalid_plan", "PLAN"),
        (
            research_agent(
                LlmReply(content=json.dumps(PLAN)),
                LlmReply(tool_calls=(ToolCall("c1", "lookup", {"city": "Oslo"}),)),
                max_iterations=1,
            ),
            "max_iterations",
            "LOOP_CHECK",
        ),
    ],
)
def test_a_halted_run_is_a_run_error_with_its_halt_cause_and_no_credential(
    store: SqliteStore, agent: AguiAgent[Any, Any, Any], code: str, state: str
) -> None:
    events = _run(store, agent, "p-halt")
    last = events[-1]
    assert last["type"] == "RUN_ERROR" and last["code"] == code, last
    assert last["message"].startswith(f"{code} in {state}: ")
    assert "RUN_FINISHED" not in [e["type"] for e in events]
    assert [e["stepName"] for e in events if e["type"] == "STEP_STARTED"][-1] == "HALT"
    assert "sk-live0123456789" not in json.dumps(events)
    record = store.get("p-halt").unwrap()
    assert record.status.value == "failed" and record.reason.startswith(f"{code} in {state}")


@tool
def submit(answer: str) -> str:
    """Hand in the final answer.

    Args:
        answer: The answer.
    """
    return answer


def test_an_answer_a_finish_tool_gave_is_the_last_text_message_too(store: SqliteStore) -> None:
    script = ScriptedLlm(
        [
            LlmReply(content=json.dumps(PLAN)),
            LlmReply(tool_calls=(ToolCall("c_done", "submit", {"answer": COMPARED}),)),
        ]
    )
    agent = AgentFSM(provider=script, tools={"submit": submit}, finish_tools={"submit"}, max_iterations=3)
    events = _run(store, plan_execute_agui(agent, "tests.agui.test_plan_execute:FINISHING"), "p-fin")
    types = [e["type"] for e in events]
    opened = len(types) - 1 - types[::-1].index("TEXT_MESSAGE_START")
    assert types[opened - 1] == "STEP_FINISHED" and types[-2:] == ["TEXT_MESSAGE_END", "RUN_FINISHED"], types
    assert set(types[opened + 1 : -2]) == {"TEXT_MESSAGE_CONTENT"}, types
    message = events[opened]["messageId"]
    assert events[opened]["role"] == "assistant"
    assert "".join(e["delta"] for e in events[opened + 1 : -2]) == COMPARED
    assert message not in [e.get("messageId") for e in events[:opened]]  # a message of its own
    result = events[-1]["result"]
    assert (result["answer"], result["stopped_by"]) == (COMPARED, "finish_tool:submit")
    said = [e["delta"] for e in events[:opened] if e["type"] == "TEXT_MESSAGE_CONTENT"]
    assert "".join(said) == json.dumps(PLAN)  # no reply had said the answer before


def test_an_answer_a_reply_said_is_not_said_again(store: SqliteStore) -> None:
    events = _run(store, research_agent(), "p-once")
    said = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert said.count(COMPARED) == 1 and events[-2]["type"] == "STEP_FINISHED"


def test_a_react_agent_that_ends_in_error_is_a_run_error_not_a_success(store: SqliteStore) -> None:
    call = LlmReply(tool_calls=(ToolCall("c1", "lookup", {"city": "Paris"}),))
    agent = AgentBuilder.new("").llm(ScriptedLlm([call] * 4)).tools(lookup).config(AgentConfig(max_steps=1))
    served = react_agui(agent.build().unwrap(), "tests.agui.test_plan_execute:LOOPING")
    events = _run(store, served, "r-err")
    assert events[-1]["type"] == "RUN_ERROR" and events[-1]["code"] == "AgentFailed", events[-1]
    assert store.get("r-err").unwrap().status.value == "failed"


def test_a_tool_batch_is_announced_once_per_call_and_each_result_answers_its_call() -> None:
    translator = Translator("r1")
    calls = (ToolCall("", "lookup", {"city": "Oslo"}), ToolCall("c2", "lookup", {"city": "Rome"}))
    request = LlmRequest(model="m", messages=())
    replied = translator.feed(EffectStarted(LlmCall(request))) + translator.feed(
        EffectEnded(LlmCall(request), LlmReply(tool_calls=calls))
    )
    assert [(e.type.value, getattr(e, "tool_call_id", "")) for e in replied if "TOOL" in e.type.value] == [
        ("TOOL_CALL_START", "c2"),
        ("TOOL_CALL_ARGS", "c2"),
        ("TOOL_CALL_END", "c2"),
    ]  # the call without an id is not announced under an id no result will carry
    named = (ToolCall("call_1_0", "lookup", {"city": "Oslo"}), calls[1])
    batch = RunTools(named)
    started = translator.feed(EffectStarted(batch))
    assert [(e.type.value, getattr(e, "tool_call_id", "")) for e in started] == [
        ("TOOL_CALL_START", "call_1_0"),
        ("TOOL_CALL_ARGS", "call_1_0"),
        ("TOOL_CALL_END", "call_1_0"),
    ]
    results = ToolBatch(
        (
            PlanExecuteToolResult(call_id="call_1_0", name="lookup", content="snow"),
            PlanExecuteToolResult(call_id="c2", name="lookup", content=f"leaked {SECRET}", is_error=True),
        )
    )
    ended = translator.feed(EffectEnded(batch, results))
    assert [(e.type.value, getattr(e, "tool_call_id", "")) for e in ended] == [
        ("TOOL_CALL_RESULT", "call_1_0"),
        ("TOOL_CALL_RESULT", "c2"),
    ]
    assert "sk-live0123456789" not in str(ended) and getattr(ended[0], "content", "") == "snow"
