"""The failure rule in detail: REJECTED outcomes, translating effects, embedded machines, digests, memory."""

from __future__ import annotations

import asyncio
import enum
import gc
import weakref
from typing import ClassVar, Literal

import attrs
from returns.result import Failure, Result

from agentsm_fn import (
    SUSPEND,
    Effect,
    EffectFailure,
    FailureKind,
    Fault,
    HandlerRaised,
    InvalidTransition,
    Journal,
    Machine,
    Perform,
    Performers,
    ReplayDiverged,
    Shell,
    Snapshot,
    StepClock,
    arun,
    begin,
    define_machine,
    effect_digest,
    effectful,
    embed,
    emit,
    perform,
    pure,
    replay,
    resume,
    run,
)
from tests.core.sample import (
    TABLE,
    Ask,
    E,
    Mem,
    S,
    idle,
    routed_sample_machine,
    sample_machine,
    work_receive,
    work_request,
)


def test_a_wrong_outcome_takes_the_failure_route_and_is_journaled_as_delivered() -> None:
    machine = routed_sample_machine()
    done = run(machine, Mem(n=1), Shell(Performers().on(Ask, lambda e: "five"), StepClock())).unwrap()
    assert done.state is S.DONE and done.memory == Mem(n=1)
    assert done.journal.outcomes == ("five",)  # what the world gave; replay makes it REJECTED again
    assert replay(machine, begin(machine, Mem(n=1)), done.journal).unwrap() == done


def test_a_failure_event_without_a_row_is_an_invalid_transition() -> None:
    machine = sample_machine().extend(
        handlers={S.WORK: effectful(work_request, work_receive, failure_event=E.NOWHERE)}
    )
    failed = run(machine, Mem(), Shell(Performers().on(Ask, lambda e: 1 / 0), StepClock()))
    assert isinstance(failed, Failure)
    assert failed.failure().reason == InvalidTransition(S.WORK, E.NOWHERE)


@attrs.frozen
class Guess(Effect[int]):
    """An effect that makes its own outcome of a failure (a fallback number)."""

    outcome_types: ClassVar[tuple[type, ...]] = (int,)

    def outcome_of_failure(self, failure: EffectFailure) -> int:
        return -1 if failure.kind is FailureKind.TIMED_OUT else -2


@attrs.frozen
class Broken(Guess):
    def outcome_of_failure(self, failure: EffectFailure) -> int:
        raise KeyError("no fallback")


def _guessing(kind: type[Guess]) -> Machine[S, E, Mem]:
    def request(m: Mem) -> Result[tuple[Literal[E.FINISHED], Mem] | Perform[int, Mem], Fault]:
        return emit(E.FINISHED, m) if m.n >= 1 else perform(kind(), m)

    return sample_machine().extend(handlers={S.WORK: effectful(request, work_receive)})


def test_an_effect_can_make_its_own_outcome_of_a_failure() -> None:
    machine = _guessing(Guess)

    def down(effect: object) -> int:
        raise ConnectionError("down")

    done = run(machine, Mem(), Shell(Performers().on(Guess, down), StepClock())).unwrap()
    assert done.memory == Mem(n=1, total=-2)
    broken = run(_guessing(Broken), Mem(), Shell(Performers().on(Broken, down), StepClock()))
    assert isinstance(broken, Failure)
    reason = broken.failure().reason
    assert isinstance(reason, HandlerRaised) and reason.phase == "outcome_of_failure"


class Outer(enum.Enum):
    RUN = 1
    OK = 2
    BROKE = 3


class Done(enum.Enum):
    FINISHED = 1
    FAILED = 2


def test_an_embedded_machine_takes_its_inner_failure_route() -> None:
    inner = define_machine(
        states=S,
        events=E,
        initial=S.IDLE,
        terminals={S.DONE},
        table={**TABLE, (S.WORK, E.NOWHERE): S.DONE},
        handlers={S.IDLE: pure(idle), S.WORK: effectful(work_request, work_receive, failure_event=E.NOWHERE)},
    )
    state = embed(inner, enter=lambda m: m, leave=lambda m, inner_m: inner_m, exits={S.DONE: Done.FINISHED})
    outer = define_machine(
        states=Outer,
        events=Done,
        initial=Outer.RUN,
        terminals={Outer.OK, Outer.BROKE},
        table={(Outer.RUN, Done.FINISHED): Outer.OK},
        handlers={Outer.RUN: state},
    )

    def down(effect: Ask) -> int:
        raise ConnectionError("down")

    for result in (
        run(outer, Mem(n=1), Shell(Performers().on(Ask, down), StepClock())),
        asyncio.run(arun(outer, Mem(n=1), Shell(Performers().on(Ask, down), StepClock()))),
    ):
        done = result.unwrap()
        assert done.state is Outer.OK and done.memory == Mem(n=1)
        assert done.journal.outcomes[-1] == EffectFailure.raised("Ask (in WORK)", ConnectionError("down"))


def test_replay_names_the_step_where_the_effect_differs() -> None:
    machine = sample_machine()
    done = run(machine, Mem(), Shell(Performers().on(Ask, lambda e: 1), StepClock())).unwrap()

    @attrs.frozen
    class Other(Ask):
        pass

    def changed_request(m: Mem) -> Result[tuple[Literal[E.FINISHED], Mem] | Perform[int, Mem], Fault]:
        return perform(Other(), m) if m.n == 2 else work_request(m)

    changed = machine.extend(handlers={S.WORK: effectful(changed_request, work_receive)})
    diverged = replay(changed, begin(changed, Mem()), done.journal)
    assert isinstance(diverged, Failure)
    reason = diverged.failure().reason
    assert isinstance(reason, ReplayDiverged)
    assert reason.describe() == (
        "replay diverged at journal entry 6: step 4 in WORK: the journal has an outcome of Ask, "
        "the run requested Other"
    )


def test_a_store_can_journal_its_own_digests_and_replay_with_them() -> None:
    machine = sample_machine()
    done = run(machine, Mem(), Shell(Performers().on(Ask, lambda e: 2), StepClock())).unwrap()
    stored = Journal()
    for entry in done.journal:
        stored = (
            stored.tick(entry.at)
            if entry.is_tick
            else stored.record(f"sha:{entry.digest}", entry.outcome, entry.at)
        )
    assert (
        replay(machine, begin(machine, Mem()), stored, digest=lambda e: f"sha:{effect_digest(e)}").unwrap()
        == done
    )
    assert isinstance(replay(machine, begin(machine, Mem()), stored), Failure)  # the wrong digest function


@attrs.frozen
class Chat(Effect[str]):
    """An effect that carries the whole history, as an LLM call does."""

    outcome_types: ClassVar[tuple[type, ...]] = (str,)
    history: tuple[str, ...]

    def summary(self) -> str:
        return f"Chat messages={len(self.history)}"


def test_the_journal_and_trace_keep_no_effect_alive() -> None:
    seen: list[weakref.ref[Chat]] = []

    def reply(effect: Chat) -> str:
        seen.append(weakref.ref(effect))
        return "ok"

    def request(m: Mem) -> Result[tuple[Literal[E.FINISHED], Mem] | Perform[str, Mem], Fault]:
        return emit(E.FINISHED, m) if m.n >= 3 else perform(Chat(tuple(str(i) for i in range(m.n * 100))), m)

    def receive(m: Mem, answer: str) -> Result[tuple[Literal[E.MORE], Mem], Fault]:
        return emit(E.MORE, attrs.evolve(m, n=m.n + 1))

    machine = sample_machine().extend(handlers={S.WORK: effectful(request, receive)})
    done = run(machine, Mem(), Shell(Performers().on(Chat, reply), StepClock())).unwrap()
    gc.collect()
    assert len(seen) == 3 and all(ref() is None for ref in seen)
    assert [e.data for e in done.trace if e.event == "request Chat"] == [
        "Chat messages=0",
        "Chat messages=100",
        "Chat messages=200",
    ]
    assert [entry.digest for entry in done.journal if not entry.is_tick][1] == ("Chat", "Chat messages=100")


def test_a_suspended_snapshot_still_holds_its_pending_effect() -> None:
    machine = sample_machine()
    paused = run(machine, Mem(), Shell(Performers().on(Ask, lambda e: SUSPEND), StepClock())).unwrap()
    assert paused.pending == Ask()
    resumed = resume(machine, paused, EffectFailure.unknown("Ask"), 9.0)
    assert (
        isinstance(resumed, Failure) and resumed.failure().snapshot == paused
    )  # no route: nothing journaled
    routed = resume(routed_sample_machine(), paused, EffectFailure.unknown("Ask"), 9.0)
    assert isinstance(routed.unwrap(), Snapshot) and routed.unwrap().state is S.DONE
