"""The ReAct agent's own effects: run one tool, run a parallel batch, ask a human.

(The LLM effect is :class:`agentsm_fn.llm.LlmCall`.) Effects are requests as data;
the shell's tool runner and human channel perform them. Outcome types are in
:mod:`agentsm_fn.agents.react.outcomes`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

import attrs

from agentsm_fn.agents.react.memory import HumanApprovalRequest
from agentsm_fn.agents.react.outcomes import (
    ApprovalDecision,
    Approved,
    Modified,
    ReactToolResult,
    Rejected,
    ToolBatchResult,
)
from agentsm_fn.core.effect_failures import EffectFailure
from agentsm_fn.core.effects import Effect
from agentsm_fn.llm.messages import ToolCall

__all__ = ["AskHuman", "RunTool", "RunToolBatch"]


@attrs.frozen
class RunTool(Effect[ReactToolResult]):
    """Effect: run the tool ``call.name`` with ``call.arguments``, within ``timeout`` seconds.

    ``retry_safe`` comes from the tool's definition (``ToolDef.retry_safe``). A failure
    of the effect itself becomes a failed :class:`ReactToolResult` (error type
    ``EffectFailure``): the agent observes it like any tool error.

    Example:
        >>> RunTool(ToolCall("c1", "search", {"q": "x"}), timeout=2.0).summary()
        'RunTool search (timeout 2.0s)'
    """

    outcome_types: ClassVar[tuple[type, ...]] = (ReactToolResult,)

    call: ToolCall
    timeout: float | None = None
    retry_safe: bool = False

    def outcome_of_failure(self, failure: EffectFailure) -> ReactToolResult:
        """A failed result naming what went wrong.

        Example:
            >>> from agentsm_fn.core.effect_failures import EffectFailure
            >>> pay = RunTool(ToolCall("c1", "pay", {}))
            >>> pay.outcome_of_failure(EffectFailure.unknown("RunTool")).observation
            'ERROR: EffectFailure: outcome unknown: in flight when the run stopped'
        """
        return ReactToolResult.failure(self.call.id, self.call.name, "EffectFailure", failure.problem())

    def summary(self) -> str:
        """The tool name and timeout; never the arguments (they may hold secrets)."""
        limit = "" if self.timeout is None else f" (timeout {self.timeout}s)"
        return f"RunTool {self.call.name}{limit}"


def _runs(value: Iterable[RunTool]) -> tuple[RunTool, ...]:
    return tuple(value)


@attrs.frozen
class RunToolBatch(Effect[ToolBatchResult]):
    """Effect: run several tools concurrently; results come back in call order.

    Example:
        >>> RunToolBatch((RunTool(ToolCall("a", "x", {})), RunTool(ToolCall("b", "y", {})))).summary()
        'RunToolBatch x, y'
    """

    outcome_types: ClassVar[tuple[type, ...]] = (ToolBatchResult,)

    runs: tuple[RunTool, ...] = attrs.field(converter=_runs)
    retry_safe: bool = attrs.field(
        init=False,
        default=attrs.Factory(lambda self: all(run.retry_safe for run in self.runs), takes_self=True),
    )
    """Retry-safe only if every call in it is."""

    def outcome_of_failure(self, failure: EffectFailure) -> ToolBatchResult:
        """Every call failed with ``failure``."""
        return ToolBatchResult(run.outcome_of_failure(failure) for run in self.runs)

    def summary(self) -> str:
        """The tool names, in call order."""
        return "RunToolBatch " + ", ".join(run.call.name for run in self.runs)


@attrs.frozen
class AskHuman(Effect[ApprovalDecision]):
    """Effect: ask a human to approve, reject or modify a tool call.

    Example:
        >>> req = HumanApprovalRequest(step=1, tool_call=ToolCall("c1", "rm", {}), reason="policy")
        >>> AskHuman(req).summary(), AskHuman(req).accepts(Approved())
        ('AskHuman rm', True)
    """

    outcome_types: ClassVar[tuple[type, ...]] = (Approved, Rejected, Modified)

    request: HumanApprovalRequest

    def outcome_of_failure(self, failure: EffectFailure) -> ApprovalDecision:
        """No decision could be had: the call is rejected (never run without an approval).

        Example:
            >>> from agentsm_fn.core.effect_failures import EffectFailure
            >>> req = HumanApprovalRequest(step=1, tool_call=ToolCall("c1", "rm", {}), reason="policy")
            >>> AskHuman(req).outcome_of_failure(EffectFailure.unknown("AskHuman")).reason
            'no approval: outcome unknown: in flight when the run stopped'
        """
        return Rejected(f"no approval: {failure.problem()}")

    def summary(self) -> str:
        """The tool awaiting approval."""
        return f"AskHuman {self.request.tool_call.name}"
