"""Guardrails on the run span: one ``agentsm.guardrail`` event per transition out of a guarding state.

Any machine's guarding states are found by their handlers (:class:`~agentsm_fn.agents.guardrails.Guarding`),
so the observer needs to know nothing of the ReAct agent. A run of a machine that has some
is watched with ``memory_after`` too: after a transition out of a guarding state, the
state's own log says which guardrails that visit checked and which tripped; the event
carries the stage, the outcome (``passed`` or the action taken), the guardrails checked and
the one that tripped, and its reason only when content is captured (a reason may quote the
user). The run span keeps the last guardrail that tripped.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from types import MappingProxyType
from typing import cast

from opentelemetry.util.types import AttributeValue

from agentsm_fn.agents.guardrails import Guarding
from agentsm_fn.core.machine import Machine
from agentsm_fn.otel import names

__all__ = ["guardrail_event", "guarding_states"]

_NONE: Mapping[object, Guarding[enum.Enum, object, object]] = MappingProxyType({})
_FOUND: dict[int, tuple[object, Mapping[object, Guarding[enum.Enum, object, object]]]] = {}


def _guarding(
    machine: Machine[enum.Enum, enum.Enum, object],
) -> Mapping[object, Guarding[enum.Enum, object, object]]:
    found = _FOUND.get(id(machine))
    if found is not None and found[0] is machine:
        return found[1]
    states = {s: h for s, h in machine.handlers.items() if isinstance(h, Guarding)}
    shown = _NONE
    if states:
        shown = MappingProxyType(cast(dict[object, Guarding[enum.Enum, object, object]], states))
    if len(_FOUND) > 64:  # machines made on the fly must not pile up
        _FOUND.clear()
    _FOUND[id(machine)] = (machine, shown)
    return shown


def guarding_states(
    machine: Machine[enum.Enum, enum.Enum, object], memory: object
) -> Mapping[object, Guarding[enum.Enum, object, object]]:
    """The machine's guarding states that have guardrails to check in a run from ``memory``.

    (A memory's guardrails do not change in a run; a machine's are found once.)

    Example:
        >>> from agentsm_fn.agents.guardrails import GuardrailSpec
        >>> from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory
        >>> len(guarding_states(REACT_MACHINE, AgentMemory.new("t")))
        0
        >>> polite = GuardrailSpec(name="polite", stage="input", instructions="Be polite.")
        >>> [s.name for s in guarding_states(REACT_MACHINE, AgentMemory.new("t").evolve(guardrails=[polite]))]
        ['GuardingInput']
    """
    guarding = _guarding(machine)
    if not guarding:
        return _NONE
    try:
        checked = {s: h for s, h in guarding.items() if h.rails(memory)}
    except Exception:  # a memory the handler cannot read: watch them all
        return guarding
    return MappingProxyType(checked) if checked else _NONE


def guardrail_event(
    handler: Guarding[enum.Enum, object, object], event: object, memory: object, capture: bool
) -> dict[str, AttributeValue]:
    """The attributes of the event for a transition out of ``handler``'s state on ``event``.

    Example:
        >>> from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory, Event, State
        >>> from agentsm_fn.agents.guardrails import GuardrailCheck
        >>> checked = GuardrailCheck(guardrail="pii", stage="input", at=0)
        >>> m = AgentMemory.new("t").evolve(guardrail_checks=[checked])
        >>> handler = REACT_MACHINE.handlers[State.GuardingInput]
        >>> event = guardrail_event(handler, Event.InputAllowed, m, capture=False)
        >>> event["agentsm.guardrail.outcome"], event["agentsm.guardrail.checked"]
        ('passed', ('pii',))
    """
    done = handler.outcome(cast(enum.Enum, event), memory)
    attributes: dict[str, AttributeValue] = {
        names.GUARDRAIL_STAGE: done.stage,
        names.GUARDRAIL_OUTCOME: done.outcome,
        names.GUARDRAIL_CHECKED: done.checked,
    }
    if done.tripped is not None:
        attributes[names.GUARDRAIL_NAME] = done.tripped
        if capture:
            attributes[names.GUARDRAIL_REASON] = done.reason
    return attributes
