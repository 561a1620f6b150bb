"""A recorded run: one portable JSON file holding everything needed to replay a run, with no store.

A recording names the machine (``module:attribute``) and its fingerprint, holds the start
(state, steps taken, memory), the journal (per effect: the clock readings before it, the
state and step that asked for it, its digest and summary, the request itself, its outcome
and clock reading; then the readings after the last effect), the rows the run took
(``STATE -EVENT-> TARGET``, one per step) and how it ended (status, state, steps, failure,
final memory). Values are written in the codec's JSON form
(:mod:`agentsm_fn.regression.json_form`), so a recording reads well in a diff; they stay in
that form here (frozen: persistent maps and vectors) and are decoded only when replayed.

:func:`recording_to_json` writes the file's text (stable: the same recording, the same text),
:func:`recording_from_json` and :func:`load_recording` read it back, every problem a
:class:`~agentsm_fn.regression.errors.RecordingInvalid` naming the field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

from returns.result import Failure, Result, Success

from agentsm_fn.llm.json import JsonValue, thaw
from agentsm_fn.regression._parse import parse_recording
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


def _effect(effect: RecordedEffect) -> dict[str, object]:
    out: dict[str, object] = {
        "seq": effect.seq,
        "step": effect.step,
        "state": effect.state,
        "ticks": list(effect.ticks),
        "summary": effect.summary,
        "digest": effect.digest,
    }
    if effect.request is not None:
        out["request"] = thaw(effect.request)
    if effect.answered:
        out["outcome"] = thaw(effect.outcome)
        out["at"] = effect.at
    return out


def _end(end: RecordedEnd) -> dict[str, object]:
    out: dict[str, object] = {"status": end.status, "state": end.state, "steps": end.steps}
    if end.reason:
        out["reason"] = end.reason
    out["memory"] = thaw(end.memory)
    return out


def recording_to_json(recording: Recording) -> str:
    """The recording as its file's text: JSON, one field a line, ending in a newline.

    Example:
        >>> end = RecordedEnd(status="finished", state="Z", steps=1, memory=1)
        >>> rec = Recording(machine="app:M", fingerprint="f", start_state="A", memory=0, end=end,
        ...                 rows=("A -GO-> Z",))
        >>> recording_from_json(recording_to_json(rec)).unwrap() == rec
        True
    """
    document: dict[str, object] = {
        "format": RECORDING_FORMAT,
        "machine": recording.machine,
        "fingerprint": recording.fingerprint,
        "run": recording.run_id,
        "start": {
            "state": recording.start_state,
            "steps": recording.start_steps,
            "memory": thaw(recording.memory),
        },
        "effects": [_effect(effect) for effect in recording.effects],
        "tail": list(recording.tail),
        "rows": list(recording.rows),
        "end": _end(recording.end),
    }
    return json.dumps(document, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


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
    try:
        document: JsonValue = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        return Failure(
            RecordingInvalid(source=source, problem=RecordingProblem.UNREADABLE, detail=f"not JSON: {exc}")
        )
    return parse_recording(document, source)


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
