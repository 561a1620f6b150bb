"""The ReAct agent's states and events (member names are the seed's, so traces read the same).

States::

    Idle -> Planning -> Acting | ParallelActing | WaitingForHuman -> Observing
         -> Reflecting -> Planning ... -> Done | Error   (Done and Error are terminal)
    Planning -> Correcting -> Planning | Error          (a reply that is not a valid result)
    Idle -> Reflecting                                   (a thread's earlier turns over budget)

Guardrails (agentsm_fn.agents.react.guards): a guarding state between the task and Planning,
between a tool-calling reply and its tools, and between the answer and Done; a trip refuses
(Refused, terminal; a refused tool call is observed instead), asks a human (a reviewing state
of its stage, which goes back to the guarding state) or stops (Error)::

    Idle -> GuardingInput -> Planning | Reflecting | ReviewingInput | Refused | Error
    Planning -> GuardingToolCalls -> Acting | ParallelActing | WaitingForHuman | ReviewingToolCalls
                                   | Observing | Error
    Planning -> GuardingOutput -> Done | ReviewingOutput | Refused | Error
    ReviewingInput -> GuardingInput (and likewise for tool calls and the output)
"""

from __future__ import annotations

import enum

__all__ = ["Event", "State"]


class State(enum.Enum):
    """Every state of the ReAct agent.

    Example:
        >>> State.Planning.name, State.Done.is_terminal
        ('Planning', True)
    """

    Idle = "Idle"
    Planning = "Planning"
    Acting = "Acting"
    ParallelActing = "ParallelActing"
    WaitingForHuman = "WaitingForHuman"
    Observing = "Observing"
    Reflecting = "Reflecting"
    Correcting = "Correcting"
    GuardingInput = "GuardingInput"
    GuardingToolCalls = "GuardingToolCalls"
    GuardingOutput = "GuardingOutput"
    ReviewingInput = "ReviewingInput"
    ReviewingToolCalls = "ReviewingToolCalls"
    ReviewingOutput = "ReviewingOutput"
    Done = "Done"
    Error = "Error"
    Refused = "Refused"

    @property
    def is_terminal(self) -> bool:
        """True for Done, Error and Refused: the run stops on arrival."""
        return self in (State.Done, State.Error, State.Refused)

    def as_str(self) -> str:
        """The state's name, as the seed's ``State::as_str``.

        Example:
            >>> State.WaitingForHuman.as_str()
            'WaitingForHuman'
        """
        return self.value


class Event(enum.Enum):
    """Every event a ReAct handler can emit.

    Example:
        >>> Event.LlmToolCall.name
        'LlmToolCall'
    """

    # Lifecycle
    Start = "Start"
    ThreadTooLong = "ThreadTooLong"
    # Planning outcomes
    LlmToolCall = "LlmToolCall"
    LlmParallelToolCalls = "LlmParallelToolCalls"
    LlmFinalAnswer = "LlmFinalAnswer"
    MaxSteps = "MaxSteps"
    BudgetExceeded = "BudgetExceeded"
    LowConfidence = "LowConfidence"
    AnswerTooShort = "AnswerTooShort"
    ToolBlacklisted = "ToolBlacklisted"
    HumanApprovalRequired = "HumanApprovalRequired"
    FatalError = "FatalError"
    # Human in the loop
    HumanApproved = "HumanApproved"
    HumanRejected = "HumanRejected"
    HumanModified = "HumanModified"
    # Acting outcomes
    ToolSuccess = "ToolSuccess"
    ToolFailure = "ToolFailure"
    HandedOff = "HandedOff"
    # Observing outcomes
    Continue = "Continue"
    NeedsReflection = "NeedsReflection"
    # Reflecting outcome
    ReflectDone = "ReflectDone"
    # Typed results: a reply that is not a valid result, and what Correcting decides
    OutputInvalid = "OutputInvalid"
    RetryOutput = "RetryOutput"
    OutputRetriesExhausted = "OutputRetriesExhausted"
    # Guardrails: into a guarding state, through it, and what a trip does
    CheckInput = "CheckInput"
    CheckToolCalls = "CheckToolCalls"
    CheckOutput = "CheckOutput"
    InputAllowed = "InputAllowed"
    OutputAllowed = "OutputAllowed"
    GuardrailRefused = "GuardrailRefused"
    GuardrailEscalated = "GuardrailEscalated"
    GuardrailStopped = "GuardrailStopped"
    GuardrailReviewed = "GuardrailReviewed"
