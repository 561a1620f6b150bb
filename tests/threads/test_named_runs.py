"""A caller may name a turn's run (``run_id``), as ``Durable.start`` lets it name a run: AG-UI's runId does.

On both stores, through ``chat``, ``achat``, ``astream_chat`` and ``fork_thread``; an id that looks
like a credential is refused before anything is stored, as ``start`` refuses it.
"""

from __future__ import annotations

import asyncio

from agentsm_fn.durable import RunIdRefused, RunStore, ThreadStore
from agentsm_fn.durable.operations.threads import fork_thread
from agentsm_fn.stream import Finished
from tests.threads.chatter import CHATTY

CREDENTIAL = "sk-" + "abcdefghij" * 3


def test_each_way_to_send_a_message_runs_its_turn_under_the_id_given(store: RunStore) -> None:
    assert isinstance(store, ThreadStore)
    assert CHATTY.chat(store, "t1", "one", run_id="turn-a").unwrap().run_id == "turn-a"
    assert asyncio.run(CHATTY.achat(store, "t1", "two", run_id="turn-b")).unwrap().run_id == "turn-b"

    async def streamed() -> list[object]:
        return [event async for event in CHATTY.astream_chat(store, "t1", "three", run_id="turn-c")]

    last = asyncio.run(streamed())[-1]
    assert isinstance(last, Finished) and last.run_id == "turn-c"
    forked = fork_thread(CHATTY, store, "t1", 1, "TWO", "t2", run_id="fork-b").unwrap()
    assert (forked.thread_id, forked.run_id) == ("t2", "fork-b")
    assert [t.run_id for t in store.turns("t1").unwrap()] == ["turn-a", "turn-b", "turn-c"]
    assert [t.run_id for t in store.turns("t2").unwrap()] == ["turn-a", "fork-b"]


def test_a_turn_run_id_that_looks_like_a_credential_is_refused_and_nothing_is_stored(store: RunStore) -> None:
    assert isinstance(store, ThreadStore)
    assert isinstance(CHATTY.chat(store, "t1", "one", run_id=CREDENTIAL).failure(), RunIdRefused)
    assert store.turns("t1").unwrap() == ()
    CHATTY.chat(store, "t1", "one").unwrap()
    refused = fork_thread(CHATTY, store, "t1", 0, "ONE", "t2", run_id=CREDENTIAL).failure()
    assert isinstance(refused, RunIdRefused)
    assert store.thread("t2").failure() is not None and len(store.runs().unwrap()) == 1
