"""A durable program's memory type, and its ``template`` checked against it where the program is made.

:func:`memory_type` reads the memory class a machine's handlers take from its initial handler's
annotation; the HTTP server converts a new run's JSON memory by it, and :class:`~agentsm_fn.durable.Durable`
refuses a ``template`` that is not of it (:class:`TemplateMismatch`, a ``TypeError``: a programmer's
error, raised when the ``Durable`` is made, so it shows at import, not when a request arrives). When
the annotation cannot be read at run time (names imported only for type checking), nothing is checked.
"""

from __future__ import annotations

import typing
from typing import Any

import attrs

from agentsm_fn.core.handlers import Effectful, Pure
from agentsm_fn.core.machine import Machine

__all__ = ["TemplateMismatch", "memory_type", "template_mismatch"]


def memory_type(machine: Machine[Any, Any, Any]) -> type | None:
    """The memory class a machine's handlers take, read from its initial handler's annotation.

    Example:
        >>> from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory
        >>> memory_type(REACT_MACHINE) is AgentMemory
        True
    """
    handler = machine.handlers.get(machine.initial)
    function = (
        handler.fn
        if isinstance(handler, Pure)
        else handler.request
        if isinstance(handler, Effectful)
        else None
    )
    if function is None:
        return None
    try:
        hints = typing.get_type_hints(function)
    except Exception:  # annotations that cannot be resolved at run time: unknown
        return None
    first = next((hint for name, hint in hints.items() if name != "return"), None)
    return first if isinstance(first, type) and attrs.has(first) else None


def _shown(kind: type) -> str:
    return f"{kind.__module__}:{kind.__qualname__}"


class TemplateMismatch(TypeError):
    """A ``Durable``'s template is not its machine's memory: ``expected`` and ``given`` are the classes."""

    def __init__(self, name: str, expected: type, given: type) -> None:
        self.name = name
        self.expected = expected
        self.given = given
        message = (
            f"Durable {name}: its template is of class {_shown(given)}, but its machine's memory class is "
            f"{_shown(expected)} (give as template an instance of {expected.__qualname__}, or none)"
        )
        super().__init__(message)


def template_mismatch(
    name: str, machine: Machine[Any, Any, Any], template: object
) -> TemplateMismatch | None:
    """Why ``template`` cannot be the memory of ``machine``'s runs (None: it can, or it cannot be told).

    Example:
        >>> from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory
        >>> template_mismatch("app:AGENT", REACT_MACHINE, AgentMemory.new("hi")) is None
        True
        >>> template_mismatch("app:AGENT", REACT_MACHINE, "hi").given
        <class 'str'>
    """
    expected = None if template is None else memory_type(machine)
    if expected is None or isinstance(template, expected):
        return None
    return TemplateMismatch(name, expected, type(template))
