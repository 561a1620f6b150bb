"""Where an outcome the pending effect does not accept goes: the one rule, shared by every engine path.

``step``/``resume`` (the reference semantics) and the run loop's fold call
:func:`route_failure` for an outcome that ``effect.accepts`` refused: an
:class:`~agentsm_fn.core.effect_failures.EffectFailure` the shell delivered, or any
other value (which the engine turns into a ``REJECTED`` failure). The answer is one of

* ``("receive", outcome)``: the effect turns the failure into an outcome of its own
  (``Effect.outcome_of_failure``: by default the failure itself, if the effect lists
  ``EffectFailure`` among its outcome types); hand that outcome to the handler;
* ``("emit", event)``: the state declares ``failure_event``; emit it with the memory of the request;
* ``("fail", reason, journaled)``: no route; the run fails with ``reason``. ``journaled``
  is False for a delivered failure (the run stays AWAITING the effect, to be resumed once
  the cause is fixed) and True for a rejected outcome (kept in the journal, as ever).
"""

from __future__ import annotations

import enum
from typing import Literal, TypeAlias, TypeVar

from agentsm_fn.core.effect_failures import EffectFailure, FailureKind
from agentsm_fn.core.effects import Effect, describe_effect
from agentsm_fn.core.failures import EffectFailed, HandlerRaised, OutcomeRejected, Reason
from agentsm_fn.core.handlers import Handler

__all__ = ["FailureRoute", "route_failure"]

EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

FailureRoute: TypeAlias = (
    tuple[Literal["receive"], object, None]
    | tuple[Literal["emit"], enum.Enum, None]
    | tuple[Literal["fail"], Reason, bool]
)


def rejected(effect: Effect[object], outcome: object) -> EffectFailure:
    """The failure the engine makes of an outcome of a type ``effect`` does not accept."""
    return EffectFailure(
        kind=FailureKind.REJECTED,
        effect=describe_effect(effect),
        detail=f"an outcome of type {type(outcome).__qualname__}",
    )


def route_failure(
    handler: Handler[EventT, MemoryT] | None, state: enum.Enum, effect: Effect[object], outcome: object
) -> FailureRoute:
    """Decide where ``outcome`` (refused by ``effect.accepts``) goes; see the module docstring."""
    delivered = isinstance(outcome, EffectFailure)
    failure = outcome if isinstance(outcome, EffectFailure) else rejected(effect, outcome)
    try:
        own = effect.outcome_of_failure(failure)
        if own is not None and not effect.accepts(own):
            bad = OutcomeRejected(state, describe_effect(effect), type(own).__qualname__)
            return "fail", bad, True
    except Exception as exc:
        raised = HandlerRaised(state, "outcome_of_failure", type(exc).__qualname__, str(exc)[:500])
        return "fail", raised, True
    if own is not None:
        return "receive", own, None
    event = None if handler is None else handler.failure_event
    if event is not None:
        return "emit", event, None
    if delivered:
        return "fail", EffectFailed(state, failure.effect, failure.problem()), False
    return "fail", OutcomeRejected(state, describe_effect(effect), type(outcome).__qualname__), True
