"""The observer a run stream installs: each lifecycle point as a run event, put on its buffer.

One :class:`StreamWatch` follows one stream's run, across every ``arun`` it takes (a
durable run goes on after each checkpoint in a new ``arun``, from the snapshot it paused
at). It numbers history as :mod:`agentsm_fn.stream.events` says and puts an event only
past ``emitted``, the last history position its consumer has: a durable run replaying
its journal, or a run going on from an awaiting snapshot, reports again what is history
already, and the consumer does not get it twice. A performer that suspends the run is
held back: :mod:`agentsm_fn.shell.streaming` says what the stop was once the run returns
(a durable run's checkpoint is a pause too, and the same effect then completes).
"""

from __future__ import annotations

import enum
import itertools
from typing import cast

from agentsm_fn.core.driver import SUSPEND
from agentsm_fn.core.effects import Effect, describe_effect
from agentsm_fn.core.journal import digest_summary
from agentsm_fn.core.observe import EffectWatch, RunEnd, RunStart, RunWatch
from agentsm_fn.shell._event_values import effect_completed, effect_requested, transitioned
from agentsm_fn.shell._stream_buffer import EventBuffer
from agentsm_fn.shell.credentials import credential_redactor, redact_credentials
from agentsm_fn.shell.notes import outcome_kind, outcome_note
from agentsm_fn.stream.events import (
    EffectCompleted,
    EffectRequested,
    LlmTextDelta,
    OutcomeKind,
    ToolCallArgsDelta,
    Transitioned,
)

__all__ = ["StreamWatch"]


class StreamWatch:
    """The run watch (and its observer: every ``run_started`` of the stream gets it) of one stream."""

    def __init__(self, run_id: str, buffer: EventBuffer, position: int, emitted: int) -> None:
        self.run_id = run_id
        self.buffer = buffer
        self.next = position
        """The position the next history event gets."""
        self.emitted = emitted
        """The last history position the consumer has."""
        self.requested = position - 1
        """The position of the last effect request."""
        self.held = 0.0
        """Seconds the current effect ran before its performer suspended the run."""
        self.failing: tuple[_Performing, OutcomeKind, str, float, object] | None = None
        """A failed completion held back until the run shows it took the failure."""
        self.state = ""
        """The state the run is in."""
        self.steps = 0
        """The transitions it has taken."""
        self.redact = credential_redactor()
        """Takes credentials out of a trace row's data (the environment read once per stream)."""

    def run_started(self, start: RunStart) -> RunWatch:
        """Follow this run (the stream's first, or one it goes on in from a snapshot)."""
        self.state, self.steps = start.state.name, start.steps
        snapshot = start.snapshot
        if snapshot is not None and snapshot.awaiting:  # it performs the pending effect first
            self.requested = self.next - 1
        return self

    def completed(
        self, performing: _Performing, kind: OutcomeKind, note: str, seconds: float, value: object
    ) -> None:
        """Put the completion of the effect ``performing`` performed, at the next position."""
        position = self._position()
        if position is not None:
            self.buffer.put(performing.event(position, kind, note, seconds, value))

    def _flush(self) -> None:
        """Put the failed completion held back: the run went on, so the machine took it."""
        failing, self.failing = self.failing, None
        if failing is not None:
            self.completed(*failing)

    def settle(self, failed_there: bool) -> None:
        """The run returned: put the failed completion held back, unless the run stopped on it.

        An effect failure the machine has no route for (``failed_there``: the run failed
        with ``EffectFailed`` awaiting that effect) is no outcome the run consumed: the
        journal keeps none, and the run's ``Failed`` event says what failed.
        """
        if failed_there:
            self.failing = None
        self._flush()

    def _position(self) -> int | None:
        """The next history position, or None if the consumer has it already."""
        position = self.next
        self.next += 1
        if position <= self.emitted:
            return None
        self.emitted = position
        return position

    def row(self, row: tuple[int, object, object, object, object, float]) -> None:
        """Put the event of a trace row the fold recorded (a transition or an effect request).

        The observing layer's raw-row hook: what :meth:`transition` and
        :meth:`effect_requested` do, without their translation of the row.
        """
        if self.failing is not None:
            self._flush()
        step, state, event, target, data, at = row
        position = self.next
        self.next = position + 1
        if target is None:  # an effect request: its event is the effect's digest
            self.requested = position
            self.held = 0.0
            if position > self.emitted:
                self.emitted = position
                effect, summary = digest_summary(event)
                self.buffer.put(
                    effect_requested(
                        self.run_id, position, cast(enum.Enum, state)._name_, effect, summary, None
                    )
                )
            return
        name = cast(enum.Enum, target)._name_
        self.state, self.steps = name, step
        if position > self.emitted:
            self.emitted = position
            self.buffer.put(
                transitioned(
                    self.run_id,
                    position,
                    step,
                    cast(enum.Enum, state)._name_,
                    cast(enum.Enum, event)._name_,
                    name,
                    at,
                    self.redact(data) if type(data) is str and data else "",
                )
            )

    def transition(self, step: int, state: enum.Enum, event: enum.Enum, target: enum.Enum, at: float) -> None:
        """Put a :class:`Transitioned`."""
        if self.failing is not None:
            self._flush()
        self.state, self.steps = target._name_, step
        position = self._position()
        if position is not None:
            self.buffer.put(
                Transitioned(
                    run_id=self.run_id,
                    position=position,
                    step=step,
                    state=state._name_,
                    event=event._name_,
                    target=target._name_,
                    at=at,
                )
            )

    def effect_requested(self, step: int, state: enum.Enum, effect: str, summary: str, at: float) -> None:
        """Put an :class:`EffectRequested` for a request row of the trace."""
        if self.failing is not None:
            self._flush()
        self.requested = self.next
        self.held = 0.0
        position = self._position()
        if position is not None:
            self.buffer.put(
                EffectRequested(
                    run_id=self.run_id, position=position, state=state._name_, effect=effect, summary=summary
                )
            )

    def effect_started(self, effect: Effect[object], within: EffectWatch | None) -> EffectWatch:
        """Watch an effect being performed (a part of ``within``: put its request now)."""
        if isinstance(within, _Performing):
            part = next(within.parts)
            if within.live:
                self.buffer.put(
                    EffectRequested(
                        run_id=self.run_id,
                        position=within.position,
                        state=self.state,
                        effect=type(effect).__name__,
                        summary=describe_effect(effect),
                        part=part,
                    )
                )
            return _Performing(self, within.position, type(effect).__name__, within.live, part)
        if self.failing is not None:
            self._flush()
        # live unless the run replays what the consumer has (the completion to come is history)
        return _Performing(self, self.requested, type(effect).__name__, self.next > self.emitted)

    def run_ended(self, end: RunEnd) -> None:
        """Nothing to put: the stream says where the run stands once it returns."""


class _Performing:
    """One effect being performed (or a part of one): its completion, and its deltas."""

    __slots__ = ("calls", "effect", "live", "part", "parts", "position", "since_wait", "watch")

    def __init__(
        self, watch: StreamWatch, position: int, effect: str, live: bool, part: int | None = None
    ) -> None:
        self.watch, self.position, self.effect, self.live, self.part = watch, position, effect, live, part
        self.parts = itertools.count()  # next() is atomic: parts may start in tool threads at once
        self.calls: dict[int, tuple[str, str]] | None = None
        """Tool calls started by a streaming provider: index -> (id, name), made at the first."""
        self.since_wait = watch.buffer.waited

    def event(
        self, position: int, kind: OutcomeKind, note: str, seconds: float, value: object
    ) -> EffectCompleted:
        """Its :class:`EffectCompleted` at ``position``."""
        return effect_completed(
            self.watch.run_id,
            position,
            self.position,
            self.effect,
            kind,
            note,
            max(seconds, 0.0),
            self.part,
            value,
        )

    def _completed(self, kind: OutcomeKind, note: str, seconds: float, value: object) -> None:
        watch = self.watch
        if kind is not OutcomeKind.OK:
            note = redact_credentials(note)
        if self.part is not None:
            if self.live:
                watch.buffer.put(self.event(self.position, kind, note, seconds, value))
            return
        seconds, watch.held = seconds + watch.held - (watch.buffer.waited - self.since_wait), 0.0
        if kind is OutcomeKind.OK:
            watch.completed(self, kind, note, seconds, value)
        else:  # history only if the machine takes the failure: see StreamWatch.settle
            watch.failing = (self, kind, note, seconds, value)

    def effect_ended(self, outcome: object, seconds: float) -> None:
        """Put its :class:`EffectCompleted` (a suspension is held until the run returns)."""
        if outcome is SUSPEND and self.part is None:
            self.watch.held += seconds
            return
        note, failed = outcome_note(outcome)
        self._completed(outcome_kind(outcome, failed), note, seconds, outcome)

    def effect_raised(self, error: BaseException, seconds: float) -> None:
        """Put a failed :class:`EffectCompleted` (the run gets the failure as the outcome)."""
        if isinstance(error, Exception):
            self._completed(OutcomeKind.FAILED, f"raised {type(error).__qualname__}: {error}", seconds, None)

    def streamed(self, delta: object) -> None:
        """Put a provider's text or tool-call delta as this run's."""
        if not self.live:
            return
        # a provider's StreamEvent, read by its fields (the shell does not import the providers)
        text, index = getattr(delta, "text", None), getattr(delta, "index", None)
        if isinstance(text, str):
            watch = self.watch
            watch.buffer.put(LlmTextDelta(run_id=watch.run_id, position=self.position, text=text))
        elif isinstance(index, int):
            fragment, call_id, name = (getattr(delta, key, None) for key in ("fragment", "id", "name"))
            if isinstance(fragment, str):
                self._arguments(index, fragment)
            elif isinstance(call_id, str) and isinstance(name, str):  # a tool call started
                if self.calls is None:
                    self.calls = {}
                self.calls[index] = (call_id, name)
                self._arguments(index, "")

    def _arguments(self, index: int, fragment: str) -> None:
        call_id, name = ("", "") if self.calls is None else self.calls.get(index, ("", ""))
        self.watch.buffer.put(
            ToolCallArgsDelta(
                run_id=self.watch.run_id,
                position=self.position,
                index=index,
                call_id=call_id,
                name=name,
                fragment=fragment,
            )
        )
