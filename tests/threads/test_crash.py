"""A process SIGKILLed in the middle of a turn: ``recover`` finishes that turn once, and the thread goes on.

On each store: turn 0 is sent here; turn 1 by a sender process that kills itself (SIGKILL) while
its turn's reply is being asked for, after the turn's note was committed. ``recover`` then finishes
turn 1 in this process: the note is not written again (its outcome was committed), the reply is
asked for again (retry-safe), the turn ends once. The next message continues the same thread
from turn 1's end.
"""

from __future__ import annotations

import signal
from pathlib import Path

from agentsm_fn.durable import RunStatus, RunStore, ThreadStore, TurnStatus
from agentsm_fn.durable.operations.recovery import recover
from agentsm_fn.llm import AssistantMessage, UserMessage
from tests.threads import chatter
from tests.threads.chatter import CHATTY
from tests.threads.senders import Sender


def test_a_turn_killed_mid_way_is_finished_once_by_recover_and_the_thread_goes_on(
    store: RunStore, store_db: str, tmp_path: Path
) -> None:
    assert isinstance(store, ThreadStore)
    notes = tmp_path / "notes.log"
    CHATTY.chat(store, "t1", "first").unwrap()
    sender = Sender(store_db, notes, env={"CHATTER_DIE_ON": "second"})
    sender.ready("t1", "second")
    sender.go()
    assert sender.close() == -signal.SIGKILL
    killed = store.turns("t1", 1).unwrap()[0]
    assert killed.status is TurnStatus.RUNNING  # its process is gone; nothing ended it
    # The note's outcome is committed; the reply (retry-safe, as an LLM call) is asked for again.
    assert [row.outcome is not None for row in store.journal(killed.run_id).unwrap()] == [True]

    chatter.NOTES[:] = [notes]
    try:
        recovered = recover(store, [CHATTY]).unwrap()
        assert [(r.run_id, r.result.unwrap().finished) for r in recovered] == [(killed.run_id, True)]
        assert recover(store, [CHATTY]).unwrap() == ()  # finished once: nothing left to recover
    finally:
        chatter.NOTES.clear()
    assert notes.read_text().count(" second\n") == 1  # the note was not written again
    assert store.get(killed.run_id).unwrap().status is RunStatus.FINISHED

    third = CHATTY.chat(store, "t1", "third").unwrap()
    assert third.turn == 2
    assert list(third.run.snapshot.memory.thread.messages) == [
        UserMessage("first"),
        AssistantMessage("first (after 0)"),
        UserMessage("second"),
        AssistantMessage("second (after 2)"),
    ]
    assert [t.status for t in store.turns("t1").unwrap()] == [TurnStatus.FINISHED] * 3
