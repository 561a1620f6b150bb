"""State handlers: pure functions from memory to a decision.

A *decision* is ``Result[(event, memory) | Perform(effect, memory), Fault]``:

* ``Success((event, memory))``: take the table's row for ``(state, event)``;
* ``Success(Perform(effect, memory))``: ask the shell to perform ``effect``, then
  call the handler's ``receive`` with ``memory`` and the outcome;
* ``Failure(fault)``: stop the run with a typed failure naming the state.

Write a pure state as a plain function ``memory -> Result[(event, memory), Fault]``;
write a state that needs the world with :func:`effectful` (a ``request`` and a
``receive`` function). Annotate the return type with ``Literal`` events so mypy
proves the handler emits nothing else and the verifier can read them.

One idea over 300 lines: the handler protocol, its two kinds and their builders, read together.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Callable, Iterable
from typing import Final, Generic, TypeAlias, TypeVar, cast

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.core._fast import new_instance, success_setter
from agentsm_fn.core.effects import Effect, Perform
from agentsm_fn.core.faults import Fault

__all__ = [
    "Decision",
    "Effectful",
    "Handler",
    "Outcome",
    "Pure",
    "PureHandler",
    "effectful",
    "emit",
    "fail",
    "perform",
    "pure",
]

EventT = TypeVar("EventT", bound=enum.Enum)
"""The user's event enum (or a ``Literal`` subset of it)."""
EventT_co = TypeVar("EventT_co", bound=enum.Enum, covariant=True)
MemoryT = TypeVar("MemoryT")
"""The user's frozen memory type."""
_T = TypeVar("_T")
OutcomeT = TypeVar("OutcomeT")
"""What performing the requested effect yields."""

Outcome: TypeAlias = "Result[tuple[EventT, MemoryT], Fault]"
"""What a pure handler returns: the event it emits and the new memory, or a fault."""

Decision: TypeAlias = "Result[tuple[EventT, MemoryT] | Perform[object, MemoryT], Fault]"
"""What the engine receives from any handler: a transition, an effect request, or a fault."""

PureHandler: TypeAlias = Callable[[MemoryT], "Result[tuple[EventT, MemoryT], Fault]"]
"""A pure state: memory in, ``Result[(event, memory), Fault]`` out."""


_SET_VALUE: Final = success_setter()
_new_tuple: Final = tuple.__new__


def emit(event: EventT, memory: MemoryT) -> Result[tuple[EventT, MemoryT], Fault]:
    """Succeed with a transition: ``Success((event, memory))``.

    Example:
        >>> import enum
        >>> class Ev(enum.Enum):
        ...     GO = 1
        >>> emit(Ev.GO, {"n": 1}).unwrap()
        (<Ev.GO: 1>, {'n': 1})
    """
    if _SET_VALUE is None:
        return Success((event, memory))
    # Built directly (core/_fast.py): without it a K=3 run of benchmarks/engine.py costs 8.3% more.
    made: Success[tuple[EventT, MemoryT]] = new_instance(Success)
    _SET_VALUE(made, (event, memory))
    return made


def perform(effect: Effect[OutcomeT], memory: MemoryT) -> Result[Perform[OutcomeT, MemoryT], Fault]:
    """Succeed with an effect request: ``Success(Perform(effect, memory))``.

    Example:
        >>> import attrs
        >>> @attrs.frozen
        ... class Ping(Effect[str]):
        ...     outcome_types = (str,)
        >>> perform(Ping(), 0).unwrap().effect
        Ping()
        >>> perform(Ping(), 0) == Success(Perform(Ping(), 0)), type(perform(Ping(), 0).unwrap())
        (True, <class 'agentsm_fn.core.effects.Perform'>)
    """
    if _SET_VALUE is None:
        return Success(Perform(effect, memory))
    # Built directly (core/_fast.py), the Perform too (tuple.__new__, as its NamedTuple __new__ does):
    # without it a K=3 run of the effects variant of benchmarks/engine.py costs 8.6% more CPU time.
    made: Success[Perform[OutcomeT, MemoryT]] = new_instance(Success)
    _SET_VALUE(made, _new_tuple(Perform, (effect, memory)))
    return made


def fail(message: str) -> Result[tuple[EventT, MemoryT], Fault]:
    """Fail with a plain :class:`Fault` carrying ``message``.

    Example:
        >>> fail("memory is corrupt").failure().message
        'memory is corrupt'
    """
    return Failure(Fault(message))


class Handler(abc.ABC, Generic[EventT_co, MemoryT]):
    """What the engine calls for a state. Built by :func:`pure` or :func:`effectful`.

    ``events`` declares the events the handler can emit when they cannot be read
    from annotations; ``failure_event`` names the event an effectful state emits
    when its effect fails (checked by the verifier).
    """

    __slots__ = ()

    @abc.abstractmethod
    def enter(self, memory: MemoryT) -> Decision[EventT_co, MemoryT]:
        """Run the state on ``memory``."""

    @abc.abstractmethod
    def resume(
        self, memory: MemoryT, effect: Effect[object], outcome: object
    ) -> Decision[EventT_co, MemoryT]:
        """Continue after the requested ``effect`` was performed with ``outcome``."""

    @property
    @abc.abstractmethod
    def functions(self) -> tuple[Callable[..., object], ...]:
        """The user functions behind this handler (for annotations and source lines)."""

    @property
    @abc.abstractmethod
    def events(self) -> frozenset[enum.Enum] | None:
        """Explicitly declared events, or None to read them from annotations."""

    @property
    @abc.abstractmethod
    def failure_event(self) -> enum.Enum | None:
        """The event emitted when the requested effect fails (effectful states)."""

    @property
    def effectful(self) -> bool:
        """Whether this state can request effects."""
        return False

    @property
    def effects(self) -> frozenset[type[Effect[object]]] | None:
        """The effect types this state requests, when declared (the verifier and the kit read them)."""
        return None


def _name(fn: Callable[..., object]) -> str:
    return getattr(fn, "__qualname__", repr(fn))


@attrs.frozen(repr=False)
class Pure(Handler[EventT_co, MemoryT]):
    """A state that never needs the world: one pure function.

    Example:
        >>> import enum
        >>> class Ev(enum.Enum):
        ...     GO = 1
        >>> Pure(lambda m: emit(Ev.GO, m + 1)).enter(1).unwrap()
        (<Ev.GO: 1>, 2)
    """

    fn: Callable[[MemoryT], Result[tuple[EventT_co, MemoryT], Fault]]
    declared: frozenset[enum.Enum] | None = None

    def enter(self, memory: MemoryT) -> Decision[EventT_co, MemoryT]:
        return self.fn(memory)

    def resume(
        self, memory: MemoryT, effect: Effect[object], outcome: object
    ) -> Decision[EventT_co, MemoryT]:
        return Failure(Fault(f"pure handler {_name(self.fn)} cannot receive an outcome"))

    @property
    def functions(self) -> tuple[Callable[..., object], ...]:
        return (self.fn,)

    @property
    def events(self) -> frozenset[enum.Enum] | None:
        return self.declared

    @property
    def failure_event(self) -> enum.Enum | None:
        return None

    def __repr__(self) -> str:
        return f"Pure({_name(self.fn)})"


@attrs.frozen(repr=False)
class Effectful(Handler[EventT_co, MemoryT], Generic[EventT_co, MemoryT, OutcomeT]):
    """A state that asks the world: ``request`` decides, ``receive`` reads the outcome.

    ``request`` may also emit directly (a guard that needs no IO); ``receive`` may
    request a further effect.
    """

    request: Callable[
        [MemoryT],
        Result[tuple[EventT_co, MemoryT] | Perform[OutcomeT, MemoryT], Fault],
    ]
    receive: Callable[
        [MemoryT, OutcomeT],
        Result[tuple[EventT_co, MemoryT] | Perform[OutcomeT, MemoryT], Fault],
    ]
    declared: frozenset[enum.Enum] | None = None
    on_failure: enum.Enum | None = None
    requests: frozenset[type[Effect[object]]] | None = None

    def enter(self, memory: MemoryT) -> Decision[EventT_co, MemoryT]:
        return self.request(memory)

    def resume(
        self, memory: MemoryT, effect: Effect[object], outcome: object
    ) -> Decision[EventT_co, MemoryT]:
        # The engine has checked ``effect.accepts(outcome)`` for the effect this
        # handler requested, whose outcome type is OutcomeT.
        return self.receive(memory, cast(OutcomeT, outcome))

    @property
    def functions(self) -> tuple[Callable[..., object], ...]:
        return (self.request, self.receive)

    @property
    def events(self) -> frozenset[enum.Enum] | None:
        return self.declared

    @property
    def failure_event(self) -> enum.Enum | None:
        return self.on_failure

    @property
    def effectful(self) -> bool:
        return True

    @property
    def effects(self) -> frozenset[type[Effect[object]]] | None:
        return self.requests

    def __repr__(self) -> str:
        return f"Effectful(request={_name(self.request)}, receive={_name(self.receive)})"


def pure(
    fn: Callable[[MemoryT], Result[tuple[EventT, MemoryT], Fault]],
    *,
    events: frozenset[EventT] | set[EventT] | None = None,
) -> Pure[EventT, MemoryT]:
    """Wrap a pure function as a handler, optionally declaring its events.

    Example:
        >>> import enum
        >>> class Ev(enum.Enum):
        ...     GO = 1
        >>> pure(lambda m: emit(Ev.GO, m), events={Ev.GO}).events == {Ev.GO}
        True
    """
    return Pure(fn, None if events is None else frozenset(events))


def effectful(
    request: Callable[[MemoryT], Result[tuple[EventT, MemoryT] | Perform[OutcomeT, MemoryT], Fault]],
    receive: Callable[
        [MemoryT, OutcomeT], Result[tuple[EventT, MemoryT] | Perform[OutcomeT, MemoryT], Fault]
    ],
    *,
    events: frozenset[EventT] | set[EventT] | None = None,
    failure_event: EventT | None = None,
    effects: Iterable[type[Effect[object]]] | None = None,
) -> Effectful[EventT, MemoryT, OutcomeT]:
    """Build a state that performs effects from its ``request`` and ``receive`` halves.

    ``effects`` declares the effect types the state requests. When each of them turns its
    failures into an outcome of its own (``Effect.outcome_of_failure``), that is the state's
    failure route and it needs no ``failure_event`` (the verifier's SM010 reads it; the kit
    checks every requested effect is of a declared type and feeds their failures).

    Example:
        >>> import attrs, enum
        >>> class Ev(enum.Enum):
        ...     GOT = 1
        >>> @attrs.frozen
        ... class Ask(Effect[str]):
        ...     outcome_types = (str,)
        >>> h = effectful(lambda m: perform(Ask(), m), lambda m, answer: emit(Ev.GOT, answer))
        >>> h.enter("").unwrap().effect, h.resume("", Ask(), "yes").unwrap()
        (Ask(), (<Ev.GOT: 1>, 'yes'))
    """
    return Effectful(
        request,
        receive,
        None if events is None else frozenset(events),
        failure_event,
        None if effects is None else frozenset(effects),
    )
