"""Values as JSON for responses: memories, outcomes, records; every string redacted.

A memory is an attrs class of tuples, persistent vectors and maps, enums and nested values;
:func:`public_json` turns it into plain JSON with msgspec (an enum is its value, a vector a
list, a read-only or persistent map an object) and passes every string through
:func:`~agentsm_fn.shell.credentials.redact_credentials`, so no credential reaches a client.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TypeAlias

import msgspec
from pyrsistent import PSet, PVector

from agentsm_fn.durable.stores.protocol.owners import run_orphaned
from agentsm_fn.durable.stores.protocol.store import RunRecord, RunStatus
from agentsm_fn.shell.credentials import redact_credentials

__all__ = ["public_json", "record_json"]

Json: TypeAlias = "str | int | float | bool | list[Json] | dict[str, Json] | None"
"""Any JSON value."""


def _plain(value: object) -> object:
    """Msgspec's hook for what it does not know: persistent vectors, sets and maps, then anything by repr."""
    if isinstance(value, PVector | PSet | frozenset):
        return list(value)
    if isinstance(value, Mapping):
        return dict(value)
    return repr(value)


def _redacted(value: object) -> Json:
    if isinstance(value, str):
        return redact_credentials(value)
    if isinstance(value, list | tuple):
        return [_redacted(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _redacted(item) for key, item in value.items()}
    if isinstance(value, bool | int | float) or value is None:
        return value
    return redact_credentials(repr(value))


def public_json(value: object) -> Json:
    """``value`` as plain JSON with every string redacted.

    Example:
        >>> import attrs
        >>> from pyrsistent import pvector
        >>> @attrs.frozen
        ... class Memory:
        ...     notes: object
        ...     key: str
        >>> shown = public_json(Memory(notes=pvector(["a"]), key="sk-abcdefghijklmnopqrstuvwx"))
        >>> shown["notes"], shown["key"]
        (['a'], '[redacted]')
    """
    try:
        plain = msgspec.to_builtins(value, enc_hook=_plain, str_keys=True)
    except (TypeError, ValueError, OverflowError):  # a value msgspec cannot walk: shown by its repr
        plain = repr(value)
    return _redacted(plain)


def record_json(record: RunRecord, now: float | None = None) -> dict[str, Json]:
    """A stored run's record as the API shows it (``RunSummary``): age in seconds, orphaned flag.

    Example:
        >>> record = RunRecord(run_id="r1", machine="m:M", fingerprint="f",
        ...                    status=RunStatus.WAITING, created=10.0, updated=12.0)
        >>> record_json(record, now=15.0)["age"], record_json(record, now=15.0)["status"]
        (5.0, 'waiting')
    """
    now = time.time() if now is None else now
    running = record.status is RunStatus.RUNNING
    return {
        "run_id": record.run_id,
        "machine": record.machine,
        "fingerprint": record.fingerprint,
        "status": record.status.value,
        "state": record.state,
        "steps": record.steps,
        "effects": record.effects,
        "created": record.created,
        "updated": record.updated,
        "age": max(now - record.created, 0.0),
        "reason": redact_credentials(record.reason),
        "parent": record.parent or None,
        "parent_step": record.parent_step if record.parent else None,
        "orphaned": run_orphaned(running, record.owner, record.lease_until, now),
    }
