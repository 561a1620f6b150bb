"""The one JSON form of run events: :func:`event_to_json` and :func:`event_from_json`.

An event is a JSON object with its class name under ``"type"`` and its fields under
their own names (an :class:`~agentsm_fn.stream.events.OutcomeKind` as its value,
``"ok"``); the Python-only fields (``result``, ``EffectCompleted.value``) are left out.
:func:`event_from_json` checks everything (the type, every field and its type, no
unknown field) and says what is wrong as a :class:`MalformedEvent` value, never by raising.
msgspec (already the durable store's byte layer) encodes and checks the fields against
the classes' annotations.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final, get_args

import attrs
import msgspec
from returns.result import Failure, Result, Success

from agentsm_fn.stream.events import RunEvent

__all__ = ["MalformedEvent", "event_from_json", "event_to_json"]

_TYPES: Final[MappingProxyType[str, type[RunEvent]]] = MappingProxyType(
    {cls.__name__: cls for cls in get_args(RunEvent)}  # the union RunEvent is the one list of types
)
_FIELDS: Final = MappingProxyType(
    {
        name: tuple(f.name for f in attrs.fields(cls) if f.metadata.get("json", True))
        for name, cls in _TYPES.items()
    }
)
_ENCODER: Final = msgspec.json.Encoder()


@attrs.frozen
class MalformedEvent:
    """JSON that is not a run event, and why.

    Example:
        >>> MalformedEvent("no field 'type'").detail
        "no field 'type'"
    """

    detail: str


def event_to_json(event: RunEvent) -> str:
    """The event as one line of JSON.

    Example:
        >>> from agentsm_fn.stream.events import LlmTextDelta
        >>> event_to_json(LlmTextDelta(run_id="r1", position=2, text="Hi"))
        '{"type":"LlmTextDelta","run_id":"r1","position":2,"text":"Hi"}'
    """
    name = type(event).__name__
    data: dict[str, object] = {"type": name}
    for field in _FIELDS[name]:
        data[field] = getattr(event, field)  # msgspec writes an OutcomeKind as its value
    return _ENCODER.encode(data).decode()


def event_from_json(text: str | bytes) -> Result[RunEvent, MalformedEvent]:
    """The event a line of :func:`event_to_json` describes, or what is wrong with it.

    Example:
        >>> event_from_json('{"type":"LlmTextDelta","run_id":"r1","position":2,"text":"Hi"}').unwrap().text
        'Hi'
        >>> bad = '{"type":"LlmTextDelta","run_id":"r1","position":"2","text":"Hi"}'
        >>> event_from_json(bad).failure().detail
        'LlmTextDelta: Expected `int`, got `str` - at `$.position`'
    """
    try:
        data = msgspec.json.decode(text)
    except msgspec.DecodeError as exc:
        return Failure(MalformedEvent(f"not JSON: {exc}"))
    if not isinstance(data, dict):
        return Failure(MalformedEvent(f"a run event is a JSON object, not {type(data).__name__}"))
    name = data.pop("type", None)
    cls = _TYPES.get(name) if isinstance(name, str) else None
    if cls is None:
        return Failure(MalformedEvent(f"'type' is {name!r}, not one of {', '.join(sorted(_TYPES))}"))
    unknown = sorted(set(data) - set(_FIELDS[cls.__name__]))
    if unknown:
        return Failure(MalformedEvent(f"{cls.__name__} has no field {unknown[0]!r}"))
    try:
        return Success(msgspec.convert(data, cls))
    except msgspec.ValidationError as exc:
        return Failure(MalformedEvent(f"{cls.__name__}: {exc}"))
