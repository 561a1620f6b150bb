"""Every span, event and attribute name the tracing uses: the GenAI conventions' own, and ours.

The GenAI names come from the ``opentelemetry-semantic-conventions`` package's constants
(its incubating ``gen_ai`` attributes and metrics, and the stable ``error.type``), never
typed again here. What the conventions have no name for (the machine, its transitions,
effects that are not LLM calls or tool runs) is under ``agentsm.``.
"""

from __future__ import annotations

from typing import Final

from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as _gen_ai
from opentelemetry.semconv._incubating.metrics import gen_ai_metrics as _gen_ai_metrics
from opentelemetry.semconv.attributes import error_attributes as _error

__all__ = [
    "AGENT_ID",
    "AGENT_NAME",
    "CHAT",
    "EFFECT_FAILURE",
    "EFFECT_SUMMARY",
    "EFFECT_SUSPENDED",
    "EFFECT_TYPE",
    "ERROR_TYPE",
    "EXECUTE_TOOL",
    "GUARDRAIL_CHECKED",
    "GUARDRAIL_EVENT",
    "GUARDRAIL_NAME",
    "GUARDRAIL_OUTCOME",
    "GUARDRAIL_REASON",
    "GUARDRAIL_STAGE",
    "INPUT_MESSAGES",
    "INPUT_TOKENS",
    "INVOKE_AGENT",
    "LLM_ATTEMPTS",
    "LLM_PURPOSE",
    "MACHINE_NAME",
    "OPERATION_DURATION",
    "OPERATION_NAME",
    "OUTPUT_MESSAGES",
    "OUTPUT_TOKENS",
    "OUTPUT_TYPE",
    "PROVIDER_NAME",
    "REQUEST_MAX_TOKENS",
    "REQUEST_MODEL",
    "REQUEST_TEMPERATURE",
    "RESPONSE_FINISH_REASONS",
    "RESPONSE_ID",
    "RESPONSE_MODEL",
    "RESUMED_EVENT",
    "RUN_CONTINUED",
    "RUN_FINAL_STATE",
    "RUN_RESUMED",
    "RUN_STATUS",
    "RUN_STEPS",
    "SYSTEM_INSTRUCTIONS",
    "TOKEN_TYPE",
    "TOKEN_USAGE",
    "TOOL_CALL_ARGUMENTS",
    "TOOL_CALL_ID",
    "TOOL_CALL_RESULT",
    "TOOL_DEFINITIONS",
    "TOOL_NAME",
    "TOOL_TYPE",
    "TRANSITION_EVENT",
    "TRANSITION_EVENT_NAME",
    "TRANSITION_STATE",
    "TRANSITION_STEP",
    "TRANSITION_TARGET",
]

# ---- the GenAI conventions (operation names are the values of gen_ai.operation.name) -------------
OPERATION_NAME: Final = _gen_ai.GEN_AI_OPERATION_NAME
INVOKE_AGENT: Final = _gen_ai.GenAiOperationNameValues.INVOKE_AGENT.value
CHAT: Final = _gen_ai.GenAiOperationNameValues.CHAT.value
EXECUTE_TOOL: Final = _gen_ai.GenAiOperationNameValues.EXECUTE_TOOL.value
AGENT_NAME: Final = _gen_ai.GEN_AI_AGENT_NAME
AGENT_ID: Final = _gen_ai.GEN_AI_AGENT_ID
PROVIDER_NAME: Final = _gen_ai.GEN_AI_PROVIDER_NAME
REQUEST_MODEL: Final = _gen_ai.GEN_AI_REQUEST_MODEL
REQUEST_MAX_TOKENS: Final = _gen_ai.GEN_AI_REQUEST_MAX_TOKENS
REQUEST_TEMPERATURE: Final = _gen_ai.GEN_AI_REQUEST_TEMPERATURE
RESPONSE_MODEL: Final = _gen_ai.GEN_AI_RESPONSE_MODEL
RESPONSE_ID: Final = _gen_ai.GEN_AI_RESPONSE_ID
RESPONSE_FINISH_REASONS: Final = _gen_ai.GEN_AI_RESPONSE_FINISH_REASONS
OUTPUT_TYPE: Final = _gen_ai.GEN_AI_OUTPUT_TYPE
INPUT_TOKENS: Final = _gen_ai.GEN_AI_USAGE_INPUT_TOKENS
OUTPUT_TOKENS: Final = _gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS
TOKEN_TYPE: Final = _gen_ai.GEN_AI_TOKEN_TYPE
TOOL_NAME: Final = _gen_ai.GEN_AI_TOOL_NAME
TOOL_CALL_ID: Final = _gen_ai.GEN_AI_TOOL_CALL_ID
TOOL_TYPE: Final = _gen_ai.GEN_AI_TOOL_TYPE
ERROR_TYPE: Final = _error.ERROR_TYPE
# content (recorded only when content capture is on)
SYSTEM_INSTRUCTIONS: Final = _gen_ai.GEN_AI_SYSTEM_INSTRUCTIONS
INPUT_MESSAGES: Final = _gen_ai.GEN_AI_INPUT_MESSAGES
OUTPUT_MESSAGES: Final = _gen_ai.GEN_AI_OUTPUT_MESSAGES
TOOL_DEFINITIONS: Final = _gen_ai.GEN_AI_TOOL_DEFINITIONS
TOOL_CALL_ARGUMENTS: Final = _gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS
TOOL_CALL_RESULT: Final = _gen_ai.GEN_AI_TOOL_CALL_RESULT
# metrics
TOKEN_USAGE: Final = _gen_ai_metrics.GEN_AI_CLIENT_TOKEN_USAGE
OPERATION_DURATION: Final = _gen_ai_metrics.GEN_AI_CLIENT_OPERATION_DURATION

# ---- ours: the machine and its run ---------------------------------------------------------------
MACHINE_NAME: Final = "agentsm.machine.name"
"""The machine's name (``define_machine(name=...)``), on the run span."""
RUN_STATUS: Final = "agentsm.run.status"
"""How the run stopped: ``finished``, ``awaiting`` (suspended) or ``failed``."""
RUN_FINAL_STATE: Final = "agentsm.run.final_state"
"""The state the run stopped in."""
RUN_STEPS: Final = "agentsm.run.steps"
"""Transitions the run had taken when it stopped (counted from its start, across resumptions)."""
RUN_CONTINUED: Final = "agentsm.run.continued"
"""True on a Temporal run that continued as new (the next run of the chain goes on in the same trace)."""
RUN_RESUMED: Final = "agentsm.run.resumed"
"""True on a run that continues a stored one (linked to the run it continues)."""
RESUMED_EVENT: Final = "agentsm.resumed"
"""Span event: the outcome of the pending effect was delivered to a suspended run."""
TRANSITION_EVENT: Final = "agentsm.transition"
"""Span event on the run span, one per transition."""
TRANSITION_STEP: Final = "agentsm.step"
TRANSITION_STATE: Final = "agentsm.state"
TRANSITION_EVENT_NAME: Final = "agentsm.event"
TRANSITION_TARGET: Final = "agentsm.target"
EFFECT_TYPE: Final = "agentsm.effect.type"
"""The effect's class name, on every effect span."""
EFFECT_SUMMARY: Final = "agentsm.effect.summary"
"""``Effect.summary()``: what the effect is, never its private data."""
EFFECT_FAILURE: Final = "agentsm.effect.failure"
"""The effect failed (``EffectFailure``): its kind (``raised``, ``timed_out``, ``rejected``, ``unknown``)."""
EFFECT_SUSPENDED: Final = "agentsm.effect.suspended"
"""True when the performer paused the run instead of answering (a human approval)."""
LLM_PURPOSE: Final = "agentsm.llm.purpose"
"""The LLM call's purpose ("plan", "reflect", ...)."""
GUARDRAIL_EVENT: Final = "agentsm.guardrail"
"""Span event on the run span, one per transition out of a guarding state: its guardrails' outcome."""
GUARDRAIL_STAGE: Final = "agentsm.guardrail.stage"
"""The guarding state's stage (the ReAct agent's ``input``, ``tool_call``, ``output``)."""
GUARDRAIL_OUTCOME: Final = "agentsm.guardrail.outcome"
"""``passed``, or the action a trip took: ``refuse``, ``ask_human``, ``stop``."""
GUARDRAIL_CHECKED: Final = "agentsm.guardrail.checked"
"""The guardrails checked in that visit, in order."""
GUARDRAIL_NAME: Final = "agentsm.guardrail.name"
"""The guardrail that tripped (on the event), the last one that did (on the run span)."""
GUARDRAIL_REASON: Final = "agentsm.guardrail.reason"
"""Why it tripped (content: recorded only when content capture is on)."""
LLM_ATTEMPTS: Final = "agentsm.llm.attempts"
"""HTTP attempts the provider made for the call (retries + 1), when it failed."""
