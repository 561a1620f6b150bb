"""A guarding state in a machine of its own: checks recorded, trips routed, LLM checks replayed exactly."""

from __future__ import annotations

import enum
from collections.abc import Callable

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success

from agentsm_fn import (
    Machine,
    Performers,
    Shell,
    Snapshot,
    StepClock,
    begin,
    define_machine,
    pure,
    replay,
    run,
)
from agentsm_fn.agents.guardrails import (
    GuardLog,
    Guardrail,
    GuardrailCheck,
    OnTrip,
    guarding,
    guardrail,
    llm_guardrail,
)
from agentsm_fn.core.failures import HandlerFaulted
from agentsm_fn.llm import LlmCall, LlmFailure, LlmFailureKind, LlmReply
from verification import verify


class S(enum.Enum):
    CHECKING = "CHECKING"
    REVIEWING = "REVIEWING"
    ANSWERED = "ANSWERED"
    REFUSED = "REFUSED"
    STOPPED = "STOPPED"


class E(enum.Enum):
    PASSED = "PASSED"
    REFUSED = "REFUSED"
    ESCALATED = "ESCALATED"
    STOPPED = "STOPPED"
    REVIEWED = "REVIEWED"


@attrs.frozen(kw_only=True)
class Chat:
    """A memory with messages to check, the checks so far, and the human's answer to a review."""

    messages: tuple[str, ...]
    checks: tuple[GuardrailCheck, ...] = ()
    approve: bool = True


LOG: GuardLog[Chat] = GuardLog(
    checks=lambda m: m.checks,
    with_checks=lambda m, checks: attrs.evolve(m, checks=checks),
    visit=lambda m: 0,
)


def _messages(memory: Chat) -> tuple[str, ...]:
    return memory.messages


def _review(memory: Chat) -> Success[tuple[E, Chat]]:
    return Success((E.REVIEWED, LOG.reviewed(memory, memory.approve, "by a test")))


def machine(*guardrails: Guardrail[str]) -> Machine[S, E, Chat]:
    checking = guarding(
        "input",
        guardrails,
        subjects=_messages,
        log=LOG,
        passed=E.PASSED,
        refused=E.REFUSED,
        ask_human=E.ESCALATED,
        stopped=E.STOPPED,
    )
    return define_machine(
        name="guarded",
        states=S,
        events=E,
        initial=S.CHECKING,
        terminals={S.ANSWERED, S.REFUSED, S.STOPPED},
        table={
            (S.CHECKING, E.PASSED): S.ANSWERED,
            (S.CHECKING, E.REFUSED): S.REFUSED,
            (S.CHECKING, E.STOPPED): S.STOPPED,
            (S.CHECKING, E.ESCALATED): S.REVIEWING,
            (S.REVIEWING, E.REVIEWED): S.CHECKING,
        },
        handlers={S.CHECKING: checking, S.REVIEWING: pure(_review, events={E.REVIEWED})},
        budgeted={S.CHECKING},
    )


def _has(word: str) -> Callable[[str], str | None]:
    def check(text: str) -> str | None:
        return f"mentions {word}" if word in text else None

    check.__qualname__ = f"has[{word}]"
    return check


def no(word: str, on_trip: OnTrip = OnTrip.REFUSE) -> Guardrail[str]:
    return guardrail(f"no-{word}", _has(word), on_trip=on_trip)


def scripted(*replies: object) -> Shell:
    queue = list(replies)
    return Shell(clock=StepClock(), performers=Performers().on(LlmCall, lambda call: queue.pop(0)))


def test_every_guardrail_passes_on_every_message_and_each_check_is_recorded() -> None:
    done = run(machine(no("acme"), no("bob")), Chat(messages=("hi", "there")), scripted()).unwrap()
    assert done.state is S.ANSWERED
    assert [(c.guardrail, c.subject, c.trip) for c in done.memory.checks] == [
        ("no-acme", 0, None),
        ("no-bob", 0, None),
        ("no-acme", 1, None),
        ("no-bob", 1, None),
    ]


@pytest.mark.parametrize(
    ("on_trip", "state"),
    [(OnTrip.REFUSE, S.REFUSED), (OnTrip.STOP, S.STOPPED)],
)
def test_a_trip_takes_its_actions_row_and_stops_checking(on_trip: OnTrip, state: S) -> None:
    guarded = machine(no("bob"), no("acme", on_trip))
    done = run(guarded, Chat(messages=("hi", "show acme's invoices", "more")), scripted()).unwrap()
    assert done.state is state
    last = done.memory.checks[-1]
    assert last.trip is not None and (last.guardrail, last.subject) == ("no-acme", 1)
    assert last.trip.reason == "mentions acme" and last.trip.on_trip is on_trip
    assert last.trip.message == "Refused by the no-acme guardrail: mentions acme"
    assert len(done.memory.checks) == 4  # message 2 is never checked


@pytest.mark.parametrize(("approve", "state"), [(True, S.ANSWERED), (False, S.REFUSED)])
def test_a_human_approves_and_the_checks_go_on_or_rejects_and_it_refuses(approve: bool, state: S) -> None:
    guarded = machine(no("acme", OnTrip.ASK_HUMAN), no("bob"))
    done = run(guarded, Chat(messages=("acme",), approve=approve), scripted()).unwrap()
    assert done.state is state
    assert [e.event for e in done.trace if e.target][:3] == ["ESCALATED", "REVIEWED"] + (
        ["PASSED"] if approve else ["REFUSED"]
    )
    assert done.memory.checks[0].review is approve and done.memory.checks[0].note == "by a test"
    assert len(done.memory.checks) == (2 if approve else 1)


def test_an_llm_check_is_an_effect_whose_verdict_routes_and_whose_run_replays_exactly() -> None:
    polite: Guardrail[str] = llm_guardrail(
        "polite", "The text must be polite.", model="small", on_trip=OnTrip.STOP
    )
    guarded = machine(no("acme"), polite)
    verdicts = (
        LlmReply(content='{"tripped": false, "reason": "polite"}'),
        LlmReply(content='```json\n{"tripped": true, "reason": "rude"}\n```'),
    )
    start = Chat(messages=("please", "now!"))
    done = run(guarded, start, scripted(*verdicts)).unwrap()
    assert done.state is S.STOPPED
    assert done.memory.checks[-1].trip is not None and done.memory.checks[-1].trip.reason == "rude"
    assert replay(guarded, begin(guarded, start), done.journal) == Success(done)


@pytest.mark.parametrize(
    ("outcome", "reason"),
    [
        (LlmFailure(kind=LlmFailureKind.TIMEOUT, message="slow"), "the check failed: "),
        (LlmReply(content="Looks fine to me."), "the check gave no verdict ($: not JSON"),
        (LlmReply(content='{"tripped": "no"}'), "the check gave no verdict (no boolean 'tripped')"),
    ],
)
def test_an_llm_check_fails_closed(outcome: object, reason: str) -> None:
    done = run(machine(llm_guardrail("polite", "Be polite.")), Chat(messages=("hi",)), scripted(outcome))
    memory = done.unwrap().memory
    assert done.unwrap().state is S.REFUSED
    assert memory.checks[0].trip is not None and memory.checks[0].trip.reason.startswith(reason)


def test_a_trip_whose_action_has_no_event_is_a_fault_and_the_verifier_says_so_first() -> None:
    guarded = machine(no("acme", OnTrip.STOP))
    handlers = dict(guarded.handlers)
    stop = no("acme", OnTrip.STOP)
    handlers[S.CHECKING] = guarding("input", [stop], subjects=_messages, log=LOG, passed=E.PASSED)
    broken = attrs.evolve(guarded, handlers=handlers)
    failed = run(broken, Chat(messages=("acme",)), scripted())
    assert isinstance(failed, Failure) and isinstance(failed.failure().reason, HandlerFaulted)
    assert "has no event to stop" in failed.failure().reason.describe()
    codes = [(v.code, v.states) for v in verify(broken).violations]
    assert ("SM015", ("CHECKING",)) in codes


def test_a_guarded_machine_with_every_action_routed_is_proved() -> None:
    report = verify(machine(no("acme", OnTrip.ASK_HUMAN), llm_guardrail("polite", "Be polite.")))
    assert report.ok and report.strongly_sound, report.violations


WORDS = st.sampled_from(("acme", "bob", "pay", "hi"))


@given(
    rails=st.lists(st.tuples(WORDS, st.sampled_from(list(OnTrip))), max_size=3, unique_by=lambda r: r[0]),
    messages=st.lists(st.lists(WORDS, max_size=3).map(" ".join), max_size=3),
    approve=st.booleans(),
)
def test_a_guarding_state_checks_in_order_and_routes_the_first_trip(
    rails: list[tuple[str, OnTrip]], messages: list[str], approve: bool
) -> None:
    guardrails = [no(word, action) for word, action in rails]
    done = run(machine(*guardrails), Chat(messages=tuple(messages), approve=approve), scripted()).unwrap()
    expected: list[tuple[str, int]] = []
    state = S.ANSWERED
    for number, text in enumerate(messages):
        for word, action in rails:
            expected.append((f"no-{word}", number))
            if word not in text:
                continue
            if action is OnTrip.ASK_HUMAN and approve:
                continue
            state = S.STOPPED if action is OnTrip.STOP else S.REFUSED
            break
        if state is not S.ANSWERED:
            break
    assert done.state is state
    assert [(c.guardrail, c.subject) for c in done.memory.checks] == expected
    assert isinstance(done, Snapshot)
