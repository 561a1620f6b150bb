"""What the world answers to the agent's tool and approval effects: frozen outcome values.

Tool outcomes::

    ReactToolResult          one call: ok + output, or error type + message
    ToolBatchResult     a parallel batch: one ReactToolResult per call, in call order

Approval decisions (``ApprovalDecision``)::

    Approved            run the call as proposed
    Rejected(reason)    do not run it; the rejection becomes an observation
    Modified(arguments) run it with these arguments instead
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias

import attrs
from pyrsistent import pmap

from agentsm_fn.llm.json import JsonObject, freeze_object

__all__ = ["ApprovalDecision", "Approved", "Modified", "ReactToolResult", "Rejected", "ToolBatchResult"]


@attrs.frozen(kw_only=True)
class ReactToolResult:
    """The outcome of one tool call; never an exception.

    Example:
        >>> ReactToolResult(call_id="c1", name="calc", ok=True, output="4").observation
        'SUCCESS: 4'
        >>> failed = ReactToolResult(call_id="c1", name="calc", ok=False, output="bad", error_type="E")
        >>> failed.observation
        'ERROR: E: bad'
    """

    call_id: str
    name: str
    ok: bool
    output: str
    error_type: str = ""

    @property
    def observation(self) -> str:
        """``SUCCESS: {output}`` or ``ERROR: {type}: {message}``: what the LLM reads."""
        return f"SUCCESS: {self.output}" if self.ok else f"ERROR: {self.error_type}: {self.output}"

    @classmethod
    def failure(cls, call_id: str, name: str, error_type: str, message: str) -> ReactToolResult:
        """A failed call.

        Example:
            >>> ReactToolResult.failure("c1", "x", "ToolNotFound", "no such tool").ok
            False
        """
        return cls(call_id=call_id, name=name, ok=False, output=message, error_type=error_type)


def _results(value: Iterable[ReactToolResult]) -> tuple[ReactToolResult, ...]:
    return tuple(value)


@attrs.frozen
class ToolBatchResult:
    """The outcomes of a parallel batch, one per call, in the order the calls were made.

    Example:
        >>> len(ToolBatchResult((ReactToolResult(call_id="a", name="t", ok=True, output=""),)).results)
        1
    """

    results: tuple[ReactToolResult, ...] = attrs.field(converter=_results)


@attrs.frozen
class Approved:
    """The human approved the call as proposed.

    Example:
        >>> Approved()
        Approved()
    """


@attrs.frozen
class Rejected:
    """The human rejected the call; ``reason`` is shown to the LLM.

    Example:
        >>> Rejected("too risky").reason
        'too risky'
    """

    reason: str = ""


def _arguments(value: object) -> JsonObject:
    return freeze_object(value)


@attrs.frozen
class Modified:
    """The human approved the call with different arguments.

    Example:
        >>> dict(Modified({"path": "/tmp/x"}).arguments)
        {'path': '/tmp/x'}
    """

    arguments: JsonObject = attrs.field(factory=pmap, converter=_arguments)


ApprovalDecision: TypeAlias = Approved | Rejected | Modified
"""What a human decides about a tool call."""
