"""Effect failures in generated runs: the kit feeds ``EffectFailure`` outcomes wherever a state can take them.

The engine gives an effect's failure (its performer raised or timed out, or its outcome
is unknown after a crash) one meaning, described in docs/effect-failures.md: the
effect's own ``outcome_of_failure``, else the state's ``failure_event``, else the run
stops. A state *has a failure route* when one of the first two applies; for those
states the derived state machine delivers a failure instead of a normal outcome now and
then (one effect in :data:`FAILURE_ODDS`), and the covering-path suite tries failures
after the normal examples, so failure rows are taken like any other row.
"""

from __future__ import annotations

import enum
from typing import Final, TypeVar

from hypothesis import strategies as st

from agentsm_fn.core.effect_failures import EffectFailure, FailureKind
from agentsm_fn.core.effects import Effect, describe_effect
from agentsm_fn.core.machine import Machine
from verification.effect_types import handles_own_failures

__all__ = ["FAILURE_ODDS", "effect_failures", "failure_examples", "has_failure_route"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

FAILURE_ODDS: Final = 16
"""The derived state machine fails one effect in this many (of states with a failure route)."""

_DELIVERED: Final = (FailureKind.RAISED, FailureKind.TIMED_OUT, FailureKind.UNKNOWN)
"""The kinds a shell or a recovery delivers (REJECTED is made by the engine from a wrong outcome)."""


def has_failure_route(
    machine: Machine[StateT, EventT, MemoryT], state: StateT, effect: Effect[object]
) -> bool:
    """Whether a failure of ``effect``, requested in ``state``, goes somewhere other than stopping the run.

    True when the effect makes an outcome of the failure (``outcome_of_failure``), the
    state's handler declares a ``failure_event`` that has a row, or it declares (``effects=``)
    a type of this effect that handles its own failures: then the kit feeds failures to test
    that declaration, and an effect that does not handle them after all stops the run (a violation).

    Example:
        >>> from verification.kit._demo import COUNTER, Roll, S
        >>> has_failure_route(COUNTER, S.COUNTING, Roll())  # no failure_event, Roll keeps failures out
        False
    """
    try:
        if effect.outcome_of_failure(EffectFailure.unknown(describe_effect(effect))) is not None:
            return True
    except Exception:  # a broken outcome_of_failure: the engine reports it; do not route here
        return False
    handler = machine.handlers.get(state)
    if handler is None:
        return False
    declared = handler.effects or ()
    if any(isinstance(effect, t) and handles_own_failures(t) for t in declared):
        return True
    event = handler.failure_event
    return event is not None and (state, event) in machine.table


def effect_failures(effect: Effect[object]) -> st.SearchStrategy[EffectFailure]:
    """Failures of ``effect`` as a shell or a recovery would deliver them (raised, timed out, unknown).

    Example:
        >>> from verification.kit._demo import Roll
        >>> from hypothesis import given
        >>> @given(effect_failures(Roll()))
        ... def delivered(failure: EffectFailure) -> None:
        ...     assert failure.effect == "Roll" and failure.kind is not FailureKind.REJECTED
        >>> delivered()
    """
    summary = describe_effect(effect)
    details = st.sampled_from(("ConnectionError: connection reset", "no outcome within 5s", "crash"))
    kinds = st.sampled_from(_DELIVERED)
    texts = details | st.text(max_size=30)
    return st.builds(EffectFailure, kind=kinds, effect=st.just(summary), detail=texts)


def failure_examples(effect: Effect[object]) -> tuple[EffectFailure, ...]:
    """One failure of each delivered kind, for the deterministic covering-path suite.

    Example:
        >>> from verification.kit._demo import Roll
        >>> [f.kind.name for f in failure_examples(Roll())]
        ['RAISED', 'TIMED_OUT', 'UNKNOWN']
    """
    summary = describe_effect(effect)
    return (
        EffectFailure.raised(summary, ConnectionError("connection reset")),
        EffectFailure.timed_out(summary, 5.0),
        EffectFailure.unknown(summary),
    )
