"""Re-recording: when a change was meant, run a recording's start again through the live Durable.

:func:`rerecord` starts a new run from the recording's start memory (and start state, for a
run that began mid-way) with the Durable's own performers (its live model, its tools), in a
store of its own (SQLite in memory unless one is given), and records it as
:func:`~agentsm_fn.regression.record_stored` does. The new recording keeps the old one's run id,
so the file's diff shows only what the change did. The command is ``agentsm-runs rerecord FILE``.
"""

from __future__ import annotations

import enum
import uuid
from typing import Any, TypeVar

import attrs
import msgspec
from returns.result import Failure, Result

from agentsm_fn.core.snapshot import Snapshot, Status
from agentsm_fn.durable import Durable, RunStore, SqliteStore, Stopped
from agentsm_fn.regression._compare import Comparer
from agentsm_fn.regression.errors import RecordingInvalid, RecordingProblem, RegressionError
from agentsm_fn.regression.json_form import from_json_form
from agentsm_fn.regression.record import record_stored
from agentsm_fn.regression.values import Recording

__all__ = ["rerecord"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


def rerecord(
    recording: Recording,
    durable: Durable[StateT, EventT, MemoryT],
    store: RunStore | None = None,
    requests: bool = True,
    source: str = "<recording>",
) -> Result[Recording, RegressionError]:
    """Run ``recording``'s start again through ``durable`` (live performers) and record the new run.

    A run that fails or waits for an answer is recorded as it stopped, as any run is.

    Example:
        >>> import enum
        >>> from agentsm_fn.core import begin, define_machine, emit
        >>> from agentsm_fn.durable import Durable
        >>> from agentsm_fn.regression import record_run
        >>> from agentsm_fn.shell import Shell, run
        >>> class S(enum.Enum):
        ...     A = 1
        ...     Z = 2
        >>> class E(enum.Enum):
        ...     GO = 1
        >>> def machine(add: int):
        ...     return define_machine(states=S, events=E, initial=S.A, terminals={S.Z},
        ...                           table={(S.A, E.GO): S.Z}, handlers={S.A: lambda n: emit(E.GO, n + add)})
        >>> start = begin(machine(1), 1)
        >>> old = record_run(machine(1), start, run(machine(1), start, Shell()).unwrap(), "app:M").unwrap()
        >>> new = rerecord(old, Durable(name="app:M", machine=machine(2))).unwrap()
        >>> old.end.memory, new.end.memory
        ('2', '3')
    """
    machine = durable.machine
    state = machine.states.__members__.get(recording.start_state)
    if state is None:
        return Failure(Comparer(recording=recording, source=source, machine_changed=True).missing_start())
    memory = from_json_form(msgspec.json.decode(recording.memory), object)
    if isinstance(memory, Failure):
        failure = memory.failure()
        detail = f"{failure.kind.value}: {failure.detail}"
        field = f"start.memory{failure.path}"
        return Failure(
            RecordingInvalid(source=source, problem=RecordingProblem.VALUE, field=field, detail=detail)
        )
    own = store is None
    used = SqliteStore.open(":memory:").unwrap() if store is None else store
    run_id = f"rerecorded-{uuid.uuid4().hex[:12]}"
    try:
        value: Any = memory.unwrap()
        if recording.start_steps == 0 and state is machine.initial:
            started = durable.start(used, value, run_id)
        else:
            status = Status.FINISHED if state in machine.terminals else Status.READY
            start: Snapshot[Any, Any] = Snapshot(
                state=state, memory=value, status=status, steps=recording.start_steps
            )
            started = durable.start_at(used, start, run_id)
        if isinstance(started, Failure) and not isinstance(started.failure(), Stopped):
            return Failure(started.failure())
        made = record_stored(used, durable, run_id, requests=requests, name=durable.name)
        return made.map(lambda new: attrs.evolve(new, run_id=recording.run_id))
    finally:
        if own:
            used.close()
