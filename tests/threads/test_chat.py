"""One call per turn: each turn starts from the thread so far; a busy thread refuses (or queues) a message.

On both stores, through ``Durable.chat``, ``achat`` and ``astream_chat``, with the chatter machine
(tests/threads/chatter.py: its reply says how many messages the turn saw).
"""

from __future__ import annotations

import asyncio
import threading

from returns.result import Success

from agentsm_fn.durable import (
    Durable,
    NewTurn,
    NoSuchTurn,
    NotConversational,
    OtherMachine,
    RunStore,
    ThreadBusy,
    ThreadIdRefused,
    ThreadQuery,
    ThreadStore,
    TurnStatus,
)
from agentsm_fn.durable.operations.answers import answer
from agentsm_fn.durable.operations.threads import advance_thread, conversation_after, fork_thread
from agentsm_fn.llm import AssistantMessage, UserMessage
from agentsm_fn.stream import Failed, Finished, RunEvent
from tests.durable.machines import DURABLE_ORDERS
from tests.threads.chatter import CHATTY


def threads(store: RunStore) -> ThreadStore:
    assert isinstance(store, ThreadStore)
    return store


def test_each_turn_starts_from_the_thread_so_far_and_its_number_is_its_place(store: RunStore) -> None:
    turns = [CHATTY.chat(store, "t1", message).unwrap() for message in ("I am Ada.", "Hi?", "My name?")]
    assert [(t.thread_id, t.turn, t.finished) for t in turns] == [
        ("t1", 0, True),
        ("t1", 1, True),
        ("t1", 2, True),
    ]
    assert [t.run.snapshot.memory.reply for t in turns] == [
        "I am Ada. (after 0)",
        "Hi? (after 2)",
        "My name? (after 4)",
    ]
    assert list(turns[2].run.snapshot.memory.thread.messages) == [
        UserMessage("I am Ada."),
        AssistantMessage("I am Ada. (after 0)"),
        UserMessage("Hi?"),
        AssistantMessage("Hi? (after 2)"),
    ]
    record = threads(store).thread("t1").unwrap()
    assert (record.machine, record.turns) == (CHATTY.name, 3)
    assert [t.run_id for t in threads(store).turns("t1").unwrap()] == [t.run_id for t in turns]
    assert all(t.so_far_kept for t in threads(store).turns("t1").unwrap())


def test_the_async_call_and_the_stream_take_turns_alike(store: RunStore) -> None:
    async def both() -> tuple[object, list[RunEvent]]:
        first = await CHATTY.achat(store, "t1", "one")
        events = [event async for event in CHATTY.astream_chat(store, "t1", "two")]
        return first, events

    first, events = asyncio.run(both())
    assert isinstance(first, Success) and first.unwrap().turn == 0
    last = events[-1]
    assert isinstance(last, Finished) and isinstance(last.result, Success)
    assert last.result.unwrap().snapshot.memory.reply == "two (after 2)"
    assert threads(store).turns("t1").unwrap()[1].so_far_kept


def test_a_message_while_a_turn_waits_is_refused_naming_the_turn_then_the_thread_goes_on(
    store: RunStore,
) -> None:
    waiting = CHATTY.chat(store, "t1", "ask: colour?").unwrap()
    assert not waiting.finished
    busy = ThreadBusy(thread_id="t1", turn=0, run_id=waiting.run_id, status="waiting")
    assert CHATTY.chat(store, "t1", "next").failure() == busy

    async def streamed() -> list[RunEvent]:
        return [event async for event in CHATTY.astream_chat(store, "t1", "next")]

    (refused,) = asyncio.run(streamed())
    assert isinstance(refused, Failed) and refused.reason == "ThreadBusy" and refused.run_id == ""
    answer(store, waiting.run_id, 1, "blue").unwrap()
    assert CHATTY.resume(store, waiting.run_id).unwrap().finished  # not through the thread: nothing kept
    assert not threads(store).turns("t1").unwrap()[0].so_far_kept
    after = CHATTY.chat(store, "t1", "next").unwrap()
    assert list(after.run.snapshot.memory.thread.messages) == [
        UserMessage("ask: colour?"),
        AssistantMessage("blue"),
    ]
    assert threads(store).turns("t1").unwrap()[0].so_far_kept  # the one replay is kept for the next turn


def test_a_queued_message_waits_for_the_turn_before_it_then_runs_in_order(store: RunStore) -> None:
    waiting = CHATTY.chat(store, "t1", "ask: colour?").unwrap()
    results: list[object] = []
    sender = threading.Thread(
        target=lambda: results.append(CHATTY.chat(store, "t1", "later", queue=True, poll=0.01))
    )
    sender.start()
    while len(threads(store).turns("t1").unwrap()) < 2:  # the queued message took turn 1 at once
        sender.join(0.01)
    assert threads(store).turns("t1").unwrap()[1].status is TurnStatus.QUEUED
    answer(store, waiting.run_id, 1, "blue").unwrap()
    CHATTY.resume(store, waiting.run_id).unwrap()
    sender.join()
    (done,) = results
    assert isinstance(done, Success) and done.unwrap().turn == 1
    assert done.unwrap().run.snapshot.memory.reply == "later (after 2)"


def test_a_queued_turn_whose_sender_went_away_is_run_by_advance(store: RunStore) -> None:
    first = CHATTY.chat(store, "t1", "ask: colour?").unwrap()
    # Senders queued two messages behind it and died: only their turns are stored.
    for number, message in ((1, "one"), (2, "two")):
        threads(store).take_turn(
            NewTurn(thread_id="t1", turn=number, run_id=f"q{number}", message=message, created=1.0), None
        ).unwrap()
    assert advance_thread(CHATTY, store, "t1").unwrap() == ()  # turn 0 still waits
    answer(store, first.run_id, 1, "blue").unwrap()
    CHATTY.resume(store, first.run_id).unwrap()
    done = advance_thread(CHATTY, store, "t1").unwrap()
    assert [(t.turn, t.run.snapshot.memory.reply) for t in done] == [
        (1, "one (after 2)"),
        (2, "two (after 4)"),
    ]


def test_forking_at_a_turn_with_an_edited_message_is_a_fork_of_that_turns_run(store: RunStore) -> None:
    turns = [CHATTY.chat(store, "t1", message).unwrap() for message in ("I am Ada.", "Hi?", "Bye.")]
    forked = fork_thread(CHATTY, store, "t1", 1, "Hello?", new_thread_id="t2").unwrap()
    assert (forked.thread_id, forked.turn, forked.run.snapshot.memory.reply) == ("t2", 1, "Hello? (after 2)")
    record = store.get(forked.run_id).unwrap()
    assert (record.parent, record.parent_step) == (turns[1].run_id, 0)
    assert [t.run_id for t in threads(store).turns("t2").unwrap()] == [turns[0].run_id, forked.run_id]
    assert threads(store).thread("t1").unwrap().turns == 3  # the original is left as it was
    assert CHATTY.chat(store, "t2", "And?").unwrap().run.snapshot.memory.reply == "And? (after 4)"
    assert fork_thread(CHATTY, store, "t1", 7, "x").failure() == NoSuchTurn(thread_id="t1", turn=7, turns=3)


def test_a_machine_without_a_turn_start_a_thread_of_another_machine_and_a_secret_id_are_refused(
    store: RunStore,
) -> None:
    assert DURABLE_ORDERS.chat(store, "t1", "hi").failure() == NotConversational(machine=DURABLE_ORDERS.name)
    CHATTY.chat(store, "t1", "hi").unwrap()
    other = Durable(name="tests.elsewhere:OTHER", machine=CHATTY.machine, turns=CHATTY.turns)
    assert other.chat(store, "t1", "hi").failure() == OtherMachine(
        thread_id="t1", machine=CHATTY.name, asked="tests.elsewhere:OTHER"
    )
    refused = CHATTY.chat(store, "sk-" + "abcdefghij" * 3, "hi").failure()
    assert isinstance(refused, ThreadIdRefused) and "abcdefghij" not in refused.describe()
    assert [t.thread_id for t in threads(store).threads(ThreadQuery()).unwrap()] == ["t1"]


def test_the_conversation_after_a_turn_is_what_the_next_turn_starts_from(store: RunStore) -> None:
    for message in ("one", "two", "ask: three?"):
        CHATTY.chat(store, "t1", message).unwrap()
    assert [m.content for m in conversation_after(CHATTY, store, "t1").unwrap().messages] == [
        "one",
        "one (after 0)",
        "two",
        "two (after 2)",
    ]  # turn 2 waits: the last ended turn is 1
    assert [m.content for m in conversation_after(CHATTY, store, "t1", 0).unwrap().messages] == [
        "one",
        "one (after 0)",
    ]
    assert conversation_after(CHATTY, store, "t1", 2).failure() == NoSuchTurn(
        thread_id="t1", turn=2, turns=3, why="turn 2 has not ended"
    )
    assert conversation_after(CHATTY, store, "t1", 3).failure() == NoSuchTurn(thread_id="t1", turn=3, turns=3)
