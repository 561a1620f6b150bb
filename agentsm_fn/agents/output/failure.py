"""Why a run gave no typed result: its replies stayed invalid past the agent's budget (one type, every agent).

:class:`OutputInvalidError` is the typed failure reason of the ReAct agent (a run that
reached Error) and of the plan-and-execute agent (a run that reached HALT) alike: the last
invalid reply with every problem, the retries spent, and the agent's last snapshot.
"""

from __future__ import annotations

from typing import Generic, TypeVar

import attrs

from agentsm_fn.agents.output.values import RejectedOutput

__all__ = ["OutputInvalidError"]

SnapshotT = TypeVar("SnapshotT")


@attrs.frozen
class OutputInvalidError(Generic[SnapshotT]):
    """No reply gave a valid typed result within the agent's retries: the last one, and its problems.

    ``snapshot`` is the agent's last snapshot (its memory keeps every rejected reply).

    Example:
        >>> from agentsm_fn.agents.output import OutputProblem
        >>> problem = OutputProblem(path="$", message="'n' is required")
        >>> last = RejectedOutput(step=4, reply="{}", problems=[problem])
        >>> failure = OutputInvalidError[None](last, retries=3)
        >>> failure.reply, failure.describe()
        ('{}', "Output invalid after 3 retries: $: 'n' is required")
    """

    rejected: RejectedOutput
    retries: int
    snapshot: SnapshotT | None = attrs.field(default=None, repr=False)

    @property
    def reply(self) -> str:
        """The last invalid reply's text."""
        return self.rejected.reply

    def describe(self) -> str:
        """One line: how many retries, and every problem of the last reply."""
        return f"Output invalid after {self.retries} retries: {self.rejected.describe()}"
