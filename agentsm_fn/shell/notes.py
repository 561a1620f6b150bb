"""Short words for what an effect's outcome says and how long it took (live view, inspector, run streams).

Plain functions with no IO and no display library, so every place that shows a run
(the terminal live view, the web inspector) says the same thing in the same words.
"""

from __future__ import annotations

from agentsm_fn.agents.plan_execute.effects import PlanExecuteToolResult as PlanToolResult
from agentsm_fn.agents.plan_execute.effects import ToolBatch
from agentsm_fn.agents.react.outcomes import ReactToolResult as ToolResult
from agentsm_fn.agents.react.outcomes import ToolBatchResult
from agentsm_fn.core.driver import SUSPEND
from agentsm_fn.core.effect_failures import EffectFailure, FailureKind
from agentsm_fn.llm.replies import LlmFailure, LlmReply
from agentsm_fn.stream.events import OutcomeKind

__all__ = ["duration", "outcome_kind", "outcome_note"]


def duration(seconds: float) -> str:
    """A short duration: milliseconds below a second.

    Example:
        >>> duration(0.0123), duration(2.5)
        ('12 ms', '2.50 s')
    """
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def outcome_note(outcome: object) -> tuple[str, bool]:
    """What an effect's outcome says in one short phrase, and whether it is a failure.

    Example:
        >>> outcome_note(ToolResult.failure("c1", "t", "ValueError", "bad"))
        ('ValueError', True)
    """
    if outcome is SUSPEND:
        return "suspended", False
    if isinstance(outcome, LlmReply):
        calls = len(outcome.tool_calls)
        what = (
            f"{calls} tool call{'s' if calls > 1 else ''}"
            if calls
            else f"answer ({len(outcome.content)} chars)"
        )
        usage = outcome.usage
        tokens = f", {usage.input_tokens} in / {usage.output_tokens} out tokens" if usage.total_tokens else ""
        return what + tokens, False
    if isinstance(outcome, LlmFailure | EffectFailure):
        return outcome.describe(), True
    if isinstance(outcome, ToolResult):
        return ("ok", False) if outcome.ok else (outcome.error_type or "error", True)
    if isinstance(outcome, PlanToolResult):
        return ("error", True) if outcome.is_error else ("ok", False)
    if isinstance(outcome, ToolBatchResult | ToolBatch):
        failed = sum(1 for r in outcome.results if not getattr(r, "ok", not getattr(r, "is_error", False)))
        return f"{len(outcome.results)} results" + (f", {failed} failed" if failed else ""), bool(failed)
    return type(outcome).__name__, False


def outcome_kind(outcome: object, failed: bool) -> OutcomeKind:
    """The kind of an effect's outcome (``failed``: its :func:`outcome_note` says it failed).

    Example:
        >>> outcome_kind(EffectFailure.unknown("Charge"), True).value, outcome_kind("fine", False).value
        ('unknown', 'ok')
    """
    if outcome is SUSPEND:
        return OutcomeKind.SUSPENDED
    if type(outcome) is EffectFailure and outcome.kind is FailureKind.UNKNOWN:
        return OutcomeKind.UNKNOWN
    return OutcomeKind.FAILED if failed else OutcomeKind.OK
