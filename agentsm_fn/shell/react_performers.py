"""The ReAct agent's performers: its provider, tool runner, human channel and clock, wired into a shell.

:class:`~agentsm_fn.shell.react_agent.Agent` runs in the shell :func:`react_shell` builds.
"""

from __future__ import annotations

from collections.abc import Awaitable
from types import MappingProxyType
from typing import cast

from agentsm_fn.llm.call import AnyLlmProvider, AsyncLlmProvider, LlmCall, LlmProvider
from agentsm_fn.llm.replies import LlmOutcome
from agentsm_fn.shell.clock import Clock, system_clock
from agentsm_fn.shell.human import (
    Approver,
    AsyncApprover,
    async_callback_performers,
    callback_performers,
    suspending_performers,
)
from agentsm_fn.shell.performers import AsyncPerformer, Performer, Performers
from agentsm_fn.shell.run import Shell
from agentsm_fn.shell.tools import ToolRunner
from agentsm_fn.tools.registry import ToolRegistry

__all__ = ["async_provider", "llm_performers", "react_shell", "sync_provider"]


def sync_provider(provider: object) -> LlmProvider | None:
    """``provider`` if it has a ``complete`` method, else None.

    The same test as ``isinstance(provider, LlmProvider)`` (a runtime-checkable protocol), without
    its cost: that check walks the protocol's members on every call, and runs once per agent run.

    Example:
        >>> from agentsm_fn.shell.scripted_llm import AsyncScriptedLlm
        >>> sync_provider(AsyncScriptedLlm([])) is not None, sync_provider(object())
        (True, None)
    """
    return cast(LlmProvider, provider) if getattr(provider, "complete", None) is not None else None


def async_provider(provider: object) -> AsyncLlmProvider | None:
    """``provider`` if it has an ``acomplete`` method, else None (``isinstance``, cheaper).

    Example:
        >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
        >>> async_provider(ScriptedLlm([]))
    """
    return cast(AsyncLlmProvider, provider) if getattr(provider, "acomplete", None) is not None else None


def llm_performers(llm: AnyLlmProvider) -> Performers:
    """Performers for ``LlmCall``: ``llm.complete`` (sync) and/or ``llm.acomplete`` (async), as it has them.

    Shared by the ReAct and plan-and-execute shells.

    Example:
        >>> from agentsm_fn.shell.scripted_llm import AsyncScriptedLlm
        >>> p = llm_performers(AsyncScriptedLlm([]))
        >>> [k.__name__ for k in p.sync], [k.__name__ for k in p.asynchronous]
        (['LlmCall'], ['LlmCall'])
    """
    sync: dict[type, Performer] = {}
    asynchronous: dict[type, AsyncPerformer] = {}
    provider = sync_provider(llm)
    if provider is not None:
        complete_sync = provider.complete

        def complete(effect: LlmCall) -> LlmOutcome:
            return complete_sync(effect.request)

        sync[LlmCall] = cast(Performer, complete)  # as Performers.on: it only receives LlmCall
    aprovider = async_provider(llm)
    if aprovider is not None:
        complete_async = aprovider.acomplete

        def acomplete(effect: LlmCall) -> Awaitable[LlmOutcome]:
            return complete_async(effect.request)  # the provider's coroutine itself: no extra layer

        asynchronous[LlmCall] = cast(AsyncPerformer, acomplete)
    return Performers(MappingProxyType(sync), MappingProxyType(asynchronous))


_SUSPENDING = suspending_performers()  # a constant: made once, not once per run


def _human_performers(approver: Approver | None, async_approver: AsyncApprover | None) -> Performers:
    performers = _SUSPENDING
    if approver is not None:
        performers = performers.merge(callback_performers(approver))
    if async_approver is not None:
        performers = performers.merge(async_callback_performers(async_approver))
    return performers


def _merged(*parts: Performers) -> Performers:
    """``parts[0].merge(parts[1]).merge(...)`` in one pass (later parts win)."""
    sync: dict[type, Performer] = {}
    asynchronous: dict[type, AsyncPerformer] = {}
    for part in parts:
        sync.update(part.sync)
        asynchronous.update(part.asynchronous)
    return Performers(MappingProxyType(sync), MappingProxyType(asynchronous))


def react_shell(
    llm: AnyLlmProvider,
    registry: ToolRegistry,
    approver: Approver | None = None,
    async_approver: AsyncApprover | None = None,
    clock: Clock | None = None,
) -> Shell:
    """The shell a ReAct agent runs in: its provider, tools, human channel and clock.

    Without an approver, a call that needs approval suspends the run.

    Example:
        >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
        >>> shell = react_shell(ScriptedLlm([]), ToolRegistry())
        >>> sorted(k.__name__ for k in shell.performers.sync)
        ['AskHuman', 'LlmCall', 'RunTool', 'RunToolBatch']
    """
    performers = _merged(
        llm_performers(llm), ToolRunner(registry).performers(), _human_performers(approver, async_approver)
    )
    return Shell(performers, clock or system_clock)
