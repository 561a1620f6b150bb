"""A credential quoted by a raised exception reaches no value a run keeps (``redact_credentials``).

The environment holds a fake key that has no token shape, so only the environment rule
can catch it; performers and tools raise an exception quoting it, as HTTP clients do.
"""

from __future__ import annotations

import enum
import os
from typing import ClassVar, Literal, TypeVar
from unittest import mock

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Result

from agentsm_fn import (
    Effect,
    EffectFailure,
    Fault,
    Machine,
    Perform,
    Performers,
    Shell,
    Snapshot,
    StepClock,
    arun,
    define_machine,
    effectful,
    emit,
    perform,
    run,
)
from agentsm_fn.agents.plan_execute import RunTools
from agentsm_fn.agents.react import ApprovalDecision, AskHuman, HumanApprovalRequest, Rejected, RunTool
from agentsm_fn.llm import ToolCall
from agentsm_fn.shell import redact_credentials
from agentsm_fn.shell.human import callback_performers
from agentsm_fn.shell.tool_batches import run_tool_calls
from agentsm_fn.shell.tools import ToolRunner
from agentsm_fn.tools import ToolRegistry
from tests.core.sample import Ask, Mem, sample_machine

StateT = TypeVar("StateT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

KEY = "pay-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
MESSAGE = f"card API said 401 for key {KEY}"


class St(enum.Enum):
    FETCHING = "fetching"
    DONE = "done"


class Ev(enum.Enum):
    FETCHED = "fetched"


@attrs.frozen
class Fetch(Effect[str]):
    outcome_types: ClassVar[tuple[type, ...]] = (str, EffectFailure)


@attrs.frozen(kw_only=True)
class Note:
    said: str = ""


def fetch(note: Note) -> Result[Perform[str, Note], Fault]:
    return perform(Fetch(), note)


def fetched(note: Note, outcome: str | EffectFailure) -> Result[tuple[Literal[Ev.FETCHED], Note], Fault]:
    said = outcome.describe() if isinstance(outcome, EffectFailure) else outcome
    return emit(Ev.FETCHED, Note(said=said))


NOTES: Machine[St, Ev, Note] = define_machine(
    name="notes",
    states=St,
    events=Ev,
    initial=St.FETCHING,
    terminals={St.DONE},
    table={(St.FETCHING, Ev.FETCHED): St.DONE},
    handlers={St.FETCHING: effectful(fetch, fetched)},
)


def _refuse(_effect: object) -> str:
    raise RuntimeError(MESSAGE)


async def _refuse_later(_effect: object) -> str:
    raise RuntimeError(MESSAGE)


def _kept(snapshot: Snapshot[StateT, MemoryT]) -> list[str]:
    """Every text the snapshot keeps: its memory, each trace row and each journal row."""
    return [repr(snapshot.memory), *map(repr, snapshot.trace.rows), *map(repr, snapshot.journal.rows)]


@pytest.mark.parametrize("mode", ["run", "arun", "arun-async-performer"])
def test_an_in_memory_run_keeps_no_credential_a_raising_performer_quoted(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAYMENTS_API_KEY", KEY)
    if mode == "run":
        result = run(NOTES, Note(), Shell(Performers().on(Fetch, _refuse), StepClock()))
    else:
        import asyncio

        performers = (
            Performers().on(Fetch, _refuse) if mode == "arun" else Performers().on_async(Fetch, _refuse_later)
        )
        result = asyncio.run(arun(NOTES, Note(), Shell(performers, StepClock())))
    snapshot = result.unwrap()
    assert (
        snapshot.memory.said == "Fetch: performer raised RuntimeError: card API said 401 for key [redacted]"
    )
    assert all(KEY not in text for text in _kept(snapshot))


def test_a_run_stopped_by_a_raising_performer_keeps_no_credential_in_its_pending_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PAYMENTS_TOKEN", KEY)
    result = run(sample_machine(), Mem(), Shell(Performers().on(Ask, _refuse), StepClock()))
    assert isinstance(result, Failure)
    stopped = result.failure()
    assert stopped.reason.describe().endswith("RuntimeError: card API said 401 for key [redacted]")
    assert KEY not in repr(stopped.reason) and stopped.snapshot.pending == Ask()
    assert all(KEY not in text for text in _kept(stopped.snapshot))


def _registry() -> ToolRegistry:
    def pay(amount: int) -> str:
        raise PermissionError(MESSAGE)

    def refund(amount: int) -> Result[str, Exception]:
        return Failure(PermissionError(MESSAGE))  # an exception the tool caught, returned as its failure

    schema = {"type": "object", "properties": {"amount": {"type": "integer"}}}
    return ToolRegistry().register("pay", "Pay", schema, pay).register("refund", "Refund", schema, refund)


@pytest.mark.parametrize("name", ["pay", "refund"])
def test_a_react_tool_failure_result_carries_no_credential(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAYMENTS_API_KEY", KEY)
    result = ToolRunner(_registry()).run_one(RunTool(ToolCall("c1", name, {"amount": 3})))
    assert not result.ok and KEY not in result.output and KEY not in result.observation
    assert "card API said 401 for key [redacted]" in result.output


def test_a_plan_execute_tool_error_result_carries_no_credential(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAYMENTS_API_KEY", KEY)
    tools = {tool.definition.spec.name: tool.fn for tool in _registry()}
    calls = (ToolCall("c1", "pay", {"amount": 3}), ToolCall("c2", "refund", {"amount": 3}))
    batch = run_tool_calls(tools, {}, RunTools(calls))
    assert [(r.is_error, KEY in r.content) for r in batch.results] == [(True, False), (True, False)]
    assert batch.results[0].content == "pay raised PermissionError: card API said 401 for key [redacted]"


def test_an_async_react_tool_failure_carries_no_credential(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAYMENTS_API_KEY", KEY)

    async def pay(amount: int) -> str:
        raise PermissionError(MESSAGE)

    registry = ToolRegistry().register("pay", "Pay", {"type": "object"}, pay)
    import asyncio

    result = asyncio.run(ToolRunner(registry).arun_one(RunTool(ToolCall("c1", "pay", {"amount": 3}))))
    assert not result.ok and KEY not in result.output


def test_a_raising_approval_callback_rejects_without_the_credential(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAYMENTS_API_KEY", KEY)

    def approver(request: HumanApprovalRequest) -> ApprovalDecision:
        raise ConnectionError(MESSAGE)

    ask = AskHuman(HumanApprovalRequest(step=1, tool_call=ToolCall("c1", "pay", {}), reason="costs money"))
    performer = callback_performers(approver).find(ask)
    assert performer is not None
    assert performer(ask) == Rejected(
        "the approval callback raised ConnectionError: card API said 401 for key [redacted]"
    )


_MARKER = "[redacted]"
_CHARACTERS = st.characters(exclude_categories=["Cs"], exclude_characters="\x00")
"""What an environment value may hold (no NUL, no lone surrogate)."""


@st.composite
def _text_around(draw: st.DrawFn, secret: str) -> str:
    """Text made of free text, the secret, pieces of it and the marker, in any order."""
    pieces = st.one_of(
        st.text(_CHARACTERS, max_size=12),
        st.just(secret),
        st.just(_MARKER),
        st.integers(0, len(secret)).map(lambda cut: secret[:cut]),
        st.integers(0, len(secret)).map(lambda cut: secret[cut:]),
    )
    return "".join(draw(st.lists(pieces, max_size=8)))


_SECRETS = st.one_of(
    st.text(_CHARACTERS, min_size=8, max_size=24),
    # secrets that a marker and its neighbours can spell again
    st.builds(
        lambda cut, rest: _MARKER[cut:] + rest,
        st.integers(1, 10),
        st.text(_CHARACTERS, min_size=8, max_size=16),
    ),
    st.builds(
        lambda cut, rest: rest + _MARKER[:cut],
        st.integers(0, 9),
        st.text(_CHARACTERS, min_size=8, max_size=16),
    ),
    st.sampled_from(["[redacted", "redacted]", "redacted", "d][redac"]),
)


@given(st.data(), _SECRETS, st.sampled_from(["API_KEY", "db_password"]))
def test_no_text_keeps_the_value_of_a_credential_named_variable(
    data: st.DataObject, secret: str, name: str
) -> None:
    text = data.draw(_text_around(secret))
    with mock.patch.dict(os.environ, {f"AGENTSM_TEST_{name}": secret}):
        out = redact_credentials(text)
    assert secret not in out


@pytest.mark.parametrize(
    "name",
    [
        "OPENAI_API_KEY",
        "apikey",
        "GITHUB_TOKEN",
        "CLIENT_SECRET",
        "BASIC_AUTH",
        "DB_PASSWORD",
        "A_CREDENTIAL",
    ],
)
def test_a_credential_named_variable_is_redacted(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv(name, "plain-words-value")
    assert redact_credentials("refused plain-words-value here") == "refused [redacted] here"


@pytest.mark.parametrize(
    "name", ["KEYBOARD_LAYOUT", "GIT_AUTHOR_NAME", "XAUTHORITY", "TOKENIZERS_PARALLELISM", "AUTH_MODE", "PWD"]
)
def test_a_variable_only_resembling_a_credential_name_is_left_alone(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setenv(name, "plain-words-value")
    assert redact_credentials("refused plain-words-value here") == "refused plain-words-value here"


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("Authorization: Bearer abcdefgh12345678", "Authorization: Bearer [redacted]"),
        ("bearer eyJhbGciOiJIUzI1NiJ9.e30.sig", "bearer [redacted]"),
        ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [redacted]"),
        ("key sk-proj-abcdefghijklmnop1234 refused", "key [redacted] refused"),
        ("key sk_live_abcdefghijklmnop1234 refused", "key [redacted] refused"),
        ("Missing Bearer authentication", "Missing Bearer authentication"),
        ('constraint "pk_orders_customer_id_created"', 'constraint "pk_orders_customer_id_created"'),
        ("no column sk_customer_lifetime_value", "no column sk_customer_lifetime_value"),
    ],
)
def test_token_shapes_are_redacted_and_prose_is_not(text: str, redacted: str) -> None:
    assert redact_credentials(text) == redacted
