"""One durable run in progress: the clock and performers that write the journal as the run goes.

The durable runner runs the machine with the ordinary shell (``run``/``arun``) but gives it
a :class:`Session`'s clock and wrapped performers:

* the clock hands out the stored readings first (replaying the journal), then reads the
  real clock and keeps each reading for the next commit (ticks are batched with it);
* a wrapped performer first answers from the journal (an effect whose outcome is
  committed is never performed again: its digest is checked and its outcome returned);
  past the journal it marks the effect started (if it is not retry-safe), performs it
  with the idempotency key ``run_id:seq``, and commits the outcome, with the clock
  reading that goes with it, before returning it to the fold; the outcome of an effect
  that is not retry-safe is held instead and committed with the run's next write (the
  next started row, or where it stops), before anything else is performed;
* an effect found started but without an outcome was in flight when its process died:
  it is performed again only if it is retry-safe, else its outcome is "unknown".

Nothing here raises into the fold: a store or codec problem, or a divergence, is kept in
:attr:`Session.error` and the performer pauses the run (``SUSPEND``), so the runner
stops and reports it. A pause also takes a checkpoint (:attr:`Session.pause`).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable
from types import MappingProxyType

from returns.result import Failure, Success

from agentsm_fn.core import SUSPEND
from agentsm_fn.core.effects import Effect, describe_effect
from agentsm_fn.durable.errors import (
    CodecFailure,
    CodecFailureKind,
    Diverged,
)
from agentsm_fn.durable.running import _contract
from agentsm_fn.durable.running._session_state import MISSING, Pause, SessionState
from agentsm_fn.durable.running.digest import content_digest
from agentsm_fn.durable.stores.codec import from_bytes
from agentsm_fn.durable.stores.protocol.store import JournalRow
from agentsm_fn.shell.performers import AsyncPerformer, Performer, Performers

__all__ = ["Pause", "Session"]


class Session(SessionState):
    """The journal cursor and writer of one run in one process (see the module docstring)."""

    # --- performing ---------------------------------------------------------------------------

    def performers(self, performers: Performers) -> Performers:
        """``performers`` with every performer wrapped to journal through this session."""
        sync = {kind: self._wrap(fn) for kind, fn in performers.sync.items()}
        asynchronous = {kind: self._wrap_async(fn) for kind, fn in performers.asynchronous.items()}
        return Performers(MappingProxyType(sync), MappingProxyType(asynchronous))

    def _wrap(self, fn: Performer) -> Performer:
        def perform(effect: Effect[object]) -> object:
            ready = self._before(effect)
            if ready[0] is not MISSING:
                return ready[0]
            _, seq, digest, started = ready
            self._first()
            store, run_id, owner, held = self.store, self.run_id, self.owner, self._unheld()
            if isinstance(started, JournalRow):  # a started row to write first, with the held outcome
                if self._started(store.start_effect(run_id, started, owner, self.create, held)):
                    return SUSPEND
                started = True
            elif held is not None and self._refused(store.commit(run_id, held, owner, True)):
                return SUSPEND  # the held outcome goes first: nothing is performed before it is committed
            try:
                with _contract.keyed(self.run_id, seq):
                    outcome = fn(effect)
            except Exception as exc:
                return self._raised(effect, seq, digest, started, exc)
            if inspect.isawaitable(outcome):  # a sync performer's coroutine, under arun
                return self._settle_later(effect, seq, digest, started, outcome)
            return self._after(effect, seq, digest, started, outcome)

        return perform

    def _wrap_async(self, fn: AsyncPerformer) -> AsyncPerformer:
        async def perform(effect: Effect[object]) -> object:
            ready = self._before(effect)
            if ready[0] is not MISSING:
                return ready[0]
            _, seq, digest, started = ready
            self._first()
            store, run_id, owner, held = self.store, self.run_id, self.owner, self._unheld()
            if isinstance(started, JournalRow):  # a started row to write first, in a thread: other runs go on
                if self._started(await store.astart_effect(run_id, started, owner, self.create, held)):
                    return SUSPEND
                started = True
            elif held is not None and self._refused(await store.acommit(run_id, held, owner, True)):
                return SUSPEND
            try:
                with _contract.keyed(self.run_id, seq):
                    outcome = await fn(effect)
            except Exception as exc:
                outcome = _contract.raised(effect, exc)
            if outcome is SUSPEND:
                return self._wait(effect, seq, digest, started)
            prepared = self._prepare(effect, seq, digest, started, outcome)
            if not isinstance(prepared, JournalRow):
                return prepared
            if self._holds(effect, started, prepared):
                return self._committed(prepared, started, outcome, Success(None))
            create = None if started else self.create
            written = await store.acommit(run_id, prepared, owner, started, create)
            return self._committed(prepared, started, outcome, written)

        return perform

    async def _settle_later(
        self, effect: Effect[object], seq: int, digest: bytes, started: bool, pending: Awaitable[object]
    ) -> object:
        try:
            with _contract.keyed(self.run_id, seq):
                outcome = await pending
        except Exception as exc:
            return self._raised(effect, seq, digest, started, exc)
        return self._after(effect, seq, digest, started, outcome)

    def _first(self) -> None:
        first, self.first_perform = self.first_perform, None
        if first is not None:
            first()

    def _before(self, effect: Effect[object]) -> tuple[object, int, bytes, bool | JournalRow]:
        """The outcome from the journal, or (MISSING, seq, digest, started) to perform it now.

        ``started`` is the started row to write first when the effect is not retry-safe.
        """
        if self.error is not None:
            return SUSPEND, 0, b"", False
        seq = self.seq
        again = self.redeliver
        if again is not None and again[0] == seq:  # after a checkpoint pause
            self.redeliver = None
            self._delivered(again[2])
            self.last = (seq, again[1])
            return again[1], seq, b"", False
        digest = content_digest(effect)
        if digest is None:
            detail = f"{describe_effect(effect)} holds a value the codec cannot store"
            return self._stop(
                CodecFailure(kind=CodecFailureKind.NOT_ENCODABLE, detail=detail).within(
                    self.run_id, f"journal[{seq}].effect"
                )
            )
        rows = self.rows
        started = False
        if rows:
            row = rows[0]
            if self.replaying or row.digest != digest:
                what = "fewer handler runs than" if self.replaying else f"{describe_effect(effect)}, not"
                detail = f"the machine asks for {what} the journal's {row.summary or 'effect'}"
                return self._stop(Diverged(run_id=self.run_id, seq=row.seq, step=-1, detail=detail))
            if row.outcome is not None:
                decoded = from_bytes(row.outcome, object)
                if isinstance(decoded, Failure):
                    return self._stop(decoded.failure().within(self.run_id, f"journal[{seq}].outcome"))
                rows.popleft()
                if rows:
                    self.replaying.extend(rows[0].ticks)
                self._delivered(row.at if row.at is not None else 0.0)
                self.last = (seq, decoded.unwrap())
                return decoded.unwrap(), seq, digest, False
            if row.waiting:  # still unanswered
                self.pause = Pause.WAIT
                return SUSPEND, seq, digest, False
            rows.popleft()  # in flight when its process died
            started = True
            if not _contract.retry_safe(effect):
                return self._after(effect, seq, digest, True, _contract.unknown(effect)), seq, digest, True
        elif not _contract.retry_safe(effect):
            row = JournalRow(
                seq=seq,
                digest=digest,
                ticks=tuple(self.buffer),
                outcome=None,
                at=None,
                summary=describe_effect(effect)[:200],
            )
            return MISSING, seq, digest, row
        return MISSING, seq, digest, started
