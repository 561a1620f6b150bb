"""A workflow run's ``invoke_agent`` span: started as the fold starts, ended once, outside replay.

Traces only on a worker given an observer (``machine_worker(..., observer=OtelObserver())``);
without one every method is a no-op and nothing of OpenTelemetry is imported. The span
is started on every replay of the run (its ids come out the same: see
:mod:`agentsm_fn.temporal.tracing`) and gets the run's transitions as the fold records
them; it is ended only when the workflow is not replaying history, so a run's span is
exported once, by the worker that saw it end (it may be another than the one that started it).
"""

from __future__ import annotations

import enum
import logging
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Final

from returns.result import Failure, Result
from temporalio import workflow

from agentsm_fn.core.driver import OnRow
from agentsm_fn.core.failures import RunFailed
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.observe import RunEnd
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.shell.observing import Watching, start_watching

if TYPE_CHECKING:
    from agentsm_fn.otel import OtelObserver

__all__ = ["RunTrace"]

_log: Final = logging.getLogger(__name__)


class RunTrace:
    """One workflow run's span (see the module docstring); every method is a no-op without one.

    There is none without an observer, or when the observer declined the run.
    """

    def __init__(
        self,
        observer: OtelObserver | None,
        machine: Machine[enum.Enum, enum.Enum, object],
        snapshot: Snapshot[enum.Enum, object],
    ) -> None:
        self.watching: Watching | None = (
            None if observer is None else start_watching(observer, machine, snapshot)
        )

    @property
    def on_row(self) -> OnRow | None:
        """The fold's row callback (transitions become span events)."""
        return None if self.watching is None else self.watching.on_row

    def current(self, *, unless_inside: bool = False) -> AbstractContextManager[object]:
        """Inside, the run's span is the current span (an activity started here becomes its child)."""
        if self.watching is None:
            return nullcontext()
        from agentsm_fn.otel.split import run_context  # noqa: PLC0415  # only on a tracing worker

        return run_context(self.watching.watch, unless_inside=unless_inside)

    def ended(
        self,
        result: Result[Snapshot[enum.Enum, object], RunFailed[enum.Enum, object]],
        *,
        continued: bool = False,
        cancelled: bool = False,
    ) -> None:
        """End the run's span (finished, failed, continued as new or cancelled), unless replaying."""
        watching = self.watching
        if watching is None or workflow.unsafe.is_replaying_history_events():
            return
        from agentsm_fn.otel.split import end_cancelled, end_continued  # noqa: PLC0415  # as above

        if continued or cancelled:
            snapshot = result.failure().snapshot if isinstance(result, Failure) else result.unwrap()
            end = RunEnd(snapshot=snapshot, reason=None)
            try:  # as Watching.ended: an observer (its exporter) never breaks the run
                (end_continued if continued else end_cancelled)(watching.watch, end)
            except Exception:
                _log.exception("an observer raised ending a run's span; the run goes on")
            return
        watching.ended(result)
