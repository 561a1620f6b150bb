"""Backpressure: a slow consumer holds the run back; deltas merge; transitions and effects are all kept."""

from __future__ import annotations

import asyncio

from agentsm_fn import Performers, Shell, astream
from agentsm_fn.providers import TextDelta
from agentsm_fn.shell import report_delta
from agentsm_fn.stream import EffectCompleted, EffectRequested, Finished, LlmTextDelta, RunEvent, Transitioned
from tests.stream.helpers import positions
from tests.stream.machines import COUNTING, Count, Number

EFFECTS = 60
BUFFER = 4


async def _slowly(events: list[RunEvent], received: list[int], source: object) -> None:
    async for event in source:  # type: ignore[attr-defined]  # an async iterator of events
        events.append(event)
        received[0] += 1
        for _ in range(5):  # a slow consumer: it lets the loop run other work before taking the next event
            await asyncio.sleep(0)


async def test_a_slow_consumer_holds_the_run_back_and_loses_no_transition_or_effect() -> None:
    received = [0]
    seen_at_call: list[int] = []

    def number(effect: Number) -> int:
        seen_at_call.append(received[0])
        return len(seen_at_call)

    events: list[RunEvent] = []
    shell = Shell(performers=Performers().on(Number, number))
    await _slowly(events, received, astream(COUNTING, Count(limit=EFFECTS), shell, buffer=BUFFER))
    requests = [i for i, event in enumerate(events) if isinstance(event, EffectRequested)]
    assert len(requests) == len(seen_at_call) == EFFECTS
    for call, index in enumerate(requests):
        produced = index + 1  # everything up to this effect's request was put before it was performed
        assert produced - seen_at_call[call] < BUFFER, (
            f"effect {call} ran {produced - seen_at_call[call]} events ahead"
        )
    assert sum(isinstance(e, Transitioned) for e in events) == EFFECTS + 1
    assert sum(isinstance(e, EffectCompleted) for e in events) == EFFECTS
    assert positions(events) == list(range(len(events) - 1))
    finished = events[-1]
    assert isinstance(finished, Finished)
    assert finished.result.unwrap().memory.numbers == tuple(range(1, EFFECTS + 1))  # type: ignore[attr-defined]


async def test_a_fast_consumer_is_never_made_to_wait_for_and_gets_every_event() -> None:
    shell = Shell(performers=Performers().on(Number, lambda effect: 1))
    events = [event async for event in astream(COUNTING, Count(limit=EFFECTS), shell, buffer=BUFFER)]
    assert positions(events) == list(range(3 * EFFECTS + 2))


async def test_text_deltas_merge_when_the_consumer_is_behind_and_lose_no_text() -> None:
    words = [f"w{i} " for i in range(50)]

    def streaming(effect: Number) -> int:
        for word in words:
            report_delta(TextDelta(word))  # as a streaming provider reports what it decodes
        return 1

    events: list[RunEvent] = []
    shell = Shell(performers=Performers().on(Number, streaming))
    await _slowly(events, [0], astream(COUNTING, Count(limit=5), shell, buffer=BUFFER))
    deltas = [event for event in events if isinstance(event, LlmTextDelta)]
    for request in (event for event in events if isinstance(event, EffectRequested)):
        text = "".join(delta.text for delta in deltas if delta.position == request.position)
        assert text == "".join(words)
    assert len(deltas) < 5 * len(words)  # merged: the consumer was behind
    assert positions(events) == list(range(len(positions(events))))
    assert sum(isinstance(e, EffectCompleted) for e in events) == 5
