"""Reading a recording's parsed JSON into a :class:`Recording`, every problem naming its field."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final, TypeVar

from returns.result import Failure, Result, Success

from agentsm_fn.llm.json import JsonValue
from agentsm_fn.regression.errors import RecordingInvalid, RecordingProblem
from agentsm_fn.regression.values import RECORDING_FORMAT, RecordedEffect, RecordedEnd, Recording, frozen_json

__all__: list[str] = []

T = TypeVar("T")

_HEX: Final = re.compile(r"[0-9a-f]{64}")
_STATUSES: Final = frozenset({"finished", "awaiting", "failed", "ready"})


class _Wrong(Exception):
    def __init__(self, field: str, detail: str) -> None:
        super().__init__(detail)
        self.field = field
        self.detail = detail


def _get(obj: Mapping[str, object], key: str, kind: type[T], where: str, default: T | None = None) -> T:
    field = f"{where}.{key}" if where else key
    if key not in obj:
        if default is not None:
            return default
        raise _Wrong(field, "missing")
    value = obj[key]
    if kind is float and type(value) is int:
        value = float(value)
    if (type(value) is bool and kind is not bool) or not isinstance(value, kind):
        raise _Wrong(field, f"expected {_kind(kind)}, found {_json_kind(value)}")
    return value


def _kind(kind: type) -> str:
    return {
        str: "a string",
        int: "an integer",
        float: "a number",
        bool: "true or false",
        list: "an array",
    }.get(kind, "an object")


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    return {str: "a string", int: "an integer", float: "a number", list: "an array", dict: "an object"}.get(
        type(value), type(value).__name__
    )


def _object(value: object, field: str) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        raise _Wrong(field, f"expected an object, found {_json_kind(value)}")
    return value


def _readings(obj: Mapping[str, object], key: str, where: str) -> tuple[float, ...]:
    items = _get(obj, key, list, where, default=[])
    out: list[float] = []
    for index, item in enumerate(items):
        if type(item) not in (int, float):
            raise _Wrong(
                f"{where}.{key}[{index}]" if where else f"{key}[{index}]", "expected a clock reading"
            )
        out.append(float(item))
    return tuple(out)


def _value(obj: Mapping[str, object], key: str, where: str) -> JsonValue:
    if key not in obj:
        raise _Wrong(f"{where}.{key}", "missing")
    return frozen_json(obj[key])


def _effect(raw: object, where: str) -> RecordedEffect:
    obj = _object(raw, where)
    digest = _get(obj, "digest", str, where)
    if not _HEX.fullmatch(digest):
        raise _Wrong(f"{where}.digest", "expected the effect's SHA-256 digest as 64 hex digits")
    answered = "outcome" in obj
    return RecordedEffect(
        seq=_get(obj, "seq", int, where),
        step=_get(obj, "step", int, where),
        state=_get(obj, "state", str, where),
        summary=_get(obj, "summary", str, where),
        digest=digest,
        ticks=_readings(obj, "ticks", where),
        request=frozen_json(obj["request"]) if "request" in obj else None,
        answered=answered,
        outcome=_value(obj, "outcome", where) if answered else None,
        at=_get(obj, "at", float, where) if answered else 0.0,
    )


def _rows(document: Mapping[str, object]) -> tuple[str, ...]:
    rows = _get(document, "rows", list, "")
    for index, row in enumerate(rows):
        if not (isinstance(row, str) and " -" in row and "-> " in row):
            raise _Wrong(f"rows[{index}]", "expected a row written STATE -EVENT-> TARGET")
    return tuple(rows)


def _section(document: Mapping[str, object], key: str) -> Mapping[str, object]:
    if key not in document:
        raise _Wrong(key, "missing")
    return _object(document[key], key)


def _recording(document: Mapping[str, object]) -> Recording:
    machine = _get(document, "machine", str, "")
    fingerprint = _get(document, "fingerprint", str, "")
    run_id = _get(document, "run", str, "", default="")
    start = _section(document, "start")
    effects = _get(document, "effects", list, "")
    recorded = tuple(_effect(raw, f"effects[{index}]") for index, raw in enumerate(effects))
    for index, effect in enumerate(recorded[:-1]):
        if not effect.answered:
            raise _Wrong(
                f"effects[{index}]", "only the last effect may be unanswered (the one the run waits for)"
            )
    tail, rows = _readings(document, "tail", ""), _rows(document)
    raw_end = _section(document, "end")
    status = _get(raw_end, "status", str, "end")
    if status not in _STATUSES:
        raise _Wrong("end.status", f"expected one of {sorted(_STATUSES)}, found {status!r}")
    return Recording(
        machine=machine,
        fingerprint=fingerprint,
        run_id=run_id,
        start_state=_get(start, "state", str, "start"),
        start_steps=_get(start, "steps", int, "start", default=0),
        memory=_value(start, "memory", "start"),
        effects=recorded,
        tail=tail,
        rows=rows,
        end=RecordedEnd(
            status=status,
            state=_get(raw_end, "state", str, "end"),
            steps=_get(raw_end, "steps", int, "end"),
            reason=_get(raw_end, "reason", str, "end", default=""),
            memory=_value(raw_end, "memory", "end"),
        ),
    )


def parse_recording(document: object, source: str) -> Result[Recording, RecordingInvalid]:
    """The recording ``document`` (parsed JSON) holds, or what is wrong with it."""
    if not isinstance(document, Mapping) or "format" not in document:
        return Failure(
            RecordingInvalid(
                source=source, problem=RecordingProblem.FORMAT, detail="not a recording (no 'format' field)"
            )
        )
    found = document["format"]
    if found != RECORDING_FORMAT:
        detail = f"format {found!r}; this version reads {RECORDING_FORMAT!r}"
        return Failure(RecordingInvalid(source=source, problem=RecordingProblem.FORMAT, detail=detail))
    try:
        return Success(_recording(document))
    except _Wrong as wrong:
        return Failure(
            RecordingInvalid(
                source=source, problem=RecordingProblem.FIELD, field=wrong.field, detail=wrong.detail
            )
        )
    except (TypeError, RecursionError) as exc:  # freeze met something that is not JSON, or nests too deeply
        return Failure(RecordingInvalid(source=source, problem=RecordingProblem.FIELD, detail=str(exc)))
