"""Why an agent run (or build) gave no answer: typed failure values, ``ReactError`` (the seed's AgentError).

::

    ReactError
    ├── AgentFailed          the run reached the Error state (memory.error says why)
    ├── OutputInvalidError   it reached Error because no reply gave a valid typed result
    │                        (agents.output's, shared with the plan-and-execute agent)
    ├── GuardrailTripped     a guardrail refused (the run reached Refused) or stopped it (Error)
    ├── InvalidTransitionError    a handler emitted an event with no row for its state
    ├── NoHandlerForState    a non-terminal state has no handler
    ├── SafetyCapExceededError    more transitions than the safety cap
    ├── LlmError             the shell could not perform an LLM call (no provider, it raised)
    ├── ToolEffectError            the shell could not perform a tool effect (no runner, it raised)
    ├── MemoryError          a handler found memory corrupt, raised, or the snapshot was misused
    └── BuildError           the builder is missing something (e.g. no LLM)

Every run failure carries the last good snapshot (memory, trace, journal), so
nothing is lost. (``MemoryError`` keeps the seed's name; it shadows the builtin
only where it is imported by name.)

One idea over 300 lines: the error union and the two translations into it (an engine failure,
a run that ended in Error or Refused), read together.
"""

from __future__ import annotations

from typing import TypeAlias

import attrs

from agentsm_fn.agents.guardrails.values import OnTrip, Trip
from agentsm_fn.agents.output.failure import OutputInvalidError
from agentsm_fn.agents.react.memory import AgentMemory
from agentsm_fn.agents.react.states import Event, State
from agentsm_fn.core import failures as core
from agentsm_fn.core.snapshot import Snapshot

__all__ = [
    "AgentFailed",
    "AgentSnapshot",
    "BuildError",
    "GuardrailTripped",
    "InvalidTransitionError",
    "LlmError",
    "MemoryError",
    "NoHandlerForState",
    "OutputInvalidError",
    "ReactError",
    "SafetyCapExceededError",
    "ToolEffectError",
    "agent_failure",
    "from_error_state",
    "from_run_failure",
]

AgentSnapshot: TypeAlias = Snapshot[State, AgentMemory]


@attrs.frozen
class AgentFailed:
    """The agent reached Error; ``message`` is ``memory.error`` (or "Unknown error").

    Example:
        >>> AgentFailed("Max steps (2) reached").describe()
        'Agent failed: Max steps (2) reached'
    """

    message: str
    snapshot: AgentSnapshot | None = attrs.field(default=None, repr=False)

    def describe(self) -> str:
        """One line, as the seed's Display."""
        return f"Agent failed: {self.message}"


@attrs.frozen
class GuardrailTripped:
    """A guardrail's trip ended the run: it refused (state Refused) or stopped it (Error).

    ``action`` is what was done: ``REFUSE`` (also when a human rejected an ``ASK_HUMAN``
    trip) or ``STOP``; ``message`` is what to tell the user (the guardrail's message).

    Example:
        >>> trip = Trip(guardrail="own", stage="input", on_trip=OnTrip.REFUSE, reason="ACME",
        ...             message="I can only show your own invoices.")
        >>> refused = GuardrailTripped(trip, OnTrip.REFUSE)
        >>> refused.message, refused.describe()
        ('I can only show your own invoices.', 'Refused: guardrail own (input) tripped: ACME')
    """

    trip: Trip
    action: OnTrip
    snapshot: AgentSnapshot | None = attrs.field(default=None, repr=False)

    @property
    def message(self) -> str:
        """What to tell the user."""
        return self.trip.message

    def describe(self) -> str:
        """One line: refused or stopped, the guardrail, its stage and its reason."""
        done = "Refused" if self.action is OnTrip.REFUSE else "Stopped"
        return f"{done}: {self.trip.describe()}"


@attrs.frozen
class InvalidTransitionError:
    """``(from_state, event)`` is not in the transition table.

    Example:
        >>> InvalidTransitionError(State.Done, Event.Start).describe()
        'Invalid transition: Done + Start not in transition table'
    """

    from_state: State
    event: Event
    snapshot: AgentSnapshot | None = attrs.field(default=None, repr=False)

    def describe(self) -> str:
        """One line, as the seed's Display."""
        return f"Invalid transition: {self.from_state.name} + {self.event.name} not in transition table"


@attrs.frozen
class NoHandlerForState:
    """No handler is registered for ``state``.

    Example:
        >>> NoHandlerForState("Planning").describe()
        'No handler registered for state: Planning'
    """

    state: str
    snapshot: AgentSnapshot | None = attrs.field(default=None, repr=False)

    def describe(self) -> str:
        """One line, as the seed's Display."""
        return f"No handler registered for state: {self.state}"


@attrs.frozen
class SafetyCapExceededError:
    """The run took ``iterations`` transitions, the cap, without finishing.

    Example:
        >>> SafetyCapExceededError(77).describe()
        'Safety cap exceeded after 77 iterations'
    """

    iterations: int
    snapshot: AgentSnapshot | None = attrs.field(default=None, repr=False)

    def describe(self) -> str:
        """One line, as the seed's Display."""
        return f"Safety cap exceeded after {self.iterations} iterations"


@attrs.frozen
class LlmError:
    """The LLM effect could not be performed.

    Example:
        >>> LlmError("no provider").describe()
        'LLM caller error: no provider'
    """

    message: str
    snapshot: AgentSnapshot | None = attrs.field(default=None, repr=False)

    def describe(self) -> str:
        """One line, as the seed's Display."""
        return f"LLM caller error: {self.message}"


@attrs.frozen
class ToolEffectError:
    """A tool effect could not be performed (tool failures themselves are observations).

    Example:
        >>> ToolEffectError("runner raised").describe()
        'Tool execution error: runner raised'
    """

    message: str
    snapshot: AgentSnapshot | None = attrs.field(default=None, repr=False)

    def describe(self) -> str:
        """One line, as the seed's Display."""
        return f"Tool execution error: {self.message}"


@attrs.frozen
class MemoryError:
    """Memory is corrupt, a handler raised, or the snapshot was used in the wrong status.

    Example:
        >>> MemoryError("nothing to observe").describe()
        'Memory error: nothing to observe'
    """

    message: str
    snapshot: AgentSnapshot | None = attrs.field(default=None, repr=False)

    def describe(self) -> str:
        """One line, as the seed's Display."""
        return f"Memory error: {self.message}"


@attrs.frozen
class BuildError:
    """The agent cannot be built; ``message`` lists every problem.

    Example:
        >>> BuildError("LLM caller is required").describe()
        'Build error: LLM caller is required'
    """

    message: str

    def describe(self) -> str:
        """One line, as the seed's Display."""
        return f"Build error: {self.message}"


ReactError: TypeAlias = (
    AgentFailed
    | OutputInvalidError[AgentSnapshot]
    | GuardrailTripped
    | InvalidTransitionError
    | NoHandlerForState
    | SafetyCapExceededError
    | LlmError
    | ToolEffectError
    | MemoryError
    | BuildError
)
"""Every way an agent run or build can fail."""


def _is_llm_effect(effect: str) -> bool:
    return effect.startswith("LlmCall")


def from_run_failure(failure: core.RunFailed[State, AgentMemory]) -> ReactError:
    """Translate the engine's failure into the seed's error vocabulary (the one place it happens).

    Example:
        >>> from agentsm_fn.core.snapshot import Snapshot
        >>> snap = Snapshot(state=State.Idle, memory=AgentMemory.new("t"))
        >>> from_run_failure(core.RunFailed(core.MissingHandler(State.Idle), snap)).describe()
        'No handler registered for state: Idle'
    """
    reason, snap = failure.reason, failure.snapshot
    match reason:
        case core.InvalidTransition(state=state, event=event) if isinstance(state, State) and isinstance(
            event, Event
        ):
            return InvalidTransitionError(state, event, snap)
        case core.MissingHandler(state=state):
            return NoHandlerForState(state.name, snap)
        case core.SafetyCapExceeded(steps=steps):
            return SafetyCapExceededError(steps, snap)
        case core.EffectFailed(effect=effect) | core.OutcomeRejected(effect=effect):
            if _is_llm_effect(effect):
                return LlmError(reason.describe(), snap)
            return ToolEffectError(reason.describe(), snap)
        case _:
            return MemoryError(reason.describe(), snap)


def from_error_state(
    snapshot: AgentSnapshot,
) -> AgentFailed | OutputInvalidError[AgentSnapshot] | GuardrailTripped:
    """The failure of a run that reached Error or Refused (its retries spent, a guardrail's trip, or else).

    Example:
        >>> from agentsm_fn.core.snapshot import Snapshot
        >>> from_error_state(Snapshot(state=State.Error, memory=AgentMemory.new("t"))).message
        'Unknown error'
    """
    memory = snapshot.memory
    last = memory.guardrail_checks[-1] if memory.guardrail_checks else None
    if last is not None and last.trip is not None and not last.passed:
        # Refused is reached only by a refusal; Error by a stop right after its trip. (A refused
        # tool call is observed and the run goes on: its later MaxSteps, say, is no trip's.)
        if snapshot.state is State.Refused:
            return GuardrailTripped(last.trip, OnTrip.REFUSE, snapshot)
        if last.trip.on_trip is OnTrip.STOP:
            return GuardrailTripped(last.trip, OnTrip.STOP, snapshot)
    # Correcting counts a retry for every rejection it sent back; one more rejection than
    # retries is the one whose budget was spent (a later MaxSteps leaves them equal).
    if len(memory.rejected_outputs) > memory.output_retries:
        return OutputInvalidError(memory.rejected_outputs[-1], memory.output_retries, snapshot)
    return AgentFailed(memory.error or "Unknown error", snapshot)


def agent_failure(snapshot: AgentSnapshot) -> str | None:
    """Why a finished run failed: its failure if it ended in Error or Refused, None if in Done.

    It is what a :class:`~agentsm_fn.durable.Durable` agent passes as ``failure``, so a run that
    ended in Error is stored as failed, with this reason.

    Example:
        >>> from agentsm_fn.core.snapshot import Snapshot
        >>> agent_failure(Snapshot(state=State.Error, memory=AgentMemory.new("t")))
        'Agent failed: Unknown error'
        >>> agent_failure(Snapshot(state=State.Done, memory=AgentMemory.new("t"))) is None
        True
    """
    ended = snapshot.state is State.Error or snapshot.state is State.Refused
    return from_error_state(snapshot).describe() if ended else None
