"""What the verifier reads of a guarding state: its guardrails' actions and their events (for SM015).

A guarding state's handler (:class:`~agentsm_fn.agents.guardrails.Guarding`, made by
``guarding(...)``) names its guardrails and, for each, the actions a trip can take (its own
:class:`~agentsm_fn.agents.guardrails.OnTrip`, and ``REFUSE`` too when a human's rejection of an
``ASK_HUMAN`` trip refuses) with the event that carries each. :func:`read_guards` reads them
into :class:`GuardInfo` values, kept in the state's
:class:`~verification.model.StateInfo`; :mod:`verification.checks_guards` judges them.
"""

from __future__ import annotations

import enum
from typing import TypeVar

import attrs

from agentsm_fn.agents.guardrails import Guarding, LlmCheck
from agentsm_fn.core.handlers import Handler
from verification.findings import Location
from verification.locate import function_location

__all__ = ["GuardInfo", "read_guards"]

EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


@attrs.frozen(kw_only=True)
class GuardInfo:
    """One action of one guardrail of a state: its stage, the action, and its event's name (None: none).

    Example:
        >>> GuardInfo(guardrail="pii", stage="output", action="stop", event=None).event is None
        True
    """

    guardrail: str
    stage: str
    action: str
    event: str | None
    location: Location | None = None


def read_guards(handler: Handler[EventT, MemoryT]) -> tuple[GuardInfo, ...]:
    """The guardrails' actions of a guarding state's handler (empty for any other handler).

    Example:
        >>> import enum
        >>> from agentsm_fn.agents.guardrails import GuardLog, OnTrip, guarding, guardrail
        >>> class Ev(enum.Enum):
        ...     OK = 1
        >>> log = GuardLog(checks=lambda m: (), with_checks=lambda m, c: m, visit=lambda m: 0)
        >>> g = guardrail("pii", lambda text: None, on_trip=OnTrip.STOP)
        >>> [(i.guardrail, i.action, i.event) for i in read_guards(
        ...     guarding("output", [g], subjects=lambda m: (m,), log=log, passed=Ev.OK))]
        [('pii', 'stop', None)]
    """
    if not isinstance(handler, Guarding):
        return ()
    located = {
        g.name: function_location(g.check.ask if isinstance(g.check, LlmCheck) else g.check)
        for g in handler.guardrails
    }
    return tuple(
        GuardInfo(
            guardrail=route.guardrail,
            stage=route.stage,
            action=route.on_trip.value,
            event=None if route.event is None else route.event.name,
            location=located.get(route.guardrail),
        )
        for route in handler.routes
    )
