"""Properties of a ReAct thread over any sequence of turns, each a real run of the machine.

Each turn's planning request carries the earlier turns in order (a summary, then the newest
earlier messages exactly as the earlier turns' own requests and replies had them), never more
than the thread's context budget; the agent asks for a compression exactly when the earlier
turns are over that budget, and a turn that compressed replays exactly from its journal.
"""

from __future__ import annotations

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from agentsm_fn.agents.react import REACT_MACHINE, AgentConfig, AgentMemory, State
from agentsm_fn.core import begin, replay
from agentsm_fn.llm import (
    SUMMARY_PREFIX,
    THREAD_COMPRESSION_PROMPT,
    AssistantMessage,
    LlmFailure,
    LlmFailureKind,
    LlmOutcome,
    LlmReply,
    LlmRequest,
    Message,
    SystemMessage,
    ThreadBudget,
    ToolCall,
    Usage,
    UserMessage,
    estimate_tokens,
    turn_start,
)
from agentsm_fn.shell import StepClock, run
from agentsm_fn.shell.react_agent import AgentBuilder

COMPRESSION = THREAD_COMPRESSION_PROMPT.split("\n", 1)[0]
_TEXT = st.text(alphabet="abc XYZ.", min_size=1, max_size=240)


@attrs.frozen(kw_only=True)
class Turn:
    """What one turn's user says and how the model behaves in it."""

    message: str
    looks_up: bool
    answer: str
    summary: str | None  # the compression's reply (None: the call fails)


turns_of = st.builds(Turn, message=_TEXT, looks_up=st.booleans(), answer=_TEXT, summary=st.none() | _TEXT)


class TurnLlm:
    """Answers as scripted: a compression when asked, a lookup first if the turn uses one, the answer."""

    def __init__(self, turn: Turn) -> None:
        self.turn = turn
        self.requests: list[LlmRequest] = []

    def complete(self, request: LlmRequest) -> LlmOutcome:
        self.requests.append(request)
        if _is_compression(request):
            if self.turn.summary is None:
                return LlmFailure(kind=LlmFailureKind.TIMEOUT, message="slow")
            return LlmReply(content=self.turn.summary, usage=Usage(input_tokens=3))
        if self.turn.looks_up and len(self.planning) == 1:
            return LlmReply(
                tool_calls=(ToolCall("", "lookup", {"who": "user"}),), usage=Usage(input_tokens=2)
            )
        return LlmReply(content=self.turn.answer, usage=Usage(output_tokens=1))

    @property
    def planning(self) -> list[LlmRequest]:
        return [r for r in self.requests if not _is_compression(r)]


def _is_compression(request: LlmRequest) -> bool:
    first = request.messages[0]
    return isinstance(first, UserMessage) and first.content.startswith(COMPRESSION)


def _earlier_part(request: LlmRequest, task: str) -> tuple[Message, ...]:
    """The messages between the system prompt and the turn's own task."""
    messages = tuple(m for m in request.messages if not isinstance(m, SystemMessage))
    index = max(i for i, m in enumerate(messages) if m == UserMessage(task))
    return messages[:index]


def _tokens(messages: tuple[Message, ...] | list[Message]) -> int:
    return sum(map(estimate_tokens, messages))


@settings(max_examples=60, deadline=None)
@given(st.lists(turns_of, min_size=1, max_size=6), st.integers(20, 500))
def test_each_turn_sends_the_earlier_turns_in_order_within_budget(turns: list[Turn], context: int) -> None:
    config = AgentConfig(min_answer_length=0, reflect_every_n_steps=0, thread=ThreadBudget(context=context))
    builder = AgentBuilder.new("").system_prompt("Be brief.").config(config).with_clock(StepClock())
    builder = builder.tool("lookup", "Who is the user", {"type": "object"}, lambda who: "Ada Lovelace")
    template = builder.llm(TurnLlm(turns[0])).build().unwrap().memory
    start_turn = turn_start(template.start_turn)
    everything: list[Message] = []  # every message of the earlier turns, as their requests and replies had it
    sent_before: list[
        Message
    ] = []  # what the previous turn's request carried of its earlier turns and its own
    previous: AgentMemory | None = None
    for turn in turns:
        llm = TurnLlm(turn)
        agent = builder.llm(llm).build().unwrap()
        start = (
            start_turn.first(turn.message) if previous is None else start_turn.after(previous, turn.message)
        )
        done = run(REACT_MACHINE, start, agent.shell()).unwrap()
        assert done.state is State.Done
        over = _tokens(sent_before) > context
        compressions = [r for r in llm.requests if _is_compression(r)]
        assert len(compressions) == (1 if over else 0)  # compression is asked exactly when over budget
        assert not compressions or llm.requests[0] is compressions[0]  # before the turn's first plan
        earlier = _earlier_part(llm.planning[0], turn.message)
        assert _tokens(earlier) <= context  # the budget holds
        kept = earlier[1:] if earlier and earlier[0].content.startswith(SUMMARY_PREFIX) else earlier
        assert (
            list(kept) == everything[len(everything) - len(kept) :]
        )  # the newest earlier messages, in order
        assert len(everything) - len(kept) == done.memory.conversation.summarized  # the rest were compressed
        assert not kept or isinstance(kept[0], UserMessage)  # whole turns: no result without its call
        assert all(_earlier_part(r, turn.message) == earlier for r in llm.planning)  # the same all turn long
        if compressions:
            assert replay(REACT_MACHINE, begin(REACT_MACHINE, start), done.journal).unwrap() == done
        own = tuple(m for m in llm.planning[-1].messages if not isinstance(m, SystemMessage))[len(earlier) :]
        everything += [*own, AssistantMessage(turn.answer)]
        sent_before = [*earlier, *own, AssistantMessage(turn.answer)]
        previous = done.memory
    assert previous is not None and previous.thread_so_far().turns == len(turns)


def test_a_compressed_turn_replays_exactly_and_its_trace_shows_the_compression() -> None:
    turn = Turn(message="x" * 200, looks_up=True, answer="y" * 200, summary="About x and y.")
    config = AgentConfig(min_answer_length=0, thread=ThreadBudget(context=40))
    builder = AgentBuilder.new("").config(config).with_clock(StepClock())
    builder = builder.tool("lookup", "Who", {"type": "object"}, lambda who: "Ada")
    turns = turn_start(builder.llm(TurnLlm(turn)).build().unwrap().memory.start_turn)
    first_agent = builder.llm(TurnLlm(turn)).build().unwrap()
    first = run(REACT_MACHINE, turns.first(turn.message), first_agent.shell()).unwrap()
    llm = TurnLlm(turn)
    start = turns.after(first.memory, "And now?")
    done = run(REACT_MACHINE, start, builder.llm(llm).build().unwrap().shell()).unwrap()
    assert _is_compression(llm.requests[0])
    rows = [(e.state, e.event, e.target) for e in done.trace if e.target]
    assert rows[:2] == [("Idle", "ThreadTooLong", "Reflecting"), ("Reflecting", "ReflectDone", "Planning")]
    assert replay(REACT_MACHINE, begin(REACT_MACHINE, start), done.journal).unwrap() == done
    assert done.memory.conversation.summary == "About x and y."
