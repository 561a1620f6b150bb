"""The ReAct agent in a thread: what one turn adds to the conversation, and the thread after it.

A turn adds its task (the user's message), the tool calls and results that led to the answer,
exactly as the planning request sent them (an assistant message with the step's tool calls,
then one tool result per call), a summary of the work where Reflecting compressed it, and the
answer. The thread after the turn is the memory's ``conversation`` (the earlier turns) with
those messages and the turn's tokens added: a pure function of the turn's final memory.
"""

from __future__ import annotations

from agentsm_fn.agents.react.memory import AgentMemory
from agentsm_fn.agents.react.turns import WORK_SUMMARY_PREFIX, turn_messages
from agentsm_fn.llm.conversation import Conversation, ConversationMessage

__all__ = ["WORK_SUMMARY_PREFIX", "react_thread_so_far", "react_turn_messages"]


def react_turn_messages(memory: AgentMemory) -> tuple[ConversationMessage, ...]:
    """The messages this turn adds to its thread: task, tool calls and results, work summary, answer.

    Example:
        >>> from agentsm_fn.agents.react.memory import HistoryEntry
        >>> from agentsm_fn.llm.messages import ToolCall
        >>> e = HistoryEntry(step=1, tool=ToolCall("c1", "lookup", {}), observation="SUCCESS: Ada",
        ...                  success=True)
        >>> m = AgentMemory.new("What is my name?").evolve(history=[e], final_answer="Your name is Ada.")
        >>> [type(x).__name__ for x in react_turn_messages(m)]
        ['UserMessage', 'AssistantMessage', 'ToolResultMessage', 'AssistantMessage']
    """
    return turn_messages(memory.task, memory.history, memory.final_answer)


def react_thread_so_far(memory: AgentMemory) -> Conversation:
    """The thread after the turn ``memory`` ended: its earlier turns, this turn's messages and tokens.

    Example:
        >>> done = AgentMemory.new("I am Ada.").evolve(final_answer="Hello, Ada!")
        >>> after = react_thread_so_far(done)
        >>> [m.content for m in after.messages], after.turns
        (['I am Ada.', 'Hello, Ada!'], 1)
    """
    return memory.thread_so_far()
