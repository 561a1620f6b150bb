"""Typed results through each provider against aimock, streaming and not, asked the way each does best.

OpenAI is asked with ``response_format`` (and, overridden, a final-result tool), Anthropic
with a final-result tool (and, overridden, ``output_config``), Ollama with ``format``
(``/api/generate``, as the agent has no tools). Each test loads its own fixtures, whose
replies take the shape the provider was asked for: text, or a call of the final-result tool.
A retry's fixture is found by the problems the agent sent back (aimock matches the last user
message), so the assertions on the wire are also assertions on the feedback.
"""

from __future__ import annotations

import json
from typing import assert_type

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentsm_fn.agents.react import AgentConfig, OutputInvalidError, ReactCompleted
from agentsm_fn.llm import RESULT_TOOL, thaw
from agentsm_fn.providers import HttpProvider, Structured, TextDelta
from agentsm_fn.shell.react_agent import Agent, AgentBuilder
from tests.agents.output.invoices import INVOICE, INVOICE_JSON, Invoice, Verdict
from tests.providers.conftest import Aimock, Sleeps
from tests.providers.peer import WIRE, make, validate_journal

MODES: list[tuple[str, Structured]] = [
    ("openai", "native"),
    ("openai", "tool"),
    ("anthropic", "tool"),
    ("anthropic", "native"),
    ("ollama", "native"),
]
"""Each provider's default (openai native, anthropic tool, ollama native), and the overrides."""

NOT_JSON = "The invoice is INV-7: two pens, 3 EUR."
WRONG_TYPES = json.loads(INVOICE_JSON)
WRONG_TYPES["lines"][0]["quantity"] = "2"


def reply(value: object, mode: Structured, call: int = 1) -> dict[str, object]:
    """A fixture response: the value as text (native), or a final-result call (tool; text stays text)."""
    if mode == "tool" and not isinstance(value, str):
        return {"toolCalls": [{"id": f"call_result_{call}", "name": RESULT_TOOL, "arguments": value}]}
    return {"content": value if isinstance(value, str) else json.dumps(value)}


def load(aimock: Aimock, *fixtures: tuple[str | dict[str, object], dict[str, object]]) -> None:
    """Replace aimock's fixtures by these (matched by the last user message's text, or a match object).

    First match wins; the next test's reset restores the shared fixtures.
    """
    aimock.control.post("/__aimock/reset").raise_for_status()
    body = {
        "fixtures": [
            {"match": {"userMessage": match} if isinstance(match, str) else match, "response": r}
            for match, r in fixtures
        ]
    }
    aimock.control.post("/__aimock/fixtures", json=body).raise_for_status()


def invoice_agent(
    kind: str, mode: Structured, aimock: Aimock, task: str, *, stream: bool = False, **extra: object
) -> Agent[Invoice]:
    provider: HttpProvider = make(kind, aimock, Sleeps(), stream=stream, structured=mode, **extra)
    builder = AgentBuilder.new(task).result_type(Invoice).config(AgentConfig(max_output_retries=2))
    return builder.llm(provider).build().unwrap()


def structured_field(kind: str, mode: Structured, body: dict[str, object]) -> object:
    """What asked for the result in one request body."""
    if mode == "tool":
        tools = body.get("tools")
        assert isinstance(tools, list)
        return [t for t in tools if RESULT_TOOL in json.dumps(t)]
    key = {"openai": "response_format", "anthropic": "output_config", "ollama": "format"}[kind]
    return body[key]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize(("kind", "mode"), MODES)
def test_a_valid_first_reply_is_the_result(kind: str, mode: Structured, stream: bool, aimock: Aimock) -> None:
    load(aimock, ("typed first", reply(json.loads(INVOICE_JSON), mode)))
    deltas: list[object] = []
    agent = invoice_agent(kind, mode, aimock, "typed first: INV-7", stream=stream, on_event=deltas.append)
    done = agent.run().unwrap()
    assert isinstance(done, ReactCompleted)
    assert_type(done.result, Invoice)
    assert done.result == INVOICE
    ((path, body),) = validate_journal(aimock)
    assert structured_field(kind, mode, body)
    if kind == "openai" and mode == "native":
        assert body["response_format"] == {
            "type": "json_schema",
            "json_schema": {
                "name": "Invoice",
                "description": "An invoice: three levels deep (Invoice, Line, Money).",
                "schema": thaw(agent.memory.output.schema if agent.memory.output else {}),
            },
        }
    if kind == "anthropic" and mode == "tool":
        assert body["tool_choice"] == {"type": "tool", "name": RESULT_TOOL}
    if kind == "ollama":
        assert path == "/api/generate"
    if stream:  # the partial JSON streamed as text, whichever way it was asked for
        streamed = "".join(d.text for d in deltas if isinstance(d, TextDelta))
        assert json.loads(streamed) == json.loads(INVOICE_JSON)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize(("kind", "mode"), MODES)
def test_two_invalid_replies_go_back_with_their_problems_then_the_result(
    kind: str, mode: Structured, stream: bool, aimock: Aimock
) -> None:
    load(
        aimock,  # the later problems first: on /api/generate the prompt holds every earlier one
        ("is not of type 'integer'", reply(json.loads(INVOICE_JSON), mode, 3)),
        ("not JSON (Expecting value", reply(WRONG_TYPES, mode, 2)),
        ("typed retry", reply(NOT_JSON, mode)),
    )
    done = invoice_agent(kind, mode, aimock, "typed retry: INV-7", stream=stream).run().unwrap()
    assert isinstance(done, ReactCompleted) and done.result == INVOICE
    first, second, third = (json.dumps(body) for _, body in validate_journal(aimock))
    assert "Your reply is not a valid Invoice" not in first
    assert NOT_JSON in second and "$: not JSON (Expecting value at line 1 column 1)" in second
    assert "$.lines[0].quantity: '2' is not of type 'integer'" in third
    assert done.memory.output_retries == 2


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize(("kind", "mode"), MODES)
def test_a_reply_that_stays_invalid_ends_in_the_failure_state_with_the_typed_reason(
    kind: str, mode: Structured, stream: bool, aimock: Aimock
) -> None:
    stubborn = {"number": "INV-7"}
    load(
        aimock,
        ("typed stubborn", reply(stubborn, mode)),
        ("'lines' is a required property", reply(stubborn, mode)),
    )
    failure = invoice_agent(kind, mode, aimock, "typed stubborn: INV-7", stream=stream).run().failure()
    assert isinstance(failure, OutputInvalidError)
    assert json.loads(failure.reply) == stubborn and failure.retries == 2
    assert [str(p) for p in failure.rejected.problems] == [
        "$: 'lines' is a required property",
        "$: 'total' is a required property",
    ]
    assert len(validate_journal(aimock)) == 3


_FIELD = st.sampled_from(['"holds": true', '"holds": "yes"', '"reason": "wet"', '"reason": 3', '"x": null'])
_REPLIES = st.one_of(
    st.sampled_from(["   ", "yes", "[]", '{"holds": false, "reason": "dry"}']),
    st.lists(_FIELD, max_size=3).map(lambda fields: "{" + ", ".join(fields) + "}"),
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    replies=st.lists(_REPLIES, min_size=1, max_size=3), mode=st.sampled_from(MODES[:3]), stream=st.booleans()
)
def test_generated_replies_give_a_verdict_or_the_typed_failure_never_an_exception(
    replies: list[str], mode: tuple[str, Structured], stream: bool, aimock: Aimock
) -> None:
    kind, structured = mode
    WIRE.sent.clear()
    padded = (replies + [replies[-1]] * 3)[:3]  # a run asks at most max_output_retries + 1 = 3 times
    load(
        aimock,
        *(
            ({"model": "test-model", "sequenceIndex": n}, _shaped(text, structured))
            for n, text in enumerate(padded)
        ),
    )
    provider = make(kind, aimock, Sleeps(), structured=structured, stream=stream)
    builder = AgentBuilder.new("Is water wet?").result_type(Verdict)
    result = builder.config(AgentConfig(max_output_retries=2)).llm(provider).build().unwrap().run()
    match result.value_or(None):
        case ReactCompleted() as done:
            assert isinstance(done.result, Verdict)
        case _:
            failure = result.failure()
            assert isinstance(failure, OutputInvalidError), failure
            assert failure.retries == 2 and failure.rejected.problems


def _shaped(text: str, mode: Structured) -> dict[str, object]:
    """A generated reply as the provider was asked: a JSON object through the tool in tool mode."""
    try:
        value = json.loads(text)
    except ValueError:
        return {"content": text}
    return reply(value, mode) if isinstance(value, dict) else {"content": text}
