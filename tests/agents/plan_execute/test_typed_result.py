"""A typed final result (WIP): an invalid answer goes back to the model, then halts with the reply kept."""

from __future__ import annotations

import attrs

from agentsm_fn import begin
from agentsm_fn.agents.output import OutputSpec
from agentsm_fn.agents.plan_execute import (
    PLAN_EXECUTE_MACHINE,
    FinalizerConfig,
    HaltCause,
    PlanExecuteMemory,
    State,
)
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.llm import LlmReply
from agentsm_fn.shell.plan_execute_agent import AgentFSM
from agentsm_fn.shell.run import run
from agentsm_fn.shell.scripted_llm import ScriptedLlm

ACK = OutputSpec(
    name="Ack", schema={"type": "object", "required": ["ok"], "properties": {"ok": {"type": "boolean"}}}
)
PLAN = LlmReply(content='{"goal": "ack", "initial_steps": ["answer"]}')


def _run(replies: list[LlmReply], retries: int = 3) -> tuple[Snapshot[State, PlanExecuteMemory], ScriptedLlm]:
    llm = ScriptedLlm([PLAN, *replies])
    agent = AgentFSM(provider=llm, finalizer=FinalizerConfig(max_output_retries=retries), max_iterations=5)
    memory = attrs.evolve(agent.memory("Acknowledge"), output=ACK)
    return run(PLAN_EXECUTE_MACHINE, begin(PLAN_EXECUTE_MACHINE, memory), agent.shell()).unwrap(), llm


def test_two_invalid_answers_then_a_valid_one_give_the_result_and_name_each_problem() -> None:
    snap, llm = _run(
        [LlmReply(content="Sure!"), LlmReply(content='{"ok": "yes"}'), LlmReply(content='{"ok": true}')]
    )
    assert snap.state is State.FINALIZE and snap.memory.result == {"ok": True}
    assert llm.requests[1].response_schema is not None  # the executor asks for the result
    assert "$: not JSON" in llm.requests[2].messages[-1].content
    assert "$.ok: 'yes' is not of type 'boolean'" in llm.requests[3].messages[-1].content


def test_an_answer_that_stays_invalid_halts_with_the_last_reply_kept() -> None:
    snap, _ = _run([LlmReply(content="no")] * 2, retries=1)
    assert snap.state is State.HALT
    assert snap.memory.rejected_outputs[-1].reply == "no" and snap.memory.output_retries == 1
    assert snap.memory.error is not None and snap.memory.error.cause is HaltCause.OUTPUT_INVALID
