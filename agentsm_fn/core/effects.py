"""Effects as data: what a state asks of the world, and the request to perform it.

A handler never does IO. When it needs the world it returns a :class:`Perform`
holding an :class:`Effect` (a plain frozen value) and the memory to resume with.
The shell performs the effect and hands the outcome back to the same handler.

``Effect[OutcomeT]`` names the type of outcome it expects, so mypy checks that a
handler's ``receive`` accepts what its ``request`` asks for, and the engine checks
at run time (``Effect.accepts``) that the shell delivered an outcome of that type.
An effect that wants to see its own failures lists
:class:`~agentsm_fn.core.effect_failures.EffectFailure` among its outcome types
(see that module for what a failure is and where the engine sends it).
"""

from __future__ import annotations

from typing import ClassVar, Generic, NamedTuple, TypeGuard, TypeVar

from agentsm_fn.core.effect_failures import EffectFailure

__all__ = ["Effect", "Perform", "describe_effect"]

OutcomeT_co = TypeVar("OutcomeT_co", covariant=True)
"""The type of value that performing an effect yields."""

MemoryT_co = TypeVar("MemoryT_co", covariant=True)
"""The user's frozen memory type."""


def describe_effect(effect: object) -> str:
    """``effect.summary()``, or the class name if ``summary`` itself fails (reports must not raise).

    Example:
        >>> describe_effect(object())
        'object'
    """
    try:
        summary = getattr(effect, "summary", None)
        return str(summary()) if callable(summary) else type(effect).__name__
    except Exception:
        return type(effect).__name__


class Effect(Generic[OutcomeT_co]):
    """Base class of every effect: a request for IO, described as a value.

    Subclasses are ``@attrs.frozen`` records and set ``outcome_types`` to the
    classes an outcome may be an instance of. ``retry_safe`` says whether
    performing the effect twice is harmless (a pure read, an idempotent call): a
    subclass sets ``retry_safe = True``, or makes it a field when it depends on the
    instance (as tool calls do). After a crash, a durable runner performs an effect
    that was in flight again only if it is retry-safe; otherwise it delivers an
    ``EffectFailure`` of kind ``UNKNOWN``.

    Example:
        >>> import attrs
        >>> @attrs.frozen
        ... class ReadClock(Effect[float]):
        ...     outcome_types = (float,)
        >>> ReadClock().accepts(1.5), ReadClock().accepts("noon")
        (True, False)
    """

    __slots__ = ()

    outcome_types: ClassVar[tuple[type, ...]] = (object,)
    retry_safe: bool = False
    """Whether performing this effect twice is harmless (a class attribute, or a field)."""

    def accepts(self, outcome: object) -> TypeGuard[OutcomeT_co]:
        """Tell whether ``outcome`` is a value this effect can resolve to.

        An :class:`EffectFailure` is accepted only when ``outcome_types`` names it
        (or a base class of it other than ``object``): an effect that accepts any
        outcome does not thereby ask to receive its failures.
        """
        if isinstance(outcome, EffectFailure):
            return any(kind is not object and issubclass(EffectFailure, kind) for kind in self.outcome_types)
        return isinstance(outcome, self.outcome_types)

    def outcome_of_failure(self, failure: EffectFailure) -> OutcomeT_co | None:
        """The outcome ``receive`` gets when this effect fails, or None to take the state's failure route.

        By default ``failure`` itself when ``outcome_types`` lists
        :class:`EffectFailure`, else None (the engine then emits the state's
        ``failure_event``). An effect whose outcome type already has a failure value
        (an LLM call's ``LlmFailure``, a tool's failed result) returns one, so its
        handler records the failure in memory with no change to its types.

        Example:
            >>> import attrs
            >>> @attrs.frozen
            ... class Fetch(Effect[str]):
            ...     outcome_types = (str,)
            ...     def outcome_of_failure(self, failure: EffectFailure) -> str | None:
            ...         return f"ERROR: {failure.problem()}"
            >>> Fetch().outcome_of_failure(EffectFailure.unknown("Fetch"))
            'ERROR: outcome unknown: in flight when the run stopped'
        """
        return failure if self.accepts(failure) else None

    def summary(self) -> str:
        """Describe the effect in one line for the trace; never include secrets."""
        return type(self).__name__

    def underlying(self) -> Effect[object]:
        """The effect the shell should perform: ``self``, or the effect a wrapper carries."""
        return self


class Perform(NamedTuple, Generic[OutcomeT_co, MemoryT_co]):
    """A handler's request: perform ``effect``, then resume with ``memory``.

    A named tuple rather than an attrs class: the engine builds one per effect,
    and a tuple is built in half the time (see benchmarks/engine.py).

    Example:
        >>> import attrs
        >>> @attrs.frozen
        ... class Ask(Effect[str]):
        ...     outcome_types = (str,)
        ...     question: str
        >>> Perform(Ask("name?"), memory=0).effect.question
        'name?'
    """

    effect: Effect[OutcomeT_co]
    memory: MemoryT_co
