"""Composition: build handlers from small pure functions, and machines from machines.

* :func:`then` chains memory updates (``memory -> Result[memory, Fault]``) into one;
* :func:`lift` turns an update into a handler that always emits one event;
* :func:`choose` routes by the first matching predicate, declaring every event it can
  emit so the verifier still sees them all;
* :func:`embed` runs a whole machine as one state of a larger one: its terminal states
  map to events of the outer machine, and its effects pass through the outer shell.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import ClassVar, Generic, TypeGuard, TypeVar, cast

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.core.effect_failures import EffectFailure
from agentsm_fn.core.effects import Effect, Perform, describe_effect
from agentsm_fn.core.engine import _classify
from agentsm_fn.core.faults import Fault
from agentsm_fn.core.handlers import Decision, Handler, Pure, emit
from agentsm_fn.core.machine import Machine

__all__ = ["Embedded", "Nested", "choose", "embed", "lift", "then"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
EventT_co = TypeVar("EventT_co", bound=enum.Enum, covariant=True)
MemoryT = TypeVar("MemoryT")
InnerS = TypeVar("InnerS", bound=enum.Enum)
"""The embedded machine's state enum."""
InnerE = TypeVar("InnerE", bound=enum.Enum)
"""The embedded machine's event enum."""
InnerM = TypeVar("InnerM")
"""The embedded machine's memory type."""

Update = Callable[[MemoryT], Result[MemoryT, Fault]]


def then(
    *updates: Callable[[MemoryT], Result[MemoryT, Fault]],
) -> Callable[[MemoryT], Result[MemoryT, Fault]]:
    """Chain updates left to right; the first failure stops the chain.

    Example:
        >>> from returns.result import Success
        >>> inc = lambda n: Success(n + 1)
        >>> then(inc, inc, inc)(0)
        <Success: 3>
    """

    def chained(memory: MemoryT) -> Result[MemoryT, Fault]:
        result: Result[MemoryT, Fault] = Success(memory)
        for update in updates:
            result = result.bind(update)
        return result

    return chained


def lift(
    event: EventT, update: Callable[[MemoryT], Result[MemoryT, Fault]] | None = None
) -> Pure[EventT, MemoryT]:
    """A handler that applies ``update`` (if any) and always emits ``event``.

    Example:
        >>> import enum
        >>> class Ev(enum.Enum):
        ...     NEXT = 1
        >>> from returns.result import Success
        >>> lift(Ev.NEXT, lambda n: Success(n * 2)).enter(21).unwrap()
        (<Ev.NEXT: 1>, 42)
    """

    def handler(memory: MemoryT) -> Result[tuple[EventT, MemoryT], Fault]:
        if update is None:
            return emit(event, memory)
        return update(memory).map(lambda new: (event, new))

    return Pure(handler, frozenset({event}))


def choose(
    *rules: tuple[Callable[[MemoryT], bool], EventT],
    otherwise: EventT,
    update: Callable[[MemoryT], Result[MemoryT, Fault]] | None = None,
) -> Pure[EventT, MemoryT]:
    """Apply ``update``, then emit the event of the first rule whose predicate holds.

    The handler declares every event it can emit (all rules' and ``otherwise``), so
    the verifier can prove each has a row.

    Example:
        >>> import enum
        >>> class Ev(enum.Enum):
        ...     BIG = 1
        ...     SMALL = 2
        >>> h = choose((lambda n: n > 10, Ev.BIG), otherwise=Ev.SMALL)
        >>> h.enter(11).unwrap()[0], h.enter(1).unwrap()[0], sorted(e.name for e in h.events or ())
        (<Ev.BIG: 1>, <Ev.SMALL: 2>, ['BIG', 'SMALL'])
    """

    def route(memory: MemoryT) -> Result[tuple[EventT, MemoryT], Fault]:
        for predicate, event in rules:
            if predicate(memory):
                return emit(event, memory)
        return emit(otherwise, memory)

    def handler(memory: MemoryT) -> Result[tuple[EventT, MemoryT], Fault]:
        if update is None:
            return route(memory)
        return update(memory).bind(route)

    return Pure(handler, frozenset({otherwise, *(event for _, event in rules)}))


@attrs.frozen
class Nested(Effect[object]):
    """An effect of an embedded machine, carrying where that machine stands.

    The shell performs ``effect`` (see :meth:`Effect.underlying`); the outer handler
    resumes the inner machine at ``state`` with ``memory``. A failure of ``effect``
    takes the inner state's route: its ``receive`` if ``effect`` accepts failures,
    else the inner state's ``failure_event`` (carried here), else the outer run fails.
    """

    outcome_types: ClassVar[tuple[type, ...]] = (object,)

    effect: Effect[object]
    state: enum.Enum
    memory: object
    steps: int
    failure_event: enum.Enum | None = None
    retry_safe: bool = attrs.field(
        init=False, default=attrs.Factory(lambda self: self.effect.retry_safe, takes_self=True)
    )

    def accepts(self, outcome: object) -> TypeGuard[object]:
        if isinstance(outcome, EffectFailure) and self.failure_event is not None:
            return True
        return self.effect.accepts(outcome)

    def outcome_of_failure(self, failure: EffectFailure) -> object | None:
        own = self.effect.outcome_of_failure(failure)
        if own is None and self.failure_event is not None:
            return failure  # the inner state's failure_event, emitted by Embedded.resume
        return own

    def summary(self) -> str:
        return f"{describe_effect(self.effect)} (in {self.state.name})"

    def underlying(self) -> Effect[object]:
        return self.effect.underlying()


@attrs.frozen(repr=False)
class Embedded(Handler[EventT_co, MemoryT], Generic[EventT_co, MemoryT, InnerS, InnerE, InnerM]):
    """A whole machine running as one state of another. Build it with :func:`embed`."""

    inner: Machine[InnerS, InnerE, InnerM]
    enter_fn: Callable[[MemoryT], InnerM]
    leave_fn: Callable[[MemoryT, InnerM], MemoryT]
    exits: Mapping[InnerS, EventT_co]

    def enter(self, memory: MemoryT) -> Decision[EventT_co, MemoryT]:
        inner_memory = self.enter_fn(memory)
        return self._advance(memory, self.inner.initial, inner_memory, 0, None)

    def resume(
        self, memory: MemoryT, effect: Effect[object], outcome: object
    ) -> Decision[EventT_co, MemoryT]:
        if not isinstance(effect, Nested):
            return Failure(
                Fault(f"embedded machine {self.inner.name!r} got an outcome for {describe_effect(effect)}")
            )
        # A Nested effect reaching this handler was made by _advance from this inner machine.
        state, inner_memory = cast(InnerS, effect.state), cast(InnerM, effect.memory)
        handler = self.inner.handlers.get(state)
        if handler is None:
            return Failure(Fault(f"embedded machine has no handler for {state.name}"))
        if (
            isinstance(outcome, EffectFailure)
            and effect.failure_event is not None
            and effect.effect.outcome_of_failure(outcome) is None
        ):  # the inner state's failure route
            decision: object = Success((effect.failure_event, inner_memory))
        else:
            decision = handler.resume(inner_memory, effect.effect, outcome)
        return self._advance(memory, state, inner_memory, effect.steps, decision)

    def _advance(
        self, memory: MemoryT, state: InnerS, inner_memory: InnerM, steps: int, decision: object | None
    ) -> Decision[EventT_co, MemoryT]:
        inner = self.inner
        cap = inner.cap_for(inner_memory)
        while True:
            if decision is None:
                if state in inner.terminals:
                    event = self.exits.get(state)
                    if event is None:
                        return Failure(
                            Fault(f"embedded machine ended in {state.name}, which maps to no event")
                        )
                    return Success((event, self.leave_fn(memory, inner_memory)))
                if steps >= cap:
                    return Failure(Fault(f"embedded machine exceeded its safety cap of {cap} transitions"))
                handler = inner.handlers.get(state)
                if handler is None:
                    return Failure(Fault(f"embedded machine has no handler for {state.name}"))
                decision = handler.enter(inner_memory)
            routed = _classify(inner, state, decision)
            decision = None
            if routed[0] == "move":
                _, _, state, inner_memory = routed
                steps += 1
            elif routed[0] == "await":
                _, effect, inner_memory, _ = routed
                requester = inner.handlers.get(state)
                failure_event = None if requester is None else requester.failure_event
                return Success(Perform(Nested(effect, state, inner_memory, steps, failure_event), memory))
            else:
                return Failure(Fault(f"embedded machine {inner.name!r}: {routed[1].describe()}"))

    @property
    def functions(self) -> tuple[Callable[..., object], ...]:
        return ()

    @property
    def events(self) -> frozenset[enum.Enum] | None:
        return frozenset(self.exits.values())

    @property
    def failure_event(self) -> enum.Enum | None:
        return None

    @property
    def effectful(self) -> bool:
        return any(h.effectful for h in self.inner.handlers.values())

    def __repr__(self) -> str:
        exits = {s.name: e.name for s, e in self.exits.items()}
        return f"Embedded({self.inner.name or 'machine'}, exits={exits})"


def embed(
    inner: Machine[InnerS, InnerE, InnerM],
    *,
    enter: Callable[[MemoryT], InnerM],
    leave: Callable[[MemoryT, InnerM], MemoryT],
    exits: Mapping[InnerS, EventT],
) -> Embedded[EventT, MemoryT, InnerS, InnerE, InnerM]:
    """Run ``inner`` as one state: ``enter`` derives its memory, ``leave`` folds the result back.

    Each terminal state of ``inner`` maps to an event of the outer machine through
    ``exits``. Effects of the inner machine go to the outer shell unchanged.

    Example:
        >>> import enum
        >>> from agentsm_fn.core.machine import define_machine
        >>> class S(enum.Enum):
        ...     RUN = 1
        ...     OK = 2
        >>> class E(enum.Enum):
        ...     DONE = 1
        >>> inner = define_machine(states=S, events=E, initial=S.RUN, terminals={S.OK},
        ...     table={(S.RUN, E.DONE): S.OK}, handlers={S.RUN: lambda n: emit(E.DONE, n + 1)})
        >>> class Outer(enum.Enum):
        ...     FINISHED = 1
        >>> h = embed(inner, enter=lambda m: m["n"], leave=lambda m, n: {"n": n},
        ...           exits={S.OK: Outer.FINISHED})
        >>> h.enter({"n": 1}).unwrap()
        (<Outer.FINISHED: 1>, {'n': 2})
    """
    return Embedded(inner, enter, leave, dict(exits))
