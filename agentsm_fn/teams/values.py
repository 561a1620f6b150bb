"""The values of a team: the child-run effects a parent asks for, and the outcomes it gets back.

A parent that needs another program's work asks for it as an effect, like any IO:

* :class:`ChildRun`: one child run of a durable program (named ``module:attribute``, as any
  worker loads it) from a start memory; its outcome is a :data:`ChildOutcome`;
* :class:`Children`: N child runs of one program (a map over start memories), at most
  ``limit`` at once; its outcome is one :class:`Gathered`, every child's outcome in the
  order of the memories. :class:`GatherPolicy` says whether the rest go on after a failure.

A :data:`ChildOutcome` is :class:`ChildFinished` (the child's terminal state and result),
:class:`ChildFailed` (its reason, described and redacted) or :class:`ChildCancelled`. A failed
child is an outcome, not a crash: both effects turn their own failures (a performer that
raised, an unknown program) into failed outcomes, so a delegating state needs no
``failure_event``. Both are retry-safe: the child's id derives from the parent's run id and
the effect's journal seq, so asking again after a crash finds the same child.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import ClassVar, TypeAlias

import attrs

from agentsm_fn.core.effect_failures import EffectFailure
from agentsm_fn.core.effects import Effect

__all__ = [
    "ChildCancelled",
    "ChildFailed",
    "ChildFinished",
    "ChildOutcome",
    "ChildRun",
    "Children",
    "GatherPolicy",
    "Gathered",
]


@attrs.frozen(kw_only=True)
class ChildFinished:
    """A child run that reached a terminal state and did not fail.

    ``state`` is the terminal state's name; ``result`` is what the child's program gives
    (its ``Durable.result_of``: a typed result), or its final memory when it names none.

    Example:
        >>> ChildFinished(run_id="p.c3", program="app:CHILD", state="DONE", result=42).result
        42
    """

    run_id: str
    program: str
    state: str
    result: object = None

    def describe(self) -> str:
        """One line: the child and where it ended.

        Example:
            >>> ChildFinished(run_id="c", program="app:C", state="DONE").describe()
            'app:C c finished in DONE'
        """
        return f"{self.program} {self.run_id} finished in {self.state}"


@attrs.frozen(kw_only=True)
class ChildFailed:
    """A child run that failed (or could not be started): ``reason`` says why, with no secrets.

    Example:
        >>> ChildFailed(run_id="c", program="app:C", reason="tool crashed").describe()
        'app:C c failed: tool crashed'
    """

    run_id: str
    program: str
    reason: str

    def describe(self) -> str:
        """One line: the child and why it failed."""
        return f"{self.program} {self.run_id} failed: {self.reason}"


@attrs.frozen(kw_only=True)
class ChildCancelled:
    """A child run that was cancelled before it ended (its parent's policy, or an operator).

    Example:
        >>> ChildCancelled(run_id="c", program="app:C").describe()
        'app:C c was cancelled'
    """

    run_id: str
    program: str

    def describe(self) -> str:
        """One line: the child that was cancelled."""
        return f"{self.program} {self.run_id} was cancelled"


ChildOutcome: TypeAlias = ChildFinished | ChildFailed | ChildCancelled
"""How a child run ended: finished (with its result), failed (with its reason), or cancelled."""

CHILD_OUTCOMES: tuple[type, ...] = (ChildFinished, ChildFailed, ChildCancelled)


class GatherPolicy(enum.Enum):
    """What a fan-out does with its other children once one has failed (or was cancelled).

    Example:
        >>> GatherPolicy("cancel_rest") is GatherPolicy.CANCEL_REST
        True
    """

    GO_ON = "go_on"
    """The other children go on; the parent resumes once every child ended."""
    CANCEL_REST = "cancel_rest"
    """The children not yet ended are cancelled (each gives :class:`ChildCancelled`)."""


@attrs.frozen(kw_only=True)
class Gathered:
    """The outcomes of a fan-out's children, in the order of their start memories.

    Example:
        >>> done = ChildFinished(run_id="c0", program="app:C", state="DONE", result=1)
        >>> gathered = Gathered(outcomes=(done, ChildFailed(run_id="c1", program="app:C", reason="x")))
        >>> gathered.all_finished, gathered.results, len(gathered.failures)
        (False, (1, None), 1)
    """

    outcomes: tuple[ChildOutcome, ...] = ()

    @property
    def all_finished(self) -> bool:
        """Whether every child finished (true of no children at all)."""
        return all(isinstance(outcome, ChildFinished) for outcome in self.outcomes)

    @property
    def results(self) -> tuple[object, ...]:
        """Each child's result, in order (None for a child that did not finish)."""
        return tuple(o.result if isinstance(o, ChildFinished) else None for o in self.outcomes)

    @property
    def failures(self) -> tuple[ChildFailed | ChildCancelled, ...]:
        """The outcomes of the children that did not finish, in order."""
        return tuple(o for o in self.outcomes if not isinstance(o, ChildFinished))


@attrs.frozen(kw_only=True)
class ChildRun(Effect[ChildOutcome]):
    """Effect: run ``program`` from ``memory`` as a child run; its outcome is how the child ended.

    ``program`` is the child ``Durable``'s ``name`` (``module:attribute``); ``run_id`` None
    derives the child's id from the parent's run id and this effect's journal seq (so a
    parent that crashes and asks again finds the same child). When the child cannot be run
    at all (an unknown program, a performer that raised) the outcome is a
    :class:`ChildFailed`, so the delegating state routes it as any failed child.

    Example:
        >>> run = ChildRun(program="app:CHILD", memory={"n": 1})
        >>> run.summary(), run.retry_safe, run.accepts(ChildCancelled(run_id="c", program="app:CHILD"))
        ('ChildRun app:CHILD', True, True)
    """

    outcome_types: ClassVar[tuple[type, ...]] = CHILD_OUTCOMES
    retry_safe = True

    program: str
    memory: object
    run_id: str | None = None

    def outcome_of_failure(self, failure: EffectFailure) -> ChildOutcome:
        """A :class:`ChildFailed` saying what went wrong.

        Example:
            >>> from agentsm_fn.core.effect_failures import EffectFailure
            >>> lost = EffectFailure.unknown("ChildRun")
            >>> ChildRun(program="app:C", memory=0).outcome_of_failure(lost).reason
            'outcome unknown: in flight when the run stopped'
        """
        return ChildFailed(run_id=self.run_id or "", program=self.program, reason=failure.problem())

    def summary(self) -> str:
        """The child's program (never its memory)."""
        return f"ChildRun {self.program}"


def _tupled(memories: Iterable[object]) -> tuple[object, ...]:
    return tuple(memories)


@attrs.frozen(kw_only=True)
class Children(Effect[Gathered]):
    """Effect: run ``program`` once per memory of ``memories``, ``limit`` at a time; gather the outcomes.

    Each child's id derives from the parent's run id, this effect's journal seq and the
    child's index. ``policy`` says whether the rest go on after a child failed. When the
    fan-out cannot run at all, every child's outcome is a :class:`ChildFailed`.

    Example:
        >>> fan = Children(program="app:C", memories=(1, 2, 3), limit=2)
        >>> fan.summary(), fan.policy.name
        ('Children app:C x3 limit=2', 'GO_ON')
    """

    outcome_types: ClassVar[tuple[type, ...]] = (Gathered,)
    retry_safe = True

    program: str
    memories: tuple[object, ...] = attrs.field(converter=_tupled)
    limit: int = attrs.field(default=8)
    policy: GatherPolicy = GatherPolicy.GO_ON

    @limit.validator
    def _positive(self, attribute: attrs.Attribute[int], value: int) -> None:
        if value < 1:
            raise ValueError(f"a fan-out's limit must be at least 1, not {value}")

    def outcome_of_failure(self, failure: EffectFailure) -> Gathered:
        """Every child failed with the failure's reason.

        Example:
            >>> from agentsm_fn.core.effect_failures import EffectFailure
            >>> fan = Children(program="app:C", memories=(1, 2))
            >>> [o.reason[:15] for o in fan.outcome_of_failure(EffectFailure.unknown("Children")).outcomes]
            ['outcome unknown', 'outcome unknown']
        """
        reason = failure.problem()
        return Gathered(
            outcomes=tuple(ChildFailed(run_id="", program=self.program, reason=reason) for _ in self.memories)
        )

    def summary(self) -> str:
        """The program, how many children, how many at once (never their memories)."""
        return f"Children {self.program} x{len(self.memories)} limit={self.limit}"
