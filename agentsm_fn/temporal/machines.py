"""Machines a worker runs as workflows, how their effects run, and how a run starts.

A :class:`TemporalMachine` is a machine plus what Temporal needs to know about it:
activity options per effect type, which effects are answered from outside (a human
approval, delivered by an update instead of performed by an activity), and when a
long run continues as new. Workers register them per task queue; the one generic
workflow finds its machine by task queue and workflow type (the machine's name).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Final, Generic, TypeVar

import attrs

from agentsm_fn.core.fingerprint import machine_fingerprint
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.temporal.options import EffectOptions

if TYPE_CHECKING:
    from agentsm_fn.otel import OtelObserver

__all__ = ["TemporalMachine", "WorkflowStart", "as_temporal"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


def _options(value: Mapping[type, EffectOptions]) -> Mapping[type, EffectOptions]:
    return MappingProxyType(dict(value))


def _types(value: Iterable[type]) -> frozenset[type]:
    return frozenset(value)


def _fingerprints(value: Iterable[str]) -> frozenset[str]:
    return frozenset(value)


@attrs.frozen(kw_only=True)
class TemporalMachine(Generic[StateT, EventT, MemoryT]):
    """A machine as a Temporal workflow type: its name is the workflow type.

    ``options`` maps effect types (looked up along the MRO) to activity options, else
    ``default``; ``awaited`` effect types are not performed: their outcome is delivered
    with ``TemporalRun.answer`` (a Temporal update); a run continues as new after
    ``continue_after`` effects, or sooner when its history passes ``history_bytes`` (and
    twice what it started with) or Temporal suggests it. ``compatible`` lists fingerprints of earlier
    versions of the machine whose open runs this one may continue (after
    :func:`~agentsm_fn.temporal.check_open_runs` said they replay); any other fingerprint
    is refused.

    Example:
        >>> from agentsm_fn.agents.react import REACT_MACHINE
        >>> as_temporal(REACT_MACHINE).name
        'react'
    """

    machine: Machine[StateT, EventT, MemoryT]
    options: Mapping[type, EffectOptions] = attrs.field(factory=dict, converter=_options)
    default: EffectOptions = attrs.field(factory=EffectOptions)
    awaited: frozenset[type] = attrs.field(default=frozenset(), converter=_types)
    continue_after: int = 1000
    history_bytes: int = 8_000_000
    compatible: frozenset[str] = attrs.field(default=frozenset(), converter=_fingerprints)
    fingerprint: str = attrs.field(init=False)

    @fingerprint.default
    def _fingerprint(self) -> str:
        return machine_fingerprint(self.machine)

    def __attrs_post_init__(self) -> None:
        if not self.machine.name:
            raise ValueError("a machine run on Temporal needs a name (it is the workflow type)")
        if self.continue_after < 1 or self.history_bytes < 1:
            raise ValueError("continue_after and history_bytes must be >= 1")

    @property
    def name(self) -> str:
        """The workflow type: the machine's name."""
        return self.machine.name

    def accepts_fingerprint(self, fingerprint: str) -> bool:
        """True if a run started on a machine with ``fingerprint`` may go on here."""
        return not fingerprint or fingerprint == self.fingerprint or fingerprint in self.compatible

    def is_awaited(self, effect_type: type) -> bool:
        """True if ``effect_type`` (or a base class) is answered from outside."""
        return any(klass in self.awaited for klass in effect_type.__mro__)


def as_temporal(
    machine: Machine[StateT, EventT, MemoryT] | TemporalMachine[StateT, EventT, MemoryT],
) -> TemporalMachine[StateT, EventT, MemoryT]:
    """``machine`` with default options, or the :class:`TemporalMachine` itself."""
    return machine if isinstance(machine, TemporalMachine) else TemporalMachine(machine=machine)


@attrs.frozen(kw_only=True)
class WorkflowStart(Generic[StateT, MemoryT]):
    """A workflow's input: where the run starts, how many effects it already had, which machine.

    ``seq`` numbers effects across continue-as-new (idempotency keys stay unique);
    ``fingerprint`` is the machine's at the run's start: a worker whose machine
    differs refuses to go on (the workflow task fails, and retries once fixed).
    """

    snapshot: Snapshot[StateT, MemoryT]
    seq: int = 0
    fingerprint: str = ""


_REGISTRY: Final[dict[tuple[str | None, str], TemporalMachine[enum.Enum, enum.Enum, object]]] = {}
"""(task queue, workflow type) -> machine, filled by the workers (queue None: replayers) of this process."""


_OBSERVERS: Final[dict[tuple[str | None, str], OtelObserver]] = {}
"""(task queue, workflow type) -> the observer that traces its runs, for workers given one."""


def register(
    task_queue: str | None,
    machines: Iterable[TemporalMachine[StateT, EventT, MemoryT]],
    observer: OtelObserver | None = None,
) -> None:
    """Make ``machines`` known to workflows on ``task_queue`` in this process (last one wins).

    Machines registered for no task queue (replayers) serve any queue without its own.
    ``observer``: their runs are traced (see :mod:`agentsm_fn.temporal.tracing`).
    """
    for spec in machines:
        # The registry erases the machine's types; the workflow only hands it its own values.
        _REGISTRY[(task_queue, spec.name)] = spec  # type: ignore[assignment]
        if observer is None:
            _OBSERVERS.pop((task_queue, spec.name), None)
        else:
            _OBSERVERS[(task_queue, spec.name)] = observer


def registered(task_queue: str, name: str) -> TemporalMachine[enum.Enum, enum.Enum, object] | None:
    """The machine registered for ``name`` on ``task_queue``, else for no queue, if any."""
    return _REGISTRY.get((task_queue, name)) or _REGISTRY.get((None, name))


def observer_for(task_queue: str, name: str) -> OtelObserver | None:
    """The observer tracing runs of ``name`` on ``task_queue`` in this process, if any."""
    return _OBSERVERS.get((task_queue, name))
