"""The ReAct agent in a thread: earlier turns sent as real messages, compressed by the agent, budgets kept."""

from __future__ import annotations

from pyrsistent import pvector

from agentsm_fn.agents.react import REACT_MACHINE, AgentConfig, AgentMemory, Event, HistoryEntry, State
from agentsm_fn.agents.react.observing import idle
from agentsm_fn.agents.react.planning import plan
from agentsm_fn.agents.react.prompt import build_messages
from agentsm_fn.agents.react.reflecting import receive_summary, reflect
from agentsm_fn.agents.react.thread import WORK_SUMMARY_PREFIX, react_turn_messages
from agentsm_fn.core import Perform
from agentsm_fn.llm import (
    SUMMARY_PREFIX,
    THREAD_COMPRESSION_PROMPT,
    AssistantMessage,
    Conversation,
    LlmCall,
    LlmFailure,
    LlmFailureKind,
    LlmReply,
    SystemMessage,
    ThreadBudget,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    turn_start,
)
from agentsm_fn.llm.conversation import ConversationMessage
from tests.agents.react.helpers import make_memory

LOOKUP = ToolCall("c1", "lookup", {"who": "user"})
FIRST_TURN: tuple[ConversationMessage, ...] = (
    UserMessage("My name is Ada."),
    AssistantMessage(tool_calls=(LOOKUP,)),
    ToolResultMessage("c1", "lookup", "SUCCESS: Ada Lovelace"),
    AssistantMessage("Nice to meet you, Ada Lovelace."),
)


def _first_turn_final() -> AgentMemory:
    entry = HistoryEntry(step=1, tool=LOOKUP, observation="SUCCESS: Ada Lovelace", success=True)
    return AgentMemory.new("My name is Ada.").evolve(
        history=pvector([entry]),
        final_answer="Nice to meet you, Ada Lovelace.",
        total_usage=Usage(input_tokens=7),
    )


def _with_thread(memory: AgentMemory, context: int | None = 16_000, total: int | None = None) -> AgentMemory:
    return memory.with_config(AgentConfig(thread=ThreadBudget(context=context, total=total)))


def test_a_turn_adds_its_task_tool_calls_results_and_answer_to_the_thread() -> None:
    final = _first_turn_final()
    assert react_turn_messages(final) == FIRST_TURN
    thread = final.thread_so_far()
    assert (tuple(thread.messages), thread.usage, thread.turns) == (FIRST_TURN, Usage(input_tokens=7), 1)
    assert thread.latest_turn == FIRST_TURN


def test_a_turns_compressed_work_is_kept_as_a_summary_message() -> None:
    summary = HistoryEntry(
        step=2, tool=ToolCall("s", "[SUMMARY]", {}), observation="Found Ada.", success=True
    )
    final = AgentMemory.new("Who am I?").evolve(history=pvector([summary]), final_answer="You are Ada.")
    assert react_turn_messages(final) == (
        UserMessage("Who am I?"),
        AssistantMessage(WORK_SUMMARY_PREFIX + "Found Ada."),
        AssistantMessage("You are Ada."),
    )


def test_the_planning_request_sends_earlier_turns_in_order_before_the_new_message() -> None:
    template = _with_thread(AgentMemory.new("").with_system_prompt("Be brief."))
    turns = turn_start(template.start_turn)
    second = turns.after(_first_turn_final(), "What is my name?")
    assert build_messages(second) == (
        SystemMessage("Be brief."),
        *FIRST_TURN,
        UserMessage("What is my name?"),
    )
    assert second.conversation.usage == Usage(input_tokens=7)  # the thread's tokens so far
    assert (second.step, second.history, second.final_answer) == (0, AgentMemory.new("").history, None)


def test_a_summary_of_compressed_turns_comes_first() -> None:
    thread = Conversation(summary="The user is Ada.").then([UserMessage("Hi"), AssistantMessage("Hello!")])
    memory = AgentMemory.new("").start_turn(thread, "Who am I?")
    assert build_messages(memory) == (
        UserMessage(SUMMARY_PREFIX + "The user is Ada."),
        UserMessage("Hi"),
        AssistantMessage("Hello!"),
        UserMessage("Who am I?"),
    )


def test_a_turn_whose_thread_is_within_budget_starts_as_before() -> None:
    memory = _with_thread(AgentMemory.new("")).start_turn(_first_turn_final().thread_so_far(), "Hi")
    assert idle(memory).unwrap()[0] is Event.Start


def test_a_turn_over_the_context_budget_is_compressed_first_by_the_agents_own_call() -> None:
    old = _first_turn_final().thread_so_far()
    thread = old.then([UserMessage("And today?"), AssistantMessage("Tuesday.")])
    memory = _with_thread(make_memory(), context=50).start_turn(thread, "What is my name?")
    event, same = idle(memory).unwrap()
    assert (event, REACT_MACHINE.table[(State.Idle, event)], same) == (
        Event.ThreadTooLong,
        State.Reflecting,
        memory,
    )
    request = reflect(memory).unwrap()
    assert isinstance(request, Perform) and isinstance(request.effect, LlmCall)
    assert request.effect.purpose == "compress"
    prompt = request.effect.request.messages[0].content
    assert prompt.startswith(THREAD_COMPRESSION_PROMPT.split("{", 1)[0])
    assert "My name is Ada." in prompt and "Tuesday" not in prompt  # the newest turn is kept as it was
    reply = LlmReply(content="The user is Ada Lovelace.", usage=Usage(input_tokens=50, output_tokens=9))
    reflected, after = receive_summary(memory, reply).unwrap()
    assert reflected is Event.ReflectDone
    assert after.conversation.summary == "The user is Ada Lovelace."
    assert list(after.conversation.messages) == [UserMessage("And today?"), AssistantMessage("Tuesday.")]
    assert after.conversation.tokens() <= 50
    assert after.total_usage == Usage(input_tokens=50, output_tokens=9)  # the turn's tokens
    assert after.history == memory.history  # the turn's own work is untouched


def test_a_failed_compression_drops_the_older_turns_so_the_budget_still_holds() -> None:
    thread = _first_turn_final().thread_so_far().then([UserMessage("And today?")])
    memory = _with_thread(AgentMemory.new(""), context=30).start_turn(thread, "t")
    failed = LlmFailure(kind=LlmFailureKind.TIMEOUT, message="slow")
    _, after = receive_summary(memory, failed).unwrap()
    assert (after.conversation.summary, list(after.conversation.messages)) == (
        "",
        [UserMessage("And today?")],
    )
    assert after.conversation.summarized == 4


def test_with_the_budget_spent_no_compression_call_is_made() -> None:
    thread = _first_turn_final().thread_so_far().then([UserMessage("And today?")])
    memory = _with_thread(AgentMemory.new(""), context=30, total=7).start_turn(thread, "t")
    event, after = reflect(memory).unwrap()
    assert event is Event.ReflectDone and after.conversation.tokens() <= 30


def test_the_threads_total_budget_stops_a_turn_before_its_first_call() -> None:
    thread = _first_turn_final().thread_so_far()  # 7 tokens spent
    memory = _with_thread(AgentMemory.new(""), total=7).start_turn(thread, "What is my name?")
    event, after = plan(memory).unwrap()
    assert event is Event.BudgetExceeded
    assert after.error == "Token budget exceeded: thread total tokens 7 >= budget 7"
    roomy = _with_thread(AgentMemory.new(""), total=8).start_turn(thread, "What is my name?")
    assert isinstance(plan(roomy).unwrap(), Perform)
