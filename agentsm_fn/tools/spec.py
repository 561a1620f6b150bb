"""A tool as the agent's memory knows it: name, description, JSON Schema, policy.

A :class:`ToolDef` is pure data (no function), so it can live in frozen memory,
be serialized with a suspended run, and be read by pure handlers. The function
that implements the tool lives only in the shell's tool runner.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping

import attrs
from pyrsistent import pmap

from agentsm_fn.llm.json import JsonObject, freeze_object
from agentsm_fn.llm.messages import ToolSpec
from agentsm_fn.tools.validate import ArgumentCheck, compile_schema, problems_with

__all__ = ["ToolDef"]


# Tools are usually registered with a module-level schema dict, again for every agent built; its
# frozen form is found by the dict's identity *and* its JSON text (so a dict changed since is
# frozen afresh). The memo keeps each dict alive while it holds it, so ids are not reused.
_SCHEMAS: dict[int, tuple[object, str, JsonObject]] = {}
_SCHEMAS_LIMIT = 1024


def _schema(value: object) -> JsonObject:
    if type(value) is not dict:
        return freeze_object(value)
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):  # not JSON: freeze_object says why
        return freeze_object(value)
    hit = _SCHEMAS.get(id(value))
    if hit is not None and hit[0] is value and hit[1] == text:
        return hit[2]
    frozen = freeze_object(value)
    if len(_SCHEMAS) >= _SCHEMAS_LIMIT:
        _SCHEMAS.clear()
    _SCHEMAS[id(value)] = (value, text, frozen)
    return frozen


_SPEC_FIELDS = ("name", "description", "parameters")
if tuple(f.name for f in attrs.fields(ToolSpec)) != _SPEC_FIELDS:  # pragma: no cover - a programmer error
    raise TypeError(f"ToolDef.spec must set every field of ToolSpec: {attrs.fields(ToolSpec)}")


def _frozen_spec(name: str, description: str, parameters: JsonObject) -> ToolSpec:
    """``ToolSpec(name, description, parameters)`` for a schema frozen already, without re-freezing it.

    ToolSpec's converter would rebuild the (already frozen) schema map by map; the value is equal.
    """
    spec = object.__new__(ToolSpec)
    for field, value in zip(_SPEC_FIELDS, (name, description, parameters), strict=True):
        object.__setattr__(spec, field, value)
    return spec


@attrs.frozen(kw_only=True)
class ToolDef:
    """Name, description, argument schema, and the per-tool policy of one tool.

    ``needs_approval`` routes every call through WaitingForHuman; ``timeout`` is in
    seconds (None: no limit). ``retry_safe`` declares that running the tool twice with
    the same arguments is harmless (a pure read, an idempotent write): after a crash a
    durable run calls it again; otherwise its outcome is unknown and the agent is told
    so. Enforcing a timeout on a sync tool needs a thread: such a tool runs in one,
    with a copy of the caller's contextvars context, so it cannot use the running
    event loop or objects bound to the caller's thread.

    Example:
        >>> d = ToolDef(name="search", description="Search the web",
        ...             parameters={"type": "object"}, timeout=5.0)
        >>> d.spec.name, d.needs_approval
        ('search', False)
    """

    name: str
    description: str
    parameters: JsonObject = attrs.field(factory=lambda: pmap({"type": "object"}), converter=_schema)
    needs_approval: bool = False
    timeout: float | None = None
    retry_safe: bool = False
    agent: str | None = None
    """The durable agent (its program's ``module:attribute`` name) a call of this tool runs as a child
    run, its ``input`` argument as the agent's message (None: an ordinary tool, run by its function)."""
    hands_off: bool = False
    """With ``agent``: a call hands the conversation over (``transfer_to_<agent>``); the agent's answer
    is the run's answer, not an observation."""

    @property
    def spec(self) -> ToolSpec:
        """The tool as the model sees it (made once per definition: every planning call sends it)."""
        return self._spec

    @functools.cached_property
    def _spec(self) -> ToolSpec:
        # private: a slotted class keeps a cached value in a slot, and msgspec (the server's JSON of a
        # memory) shows every public slot, so a public cache made the JSON depend on earlier use
        return _frozen_spec(self.name, self.description, self.parameters)

    @functools.cached_property
    def _check(self) -> ArgumentCheck:
        return compile_schema(self.parameters)

    def argument_problems(self, arguments: Mapping[str, object]) -> str | None:
        """Every way ``arguments`` break the schema, in one line; None if they are valid.

        The same as :func:`~agentsm_fn.tools.validate.argument_problems`, with the validator
        compiled once per definition.

        Example:
            >>> d = ToolDef(name="f", description="", parameters={"type": "object", "required": ["q"]})
            >>> d.argument_problems({"q": 1}) is None, d.argument_problems({})
            (True, "'q' is a required property")
        """
        return problems_with(self._check, arguments)
