"""The plan-and-execute agent in a thread: what one turn adds to the conversation, and the thread after it.

A turn adds its input (the user's message), the executor's chat (its assistant turns with tool
calls and the tool results), and the answer (the summary when FINALIZE made one, unless the
executor's last message already says it). The thread after the turn is the memory's
``conversation`` (the earlier turns) with those messages and the turn's tokens added: a pure
function of the turn's final memory.
"""

from __future__ import annotations

from agentsm_fn.agents.plan_execute.memory import PlanExecuteMemory
from agentsm_fn.llm.conversation import Conversation, ConversationMessage
from agentsm_fn.llm.messages import AssistantMessage, ToolResultMessage, UserMessage

__all__ = ["plan_execute_thread_so_far", "plan_execute_turn_messages"]


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
