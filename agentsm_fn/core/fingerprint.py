"""A machine's fingerprint: one hash of its graph, the same in every process and every integration.

A durable store keeps it with each run, a Temporal run carries it, and an OpenTelemetry
run span reports it as ``gen_ai.agent.id``: one function, so the three always agree.

The fingerprint is the SHA-256 of a canonical text listing the states and events (in
definition order), the initial, terminal and budgeted states, every row of the table
(sorted), and for each state the names of its handler's functions and its failure event.
Two processes that import the same code compute the same fingerprint; any change to the
graph, or a handler replaced by another function, changes it. (A handler whose body
changed but whose name did not keeps the fingerprint: ``check`` replays stored runs
against the current code to catch that.)
"""

from __future__ import annotations

import enum
import hashlib
from typing import TypeVar

from agentsm_fn.core.machine import Machine

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

__all__ = ["machine_fingerprint", "machine_fingerprint_text"]


def _function_name(fn: object) -> str:
    return f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', type(fn).__qualname__)}"


def _names(states: frozenset[StateT]) -> str:
    return ",".join(sorted(s.name for s in states))


def machine_fingerprint_text(machine: Machine[StateT, EventT, MemoryT]) -> str:
    """The canonical text the fingerprint hashes (readable, for diffs between versions).

    Example:
        >>> from agentsm_fn.agents.react import REACT_MACHINE
        >>> machine_fingerprint_text(REACT_MACHINE).splitlines()[1][:22]
        'states State: Idle,Pla'
    """
    lines = [
        f"machine {machine.name}",
        f"states {machine.states.__qualname__}: " + ",".join(s.name for s in machine.states),
        f"events {machine.events.__qualname__}: " + ",".join(e.name for e in machine.events),
        f"initial {machine.initial.name}",
        f"terminals {_names(machine.terminals)}",
        f"budgeted {_names(machine.budgeted)}",
    ]
    lines += sorted(f"row {s.name} + {e.name} -> {t.name}" for (s, e), t in machine.table.items())
    for state, handler in sorted(machine.handlers.items(), key=lambda item: item[0].name):
        functions = ",".join(_function_name(fn) for fn in handler.functions)
        failure = handler.failure_event
        lines.append(f"handler {state.name}: {functions}" + (f" failure={failure.name}" if failure else ""))
    return "\n".join(lines) + "\n"


def machine_fingerprint(machine: Machine[StateT, EventT, MemoryT]) -> str:
    """The SHA-256 (hex) of :func:`machine_fingerprint_text`.

    Example:
        >>> from agentsm_fn.agents.react import REACT_MACHINE
        >>> found = machine_fingerprint(REACT_MACHINE)
        >>> len(found), found == machine_fingerprint(REACT_MACHINE)
        (64, True)
    """
    found = _FINGERPRINTS.get(id(machine))
    if found is not None and found[0] is machine:
        return found[1]
    digest = hashlib.sha256(machine_fingerprint_text(machine).encode()).hexdigest()
    if len(_FINGERPRINTS) >= _KEPT:  # machines built on the fly (tests, generators) must not pile up
        _FINGERPRINTS.clear()
    _FINGERPRINTS[id(machine)] = (machine, digest)
    return digest


_FINGERPRINTS: dict[int, tuple[object, str]] = {}
"""id(machine) -> (the machine, kept alive so its id is not reused, and its fingerprint)."""
_KEPT = 256
"""At most this many fingerprints are cached; the cache starts over when full."""
