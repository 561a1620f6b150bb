"""Within a thread, later turns go to the agent that holds the conversation (SQLite and PostgreSQL).

Turn 1 is sent to triage, which hands off to refunds: the thread records refunds as its holder,
and turn 2 is a run of refunds, started from refunds' own conversation (what the handoff let
through, the user's message, its answer); triage's model is not asked. A hand back moves the
holder again; a fork keeps the holder as of its turn; another process (a new store, a new
Python) goes on with the holder, which it imports by its name.
"""

from __future__ import annotations

import asyncio
import itertools
import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentsm_fn.durable import HolderUnknown, NewTurn, RunStore, ThreadStore, is_postgres, open_store
from agentsm_fn.durable.operations.threads import advance_thread, fork_thread
from agentsm_fn.durable.running._so_far import forget_known
from tests.durable.stores import execute
from tests.teams.holders import AGENTS, ASKED, REFUNDS, TRIAGE

_THREADS = itertools.count()


def _held(store: RunStore, thread_id: str) -> list[str]:
    assert isinstance(store, ThreadStore)
    return [row.holder.rpartition(":")[2].lower() for row in store.turns(thread_id).unwrap()]


def _ran(store: RunStore, run_id: str) -> str:
    return store.get(run_id).unwrap().machine.rpartition(":")[2].lower()


def test_the_next_turn_goes_to_the_agent_a_handoff_gave_the_thread_and_a_hand_back_moves_it(
    store: RunStore,
) -> None:
    ASKED.clear()
    first = TRIAGE.chat(store, "t1", "Refund A-17 to:refunds").unwrap()
    assert first.run.snapshot.memory.final_answer == "refunds answers after 1 user messages"
    assert _held(store, "t1") == ["refunds"]
    assert isinstance(store, ThreadStore) and store.thread("t1").unwrap().holder == REFUNDS.name
    ASKED.clear()
    second = TRIAGE.chat(store, "t1", "And the shipping?").unwrap()
    assert ASKED == [("refunds", "And the shipping?")]  # straight to refunds; triage is not asked
    assert _ran(store, second.run_id) == "refunds"
    assert second.run.snapshot.memory.final_answer == "refunds answers after 2 user messages"
    back = TRIAGE.chat(store, "t1", "Something else to:triage").unwrap()
    assert _ran(store, back.run_id) == "refunds" and _held(store, "t1")[-1] == "triage"
    ASKED.clear()
    TRIAGE.chat(store, "t1", "Hello").unwrap()
    assert [agent for agent, _ in ASKED] == ["triage"]
    assert _held(store, "t1") == ["refunds", "refunds", "triage", "triage"]


def test_a_fork_keeps_the_holder_as_of_its_turn(store: RunStore) -> None:
    for message in ("Refund A-17 to:refunds", "Thanks", "Bills to:billing"):
        TRIAGE.chat(store, "t1", message).unwrap()
    ASKED.clear()
    forked = fork_thread(TRIAGE, store, "t1", 2, "Edited", new_thread_id="t2").unwrap()
    assert ASKED == [("refunds", "Edited")] and _ran(store, forked.run_id) == "refunds"
    assert _held(store, "t2") == ["refunds", "refunds", "refunds"]
    first = fork_thread(TRIAGE, store, "t1", 0, "Hello", new_thread_id="t3").unwrap()
    assert _ran(store, first.run_id) == "triage"


def test_a_new_store_and_a_new_process_go_on_with_the_holder(store_db: str) -> None:
    store = open_store(store_db).unwrap()
    try:
        TRIAGE.chat(store, "t1", "Refund A-17 to:refunds").unwrap()
    finally:
        store.close()
    forget_known()  # as a process that ran none of the turns
    again = open_store(store_db).unwrap()
    try:
        turn = asyncio.run(TRIAGE.achat(again, "t1", "And the shipping?")).unwrap()
        assert _ran(again, turn.run_id) == "refunds"
    finally:
        again.close()
    if is_postgres(store_db):
        return  # one new Python is enough (on SQLite): it starts in seconds
    ran = subprocess.run(
        [sys.executable, "-m", "tests.teams.holders", store_db, "t1", "Anything else?"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert ran.stdout.strip() == f"{REFUNDS.name}|refunds answers after 3 user messages"


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    routes=st.lists(
        st.one_of(
            st.just(()), st.permutations(AGENTS).flatmap(lambda p: st.integers(1, 3).map(lambda n: p[:n]))
        ),
        min_size=1,
        max_size=5,
    )
)
def test_the_holder_after_each_turn_is_where_its_handoffs_ended(
    store: RunStore, routes: list[tuple[str, ...]]
) -> None:
    thread_id = f"h{next(_THREADS)}"
    holder = "triage"
    for number, path in enumerate(routes):
        ASKED.clear()
        message = f"m{number} to:{','.join(path)}" if path else f"m{number}"
        turn = TRIAGE.chat(store, thread_id, message).unwrap()
        assert _ran(store, turn.run_id) == holder and ASKED[0][0] == holder  # the turn went to the holder
        holder = path[-1] if path else holder  # each hands on along the route; its last answers
        assert _held(store, thread_id)[-1] == holder
        assert turn.run.snapshot.memory.final_answer.startswith(f"{holder} answers")


def test_a_queued_turn_left_behind_runs_on_the_holder(store: RunStore) -> None:
    TRIAGE.chat(store, "t1", "Refund A-17 to:refunds").unwrap()
    assert isinstance(store, ThreadStore)
    queued = NewTurn(thread_id="t1", turn=1, run_id="q1", message="Still there?", created=1.0)
    store.take_turn(queued, None).unwrap()  # its sender went away before the turn before it ended
    ASKED.clear()
    (ran,) = advance_thread(TRIAGE, store, "t1").unwrap()
    assert (ran.run_id, _ran(store, "q1"), ASKED) == ("q1", "refunds", [("refunds", "Still there?")])
    assert ran.run.snapshot.memory.final_answer == "refunds answers after 2 user messages"


def test_a_holder_that_cannot_be_found_refuses_the_turn_and_says_why(store: RunStore, store_db: str) -> None:
    first = TRIAGE.chat(store, "t1", "Hello").unwrap()
    execute(
        store_db, "INSERT INTO turn_holders(run_id, holder) VALUES (?, ?)", (first.run_id, "tests.nowhere:X")
    )
    forget_known()  # as another process: the holder is read from the store
    refused = TRIAGE.chat(store, "t1", "Hello again").failure()
    assert isinstance(refused, HolderUnknown) and refused.holder == "tests.nowhere:X"
    assert "cannot take a turn" in refused.describe()
