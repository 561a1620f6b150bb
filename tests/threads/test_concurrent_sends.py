"""Several processes send to one thread at the same moment: one turn each, in order, or a refusal.

Real processes (tests/threads/sender.py), on each store, told to send at once. Whatever the
interleaving: the turns taken are numbered one after another from where the thread stood; a
refused sender was refused by ``ThreadBusy`` naming a turn another sender took; a sender that
asked to queue always gets a turn; and every turn started from exactly the turns before it
(its start memory holds their messages and replies, in order), so no two turns ever saw the
same history.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentsm_fn.durable import RunStore, ThreadStore, TurnStatus, from_bytes
from agentsm_fn.llm import AssistantMessage, UserMessage
from tests.threads.chatter import CHATTY, Chat
from tests.threads.senders import Sender, send_at_once

SENDERS = 4


@pytest.fixture
def senders(store_db: str, tmp_path: Path) -> Iterator[list[Sender]]:
    """Four sender processes on the store, kept for every example of a test."""
    started = [Sender(store_db, tmp_path / "notes.log") for _ in range(SENDERS)]
    yield started
    for sender in started:
        sender.close()


def _expected_thread(messages: list[str]) -> list[UserMessage | AssistantMessage]:
    """The thread after turns that were sent ``messages``: each reply says how much its turn saw."""
    thread: list[UserMessage | AssistantMessage] = []
    for number, message in enumerate(messages):
        thread += [UserMessage(message), AssistantMessage(f"{message} (after {2 * number})")]
    return thread


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    queues=st.lists(st.booleans(), min_size=2, max_size=SENDERS),
    earlier=st.integers(min_value=0, max_value=2),
)
def test_senders_at_once_take_one_turn_each_in_order_or_are_refused(
    store: RunStore, senders: list[Sender], queues: list[bool], earlier: int
) -> None:
    assert isinstance(store, ThreadStore)
    thread = f"t-{uuid.uuid4().hex[:8]}"
    for number in range(earlier):
        CHATTY.chat(store, thread, f"earlier {number}").unwrap()
    sent = [(f"from {index}", queue) for index, queue in enumerate(queues)]
    outcomes = send_at_once(senders, thread, sent)

    taken = [o for o in outcomes if "turn" in o and "refused" not in o]
    refused = [o for o in outcomes if "refused" in o]
    assert len(taken) + len(refused) == len(outcomes), outcomes  # nothing else went wrong
    numbers = sorted(int(str(o["turn"])) for o in taken)
    assert numbers == list(range(earlier, earlier + len(taken)))
    for outcome, (_, queue) in zip(outcomes, sent, strict=True):
        if "refused" in outcome:
            assert not queue, outcome  # a queued message always gets its turn
            assert outcome["refused"] == "ThreadBusy" and int(str(outcome["turn"])) in numbers

    turns = store.turns(thread).unwrap()
    assert [t.turn for t in turns] == list(range(earlier + len(taken)))
    assert all(t.status is TurnStatus.FINISHED for t in turns)
    messages = [t.message for t in turns]
    for turn in turns:  # each turn started from exactly the turns before it
        start = from_bytes(store.initial_memory(turn.run_id).unwrap(), Chat).unwrap()
        assert list(start.thread.messages) == _expected_thread(messages[: turn.turn])
        assert start.message == turn.message
