"""Composition: handlers from small pure functions, machines extended and embedded."""

from __future__ import annotations

import asyncio
import enum
from typing import ClassVar, Literal

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn import (
    Effect,
    Effectful,
    Fault,
    HandlerFaulted,
    Machine,
    Performers,
    Pure,
    Shell,
    StepClock,
    arun,
    begin,
    choose,
    define_machine,
    effectful,
    embed,
    emit,
    lift,
    perform,
    pure,
    replay,
    run,
    then,
)
from tests.core.sample import Ask, Mem, S, sample_machine


def test_then_chains_updates_and_stops_at_the_first_failure() -> None:
    def bump(m: Mem) -> Result[Mem, Fault]:
        return Success(attrs.evolve(m, n=m.n + 1))

    def refuse(_m: Mem) -> Result[Mem, Fault]:
        return Failure(Fault("no"))

    assert then(bump, bump)(Mem()) == Success(Mem(n=2))
    assert then(bump, refuse, bump)(Mem()) == Failure(Fault("no"))


class Triage(enum.Enum):
    OPEN = 1
    URGENT = 2
    NORMAL = 3


class Route(enum.Enum):
    ESCALATE = 1
    QUEUE = 2


def test_choose_routes_by_the_first_matching_rule_and_declares_all_events() -> None:
    handler: Pure[Route, Mem] = choose(
        (lambda m: m.total > 100, Route.ESCALATE),
        (lambda m: m.total > 50, Route.QUEUE),
        otherwise=Route.QUEUE,
    )
    assert handler.enter(Mem(total=101)) == Success((Route.ESCALATE, Mem(total=101)))
    assert handler.enter(Mem(total=60)) == Success((Route.QUEUE, Mem(total=60)))
    assert handler.events == frozenset({Route.ESCALATE, Route.QUEUE})


def test_lift_applies_an_update_and_emits_one_event() -> None:
    def double(m: Mem) -> Result[Mem, Fault]:
        return Success(attrs.evolve(m, total=m.total * 2))

    handler = lift(Route.QUEUE, double)
    assert handler.enter(Mem(total=4)) == Success((Route.QUEUE, Mem(total=8)))
    assert handler.events == frozenset({Route.QUEUE})


class Outer(enum.Enum):
    INTAKE = "intake"
    SUBTASK = "subtask"
    CLOSED = "closed"
    FAILED = "failed"


class OuterEv(enum.Enum):
    BEGIN = 1
    SUB_DONE = 2


@attrs.frozen(kw_only=True)
class Ticket:
    inner: Mem = attrs.field(factory=Mem)
    log: tuple[str, ...] = ()


def intake(t: Ticket) -> Result[tuple[Literal[OuterEv.BEGIN], Ticket], Fault]:
    return emit(OuterEv.BEGIN, attrs.evolve(t, log=(*t.log, "intake")))


def enter_sub(t: Ticket) -> Mem:
    return t.inner


def leave_sub(t: Ticket, m: Mem) -> Ticket:
    return attrs.evolve(t, inner=m, log=(*t.log, f"sub total {m.total}"))


def test_an_embedded_machine_runs_as_one_state_and_its_effects_reach_the_outer_shell() -> None:
    machine = define_machine(
        name="outer",
        states=Outer,
        events=OuterEv,
        initial=Outer.INTAKE,
        terminals={Outer.CLOSED, Outer.FAILED},
        table={(Outer.INTAKE, OuterEv.BEGIN): Outer.SUBTASK, (Outer.SUBTASK, OuterEv.SUB_DONE): Outer.CLOSED},
        handlers={
            Outer.INTAKE: pure(intake),
            Outer.SUBTASK: embed(
                sample_machine(), enter=enter_sub, leave=leave_sub, exits={S.DONE: OuterEv.SUB_DONE}
            ),
        },
    )
    shell = Shell(Performers().on(Ask, lambda _e: 10), StepClock())
    done = run(machine, Ticket(), shell).unwrap()
    assert done.state is Outer.CLOSED
    assert done.memory.inner == Mem(n=3, total=30)
    assert done.memory.log == ("intake", "sub total 30")
    assert replay(machine, begin(machine, Ticket()), done.journal) == Success(done)
    assert machine.handlers[Outer.SUBTASK].events == frozenset({OuterEv.SUB_DONE})
    assert machine.handlers[Outer.SUBTASK].effectful


def test_an_embedded_machine_that_fails_faults_the_outer_state() -> None:
    broken_inner = sample_machine().extend(handlers={S.IDLE: lambda _m: Failure(Fault("inner broke"))})
    machine = define_machine(
        states=Outer,
        events=OuterEv,
        initial=Outer.SUBTASK,
        terminals={Outer.CLOSED, Outer.FAILED, Outer.INTAKE},
        table={(Outer.SUBTASK, OuterEv.SUB_DONE): Outer.CLOSED},
        handlers={
            Outer.SUBTASK: embed(
                broken_inner, enter=enter_sub, leave=leave_sub, exits={S.DONE: OuterEv.SUB_DONE}
            )
        },
    )
    result = run(machine, Ticket(), Shell(Performers().on(Ask, lambda _e: 1), StepClock()))
    assert isinstance(result, Failure)
    reason = result.failure().reason
    assert isinstance(reason, HandlerFaulted)
    assert "inner broke" in reason.fault.message


@attrs.frozen
class Lookup(Effect[str]):
    outcome_types: ClassVar[tuple[type, ...]] = (str,)
    key: str


class Two(enum.Enum):
    FIRST = 1
    SECOND = 2
    DONE = 3


class TwoEv(enum.Enum):
    GOT = 1


def _asking(key: str) -> Effectful[TwoEv, tuple[str, ...], str]:
    return effectful(lambda m: perform(Lookup(key), m), lambda m, value: emit(TwoEv.GOT, (*m, value)))


def _two_lookups_embedded() -> Machine[Outer, OuterEv, tuple[str, ...]]:
    inner = define_machine(
        states=Two,
        events=TwoEv,
        initial=Two.FIRST,
        terminals={Two.DONE},
        table={(Two.FIRST, TwoEv.GOT): Two.SECOND, (Two.SECOND, TwoEv.GOT): Two.DONE},
        handlers={Two.FIRST: _asking("a"), Two.SECOND: _asking("b")},
    )
    return define_machine(
        states=Outer,
        events=OuterEv,
        initial=Outer.SUBTASK,
        terminals={Outer.CLOSED, Outer.FAILED, Outer.INTAKE},
        table={(Outer.SUBTASK, OuterEv.SUB_DONE): Outer.CLOSED},
        handlers={
            Outer.SUBTASK: embed(
                inner, enter=lambda m: m, leave=lambda _m, inner: inner, exits={Two.DONE: OuterEv.SUB_DONE}
            )
        },
    )


def test_each_effect_of_an_embedded_machine_is_performed_as_itself() -> None:
    # Regression: the shell cached performers by effect type, so the second Nested
    # effect was performed as the first one ("a" twice).
    machine = _two_lookups_embedded()
    shell = Shell(Performers().on(Lookup, lambda e: f"value of {e.key}"), StepClock())
    assert run(machine, (), shell).unwrap().memory == ("value of a", "value of b")


def test_each_effect_of_an_embedded_machine_is_performed_as_itself_under_arun() -> None:
    async def look_up(e: Lookup) -> str:
        return f"async value of {e.key}"

    machine = _two_lookups_embedded()
    sync = Shell(Performers().on(Lookup, lambda e: f"value of {e.key}"), StepClock())
    asynchronous = Shell(Performers().on_async(Lookup, look_up), StepClock())
    assert asyncio.run(arun(machine, (), sync)).unwrap().memory == ("value of a", "value of b")
    assert asyncio.run(arun(machine, (), asynchronous)).unwrap().memory == (
        "async value of a",
        "async value of b",
    )
