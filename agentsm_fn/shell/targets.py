"""Import what a command line names: ``MODULE:ATTRIBUTE`` or ``path/to/file.py:ATTRIBUTE``.

``agentsm-verify`` and ``agentsm-runs`` both take machines this way. The current directory
comes first on ``sys.path`` (as pytest does), and a file path is imported as a module from
its own folder, so a file's classes get the module name they have in every other process
(stored values name their classes by module). Importing runs the user's code, which may
raise anything: that becomes a message, never a crash.
"""

from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType

import attrs
from returns.result import Failure, Result, Success

__all__ = ["ImportedTarget", "import_target"]

USAGE = "expected MODULE:ATTRIBUTE, e.g. mypkg.agent:MACHINE"


@attrs.frozen
class ImportedTarget:
    """The object a target names, and the module it was found in."""

    value: object
    module: ModuleType


def import_target(spec: str, passing: tuple[type[Exception], ...] = ()) -> Result[ImportedTarget, str]:
    """Import ``MODULE:ATTRIBUTE`` (the attribute may be dotted), or say why it cannot be.

    An exception of a ``passing`` class raised while importing is raised to the caller (who
    reports it in its own way); any other is the failure's text.

    Example:
        >>> import_target("agentsm_fn.core:emit").unwrap().value.__name__
        'emit'
        >>> import_target("agentsm_fn.core:no_such_name").failure()
        'agentsm_fn.core has no attribute no_such_name'
        >>> import_target("missing-colon").failure()
        'expected MODULE:ATTRIBUTE, e.g. mypkg.agent:MACHINE'
    """
    module_name, sep, attribute = spec.rpartition(":")
    if not sep or not module_name or not attribute:
        return Failure(USAGE)
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    path: str | None = None
    if module_name.endswith(".py"):  # a file path: import it by name from its folder
        if not os.path.isfile(module_name):
            return Failure(f"no such file: {module_name}")
        path = module_name
        folder, _, file_name = os.path.abspath(module_name).rpartition(os.sep)
        if folder not in sys.path:
            sys.path.insert(0, folder)
        module_name = file_name[: -len(".py")]
    try:
        module = importlib.import_module(module_name)
    except BaseException as exc:  # user code at import time may raise anything, even SystemExit
        if isinstance(exc, KeyboardInterrupt) or (passing and isinstance(exc, passing)):
            raise
        missing = isinstance(exc, ModuleNotFoundError) and exc.name == module_name.partition(".")[0]
        hint = " (run from the folder that holds it, or add that folder to PYTHONPATH)" if missing else ""
        return Failure(f"{type(exc).__name__}: {exc}{hint}")
    if path is not None and not _is_file(module, path):  # the name was taken (an earlier file, a library)
        where = getattr(module, "__file__", None) or "a built-in module"
        return Failure(
            f"{path} cannot be imported as {module_name}: that name is already the module at {where} "
            "(rename the file, or name it as MODULE:ATTRIBUTE)"
        )
    value: object = module
    for part in attribute.split("."):
        if not hasattr(value, part):
            return Failure(f"{module_name} has no attribute {attribute}")
        value = getattr(value, part)
    return Success(ImportedTarget(value, module))


def _is_file(module: ModuleType, path: str) -> bool:
    """Whether ``module`` was loaded from the file at ``path``."""
    loaded = getattr(module, "__file__", None)
    return loaded is not None and os.path.realpath(loaded) == os.path.realpath(path)
