"""The plan-and-execute graph as data: its states, its events and its transition table.

The table is exactly the seed's "State Transitions" section::

    INTAKE      --normalized--------------> PLAN
    PLAN        --valid_plan--------------> DECIDE
    PLAN        --invalid_plan------------> HALT
    DECIDE      --continue----------------> EXECUTE
    DECIDE      --stop--------------------> FINALIZE
    DECIDE      --invalid-----------------> HALT
    EXECUTE     --tool_calls_present------> OBSERVE
    EXECUTE     --no_tool_calls-----------> FINALIZE
    EXECUTE     --error-------------------> HALT
    OBSERVE     --observed (always)-------> LOOP_CHECK
    LOOP_CHECK  --continue----------------> EXECUTE    (the only loop)
    LOOP_CHECK  --stop--------------------> FINALIZE
    LOOP_CHECK  --violation---------------> HALT
    DECIDE      --output_invalid----------> CORRECTING   (typed result: a stop gives none)
    EXECUTE     --output_invalid----------> CORRECTING   (typed result: the answer is not one)
    LOOP_CHECK  --output_invalid----------> CORRECTING   (a finish tool's result is not one)
    CORRECTING  --retry_output------------> EXECUTE      (the problems go back to the model)
    CORRECTING  --output_retries_exhausted> HALT

FINALIZE and HALT are terminal. EXECUTE and CORRECTING can be visited more than
once per run: every EXECUTE visit consumes one of ``max_iterations``, every
CORRECTING visit one of ``finalizer.max_output_retries`` (or leaves for HALT).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

__all__ = ["TABLE", "Event", "State"]


class State(enum.Enum):
    """The eight states of the seed (values: the seed's S0..S7 numbers), and CORRECTING (8).

    Example:
        >>> State.EXECUTE.value, State(7).name
        (3, 'HALT')
    """

    INTAKE = 0
    """Normalize the input, initialize the message history."""
    PLAN = 1
    """One structured LLM call produces the plan (never loops)."""
    DECIDE = 2
    """Bounded decision: continue to EXECUTE or stop (rules, or one structured LLM call)."""
    EXECUTE = 3
    """The LLM proposes the next actions (tool calls) or answers; the only looping state."""
    OBSERVE = 4
    """Run the requested tools (the only place tools run) and record the results."""
    LOOP_CHECK = 5
    """Iteration limit, policy, time and budget: loop, stop, or halt."""
    FINALIZE = 6
    """Terminal: the run produced its final result."""
    HALT = 7
    """Terminal: the run aborted; ``memory.error`` says why."""
    CORRECTING = 8
    """A final answer that is not a valid typed result goes back to the model, a bounded number of times."""


class Event(enum.Enum):
    """One event per transition label of the seed.

    Example:
        >>> Event("tool_calls_present")
        <Event.TOOL_CALLS_PRESENT: 'tool_calls_present'>
    """

    NORMALIZED = "normalized"
    VALID_PLAN = "valid_plan"
    INVALID_PLAN = "invalid_plan"
    CONTINUE = "continue"
    STOP = "stop"
    INVALID = "invalid"
    TOOL_CALLS_PRESENT = "tool_calls_present"
    NO_TOOL_CALLS = "no_tool_calls"
    ERROR = "error"
    OBSERVED = "observed"
    VIOLATION = "violation"
    OUTPUT_INVALID = "output_invalid"
    RETRY_OUTPUT = "retry_output"
    OUTPUT_RETRIES_EXHAUSTED = "output_retries_exhausted"


TABLE: Final[Mapping[tuple[State, Event], State]] = MappingProxyType(
    {
        (State.INTAKE, Event.NORMALIZED): State.PLAN,
        (State.PLAN, Event.VALID_PLAN): State.DECIDE,
        (State.PLAN, Event.INVALID_PLAN): State.HALT,
        (State.DECIDE, Event.CONTINUE): State.EXECUTE,
        (State.DECIDE, Event.STOP): State.FINALIZE,
        (State.DECIDE, Event.INVALID): State.HALT,
        (State.EXECUTE, Event.TOOL_CALLS_PRESENT): State.OBSERVE,
        (State.EXECUTE, Event.NO_TOOL_CALLS): State.FINALIZE,
        (State.EXECUTE, Event.ERROR): State.HALT,
        (State.OBSERVE, Event.OBSERVED): State.LOOP_CHECK,
        (State.LOOP_CHECK, Event.CONTINUE): State.EXECUTE,
        (State.LOOP_CHECK, Event.STOP): State.FINALIZE,
        (State.LOOP_CHECK, Event.VIOLATION): State.HALT,
        (State.DECIDE, Event.OUTPUT_INVALID): State.CORRECTING,
        (State.EXECUTE, Event.OUTPUT_INVALID): State.CORRECTING,
        (State.LOOP_CHECK, Event.OUTPUT_INVALID): State.CORRECTING,
        (State.CORRECTING, Event.RETRY_OUTPUT): State.EXECUTE,
        (State.CORRECTING, Event.OUTPUT_RETRIES_EXHAUSTED): State.HALT,
    }
)
"""The transition table, frozen: ``(state, event) -> next state``.

Example:
    >>> TABLE[(State.OBSERVE, Event.OBSERVED)]
    <State.LOOP_CHECK: 5>
"""
