"""Step agents on Temporal: a plan step given to a durable agent runs as a child workflow of it.

A worker has one set of performers for a parent and its children: one model answers both agents
(the clerk's planner and executor, and the refunds agent).
"""

from __future__ import annotations

from typing import Any

from temporalio.client import Client, WorkflowExecutionStatus

from agentsm_fn.agents.plan_execute import State, StepAgent, step_child
from agentsm_fn.durable import Durable
from agentsm_fn.llm import LlmReply, LlmRequest, SystemMessage, UserMessage
from agentsm_fn.shell.plan_execute_agent import AgentFSM
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.temporal import machine_replayer, machine_worker, start_run
from tests.temporal.helpers import queue

PLAN = (
    '{"goal": "refund A-17", "initial_steps": [{"step": "Refund A-17", "agent": "refunds"}, "Tell the user"]}'
)


class Both:
    """The plan; the refunds agent's answer to its step; the clerk's answer from the step's result."""

    def complete(self, request: LlmRequest) -> LlmReply:
        if request.response_schema is not None:
            return LlmReply(content=PLAN)
        said = [m.content for m in request.messages if isinstance(m, UserMessage)]
        first = request.messages[0] if request.messages else None
        if isinstance(first, SystemMessage) and "Plan steps:" in first.content:  # the clerk's executor
            return LlmReply(content="Done. " + said[-1].splitlines()[-1])
        return LlmReply(content=f"Order {said[-1].split()[-1]} is refunded in full.")


def _refunds() -> Durable[Any, Any, Any]:
    built = AgentBuilder.new("").llm(Both()).build().unwrap()
    return Durable(
        name="tests.temporal.test_plan_steps:REFUNDS",
        machine=built.machine,
        shell=built.shell,
        template=built.memory,
    )


REFUNDS = _refunds()
AGENT = StepAgent(name="refunds", description="Refunds an order", program=REFUNDS.name)
CLERK = AgentFSM(
    provider=Both(),
    step_agents=[step_child(AGENT, REFUNDS.machine)],
)


async def test_a_plan_step_given_to_an_agent_runs_as_a_child_workflow_and_replays(client: Client) -> None:
    task_queue = queue()
    async with machine_worker(
        client, task_queue, [CLERK.machine], CLERK.shell().performers, programs=[REFUNDS]
    ):
        run_id = f"clerk-{task_queue}"
        run = await start_run(
            client, CLERK.machine, CLERK.memory("Please refund A-17"), run_id=run_id, task_queue=task_queue
        )
        done = (await run.result()).unwrap()
        history = await client.get_workflow_handle(run_id).fetch_history()
        (child_id,) = [
            e.child_workflow_execution_started_event_attributes.workflow_execution.workflow_id
            for e in history.events
            if e.HasField("child_workflow_execution_started_event_attributes")
        ]
        child = await client.get_workflow_handle(child_id).describe()
    assert done.state is State.FINALIZE and done.memory.final_result is not None
    assert done.memory.final_result.answer == "Done. Order A-17 is refunded in full."
    assert child_id.startswith(f"{run_id}.c")  # the child's id derives from the parent's and the effect's
    assert child.workflow_type == REFUNDS.machine.name and child.status is WorkflowExecutionStatus.COMPLETED
    await machine_replayer([CLERK.machine], programs=[REFUNDS]).replay_workflow(history)
