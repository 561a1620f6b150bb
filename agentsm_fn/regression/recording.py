"""A recorded run: one portable JSON file holding everything needed to replay a run, with no store.

A recording names the machine (``module:attribute``) and its fingerprint, holds the start
(state, steps taken, memory), the journal (per effect: the clock readings before it, the
state and step that asked for it, its digest and summary, the request itself, its outcome
and clock reading; then the readings after the last effect), the rows the run took
(``STATE -EVENT-> TARGET``, one per step) and how it ended (status, state, steps, failure,
final memory). Values are written in the codec's JSON form
(:mod:`agentsm_fn.regression.json_form`), so a recording reads well in a diff; they stay in
that form here, as one-line JSON text, and are decoded only when the recording is replayed.

:func:`recording_to_json` writes the file's text (stable: the same recording, the same text),
:func:`recording_from_json` and :func:`load_recording` read it back, every problem a
:class:`~agentsm_fn.regression.errors.RecordingInvalid` naming the field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from returns.result import Failure, Result, Success

from agentsm_fn.regression._file import read, write
from agentsm_fn.regression.errors import RecordingInvalid, RecordingProblem
from agentsm_fn.regression.values import RECORDING_FORMAT, RecordedEffect, RecordedEnd, Recording

__all__ = [
    "RECORDING_FORMAT",
    "RECORDING_SUFFIX",
    "RecordedEffect",
    "RecordedEnd",
    "Recording",
    "load_recording",
    "recording_from_json",
    "recording_to_json",
    "write_recording",
]

RECORDING_SUFFIX: Final = ".recording.json"
"""How a recording's file name ends; the pytest plugin collects these files."""


def recording_to_json(recording: Recording) -> str:
    """The recording as its file's text: JSON, one field a line, ending in a newline.

    Example:
        >>> end = RecordedEnd(status="finished", state="Z", steps=1, memory="1")
        >>> rec = Recording(machine="app:M", fingerprint="f", start_state="A", memory="0", end=end,
        ...                 rows=("A -GO-> Z",))
        >>> recording_from_json(recording_to_json(rec)).unwrap() == rec
        True
    """
    return write(recording)


def recording_from_json(
    text: str | bytes, source: str = "<recording>"
) -> Result[Recording, RecordingInvalid]:
    """Read a recording from its file's text; ``source`` names it in errors.

    Example:
        >>> recording_from_json("{}", "a.recording.json").failure().describe()
        "a.recording.json: format: not a recording (no 'format' field)"
        >>> recording_from_json("[", "b.recording.json").failure().problem.value
        'unreadable'
    """
    return read(text, source)


def load_recording(path: str | Path) -> Result[Recording, RecordingInvalid]:
    """Read the recording in the file at ``path``.

    Example:
        >>> load_recording("no/such.recording.json").failure().problem.value
        'unreadable'
    """
    try:
        text = Path(path).read_bytes()
    except OSError as exc:
        detail = f"cannot read it: {exc.strerror or exc}"
        return Failure(RecordingInvalid(source=str(path), problem=RecordingProblem.UNREADABLE, detail=detail))
    return recording_from_json(text, str(path))


def write_recording(path: str | Path, recording: Recording) -> Result[None, RecordingInvalid]:
    """Write ``recording`` to ``path`` (replacing the file)."""
    try:
        Path(path).write_text(recording_to_json(recording), encoding="utf-8")
    except OSError as exc:
        detail = f"cannot write it: {exc.strerror or exc}"
        return Failure(RecordingInvalid(source=str(path), problem=RecordingProblem.UNREADABLE, detail=detail))
    return Success(None)
