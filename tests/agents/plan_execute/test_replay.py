"""Replay: a recorded run folds back to the identical final snapshot with no provider and no tools."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Success

from agentsm_fn.agents.plan_execute import (
    PLAN_EXECUTE_MACHINE,
    FinalizerConfig,
    OutputInvalidError,
    PlanExecutePolicy,
)
from agentsm_fn.core.engine import replay
from agentsm_fn.llm import LlmOutcome

from .helpers import answer, build_agent, call, failure, plan_reply, scripted, tool_reply


def test_replay_from_the_start_snapshot_reproduces_the_final_snapshot() -> None:
    provider = scripted(
        plan_reply(),
        tool_reply(call("search", "c1")),
        tool_reply(call("read", "c2")),
        answer(),
        answer("sum"),
    )
    agent = build_agent(
        provider, policy=PlanExecutePolicy(time_limit_seconds=3600), finalizer=FinalizerConfig(summarize=True)
    )
    done = agent.run("Find the best PDF library for Ruby").unwrap()
    calls_before = len(provider.requests)

    replayed = replay(
        PLAN_EXECUTE_MACHINE, agent.start("Find the best PDF library for Ruby"), done.fsm.journal
    )

    assert replayed == Success(done.fsm.snapshot)
    assert len(provider.requests) == calls_before  # replay performed nothing
    assert done.result.summary == "sum"
    assert done.fsm.memory.started_at == 1001.0  # the ReadClock outcome (the engine's tick read 1000.0)


def test_replay_of_a_halted_run_reproduces_the_halt() -> None:
    agent = build_agent(scripted(plan_reply(), tool_reply(call("search", "c1")), failure()))
    error = agent.run("Find it").failure()
    assert not isinstance(error, OutputInvalidError)  # a text result: no output is invalid
    replayed = replay(PLAN_EXECUTE_MACHINE, agent.start("Find it"), error.fsm.journal)
    assert replayed == Success(error.fsm.snapshot)
    assert replayed.unwrap().state.name == "HALT"


def _script(choices: list[int]) -> list[LlmOutcome]:
    options: list[LlmOutcome] = [
        tool_reply(call("search", "c1")),
        tool_reply(call("read", "c2"), call("search", "c3")),
        answer(),
        failure(),
    ]
    return [plan_reply(), *(options[c] for c in choices)]


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(st.lists(st.integers(0, 3), max_size=6), st.integers(0, 4), st.booleans())
def test_replay_equals_run_for_any_script(choices: list[int], max_iterations: int, use_async: bool) -> None:
    agent = build_agent(scripted(*_script(choices)), max_iterations=max_iterations)
    outcome = asyncio.run(agent.arun("task")) if use_async else agent.run("task")
    failure = None if isinstance(outcome, Success) else outcome.failure()
    assert not isinstance(failure, OutputInvalidError)
    fsm = outcome.unwrap().fsm if failure is None else failure.fsm
    assert fsm.terminal
    assert replay(PLAN_EXECUTE_MACHINE, agent.start("task"), fsm.journal) == Success(fsm.snapshot)
