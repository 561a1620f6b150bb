"""A thread's conversation: turns appended in order, estimates, compression that always fits its budget."""

from __future__ import annotations

import attrs
from hypothesis import given
from hypothesis import strategies as st

from agentsm_fn.llm import (
    SUMMARY_PREFIX,
    AssistantMessage,
    Conversation,
    ConversationMessage,
    ThreadBudget,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    conversation_json,
    estimate_tokens,
)
from verification.kit import usages

_TEXT = st.text(max_size=300)


def _turn(draw: st.DrawFn) -> list[ConversationMessage]:
    """A turn as an agent makes one: the user's message, tool calls and their results, maybe an answer."""
    turn: list[ConversationMessage] = [UserMessage(draw(_TEXT))]
    for step in range(draw(st.integers(0, 2))):
        call = ToolCall(f"c{step}", "lookup", {"q": draw(st.text(max_size=20))})
        turn += [AssistantMessage(tool_calls=(call,)), ToolResultMessage(call.id, call.name, draw(_TEXT))]
    if draw(st.booleans()):
        turn.append(AssistantMessage(draw(_TEXT)))
    return turn


turns = st.composite(_turn)


@st.composite
def conversations(draw: st.DrawFn) -> tuple[Conversation, list[ConversationMessage]]:
    """A conversation of generated turns, and every message they added."""
    conversation, added = Conversation(), []
    for turn in draw(st.lists(turns(), max_size=8)):
        conversation = conversation.then(turn, draw(usages()))
        added += turn
    return conversation, added


def test_turns_are_appended_in_order_with_their_tokens() -> None:
    first: list[ConversationMessage] = [UserMessage("I am Ada."), AssistantMessage("Hello, Ada!")]
    second: list[ConversationMessage] = [UserMessage("What is my name?"), AssistantMessage("Ada.")]
    thread = Conversation().then(first, Usage(input_tokens=5)).then(second, Usage(output_tokens=2))
    assert list(thread.messages) == first + second
    assert (thread.turns, thread.usage, thread.latest_turn) == (
        2,
        Usage(input_tokens=5, output_tokens=2),
        tuple(second),
    )
    assert thread.sent() == (*first, *second)


def test_the_estimate_counts_text_tool_calls_and_framing() -> None:
    assert estimate_tokens(UserMessage("x" * 8)) == 4 + 2
    call = ToolCall("c1", "lookup", {"name": "Ada"})
    assert estimate_tokens(AssistantMessage("ok", (call,))) == 4 + 1 + 2 + len(call.arguments_json) // 4 + 1
    assert estimate_tokens(ToolResultMessage("c1", "lookup", "x" * 9)) == 4 + 3


def test_the_summary_is_sent_first_as_a_user_message() -> None:
    thread = Conversation(summary="The user is Ada.", messages=[UserMessage("Hi")])
    assert thread.sent() == (UserMessage(SUMMARY_PREFIX + "The user is Ada."), UserMessage("Hi"))
    assert thread.tokens() == sum(map(estimate_tokens, thread.sent()))


def test_compression_keeps_the_newest_whole_turns_and_counts_what_it_stands_for() -> None:
    old: list[ConversationMessage] = [UserMessage("a" * 400), AssistantMessage("b" * 400)]
    new: list[ConversationMessage] = [UserMessage("Hi"), AssistantMessage("Hello")]
    thread = Conversation().then(old).then(new)
    small = thread.compressed("Ada said a lot.", 100)
    assert (small.summary, list(small.messages), small.summarized) == ("Ada said a lot.", new, 2)
    assert (small.turns, small.latest_turn) == (2, tuple(new))
    assert thread.older(100) == tuple(old)


def test_a_failed_compression_drops_the_older_turns_and_keeps_the_last_summary() -> None:
    thread = Conversation(summary="Earlier: Ada.").then([UserMessage("a" * 400)]).then([UserMessage("Hi")])
    dropped = thread.compressed("", 60)
    assert (dropped.summary, list(dropped.messages), dropped.summarized) == (
        "Earlier: Ada.",
        [UserMessage("Hi")],
        1,
    )


def test_a_thread_budget_says_when_the_thread_has_spent_it() -> None:
    budget = ThreadBudget(total=100)
    assert budget.spent(Usage(input_tokens=99)) is None
    assert budget.spent(Usage(input_tokens=60, output_tokens=40)) == "thread total tokens 100 >= budget 100"
    assert ThreadBudget().spent(Usage(input_tokens=10**9)) is None


@given(conversations())
def test_every_turn_is_kept_in_order(made: tuple[Conversation, list[ConversationMessage]]) -> None:
    conversation, added = made
    assert list(conversation.messages) == added
    assert conversation.tokens() == sum(map(estimate_tokens, added))


@given(conversations(), st.integers(0, 2_000), _TEXT)
def test_compression_always_fits_its_budget_and_keeps_a_suffix_of_whole_turns(
    made: tuple[Conversation, list[ConversationMessage]], budget: int, summary: str
) -> None:
    conversation, added = made
    small = conversation.compressed(summary, budget)
    assert small.tokens() <= budget
    kept = list(small.messages)
    assert kept == added[len(added) - len(kept) :]  # the newest messages, in order
    assert small.summarized == len(added) - len(kept)  # every other one is what the summary stands for
    assert not kept or isinstance(kept[0], UserMessage)  # whole turns: no result without its call
    assert (small.turns, small.usage) == (conversation.turns, conversation.usage)


@given(st.lists(st.one_of(turns(), st.tuples(st.integers(0, 2_000), _TEXT)), max_size=10))
def test_the_estimate_kept_along_turns_and_compressions_is_the_count_of_what_is_sent(
    steps: list[list[ConversationMessage] | tuple[int, str]],
) -> None:
    conversation = Conversation()
    for step in steps:  # a turn added, or a compression within a budget with a summary
        conversation = (
            conversation.compressed(step[1], step[0]) if isinstance(step, tuple) else conversation.then(step)
        )
        counted = sum(map(estimate_tokens, conversation.sent()))
        assert conversation.tokens() == counted  # kept up step by step, never summed again
        assert attrs.evolve(conversation).tokens() == counted  # a copy (as one decoded) counts it afresh


@given(conversations(), st.integers(0, 2_000))
def test_a_conversation_within_its_budget_is_not_over_it(
    made: tuple[Conversation, list[ConversationMessage]], budget: int
) -> None:
    conversation, _ = made
    assert conversation.over(budget) == (conversation.tokens() > budget)
    assert not conversation.over(None)


def test_the_transcript_shows_roles_tool_calls_and_results() -> None:
    call = ToolCall("c1", "lookup", {"q": "Ada"})
    turn: list[ConversationMessage] = [
        AssistantMessage(tool_calls=(call,)),
        ToolResultMessage("c1", "lookup", "found"),
    ]
    text = conversation_json(turn)
    assert text == (
        '[{"role": "assistant", "content": "", "tool_calls": [{"name": "lookup", "args": {"q": "Ada"}}]}, '
        '{"role": "tool", "name": "lookup", "content": "found", "error": false}]'
    )
