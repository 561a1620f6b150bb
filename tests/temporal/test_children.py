"""Child runs on Temporal: a parent's ChildRun and Children effects as child workflows.

The programs are the teams tests' (tests/teams/programs.py): a child that notes its number
(13 fails, a negative number is refused), a parent that delegates to it, fan-outs over it.
A child whose ``Note`` is awaited waits for an answer nobody gives: it runs until cancelled.
"""

from __future__ import annotations

import asyncio
from typing import Any

from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle
from temporalio.service import RPCError

from agentsm_fn import Machine
from agentsm_fn.agents.react.states import State
from agentsm_fn.durable import Durable
from agentsm_fn.llm import LlmReply, LlmRequest, ToolCall, ToolResultMessage, UserMessage
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.teams import ChildCancelled, ChildFailed, ChildFinished, GatherPolicy, delegate, fan_out
from agentsm_fn.temporal import RunCancelled, TemporalMachine, machine_replayer, machine_worker, start_run
from tests.teams.programs import (
    CHILD,
    CHILD_MACHINE,
    DELEGATOR,
    FANNER,
    PE,
    STRICT,
    Boss,
    C,
    Note,
    P,
    _gathered,
    _kept,
)
from tests.temporal.helpers import queue, wait_for_pending

AnyServed = Machine[Any, Any, Any] | TemporalMachine[Any, Any, Any]
PERFORMERS = CHILD.shell().performers
WAITING_CHILD = TemporalMachine(machine=CHILD_MACHINE, awaited=[Note])
"""The child, its note awaited: it waits until cancelled."""


async def test_a_child_finishes_fails_or_is_refused_and_the_parent_replays(client: Client) -> None:
    task_queue = queue()
    async with machine_worker(client, task_queue, [DELEGATOR.machine], PERFORMERS, programs=[CHILD]):
        ends = {}
        for n in (4, 13, -1):
            run_id = f"boss{n}-{task_queue}"
            run = await start_run(client, DELEGATOR.machine, Boss(n=n), run_id=run_id, task_queue=task_queue)
            ends[n] = (await run.result()).unwrap()
        history = await client.get_workflow_handle(f"boss4-{task_queue}").fetch_history()
    finished, failed, refused = ends[4], ends[13], ends[-1]
    assert finished.state is P.DONE and finished.memory.outcome == ChildFinished(
        run_id=f"boss4-{task_queue}.c0", program=CHILD.name, state="DONE", result=8
    )
    assert failed.state is P.GAVE_UP and isinstance(failed.memory.outcome, ChildFailed)
    assert "thirteen is unlucky" in failed.memory.outcome.reason
    assert refused.state is P.DONE and isinstance(refused.memory.outcome, ChildFinished)
    assert refused.memory.outcome.state == "REFUSED"
    await machine_replayer([DELEGATOR.machine], programs=[CHILD]).replay_workflow(history)


async def test_a_fan_out_gathers_in_order_and_cancel_rest_cancels_the_rest(client: Client) -> None:
    items = (1, 2, 13, 3, 4)
    outcomes = {}
    for parent in (FANNER, STRICT):  # limit 3, the rest go on; limit 1, the rest are cancelled
        task_queue = queue()
        async with machine_worker(client, task_queue, [parent.machine], PERFORMERS, programs=[CHILD]):
            run_id = f"fan-{task_queue}"
            run = await start_run(
                client, parent.machine, Boss(items=items), run_id=run_id, task_queue=task_queue
            )
            ended = (await run.result()).unwrap()
        assert ended.state is P.GAVE_UP and ended.memory.gathered is not None
        outcomes[parent.name] = ended.memory.gathered.outcomes
        assert [o.run_id for o in outcomes[parent.name]] == [f"{run_id}.c0.{i}" for i in range(5)]
    assert [type(o) for o in outcomes[FANNER.name]] == [ChildFinished] * 2 + [ChildFailed] + [
        ChildFinished
    ] * 2
    assert [getattr(o, "result", None) for o in outcomes[FANNER.name]] == [2, 4, None, 6, 8]
    kinds = [ChildFinished, ChildFinished, ChildFailed, ChildCancelled, ChildCancelled]
    assert [type(o) for o in outcomes[STRICT.name]] == kinds


async def wait_for_child(child: WorkflowHandle[object, object]) -> None:
    for _ in range(500):  # a bounded poll: the parent starts its child within a few workflow tasks
        try:
            await child.describe()
        except RPCError:
            await asyncio.sleep(0.02)
        else:
            return
    raise AssertionError("the child never started")


RUNNING_STRICT = FANNER.machine.extend(
    handlers={
        P.ASK: fan_out(
            program=CHILD.name,
            child=CHILD_MACHINE,
            items=lambda boss: boss.items,
            all_finished=PE.ANSWERED,
            some_failed=PE.BROKE,
            limit=5,
            policy=GatherPolicy.CANCEL_REST,
            merge=_gathered,
        )
    }
)


async def test_cancelling_a_parent_cancels_its_child_and_cancel_rest_cancels_running_children(
    client: Client,
) -> None:
    task_queue = queue()
    machines: list[AnyServed] = [DELEGATOR.machine, WAITING_CHILD]
    async with machine_worker(client, task_queue, machines, PERFORMERS, programs=[CHILD]):
        parent = await start_run(
            client, DELEGATOR.machine, Boss(n=5), run_id=f"p-{task_queue}", task_queue=task_queue
        )
        child = client.get_workflow_handle(f"p-{task_queue}.c0")
        await wait_for_child(child)
        await wait_for_pending(type(parent)(child))  # the child waits on its note
        await parent.cancel()
        stopped = (await parent.result()).failure()
        assert isinstance(stopped, RunCancelled)
        assert (await child.describe()).status is WorkflowExecutionStatus.CANCELED
    task_queue = queue()  # the child's 13 fails at once while the other four wait: they are cancelled
    machines = [RUNNING_STRICT, WAITING_CHILD]
    async with machine_worker(client, task_queue, machines, PERFORMERS, programs=[CHILD]):
        run_id = f"fan-{task_queue}"
        run = await start_run(
            client, RUNNING_STRICT, Boss(items=(1, 2, 13, 3, 4)), run_id=run_id, task_queue=task_queue
        )
        ended = (await run.result()).unwrap()
    assert ended.memory.gathered is not None
    assert [type(o) for o in ended.memory.gathered.outcomes] == [ChildCancelled] * 2 + [ChildFailed] + [
        ChildCancelled
    ] * 2


class Both:
    """One model for both agents (a worker has one set of performers): the desk asks, refunds refunds."""

    def complete(self, request: LlmRequest) -> LlmReply:
        if not any(t.name == "ask_refunds" for t in request.tools):
            asked = [m.content for m in request.messages if isinstance(m, UserMessage)][-1]
            return LlmReply(content=f"Order {asked.split()[-1]} is refunded in full.")
        seen = [m.content for m in request.messages if isinstance(m, ToolResultMessage)]
        return LlmReply(content=" | ".join(seen)) if seen else LlmReply(tool_calls=(ASK,))


def _agent(name: str, builder: AgentBuilder[str]) -> Durable[Any, Any, Any]:
    built = builder.build().unwrap()
    return Durable(name=name, machine=built.machine, shell=built.shell, template=built.memory)


ASK = ToolCall("c1", "ask_refunds", {"input": "Refund A-17"})
REFUNDS = _agent("tests.temporal.test_children:REFUNDS", AgentBuilder.new("").llm(Both()))
DESK = _agent(
    "tests.temporal.test_children:DESK",
    AgentBuilder.new("Please refund A-17").llm(Both()).agent_tool("ask_refunds", "Refunds", REFUNDS),
)


async def test_an_agent_tool_runs_the_other_agent_as_a_child_workflow(client: Client) -> None:
    task_queue = queue()
    async with machine_worker(
        client, task_queue, [DESK.machine], DESK.shell().performers, programs=[REFUNDS]
    ):
        run_id = f"desk-{task_queue}"
        run = await start_run(client, DESK.machine, DESK.template, run_id=run_id, task_queue=task_queue)
        done = (await run.result()).unwrap()
        child = await client.get_workflow_handle(f"{run_id}.c1").describe()
    assert done.state is State.Done
    assert done.memory.final_answer == "SUCCESS: Order A-17 is refunded in full."
    assert child.workflow_type == REFUNDS.machine.name and child.status is WorkflowExecutionStatus.COMPLETED


NOWHERE = "tests.temporal.test_children:NOWHERE"
UNSERVED = DELEGATOR.machine.extend(
    handlers={
        P.ASK: delegate(
            program=NOWHERE,  # served by no worker (nor replayer) of this process
            child=CHILD_MACHINE,
            start=lambda boss: boss.n,
            ends={C.DONE: PE.ANSWERED, C.REFUSED: PE.DECLINED},
            failed=PE.BROKE,
            cancelled=PE.STOPPED,
            merge=_kept,
        )
    }
)


async def test_a_child_program_the_worker_does_not_serve_fails_the_workflow_task(client: Client) -> None:
    task_queue = queue()
    async with machine_worker(client, task_queue, [UNSERVED], PERFORMERS, programs=[CHILD]):
        run_id = f"unserved-{task_queue}"
        await start_run(client, UNSERVED, Boss(n=4), run_id=run_id, task_queue=task_queue)
        handle = client.get_workflow_handle(run_id)
        for _ in range(500):  # a bounded poll: the first workflow task fails within a second
            history = await handle.fetch_history()
            failed = [e for e in history.events if e.HasField("workflow_task_failed_event_attributes")]
            if failed:
                break
            await asyncio.sleep(0.02)
        else:
            raise AssertionError("the workflow task never failed")
        message = failed[0].workflow_task_failed_event_attributes.failure.message
        assert f"no child program {NOWHERE!r} is served on {task_queue!r}" in message
        await handle.terminate()
