"""Step agents: a plan-and-execute step that names a durable agent runs as a child run of that agent.

The models answer from the request alone (a resumed run asks again only what its journal does not
hold). The clerk plans three steps: look the order up (its own tool), refund it (the refunds agent's
step), tell the user; the refunds agent (ReAct) answers its step.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentsm_fn import run
from agentsm_fn.agents.plan_execute import (
    Event,
    HaltCause,
    PlanExecuteMemory,
    PlanExecutePolicy,
    State,
    StepAgent,
    plan_execute_failure,
    step_agent,
    step_child,
)
from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory, agent_failure
from agentsm_fn.durable import Durable, RunStatus, RunStore, cancel, child_run_id, stored_children
from agentsm_fn.durable.operations.worker import Outcome, serve
from agentsm_fn.durable.running.in_process import in_process_children
from agentsm_fn.durable.stores.codec import from_bytes
from agentsm_fn.durable.stores.protocol.queue import RunQueue
from agentsm_fn.llm import LlmReply, LlmRequest, ToolCall, ToolResultMessage, UserMessage
from agentsm_fn.shell.plan_execute_agent import AgentFSM
from agentsm_fn.shell.react_agent import AgentBuilder

PLAN = (
    '{"goal": "refund A-17", "initial_steps": ["Look up order A-17", '
    '{"step": "Refund A-17", "agent": "refunds"}, "Tell the user"]}'
)
ASKED: list[str] = []
"""Every step the refunds agent's model was asked (a step runs once: once here)."""


class Refunds:
    """The refunds agent's model: it refunds the order its step names."""

    def complete(self, request: LlmRequest) -> LlmReply:
        asked = [m.content for m in request.messages if isinstance(m, UserMessage)][-1]
        ASKED.append(asked)
        return LlmReply(content=f"Order {asked.split()[-1]} is refunded in full.")


class Clerk:
    """The clerk's model: the plan; then the lookup tool; then it answers (closing step 1); then the end."""

    def __init__(self) -> None:
        self.requests: list[LlmRequest] = []

    def complete(self, request: LlmRequest) -> LlmReply:
        self.requests.append(request)
        if request.response_schema is not None:
            return LlmReply(content=PLAN)
        told = [
            m.content for m in request.messages if isinstance(m, UserMessage) and m.content[:5] == "Step "
        ]
        if told:
            return LlmReply(content=f"All done. {told[-1].splitlines()[-1]}")
        if not any(isinstance(m, ToolResultMessage) for m in request.messages):
            return LlmReply(tool_calls=(ToolCall("c1", "order_status", {"order": "A-17"}),))
        return LlmReply(content="A-17 was delivered; it can be refunded.")


def order_status(order: str) -> str:
    """Where an order is.

    Args:
        order: The order number.
    """
    return f"{order} delivered"


def _refunds() -> Durable[Any, Any, Any]:
    built = AgentBuilder.new("").llm(Refunds()).build().unwrap()
    return Durable(
        name="tests.teams.test_plan_steps:REFUNDS",
        machine=built.machine,
        shell=built.shell,
        template=built.memory,
        failure=agent_failure,
    )


REFUNDS = _refunds()


def clerk(program: str = REFUNDS.name, *, halt_on_tool_error: bool = True) -> AgentFSM:
    agent = StepAgent(name="refunds", description="Refunds an order", program=program)
    return AgentFSM(
        provider=Clerk(),
        tools={"order_status": order_status},
        step_agents=(step_child(agent, REACT_MACHINE),),
        policy=PlanExecutePolicy(halt_on_tool_error=halt_on_tool_error),
        max_iterations=6,
    )


def _durable(name: str, fsm: AgentFSM) -> Durable[Any, Any, Any]:
    return Durable(
        name=f"tests.teams.test_plan_steps:{name}",
        machine=fsm.machine,
        shell=fsm.shell,
        template=fsm.memory(""),
        failure=plan_execute_failure,
    )


CLERK = _durable("CLERK", clerk())
LOST = _durable("LOST", clerk("tests.teams.test_plan_steps:NOBODY"))
LENIENT = _durable("LENIENT", clerk("tests.teams.test_plan_steps:NOBODY", halt_on_tool_error=False))


def _start(program: Durable[Any, Any, Any], message: str = "Please refund A-17") -> PlanExecuteMemory:
    template = program.template
    assert isinstance(template, PlanExecuteMemory)
    return template.start_turn(template.conversation, message)


def test_an_agent_step_runs_as_a_child_run_whose_answer_is_the_step_s_result(store: RunStore) -> None:
    ASKED.clear()
    done = CLERK.start(store, _start(CLERK), run_id="clerk").unwrap()
    memory = done.snapshot.memory
    assert done.snapshot.state is State.FINALIZE and memory.final_result is not None
    assert memory.final_result.answer == "All done. Order A-17 is refunded in full."
    assert [(o.call_id, o.tool, o.is_error) for o in memory.observations] == [
        ("c1", "order_status", False),
        ("step-2", "refunds", False),
    ]
    (child,) = stored_children(store, "clerk").unwrap()
    assert (child.run_id, child.program, child.status) == (
        child_run_id("clerk", child.seq),
        REFUNDS.name,
        RunStatus.FINISHED,
    )
    started = from_bytes(child.memory, AgentMemory).unwrap()  # a new turn of the refunds agent
    assert started.task == "Refund A-17"
    seen = [m.content for m in started.conversation.messages]
    assert seen == ["Please refund A-17", "A-17 was delivered; it can be refunded."]
    assert ASKED == ["Refund A-17"]


def test_on_a_queue_the_parent_waits_for_its_step_agent_holding_nothing_and_asks_once(
    store: RunStore,
) -> None:
    ASKED.clear()
    waiting = asyncio.run(CLERK.astart(store, _start(CLERK), run_id="clerk", inline=False)).unwrap()
    assert not waiting.finished and waiting.snapshot.state is State.EXECUTE
    record = store.get("clerk").unwrap()
    assert record.status is RunStatus.WAITING and record.owner == ""
    child_id = child_run_id("clerk", stored_children(store, "clerk").unwrap()[0].seq)
    assert store.get(child_id).unwrap().status is RunStatus.READY  # its own run, queued for a worker
    REFUNDS.resume(store, child_id, inline=False).unwrap()
    assert store.get("clerk").unwrap().status is RunStatus.READY  # answered by the child's end
    done = CLERK.resume(store, "clerk").unwrap()
    assert done.snapshot.memory.final_result is not None
    assert done.snapshot.memory.final_result.answer == "All done. Order A-17 is refunded in full."
    assert len(stored_children(store, "clerk").unwrap()) == 1 and ASKED == ["Refund A-17"]


def test_a_worker_runs_the_parent_then_its_step_agent_then_the_parent_again_each_step_once(
    store: RunStore,
) -> None:
    assert isinstance(store, RunQueue)
    ASKED.clear()
    CLERK.enqueue(store, _start(CLERK), run_id="clerk").unwrap()
    ended: list[str] = []

    async def work() -> int:
        stop = asyncio.Event()

        def report(run_id: str, outcome: Outcome) -> None:
            ended.append(run_id)
            if run_id == "clerk" and store.get("clerk").unwrap().status is RunStatus.FINISHED:
                stop.set()

        return await asyncio.wait_for(serve(store, [CLERK, REFUNDS], stop, report=report), timeout=60)

    taken = asyncio.run(work())
    child_id = child_run_id("clerk", stored_children(store, "clerk").unwrap()[0].seq)
    assert ended == ["clerk", child_id, "clerk"] and taken == 3  # the parent let go while it waited
    done = store.get("clerk").unwrap()
    assert done.status is RunStatus.FINISHED and ASKED == ["Refund A-17"]


def test_a_cancelled_step_agent_is_a_step_error(store: RunStore) -> None:
    asyncio.run(CLERK.astart(store, _start(CLERK), run_id="clerk", inline=False))
    child_id = child_run_id("clerk", stored_children(store, "clerk").unwrap()[0].seq)
    assert cancel(store, child_id).unwrap() == (child_id,)
    done = CLERK.resume(store, "clerk").unwrap()
    assert done.snapshot.state is State.HALT and done.snapshot.memory.error is not None
    assert "ChildCancelled" in done.snapshot.memory.error.message


def test_a_failed_step_agent_is_a_step_error_that_halts_under_halt_on_tool_error(store: RunStore) -> None:
    done = LOST.start(store, _start(LOST), run_id="lost").unwrap()
    assert done.snapshot.state is State.HALT and store.get("lost").unwrap().status is RunStatus.FAILED
    error = done.snapshot.memory.error
    assert error is not None and error.cause is HaltCause.TOOL_FAILURE and error.state is State.LOOP_CHECK
    assert "step agent 'refunds' failed: ERROR: ChildFailed" in error.message


def test_without_halt_on_tool_error_the_executor_is_told_the_step_failed_and_goes_on(store: RunStore) -> None:
    done = LENIENT.start(store, _start(LENIENT), run_id="lenient").unwrap()
    memory = done.snapshot.memory
    assert done.snapshot.state is State.FINALIZE and memory.final_result is not None
    assert "could not do it" in memory.final_result.answer
    assert memory.observations[-1].is_error


def test_in_process_the_step_agent_runs_inline() -> None:
    fsm = AgentFSM(
        provider=Clerk(),
        tools={"order_status": order_status},
        step_agents=clerk().step_agents,
        children=in_process_children([REFUNDS]),
    )
    completed = fsm.run("Please refund A-17").unwrap()
    assert completed.result.answer == "All done. Order A-17 is refunded in full."
    events = [e.event for e in completed.fsm.snapshot.trace]
    assert events.count(Event.TOOL_CALLS_PRESENT.name) == 2


class Echo:
    """A step agent's model: it says it did its step (the message it was given)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def complete(self, request: LlmRequest) -> LlmReply:
        asked = [m.content for m in request.messages if isinstance(m, UserMessage)][-1]
        ASKED.append(f"{self.name}:{asked}")
        return LlmReply(content=f"The agent {self.name} has carried out the step: {asked}.")


def _echo(name: str) -> Durable[Any, Any, Any]:
    built = AgentBuilder.new("").llm(Echo(name)).build().unwrap()
    return Durable(
        name=f"tests.teams.test_plan_steps:{name.upper()}",
        machine=built.machine,
        shell=built.shell,
        template=built.memory,
        failure=agent_failure,
    )


ECHOES = {name: _echo(name) for name in ("a", "b")}


class Planned:
    """The planner's model: the given plan, then an answer at every EXECUTE (closing the steps so far)."""

    def __init__(self, plan: str) -> None:
        self.plan = plan

    def complete(self, request: LlmRequest) -> LlmReply:
        if request.response_schema is not None:
            return LlmReply(content=self.plan)
        return LlmReply(content=f"Done, after reading {len(request.messages)} messages.")


@settings(max_examples=40, deadline=None)
@given(
    steps=st.lists(
        st.tuples(st.sampled_from(["x", "y", "z"]), st.sampled_from([None, "a", "b"])), max_size=5
    ),
    budget=st.integers(min_value=0, max_value=8),
)
def test_every_agent_step_runs_once_in_plan_order_or_the_run_halts_on_its_budget(
    steps: list[tuple[str, str | None]], budget: int
) -> None:
    ASKED.clear()
    items = [
        text if agent is None else {"step": f"{text}{n}", "agent": agent}
        for n, (text, agent) in enumerate(steps)
    ]
    fsm = AgentFSM(
        provider=Planned(json.dumps({"goal": "g", "initial_steps": items})),
        step_agents=[step_agent(name, f"agent {name}", program) for name, program in ECHOES.items()],
        children=in_process_children(ECHOES.values()),
        max_iterations=budget,
    )
    snapshot = run(fsm.machine, fsm.start("go"), fsm.shell()).unwrap()  # FINALIZE or HALT, never a crash
    memory = snapshot.memory
    wanted = [f"{agent}:{text}{n}" for n, (text, agent) in enumerate(steps) if agent is not None]
    assert wanted[: len(ASKED)] == ASKED  # in plan order, each once
    ran = [o.call_id for o in memory.observations]
    assert ran == [f"step-{n + 1}" for n, (_, agent) in enumerate(steps) if agent is not None][: len(ran)]
    if snapshot.state is State.FINALIZE:
        assert wanted == ASKED  # a finished run ran every agent step
    else:
        assert memory.error is not None and memory.error.cause is HaltCause.MAX_ITERATIONS
    assert memory.iteration <= budget
