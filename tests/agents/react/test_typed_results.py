"""Typed results on the ReAct agent: the value of the type, invalid replies sent back, the budget's end.

The run's ``result`` is typed through the builder's generic parameter: ``assert_type``
below is checked by ``mypy --strict`` (this module is type-checked with the tests) and
is a no-op when the test runs.
"""

from __future__ import annotations

from typing import assert_type

from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Failure, Success

from agentsm_fn.agents.output import RejectedOutput
from agentsm_fn.agents.react import (
    REACT_MACHINE,
    AgentConfig,
    Event,
    OutputInvalidError,
    ReactCompleted,
    State,
    agent_failure,
)
from agentsm_fn.llm import JsonObject, LlmReply, ToolCall, UserMessage, thaw
from agentsm_fn.llm.messages import AssistantMessage, ToolResultMessage
from agentsm_fn.shell.react_agent import Agent, AgentBuilder
from agentsm_fn.shell.scripted_llm import ScriptedLlm
from agentsm_fn.tools import tool
from tests.agents.output.invoices import INVOICE, INVOICE_JSON, Invoice, Ticket, Verdict, totals_match


def invoice_agent(*replies: str | LlmReply, retries: int = 3) -> tuple[Agent[Invoice], ScriptedLlm]:
    llm = ScriptedLlm([r if isinstance(r, LlmReply) else LlmReply(content=r) for r in replies])
    builder = (
        AgentBuilder.new("Extract the invoice from: 2 pens at 1.50 EUR, INV-7")
        .result_type(Invoice)
        .validate_result(totals_match)
        .config(AgentConfig(max_output_retries=retries))
        .llm(llm)
    )
    return builder.build().unwrap(), llm


def test_a_valid_first_reply_is_the_runs_result_of_the_class() -> None:
    agent, llm = invoice_agent(INVOICE_JSON)
    done = agent.run().unwrap()
    assert isinstance(done, ReactCompleted)
    assert_type(done.result, Invoice)
    assert done.result == INVOICE and done.answer == INVOICE_JSON
    (request,) = llm.requests
    assert request.response_name == "Invoice" and request.response_schema is not None
    assert thaw(request.response_schema) == thaw(agent.memory.output.schema if agent.memory.output else None)
    assert [e.event for e in done.trace.entries] == ["Start", "request LlmCall", "LlmFinalAnswer"]


def test_two_invalid_replies_go_back_with_every_problem_then_the_third_is_the_result() -> None:
    not_json = "Here is the invoice: INV-7, two pens."
    wrong_types = INVOICE_JSON.replace('"quantity": 2', '"quantity": "2"').replace('"INV-7"', "7")
    agent, llm = invoice_agent(not_json, wrong_types, INVOICE_JSON)
    done = agent.run().unwrap()
    assert isinstance(done, ReactCompleted) and done.result == INVOICE
    first, second, third = llm.requests
    assert len(first.messages) == 1
    assert second.messages[1:] == (
        AssistantMessage(content=not_json),
        UserMessage(
            "Your reply is not a valid Invoice:\n"
            "- $: not JSON (Expecting value at line 1 column 1)\n"
            "Reply again with the corrected JSON object only."
        ),
    )
    assert third.messages[1:3] == second.messages[1:]
    assert third.messages[3] == AssistantMessage(content=wrong_types)
    feedback = third.messages[4]
    assert isinstance(feedback, UserMessage)
    assert feedback.content.splitlines()[1:3] == [
        "- $.lines[0].quantity: '2' is not of type 'integer'",
        "- $.number: 7 is not of type 'string'",
    ]
    events = [e.event for e in done.trace.entries if e.event]
    assert events.count("OutputInvalid") == 2 and events.count("RetryOutput") == 2
    assert done.memory.output_retries == 2


def test_an_output_validators_problem_goes_back_like_a_schema_problem() -> None:
    wrong_total = INVOICE_JSON.replace('"amount": 3.0', '"amount": 4.0')
    agent, llm = invoice_agent(wrong_total, INVOICE_JSON)
    assert agent.run().unwrap().memory.result == INVOICE
    feedback = llm.requests[1].messages[-1]
    assert isinstance(feedback, UserMessage)
    assert "- $: total 4.0 is not the sum of the lines (3.0)" in feedback.content


def test_a_reply_that_stays_invalid_ends_the_run_in_error_with_the_last_reply() -> None:
    agent, llm = invoice_agent("no", "still no", "never", retries=2)
    failure = agent.run().failure()
    assert isinstance(failure, OutputInvalidError)
    assert failure.reply == "never" and failure.retries == 2
    assert failure.rejected == RejectedOutput(step=3, reply="never", problems=failure.rejected.problems)
    assert failure.describe() == (
        "Output invalid after 2 retries: $: not JSON (Expecting value at line 1 column 1)"
    )
    assert failure.snapshot is not None and failure.snapshot.state is State.Error
    assert failure.snapshot.trace.entries[-1].event == Event.OutputRetriesExhausted.name
    assert agent_failure(failure.snapshot) == failure.describe()
    assert len(llm.requests) == 3


def test_zero_retries_fail_at_the_first_invalid_reply() -> None:
    agent, llm = invoice_agent("{}", retries=0)
    failure = agent.run().failure()
    assert isinstance(failure, OutputInvalidError) and failure.retries == 0
    assert len(llm.requests) == 1


def test_the_feedback_follows_the_tool_turns_of_the_steps_before_it() -> None:
    @tool
    def lookup(number: str) -> str:
        """Find an invoice by number."""
        return "2 pens at 1.50 EUR"

    llm = ScriptedLlm(
        [
            LlmReply(tool_calls=(ToolCall("c1", "lookup", {"number": "INV-7"}),)),
            LlmReply(content="{}"),
            LlmReply(content=INVOICE_JSON),
        ]
    )
    agent = AgentBuilder.new("Invoice INV-7?").result_type(Invoice).tools(lookup).llm(llm).build().unwrap()
    assert agent.run().unwrap().memory.result == INVOICE
    kinds = [type(m) for m in llm.requests[2].messages]
    assert kinds == [UserMessage, AssistantMessage, ToolResultMessage, AssistantMessage, UserMessage]
    assert isinstance(llm.requests[2].messages[2], ToolResultMessage)


def test_a_typeddict_result_is_a_dict_and_a_json_schema_result_a_frozen_object() -> None:
    tickets = AgentBuilder.new("Triage: my card was charged twice!").result_type(Ticket)
    reply = LlmReply(content='{"category": "billing", "urgent": true}')
    done = tickets.llm(ScriptedLlm([reply])).build().unwrap().run().unwrap()
    assert isinstance(done, ReactCompleted)
    assert_type(done.result, Ticket)
    assert done.result == {"category": "billing", "urgent": True} and type(done.result) is dict

    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    cities = AgentBuilder.new("Capital of France?").result_type(schema)
    paris = ScriptedLlm([LlmReply(content='{"city": "Paris"}')])
    done_city = cities.llm(paris).build().unwrap().run().unwrap()
    assert isinstance(done_city, ReactCompleted)
    assert_type(done_city.result, JsonObject)
    assert done_city.result["city"] == "Paris"


def test_text_stays_the_default_and_the_plain_machine() -> None:
    agent = AgentBuilder.new("Capital?").llm(ScriptedLlm([LlmReply(content="Paris is the capital.")])).build()
    done = agent.unwrap().run().unwrap()
    assert isinstance(done, ReactCompleted)
    assert_type(done.result, str)
    assert done.result == "Paris is the capital." and agent.unwrap().machine is REACT_MACHINE


def test_a_tool_named_like_the_final_result_tool_is_refused_with_a_typed_result() -> None:
    builder = AgentBuilder.new("t").llm(ScriptedLlm([])).tool("final_result", "", {"type": "object"}, str)
    assert builder.build().unwrap() is not None  # text: the name is free
    problem = builder.result_type(Verdict).build().failure().describe()
    assert "a tool may not be called 'final_result'" in problem


def test_the_typed_machine_has_the_plain_table_and_its_own_fingerprint() -> None:
    agent, _ = invoice_agent(INVOICE_JSON)
    assert agent.machine.table == REACT_MACHINE.table
    assert agent.machine.budgeted == REACT_MACHINE.budgeted
    assert repr(agent).endswith("result=Invoice)")


_VERDICTS = st.one_of(
    st.text(max_size=30),
    st.builds(
        lambda holds, reason: f'{{"holds": {holds}, "reason": {reason}}}',
        st.sampled_from(["true", "false", '"yes"', "1", "null"]),
        st.sampled_from(['"because"', "3", "null", '""']),
    ),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_VERDICTS, min_size=1, max_size=5), st.integers(0, 3))
def test_any_replies_give_a_verdict_or_the_typed_failure_never_raise(
    replies: list[str], retries: int
) -> None:
    llm = ScriptedLlm([LlmReply(content=r) for r in replies] + [LlmReply(content="x")] * 5)
    builder = AgentBuilder.new("Is water wet?").result_type(Verdict).max_steps(10)
    agent = builder.config(AgentConfig(max_steps=10, max_output_retries=retries)).llm(llm).build().unwrap()
    match agent.run():
        case Success(ReactCompleted() as done):
            assert isinstance(done.result, Verdict)
            assert done.memory.output_retries <= retries
        case Failure(OutputInvalidError() as failure):
            assert failure.retries == retries and failure.reply in [*replies, "x"]
        case other:
            raise AssertionError(f"unexpected {other}")
