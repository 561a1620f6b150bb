"""Private: the rows of a machine the kit's coverage counts.

Built on the verifier's reading of the events each state can emit
(:func:`verification.events.emittable_events`).
"""

from __future__ import annotations

import enum
from typing import TypeVar

from agentsm_fn.core.machine import Machine
from verification.events import emittable_events

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

Row = tuple[StateT, EventT, StateT]


def emittable_rows(machine: Machine[StateT, EventT, MemoryT]) -> tuple[Row[StateT, EventT], ...]:
    """Rows whose event the source state can emit (every row of a state whose events are unknown)."""
    rows: list[Row[StateT, EventT]] = []
    for (source, event), target in machine.table.items():
        if source in machine.terminals:
            continue
        allowed = emittable_events(machine, source)
        if allowed is None or event in allowed:
            rows.append((source, event, target))
    return tuple(sorted(rows, key=row_key))


def row_key(row: Row[StateT, EventT]) -> tuple[str, str, str]:
    """A stable sort key for a row."""
    return row[0].name, row[1].name, row[2].name


def reachable_rows(machine: Machine[StateT, EventT, MemoryT]) -> tuple[Row[StateT, EventT], ...]:
    """Emittable rows whose source is reachable from the initial state, in a stable order."""
    rows = emittable_rows(machine)
    seen = {machine.initial}
    frontier = [machine.initial]
    while frontier:
        state = frontier.pop()
        for source, _, target in rows:
            if source is state and target not in seen:
                seen.add(target)
                frontier.append(target)
    return tuple(r for r in rows if r[0] in seen)
