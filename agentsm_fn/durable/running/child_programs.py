"""Child programs: a child's durable program found by name, and how a run of it ended as a child outcome.

A parent names its child's program as ``module:attribute`` (:class:`~agentsm_fn.teams.ChildRun`),
so any process that runs the parent (or the child, on another worker) finds the same program:
:func:`load_program` takes it from the programs a caller passed, else imports it. How a child
run ended is given to its parent as a :data:`~agentsm_fn.teams.ChildOutcome`
(:func:`ended_outcome`, :func:`failed_outcome`): its terminal state and its program's result
(``Durable.result_of``; the final memory when the program names no result), or its failure,
described with no credentials.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeAlias

from returns.result import Failure, Result, Success

from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.durable.child_errors import ChildProgramUnknown
from agentsm_fn.durable.running.program import DurableProgram
from agentsm_fn.shell.credentials import redact_credentials
from agentsm_fn.shell.targets import import_target
from agentsm_fn.teams.turns import StartTurn
from agentsm_fn.teams.values import ChildFailed, ChildFinished, ChildOutcome

__all__ = [
    "AnyProgram",
    "by_name",
    "ended_outcome",
    "failed_outcome",
    "known",
    "load_program",
    "start_memory",
]

AnyProgram: TypeAlias = DurableProgram[Any, Any, Any]
"""A durable program of any states, events and memory (a parent's children are of many kinds)."""


_LOADED: dict[str, AnyProgram] = {}
"""The programs imported by name in this process."""


def known(programs: Iterable[AnyProgram]) -> None:
    """Make ``programs`` found by their names in this process (``Durable(programs=...)``), before any import.

    Example:
        >>> from agentsm_fn.agents.react import REACT_MACHINE
        >>> child = DurableProgram(name="__main__:HELPER", machine=REACT_MACHINE)
        >>> known([child]); load_program("__main__:HELPER", {}).unwrap() is child
        True
    """
    _LOADED.update(by_name(programs))


def by_name(programs: Iterable[AnyProgram]) -> Mapping[str, AnyProgram]:
    """``programs`` by their names."""
    return {program.name: program for program in programs}


def load_program(name: str, known: Mapping[str, AnyProgram]) -> Result[AnyProgram, ChildProgramUnknown]:
    """The program called ``name``: one of ``known``, else imported from ``module:attribute``.

    Example:
        >>> load_program("agentsm_fn.core:emit", {}).failure().describe()
        'unknown child program agentsm_fn.core:emit: it is a function, not a Durable'
        >>> load_program("nowhere", {}).failure().why
        'expected MODULE:ATTRIBUTE, e.g. mypkg.agent:MACHINE'
    """
    found = known.get(name) or _LOADED.get(name)
    if found is not None:
        return Success(found)
    imported = import_target(name)
    if isinstance(imported, Failure):
        return Failure(ChildProgramUnknown(program=name, why=redact_credentials(imported.failure())))
    value = imported.unwrap().value
    if not isinstance(value, DurableProgram):
        return Failure(
            ChildProgramUnknown(program=name, why=f"it is a {type(value).__name__}, not a Durable")
        )
    if value.name != name:
        why = f"it is the Durable named {value.name}, not {name}"
        return Failure(ChildProgramUnknown(program=name, why=why))
    _LOADED[name] = value  # a module's attribute: the same object each time it is imported here
    return Success(value)


def start_memory(program: AnyProgram, memory: object) -> Result[object, str]:
    """A child's start memory: ``memory``, or the new turn a :class:`~agentsm_fn.teams.StartTurn` asks for.

    Example:
        >>> from agentsm_fn.core.machine import Machine
        >>> from agentsm_fn.durable import Durable
        >>> from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory
        >>> child = Durable(name="app:C", machine=REACT_MACHINE, template=AgentMemory.new(""))
        >>> start_memory(child, StartTurn(message="Refund A-17")).unwrap().task
        'Refund A-17'
        >>> start_memory(Durable(name="app:C", machine=REACT_MACHINE), StartTurn(message="x")).failure()
        'app:C starts no turns (give its Durable a template)'
    """
    if not isinstance(memory, StartTurn):
        return Success(memory)
    if program.turns is None:
        return Failure(f"{program.name} starts no turns (give its Durable a template)")
    return Success(program.turns.start(memory.thread, memory.message))


def ended_outcome(program: AnyProgram, run_id: str, snapshot: Snapshot[Any, Any]) -> ChildOutcome:
    """The outcome of a child run of ``program`` that reached a terminal state at ``snapshot``.

    Failed if the program says so (``Durable.failure``), else finished with the program's result
    (its final memory when the program names no result).
    """
    why = None if program.failure is None else program.failure(snapshot)
    if why is not None:
        return failed_outcome(program.name, run_id, why)
    result = snapshot.memory if program.result is None else program.result_of(snapshot)
    return ChildFinished(run_id=run_id, program=program.name, state=snapshot.state.name, result=result)


def failed_outcome(program: str, run_id: str, reason: str) -> ChildFailed:
    """A failed child's outcome; ``reason`` is kept to 500 characters, credentials redacted.

    Example:
        >>> failed_outcome("app:C", "p.c1", "x" * 600).reason[-3:]
        '...'
    """
    text = redact_credentials(reason)
    return ChildFailed(
        run_id=run_id, program=program, reason=text if len(text) <= 500 else text[:497] + "..."
    )
