"""Import a machine or graph named ``MODULE:ATTRIBUTE``; every failure is a :class:`LoadError` value.

The current directory is put first on ``sys.path`` (as pytest does), so a hook
run at a repository root imports that repository's modules. Importing a user's
module runs their code, which may raise anything: that becomes a LoadError
with the exception's type and message, never a crash.
"""

from __future__ import annotations

import enum
import inspect
from types import ModuleType
from typing import cast

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.core.machine import Machine
from agentsm_fn.shell.targets import ImportedTarget, import_target
from agentsm_fn.teams.team import Team
from verification.foreign import read_foreign
from verification.model import MachineGraph, graph_of

__all__ = ["LoadError", "Loaded", "load_machine", "load_model", "load_target"]


@attrs.frozen
class LoadError:
    """A target that could not be loaded, and why.

    Example:
        >>> str(LoadError("pkg:M", "no module named pkg"))
        'cannot load pkg:M: no module named pkg'
    """

    spec: str
    message: str

    def __str__(self) -> str:
        return f"cannot load {self.spec}: {self.message}"


@attrs.frozen
class Loaded:
    """A machine, the spec it was loaded from and the file of its module (for row locations).

    Example:
        >>> load_machine("agentsm_fn.agents.react:REACT_MACHINE").unwrap().machine.name
        'react'
    """

    spec: str
    machine: Machine[enum.Enum, enum.Enum, object]
    """Seen through its bounds: the verifier reads only enums and handlers, never memory."""
    source_file: str | None


def load_machine(spec: str) -> Result[Loaded, LoadError]:
    """Import ``MODULE:ATTRIBUTE`` or ``path/to/file.py:ATTRIBUTE`` and check it is a Machine.

    MODULE is imported with the current directory first on ``sys.path``; a file path
    is imported as a module from its own directory. The attribute may be dotted.

    Example:
        >>> load_machine("no_such_module_here:M").failure().message  # doctest: +ELLIPSIS
        "ModuleNotFoundError: No module named 'no_such_module_here' (run from the folder that holds it, ..."
        >>> load_machine("missing-colon").failure().message
        'expected MODULE:ATTRIBUTE, e.g. mypkg.agent:MACHINE'
    """
    imported = import_target(spec)
    if isinstance(imported, Failure):
        return Failure(LoadError(spec, imported.failure()))
    return _machine(spec, imported.unwrap())


def load_model(spec: str) -> Result[MachineGraph, LoadError]:
    """Import a target and read its graph: an agentsm_fn Machine, or a foreign framework's graph.

    Foreign graphs: a LangGraph ``StateGraph`` (built or compiled), a python-statemachine
    ``StateMachine`` (class or instance) or a transitions ``Machine`` (see
    :mod:`verification.foreign`).

    Example:
        >>> load_model("agentsm_fn.agents.react:REACT_MACHINE").unwrap().framework
        'agentsm_fn'
        >>> load_model("agentsm_fn.core:emit").failure().message  # doctest: +ELLIPSIS
        'emit is a function, not an agentsm_fn Machine (nor a LangGraph, python-statemachine or ...'
    """
    imported = import_target(spec)
    if isinstance(imported, Failure):
        return Failure(LoadError(spec, imported.failure()))
    target = imported.unwrap()
    files = [f for f in (_source_file(target.module),) if f]
    foreign = None if isinstance(target.value, Machine) else read_foreign(target.value, files)
    if isinstance(foreign, MachineGraph):
        return Success(foreign)
    if isinstance(foreign, str):
        return Failure(LoadError(spec, foreign))
    loaded = _machine(spec, target)
    if isinstance(loaded, Failure) and not isinstance(target.value, Machine):
        error = loaded.failure()
        return Failure(attrs.evolve(error, message=error.message + _NOR))
    return loaded.map(lambda found: graph_of(found.machine, files))


def load_target(spec: str) -> Result[MachineGraph | Team, LoadError]:
    """Import a target: a :class:`~agentsm_fn.teams.team.Team` as it is, else what :func:`load_model` reads.

    Example:
        >>> load_target("verification._examples:HANDOFF_LOOP").unwrap().entry
        'triage'
        >>> load_target("verification._examples:ONE_STEP").unwrap().name
        'tiny'
    """
    imported = import_target(spec)
    if isinstance(imported, Failure):
        return Failure(LoadError(spec, imported.failure()))
    value = imported.unwrap().value
    if isinstance(value, Team):
        problems = value.problems()
        return Failure(LoadError(spec, "; ".join(problems))) if problems else Success(value)
    return load_model(spec)


_NOR = " (nor a LangGraph, python-statemachine or transitions graph, nor a Team)"


def _source_file(module: ModuleType) -> str | None:
    try:
        return inspect.getsourcefile(module)
    except TypeError:
        return None


def _machine(spec: str, target: ImportedTarget) -> Result[Loaded, LoadError]:
    value, module = target.value, target.module
    attribute = spec.rpartition(":")[2]
    if not isinstance(value, Machine):
        why = f"{attribute} is a {type(value).__name__}, not an agentsm_fn Machine"
        if isinstance(getattr(value, "machine", None), Machine):  # a Durable: name its machine
            why += f" (verify its machine: {spec}.machine)"
        return Failure(LoadError(spec, why))
    kinds = (value.states, value.events)
    if not all(isinstance(k, type) and issubclass(k, enum.Enum) for k in kinds):
        return Failure(LoadError(spec, "; ".join(value.problems())))
    return Success(Loaded(spec, cast(Machine[enum.Enum, enum.Enum, object], value), _source_file(module)))
