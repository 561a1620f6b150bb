"""Import a machine named ``MODULE:ATTRIBUTE``; every failure is a :class:`LoadError` value.

The current directory is put first on ``sys.path`` (as pytest does), so a hook
run at a repository root imports that repository's modules. Importing a user's
module runs their code, which may raise anything: that becomes a LoadError
with the exception's type and message, never a crash.
"""

from __future__ import annotations

import enum
import inspect
from typing import cast

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.core.machine import Machine
from agentsm_fn.shell.targets import import_target

__all__ = ["LoadError", "Loaded", "load_machine"]


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
    value, module = imported.unwrap().value, imported.unwrap().module
    attribute = spec.rpartition(":")[2]
    if not isinstance(value, Machine):
        why = f"{attribute} is a {type(value).__name__}, not an agentsm_fn Machine"
        if isinstance(getattr(value, "machine", None), Machine):  # a Durable: name its machine
            why += f" (verify its machine: {spec}.machine)"
        return Failure(LoadError(spec, why))
    kinds = (value.states, value.events)
    if not all(isinstance(k, type) and issubclass(k, enum.Enum) for k in kinds):
        return Failure(LoadError(spec, "; ".join(value.problems())))
    try:
        source = inspect.getsourcefile(module)
    except TypeError:
        source = None
    return Success(Loaded(spec, cast(Machine[enum.Enum, enum.Enum, object], value), source))
