"""The effect types a state declares it requests, and whether they handle their own failures.

The verifier cannot see which effects a state's handler asks for, so an effectful state
whose effects turn failures into outcomes of their own (``Effect.outcome_of_failure``, as
``LlmCall`` and the tool effects do) looked to SM010 like a state with no failure route.
A state says so with ``effectful(..., effects={LlmCall})``; :func:`read_effects` reads that
declaration into :class:`DeclaredEffects`:

* which declared types do *not* handle their failures (:func:`handles_own_failures`: the
  class overrides ``outcome_of_failure``, or lists ``EffectFailure`` among its outcome types);
* where the declaration disagrees with the handler's annotations: the outcome type named
  by ``Perform[Outcome, ...]`` in ``request``'s (or ``receive``'s) return annotation, and
  ``receive``'s outcome parameter, must accept every outcome type of every declared effect.

SM010 accepts a state with no ``failure_event`` when its declaration stands (every type
handles its failures, no disagreement). The kit reads the same declaration: a requested
effect of an undeclared type is a violation, and failures of declared types are fed.
"""

from __future__ import annotations

import enum
import inspect
import types
import typing
from collections.abc import Callable, Iterator
from typing import TypeVar

import attrs

from agentsm_fn.core.effect_failures import EffectFailure
from agentsm_fn.core.effects import Effect, Perform
from agentsm_fn.core.handlers import Effectful, Handler

__all__ = ["DeclaredEffects", "handles_own_failures", "read_effects"]

EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


def handles_own_failures(effect_type: type[Effect[object]]) -> bool:
    """Whether ``effect_type`` turns its failures into an outcome of its own (read from the class).

    Example:
        >>> from agentsm_fn.llm import LlmCall
        >>> handles_own_failures(LlmCall), handles_own_failures(Effect)
        (True, False)
    """
    if getattr(effect_type, "outcome_of_failure", None) is not Effect.outcome_of_failure:
        return True
    return any(k is not object and issubclass(EffectFailure, k) for k in effect_type.outcome_types)


@attrs.frozen(kw_only=True)
class DeclaredEffects:
    """A state's declared effect types, those that do not handle their failures, and disagreements.

    Example:
        >>> DeclaredEffects(names=("LlmCall",)).stands
        True
    """

    names: tuple[str, ...]
    unhandled: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()

    @property
    def stands(self) -> bool:
        """Every declared type handles its failures and the annotations agree."""
        return not self.unhandled and not self.problems


def _classes(tp: object) -> tuple[type, ...] | None:
    """The classes a type annotation admits, or None when it is not a plain class or union of them."""
    if isinstance(tp, type):
        return (tp,)
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        parts = [_classes(arg) for arg in typing.get_args(tp)]
        return None if any(p is None for p in parts) else tuple(c for p in parts if p for c in p)
    origin = typing.get_origin(tp)
    return (origin,) if isinstance(origin, type) else None


def _performed(tp: object) -> Iterator[object]:
    """The outcome types named by every ``Perform[Outcome, Memory]`` inside an annotation."""
    if typing.get_origin(tp) is Perform:
        args = typing.get_args(tp)
        if args:
            yield args[0]
        return
    for arg in typing.get_args(tp):
        yield from _performed(arg)


def _annotated(fn: Callable[..., object], outcome_parameter: bool) -> list[tuple[str, object]]:
    """``(where, outcome annotation)`` pairs of ``fn``; empty when they cannot be read."""
    name = getattr(fn, "__qualname__", repr(fn))
    try:
        hints = typing.get_type_hints(fn)
        parameters = list(inspect.signature(fn).parameters)
    except Exception:  # unreadable annotations are SM013's to report
        return []
    found = [(f"{name}'s Perform[...]", tp) for tp in _performed(hints.get("return"))]
    if outcome_parameter and len(parameters) >= 2 and parameters[1] in hints:
        found.append((f"{name}'s parameter {parameters[1]}", hints[parameters[1]]))
    return found


def _disagreements(
    declared: frozenset[type[Effect[object]]], request: Callable[..., object], receive: Callable[..., object]
) -> list[str]:
    problems: list[str] = []
    where = _annotated(request, False) + _annotated(receive, True)
    for label, annotation in where:
        accepted = _classes(annotation)
        if accepted is None or object in accepted:
            continue
        for effect_type in sorted(declared, key=lambda t: t.__name__):
            wrong = [t for t in effect_type.outcome_types if not issubclass(t, accepted)]
            if wrong:
                shown = ", ".join(t.__name__ for t in wrong)
                problems.append(f"{effect_type.__name__}'s outcomes ({shown}) are not what {label} names")
    return problems


def read_effects(handler: Handler[EventT, MemoryT]) -> DeclaredEffects | None:
    """The handler's declared effect types, judged; None when it declares none.

    Example:
        >>> from agentsm_fn import effectful
        >>> from agentsm_fn.llm import LlmCall
        >>> read_effects(effectful(lambda m: m, lambda m, o: o, effects={LlmCall, Effect}))
        DeclaredEffects(names=('Effect', 'LlmCall'), unhandled=('Effect',), problems=())
    """
    declared = handler.effects
    if declared is None:
        return None
    ordered = sorted(declared, key=lambda t: t.__name__)
    problems = (
        _disagreements(declared, handler.request, handler.receive) if isinstance(handler, Effectful) else []
    )
    return DeclaredEffects(
        names=tuple(t.__name__ for t in ordered),
        unhandled=tuple(t.__name__ for t in ordered if not handles_own_failures(t)),
        problems=tuple(problems),
    )
