"""The ReAct agent's guardrails, scripted: typed checks, LLM verdicts of every kind, replay, threads."""

from __future__ import annotations

from typing import assert_type

from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success

from agentsm_fn import begin, replay
from agentsm_fn.agents.guardrails import Guardrail, OnTrip, guardrail, llm_guardrail
from agentsm_fn.agents.react import (
    REACT_MACHINE,
    AgentMemory,
    GuardrailTripped,
    ReactCompleted,
    ReactGuardrails,
    State,
    Suspended,
    react_machine,
)
from agentsm_fn.agents.react.outcomes import Approved, Modified
from agentsm_fn.llm import LlmFailure, LlmFailureKind, LlmOutcome, LlmReply, ToolCall
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.shell.react_performers import react_shell
from agentsm_fn.shell.run import run
from agentsm_fn.shell.scripted_llm import ScriptedLlm
from agentsm_fn.tools.registry import ToolRegistry
from tests.agents.output.invoices import INVOICE_JSON, Invoice, totals_match

ANSWER = "The capital of France is Paris."


def test_an_output_guardrail_checks_the_typed_value_mypy_infers() -> None:
    seen: list[Invoice] = []

    def small(invoice: Invoice) -> str | None:
        seen.append(invoice)
        return "over 100 EUR" if invoice.total.amount > 100 else None

    small_only: Guardrail[Invoice] = guardrail("small", small)
    agent = (
        AgentBuilder.new("Extract the invoice")
        .result_type(Invoice)
        .validate_result(totals_match)
        .guard_output(small_only)
        .llm(ScriptedLlm([LlmReply(content=INVOICE_JSON)]))
        .build()
        .unwrap()
    )
    done = agent.run().unwrap()
    assert isinstance(done, ReactCompleted)
    assert_type(done.result, Invoice)
    assert seen == [done.result] and done.result.number == "INV-7"


def test_the_builder_puts_llm_guardrails_in_memory_and_pure_ones_in_the_machine() -> None:
    polite: Guardrail[str] = llm_guardrail("polite", "Be polite.")
    short: Guardrail[str] = guardrail("short", lambda text: None)
    agent = AgentBuilder.new("t").guard_input(polite, short).llm(ScriptedLlm([])).build().unwrap()
    assert [(g.name, g.stage) for g in agent.memory.guardrails] == [("polite", "input")]
    assert repr(agent.machine.handlers[State.GuardingInput]) == "Guarding(input: short)"
    plain = AgentBuilder.new("t").guard_input(polite).llm(ScriptedLlm([])).build().unwrap()
    assert plain.machine is REACT_MACHINE  # data alone: the built-in machine runs it


def test_a_guarded_run_replays_exactly_with_no_llm() -> None:
    polite: Guardrail[str] = llm_guardrail("polite", "Be polite.", on_trip=OnTrip.ASK_HUMAN)
    llm = ScriptedLlm([LlmReply(content='{"tripped": true, "reason": "curt"}'), LlmReply(content=ANSWER)])
    agent = AgentBuilder.new("Capital of France?").guard_input(polite).llm(llm).build().unwrap()
    suspended = agent.run().unwrap()
    assert isinstance(suspended, Suspended) and suspended.snapshot.state is State.ReviewingInput
    done = agent.resume(suspended, Approved()).unwrap()
    assert isinstance(done, ReactCompleted) and done.answer == ANSWER
    again = replay(agent.machine, begin(agent.machine, agent.memory), done.snapshot.journal)
    assert again == Success(done.snapshot)


def test_an_input_guardrail_checks_each_new_message_of_a_thread() -> None:
    no_acme: Guardrail[str] = guardrail("no-acme", lambda text: "ACME" if "ACME" in text else None)
    machine = react_machine(guardrails=ReactGuardrails[str](input=(no_acme,)))
    first = AgentMemory.new("Hello")
    later = first.evolve(final_answer="Hi!").start_turn(
        first.evolve(final_answer="Hi!").thread_so_far(), "ACME?"
    )
    shell = react_shell(ScriptedLlm([]), ToolRegistry(), None, None, None)
    ended = run(machine, later, shell).unwrap()
    assert (
        ended.state is State.Refused and ended.memory.final_answer == "Refused by the no-acme guardrail: ACME"
    )


_VERDICTS: st.SearchStrategy[LlmOutcome] = st.one_of(
    st.builds(
        lambda tripped, reason: LlmReply(
            content=f'{{"tripped": {str(tripped).lower()}, "reason": "{reason}"}}'
        ),
        st.booleans(),
        st.sampled_from(("fine", "rude", "")),
    ),
    st.text(max_size=20).map(lambda text: LlmReply(content=text)),
    st.just(LlmFailure(kind=LlmFailureKind.TIMEOUT, message="slow")),
)


@given(
    before=_VERDICTS,
    after=_VERDICTS,
    actions=st.tuples(
        st.sampled_from([OnTrip.REFUSE, OnTrip.STOP]), st.sampled_from([OnTrip.REFUSE, OnTrip.STOP])
    ),
)
def test_any_verdict_either_lets_the_run_through_or_ends_it_as_its_guardrail_says(
    before: LlmOutcome, after: LlmOutcome, actions: tuple[OnTrip, OnTrip]
) -> None:
    guard_in: Guardrail[str] = llm_guardrail("in", "Check the task.", on_trip=actions[0])
    guard_out: Guardrail[str] = llm_guardrail("out", "Check the answer.", on_trip=actions[1])
    llm = ScriptedLlm([before, LlmReply(content=ANSWER), after])
    agent = (
        AgentBuilder.new("Capital of France?")
        .guard_input(guard_in)
        .guard_output(guard_out)
        .llm(llm)
        .build()
        .unwrap()
    )
    result = agent.run()  # never raises
    checks = result.unwrap().memory.guardrail_checks if isinstance(result, Success) else ()
    match result:
        case Success(ReactCompleted() as done):
            assert done.answer == ANSWER and all(c.passed for c in checks) and len(checks) == 2
        case Failure(GuardrailTripped(trip=trip, action=action, snapshot=snapshot)):
            assert snapshot is not None
            last = snapshot.memory.guardrail_checks[-1]
            assert last.trip == trip and action is trip.on_trip
            assert snapshot.state is (State.Refused if action is OnTrip.REFUSE else State.Error)
            assert trip.guardrail == ("in" if len(snapshot.memory.guardrail_checks) == 1 else "out")
            assert snapshot.memory.final_answer in (None, trip.message)  # never the withheld answer
        case _:
            raise AssertionError(f"unexpected {result}")


def test_a_modified_review_runs_the_call_with_its_arguments_or_refuses_where_it_cannot_apply() -> None:
    ran: list[str] = []

    def read(path: str) -> str:
        ran.append(path)
        return "contents"

    outside: Guardrail[ToolCall] = guardrail(
        "outside-tmp",
        lambda call: None if str(call.arguments.get("path", "")).startswith("/tmp/") else "outside /tmp",
        on_trip=OnTrip.ASK_HUMAN,
    )
    call = LlmReply(tool_calls=(ToolCall("c1", "read", {"path": "/etc/passwd"}),))
    llm = ScriptedLlm([call, LlmReply(content=ANSWER)])
    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    builder = AgentBuilder.new("Read it").tool("read", "Read a file.", schema, read)
    agent = builder.guard_tool_calls(outside).llm(llm).build().unwrap()
    suspended = agent.run().unwrap()
    assert isinstance(suspended, Suspended) and suspended.snapshot.state is State.ReviewingToolCalls
    done = agent.resume(suspended, Modified({"path": "/tmp/x"})).unwrap()
    assert isinstance(done, ReactCompleted) and ran == ["/tmp/x"]  # the modification, never the original
    review = done.memory.guardrail_checks[-1]
    assert review.review is True and review.note == 'approved with modified arguments {"path":"/tmp/x"}'

    curt: Guardrail[str] = guardrail("curt", lambda text: "curt", on_trip=OnTrip.ASK_HUMAN)
    asked = AgentBuilder.new("Capital?").guard_input(curt).llm(ScriptedLlm([])).build().unwrap()
    waiting = asked.run().unwrap()
    assert isinstance(waiting, Suspended)
    refused = asked.resume(waiting, Modified({"text": "Capital, please?"})).failure()
    assert isinstance(refused, GuardrailTripped) and refused.action is OnTrip.REFUSE
    assert refused.snapshot is not None and refused.snapshot.memory.guardrail_checks[-1].note == (
        "rejected: modified arguments cannot be applied to a review of the input"
    )
