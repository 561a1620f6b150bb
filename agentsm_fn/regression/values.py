"""The values a recording is made of (its file form: :mod:`agentsm_fn.regression.recording`)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

import attrs

from agentsm_fn.llm.json import JsonValue

__all__ = [
    "RECORDING_FORMAT",
    "RecordedEffect",
    "RecordedEnd",
    "Recording",
    "frozen_json",
]

RECORDING_FORMAT: Final = "agentsm-recording/1"
"""The ``format`` field of the recordings this version writes and reads."""


def frozen_json(value: object) -> JsonValue:
    """Parsed JSON made read-only in its order (objects as read-only mappings, arrays as tuples).

    Unlike persistent maps, read-only dicts keep the order of their keys, so a recording is
    written back exactly as it was read. Raises ``TypeError`` for anything that is not JSON.

    Example:
        >>> frozen_json({"b": [1, {"a": None}], "a": 2})
        mappingproxy({'b': (1, mappingproxy({'a': None})), 'a': 2})
    """
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, Mapping):
        return MappingProxyType({str(key): frozen_json(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return tuple(frozen_json(item) for item in value)
    raise TypeError(f"not a JSON value: {type(value).__name__}")


@attrs.frozen(kw_only=True)
class RecordedEffect:
    """One effect of a recorded run: when and where it was asked for, what it was, what came back.

    ``ticks`` are the clock readings taken since the previous effect (one per handler run),
    ``digest`` the hex SHA-256 of the effect (:func:`~agentsm_fn.durable.content_digest`, what
    replay compares), ``request`` the effect in the codec's JSON form (None when the export
    left requests out), ``outcome`` its outcome in that form and ``at`` the clock reading
    after it. An effect the run still waits for (a pending approval) is not ``answered``.

    Example:
        >>> RecordedEffect(seq=0, step=1, state="ASK", summary="Ask", digest="ab").answered
        True
    """

    seq: int
    step: int
    state: str
    summary: str
    digest: str
    ticks: tuple[float, ...] = ()
    request: JsonValue | None = None
    answered: bool = True
    outcome: JsonValue = None
    at: float = 0.0


@attrs.frozen(kw_only=True)
class RecordedEnd:
    """How a recorded run ended: ``finished``, ``awaiting`` an effect, ``failed`` (``reason``) or ``ready``.

    ``memory`` is the final memory in the codec's JSON form.

    Example:
        >>> RecordedEnd(status="finished", state="DONE", steps=4).reason
        ''
    """

    status: str
    state: str
    steps: int
    reason: str = ""
    memory: JsonValue = None


@attrs.frozen(kw_only=True)
class Recording:
    """A run as a portable regression case: the machine, the start, the journal, the rows, the end.

    ``machine`` is ``module:attribute`` of the Durable (or Machine) that ran it and
    ``fingerprint`` that machine's :func:`~agentsm_fn.core.machine_fingerprint` then. The run
    began in ``start_state`` after ``start_steps`` steps (a fork begins mid-run) with
    ``memory``; ``rows`` are the steps it took from there, each ``STATE -EVENT-> TARGET``.

    Example:
        >>> rec = Recording(machine="app:M", fingerprint="f", start_state="A", memory=0,
        ...                 end=RecordedEnd(status="finished", state="Z", steps=1), rows=("A -GO-> Z",))
        >>> rec.end.status, len(rec.effects)
        ('finished', 0)
    """

    machine: str
    fingerprint: str
    start_state: str
    memory: JsonValue
    end: RecordedEnd
    run_id: str = ""
    start_steps: int = 0
    effects: tuple[RecordedEffect, ...] = ()
    tail: tuple[float, ...] = ()
    rows: tuple[str, ...] = ()
