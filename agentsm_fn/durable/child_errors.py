"""What can go wrong with a child run: typed values, never exceptions.

::

    ChildError
    ├── DurableError          anything a durable run can fail with (the child's run, the parent's)
    ├── ChildProgramUnknown   the program a parent names cannot be loaded here (``module:attribute``)
    ├── ChildMachineChanged   the stored child run was made by a machine with another fingerprint
    └── ChildOutcomeCorrupt   a child's stored outcome does not decode to a child outcome

A parent never crashes on them: the child's outcome is a
:class:`~agentsm_fn.teams.ChildFailed` whose reason is the error's description.
"""

from __future__ import annotations

from typing import TypeAlias

import attrs

from agentsm_fn.durable.errors import DurableError

__all__ = ["ChildError", "ChildMachineChanged", "ChildOutcomeCorrupt", "ChildProgramUnknown"]


@attrs.frozen(kw_only=True)
class ChildProgramUnknown:
    """The child program a parent names cannot be loaded in this process.

    Example:
        >>> ChildProgramUnknown(program="app:GONE", why="app has no attribute GONE").describe()
        'unknown child program app:GONE: app has no attribute GONE'
    """

    program: str
    why: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"unknown child program {self.program}: {self.why}"


@attrs.frozen(kw_only=True)
class ChildMachineChanged:
    """The stored child run was made by a machine with another fingerprint than the program's now.

    Example:
        >>> ChildMachineChanged(run_id="p.c1", program="app:C", stored="ab12", current="cd34").describe()
        'child run p.c1 of app:C: machine changed (stored fingerprint ab12, now cd34)'
    """

    run_id: str
    program: str
    stored: str
    current: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return (
            f"child run {self.run_id} of {self.program}: machine changed "
            f"(stored fingerprint {self.stored[:12]}, now {self.current[:12]})"
        )


@attrs.frozen(kw_only=True)
class ChildOutcomeCorrupt:
    """A child's stored outcome does not decode to a child outcome.

    Example:
        >>> ChildOutcomeCorrupt(run_id="p.c1", detail="not a payload").describe()
        'child run p.c1: stored outcome is corrupt: not a payload'
    """

    run_id: str
    detail: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"child run {self.run_id}: stored outcome is corrupt: {self.detail}"


ChildError: TypeAlias = DurableError | ChildProgramUnknown | ChildMachineChanged | ChildOutcomeCorrupt
"""Every way running a child can fail (see the tree in the module docstring)."""
