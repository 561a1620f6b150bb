"""Guardrails: named checks of what comes in, what goes out and each tool call, whose trips are rows.

A :class:`Guardrail` (made by :func:`guardrail` from a pure function, or :func:`llm_guardrail`
from instructions a model judges: an ``LlmCall`` effect, so replay stays exact) checks one
subject and says what a trip does (:class:`OnTrip`: refuse, ask a human, stop). A guarding
state (:func:`guarding`) runs a stage's guardrails over its subjects, records each
:class:`GuardrailCheck` in memory (a trip keeps its :class:`Trip`) and emits one event per
action, so the table routes every trip and the verifier proves each has a row (SM015).
"""

from agentsm_fn.agents.guardrails.guarding import Guarding, guarding
from agentsm_fn.agents.guardrails.guardrail import (
    VERDICT_SCHEMA,
    Guardrail,
    LlmCheck,
    PureCheck,
    describe_subject,
    from_spec,
    guardrail,
    llm_guardrail,
    read_verdict,
)
from agentsm_fn.agents.guardrails.log import HELD, GuardLog, GuardRoute
from agentsm_fn.agents.guardrails.values import GuardrailCheck, GuardrailSpec, OnTrip, Trip, VisitOutcome

__all__ = [
    "HELD",
    "VERDICT_SCHEMA",
    "GuardLog",
    "GuardRoute",
    "Guarding",
    "Guardrail",
    "GuardrailCheck",
    "GuardrailSpec",
    "LlmCheck",
    "OnTrip",
    "PureCheck",
    "Trip",
    "VisitOutcome",
    "describe_subject",
    "from_spec",
    "guarding",
    "guardrail",
    "llm_guardrail",
    "read_verdict",
]
