"""A small explicit JSON codec for runs at rest: snapshots, memories, effects, outcomes.

Every value is encoded with a tag, so decoding rebuilds exactly the same frozen
value (tuples stay tuples, persistent vectors stay vectors, enums stay enums)::

    null, bool, int, float, str    as themselves
    tuple / pvector / frozenset    {"$tuple": [...]} / {"$pvector": [...]} / {"$frozenset": [...]}
    pmap / dict                    {"$pmap": [[k, v], ...]} / {"$dict": [[k, v], ...]}
    enum member                    {"$enum": "State", "name": "Planning"}
    attrs value                    {"$attrs": "AgentMemory", "fields": {...}}

A tag is the class's name; a class that was renamed keeps decoding under its old
tag (``ToolResult`` is now ``ReactToolResult``), so runs stored before still load.

Only registered classes decode (no arbitrary imports): the core's snapshot,
trace and journal, the LLM values, the ReAct values, and tool definitions.
:func:`register` adds more (e.g. a custom effect).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, cast

import attrs
from pyrsistent import PMap, PVector, pmap, pvector
from returns.result import Failure, Result, Success

from agentsm_fn.agents.guardrails import values as guardrail_values
from agentsm_fn.agents.output import values as output
from agentsm_fn.agents.react import config, effects, memory, outcomes, states
from agentsm_fn.core import effect_failures, journal, snapshot, trace
from agentsm_fn.llm import call, conversation, messages, replies
from agentsm_fn.tools import spec

__all__ = ["CodecError", "decode", "dumps_snapshot", "encode", "loads_snapshot", "register"]

_CLASSES: dict[str, type] = {}


def register(*classes: type) -> None:
    """Allow ``classes`` (attrs classes or enums) to be encoded and decoded.

    Example:
        >>> register(states.State)
        >>> "State" in _CLASSES
        True
    """
    for cls in classes:
        known = _CLASSES.get(cls.__name__)
        if known is not None and known is not cls:
            raise ValueError(f"codec: two registered classes are called {cls.__name__}")
        _CLASSES[cls.__name__] = cls


register(
    states.State,
    states.Event,
    snapshot.Snapshot,
    snapshot.Status,
    trace.Trace,
    journal.Journal,
    call.LlmCall,
    call.LlmRequest,
    messages.ToolCall,
    messages.ToolSpec,
    messages.SystemMessage,
    messages.UserMessage,
    messages.AssistantMessage,
    messages.ToolResultMessage,
    replies.Usage,
    conversation.Conversation,
    conversation.ThreadBudget,
    replies.LlmReply,
    replies.LlmFailure,
    replies.LlmFailureKind,
    config.AgentConfig,
    config.TokenBudget,
    memory.AgentMemory,
    memory.HistoryEntry,
    memory.HumanApprovalRequest,
    outcomes.ReactToolResult,
    outcomes.ToolBatchResult,
    outcomes.Approved,
    outcomes.Rejected,
    outcomes.Modified,
    effects.RunTool,
    effects.RunToolBatch,
    effects.AskHuman,
    spec.ToolDef,
    effect_failures.EffectFailure,
    effect_failures.FailureKind,
    output.OutputSpec,
    output.OutputProblem,
    output.RejectedOutput,
    guardrail_values.GuardrailSpec,
    guardrail_values.GuardrailCheck,
    guardrail_values.Trip,
    guardrail_values.OnTrip,
)


class CodecError(ValueError):
    """The text is not a value this codec can rebuild."""


def _pairs(mapping: Mapping[Any, Any]) -> list[list[object]]:
    return [[encode(k), encode(v)] for k, v in mapping.items()]


def encode(value: object) -> object:
    """The JSON-ready form of ``value``; raises :class:`CodecError` for unregistered types.

    Example:
        >>> encode((1, states.State.Idle))
        {'$tuple': [1, {'$enum': 'State', 'name': 'Idle'}]}
    """
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, enum.Enum):
        _check(type(value))
        return {"$enum": type(value).__name__, "name": value.name}
    if attrs.has(type(value)):
        _check(type(value))
        cls = cast("type[attrs.AttrsInstance]", type(value))  # attrs.has() just proved it
        fields = {f.alias: encode(getattr(value, f.name)) for f in attrs.fields(cls) if f.init}
        return {"$attrs": type(value).__name__, "fields": fields}
    if isinstance(value, tuple):
        return {"$tuple": [encode(v) for v in value]}
    if isinstance(value, PVector):
        return {"$pvector": [encode(v) for v in value]}
    if isinstance(value, frozenset):
        return {"$frozenset": sorted((encode(v) for v in value), key=json.dumps)}
    if isinstance(value, PMap):
        return {"$pmap": _pairs(value)}
    if isinstance(value, dict | MappingProxyType):
        return {"$dict": _pairs(value)}
    raise CodecError(f"codec: cannot encode a {type(value).__name__}")


def _check(cls: type) -> None:
    if _CLASSES.get(cls.__name__) is not cls:
        raise CodecError(f"codec: {cls.__name__} is not registered (call codec.register)")


_RENAMED: Mapping[str, str] = MappingProxyType({"ToolResult": "ReactToolResult"})
"""Tags stored before a class was renamed, and the class's name now (old runs keep loading)."""


def _class(name: object) -> type:
    cls = _CLASSES.get(name, _CLASSES.get(_RENAMED.get(name, ""))) if isinstance(name, str) else None
    if cls is None:
        raise CodecError(f"codec: unknown type {name!r}")
    return cls


def _items(data: Mapping[str, object], tag: str) -> list[object]:
    items = data[tag]
    if not isinstance(items, list):
        raise CodecError(f"codec: {tag} needs a list")
    return items


def decode(data: object) -> object:
    """Rebuild a value from :func:`encode`'s output; raises :class:`CodecError` if malformed.

    Example:
        >>> decode(encode(states.Event.Start)) is states.Event.Start
        True
    """
    if data is None or isinstance(data, bool | int | float | str):
        return data
    if not isinstance(data, dict):
        raise CodecError(f"codec: unexpected JSON {_JSON_KINDS.get(type(data), type(data).__name__)}")
    if len(data) not in (1, 2):
        raise CodecError(f"codec: unexpected JSON object with {len(data)} keys")
    if "$enum" in data:
        cls = _class(data["$enum"])
        if not issubclass(cls, enum.Enum) or not isinstance(data.get("name"), str):
            raise CodecError(f"codec: bad enum {data!r}")
        return cls[data["name"]]
    if "$attrs" in data:
        cls = _class(data["$attrs"])
        fields = data.get("fields")
        if not attrs.has(cls) or not isinstance(fields, dict):
            raise CodecError(f"codec: bad value of {cls.__name__}")
        _check_fields(cls, fields)
        try:
            return cls(**{k: decode(v) for k, v in fields.items()})
        except (TypeError, ValueError) as exc:
            raise CodecError(f"codec: cannot rebuild {cls.__name__}: {exc}") from exc
    tag = next(iter(data))
    if tag == "$tuple":
        return tuple(decode(v) for v in _items(data, tag))
    if tag == "$pvector":
        return pvector(decode(v) for v in _items(data, tag))
    if tag == "$frozenset":
        return frozenset(decode(v) for v in _items(data, tag))
    if tag in ("$pmap", "$dict"):
        pairs = [_pair(p) for p in _items(data, tag)]
        return pmap(dict(pairs)) if tag == "$pmap" else dict(pairs)
    raise CodecError(f"codec: unknown tag {tag!r}")


_JSON_KINDS: dict[type, str] = {list: "array", dict: "object"}
"""The JSON names of the containers ``json.loads`` builds, for error messages."""


def _check_fields(cls: type[attrs.AttrsInstance], fields: Mapping[str, object]) -> None:
    """Name the first missing or unknown field of a stored ``cls`` value (old stores may omit defaults)."""
    known = {f.alias: f for f in attrs.fields(cls) if f.init}
    for name in fields:
        if name not in known:
            raise CodecError(f"codec: {cls.__name__} has no field {name!r}")
    for alias, field in known.items():
        if alias not in fields and field.default is attrs.NOTHING:
            raise CodecError(f"codec: {cls.__name__} is missing field {alias!r}")


def _pair(item: object) -> tuple[object, object]:
    if not isinstance(item, list) or len(item) != 2:
        raise CodecError("codec: a mapping entry must be a [key, value] pair")
    return decode(item[0]), decode(item[1])


def dumps_snapshot(value: object) -> str:
    """Encode ``value`` as JSON text.

    Example:
        >>> fresh = memory.AgentMemory.new("t")
        >>> loads_snapshot(dumps_snapshot(fresh)).unwrap() == fresh
        True
    """
    return json.dumps(encode(value), ensure_ascii=False, sort_keys=True)


def loads_snapshot(text: str) -> Result[object, CodecError]:
    """Decode JSON text from :func:`dumps_snapshot`; malformed text is a ``Failure``, never an exception.

    Example:
        >>> loads_snapshot("{").failure().args[0].startswith("codec: not JSON")
        True
    """
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError; deep nesting recurses
        return Failure(CodecError(f"codec: not JSON: {exc}"))
    try:
        return Success(decode(data))
    except CodecError as exc:
        return Failure(exc)
    except (KeyError, TypeError, ValueError, RecursionError) as exc:  # e.g. an unhashable set member
        return Failure(CodecError(f"codec: malformed value: {exc!r}"))
