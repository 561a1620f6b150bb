"""What an agent run gives back: a completed run, or one suspended for a human.

A run is ``Result[ReactCompleted[R] | Suspended, ReactError]``. ``ReactCompleted`` holds the
final snapshot (state Done), its answer, memory and trace, and its ``result``: a value of
the agent's result type ``R`` (the answer's text unless a result type was given). ``Suspended`` holds the
awaiting snapshot; it is a value: ``to_json()`` it, store it, and later
``Suspended.from_json(text)`` and resume it with the human's decision (in this
process or another one).
"""

from __future__ import annotations

from typing import Generic, TypeAlias, overload

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.agents.output.result_type import TEXT, ResultT, ResultType
from agentsm_fn.agents.react import codec
from agentsm_fn.agents.react.effects import AskHuman
from agentsm_fn.agents.react.errors import (
    AgentSnapshot,
    MemoryError,
    ReactError,
    from_error_state,
    from_run_failure,
)
from agentsm_fn.agents.react.memory import AgentMemory, HumanApprovalRequest
from agentsm_fn.agents.react.states import State
from agentsm_fn.core.failures import RunFailed
from agentsm_fn.core.snapshot import Snapshot, Status
from agentsm_fn.core.trace import Trace

__all__ = [
    "AgentOutcome",
    "EngineResult",
    "ReactCompleted",
    "RunResult",
    "Suspended",
    "agent_result",
    "completed",
    "interpret_react",
]


def _snapshot_repr(snap: AgentSnapshot) -> str:
    return f"<{snap.state.name} after {snap.steps} transitions>"


@attrs.frozen
class ReactCompleted(Generic[ResultT]):
    """A run that reached Done: its ``result`` (of the agent's result type), answer, memory and trace.

    Example:
        >>> import attrs
        >>> m = attrs.evolve(AgentMemory.new("t"), final_answer="42")
        >>> done = ReactCompleted(Snapshot(state=State.Done, memory=m, status=Status.FINISHED), "42")
        >>> done.answer, done.result
        ('42', '42')
    """

    snapshot: AgentSnapshot = attrs.field(repr=_snapshot_repr)
    result: ResultT = attrs.field(repr=False)
    """The run's result: the answer's text, or the value of the agent's result type."""

    @property
    def answer(self) -> str:
        """The final answer (the seed's ``run()`` value)."""
        return self.snapshot.memory.final_answer or "[No answer produced]"

    @property
    def state(self) -> State:
        """The state the run ended in (the seed's ``current_state()``)."""
        return self.snapshot.state

    @property
    def memory(self) -> AgentMemory:
        """The final memory."""
        return self.snapshot.memory

    @property
    def trace(self) -> Trace:
        """Every transition and effect request, clock-stamped (``entries``, ``for_state``, ``to_json``)."""
        return self.snapshot.trace


@attrs.frozen
class Suspended:
    """A run paused for a human decision: a value you can store and resume later.

    Example:
        >>> from agentsm_fn.llm.messages import ToolCall
        >>> req = HumanApprovalRequest(step=1, tool_call=ToolCall("c", "rm", {}), reason="r")
        >>> snap = Snapshot(state=State.WaitingForHuman, memory=AgentMemory.new("t"),
        ...                 status=Status.AWAITING, pending=AskHuman(req))
        >>> s = Suspended(snap)
        >>> s.request.tool_call.name, Suspended.from_json(s.to_json()).unwrap() == s
        ('rm', True)
    """

    snapshot: AgentSnapshot = attrs.field(repr=_snapshot_repr)

    @property
    def request(self) -> HumanApprovalRequest | None:
        """The approval the run waits for (None if it waits for another effect)."""
        pending = self.snapshot.pending
        return pending.request if isinstance(pending, AskHuman) else None

    @property
    def state(self) -> State:
        """The state the run is paused in (WaitingForHuman)."""
        return self.snapshot.state

    @property
    def memory(self) -> AgentMemory:
        """The memory at the pause."""
        return self.snapshot.memory

    @property
    def trace(self) -> Trace:
        """The trace so far."""
        return self.snapshot.trace

    def to_json(self) -> str:
        """The whole paused run (memory, trace, journal, pending request) as JSON text."""
        return codec.dumps_snapshot(self.snapshot)

    @classmethod
    def from_json(cls, text: str) -> Result[Suspended, MemoryError]:
        """Rebuild a paused run from :meth:`to_json`; any other text is a ``MemoryError`` value saying why.

        Example:
            >>> Suspended.from_json('{"a": 1}').failure().describe()
            "Memory error: not a stored agent run: unknown tag 'a'"
        """
        match codec.loads_snapshot(text):
            case Success(Snapshot(status=Status.AWAITING, state=State(), memory=AgentMemory()) as snap):
                return Success(cls(snap))
            case Success(Snapshot(status=Status() as status, state=State() as state, memory=AgentMemory())):
                return Failure(_not_stored(f"the run is {status.name} in {state.name}, not paused"))
            case Success(other):
                return Failure(_not_stored(f"it is a stored {type(other).__name__}, not a paused run"))
            case Failure(error):
                return Failure(_not_stored(str(error).removeprefix("codec: ")))
        raise AssertionError("unreachable")  # pragma: no cover


def _not_stored(reason: str) -> MemoryError:
    return MemoryError(f"not a stored agent run: {reason}")


AgentOutcome: TypeAlias = ReactCompleted[ResultT] | Suspended
"""How a run that did not fail ended (``ResultT``: the result's type, text by default)."""

RunResult: TypeAlias = Result[AgentOutcome[ResultT], ReactError]
"""What ``Agent.run`` returns."""


def agent_result(memory: AgentMemory) -> object:
    """What a finished run gives back: its typed result (the value memory keeps), else its answer's text.

    It is what a :class:`~agentsm_fn.durable.Durable` agent passes as ``result``, so the server,
    AG-UI, the inspector and ``agentsm-runs show`` show it.

    Example:
        >>> agent_result(AgentMemory.new("t").evolve(final_answer="Paris."))
        'Paris.'
    """
    return memory.final_answer if memory.output is None else memory.result


def completed(snapshot: AgentSnapshot, output: ResultType[ResultT]) -> ReactCompleted[ResultT]:
    """The completed run of a snapshot in Done, its result read as ``output`` reads it.

    Example:
        >>> m = AgentMemory.new("t").evolve(final_answer="42")
        >>> completed(Snapshot(state=State.Done, memory=m, status=Status.FINISHED), TEXT).result
        '42'
    """
    memory = snapshot.memory
    if output.spec is None:
        return ReactCompleted(snapshot, output.value_of(memory.final_answer or "[No answer produced]"))
    return ReactCompleted(snapshot, output.value_of(memory.result))


EngineResult: TypeAlias = Result[Snapshot[State, AgentMemory], RunFailed[State, AgentMemory]]


@overload
def interpret_react(result: EngineResult) -> RunResult[str]: ...


@overload
def interpret_react(result: EngineResult, output: ResultType[ResultT]) -> RunResult[ResultT]: ...


def interpret_react(
    result: EngineResult, output: ResultType[ResultT] | None = None
) -> RunResult[ResultT] | RunResult[str]:
    """Turn the engine's run result into the agent's: Done (its result read as ``output``), Error, suspended.

    Example:
        >>> snap = Snapshot(state=State.Error, memory=AgentMemory.new("t"), status=Status.FINISHED)
        >>> interpret_react(Success(snap)).failure().describe()
        'Agent failed: Unknown error'
    """
    match result:
        case Success(snap) if snap.status is Status.AWAITING:
            return Success(Suspended(snap))
        case Success(snap) if snap.state is State.Done:
            return Success(completed(snap, TEXT if output is None else output))
        case Success(snap) if snap.state is State.Error or snap.state is State.Refused:
            return Failure(from_error_state(snap))
        case Success(snap):
            return Failure(MemoryError(f"run stopped in non-terminal state {snap.state.name}", snap))
        case Failure(failed):
            return Failure(from_run_failure(failed))
    raise AssertionError("unreachable")  # pragma: no cover
