"""The plan-and-execute agent's typed final result, with a scripted LLM (no IO).

``AgentFSM.result_type(Invoice)`` is an ``AgentFSM[Invoice]``: mypy --strict checks the
annotated assignments below with no cast. An answer that is not a valid result goes back to
the model (CORRECTING) with every problem, the output validators' too, and one that stays
invalid halts with ``OutputInvalidError`` (the ReAct agent's type), the last reply kept.
"""

from __future__ import annotations

import asyncio

import attrs
import pytest
from returns.result import Result, Success

from agentsm_fn import begin
from agentsm_fn.agents.output import OutputSpec, result_type
from agentsm_fn.agents.plan_execute import (
    PLAN_EXECUTE_MACHINE,
    FinalizerConfig,
    HaltCause,
    OutputInvalidError,
    PlanExecuteCompleted,
    PlanExecuteMemory,
    PlanExecuteOutcome,
    State,
    plan_execute_failure,
    plan_execute_machine,
    plan_execute_result,
)
from agentsm_fn.core.fingerprint import machine_fingerprint
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.llm import JsonObject, LlmReply, ToolCall
from agentsm_fn.shell.plan_execute_agent import AgentFSM
from agentsm_fn.shell.run import run
from agentsm_fn.shell.scripted_llm import ScriptedLlm
from agentsm_fn.stream.events import Finished
from tests.agents.output.invoices import INVOICE, INVOICE_JSON, Invoice, Ticket, totals_match

ACK = OutputSpec(
    name="Ack", schema={"type": "object", "required": ["ok"], "properties": {"ok": {"type": "boolean"}}}
)
ACK_SCHEMA = {"title": "Ack", **ACK.schema}
PLAN = LlmReply(content='{"goal": "ack", "initial_steps": ["answer"]}')
BAD_TOTAL = INVOICE_JSON.replace('"amount": 3.0', '"amount": 4.0')
WRONG_TYPE = INVOICE_JSON.replace('"quantity": 2', '"quantity": "2"')


def _run(replies: list[LlmReply], retries: int = 3) -> tuple[Snapshot[State, PlanExecuteMemory], ScriptedLlm]:
    llm = ScriptedLlm([PLAN, *replies])
    agent = AgentFSM(provider=llm, finalizer=FinalizerConfig(max_output_retries=retries), max_iterations=5)
    memory = attrs.evolve(agent.memory("Acknowledge"), output=ACK)
    return run(PLAN_EXECUTE_MACHINE, begin(PLAN_EXECUTE_MACHINE, memory), agent.shell()).unwrap(), llm


def invoices(*replies: str, retries: int = 2) -> tuple[AgentFSM[Invoice], ScriptedLlm]:
    llm = ScriptedLlm([PLAN, *(LlmReply(content=r) for r in replies)])
    agent = AgentFSM(provider=llm, finalizer=FinalizerConfig(max_output_retries=retries))
    return agent.result_type(Invoice).validate_result(totals_match), llm


def test_a_memory_asking_for_a_schema_is_checked_by_the_plain_machine() -> None:
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


def test_the_result_is_a_value_of_the_class_typed_through_the_facade() -> None:
    agent, llm = invoices(INVOICE_JSON)
    outcome: PlanExecuteOutcome[Invoice] = agent.run("Extract INV-7")
    done: PlanExecuteCompleted[Invoice] = outcome.unwrap()
    invoice: Invoice = done.value  # mypy infers Invoice through AgentFSM[Invoice]: no cast
    assert invoice == INVOICE and done.result.answer == INVOICE_JSON
    assert llm.requests[1].response_name == "Invoice" and llm.requests[1].response_schema is not None
    assert plan_execute_result(done.fsm.memory) == INVOICE
    text: str = AgentFSM(provider=ScriptedLlm([PLAN, LlmReply(content="hi")])).run("x").unwrap().value
    assert text == "hi"


def test_two_invalid_answers_go_back_with_their_problems_the_validators_too() -> None:
    agent, llm = invoices("Here it is!", BAD_TOTAL, INVOICE_JSON)
    done = agent.run("Extract INV-7").unwrap()
    assert done.value == INVOICE and done.fsm.memory.output_retries == 2
    second, third = (request.messages[-1].content for request in llm.requests[2:])
    assert second.startswith("Your reply is not a valid Invoice:\n- $: not JSON (Expecting value")
    assert "- $: total 4.0 is not the sum of the lines (3.0)" in third
    assert [m.content for m in llm.requests[3].messages[-4:-1:2]] == ["Here it is!", BAD_TOTAL]


def test_an_answer_that_stays_invalid_fails_with_the_typed_reason() -> None:
    agent, _ = invoices("no", WRONG_TYPE, BAD_TOTAL)
    failure = agent.run("Extract INV-7").failure()
    assert isinstance(failure, OutputInvalidError)
    assert failure.reply == BAD_TOTAL and failure.retries == 2
    assert (
        failure.describe() == "Output invalid after 2 retries: $: total 4.0 is not the sum of the lines (3.0)"
    )
    assert failure.snapshot is not None and failure.snapshot.state is State.HALT
    assert [r.reply for r in failure.snapshot.memory.rejected_outputs] == ["no", WRONG_TYPE, BAD_TOTAL]
    reason = plan_execute_failure(failure.snapshot)
    assert reason is not None and reason.startswith("output_invalid in CORRECTING: Output invalid after 2")


def test_a_typeddict_or_a_schema_gives_its_own_values() -> None:
    llm = ScriptedLlm([PLAN, LlmReply(content='{"category": "billing", "urgent": true}')])
    ticket: Ticket = AgentFSM(provider=llm).result_type(Ticket).run("Triage").unwrap().value
    assert ticket == {"category": "billing", "urgent": True} and type(ticket) is dict
    schema = {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}
    llm = ScriptedLlm([PLAN, LlmReply(content='{"n": 3}')])
    count: JsonObject = AgentFSM(provider=llm).result_type(schema).run("Count").unwrap().value
    assert dict(count) == {"n": 3}


def test_a_finish_tool_s_result_and_a_summary_are_checked_too() -> None:
    call = LlmReply(tool_calls=(ToolCall("c1", "done"),))

    def done() -> str:
        """Finish."""
        return '{"ok": 1}'

    llm = ScriptedLlm([PLAN, call, LlmReply(content='{"ok": true}')])
    agent = AgentFSM(provider=llm, tools={"done": done}, finish_tools={"done"}).result_type(ACK_SCHEMA)
    outcome = agent.run("Ack")
    assert outcome.unwrap().value == {"ok": True}
    assert "$.ok: 1 is not of type 'boolean'" in llm.requests[2].messages[-1].content
    summary = FinalizerConfig(summarize=True)
    llm = ScriptedLlm([PLAN, LlmReply(content="ok"), LlmReply(content='{"ok": false}')])
    summed = AgentFSM(provider=llm, finalizer=summary).result_type(ACK_SCHEMA).run("Ack").unwrap()
    assert summed.value == {"ok": False} and llm.requests[2].response_name == "Ack"


def test_the_typed_machine_keeps_the_table_and_names_its_result() -> None:
    typed = plan_execute_machine(result_type(Invoice).validated_by(totals_match))
    assert typed.table == PLAN_EXECUTE_MACHINE.table and typed.budgeted == PLAN_EXECUTE_MACHINE.budgeted
    assert machine_fingerprint(typed) != machine_fingerprint(PLAN_EXECUTE_MACHINE)
    assert typed.handlers[State.LOOP_CHECK].functions[0].__qualname__ == "loop_check_enter[Invoice]"
    assert plan_execute_machine() is PLAN_EXECUTE_MACHINE
    assert plan_execute_machine(result_type(Invoice)) is plan_execute_machine(result_type(Invoice))


def test_a_validator_s_changed_value_is_the_result_and_a_result_tool_is_refused() -> None:
    def rounded(invoice: Invoice) -> Result[Invoice, str]:
        return Success(attrs.evolve(invoice, note="checked"))

    llm = ScriptedLlm([PLAN, LlmReply(content=INVOICE_JSON)])
    done = AgentFSM(provider=llm).result_type(Invoice).validate_result(rounded).run("x").unwrap()
    assert done.value == attrs.evolve(INVOICE, note="checked")

    def final_result() -> str:
        """Clash."""
        return ""

    with pytest.raises(ValueError, match="may not be called 'final_result'"):
        AgentFSM(provider=llm, tools={"final_result": final_result}, output=result_type(Invoice))


def test_arun_and_astream_give_the_value_of_the_class_too() -> None:
    agent, _ = invoices(BAD_TOTAL, INVOICE_JSON)
    done: PlanExecuteCompleted[Invoice] = asyncio.run(agent.arun("Extract INV-7")).unwrap()
    assert done.value == INVOICE

    async def last_event() -> object:
        streaming, _ = invoices(INVOICE_JSON)
        return [event async for event in streaming.astream("Extract INV-7")][-1]

    finished = asyncio.run(last_event())
    assert isinstance(finished, Finished) and finished.state == "FINALIZE"
    assert isinstance(finished.result, Success) and finished.result.unwrap().value == INVOICE
