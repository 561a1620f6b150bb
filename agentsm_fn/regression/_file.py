"""A recording's file: its JSON layout as msgspec structs, checked field by field in C.

The structs give the file's field order (written with one field a line), check every field's
type as the file is read (each problem names its field: ``effects[2].seq``), and keep the
values (memories, requests, outcomes) as raw JSON, made canonical (one line) without being
parsed into Python objects; they are decoded only when the recording is replayed.
"""

from __future__ import annotations

import re
from typing import Final

import msgspec
from returns.result import Failure, Result, Success

from agentsm_fn.regression.errors import RecordingInvalid, RecordingProblem
from agentsm_fn.regression.values import RECORDING_FORMAT, RecordedEffect, RecordedEnd, Recording

__all__: list[str] = []

_UNSET: Final = msgspec.UNSET
_HEX: Final = re.compile(r"[0-9a-f]{64}")
_ROW: Final = re.compile(r"\S+ -\S+-> \S+")
_STATUSES: Final = ("awaiting", "failed", "finished", "ready")
_WHERE: Final = re.compile(r"^(?P<what>.*?)(?: - at `\$(?P<path>.*)`)?$", re.S)
_KINDS: Final = {
    "int": "an integer",
    "float": "a number",
    "str": "a string",
    "array": "an array",
    "object": "an object",
    "null": "null",
    "bool": "true or false",
}


class _Head(msgspec.Struct):
    format: object = None


class _Start(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    state: str
    steps: int = 0
    memory: msgspec.Raw


class _Effect(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True, kw_only=True):
    seq: int
    step: int
    state: str
    ticks: list[float] = []
    summary: str
    digest: str
    request: msgspec.Raw | msgspec.UnsetType = _UNSET
    outcome: msgspec.Raw | msgspec.UnsetType = _UNSET
    at: float | msgspec.UnsetType = _UNSET


class _End(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True, kw_only=True):
    status: str
    state: str
    steps: int
    reason: str = ""
    memory: msgspec.Raw


class _Doc(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    format: str
    machine: str
    fingerprint: str
    run: str = ""
    start: _Start
    effects: list[_Effect] = []
    tail: list[float] = []
    rows: list[str] = []
    end: _End


_DECODE: Final = msgspec.json.Decoder(_Doc).decode
_HEAD: Final = msgspec.json.Decoder(_Head).decode
_ENCODE: Final = msgspec.json.Encoder().encode


def one_line(raw: bytes | msgspec.Raw) -> str:
    """Raw JSON as the canonical one-line text a recording's values are kept in."""
    return msgspec.json.format(bytes(raw), indent=0).decode()


def _raw(text: str) -> msgspec.Raw:
    return msgspec.Raw(text.encode())


def write(recording: Recording) -> str:
    """The file's text: JSON, one field a line (indented by one space), ending in a newline."""
    effects = [
        _Effect(
            seq=e.seq,
            step=e.step,
            state=e.state,
            summary=e.summary,
            digest=e.digest,
            ticks=list(e.ticks),
            request=_UNSET if e.request is None else _raw(e.request),
            outcome=_UNSET if e.outcome is None else _raw(e.outcome),
            at=_UNSET if e.outcome is None else e.at,
        )
        for e in recording.effects
    ]
    end = recording.end
    document = {
        "format": RECORDING_FORMAT,
        "machine": recording.machine,
        "fingerprint": recording.fingerprint,
        "run": recording.run_id,
        "start": _Start(
            state=recording.start_state, steps=recording.start_steps, memory=_raw(recording.memory)
        ),
        "effects": effects,
        "tail": list(recording.tail),
        "rows": list(recording.rows),
        "end": _End(
            status=end.status, state=end.state, steps=end.steps, reason=end.reason, memory=_raw(end.memory)
        ),
    }
    return msgspec.json.format(_ENCODE(document), indent=1).decode() + "\n"


def _field(message: str) -> tuple[str, str]:
    """Msgspec's "Expected `int`, got `str` - at `$.effects[0].step`" as (field, what is wrong)."""
    found = _WHERE.match(message)
    what, path = (found["what"], found["path"] or "") if found else (message, "")
    path = path.lstrip(".")
    missing = re.fullmatch(r"Object missing required field `(\w+)`", what)
    if missing:
        return (f"{path}.{missing[1]}" if path else missing[1]), "missing"
    unknown = re.fullmatch(r"Object contains unknown field `(\w+)`", what)
    if unknown:
        return (f"{path}.{unknown[1]}" if path else unknown[1]), "not a field of a recording"
    expected = re.fullmatch(r"Expected `([\w |]+)`, got `(\w+)`", what)
    if expected:
        wanted = " or ".join(_KINDS.get(kind, kind) for kind in expected[1].split(" | "))
        return path, f"expected {wanted}, found {_KINDS.get(expected[2], expected[2])}"
    return path, what


def _check(document: _Doc) -> tuple[str, str] | None:
    """The first field the types allow but a recording does not, and why."""
    for index, effect in enumerate(document.effects):
        where = f"effects[{index}]"
        if not _HEX.fullmatch(effect.digest):
            return f"{where}.digest", "expected the effect's SHA-256 digest as 64 hex digits"
        if (effect.outcome is _UNSET) != (effect.at is _UNSET):
            return where, "an outcome comes with its clock reading, 'at' (and only an outcome does)"
        if effect.outcome is _UNSET and index != len(document.effects) - 1:
            return where, "only the last effect may be unanswered (the one the run waits for)"
    for index, row in enumerate(document.rows):
        if not _ROW.fullmatch(row):
            return f"rows[{index}]", "expected a row written STATE -EVENT-> TARGET"
    if document.end.status not in _STATUSES:
        return "end.status", f"expected one of {list(_STATUSES)}, found {document.end.status!r}"
    return None


def _effect(effect: _Effect) -> RecordedEffect:
    answered = not isinstance(effect.outcome, msgspec.UnsetType)
    return RecordedEffect(
        seq=effect.seq,
        step=effect.step,
        state=effect.state,
        summary=effect.summary,
        digest=effect.digest,
        ticks=tuple(effect.ticks),
        request=None if isinstance(effect.request, msgspec.UnsetType) else one_line(effect.request),
        outcome=one_line(effect.outcome) if not isinstance(effect.outcome, msgspec.UnsetType) else None,
        at=effect.at if answered and not isinstance(effect.at, msgspec.UnsetType) else 0.0,
    )


def read(text: str | bytes, source: str) -> Result[Recording, RecordingInvalid]:
    """The recording in a file's text, or what is wrong with it (naming the field)."""

    def invalid(problem: RecordingProblem, detail: str, field: str = "") -> Failure[RecordingInvalid]:
        return Failure(RecordingInvalid(source=source, problem=problem, detail=detail, field=field))

    try:
        head = _HEAD(text)
    except msgspec.DecodeError as exc:  # not JSON, or JSON but not an object (a ValidationError)
        try:
            msgspec.json.decode(text)
        except msgspec.DecodeError:
            return invalid(RecordingProblem.UNREADABLE, f"not JSON: {exc}")
        return invalid(RecordingProblem.FORMAT, "not a recording (not a JSON object)")
    if head.format is None:
        return invalid(RecordingProblem.FORMAT, "not a recording (no 'format' field)")
    if head.format != RECORDING_FORMAT:
        return invalid(
            RecordingProblem.FORMAT, f"format {head.format!r}; this version reads {RECORDING_FORMAT!r}"
        )
    try:
        document = _DECODE(text)
    except msgspec.ValidationError as exc:
        field, detail = _field(str(exc))
        return invalid(RecordingProblem.FIELD, detail, field)
    wrong = _check(document)
    if wrong is not None:
        return invalid(RecordingProblem.FIELD, wrong[1], wrong[0])
    start, end = document.start, document.end
    return Success(
        Recording(
            machine=document.machine,
            fingerprint=document.fingerprint,
            run_id=document.run,
            start_state=start.state,
            start_steps=start.steps,
            memory=one_line(start.memory),
            effects=tuple(map(_effect, document.effects)),
            tail=tuple(document.tail),
            rows=tuple(document.rows),
            end=RecordedEnd(
                status=end.status,
                state=end.state,
                steps=end.steps,
                reason=end.reason,
                memory=one_line(end.memory),
            ),
        )
    )
