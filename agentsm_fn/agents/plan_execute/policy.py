"""The policy: safety rules declared as data, checked by pure functions at the seed's key points.

* PLAN -> DECIDE (plan validity): :func:`check_plan` (``max_plan_steps``, ``require_known_capabilities``);
* DECIDE -> EXECUTE (decision safety): :func:`check_decision` (no forbidden capability);
* OBSERVE, before any tool runs: :func:`check_tool_calls` (forbidden and allowed tools,
  ``max_tool_calls_per_turn``, ``max_tool_calls``), so a forbidden tool never runs;
* LOOP_CHECK (continuation safety): :func:`check_budget` (``max_total_tokens``) and
  :func:`check_time` (``time_limit_seconds``).

Each check returns a :class:`PolicyViolation` naming the rule, or None.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs

from agentsm_fn.agents.plan_execute.values import HaltCause, Plan, PlanDecision
from agentsm_fn.llm.conversation import ThreadBudget
from agentsm_fn.llm.messages import ToolCall
from agentsm_fn.llm.replies import Usage

__all__ = [
    "PlanExecutePolicy",
    "PolicyViolation",
    "check_budget",
    "check_decision",
    "check_plan",
    "check_thread",
    "check_time",
    "check_tool_calls",
]


def _names(value: Iterable[str]) -> frozenset[str]:
    return frozenset(value)


def _optional_names(value: Iterable[str] | None) -> frozenset[str] | None:
    return None if value is None else frozenset(value)


_non_negative = attrs.validators.optional(attrs.validators.ge(0))


@attrs.frozen(kw_only=True)
class PlanExecutePolicy:
    """Safety rules as data. Every limit is off (None) by default.

    Example:
        >>> p = PlanExecutePolicy(forbidden_tools={"shell"}, max_tool_calls=10)
        >>> p.permits("shell"), p.permits("search")
        (False, True)
    """

    forbidden_tools: frozenset[str] = attrs.field(default=frozenset(), converter=_names)
    allowed_tools: frozenset[str] | None = attrs.field(default=None, converter=_optional_names)
    """When set, only these tools may run (and only they are shown to the model)."""
    max_tool_calls: int | None = attrs.field(default=None, validator=_non_negative)
    """Tool calls allowed over the whole run."""
    max_tool_calls_per_turn: int | None = attrs.field(default=None, validator=_non_negative)
    max_total_tokens: int | None = attrs.field(default=None, validator=_non_negative)
    """Token budget over every LLM call of the run (input plus output)."""
    time_limit_seconds: float | None = attrs.field(default=None, validator=_non_negative)
    """Wall-clock limit, checked in LOOP_CHECK with the shell's clock."""
    max_plan_steps: int | None = attrs.field(default=None, validator=_non_negative)
    require_known_capabilities: bool = False
    """Reject plans whose required_capabilities are not registered tools."""
    halt_on_tool_error: bool = True
    """True (the seed): a tool failure halts. False: the error goes back to the model."""

    def permits(self, tool: str) -> bool:
        """Whether the policy lets ``tool`` run."""
        if tool in self.forbidden_tools:
            return False
        return self.allowed_tools is None or tool in self.allowed_tools


@attrs.frozen
class PolicyViolation:
    """A broken rule: its name, a message, and the halt cause it maps to.

    Example:
        >>> PolicyViolation("max_tool_calls", "11 > 10").cause
        <HaltCause.POLICY_VIOLATION: 'policy_violation'>
    """

    rule: str
    message: str
    cause: HaltCause = HaltCause.POLICY_VIOLATION


def check_plan(policy: PlanExecutePolicy, plan: Plan, tools: Sequence[str]) -> PolicyViolation | None:
    """Plan validity under the policy.

    Example:
        >>> check_plan(PlanExecutePolicy(max_plan_steps=1), Plan(goal="g", initial_steps=("a", "b")), ())
        PolicyViolation(rule='max_plan_steps', message='the plan has 2 steps; the policy allows 1', ...)
    """
    limit = policy.max_plan_steps
    if limit is not None and len(plan.initial_steps) > limit:
        message = f"the plan has {len(plan.initial_steps)} steps; the policy allows {limit}"
        return PolicyViolation("max_plan_steps", message)
    if policy.require_known_capabilities:
        unknown = sorted(set(plan.required_capabilities) - set(tools))
        if unknown:
            message = f"the plan requires capabilities with no tool: {', '.join(unknown)}"
            return PolicyViolation("require_known_capabilities", message)
    return None


def check_decision(policy: PlanExecutePolicy, plan: Plan, decision: PlanDecision) -> PolicyViolation | None:
    """Decision safety: continuing must not need a forbidden capability.

    Example:
        >>> plan = Plan(goal="g", required_capabilities=("shell",), initial_steps=("x",))
        >>> policy = PlanExecutePolicy(forbidden_tools={"shell"})
        >>> check_decision(policy, plan, PlanDecision(proceed=True, reason="r"))
        PolicyViolation(rule='forbidden_tools', message='continuing needs forbidden tools: shell', ...)
    """
    if not decision.proceed:
        return None
    if not decision.reason.strip():
        return PolicyViolation("decision_reason", "a decision to continue must give a reason")
    forbidden = sorted(c for c in plan.required_capabilities if c in policy.forbidden_tools)
    if forbidden:
        return PolicyViolation("forbidden_tools", f"continuing needs forbidden tools: {', '.join(forbidden)}")
    return None


def check_tool_calls(
    policy: PlanExecutePolicy, calls: Sequence[ToolCall], made: int
) -> PolicyViolation | None:
    """Whether a batch of tool calls may run, given ``made`` calls so far.

    Example:
        >>> calls = (ToolCall("1", "search"), ToolCall("2", "search"))
        >>> check_tool_calls(PlanExecutePolicy(max_tool_calls=3), calls, made=2).rule
        'max_tool_calls'
    """
    for call in calls:
        if call.name in policy.forbidden_tools:
            return PolicyViolation("forbidden_tools", f"the model called the forbidden tool {call.name!r}")
        if policy.allowed_tools is not None and call.name not in policy.allowed_tools:
            return PolicyViolation("allowed_tools", f"the model called {call.name!r}, which is not allowed")
    per_turn = policy.max_tool_calls_per_turn
    if per_turn is not None and len(calls) > per_turn:
        return PolicyViolation(
            "max_tool_calls_per_turn", f"{len(calls)} tool calls in one turn; the policy allows {per_turn}"
        )
    total = policy.max_tool_calls
    if total is not None and made + len(calls) > total:
        return PolicyViolation(
            "max_tool_calls", f"{made + len(calls)} tool calls in the run; the policy allows {total}"
        )
    return None


def check_budget(policy: PlanExecutePolicy, usage: Usage) -> PolicyViolation | None:
    """The token budget.

    Example:
        >>> policy = PlanExecutePolicy(max_total_tokens=100)
        >>> check_budget(policy, Usage(input_tokens=90, output_tokens=20)).rule
        'max_total_tokens'
    """
    limit = policy.max_total_tokens
    if limit is not None and usage.total_tokens > limit:
        return PolicyViolation("max_total_tokens", f"{usage.total_tokens} tokens used; the budget is {limit}")
    return None


def check_thread(thread: ThreadBudget, usage: Usage) -> PolicyViolation | None:
    """The thread's total budget over every turn (``usage`` is the thread's so far, this turn's included).

    Example:
        >>> check_thread(ThreadBudget(total=10), Usage(input_tokens=10)).rule
        'thread_total_tokens'
    """
    spent = thread.spent(usage)
    return None if spent is None else PolicyViolation("thread_total_tokens", spent)


def check_time(
    policy: PlanExecutePolicy, started_at: float | None, now: float | None
) -> PolicyViolation | None:
    """The wall-clock limit (None when no limit or no readings).

    Example:
        >>> check_time(PlanExecutePolicy(time_limit_seconds=5), started_at=100.0, now=106.0).cause
        <HaltCause.TIMEOUT: 'timeout'>
    """
    limit = policy.time_limit_seconds
    if limit is None or started_at is None or now is None:
        return None
    elapsed = now - started_at
    if elapsed > limit:
        message = f"{elapsed:.3f}s elapsed; the time limit is {limit}s"
        return PolicyViolation("time_limit_seconds", message, HaltCause.TIMEOUT)
    return None
