"""A parent's child runs in its AG-UI run: run here when they wait, and shown as steps named for the child.

AG-UI has no runs inside a run; its steps are named. A run served over AG-UI that stops to wait
for its children (a ``delegate`` or ``fan_out`` state: ``agentsm_fn.teams``) has them run here, in
a worker thread, one after the other, then goes on with their outcome, as ``Durable.start`` does
(:func:`~agentsm_fn.durable.running.children_inline.run_inline`; a child another process holds is
left to it). Meanwhile the children are followed in the store
(:class:`~agentsm_fn.durable.operations.following_children.ChildrenFollow`, grandchildren too), and
each child's steps reach the stream as ``STEP_STARTED`` / ``STEP_FINISHED`` named
``CHILD_RUN_ID/STATE`` (:func:`child_steps`), inside the parent's step that started them (which
stays open while it waits for them).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any, Final, cast

from ag_ui.core import BaseEvent, StepFinishedEvent, StepStartedEvent
from returns.result import Result

from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.durable.errors import DurableError
from agentsm_fn.durable.operations.following_children import ChildrenFollow
from agentsm_fn.durable.running.child_programs import AnyProgram, load_program
from agentsm_fn.durable.running.children_inline import run_inline
from agentsm_fn.durable.running.durable import Durable
from agentsm_fn.durable.running.program import StoredRun
from agentsm_fn.durable.stores.protocol.store import RunStore
from agentsm_fn.server.agui.feed import ChildStepped, Happening
from agentsm_fn.stream.children import ChildEvent
from agentsm_fn.stream.events import Failed, Finished, RunStarted, Transitioned
from agentsm_fn.teams.values import Children, ChildRun

__all__ = ["child_steps", "children_run_here", "waits_on_children"]

LOOK_EVERY: Final = 0.02
"""Seconds between two looks at the children while they run."""


def child_steps(child: ChildEvent) -> list[BaseEvent]:
    """The AG-UI steps of a child's event: its start, each transition, its end, named ``CHILD/STATE``.

    Example:
        >>> moved = Transitioned(run_id="p.c0", position=2, step=1, state="WORK", event="FINISH",
        ...                      target="DONE", at=0.0)
        >>> [(e.type.value, e.step_name) for e in child_steps(ChildEvent(run_id="p", position=1,
        ...     child_run_id="p.c0", parent_run_id="p", event=moved))]
        [('STEP_FINISHED', 'p.c0/WORK'), ('STEP_STARTED', 'p.c0/DONE')]
    """
    name = child.child_run_id + "/"
    match child.event:
        case RunStarted(state=state):
            return [StepStartedEvent(step_name=name + state)]
        case Transitioned(state=state, target=target):
            return [StepFinishedEvent(step_name=name + state), StepStartedEvent(step_name=name + target)]
        case Finished(state=state) | Failed(state=state):
            return [StepFinishedEvent(step_name=name + state)]
    return []


def _durable_of(name: str) -> Durable[Any, Any, Any] | None:
    found = load_program(name, {}).value_or(None)
    return found if isinstance(found, Durable) else None


def waits_on_children(snapshot: Snapshot[Any, Any] | None) -> bool:
    """Whether the run stopped to wait for child runs.

    Example:
        >>> waits_on_children(None)
        False
    """
    pending = None if snapshot is None else snapshot.pending
    return pending is not None and isinstance(pending.underlying(), ChildRun | Children)


class _LookingFirst:
    """The parent as :func:`run_inline` resumes it, once its children ended: their last events first."""

    def __init__(self, durable: Durable[Any, Any, Any], look: Callable[[], None]) -> None:
        self.durable, self.look = durable, look

    def resume(self, store: RunStore, run_id: str) -> Result[StoredRun[Any, Any], DurableError]:
        self.look()
        return self.durable.resume(store, run_id)


async def children_run_here(
    durable: Durable[Any, Any, Any],
    store: RunStore,
    result: Result[StoredRun[Any, Any], DurableError],
    put: Callable[[Happening], None],
) -> Result[StoredRun[Any, Any], DurableError]:
    """``result``, or, if the run waits for its children, where it stops after they ran here and it went on.

    ``durable`` resumes the parent (its shell told to the stream from a thread); ``put`` is handed
    each child's event (a :class:`ChildStepped`) as the store shows it.
    """
    stopped = result.value_or(None)
    if stopped is None or not waits_on_children(stopped.snapshot):
        return result
    follow = ChildrenFollow(store, stopped.run_id, _durable_of)
    one_at_a_time = threading.Lock()  # the look before the parent resumes waits for one under way

    def look() -> None:
        with one_at_a_time:
            for event in follow.look(lambda seq: seq).value_or(()):
                put(ChildStepped(event))

    parent = cast(AnyProgram, _LookingFirst(durable, look))  # run_inline resumes the parent, nothing else
    inline = asyncio.ensure_future(asyncio.to_thread(run_inline, parent, store, result))
    while not inline.done():
        await asyncio.wait({inline}, timeout=LOOK_EVERY)
        if not inline.done():
            await asyncio.to_thread(look)
    await asyncio.to_thread(look)  # what the children did last (a child that now waits resumed no parent)
    return inline.result()
