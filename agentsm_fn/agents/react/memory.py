"""The agent's working memory: one frozen value, replaced (never mutated) by each handler.

Field names are exactly those of the seed's ``AgentMemory`` (001), plus ``tools``:
the tool definitions (schemas and policy, no functions) that pure handlers need.
The seed's ``trace`` is not a memory field: the engine records a clock-stamped trace
in the run's snapshot (handlers cannot read the clock); see docs/react-agent.md.

Ownership (enforced by tests): only Planning changes ``step``; ``current_tool_call``
is set by Planning and cleared by Observing (WaitingForHuman may replace its
arguments on HumanModified); ``last_observation`` is set by Acting and cleared by
Observing; ``history`` grows only in Observing and is compressed only in Reflecting;
``refused_tools`` (the blacklisted tools the last plan asked for, named in the
``ToolBlacklisted`` trace row) is set by Planning on ``ToolBlacklisted`` and cleared
when the next plan step starts; ``conversation`` (a thread's earlier turns) is set when
a turn starts (:meth:`AgentMemory.start_turn`) and compressed only in Reflecting.

One idea over 300 lines: the memory is one value, and its fields, their converters and its
fast copy (``evolve``) are read together.

Typed results: ``output`` (the result asked for: name and JSON Schema; None for text) is
set when the memory is made; ``result`` (the valid value, as its result type keeps it)
and ``rejected_outputs`` (each reply that was not a valid result) are set by Planning;
``output_retries`` (Correcting's budget counter) only by Correcting.

Guardrails: ``guardrails`` (those that are data: LLM guardrails made from instructions, each
with its stage) is set when the memory is made; ``guardrail_checks`` (every check of the
run, a trip with its reason and a human's review) grows only in the guarding states and
the reviewing states (:mod:`agentsm_fn.agents.react.guards`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Self, TypedDict, Unpack, cast

import attrs
from pyrsistent import PVector, pvector

from agentsm_fn.agents.guardrails.values import GuardrailCheck, GuardrailSpec
from agentsm_fn.agents.output.values import OutputSpec, RejectedOutput
from agentsm_fn.agents.react.config import AgentConfig, TokenBudget
from agentsm_fn.agents.react.outcomes import ApprovalDecision, ReactToolResult
from agentsm_fn.agents.react.turns import turn_messages
from agentsm_fn.llm.conversation import Conversation
from agentsm_fn.llm.messages import ToolCall
from agentsm_fn.llm.replies import Usage
from agentsm_fn.tools.spec import ToolDef

__all__ = ["SUMMARY_TOOL", "AgentMemory", "HistoryEntry", "HumanApprovalRequest", "MemoryChanges"]

SUMMARY_TOOL = "[SUMMARY]"
"""The tool name of the single history entry Reflecting leaves behind."""


@attrs.frozen(kw_only=True)
class HistoryEntry:
    """A completed tool call: the step it belongs to, the call, its observation.

    Example:
        >>> e = HistoryEntry(step=1, tool=ToolCall("c1", "search", {"q": "x"}),
        ...                  observation="SUCCESS: found", success=True)
        >>> e.tool.name, e.is_summary
        ('search', False)
    """

    step: int
    tool: ToolCall
    observation: str
    success: bool

    @property
    def is_summary(self) -> bool:
        """True for the compressed summary Reflecting writes."""
        return self.tool.name == SUMMARY_TOOL


@attrs.frozen(kw_only=True)
class HumanApprovalRequest:
    """A tool call waiting for a human: which call, at which step, why, and the decision.

    Example:
        >>> r = HumanApprovalRequest(step=2, tool_call=ToolCall("c1", "delete", {}), reason="policy")
        >>> r.decision is None
        True
    """

    step: int
    tool_call: ToolCall
    reason: str
    decision: ApprovalDecision | None = None


def _history(value: Iterable[HistoryEntry]) -> PVector[HistoryEntry]:
    return value if isinstance(value, PVector) else pvector(value)


def _tools(value: Iterable[ToolDef]) -> tuple[ToolDef, ...]:
    return tuple(value)


def _calls(value: Iterable[ToolCall]) -> tuple[ToolCall, ...]:
    return tuple(value)


def _results(value: Iterable[ReactToolResult]) -> tuple[ReactToolResult, ...]:
    return tuple(value)


def _rejected(value: Iterable[RejectedOutput]) -> tuple[RejectedOutput, ...]:
    return tuple(value)


def _specs(value: Iterable[GuardrailSpec]) -> tuple[GuardrailSpec, ...]:
    return tuple(value)


def _checks(value: Iterable[GuardrailCheck]) -> tuple[GuardrailCheck, ...]:
    return tuple(value)


def _refused(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


def _names(value: Iterable[str]) -> frozenset[str]:
    return frozenset(value)


def _budget_default(self: AgentMemory) -> TokenBudget | None:
    return self.config.budget


class MemoryChanges(TypedDict, total=False):
    """The fields :meth:`AgentMemory.evolve` may change, with their types (checked by mypy)."""

    task: str
    task_type: str
    system_prompt: str
    step: int
    retry_count: int
    confidence_score: float
    total_usage: Usage
    current_tool_call: ToolCall | None
    pending_tool_calls: tuple[ToolCall, ...]
    parallel_results: tuple[ReactToolResult, ...]
    last_observation: str | None
    pending_approval: HumanApprovalRequest | None
    history: PVector[HistoryEntry]
    final_answer: str | None
    error: str | None
    config: AgentConfig
    budget: TokenBudget | None
    blacklisted_tools: frozenset[str]
    refused_tools: tuple[str, ...]
    tools: tuple[ToolDef, ...]
    conversation: Conversation
    output: OutputSpec | None
    result: object
    output_retries: int
    rejected_outputs: tuple[RejectedOutput, ...]
    guardrails: tuple[GuardrailSpec, ...]
    guardrail_checks: tuple[GuardrailCheck, ...]


# Not slotted: a copy is one C-level dict copy, which makes ``evolve`` (called several times per
# transition) several times cheaper than ``attrs.evolve`` over twenty fields.
@attrs.frozen(kw_only=True, slots=False)
class AgentMemory:
    """The agent's entire world-state, as a frozen value.

    Example:
        >>> m = AgentMemory.new("What is 2 + 2?")
        >>> m.task_type, m.step, m.confidence_score, len(m.history), m.config.max_steps
        ('default', 0, 1.0, 0, 15)
    """

    # Task definition
    task: str
    task_type: str = "default"
    system_prompt: str = ""
    # Execution counters
    step: int = 0
    retry_count: int = 0
    confidence_score: float = 1.0
    total_usage: Usage = attrs.field(factory=Usage)
    # Tool call lifecycle
    current_tool_call: ToolCall | None = None
    pending_tool_calls: tuple[ToolCall, ...] = attrs.field(default=(), converter=_calls)
    parallel_results: tuple[ReactToolResult, ...] = attrs.field(default=(), converter=_results)
    last_observation: str | None = None
    pending_approval: HumanApprovalRequest | None = None
    # Results
    history: PVector[HistoryEntry] = attrs.field(factory=pvector, converter=_history)
    final_answer: str | None = None
    error: str | None = None
    # Configuration
    config: AgentConfig = attrs.field(factory=AgentConfig)
    budget: TokenBudget | None = attrs.field(default=attrs.Factory(_budget_default, takes_self=True))
    blacklisted_tools: frozenset[str] = attrs.field(default=frozenset(), converter=_names)
    refused_tools: tuple[str, ...] = attrs.field(default=(), converter=_refused)
    tools: tuple[ToolDef, ...] = attrs.field(default=(), converter=_tools)
    # A thread's earlier turns (empty for a run that is no thread's turn)
    conversation: Conversation = attrs.field(factory=Conversation)
    # Typed results
    output: OutputSpec | None = None
    result: object = None
    output_retries: int = 0
    rejected_outputs: tuple[RejectedOutput, ...] = attrs.field(default=(), converter=_rejected)
    # Guardrails (the LLM ones, as data) and every check of the run
    guardrails: tuple[GuardrailSpec, ...] = attrs.field(default=(), converter=_specs)
    guardrail_checks: tuple[GuardrailCheck, ...] = attrs.field(default=(), converter=_checks)

    @classmethod
    def new(cls, task: str) -> AgentMemory:
        """A fresh memory for ``task`` with the seed's defaults.

        Example:
            >>> AgentMemory.new("t").task
            't'
        """
        if cls is not AgentMemory:  # pragma: no cover - a subclass builds its own
            return cls(task=task)
        return _BLANK.evolve(task=task)  # the defaults, made once (they are frozen values)

    def evolve(self, **changes: Unpack[MemoryChanges]) -> Self:
        """A copy with ``changes`` applied: ``attrs.evolve``, only faster (the handlers' hot path).

        A subclass (slotted or not, with fields, converters or validators of its own) is
        evolved by ``attrs.evolve`` itself: the fast copy knows only AgentMemory's fields.

        Example:
            >>> m = AgentMemory.new("t").evolve(step=2, pending_tool_calls=[])
            >>> m.step, m.pending_tool_calls, m == attrs.evolve(AgentMemory.new("t"), step=2)
            (2, (), True)
        """
        if type(self) is not AgentMemory:
            return attrs.evolve(self, **changes)
        new = object.__new__(type(self))
        state = new.__dict__
        state.update(self.__dict__)
        for name, value in changes.items():
            convert = _CONVERTERS.get(name)
            if convert is not None:
                state[name] = convert(value)
            elif name in _FIELD_NAMES:
                state[name] = value
            else:
                raise TypeError(f"AgentMemory has no field {name!r}")
        return new

    def with_task_type(self, task_type: str) -> AgentMemory:
        """A copy with ``task_type`` set (it selects the model)."""
        return self.evolve(task_type=task_type)

    def with_system_prompt(self, prompt: str) -> AgentMemory:
        """A copy with the system prompt set."""
        return self.evolve(system_prompt=prompt)

    def with_config(self, config: AgentConfig) -> AgentMemory:
        """A copy with ``config`` (and its budget) in force.

        Example:
            >>> AgentMemory.new("t").with_config(AgentConfig(max_steps=2)).config.max_steps
            2
        """
        return self.evolve(config=config, budget=config.budget)

    def blacklist_tool(self, name: str) -> AgentMemory:
        """A copy in which the tool ``name`` may not be used.

        Example:
            >>> sorted(AgentMemory.new("t").blacklist_tool("rm").blacklisted_tools)
            ['rm']
        """
        return self.evolve(blacklisted_tools=self.blacklisted_tools | {name})

    def with_tools(self, tools: Iterable[ToolDef]) -> AgentMemory:
        """A copy that knows these tool definitions."""
        return self.evolve(tools=tuple(tools))

    def start_turn(self, thread: Conversation, message: str) -> Self:
        """A thread's next turn: this memory's settings (tools, prompt, limits), ``thread``, ``message``.

        Everything a run fills in (step, history, usage, answer, error...) starts afresh.

        Example:
            >>> from agentsm_fn.llm.messages import AssistantMessage, UserMessage
            >>> thread = Conversation().then([UserMessage("I am Ada."), AssistantMessage("Hello, Ada!")])
            >>> turn = AgentMemory.new("").with_system_prompt("Be brief.").start_turn(thread, "My name?")
            >>> turn.task, turn.system_prompt, turn.conversation.turns
            ('My name?', 'Be brief.', 1)
        """
        changes: MemoryChanges = {**_FRESH_RUN, "task": message, "conversation": thread}
        return self.evolve(**changes)

    def thread_so_far(self) -> Conversation:
        """The thread after this turn: the earlier turns, this one's messages and tokens.

        The messages are the task, tool calls and results, and answer (``react_turn_messages``).

        Example:
            >>> done = AgentMemory.new("I am Ada.").evolve(final_answer="Hello, Ada!")
            >>> [type(m).__name__ for m in done.thread_so_far().messages]
            ['UserMessage', 'AssistantMessage']
        """
        return self.conversation.then(
            turn_messages(self.task, self.history, self.final_answer), self.total_usage
        )

    def handed_to(self) -> str | None:
        """The agent this run handed the conversation to (``Acting --HandedOff--> Done``), or None.

        Only a handoff that succeeded leaves its call current with a successful observation
        (Observing clears every other call).

        Example:
            >>> from agentsm_fn.tools.spec import ToolDef
            >>> hand = ToolDef(name="transfer_to_refunds", description="", agent="a:R", hands_off=True)
            >>> m = AgentMemory.new("t").with_tools([hand]).evolve(
            ...     current_tool_call=ToolCall("c1", "transfer_to_refunds", {}), final_answer="Refunded.")
            >>> m.handed_to(), m.evolve(last_observation="SUCCESS: Refunded.").handed_to()
            (None, 'a:R')
        """
        call, said = self.current_tool_call, self.last_observation
        if call is None or self.final_answer is None or said is None or not said.startswith("SUCCESS"):
            return None
        definition = self.tool(call.name)
        return definition.agent if definition is not None and definition.hands_off else None

    def tool(self, name: str) -> ToolDef | None:
        """The definition of the tool ``name``, or None if it is unknown.

        Example:
            >>> AgentMemory.new("t").tool("search") is None
            True
        """
        for definition in self.tools:
            if definition.name == name:
                return definition
        return None


_FIELD_NAMES = frozenset(f.name for f in attrs.fields(AgentMemory))
# The fields' converters (to tuples, pvectors, frozensets), applied by evolve() as __init__ would.
_CONVERTERS: dict[str, Callable[[object], object]] = {
    f.name: cast(Callable[[object], object], f.converter)
    for f in attrs.fields(AgentMemory)
    if callable(f.converter)
}
_BLANK = AgentMemory(task="")
_FRESH_RUN: MemoryChanges = {
    **{"step": 0, "retry_count": 0, "confidence_score": 1.0, "total_usage": Usage()},
    **{"current_tool_call": None, "pending_tool_calls": (), "parallel_results": ()},
    **{"last_observation": None, "pending_approval": None, "history": pvector()},
    **{"final_answer": None, "error": None, "refused_tools": ()},
    **{"result": None, "output_retries": 0, "rejected_outputs": ()},
    **{"guardrail_checks": ()},
}
"""What a run fills in, at its start values: a new turn begins with these."""
