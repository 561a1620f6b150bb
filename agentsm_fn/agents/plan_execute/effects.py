"""The effects of the plan-and-execute agent besides ``LlmCall``: running tools, reading the clock.

Both are requests described as values; the shell performs them
(``agentsm_fn.shell.tool_batches``) and the journal records the outcomes, so
replay needs neither the tools nor a clock.
"""

from __future__ import annotations

from typing import ClassVar

import attrs

from agentsm_fn.core.effect_failures import EffectFailure
from agentsm_fn.core.effects import Effect
from agentsm_fn.llm.messages import ToolCall

__all__ = ["PlanExecuteToolResult", "ReadClock", "RunTools", "ToolBatch"]


@attrs.frozen(kw_only=True)
class PlanExecuteToolResult:
    """What running one tool call produced: its text (JSON for structured values) or an error.

    Example:
        >>> PlanExecuteToolResult(call_id="c1", name="search", content='{"results": 3}').is_error
        False
    """

    call_id: str
    name: str
    content: str
    is_error: bool = False


@attrs.frozen
class ToolBatch:
    """The outcome of :class:`RunTools`: one result per call, in the calls' order.

    Example:
        >>> ToolBatch((PlanExecuteToolResult(call_id="c1", name="t", content="ok"),)).results[0].content
        'ok'
    """

    results: tuple[PlanExecuteToolResult, ...]


@attrs.frozen
class RunTools(Effect[ToolBatch]):
    """Effect: run these tool calls (in order) and return their results.

    ``retry_safe`` is set when every tool called is (``PlanExecuteConfig.retry_safe_tools``).
    A failure of the effect itself fails every call (an error result naming it).

    Example:
        >>> RunTools((ToolCall("c1", "search", {"query": "pdf"}),)).summary()
        'RunTools search'
    """

    outcome_types: ClassVar[tuple[type, ...]] = (ToolBatch,)

    calls: tuple[ToolCall, ...]
    retry_safe: bool = False

    def outcome_of_failure(self, failure: EffectFailure) -> ToolBatch:
        """Every call failed with ``failure``.

        Example:
            >>> from agentsm_fn.core.effect_failures import EffectFailure
            >>> batch = RunTools((ToolCall("c1", "search", {}),))
            >>> batch.outcome_of_failure(EffectFailure.unknown("RunTools")).results[0].content
            'ERROR: EffectFailure: outcome unknown: in flight when the run stopped'
        """
        content = f"ERROR: EffectFailure: {failure.problem()}"
        failed = (
            PlanExecuteToolResult(call_id=c.id, name=c.name, content=content, is_error=True)
            for c in self.calls
        )
        return ToolBatch(tuple(failed))

    def summary(self) -> str:
        """The tool names; never the arguments (they may hold user data)."""
        return "RunTools " + ",".join(call.name for call in self.calls)


@attrs.frozen
class ReadClock(Effect[float | EffectFailure]):
    """Effect: the shell's clock reading, in seconds (for the policy's time limit).

    A clock that cannot be read is handed to the handler as the ``EffectFailure``
    itself (no reading can stand in for it): INTAKE notes it and starts the time
    limit at the next reading, LOOP_CHECK halts (the limit cannot be checked).

    Example:
        >>> ReadClock().accepts(12.5), ReadClock().accepts("noon")
        (True, False)
    """

    outcome_types: ClassVar[tuple[type, ...]] = (float, EffectFailure)
    retry_safe = True
