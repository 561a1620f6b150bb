"""Where a replay of a recording differs from it: the first row, request or end that is not the same."""

from __future__ import annotations

from typing import Any

import attrs
import msgspec
from returns.result import Failure

from agentsm_fn.core.failures import RunFailed
from agentsm_fn.core.snapshot import Snapshot, Status
from agentsm_fn.durable import content_digest
from agentsm_fn.regression._fold import Misfit, MisfitKind
from agentsm_fn.regression.errors import Divergence, DivergenceKind
from agentsm_fn.regression.json_form import to_json_form
from agentsm_fn.regression.values import JsonText, RecordedEffect, RecordedEnd, Recording

__all__: list[str] = []


def form_text(text: JsonText) -> str:
    """A value's one-line JSON text indented (one field a line, for a diff)."""
    return msgspec.json.format(text.encode(), indent=1).decode()


def _value_text(value: object) -> str:
    """A live value as :func:`form_text` writes it (its ``repr`` if the codec cannot store it)."""
    found = to_json_form(value)
    if isinstance(found, Failure):
        return repr(value)[:2000]
    return msgspec.json.format(msgspec.json.encode(found.unwrap()), indent=1).decode()


def _request_text(effect: RecordedEffect) -> str:
    if effect.request is None:
        return f"{effect.summary} (digest {effect.digest[:16]}; the recording left the request out)"
    return form_text(effect.request)


def _where(snap: Snapshot[Any, Any]) -> str:
    if snap.status is Status.FINISHED:
        return f"nothing: the run has finished in {snap.state.name}"
    if snap.status is Status.AWAITING:
        return f"nothing more: the run waits in {snap.state.name}"
    return f"no effect: the handler of {snap.state.name} runs on"


@attrs.frozen(kw_only=True)
class Comparer:
    """Builds the :class:`Divergence` of one recording's replay."""

    recording: Recording
    source: str
    machine_changed: bool

    def _divergence(self, **fields: Any) -> Divergence:
        return Divergence(source=self.source, machine_changed=self.machine_changed, **fields)

    def missing_start(self) -> Divergence:
        """The recording starts in a state the machine no longer has."""
        rec = self.recording
        return self._divergence(
            kind=DivergenceKind.ROW,
            step=rec.start_steps + 1,
            state=rec.start_state,
            recorded=f"starts in {rec.start_state}",
            replayed="the machine has no such state",
        )

    def rows(self, rows: list[str], complete: bool) -> Divergence | None:
        """The replay's first row that differs from the recording's (one past its end, if ``complete``)."""
        recorded, first = self.recording.rows, self.recording.start_steps + 1
        for index, (old, new) in enumerate(zip(recorded, rows, strict=False)):
            if old != new:
                return self._divergence(
                    kind=DivergenceKind.ROW,
                    step=first + index,
                    state=new.partition(" ")[0],
                    recorded=old,
                    replayed=new,
                )
        if complete and len(rows) > len(recorded):
            extra = rows[len(recorded)]
            step = first + len(recorded)
            state = extra.partition(" ")[0]
            return self._divergence(
                kind=DivergenceKind.ROW, step=step, state=state, recorded="no more steps", replayed=extra
            )
        return None

    def misfit(
        self, snap: Snapshot[Any, Any], misfit: Misfit, failed: RunFailed[Any, Any] | None
    ) -> Divergence:
        """The code asks for something other than the effect (or handler run) the recording has next."""
        rec, seq = self.recording, misfit.seq
        index = snap.steps - rec.start_steps
        row = rec.rows[index] if index < len(rec.rows) else "no row"
        if misfit.kind is MisfitKind.FAILS and failed is not None:
            return self._divergence(
                kind=DivergenceKind.FAILS,
                step=snap.steps + 1,
                state=snap.state.name,
                recorded=row if index < len(rec.rows) else _request_text(rec.effects[seq]),
                replayed=f"fails: {failed.reason.describe()}",
            )
        if misfit.kind is MisfitKind.EFFECT_AT_TICK or seq < 0 or misfit.tick:
            recorded = f"no effect: the handler of {snap.state.name} runs on ({row})"
        else:
            recorded = _request_text(rec.effects[seq])
        if snap.status is Status.AWAITING and snap.pending is not None:
            replayed = _value_text(snap.pending)
        else:
            replayed = _where(snap)
        if misfit.kind is MisfitKind.LEFT_OVER and misfit.tick:
            return self._divergence(
                kind=DivergenceKind.ROW,
                step=snap.steps + 1,
                state=snap.state.name,
                recorded=row,
                replayed=replayed,
            )
        return self._divergence(
            kind=DivergenceKind.REQUEST,
            step=snap.steps + 1,
            state=snap.state.name,
            recorded=recorded,
            replayed=replayed,
            seq=-1 if misfit.kind is MisfitKind.EFFECT_AT_TICK else seq,
        )

    def end(self, snap: Snapshot[Any, Any], ended: RecordedEnd, memory: object) -> Divergence | None:
        """How the replay ended, if not as the recording did (status, failure, the awaited effect, memory)."""
        old = self.recording.end
        step, state = snap.steps, snap.state.name
        if (ended.status, ended.state, ended.steps, ended.reason) != (
            old.status,
            old.state,
            old.steps,
            old.reason,
        ):
            return self._divergence(
                kind=DivergenceKind.END,
                step=step,
                state=state,
                recorded=_end_text(old),
                replayed=_end_text(ended),
                detail="the run stops otherwise",
            )
        waited = self.recording.effects[-1] if self.recording.effects else None
        if (
            snap.status is Status.AWAITING
            and snap.pending is not None
            and waited is not None
            and not waited.answered
        ):
            digest = content_digest(snap.pending)
            if digest is None or digest.hex() != waited.digest:
                return self._divergence(
                    kind=DivergenceKind.REQUEST,
                    step=step + 1,
                    state=state,
                    recorded=_request_text(waited),
                    replayed=_value_text(snap.pending),
                    seq=waited.seq,
                )
        if snap.memory != memory:
            return self._divergence(
                kind=DivergenceKind.END,
                step=step,
                state=state,
                recorded=form_text(old.memory),
                replayed=_value_text(snap.memory),
                detail="the final memory differs",
            )
        return None


def _end_text(end: RecordedEnd) -> str:
    reason = f": {end.reason}" if end.reason else ""
    return f"{end.status} in {end.state} after {end.steps} steps{reason}"
