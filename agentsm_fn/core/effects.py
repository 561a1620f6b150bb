"""Effects as data: what a state asks of the world, and the request to perform it.

A handler never does IO. When it needs the world it returns a :class:`Perform`
holding an :class:`Effect` (a plain frozen value) and the memory to resume with.
The shell performs the effect and hands the outcome back to the same handler.

``Effect[OutcomeT]`` names the type of outcome it expects, so mypy checks that a
handler's ``receive`` accepts what its ``request`` asks for, and the engine checks
at run time (``Effect.accepts``) that the shell delivered an outcome of that type.
"""

from __future__ import annotations

from typing import ClassVar, Generic, NamedTuple, TypeGuard, TypeVar

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
    classes an outcome may be an instance of.

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

    def accepts(self, outcome: object) -> TypeGuard[OutcomeT_co]:
        """Tell whether ``outcome`` is a value this effect can resolve to."""
        return isinstance(outcome, self.outcome_types)

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
