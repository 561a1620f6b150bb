"""The frozen memory of a plan-and-execute run: everything the handlers read and write.

Long-growing parts (messages, observations, audit log, FSM history) are
persistent vectors, so each step appends in O(log n) and a long run never copies
quadratically. The configuration travels in memory, so every handler is a pure
function of memory alone and the machine is a constant.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Self

import attrs
from pyrsistent import PVector, pvector

from agentsm_fn.agents.output.values import OutputSpec, RejectedOutput
from agentsm_fn.agents.plan_execute.config import PlanExecuteConfig
from agentsm_fn.agents.plan_execute.policy import PolicyViolation
from agentsm_fn.agents.plan_execute.values import (
    AuditEntry,
    FinalResult,
    FsmTransition,
    HaltError,
    Observation,
    Plan,
    PlanDecision,
)
from agentsm_fn.llm.conversation import Conversation, ConversationMessage
from agentsm_fn.llm.messages import AssistantMessage, Message, ToolCall, ToolResultMessage, UserMessage
from agentsm_fn.llm.replies import Usage

__all__ = [
    "DEFAULT_MAX_ITERATIONS",
    "Awaiting",
    "PlanExecuteMemory",
    "plan_execute_thread_so_far",
    "plan_execute_turn_messages",
]

DEFAULT_MAX_ITERATIONS = 20
"""The seed's ``max_iterations: 20``."""


class Awaiting(enum.Enum):
    """Which effect's outcome the current state waits for (a state may request several kinds).

    Example:
        >>> Awaiting.SUMMARY.value
        'summary'
    """

    NOTHING = "nothing"
    CLOCK = "clock"
    PLAN = "plan"
    DECISION = "decision"
    CHAT = "chat"
    TOOLS = "tools"
    SUMMARY = "summary"
    COMPRESSION = "compression"
    STEP = "step"
    """A step agent's child run (:mod:`agentsm_fn.agents.plan_execute.steps`)."""


def _max_iterations(_instance: object, _attribute: object, value: object) -> None:
    if type(value) is not int or value < 0:
        raise ValueError(f"max_iterations must be an int >= 0, got {value!r}")


def _rejected(value: Iterable[RejectedOutput]) -> tuple[RejectedOutput, ...]:
    return tuple(value)


def _tuple_calls(value: Iterable[ToolCall]) -> tuple[ToolCall, ...]:
    return tuple(value)


@attrs.frozen(kw_only=True)
class PlanExecuteMemory:
    """The memory of one run. Build it with the input and a config; the handlers fill the rest.

    Example:
        >>> mem = PlanExecuteMemory(input="  Find the best PDF library  ")
        >>> mem.max_iterations, mem.iteration, len(mem.messages), mem.goal
        (20, 0, 0, '  Find the best PDF library  ')
    """

    input: str
    config: PlanExecuteConfig = attrs.field(factory=PlanExecuteConfig)
    max_iterations: int = attrs.field(default=DEFAULT_MAX_ITERATIONS, validator=_max_iterations)
    started_at: float | None = None
    """A clock reading at the start (set by INTAKE when the policy has a time limit)."""

    normalized_input: str = ""
    plan: Plan | None = None
    decision: PlanDecision | None = None
    messages: PVector[Message] = attrs.field(factory=pvector)
    """The chat history of EXECUTE: user input, assistant turns with tool calls, tool results."""
    pending_tool_calls: tuple[ToolCall, ...] = attrs.field(default=(), converter=_tuple_calls)
    observations: PVector[Observation] = attrs.field(factory=pvector)
    iteration: int = 0
    """EXECUTE visits so far (LLM chat calls of the loop)."""
    tool_calls_made: int = 0
    violation: PolicyViolation | None = None
    """A problem OBSERVE found (policy or tool failure); LOOP_CHECK halts on it."""
    final_result: FinalResult | None = None
    error: HaltError | None = None
    audit_log: PVector[AuditEntry] = attrs.field(factory=pvector)
    history: PVector[FsmTransition] = attrs.field(factory=pvector)
    usage: Usage = attrs.field(factory=Usage)
    awaiting: Awaiting = Awaiting.NOTHING
    conversation: Conversation = attrs.field(factory=Conversation)
    """A thread's earlier turns, the planner's context (empty for a run that is no thread's turn)."""
    output: OutputSpec | None = None
    """The typed result asked for (name, JSON Schema), None for text: set when the memory is made."""
    result: object = None
    """The valid typed result (frozen JSON; the agent reads it as its class), set on the way to FINALIZE."""
    rejected_outputs: tuple[RejectedOutput, ...] = attrs.field(default=(), converter=_rejected)
    """Every final answer that was not a valid typed result, with its problems."""
    output_retries: int = 0
    """CORRECTING's budget counter."""

    @property
    def goal(self) -> str:
        """The plan's goal once planned, else the normalized input (the raw input before INTAKE)."""
        if self.plan is not None and self.plan.goal:
            return self.plan.goal
        return self.normalized_input or self.input

    def start_turn(self, thread: Conversation, message: str) -> Self:
        """A thread's next turn: this memory's config and ``max_iterations``, ``thread``, ``message``.

        Example:
            >>> from agentsm_fn.llm.messages import AssistantMessage, UserMessage
            >>> thread = Conversation().then([UserMessage("I am Ada."), AssistantMessage("Hello, Ada!")])
            >>> turn = PlanExecuteMemory(input="", max_iterations=3).start_turn(thread, "My name?")
            >>> turn.input, turn.max_iterations, turn.conversation.turns, len(turn.messages)
            ('My name?', 3, 1, 0)
        """
        return type(self)(
            input=message,
            config=self.config,
            max_iterations=self.max_iterations,
            conversation=thread,
            output=self.output,
        )

    def thread_so_far(self) -> Conversation:
        """The thread after this turn: the earlier turns, then this one's messages and tokens.

        Example:
            >>> from agentsm_fn.agents.plan_execute.values import FinalResult
            >>> done = PlanExecuteMemory(input="I am Ada.", final_result=FinalResult(
            ...     content="Hello, Ada!", iterations=1, stopped_by="no_tool_calls"))
            >>> [m.content for m in done.thread_so_far().messages]
            ['I am Ada.', 'Hello, Ada!']
        """
        return plan_execute_thread_so_far(self)


def plan_execute_turn_messages(mem: PlanExecuteMemory) -> tuple[ConversationMessage, ...]:
    """The messages this turn adds to its thread: input, the executor's chat, the answer.

    Example:
        >>> from agentsm_fn.agents.plan_execute.values import FinalResult
        >>> mem = PlanExecuteMemory(input=" Hi ", messages=[UserMessage("Hi"), AssistantMessage("Hello!")],
        ...     final_result=FinalResult(content="Hello!", iterations=1, stopped_by="no_tool_calls"))
        >>> [m.content for m in plan_execute_turn_messages(mem)]
        [' Hi ', 'Hello!']
    """
    messages: list[ConversationMessage] = [UserMessage(mem.input)]
    # The executor's chat begins with the normalized input: the user's own words come first instead.
    messages.extend(
        m for m in mem.messages[1:] if isinstance(m, UserMessage | AssistantMessage | ToolResultMessage)
    )
    done = mem.final_result
    if done is not None and done.answer:
        last = messages[-1]
        if not (isinstance(last, AssistantMessage) and last.content == done.answer):
            messages.append(AssistantMessage(done.answer))
    return tuple(messages)


def plan_execute_thread_so_far(mem: PlanExecuteMemory) -> Conversation:
    """The thread after the turn ``mem`` ended: its earlier turns, this turn's messages and tokens.

    Example:
        >>> after = plan_execute_thread_so_far(PlanExecuteMemory(input="I am Ada."))
        >>> [m.content for m in after.messages], after.turns
        (['I am Ada.'], 1)
    """
    return mem.conversation.then(plan_execute_turn_messages(mem), mem.usage)
