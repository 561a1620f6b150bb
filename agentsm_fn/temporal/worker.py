"""Workers and replayers for machine runs.

:func:`machine_worker` builds a Temporal ``Worker`` that runs the given machines as
workflows and performs their effects with the given performers (the same
:class:`~agentsm_fn.shell.Performers` a local run uses). The workflow runs in
Temporal's sandbox with this package and the libraries our values are made of
passed through: they are imported once, outside, and never re-imported per run
(the fold is pure, so nothing the sandbox guards against happens in it).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from datetime import timedelta
from typing import TYPE_CHECKING, Final, TypeVar

from temporalio.client import Client
from temporalio.worker import Replayer, Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from agentsm_fn.agents.output.result_type import ResultType
from agentsm_fn.core.machine import Machine
from agentsm_fn.durable.running.child_programs import AnyProgram
from agentsm_fn.shell.performers import Performers
from agentsm_fn.temporal.activity import EffectActivities
from agentsm_fn.temporal.children import program_machines, register_programs
from agentsm_fn.temporal.machines import TemporalMachine, as_temporal, register
from agentsm_fn.temporal.payloads import data_converter
from agentsm_fn.temporal.workflow import MachineWorkflow

if TYPE_CHECKING:
    from agentsm_fn.otel import OtelObserver

__all__ = ["PASSED_THROUGH", "machine_modules", "machine_replayer", "machine_worker", "sandbox_runner"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

PASSED_THROUGH: Final = ("agentsm_fn", "attrs", "returns", "pyrsistent", "jsonschema", "referencing")
"""Modules the sandbox shares with the worker instead of re-importing them for every run."""


def sandbox_runner(*extra: str) -> SandboxedWorkflowRunner:
    """Temporal's sandbox with :data:`PASSED_THROUGH` (and ``extra`` modules, e.g. yours) passed through.

    Example:
        >>> "agentsm_fn" in sandbox_runner("shop").restrictions.passthrough_modules
        True
    """
    restrictions = SandboxRestrictions.default.with_passthrough_modules(*PASSED_THROUGH, *extra)
    return SandboxedWorkflowRunner(restrictions=restrictions)


Registrable = Machine[StateT, EventT, MemoryT] | TemporalMachine[StateT, EventT, MemoryT]


def machine_modules(machines: Iterable[TemporalMachine[StateT, EventT, MemoryT]]) -> tuple[str, ...]:
    """The top-level packages a machine's states, events and handlers come from (passed through too).

    A workflow decodes the machine's own values and calls its handlers: the modules they live in
    must be the worker's, not copies the sandbox would import again. So must the module of a
    typed result's class a handler reads replies as (msgspec resolves its annotations there).

    Example:
        >>> from agentsm_fn.agents.react import REACT_MACHINE
        >>> machine_modules([as_temporal(REACT_MACHINE)])
        ('agentsm_fn',)
    """
    found: set[str] = set()
    for spec in machines:
        machine = spec.machine
        owners: list[object] = [machine.states, machine.events]
        for handler in machine.handlers.values():
            for fn in getattr(handler, "functions", ()):
                owners.extend((fn, *_result_classes(fn)))
        for owner in owners:
            module = getattr(owner, "__module__", None)
            if isinstance(module, str) and module != "__main__":
                found.add(module.split(".")[0])
    return tuple(sorted(found))


def _result_classes(fn: object, depth: int = 3) -> tuple[type, ...]:
    """The classes of the typed results ``fn`` reads replies as.

    A handler made for a result type holds its :class:`~agentsm_fn.agents.output.ResultType` in
    its closure, maybe a wrapper or two down (a guarded receive holds the typed one).
    """
    found: list[type] = []
    for cell in getattr(fn, "__closure__", None) or ():
        held = cell.cell_contents
        if isinstance(held, ResultType) and held.target is not None:
            found.append(held.target)
        elif depth > 0 and callable(held):
            found.extend(_result_classes(held, depth - 1))
    return tuple(found)


def machine_worker(
    client: Client,
    task_queue: str,
    machines: Iterable[Registrable[StateT, EventT, MemoryT]],
    performers: Performers,
    *,
    passed_through: Iterable[str] = (),
    sticky_timeout: float = 5.0,
    max_concurrent_activities: int = 100,
    workflows: Iterable[type] = (),
    observer: OtelObserver | None = None,
    programs: Iterable[AnyProgram] = (),
) -> Worker:
    """A worker on ``task_queue`` that runs ``machines`` and performs their effects with ``performers``.

    ``client`` must use :func:`~agentsm_fn.temporal.data_converter` (``connect`` does).
    The machines' own modules are passed through the sandbox (:func:`machine_modules`);
    ``passed_through`` adds others (say, where your effects or memory classes live).
    ``sticky_timeout``: how long a run's next task waits for this worker's cache before
    any worker may take it (lower: faster takeover when a worker dies).
    ``workflows``: your own workflow classes, served by the same worker (they may call the
    effect activities by name: the effect's class name, then the effect and a sequence number).
    ``observer``: an ``agentsm_fn.otel.OtelObserver`` traces the runs (the ``invoke_agent`` span in the
    workflow, the effects' spans where they are performed), in the trace of the client that started
    each run; it needs the Temporal SDK's replay-safe tracer provider as the global one (docs/temporal.md,
    "Traces"; a ``ValueError`` says so otherwise). Without it nothing of OpenTelemetry is imported.
    ``programs``: the ``Durable`` programs whose runs this worker serves as child workflows (a
    ``ChildRun`` or ``Children`` names them ``module:attribute``); their machines are served too,
    with default options unless ``machines`` has them (see :mod:`agentsm_fn.temporal.children`).
    Use it as ``async with machine_worker(...):`` or ``await worker.run()``.
    """
    programs = tuple(programs)
    specs = [as_temporal(m) for m in machines]
    specs += program_machines(programs, specs)
    register_programs(task_queue, programs)
    plugins = []
    if observer is not None:
        from agentsm_fn.temporal.tracing import for_workflow, plugins_for_worker  # noqa: PLC0415  # opt-in

        plugins = plugins_for_worker(client, observer)
        register(task_queue, specs, for_workflow(observer))
    else:
        register(task_queue, specs)
    passed_through = (*passed_through, *machine_modules(specs))
    return Worker(
        client,
        task_queue=task_queue,
        workflows=[MachineWorkflow, *workflows],
        activities=[EffectActivities(performers, max_concurrent_activities, observer).perform],
        workflow_runner=sandbox_runner(*passed_through),
        sticky_queue_schedule_to_start_timeout=timedelta(seconds=sticky_timeout),
        max_concurrent_activities=max_concurrent_activities,
        plugins=plugins,
    )


def machine_replayer(
    machines: Iterable[Registrable[StateT, EventT, MemoryT]],
    *,
    passed_through: Iterable[str] = (),
    programs: Iterable[AnyProgram] = (),
) -> Replayer:
    """A ``Replayer`` for recorded histories of ``machines`` (from any task queue).

    ``await replayer.replay_workflow(history)`` raises on a non-determinism error, and
    when the history's run started on a machine with another fingerprint. ``programs``: the
    child programs the runs start (as for :func:`machine_worker`).
    """
    programs = tuple(programs)
    specs = [as_temporal(m) for m in machines]
    specs += program_machines(programs, specs)
    register_programs(None, programs)
    register(None, specs)
    passed_through = (*passed_through, *machine_modules(specs))
    return Replayer(
        workflows=[MachineWorkflow],
        workflow_runner=sandbox_runner(*passed_through),
        data_converter=data_converter(),
    )
