"""The values a plan-and-execute run produces: plan, decision, observations, result, errors, logs.

Why a run halts (``HaltError.cause``)::

    HaltCause
    ├── INVALID_PLAN       PLAN: the reply is not JSON, breaks the schema, or the policy rejects it
    ├── INVALID_DECISION   DECIDE: the decision is malformed or unsafe under the policy
    ├── PROVIDER_FAILURE   EXECUTE: the LLM call failed or returned nothing usable
    ├── TOOL_FAILURE       OBSERVE/LOOP_CHECK: a tool raised or does not exist
    ├── POLICY_VIOLATION   OBSERVE/LOOP_CHECK: a forbidden tool, a tool-call or token budget
    ├── TIMEOUT            LOOP_CHECK: the time limit passed (or the LLM call timed out)
    └── MAX_ITERATIONS     EXECUTE/LOOP_CHECK: max_iterations EXECUTE visits were used
"""

from __future__ import annotations

import enum

import attrs
from pyrsistent import pmap

from agentsm_fn.agents.plan_execute.graph import Event, State
from agentsm_fn.llm.json import JsonObject, freeze_object
from agentsm_fn.llm.messages import ToolCall
from agentsm_fn.llm.replies import LlmFailure, LlmFailureKind

__all__ = [
    "AuditEntry",
    "FinalResult",
    "FsmTransition",
    "HaltCause",
    "HaltError",
    "Observation",
    "Plan",
    "PlanDecision",
    "cause_of",
    "with_call_ids",
]


def _frozen_object(value: object) -> JsonObject:
    return freeze_object(value)


@attrs.frozen(kw_only=True)
class Plan:
    """The planner's structured output (the seed's ``{goal, required_capabilities, initial_steps}``).

    ``raw`` is the whole validated JSON object, for custom schemas with more fields.

    Example:
        >>> Plan(goal="Find a PDF library", initial_steps=("search",)).is_empty
        False
    """

    goal: str
    required_capabilities: tuple[str, ...] = ()
    initial_steps: tuple[str, ...] = ()
    raw: JsonObject = attrs.field(factory=pmap, converter=_frozen_object)

    @property
    def is_empty(self) -> bool:
        """True when the plan has no steps to execute."""
        return not self.initial_steps


@attrs.frozen(kw_only=True)
class PlanDecision:
    """DECIDE's bounded decision (the seed's ``{continue, reason}``).

    Example:
        >>> PlanDecision(proceed=True, reason="plan has 2 steps").proceed
        True
    """

    proceed: bool
    """The seed's ``continue`` (a Python keyword)."""
    reason: str
    by_llm: bool = False


@attrs.frozen(kw_only=True)
class Observation:
    """The result of one tool call, stored by OBSERVE.

    Example:
        >>> Observation(iteration=1, call_id="c1", tool="search", content="3 hits").is_error
        False
    """

    iteration: int
    call_id: str
    tool: str
    content: str
    is_error: bool = False


class HaltCause(enum.Enum):
    """Why a run ended in HALT (see the module docstring for the tree).

    Example:
        >>> HaltCause.MAX_ITERATIONS.value
        'max_iterations'
    """

    INVALID_PLAN = "invalid_plan"
    INVALID_DECISION = "invalid_decision"
    PROVIDER_FAILURE = "provider_failure"
    TOOL_FAILURE = "tool_failure"
    POLICY_VIOLATION = "policy_violation"
    TIMEOUT = "timeout"
    MAX_ITERATIONS = "max_iterations"
    OUTPUT_INVALID = "output_invalid"


def cause_of(failure: LlmFailure) -> HaltCause:
    """The halt cause of a failed LLM call: TIMEOUT for a timeout, else PROVIDER_FAILURE.

    Example:
        >>> cause_of(LlmFailure(kind=LlmFailureKind.TIMEOUT, message="60s")).name
        'TIMEOUT'
    """
    return HaltCause.TIMEOUT if failure.kind is LlmFailureKind.TIMEOUT else HaltCause.PROVIDER_FAILURE


@attrs.frozen(kw_only=True)
class HaltError:
    """What HALT records: the cause, the state that halted, and a message a user can act on.

    Example:
        >>> HaltError(cause=HaltCause.INVALID_PLAN, state=State.PLAN, message="not JSON").describe()
        'invalid_plan in PLAN: not JSON'
    """

    cause: HaltCause
    state: State
    message: str
    llm_failure: LlmFailure | None = None
    rule: str = ""
    """The policy rule that was broken, for POLICY_VIOLATION and TIMEOUT."""

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"{self.cause.value} in {self.state.name}: {self.message}"


@attrs.frozen(kw_only=True)
class FinalResult:
    """What FINALIZE returns (``done`` is always True, as the seed's ``result[:done]``).

    ``content`` is the executor's answer (or the finish tool's output); ``summary``
    is the optional summary call's text. ``answer`` prefers the summary.

    Example:
        >>> FinalResult(content="Use prawn.", iterations=2, stopped_by="no_tool_calls").answer
        'Use prawn.'
    """

    content: str
    iterations: int
    stopped_by: str
    summary: str | None = None
    done: bool = True

    @property
    def answer(self) -> str:
        """The summary when there is one, else the content."""
        return self.content if self.summary is None else self.summary


@attrs.frozen(kw_only=True)
class AuditEntry:
    """One line of the audit log: what happened, where, at which iteration.

    Example:
        >>> AuditEntry(iteration=0, state=State.PLAN, kind="plan", message="3 steps").kind
        'plan'
    """

    iteration: int
    state: State
    kind: str
    message: str


@attrs.frozen(kw_only=True)
class FsmTransition:
    """One entry of the FSM history (the seed's ``{from:, to:, reason:, iteration:}``).

    Example:
        >>> t = FsmTransition(source=State.INTAKE, target=State.PLAN, event=Event.NORMALIZED,
        ...                reason="Input normalized", iteration=0)
        >>> t.as_dict()
        {'from': 0, 'to': 1, 'reason': 'Input normalized', 'iteration': 0}
    """

    source: State
    target: State
    event: Event
    reason: str
    iteration: int

    def as_dict(self) -> dict[str, int | str]:
        """The seed's shape, with state numbers."""
        return {
            "from": self.source.value,
            "to": self.target.value,
            "reason": self.reason,
            "iteration": self.iteration,
        }


def with_call_ids(calls: tuple[ToolCall, ...], iteration: int) -> tuple[ToolCall, ...]:
    """Give every call a unique id (some providers send none), keeping good ones.

    Example:
        >>> [c.id for c in with_call_ids((ToolCall("", "a"), ToolCall("x", "b"), ToolCall("x", "c")), 2)]
        ['call_2_0', 'x', 'call_2_2']
    """
    seen: set[str] = set()
    fixed = []
    for index, call in enumerate(calls):
        good = call.id and call.id not in seen
        new = call if good else attrs.evolve(call, id=f"call_{iteration}_{index}")
        seen.add(new.id)
        fixed.append(new)
    return tuple(fixed)
