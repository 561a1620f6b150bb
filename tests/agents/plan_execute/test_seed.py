"""The seed's three RSpec examples, translated (agent_runtime, "Testing FSM Workflows")."""

from __future__ import annotations

from returns.result import Failure, Success

from agentsm_fn.agents.plan_execute import (
    ExecutionError,
    HaltCause,
    MaxIterationsExceeded,
    PlanExecuteCompleted,
    State,
)

from .helpers import answer, build_agent, call, plan_reply, scripted, tool_reply


def test_transitions_through_all_states_correctly() -> None:
    provider = scripted(
        plan_reply(),
        tool_reply(call("search", "c1")),
        tool_reply(call("read", "c2")),
        answer(),
    )
    agent = build_agent(provider)

    result = agent.run("Test workflow")

    assert isinstance(result, Success)
    done = result.unwrap()
    assert isinstance(done, PlanExecuteCompleted)
    assert done.fsm.terminal is True
    assert done.fsm.state_name == "FINALIZE"
    assert done.result.done is True
    visited = [t.source for t in done.fsm.history] + [done.fsm.history[-1].target]
    assert visited == [
        State.INTAKE,
        State.PLAN,
        State.DECIDE,
        State.EXECUTE,
        State.OBSERVE,
        State.LOOP_CHECK,
        State.EXECUTE,
        State.OBSERVE,
        State.LOOP_CHECK,
        State.EXECUTE,
        State.FINALIZE,
    ]
    assert done.fsm.history[0].as_dict() == {"from": 0, "to": 1, "reason": "Input normalized", "iteration": 0}
    assert done.fsm.history[1].as_dict() == {"from": 1, "to": 2, "reason": "Plan created", "iteration": 0}


def test_halts_on_invalid_plan() -> None:
    agent = build_agent(scripted(answer("I would search the web, then read a page.")))

    result = agent.run("Test")

    assert isinstance(result, Failure)
    error = result.failure()
    assert isinstance(error, ExecutionError)
    assert error.cause is HaltCause.INVALID_PLAN
    assert error.fsm.state_name == "HALT"
    assert error.fsm.history[-1].source is State.PLAN


def test_respects_max_iterations() -> None:
    provider = scripted(*([plan_reply()] + [tool_reply(call("search", f"c{i}")) for i in range(10)]))
    agent = build_agent(provider, max_iterations=3)

    result = agent.run("Infinite loop test")

    assert isinstance(result, Failure)
    error = result.failure()
    assert isinstance(error, MaxIterationsExceeded)
    assert error.max_iterations == 3
    assert error.fsm.memory.iteration == 3
    assert error.fsm.state_name == "HALT"
    assert len(provider.requests) == 1 + 3  # the plan, then exactly three EXECUTE calls
