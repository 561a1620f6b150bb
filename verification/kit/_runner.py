"""One checked run: the engine's steps plus every rule the kit checks after each of them.

:class:`CheckedRun` is shared by the derived Hypothesis state machine (outcomes
drawn by Hypothesis) and the deterministic covering-path suite (outcomes from a
script). After every transition it checks, in this order (:class:`~verification.kit._rules.RunRules`):
the event is declared by the source handler; it has a row; every memory and transition
invariant; every run property; the step bound; then the trace is append-only, and when the
run ends, that no run property waits for a response. A broken rule raises :class:`RunViolation`, an
``AssertionError`` whose message is the run so far, one ``STATE --EVENT--> STATE``
line per transition with the outcomes fed to take it.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Generic, TypeVar

import attrs
from returns.result import Failure

from agentsm_fn.core.effects import Effect
from agentsm_fn.core.engine import step
from agentsm_fn.core.failures import InvalidTransition, RunFailed
from agentsm_fn.core.snapshot import Snapshot, Status
from verification.kit._drive import Moved, advance
from verification.kit._render import short
from verification.kit._rules import RunRules, ViolationKind
from verification.kit.coverage import CoverageRecorder
from verification.kit.run_properties import begin_all

__all__ = ["CheckedRun", "PathStep", "RunRules", "RunViolation", "ViolationKind"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


@attrs.frozen(kw_only=True)
class PathStep:
    """One line of a counterexample: a transition and the outcomes fed to take it.

    Example:
        >>> PathStep(index=2, source="PLANNING", event="FINAL", target="DONE",
        ...          outcomes=("LlmReply(content='hi')",)).render()
        "2. PLANNING --FINAL--> DONE  <= LlmReply(content='hi')"
    """

    index: int
    source: str
    event: str
    target: str
    outcomes: tuple[str, ...] = ()

    def render(self) -> str:
        """``n. SOURCE --EVENT--> TARGET  <= outcome, ...``."""
        fed = f"  <= {'; '.join(self.outcomes)}" if self.outcomes else ""
        return f"{self.index}. {self.source} --{self.event}--> {self.target}{fed}"


class RunViolation(AssertionError):
    """A generated run broke a rule; ``path`` is the run up to and including the bad step."""

    def __init__(self, kind: ViolationKind, message: str, start: str, path: tuple[PathStep, ...]) -> None:
        self.kind = kind
        self.path = path
        lines = [f"[{kind}] {message}", f"run from memory {start}:"]
        lines += [f"  {p.render()}" for p in path] or ["  (no transition yet)"]
        super().__init__("\n".join(lines))


class CheckedRun(Generic[StateT, EventT, MemoryT]):
    """A run in progress; :meth:`take` advances it one transition and checks every rule.

    Mutable by design (it is the state of one Hypothesis run or one scripted case).

    Example:
        >>> from verification.kit._demo import COUNTER, Tally
        >>> run = CheckedRun(RunRules.of(COUNTER), COUNTER.initial, Tally(limit=1))
        >>> while run.live:
        ...     _ = run.take(lambda effect: 4)
        >>> [p.event for p in run.path], run.snapshot.state.name
        (['START', 'ROLLED', 'ENOUGH'], 'DONE')
    """

    def __init__(
        self,
        rules: RunRules[StateT, EventT, MemoryT],
        state: StateT,
        memory: MemoryT,
        coverage: CoverageRecorder[StateT, EventT, MemoryT] | None = None,
    ) -> None:
        machine = rules.machine
        self.rules = rules
        self.coverage = coverage
        status = Status.FINISHED if state in machine.terminals else Status.READY
        self.snapshot: Snapshot[StateT, MemoryT] = Snapshot(state=state, memory=memory, status=status)
        self.live = not self.snapshot.finished
        self.path: list[PathStep] = []
        self.rows: list[tuple[StateT, EventT, StateT]] = []
        where = "" if state is machine.initial else f" in {state.name}"
        self.start = short(memory, 600) + where
        self.limit = rules.limit_for(state, memory)
        self.monitors = begin_all(rules.properties, memory)
        if coverage is not None:
            coverage.start(state)
        broken = rules.judge_start(memory)
        if broken is not None:
            raise self.fail(*broken)

    def fail(self, kind: ViolationKind, message: str) -> RunViolation:
        """A :class:`RunViolation` carrying this run's path."""
        return RunViolation(kind, message, self.start, tuple(self.path))

    def take(self, choose: Callable[[Effect[object]], object]) -> tuple[StateT, EventT, StateT] | None:
        """Take one transition (``choose`` supplies outcomes); the row, or None if the run ended."""
        rules = self.rules
        before = self.snapshot
        moved = advance(rules.machine, before, choose, rules.max_effects)
        fed = tuple(short(o) for o in moved.outcomes)
        if not isinstance(moved, Moved):
            self._stopped(moved.failure, fed)
            return None
        source, event, target = moved.row
        self.path.append(
            PathStep(
                index=len(self.path) + 1,
                source=source.name,
                event=event.name,
                target=target.name,
                outcomes=fed,
            )
        )
        if self.coverage is not None:
            self.coverage.took(moved.row, self.rows[-1] if self.rows else None)
        self.rows.append(moved.row)
        self.snapshot = moved.snapshot
        self.live = not moved.snapshot.finished
        self._check(before, moved)
        if not self.live:
            self._ended()
        return moved.row

    def _ended(self) -> None:
        broken = self.rules.judge_end(self.monitors)
        if broken is not None:
            raise self.fail(*broken)

    def _stopped(self, failure: RunFailed[StateT, MemoryT] | None, fed: tuple[str, ...]) -> None:
        if failure is not None and isinstance(failure.reason, InvalidTransition):
            reason = failure.reason
            self.path.append(
                PathStep(
                    index=len(self.path) + 1,
                    source=reason.state.name,
                    event=reason.event.name,
                    target="<no row>",
                    outcomes=fed,
                )
            )
        broken = self.rules.judge_stop(failure, fed)
        if broken is not None:
            raise self.fail(*broken)
        assert failure is not None  # judge_stop accepts only a failure
        self.snapshot, self.live = failure.snapshot, False
        self._ended()

    def _check(self, before: Snapshot[StateT, MemoryT], moved: Moved[StateT, EventT, MemoryT]) -> None:
        self.monitors, broken = self.rules.judge(before.memory, moved, self.limit, self.monitors)
        if broken is not None:
            raise self.fail(*broken)
        if moved.snapshot.trace.rows[: len(before.trace)] != before.trace.rows:
            raise self.fail("trace", "the trace lost or rewrote an entry (it must be append-only)")

    def close(self) -> None:
        """At a terminal state: check that stepping it again changes nothing."""
        if self.snapshot.finished:
            again = step(self.rules.machine, self.snapshot, 0.0)
            if not (isinstance(again, Failure) and again.failure().snapshot.memory == self.snapshot.memory):
                raise self.fail("terminal", f"stepping terminal {self.snapshot.state.name} changed the run")
