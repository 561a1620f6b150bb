"""Plan-and-execute in a thread: the planner takes the earlier turns; long threads are compressed."""

from __future__ import annotations

import attrs

from agentsm_fn.agents.plan_execute import (
    PLAN_EXECUTE_MACHINE,
    Awaiting,
    Event,
    HaltCause,
    PlanExecuteMemory,
    State,
    plan_execute_turn_messages,
)
from agentsm_fn.agents.plan_execute.front import intake_enter, intake_receive, plan_enter
from agentsm_fn.core import begin, replay
from agentsm_fn.llm import (
    THREAD_COMPRESSION_PROMPT,
    AssistantMessage,
    Conversation,
    LlmCall,
    LlmReply,
    ThreadBudget,
    ToolResultMessage,
    Usage,
    UserMessage,
    estimate_tokens,
    turn_start,
)
from agentsm_fn.shell import run
from tests.agents.plan_execute.helpers import (
    answer,
    build_agent,
    call,
    failure,
    memory,
    moved,
    plan_reply,
    requested,
    scripted,
    tool_reply,
)

COMPRESSION = THREAD_COMPRESSION_PROMPT.split("\n", 1)[0]


def _threaded(
    mem: PlanExecuteMemory, context: int | None = 16_000, total: int | None = None
) -> PlanExecuteMemory:
    config = attrs.evolve(mem.config, thread=ThreadBudget(context=context, total=total))
    return attrs.evolve(mem, config=config)


def test_a_turn_adds_its_input_the_executors_chat_and_the_answer() -> None:
    agent = build_agent(scripted(plan_reply(), tool_reply(call()), answer("Use Prawn.")))
    done = run(PLAN_EXECUTE_MACHINE, agent.memory(" Which PDF library? "), agent.shell()).unwrap()
    added = plan_execute_turn_messages(done.memory)
    assert added[0] == UserMessage(" Which PDF library? ")  # the user's own words
    assert [type(m) for m in added[1:]] == [AssistantMessage, ToolResultMessage, AssistantMessage]
    assert added[-1] == AssistantMessage("Use Prawn.")
    assert done.memory.thread_so_far().turns == 1


def test_the_planner_takes_the_earlier_turns_as_context() -> None:
    llm = scripted(
        plan_reply(goal="Greet Ada", steps=("say hello",), capabilities=()),
        answer("Hello, Ada!"),
        plan_reply(goal="Tell Ada her name", steps=("answer",), capabilities=()),
        answer("Your name is Ada."),
    )
    agent = build_agent(llm)
    turns = turn_start(agent.memory("").start_turn)
    first = run(PLAN_EXECUTE_MACHINE, turns.first("My name is Ada."), agent.shell()).unwrap()
    second = run(PLAN_EXECUTE_MACHINE, turns.after(first.memory, "What is my name?"), agent.shell()).unwrap()
    assert second.memory.final_result is not None and second.memory.final_result.answer == "Your name is Ada."
    planner = llm.requests[2]
    assert planner.messages[:2] == (UserMessage("My name is Ada."), AssistantMessage("Hello, Ada!"))
    assert isinstance(planner.messages[2], UserMessage) and "What is my name?" in planner.messages[2].content
    assert len(planner.messages) == 3


def test_a_thread_over_its_context_budget_is_compressed_at_intake_and_replays_exactly() -> None:
    long = Conversation().then([UserMessage("I am Ada. " * 30), AssistantMessage("Hello, Ada!")])
    thread = long.then([UserMessage("Hi"), AssistantMessage("Hi!")], Usage(input_tokens=5))
    llm = scripted(LlmReply(content="The user is Ada."), plan_reply(), answer("Use Prawn."))
    agent = build_agent(llm)
    start = _threaded(agent.memory(""), context=40).start_turn(thread, "Which PDF library?")
    done = run(PLAN_EXECUTE_MACHINE, start, agent.shell()).unwrap()
    compression, planner = llm.requests[0], llm.requests[1]
    assert compression.messages[0].content.startswith(COMPRESSION)
    assert "I am Ada." in compression.messages[0].content
    assert done.memory.conversation.summary == "The user is Ada."
    context = planner.messages[:-1]
    assert context[1:] == (UserMessage("Hi"), AssistantMessage("Hi!"))
    assert sum(map(estimate_tokens, context)) <= 40
    assert any(e.kind == "thread" for e in done.memory.audit_log)
    assert replay(PLAN_EXECUTE_MACHINE, begin(PLAN_EXECUTE_MACHINE, start), done.journal).unwrap() == done


def test_a_failed_compression_drops_the_older_turns() -> None:
    thread = Conversation().then([UserMessage("x" * 400)]).then([UserMessage("Hi")])
    start = _threaded(memory(), context=20).start_turn(thread, "Find a PDF library")
    waiting = requested(intake_enter(start))
    assert isinstance(waiting.effect, LlmCall) and waiting.effect.purpose == "compress"
    assert waiting.memory.awaiting is Awaiting.COMPRESSION
    event, after = moved(intake_receive(waiting.memory, failure()))
    assert event is Event.NORMALIZED
    assert (after.conversation.summary, list(after.conversation.messages)) == ("", [UserMessage("Hi")])


def test_with_the_threads_budget_spent_intake_drops_and_plan_halts_without_a_call() -> None:
    thread = Conversation().then([UserMessage("x" * 400)], Usage(input_tokens=50))
    start = _threaded(memory(), context=20, total=50).start_turn(thread, "Find a PDF library")
    event, after = moved(intake_enter(start))
    assert event is Event.NORMALIZED and after.conversation.tokens() <= 20
    halted, stopped = moved(plan_enter(after))
    assert halted is Event.INVALID_PLAN and stopped.error is not None
    assert (stopped.error.cause, stopped.error.rule) == (HaltCause.POLICY_VIOLATION, "thread_total_tokens")
    assert PLAN_EXECUTE_MACHINE.table[(State.PLAN, halted)] is State.HALT
