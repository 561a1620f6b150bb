"""The scripted LLM: canned replies in order, for tests and offline demos (the seed's MockLlmCaller).

It implements the :class:`~agentsm_fn.llm.LlmProvider` protocol (and
:class:`AsyncScriptedLlm` the async one). Each call records its request and
returns the next scripted outcome; tool calls without an id get ``call_{n}_{i}``.
When the script runs out, the call fails clearly with ``SCRIPT_EXHAUSTED``
(the agent then reaches Error with that message), never with an exception.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

import attrs

from agentsm_fn.llm.call import LlmRequest
from agentsm_fn.llm.messages import ToolCall
from agentsm_fn.llm.replies import LlmFailure, LlmFailureKind, LlmOutcome, LlmReply

__all__ = ["AsyncScriptedLlm", "ScriptedLlm"]


def _with_ids(outcome: LlmOutcome, number: int) -> LlmOutcome:
    if not isinstance(outcome, LlmReply) or all(c.id for c in outcome.tool_calls):
        return outcome
    calls = tuple(
        c if c.id else ToolCall(f"call_{number}_{i}", c.name, c.arguments)
        for i, c in enumerate(outcome.tool_calls)
    )
    return attrs.evolve(outcome, tool_calls=calls)


class ScriptedLlm:
    """Returns scripted outcomes in order and records every request.

    Example:
        >>> from agentsm_fn.llm.messages import UserMessage
        >>> llm = ScriptedLlm([LlmReply(content="hello")])
        >>> req = LlmRequest(model="m1", messages=(UserMessage("hi"),))
        >>> llm.complete(req).content, llm.call_count, llm.model_for_call(0)
        ('hello', 1, 'm1')
        >>> llm.complete(req).kind
        <LlmFailureKind.SCRIPT_EXHAUSTED: 'script_exhausted'>
    """

    def __init__(self, responses: Iterable[LlmOutcome]) -> None:
        self._script = tuple(responses)
        self._requests: list[LlmRequest] = []
        self._lock = threading.Lock()

    def complete(self, request: LlmRequest) -> LlmOutcome:
        """Record ``request`` and return the next scripted outcome (or SCRIPT_EXHAUSTED)."""
        with self._lock:
            number = len(self._requests)
            self._requests.append(request)
        if number >= len(self._script):
            message = (
                f"ScriptedLlm: no more programmed responses ({len(self._script)} scripted, call {number + 1})"
            )
            return LlmFailure(kind=LlmFailureKind.SCRIPT_EXHAUSTED, message=message, provider="scripted")
        return _with_ids(self._script[number], number + 1)

    @property
    def call_count(self) -> int:
        """How many times the LLM was called."""
        with self._lock:
            return len(self._requests)

    def model_for_call(self, n: int) -> str | None:
        """The model string of the ``n``-th call (0-indexed), or None."""
        with self._lock:
            return self._requests[n].model if 0 <= n < len(self._requests) else None

    @property
    def requests(self) -> tuple[LlmRequest, ...]:
        """Every request received, in order."""
        with self._lock:
            return tuple(self._requests)

    @property
    def remaining(self) -> int:
        """How many scripted outcomes are left."""
        with self._lock:
            return max(len(self._script) - len(self._requests), 0)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(scripted={len(self._script)}, calls={self.call_count})"


class AsyncScriptedLlm(ScriptedLlm):
    """The scripted LLM for ``arun``: also implements :class:`~agentsm_fn.llm.AsyncLlmProvider`.

    Example:
        >>> import asyncio
        >>> from agentsm_fn.llm.messages import UserMessage
        >>> llm = AsyncScriptedLlm([LlmReply(content="hi")])
        >>> asyncio.run(llm.acomplete(LlmRequest(model="", messages=(UserMessage("x"),)))).content
        'hi'
    """

    async def acomplete(self, request: LlmRequest) -> LlmOutcome:
        """The same as :meth:`complete`, awaitable."""
        return self.complete(request)
