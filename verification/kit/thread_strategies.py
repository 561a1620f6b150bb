"""Strategies for a turn of a thread: earlier turns (:func:`threads`) and the thread's budgets.

:func:`in_thread` makes some of a ReAct memory strategy's memories later turns of a thread: a
conversation of a few earlier turns (short ones, and long ones over a small context
budget, so the compression at a turn's start happens), with the tokens the thread spent,
and a :class:`~agentsm_fn.llm.ThreadBudget` (a context budget and a total for the thread).
"""

from __future__ import annotations

import attrs
from hypothesis import strategies as st

from agentsm_fn.agents.react import AgentMemory
from agentsm_fn.llm import (
    AssistantMessage,
    Conversation,
    ConversationMessage,
    ThreadBudget,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)

__all__ = ["in_thread", "thread_budgets", "threads"]

_SAID = st.sampled_from(("My name is Ada.", "What is my name?", "Your name is Ada.", "x" * 200))


@st.composite
def _turn(draw: st.DrawFn) -> list[ConversationMessage]:
    turn: list[ConversationMessage] = [UserMessage(draw(_SAID))]
    if draw(st.booleans()):
        call = ToolCall("call_1", "search", {"q": "Ada"})
        turn += [AssistantMessage(tool_calls=(call,)), ToolResultMessage(call.id, call.name, draw(_SAID))]
    return [*turn, AssistantMessage(draw(_SAID))]


def threads() -> st.SearchStrategy[Conversation]:
    """Conversations of zero to three earlier turns, with the tokens they spent.

    Example:
        >>> isinstance(threads(), st.SearchStrategy)
        True
    """
    usage = st.builds(Usage, input_tokens=st.integers(0, 60), output_tokens=st.integers(0, 20))
    turns = st.lists(st.tuples(_turn(), usage), max_size=3)

    def thread(made: list[tuple[list[ConversationMessage], Usage]]) -> Conversation:
        conversation = Conversation()
        for messages, spent in made:
            conversation = conversation.then(messages, spent)
        return conversation

    return turns.map(thread)


def thread_budgets() -> st.SearchStrategy[ThreadBudget]:
    """Thread budgets: no context limit, a roomy one, small ones; a thread total or none.

    Example:
        >>> isinstance(thread_budgets(), st.SearchStrategy)
        True
    """
    contexts = st.sampled_from((None, 16_000, 60, 0))
    return st.builds(ThreadBudget, context=contexts, total=st.none() | st.integers(0, 150))


def in_thread(memories: st.SearchStrategy[AgentMemory]) -> st.SearchStrategy[AgentMemory]:
    """``memories``, each the first turn of a thread or a later one, under a thread budget.

    Example:
        >>> isinstance(in_thread(st.just(AgentMemory.new("t"))), st.SearchStrategy)
        True
    """

    def placed(memory: AgentMemory, thread: Conversation, budget: ThreadBudget) -> AgentMemory:
        return memory.evolve(conversation=thread, config=attrs.evolve(memory.config, thread=budget))

    return st.builds(placed, memories, threads(), thread_budgets())
