"""Child runs with no store: each child runs inline, in this process, as the parent's effect.

:func:`in_process_children` gives the performers of :class:`~agentsm_fn.teams.ChildRun` and
:class:`~agentsm_fn.teams.Children` for a parent run with the plain shell (``run``, ``arun``):
each child is its program's machine run to its end with its program's shell, and its outcome
(:mod:`~agentsm_fn.durable.running.child_programs`) is the effect's. A fan-out runs its
children one after the other (in order; ``limit`` has nothing to bound here); under
``CANCEL_REST`` the children after a failed one are not run and are cancelled. A child that
stops to wait for an answer cannot go on with no store: it is a failed child. A durable parent
(``Durable.start``) stores its children as runs instead (:mod:`agentsm_fn.durable.running.children`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from returns.result import Failure

from agentsm_fn.durable.running.child_programs import (
    AnyProgram,
    by_name,
    ended_outcome,
    failed_outcome,
    load_program,
    start_memory,
)
from agentsm_fn.durable.running.run_ids import child_run_id
from agentsm_fn.shell.keys import effect_key
from agentsm_fn.shell.performers import Performers
from agentsm_fn.shell.run import run
from agentsm_fn.teams.values import (
    ChildCancelled,
    ChildFinished,
    ChildOutcome,
    Children,
    ChildRun,
    Gathered,
    GatherPolicy,
)

__all__ = ["in_process_children", "run_in_process"]


def run_in_process(
    program: str, memory: object, run_id: str, known: Mapping[str, AnyProgram]
) -> ChildOutcome:
    """Run ``program`` from ``memory`` here, to its end; how it ended.

    Example:
        >>> run_in_process("app:GONE", 1, "c", {}).reason[:54]
        'unknown child program app:GONE: ModuleNotFoundError: N'
    """
    loaded = load_program(program, known)
    if isinstance(loaded, Failure):
        return failed_outcome(program, run_id, loaded.failure().describe())
    child = loaded.unwrap()
    start = start_memory(child, memory)
    if isinstance(start, Failure):
        return failed_outcome(child.name, run_id, start.failure())
    result = run(child.machine, start.unwrap(), child.shell())
    if isinstance(result, Failure):
        return failed_outcome(child.name, run_id, result.failure().reason.describe())
    snapshot = result.unwrap()
    if not snapshot.finished:
        waits = "an answer" if snapshot.pending is None else type(snapshot.pending.underlying()).__name__
        return failed_outcome(child.name, run_id, f"it waits for {waits}, which no store keeps in process")
    return ended_outcome(child, run_id, snapshot)


def _ids() -> tuple[str, int]:
    key = effect_key()
    return ("child", 0) if key is None else (key.run_id, key.seq)


def in_process_children(programs: Iterable[AnyProgram] = ()) -> Performers:
    """Performers that run child runs inline, in this process, with no store.

    ``programs`` are the child programs by name; a name not among them is imported
    (``module:attribute``).

    Example:
        >>> import enum
        >>> from agentsm_fn.core import define_machine, emit
        >>> from agentsm_fn.durable import Durable
        >>> class S(enum.Enum):
        ...     GO = 1
        ...     DONE = 2
        >>> class E(enum.Enum):
        ...     END = 1
        >>> machine = define_machine(states=S, events=E, initial=S.GO, terminals={S.DONE},
        ...     table={(S.GO, E.END): S.DONE}, handlers={S.GO: lambda n: emit(E.END, 2 * n)})
        >>> doubler = Durable(name="app:DOUBLE", machine=machine)
        >>> performers = in_process_children([doubler])
        >>> fan = Children(program="app:DOUBLE", memories=(1, 2))
        >>> performers.find(fan)(fan).results
        (2, 4)
    """
    known = by_name(programs)

    def one(effect: ChildRun) -> ChildOutcome:
        parent, seq = _ids()
        return run_in_process(
            effect.program, effect.memory, effect.run_id or child_run_id(parent, seq), known
        )

    def many(effect: Children) -> Gathered:
        parent, seq = _ids()
        outcomes: list[ChildOutcome] = []
        stopped = False
        for index, memory in enumerate(effect.memories):
            run_id = child_run_id(parent, seq, index)
            if stopped:
                outcomes.append(ChildCancelled(run_id=run_id, program=effect.program))
                continue
            outcome = run_in_process(effect.program, memory, run_id, known)
            outcomes.append(outcome)
            stopped = effect.policy is GatherPolicy.CANCEL_REST and not isinstance(outcome, ChildFinished)
        return Gathered(outcomes=tuple(outcomes))

    return Performers().on(ChildRun, one).on(Children, many)
