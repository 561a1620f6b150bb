"""What an evaluator reads: :class:`Evidence`, one finished run of one case, as it was recorded.

Evidence is read from the run store after the run (its record, its final snapshot, its
journal), never from the process that ran it: an evaluator sees exactly what a reader of
the stored run sees, and judging it again later gives the same grade. The run's steps
(:meth:`Evidence.transitions`, the kit's :class:`~verification.kit.Transition` values with the
memory before and after, the effects asked for and the outcomes received) come from
replaying the stored journal, and only when an evaluator asks for them.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

import attrs
from pyrsistent import pmap

from agentsm_fn.llm.json import JsonObject, JsonValue
from agentsm_fn.llm.replies import Usage

if TYPE_CHECKING:
    from verification.kit.invariants import Transition

__all__ = ["Evidence", "Steps"]

Steps = Callable[[], "tuple[Transition[enum.Enum, object], ...]"]
"""How the run's steps are read when an evaluator asks (a replay of the stored journal)."""


def _no_steps() -> tuple[Transition[enum.Enum, object], ...]:
    return ()


def _once(read: Steps) -> Steps:
    return functools.cache(read)


@attrs.frozen(kw_only=True)
class Evidence:
    """One case's recorded run, as an evaluator reads it.

    ``status`` is the stored run's status (``finished``, ``failed``, ``waiting``, ...),
    ``failure`` why it failed (empty when it did not), ``state`` the state it stopped in,
    ``answer`` what the subject answered (read from the final memory), ``usage`` the tokens
    of every LLM reply in its journal and ``seconds`` the time between its first and last
    clock readings.

    Example:
        >>> e = Evidence(case="capital", run_id="r1", status="finished", state="DONE", answer="Paris")
        >>> e.ok, e.transitions()
        (True, ())
    """

    case: str
    run_id: str
    status: str
    state: str
    answer: JsonValue = None
    input: object = None
    expected: JsonValue | None = None
    metadata: JsonObject = attrs.field(factory=pmap)
    failure: str = ""
    steps: int = 0
    usage: Usage = attrs.field(factory=Usage)
    seconds: float = 0.0
    memory: object = None
    read_steps: Steps = attrs.field(default=_no_steps, converter=_once, eq=False, repr=False)

    @property
    def ok(self) -> bool:
        """The run finished without failing."""
        return self.status == "finished" and not self.failure

    def transitions(self) -> tuple[Transition[enum.Enum, object], ...]:
        """The run's steps, replayed from its journal the first time they are asked for."""
        return self.read_steps()
