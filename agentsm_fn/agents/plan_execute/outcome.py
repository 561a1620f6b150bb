"""What a finished run means to its caller: the final result or a typed error, with the FSM to inspect.

The errors of a plan-and-execute run::

    PlanExecuteError
    ├── ExecutionError          the FSM reached HALT (invalid plan, invalid decision,
    │                           provider or tool failure, policy violation, timeout)
    ├── MaxIterationsExceeded   the FSM reached HALT because max_iterations ran out
    ├── OutputInvalidError      it reached HALT because no answer gave a valid typed result
    │                           (agents.output's, the ReAct agent's too: the last reply kept)
    └── EngineFailed            the engine stopped before a terminal state (a missing
                                performer, a handler bug, a suspended effect, ...)

Every value carries :class:`Fsm`, a read-only view of the last snapshot: the state
reached, the FSM history (the seed's ``agent.fsm.history``), the audit log, the
engine trace and the journal (for :func:`agentsm_fn.core.engine.replay`).
"""

from __future__ import annotations

from typing import Generic, TypeAlias, overload

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.agents.output.failure import OutputInvalidError
from agentsm_fn.agents.output.result_type import TEXT, ResultT, ResultType
from agentsm_fn.agents.plan_execute.graph import State
from agentsm_fn.agents.plan_execute.memory import PlanExecuteMemory
from agentsm_fn.agents.plan_execute.values import (
    AuditEntry,
    FinalResult,
    FsmTransition,
    HaltCause,
    HaltError,
)
from agentsm_fn.core.failures import RunFailed
from agentsm_fn.core.journal import Journal
from agentsm_fn.core.snapshot import Snapshot, Status
from agentsm_fn.core.trace import Trace
from agentsm_fn.llm.replies import Usage

__all__ = [
    "EngineFailed",
    "ExecutionError",
    "Fsm",
    "MaxIterationsExceeded",
    "PlanExecuteCompleted",
    "PlanExecuteError",
    "PlanExecuteOutcome",
    "interpret_plan_execute",
    "plan_execute_failure",
    "plan_execute_result",
]

PlanSnapshot: TypeAlias = Snapshot[State, PlanExecuteMemory]


@attrs.frozen
class Fsm:
    """A read-only view of a run's last snapshot (the seed's ``agent.fsm``).

    Example:
        >>> fsm = Fsm(Snapshot(state=State.HALT, memory=PlanExecuteMemory(input="x"), status=Status.FINISHED))
        >>> fsm.state_name, fsm.terminal, fsm.history
        ('HALT', True, ())
    """

    snapshot: PlanSnapshot

    @property
    def state(self) -> State:
        """The state the run is in."""
        return self.snapshot.state

    @property
    def state_name(self) -> str:
        """The state's name, e.g. ``"FINALIZE"``."""
        return self.snapshot.state.name

    @property
    def terminal(self) -> bool:
        """True when the run reached FINALIZE or HALT."""
        return self.snapshot.status is Status.FINISHED

    @property
    def memory(self) -> PlanExecuteMemory:
        """The run's memory."""
        return self.snapshot.memory

    @property
    def history(self) -> tuple[FsmTransition, ...]:
        """Every transition, ``{from, to, reason, iteration}`` (see ``FsmTransition.as_dict``)."""
        return tuple(self.snapshot.memory.history)

    @property
    def audit_log(self) -> tuple[AuditEntry, ...]:
        """The audit log: plan, decision, tool calls, tools run, violations, the end."""
        return tuple(self.snapshot.memory.audit_log)

    @property
    def trace(self) -> Trace:
        """The engine trace (timestamps from the shell's clock)."""
        return self.snapshot.trace

    @property
    def journal(self) -> Journal:
        """Every outcome the run consumed, for replay."""
        return self.snapshot.journal

    @property
    def usage(self) -> Usage:
        """Tokens used by every LLM call of the run."""
        return self.snapshot.memory.usage


@attrs.frozen
class PlanExecuteCompleted(Generic[ResultT]):
    """A run that reached FINALIZE: its ``result`` (the seed's :class:`FinalResult`) and typed ``value``.

    ``value`` is of the agent's result type (the answer's text unless one was given, see
    ``AgentFSM.result_type``): the ReAct agent's ``ReactCompleted.result``.

    Example:
        >>> mem = PlanExecuteMemory(input="x", final_result=FinalResult(content="hi", iterations=1,
        ...                         stopped_by="no_tool_calls"))
        >>> fsm = Fsm(Snapshot(state=State.FINALIZE, memory=mem))
        >>> done = PlanExecuteCompleted(mem.final_result, fsm, "hi")
        >>> done.result.done, done.fsm.state_name, done.value
        (True, 'FINALIZE', 'hi')
    """

    result: FinalResult
    fsm: Fsm
    value: ResultT = attrs.field(repr=False)


@attrs.frozen
class ExecutionError:
    """The FSM halted; ``error`` says why (cause, state, message).

    Example:
        >>> err = HaltError(cause=HaltCause.INVALID_PLAN, state=State.PLAN, message="not JSON")
        >>> fsm = Fsm(Snapshot(state=State.HALT, memory=PlanExecuteMemory(input="x")))
        >>> ExecutionError(err, fsm).describe()
        'invalid_plan in PLAN: not JSON'
    """

    error: HaltError
    fsm: Fsm

    @property
    def cause(self) -> HaltCause:
        """Why the run halted."""
        return self.error.cause

    def describe(self) -> str:
        """One line for logs and reports."""
        return self.error.describe()


@attrs.frozen
class MaxIterationsExceeded:
    """The FSM halted because every one of ``max_iterations`` EXECUTE visits was used.

    Example:
        >>> mem = PlanExecuteMemory(input="x", max_iterations=3, iteration=3)
        >>> MaxIterationsExceeded(3, Fsm(Snapshot(state=State.HALT, memory=mem))).describe()
        'max iterations exceeded: 3 of 3 EXECUTE iterations used'
    """

    max_iterations: int
    fsm: Fsm

    def describe(self) -> str:
        """One line for logs and reports."""
        used = self.fsm.memory.iteration
        return f"max iterations exceeded: {used} of {self.max_iterations} EXECUTE iterations used"


@attrs.frozen
class EngineFailed:
    """The engine stopped before a terminal state; ``message`` says why, ``fsm`` keeps the last snapshot.

    Example:
        >>> EngineFailed("no performer", Fsm(Snapshot(state=State.PLAN, memory=PlanExecuteMemory(input="x"))))
        EngineFailed(message='no performer', fsm=...)
    """

    message: str
    fsm: Fsm = attrs.field(repr=lambda _: "...")

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"the run stopped in {self.fsm.state_name}: {self.message}"


PlanExecuteError: TypeAlias = (
    ExecutionError | MaxIterationsExceeded | OutputInvalidError[PlanSnapshot] | EngineFailed
)
"""Every way a plan-and-execute run can fail."""

PlanExecuteOutcome: TypeAlias = Result[PlanExecuteCompleted[ResultT], PlanExecuteError]
"""What a run of the agent gives (``ResultT``: its result's type, text by default)."""


def _from_snapshot(snapshot: PlanSnapshot, output: ResultType[ResultT]) -> PlanExecuteOutcome[ResultT]:
    fsm = Fsm(snapshot)
    mem = snapshot.memory
    if snapshot.status is Status.AWAITING:
        pending = snapshot.pending.summary() if snapshot.pending is not None else "an effect"
        return Failure(EngineFailed(f"suspended while awaiting {pending}", fsm))
    if snapshot.state is State.FINALIZE and mem.final_result is not None:
        value = output.value_of(mem.final_result.answer if output.spec is None else mem.result)
        return Success(PlanExecuteCompleted(mem.final_result, fsm, value))
    if snapshot.state is State.HALT and mem.error is not None:
        if mem.error.cause is HaltCause.MAX_ITERATIONS:
            return Failure(MaxIterationsExceeded(mem.max_iterations, fsm))
        if mem.error.cause is HaltCause.OUTPUT_INVALID and mem.rejected_outputs:
            return Failure(OutputInvalidError(mem.rejected_outputs[-1], mem.output_retries, snapshot))
        return Failure(ExecutionError(mem.error, fsm))
    return Failure(EngineFailed(f"the run is {snapshot.status.value} in {snapshot.state.name}", fsm))


def plan_execute_failure(snapshot: PlanSnapshot) -> str | None:
    """Why a finished run failed: its :class:`HaltError` if it ended in HALT, None if in FINALIZE.

    It is what a :class:`~agentsm_fn.durable.Durable` of this agent passes as ``failure``, so a
    run that halted is stored as failed, with this reason.

    Example:
        >>> err = HaltError(cause=HaltCause.INVALID_PLAN, state=State.PLAN, message="not JSON")
        >>> plan_execute_failure(Snapshot(state=State.HALT, memory=PlanExecuteMemory(input="x", error=err)))
        'invalid_plan in PLAN: not JSON'
        >>> plan_execute_failure(Snapshot(state=State.FINALIZE, memory=PlanExecuteMemory(input="x"))) is None
        True
    """
    if snapshot.state is not State.HALT:
        return None
    error = snapshot.memory.error
    return "halted: no error recorded" if error is None else error.describe()


def plan_execute_result(memory: PlanExecuteMemory) -> object:
    """What a finished run gives back: its typed result (the value memory keeps), else its answer's text.

    It is what a :class:`~agentsm_fn.durable.Durable` of this agent passes as ``result`` (as the
    ReAct agent's :func:`~agentsm_fn.agents.react.agent_result`), so the server, AG-UI, the
    inspector and ``agentsm-runs show`` show it.

    Example:
        >>> done = FinalResult(content="Prawn.", iterations=1, stopped_by="no_tool_calls")
        >>> plan_execute_result(PlanExecuteMemory(input="x", final_result=done))
        'Prawn.'
    """
    if memory.output is not None:
        return memory.result
    return None if memory.final_result is None else memory.final_result.answer


_EngineResult: TypeAlias = Result[PlanSnapshot, RunFailed[State, PlanExecuteMemory]]


@overload
def interpret_plan_execute(result: _EngineResult) -> PlanExecuteOutcome[str]: ...


@overload
def interpret_plan_execute(
    result: _EngineResult, output: ResultType[ResultT]
) -> PlanExecuteOutcome[ResultT]: ...


def interpret_plan_execute(
    result: _EngineResult, output: ResultType[ResultT] | None = None
) -> PlanExecuteOutcome[ResultT] | PlanExecuteOutcome[str]:
    """Turn the engine's result into the agent's: the final result (its value read as ``output``) or an error.

    Example:
        >>> from returns.result import Success
        >>> err = HaltError(cause=HaltCause.MAX_ITERATIONS, state=State.LOOP_CHECK, message="3 used")
        >>> mem = PlanExecuteMemory(input="x", max_iterations=3, error=err)
        >>> snap = Snapshot(state=State.HALT, memory=mem, status=Status.FINISHED)
        >>> type(interpret_plan_execute(Success(snap)).failure()).__name__
        'MaxIterationsExceeded'
    """
    match result:
        case Success(snapshot):
            return _from_snapshot(snapshot, TEXT) if output is None else _from_snapshot(snapshot, output)
        case Failure(failed):
            return Failure(EngineFailed(failed.describe(), Fsm(failed.snapshot)))
    raise AssertionError("unreachable: a Result is Success or Failure")  # pragma: no cover
