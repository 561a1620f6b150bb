"""Effects as activities: one dynamic activity performs any effect with the shell's performers.

The workflow schedules an activity named after the effect's type with two
arguments, the effect and its sequence number in the run. The activity finds the
performer exactly as the local shell does (:class:`~agentsm_fn.shell.Performers`,
by type along the MRO; an async performer first, a sync one in a thread), sets the
idempotency key ``EffectKey(workflow_id, seq)`` around it (the same on every
attempt), and heartbeats while it runs when the effect's options ask for it. On a
worker that traces (``machine_worker(..., observer=...)``) the effect's span is made
here, a child of the run's span carried in the activity's headers.

A performer that raises fails the attempt with an ``ApplicationError`` named after
the exception that carries its text, credentials redacted, and not the exception
itself (:func:`activity_error`). Temporal retries it if the effect is retry-safe; the
workflow turns the final failure into an ``EffectFailure``. A missing performer, or a performer
that suspends, is a configuration error: not retried, the run parks.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import inspect
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import attrs
from temporalio import activity
from temporalio.common import RawValue
from temporalio.exceptions import ActivityError, ApplicationError, TimeoutError, TimeoutType

from agentsm_fn.core.driver import SUSPEND
from agentsm_fn.core.effect_failures import EffectFailure, FailureKind
from agentsm_fn.core.effects import Effect, describe_effect
from agentsm_fn.shell.credentials import redact_credentials
from agentsm_fn.shell.keys import EffectKey, keyed
from agentsm_fn.shell.observing import Watching
from agentsm_fn.shell.performers import Performers

if TYPE_CHECKING:
    from agentsm_fn.otel import OtelObserver

__all__ = ["MISCONFIGURED", "EffectActivities", "Parked", "activity_error", "failure_of"]

log = logging.getLogger(__name__)

MISCONFIGURED: Final = "AgentsmMisconfigured"
"""The ``ApplicationError`` type of a missing or suspending performer (never retried)."""


async def _heartbeating(work: asyncio.Future[object], every: float) -> object:
    """Await ``work``, heartbeating every ``every`` seconds until it is done."""
    while True:
        done, _ = await asyncio.wait({work}, timeout=every)
        if done:
            return work.result()
        activity.heartbeat()


class EffectActivities:
    """The activity that performs effects for a worker, with that worker's performers.

    Example:
        >>> activities = EffectActivities(Performers())
        >>> activities.perform.__temporal_activity_definition.name is None  # dynamic
        True
    """

    def __init__(
        self, performers: Performers, threads: int = 100, observer: OtelObserver | None = None
    ) -> None:
        self.performers, self.observer = performers, observer
        # Sync performers run here, not in asyncio's default pool (a few threads on a small machine):
        # as many at once as the worker runs activities.
        self.threads = concurrent.futures.ThreadPoolExecutor(threads, thread_name_prefix="agentsm-effect")

    @activity.defn(dynamic=True)
    async def perform(self, args: Sequence[RawValue]) -> object:
        """Perform the effect in ``args[0]`` (sequence number ``args[1]``) and return its outcome."""
        converter = activity.payload_converter()
        effect = converter.from_payload(args[0].payload)
        seq = converter.from_payload(args[1].payload)
        if not isinstance(effect, Effect) or type(seq) is not int:
            raise ApplicationError(
                "activity input is not (effect, seq)", type=MISCONFIGURED, non_retryable=True
            )
        info = activity.info()
        with keyed(EffectKey(info.workflow_id or info.activity_id, seq)):
            work = self._start(effect, self._performers(info.workflow_type or ""))
        every = info.heartbeat_timeout.total_seconds() / 3 if info.heartbeat_timeout else None
        try:
            outcome = await work if every is None else await _heartbeating(work, every)
            if inspect.isawaitable(outcome):  # a sync performer may hand back an awaitable
                outcome = await outcome
        except ApplicationError:
            raise
        except asyncio.CancelledError:
            work.cancel()  # a sync performer's thread runs on; its result is dropped
            raise
        except Exception as exc:
            raise activity_error(exc) from None  # the exception itself (its text) stays out of the history
        if outcome is SUSPEND:
            raise ApplicationError(
                f"the performer of {describe_effect(effect)} suspended the run: "
                "declare its effect type awaited (TemporalMachine.awaited) instead",
                type=MISCONFIGURED,
                non_retryable=True,
            )
        return outcome

    def _performers(self, agent: str) -> Performers:
        """The performers, reporting to the run's trace carried here in the activity's headers, if any."""
        if self.observer is None:
            return self.performers
        from agentsm_fn.otel.split import effects_here  # noqa: PLC0415  # only on a tracing worker

        try:
            watch = effects_here(self.observer, agent)
        except Exception:  # an observer never breaks a run: the effect is performed, untraced
            log.exception("the observer could not watch the effects of %s", agent)
            return self.performers
        return self.performers if watch is None else Watching(watch).performers(self.performers)

    def _start(self, effect: Effect[object], performers: Performers) -> asyncio.Future[object]:
        """The performer's work as a future, started in the keyed context (async performer first)."""
        found_async = performers.find_async(effect)
        if found_async is not None:
            return asyncio.ensure_future(found_async(effect))
        found = performers.find(effect)
        if found is None:
            raise ApplicationError(
                f"no performer registered for {describe_effect(effect)} on this worker",
                type=MISCONFIGURED,
                non_retryable=True,
            )
        context = contextvars.copy_context()  # the idempotency key goes with the call
        return asyncio.get_running_loop().run_in_executor(self.threads, context.run, found, effect)


def activity_error(exc: Exception) -> ApplicationError:
    """The error an attempt fails with when its performer raised ``exc``: its type, its text redacted.

    Temporal keeps it in the run's history (and the workflow hands its text to the machine
    as the failure's detail), so it carries the exception's text with credentials
    redacted, and not the exception itself: raise it ``from None``.

    Example:
        >>> error = activity_error(OSError("401 for Bearer abcdefgh12345678"))
        >>> error.type, error.message
        ('OSError', '401 for Bearer [redacted]')
    """
    return ApplicationError(redact_credentials(str(exc))[:500], type=type(exc).__qualname__)


@attrs.frozen
class Parked:
    """The effect could not be performed at all (configuration): the run parks."""

    problem: str


def failure_of(error: ActivityError, effect: Effect[object], retry_safe: bool) -> EffectFailure | Parked:
    """What an activity that gave no outcome delivers to the fold."""
    cause, summary = error.cause, describe_effect(effect)
    if isinstance(cause, ApplicationError):
        if cause.type == MISCONFIGURED:
            return Parked(cause.message)
        return EffectFailure(kind=FailureKind.RAISED, effect=summary, detail=f"{cause.type}: {cause.message}")
    if isinstance(cause, TimeoutError):
        if cause.type is TimeoutType.HEARTBEAT and not retry_safe:
            detail = "its worker stopped heartbeating while performing it"
            return EffectFailure(kind=FailureKind.UNKNOWN, effect=summary, detail=detail)
        kind = "no heartbeat" if cause.type is TimeoutType.HEARTBEAT else (cause.type or "timeout")
        detail = f"{getattr(kind, 'name', kind)} on its last attempt".lower()
        return EffectFailure(kind=FailureKind.TIMED_OUT, effect=summary, detail=detail)
    return EffectFailure(kind=FailureKind.RAISED, effect=summary, detail=str(cause or error)[:500])
