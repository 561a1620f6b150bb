"""The values a recording is made of (its file form: :mod:`agentsm_fn.regression.recording`)."""

from __future__ import annotations

from typing import Final

import attrs

__all__ = [
    "RECORDING_FORMAT",
    "JsonText",
    "RecordedEffect",
    "RecordedEnd",
    "Recording",
]

RECORDING_FORMAT: Final = "agentsm-recording/1"
"""The ``format`` field of the recordings this version writes and reads."""

JsonText = str
"""A value in the codec's JSON form, as JSON text on one line (``{"$class": "app:Order", "id": "o-1"}``):
immutable, compared as text, decoded only when a recording is replayed."""


@attrs.frozen(kw_only=True)
class RecordedEffect:
    """One effect of a recorded run: when and where it was asked for, what it was, what came back.

    ``ticks`` are the clock readings taken since the previous effect (one per handler run),
    ``digest`` the hex SHA-256 of the effect (:func:`~agentsm_fn.durable.content_digest`, what
    replay compares), ``request`` the effect (None when the export left requests out),
    ``outcome`` its outcome (None while the run waits for it: a pending approval) and ``at``
    the clock reading after it; values are :data:`JsonText`.

    Example:
        >>> RecordedEffect(seq=0, step=1, state="ASK", summary="Ask", digest="ab", outcome="true").answered
        True
    """

    seq: int
    step: int
    state: str
    summary: str
    digest: str
    ticks: tuple[float, ...] = ()
    request: JsonText | None = None
    outcome: JsonText | None = None
    at: float = 0.0

    @property
    def answered(self) -> bool:
        """The run received this effect's outcome (it is not the one it waits for)."""
        return self.outcome is not None


@attrs.frozen(kw_only=True)
class RecordedEnd:
    """How a recorded run ended: ``finished``, ``awaiting`` an effect, ``failed`` (``reason``) or ``ready``.

    ``memory`` is the final memory (:data:`JsonText`).

    Example:
        >>> RecordedEnd(status="finished", state="DONE", steps=4).reason
        ''
    """

    status: str
    state: str
    steps: int
    reason: str = ""
    memory: JsonText = "null"


@attrs.frozen(kw_only=True)
class Recording:
    """A run as a portable regression case: the machine, the start, the journal, the rows, the end.

    ``machine`` is ``module:attribute`` of the Durable (or Machine) that ran it and
    ``fingerprint`` that machine's :func:`~agentsm_fn.core.machine_fingerprint` then. The run
    began in ``start_state`` after ``start_steps`` steps (a fork begins mid-run) with
    ``memory`` (:data:`JsonText`); ``rows`` are the steps it took from there, each
    ``STATE -EVENT-> TARGET``.

    Example:
        >>> rec = Recording(machine="app:M", fingerprint="f", start_state="A", memory="0",
        ...                 end=RecordedEnd(status="finished", state="Z", steps=1), rows=("A -GO-> Z",))
        >>> rec.end.status, len(rec.effects)
        ('finished', 0)
    """

    machine: str
    fingerprint: str
    start_state: str
    memory: JsonText
    end: RecordedEnd
    run_id: str = ""
    start_steps: int = 0
    effects: tuple[RecordedEffect, ...] = ()
    tail: tuple[float, ...] = ()
    rows: tuple[str, ...] = ()
