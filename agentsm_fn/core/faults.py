"""Faults: the typed failures a handler may return instead of a transition.

A handler returns ``Failure(Fault(...))`` when the run cannot go on from its state
in any way the transition table could express (corrupted memory, say). Recoverable
problems are events, not faults. Subclass :class:`Fault` to carry structured parts.
"""

from __future__ import annotations

import attrs

__all__ = ["Fault"]


@attrs.frozen
class Fault:
    """A handler's failure value: what went wrong, in words a user can act on.

    Example:
        >>> Fault("history is empty").message
        'history is empty'
    """

    message: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return self.message
