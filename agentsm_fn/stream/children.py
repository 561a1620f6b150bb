"""A child run's event as its parent's stream carries it: :class:`ChildEvent` and its one JSON form.

A run that started child runs (``agentsm_fn.teams``) carries their events in its own stream, each
wrapped in a :class:`ChildEvent`: the child's run id, its own parent's (a grandchild's parent is
the child), the position of the streamed run's effect that started the child (or the child it
descends from), and the child's event itself, unchanged (its ``run_id`` is the child's, its
``position`` the child's own). It is not history of the streamed run (no position of its own):
a server sends it apart (``event: child`` in Server-Sent Events), so a client that knows only
:data:`~agentsm_fn.stream.events.RunEvent` keeps working. Its JSON form is the wrapper's fields
with the child's event as a JSON object (:func:`~agentsm_fn.stream.wire.event_to_json`'s) under
``"event"``.

Example:
    >>> from agentsm_fn.stream.events import Finished
    >>> event = ChildEvent(run_id="p", position=2, child_run_id="p.c0", parent_run_id="p",
    ...                    event=Finished(run_id="p.c0", position=4, state="DONE", steps=1))
    >>> child_event_from_json(child_event_to_json(event)).unwrap() == event
    True
"""

from __future__ import annotations

from typing import Final

import attrs
import msgspec
from returns.result import Failure, Result, Success

from agentsm_fn.stream.events import RunEvent
from agentsm_fn.stream.wire import MalformedEvent, event_from_json, event_to_json

__all__ = ["ChildEvent", "child_event_from_json", "child_event_to_json"]

_ENCODER: Final = msgspec.json.Encoder()
_FIELDS: Final = {"run_id": str, "position": int, "child_run_id": str, "parent_run_id": str}


@attrs.frozen(kw_only=True)
class ChildEvent:
    """Event ``event`` of child run ``child_run_id``, under the effect at ``position`` of run ``run_id``.

    Example:
        >>> from agentsm_fn.stream.events import RunStarted
        >>> started = RunStarted(run_id="p.c0.c1", machine="m", fingerprint="f", state="A")
        >>> ChildEvent(run_id="p", position=2, child_run_id="p.c0.c1", parent_run_id="p.c0",
        ...            event=started).parent_run_id
        'p.c0'
    """

    run_id: str
    """The run whose stream carries it."""
    position: int
    """The position of that run's effect that started the child (or the child this one descends from)."""
    child_run_id: str
    parent_run_id: str
    """The child's own parent: ``run_id`` for a child, a child's id for a grandchild."""
    event: RunEvent


def child_event_to_json(event: ChildEvent) -> str:
    """The child's event, wrapped, as one line of JSON.

    Example:
        >>> from agentsm_fn.stream.events import LlmTextDelta
        >>> child_event_to_json(ChildEvent(run_id="p", position=2, child_run_id="p.c0", parent_run_id="p",
        ...                                event=LlmTextDelta(run_id="p.c0", position=2, text="Hi")))[:60]
        '{"type":"ChildEvent","run_id":"p","position":2,"child_run_id'
    """
    data: dict[str, object] = {"type": "ChildEvent"}
    data.update((name, getattr(event, name)) for name in _FIELDS)
    data["event"] = msgspec.Raw(event_to_json(event.event).encode())
    return _ENCODER.encode(data).decode()


def child_event_from_json(text: str | bytes) -> Result[ChildEvent, MalformedEvent]:
    """The :class:`ChildEvent` a line of :func:`child_event_to_json` describes, or what is wrong with it.

    Example:
        >>> child_event_from_json('{"type":"ChildEvent","run_id":"p"}').failure().detail
        "ChildEvent: no field 'position'"
    """
    try:
        data = msgspec.json.decode(text)
    except msgspec.DecodeError as exc:
        return Failure(MalformedEvent(f"not JSON: {exc}"))
    if not isinstance(data, dict) or data.get("type") != "ChildEvent":
        return Failure(MalformedEvent("a child event is a JSON object whose 'type' is 'ChildEvent'"))
    unknown = sorted(set(data) - {"type", "event", *_FIELDS})
    if unknown:
        return Failure(MalformedEvent(f"ChildEvent has no field {unknown[0]!r}"))
    for name, kind in (*_FIELDS.items(), ("event", dict)):
        if name not in data:
            return Failure(MalformedEvent(f"ChildEvent: no field {name!r}"))
        if not isinstance(data[name], kind) or isinstance(data[name], bool):
            return Failure(MalformedEvent(f"ChildEvent: {name!r} is not a {kind.__name__}"))
    inner = event_from_json(_ENCODER.encode(data["event"]))
    if isinstance(inner, Failure):
        return Failure(MalformedEvent(f"ChildEvent's event: {inner.failure().detail}"))
    fields = {name: data[name] for name in _FIELDS}
    return Success(ChildEvent(event=inner.unwrap(), **fields))
