"""The plan-and-execute agent's typed result through each provider against aimock, streaming and not.

Each provider is asked its default way (OpenAI ``response_format``, Anthropic a final-result
tool, Ollama ``format``), for the plan and then for the result. The plan's fixture is matched
by the planner's prompt; an answer's by the task or by the problems the agent sent back
(aimock matches the last user message), so the assertions on the wire are also assertions on
the feedback, as in tests/providers/test_typed_results.py (the ReAct agent's).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentsm_fn.agents.plan_execute import (
    ExecutionError,
    FinalizerConfig,
    HaltCause,
    OutputInvalidError,
    PlanExecuteCompleted,
)
from agentsm_fn.providers import HttpProvider, Structured, TextDelta
from agentsm_fn.shell.plan_execute_agent import AgentFSM
from tests.agents.output.invoices import INVOICE, INVOICE_JSON, Invoice, Verdict, totals_match
from tests.providers.conftest import Aimock, Sleeps
from tests.providers.peer import WIRE, make, validate_journal
from tests.providers.test_typed_results import NOT_JSON, _shaped, load, reply, structured_field

MODES: list[tuple[str, Structured]] = [("openai", "native"), ("anthropic", "tool"), ("ollama", "native")]
"""Each provider asked its default way."""

PLAN = {"goal": "extract the invoice", "initial_steps": ["read it", "answer"]}
PLANNED = ("Create a plan for", PLAN)
BAD_TOTAL = {**json.loads(INVOICE_JSON), "total": {"amount": 4.0, "currency": "EUR"}}


def invoice_agent(
    kind: str, mode: Structured, aimock: Aimock, *, stream: bool = False, **extra: object
) -> AgentFSM[Invoice]:
    provider: HttpProvider = make(kind, aimock, Sleeps(), stream=stream, structured=mode, **extra)
    agent = AgentFSM(provider=provider, finalizer=FinalizerConfig(max_output_retries=2), max_iterations=5)
    return agent.result_type(Invoice).validate_result(totals_match)


def fixtures(mode: Structured, *answers: tuple[str, object]) -> list[tuple[str, dict[str, object]]]:
    """The plan's fixture first (its prompt names the task too), then the answers', each as asked."""
    return [
        (PLANNED[0], reply(PLANNED[1], mode)),
        *((m, reply(v, mode, n + 1)) for n, (m, v) in enumerate(answers)),
    ]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize(("kind", "mode"), MODES)
def test_a_valid_first_answer_is_the_result(
    kind: str, mode: Structured, stream: bool, aimock: Aimock
) -> None:
    load(aimock, *fixtures(mode, ("plan first: INV-7", json.loads(INVOICE_JSON))))
    deltas: list[object] = []
    agent = invoice_agent(kind, mode, aimock, stream=stream, on_event=deltas.append)
    done = agent.run("plan first: INV-7").unwrap()
    assert isinstance(done, PlanExecuteCompleted)
    invoice: Invoice = done.value
    assert invoice == INVOICE and done.fsm.memory.output_retries == 0
    (_, planned), (_, answered) = validate_journal(aimock)
    # the plan is asked for with the plan's schema, the answer with the Invoice's, each the provider's way
    assert "initial_steps" in str(structured_field(kind, mode, planned))
    assert "quantity" in str(structured_field(kind, mode, answered))
    if stream:  # the partial JSON streamed as text (the plan's, then the result's)
        streamed = "".join(d.text for d in deltas if isinstance(d, TextDelta))
        assert streamed.endswith("}}") and '"number": "INV-7"' in streamed.replace('":"', '": "')


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize(("kind", "mode"), MODES)
def test_two_invalid_answers_go_back_with_their_problems_then_the_result(
    kind: str, mode: Structured, stream: bool, aimock: Aimock
) -> None:
    load(  # the later problems first: on /api/generate the prompt holds every earlier one
        aimock,
        *fixtures(
            mode,
            ("is not the sum of the lines", json.loads(INVOICE_JSON)),
            ("not JSON (Expecting value", BAD_TOTAL),
            ("plan retry: INV-7", NOT_JSON),
        ),
    )
    done = invoice_agent(kind, mode, aimock, stream=stream).run("plan retry: INV-7").unwrap()
    assert done.value == INVOICE and done.fsm.memory.output_retries == 2
    _, first, second, third = (json.dumps(body) for _, body in validate_journal(aimock))
    assert "Your reply is not a valid Invoice" not in first
    assert NOT_JSON in second and "$: not JSON (Expecting value at line 1 column 1)" in second
    assert "$: total 4.0 is not the sum of the lines (3.0)" in third  # the output validator's problem


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize(("kind", "mode"), MODES)
def test_an_answer_that_stays_invalid_fails_with_the_typed_reason(
    kind: str, mode: Structured, stream: bool, aimock: Aimock
) -> None:
    stubborn = {"number": "INV-7"}
    load(aimock, *fixtures(mode, ("'lines' is a required property", stubborn), ("plan stubborn", stubborn)))
    failure = invoice_agent(kind, mode, aimock, stream=stream).run("plan stubborn: INV-7").failure()
    assert isinstance(failure, OutputInvalidError)
    assert json.loads(failure.reply) == stubborn and failure.retries == 2
    assert [str(p) for p in failure.rejected.problems] == [
        "$: 'lines' is a required property",
        "$: 'total' is a required property",
    ]
    assert failure.snapshot is not None and failure.snapshot.state.name == "HALT"
    assert len(validate_journal(aimock)) == 1 + 3


_FIELD = st.sampled_from(['"holds": true', '"holds": "yes"', '"reason": "wet"', '"reason": 3', '"x": null'])
_REPLIES = st.one_of(
    st.sampled_from(["   ", "yes", "[]", '{"holds": false, "reason": "dry"}']),
    st.lists(_FIELD, max_size=3).map(lambda fields: "{" + ", ".join(fields) + "}"),
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(replies=st.lists(_REPLIES, min_size=1, max_size=3), mode=st.sampled_from(MODES), stream=st.booleans())
def test_generated_answers_give_a_verdict_or_the_typed_failure_never_an_exception(
    replies: list[str], mode: tuple[str, Structured], stream: bool, aimock: Aimock
) -> None:
    kind, structured = mode
    WIRE.sent.clear()
    padded = (replies + [replies[-1]] * 3)[:3]  # a run asks at most max_output_retries + 1 = 3 times
    plan = {"model": "test-model", "sequenceIndex": 0}
    answers = (
        ({"model": "test-model", "sequenceIndex": n + 1}, _shaped(t, structured))
        for n, t in enumerate(padded)
    )
    load(aimock, (plan, reply(PLAN, structured)), *answers)
    provider = make(kind, aimock, Sleeps(), structured=structured, stream=stream)
    agent = AgentFSM(provider=provider, finalizer=FinalizerConfig(max_output_retries=2)).result_type(Verdict)
    result = agent.run("Is water wet?")
    match result.value_or(None):
        case PlanExecuteCompleted() as done:
            assert isinstance(done.value, Verdict)
        case _:
            failure = result.failure()
            if isinstance(failure, ExecutionError):  # a blank answer: EXECUTE's own halt, no answer to check
                assert failure.cause is HaltCause.PROVIDER_FAILURE and any(not t.strip() for t in padded)
            else:
                assert isinstance(failure, OutputInvalidError), failure
                assert failure.retries == 2 and failure.rejected.problems
