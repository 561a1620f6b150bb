"""The transition table: the only place the ReAct agent's control flow lives.

It is 001's table, plus ``BudgetExceeded`` (token budgets), the ``FatalError``
rows of the states whose handlers guard corrupt memory, the three rows of typed
results (a reply that is not a valid result goes to Correcting, which sends the problems
back or, its own budget spent, ends the run), ``ThreadTooLong`` (a thread's earlier
turns are compressed before the turn's first plan), and the rows of guardrails (a guarding
state before Planning, before the tools and before Done, and a reviewing state for each,
where a human decides on a trip). Each row and why it exists:

==================  ======================  ==================  =============================================
State               Event                   Next                Why
==================  ======================  ==================  =============================================
Idle                Start                   Planning            the run begins
Idle                ThreadTooLong           Reflecting          earlier turns over the thread's context budget
Planning            LlmToolCall             Acting              one tool call, no approval needed
Planning            LlmParallelToolCalls    ParallelActing      several calls and ``parallel_tools`` on
Planning            LlmFinalAnswer          Done                an answer of at least ``min_answer_length``
Planning            MaxSteps                Error               ``step >= max_steps`` before the call
Planning            BudgetExceeded          Error               the token budget is spent before the call
Planning            LowConfidence           Reflecting          confidence below threshold, retries left
Planning            AnswerTooShort          Planning            retry: the answer is too short
Planning            ToolBlacklisted         Planning            retry: the model asked for a banned tool
Planning            HumanApprovalRequired   WaitingForHuman     the call's tool needs approval
Planning            FatalError              Error               the provider failed
Planning            OutputInvalid           Correcting          not a valid result (typed results)
WaitingForHuman     HumanApproved           Acting              run the call as proposed
WaitingForHuman     HumanRejected           Observing           the rejection becomes an observation
WaitingForHuman     HumanModified           Acting              run the call with the human's arguments
WaitingForHuman     FatalError              Error               no pending approval (corrupt memory)
Acting              ToolSuccess             Observing           commit the result
Acting              ToolFailure             Observing           failure is data: commit it too
Acting              FatalError              Error               no current tool call (000 section 4.9)
Acting              HandedOff               Done                a handoff: the receiving agent's answer
ParallelActing      ToolSuccess             Observing           every call of the batch succeeded
ParallelActing      ToolFailure             Observing           some call failed: still data
ParallelActing      FatalError              Error               no pending calls (corrupt memory)
Observing           Continue                Planning            next cycle
Observing           NeedsReflection         Reflecting          ``step`` is a multiple of the reflect period
Reflecting          ReflectDone             Planning            history (or earlier turns) compressed
Correcting          RetryOutput             Planning            retries left: the problems go back
Correcting          OutputRetriesExhausted  Error               ``max_output_retries`` spent: the run fails
Idle                CheckInput              GuardingInput       the agent has input guardrails
GuardingInput       InputAllowed            Planning            every input guardrail passed
GuardingInput       ThreadTooLong           Reflecting          they passed; earlier turns over budget
GuardingInput       GuardrailRefused        Refused             one refused the task: the run ends refused
GuardingInput       GuardrailEscalated      ReviewingInput      one asks a human about the task
GuardingInput       GuardrailStopped        Error               one stops the run
Planning            CheckToolCalls          GuardingToolCalls   tool calls, with tool-call guardrails
GuardingToolCalls   LlmToolCall             Acting              the call passed: run it
GuardingToolCalls   LlmParallelToolCalls    ParallelActing      the calls passed: run them
GuardingToolCalls   HumanApprovalRequired   WaitingForHuman     they passed; the call's tool needs approval
GuardingToolCalls   GuardrailRefused        Observing           the calls are refused: observed as errors
GuardingToolCalls   GuardrailEscalated      ReviewingToolCalls  one asks a human about the calls
GuardingToolCalls   GuardrailStopped        Error               one stops the run
Planning            CheckOutput             GuardingOutput      an answer (a valid result), output guardrails
GuardingOutput      OutputAllowed           Done                every output guardrail passed
GuardingOutput      GuardrailRefused        Refused             one refused the answer: withheld, run refused
GuardingOutput      GuardrailEscalated      ReviewingOutput     one asks a human about the answer
GuardingOutput      GuardrailStopped        Error               one stops the run
ReviewingInput      GuardrailReviewed       GuardingInput       decided: the checks go on, or it refuses
ReviewingToolCalls  GuardrailReviewed       GuardingToolCalls   likewise for the turn's tool calls
ReviewingOutput     GuardrailReviewed       GuardingOutput      likewise for the answer
==================  ======================  ==================  =============================================
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from agentsm_fn.agents.react.states import Event, State

__all__ = ["TRANSITIONS", "is_valid_transition"]

TRANSITIONS: Mapping[tuple[State, Event], State] = MappingProxyType(
    {
        (State.Idle, Event.Start): State.Planning,
        (State.Idle, Event.ThreadTooLong): State.Reflecting,
        (State.Planning, Event.LlmToolCall): State.Acting,
        (State.Planning, Event.LlmParallelToolCalls): State.ParallelActing,
        (State.Planning, Event.LlmFinalAnswer): State.Done,
        (State.Planning, Event.MaxSteps): State.Error,
        (State.Planning, Event.BudgetExceeded): State.Error,
        (State.Planning, Event.LowConfidence): State.Reflecting,
        (State.Planning, Event.AnswerTooShort): State.Planning,
        (State.Planning, Event.ToolBlacklisted): State.Planning,
        (State.Planning, Event.HumanApprovalRequired): State.WaitingForHuman,
        (State.Planning, Event.FatalError): State.Error,
        (State.Planning, Event.OutputInvalid): State.Correcting,
        (State.WaitingForHuman, Event.HumanApproved): State.Acting,
        (State.WaitingForHuman, Event.HumanRejected): State.Observing,
        (State.WaitingForHuman, Event.HumanModified): State.Acting,
        (State.WaitingForHuman, Event.FatalError): State.Error,
        (State.Acting, Event.ToolSuccess): State.Observing,
        (State.Acting, Event.ToolFailure): State.Observing,
        (State.Acting, Event.FatalError): State.Error,
        (State.Acting, Event.HandedOff): State.Done,
        (State.ParallelActing, Event.ToolSuccess): State.Observing,
        (State.ParallelActing, Event.ToolFailure): State.Observing,
        (State.ParallelActing, Event.FatalError): State.Error,
        (State.Observing, Event.Continue): State.Planning,
        (State.Observing, Event.NeedsReflection): State.Reflecting,
        (State.Reflecting, Event.ReflectDone): State.Planning,
        (State.Correcting, Event.RetryOutput): State.Planning,
        (State.Correcting, Event.OutputRetriesExhausted): State.Error,
        (State.Idle, Event.CheckInput): State.GuardingInput,
        (State.GuardingInput, Event.InputAllowed): State.Planning,
        (State.GuardingInput, Event.ThreadTooLong): State.Reflecting,
        (State.GuardingInput, Event.GuardrailRefused): State.Refused,
        (State.GuardingInput, Event.GuardrailEscalated): State.ReviewingInput,
        (State.GuardingInput, Event.GuardrailStopped): State.Error,
        (State.Planning, Event.CheckToolCalls): State.GuardingToolCalls,
        (State.GuardingToolCalls, Event.LlmToolCall): State.Acting,
        (State.GuardingToolCalls, Event.LlmParallelToolCalls): State.ParallelActing,
        (State.GuardingToolCalls, Event.HumanApprovalRequired): State.WaitingForHuman,
        (State.GuardingToolCalls, Event.GuardrailRefused): State.Observing,
        (State.GuardingToolCalls, Event.GuardrailEscalated): State.ReviewingToolCalls,
        (State.GuardingToolCalls, Event.GuardrailStopped): State.Error,
        (State.Planning, Event.CheckOutput): State.GuardingOutput,
        (State.GuardingOutput, Event.OutputAllowed): State.Done,
        (State.GuardingOutput, Event.GuardrailRefused): State.Refused,
        (State.GuardingOutput, Event.GuardrailEscalated): State.ReviewingOutput,
        (State.GuardingOutput, Event.GuardrailStopped): State.Error,
        (State.ReviewingInput, Event.GuardrailReviewed): State.GuardingInput,
        (State.ReviewingToolCalls, Event.GuardrailReviewed): State.GuardingToolCalls,
        (State.ReviewingOutput, Event.GuardrailReviewed): State.GuardingOutput,
    }
)
"""Every legal ``(state, event) -> state``; anything else is an InvalidTransition."""


def is_valid_transition(state: State, event: Event) -> bool:
    """Tell whether ``(state, event)`` has a row.

    Example:
        >>> is_valid_transition(State.Idle, Event.Start), is_valid_transition(State.Done, Event.Start)
        (True, False)
    """
    return (state, event) in TRANSITIONS
