"""Both built-in agents on a real Temporal server: LLM calls and tools as activities.

Each run ends with the memory of the same agent run locally, and Temporal's Replayer
replays the recorded histories of both with no non-determinism error.
"""

from __future__ import annotations

from temporalio.client import Client

from agentsm_fn.agents.react import Approved, AskHuman, Suspended
from agentsm_fn.temporal import (
    machine_replayer,
    machine_worker,
    plan_execute_on_temporal,
    react_on_temporal,
    start_run,
)
from tests.agents.output.durables import AGENT as INVOICE_AGENT
from tests.agents.output.durables import PLANNER
from tests.agents.output.invoices import INVOICE, Invoice
from tests.temporal.agents import plan_agent, react_agent
from tests.temporal.helpers import queue, wait_for_pending


async def test_the_react_agent_waits_for_approval_and_ends_as_it_does_locally(client: Client) -> None:
    agent, task_queue = react_agent(), queue()
    spec = react_on_temporal(agent)
    async with machine_worker(client, task_queue, [spec], agent.shell().performers):
        run = await start_run(client, spec, agent.memory, run_id=f"react-{task_queue}", task_queue=task_queue)
        waiting = await wait_for_pending(run)
        assert isinstance(waiting.effect, AskHuman) and waiting.effect.request.tool_call.name == "book"
        assert (await run.answer(Approved())).unwrap() == waiting.seq
        finished = (await run.result()).unwrap()
        history = await run.handle.fetch_history()
    suspended = agent.run().unwrap()
    assert isinstance(suspended, Suspended)
    local = agent.resume(suspended, Approved()).unwrap()
    assert finished.memory == local.memory
    assert (
        finished.memory.final_answer == "I booked flight AF1 for you after searching the available flights."
    )
    await machine_replayer([spec]).replay_workflow(history)


async def test_plan_and_execute_ends_as_it_does_locally(client: Client) -> None:
    fsm, task_queue = plan_agent(), queue()
    spec = plan_execute_on_temporal(fsm)
    async with machine_worker(client, task_queue, [spec], fsm.shell().performers):
        start = fsm.start("Find the best PDF library for Ruby")
        run = await start_run(client, spec, start, run_id=f"plan-{task_queue}", task_queue=task_queue)
        finished = (await run.result()).unwrap()
        history = await run.handle.fetch_history()
    local = fsm.run("Find the best PDF library for Ruby").unwrap()
    assert finished.memory == local.fsm.snapshot.memory
    assert finished.memory.final_result is not None
    assert finished.memory.final_result.content == "Prawn is the usual choice."
    await machine_replayer([spec]).replay_workflow(history)


async def test_a_typed_plan_and_execute_agent_ends_with_its_result_of_the_class(client: Client) -> None:
    task_queue = queue()
    spec = plan_execute_on_temporal(PLANNER)  # the agent's machine: answers read as Invoices
    # the result's class lives in tests: passed through, as memory classes are (docs/temporal.md)
    async with machine_worker(
        client, task_queue, [spec], PLANNER.shell().performers, passed_through=["tests"]
    ):
        start = PLANNER.start("Extract INV-7")
        run = await start_run(client, spec, start, run_id=f"plan-typed-{task_queue}", task_queue=task_queue)
        finished = (await run.result()).unwrap()
    assert finished.state.name == "FINALIZE" and finished.memory.result == INVOICE
    assert isinstance(finished.memory.result, Invoice)


async def test_a_typed_react_agent_ends_with_its_result_of_the_class(client: Client) -> None:
    task_queue = queue()
    spec = react_on_temporal(INVOICE_AGENT)
    async with machine_worker(client, task_queue, [spec], INVOICE_AGENT.shell().performers):
        memory = INVOICE_AGENT.memory
        run = await start_run(client, spec, memory, run_id=f"react-typed-{task_queue}", task_queue=task_queue)
        finished = (await run.result()).unwrap()
    assert finished.state.name == "Done" and finished.memory.result == INVOICE
