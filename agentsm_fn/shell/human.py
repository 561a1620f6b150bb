"""The human channel: performs AskHuman effects by callback, or suspends the run.

* :func:`callback_performers` asks a function (a CLI prompt, a web hook...) and
  returns its decision. If the callback raises, the call is *rejected* (a tool
  never runs without an approval) and the reason names the exception (credentials
  redacted: :mod:`agentsm_fn.shell.credentials`).
* :func:`suspending_performers` returns ``SUSPEND``: the run stops with an
  awaiting snapshot (a ``Suspended`` value you can store as JSON) and is resumed
  later, maybe in another process, with the human's decision.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeAlias

from agentsm_fn.agents.react.effects import AskHuman
from agentsm_fn.agents.react.memory import HumanApprovalRequest
from agentsm_fn.agents.react.outcomes import ApprovalDecision, Rejected
from agentsm_fn.core.driver import SUSPEND, Suspend
from agentsm_fn.shell.credentials import redact_credentials
from agentsm_fn.shell.performers import Performers

__all__ = [
    "Approver",
    "AsyncApprover",
    "async_callback_performers",
    "callback_performers",
    "suspending_performers",
]

Approver: TypeAlias = Callable[[HumanApprovalRequest], ApprovalDecision]
"""Decides about one tool call, synchronously."""
AsyncApprover: TypeAlias = Callable[[HumanApprovalRequest], Awaitable[ApprovalDecision]]
"""Decides about one tool call, asynchronously."""


def _refused(exc: Exception) -> Rejected:
    return Rejected(redact_credentials(f"the approval callback raised {type(exc).__name__}: {exc}"))


def callback_performers(approver: Approver) -> Performers:
    """Perform AskHuman with ``approver``; a raising approver rejects the call.

    Example:
        >>> from agentsm_fn.agents.react.outcomes import Approved
        >>> from agentsm_fn.llm.messages import ToolCall
        >>> req = HumanApprovalRequest(step=1, tool_call=ToolCall("c", "rm", {}), reason="r")
        >>> p = callback_performers(lambda request: Approved())
        >>> p.find(AskHuman(req))(AskHuman(req))
        Approved()
    """

    def perform(effect: AskHuman) -> ApprovalDecision:
        try:
            return approver(effect.request)
        except Exception as exc:
            return _refused(exc)

    return Performers().on(AskHuman, perform)


def async_callback_performers(approver: AsyncApprover) -> Performers:
    """Perform AskHuman with a coroutine ``approver`` (for ``arun``)."""

    async def perform(effect: AskHuman) -> ApprovalDecision:
        try:
            return await approver(effect.request)
        except Exception as exc:
            return _refused(exc)

    return Performers().on_async(AskHuman, perform)


def suspending_performers() -> Performers:
    """Perform AskHuman by suspending the run (resume later with the decision).

    Example:
        >>> from agentsm_fn.llm.messages import ToolCall
        >>> req = HumanApprovalRequest(step=1, tool_call=ToolCall("c", "rm", {}), reason="r")
        >>> suspending_performers().find(AskHuman(req))(AskHuman(req))
        <Suspend.SUSPEND: 'suspend'>
    """

    def perform(effect: AskHuman) -> Suspend:
        return SUSPEND

    return Performers().on(AskHuman, perform)
