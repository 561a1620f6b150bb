"""A tool approval inside a child run is what its parent waits for: listed under it, answered once through it.

On SQLite and PostgreSQL (the ``store`` fixture): ``pending_of`` the parent shows the child's (or
grandchild's) pending approval with the path down to it; ``answer_below`` answers it through the
parent once (a second answer, through the parent or the child, is refused); resuming the parent
runs the child on and the parent finishes with the child's answer, the approved call made once.
A Hypothesis property answers a fan-out's approvals (SQLite) in any order, resuming the parent or
the child each time: every answer is taken once, and the parent gathers each child's decision.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Failure

from agentsm_fn.agents.react import AskHuman, State
from agentsm_fn.agents.react.outcomes import Approved, Rejected
from agentsm_fn.durable import AnswerRefusal, AnswerRefused, RunStatus, RunStore, SqliteStore, child_run_id
from agentsm_fn.durable.operations.answers import answer, pending
from agentsm_fn.durable.operations.waiting_below import answer_below, path_below, pending_of
from agentsm_fn.durable.running.replay import replay_stored
from tests.teams.approving import ASKERS, ASKERS_LIMIT, DESK, REFUNDED
from tests.teams.programs import ASKING, GRAND, Boss, P


@pytest.fixture(autouse=True)
def refunds() -> Iterator[list[str]]:
    REFUNDED.clear()
    yield REFUNDED
    REFUNDED.clear()


def _refusal(found: object) -> AnswerRefusal:
    assert isinstance(found, AnswerRefused)
    return found.kind


def test_an_agent_tools_approval_is_pending_under_the_parent_and_answered_once_through_it(
    store: RunStore,
) -> None:
    waiting = DESK.start(store, DESK.template, run_id="desk").unwrap()
    assert not waiting.finished and store.get("desk").unwrap().status is RunStatus.WAITING
    (asked,) = pending_of(store, "desk").unwrap()
    child = asked.run_id
    assert child.startswith("desk.c") and asked.path == ("desk",)
    assert isinstance(asked.effect, AskHuman) and asked.effect.request.tool_call.name == "refund"
    assert pending_of(store, child).unwrap() == (attrs.evolve(asked, path=()),)
    assert [p.run_id for p in pending(store).unwrap()] == ["desk", child]  # every waiting run, as before
    assert answer_below(store, "desk", child, asked.seq, Approved()).unwrap() == ("desk",)
    again = answer_below(store, "desk", child, asked.seq, Approved())
    assert _refusal(again.failure()) is AnswerRefusal.ANSWERED_ALREADY
    directly = answer(store, child, asked.seq, Rejected("no"))
    assert _refusal(directly.failure()) is AnswerRefusal.ANSWERED_ALREADY
    assert pending_of(store, "desk").unwrap() == ()  # the child is READY: nothing waits for a person
    done = DESK.resume(store, "desk").unwrap()
    assert done.finished and done.snapshot.state is State.Done
    assert done.snapshot.memory.final_answer == "Desk: SUCCESS: Refund: SUCCESS: A-17 refunded"
    assert REFUNDED == ["A-17"]
    assert store.get(child).unwrap().status is RunStatus.FINISHED


def test_a_grandchilds_approval_shows_its_path_and_resuming_the_top_runs_the_chain(store: RunStore) -> None:
    GRAND.start(store, Boss(n=3), run_id="grand").unwrap()
    middle = child_run_id("grand", 0)
    asking = child_run_id(middle, 0)
    (asked,) = pending_of(store, "grand").unwrap()
    assert (asked.run_id, asked.seq, asked.path) == (asking, 0, ("grand", middle))
    assert [p.path for p in pending_of(store, middle).unwrap()] == [(middle,)]
    assert path_below(store, "grand", asking).unwrap() == ("grand", middle)
    assert path_below(store, middle, "grand").unwrap() is None
    answer_below(store, "grand", asking, 0, True).unwrap()
    done = GRAND.resume(store, "grand").unwrap()
    assert done.finished and done.snapshot.state is P.DONE
    assert [store.get(r).unwrap().status for r in ("grand", middle, asking)] == [RunStatus.FINISHED] * 3


def test_an_answer_through_a_run_the_child_is_not_under_is_refused(store: RunStore) -> None:
    GRAND.start(store, Boss(n=3), run_id="grand").unwrap()
    GRAND.start(store, Boss(n=4), run_id="other").unwrap()
    asking = child_run_id(child_run_id("grand", 0), 0)
    refused = answer_below(store, "other", asking, 0, True)
    assert _refusal(refused.failure()) is AnswerRefusal.NOT_BELOW
    assert [p.run_id for p in pending_of(store, "grand").unwrap()] == [asking]  # still waits
    assert _refusal(answer_below(store, asking, "grand", 0, True).failure()) is AnswerRefusal.NOT_BELOW


@settings(max_examples=25, deadline=None)
@given(approved=st.lists(st.booleans(), min_size=1, max_size=4), data=st.data())
def test_a_fan_outs_approvals_answered_through_the_parent_in_any_order_finish_it_once(
    approved: list[bool], data: st.DataObject
) -> None:
    with (
        tempfile.TemporaryDirectory() as folder,
        closing(SqliteStore.open(Path(folder) / "r.db").unwrap()) as store,
    ):
        items = tuple(range(1, len(approved) + 1))
        ASKERS.start(store, Boss(items=items), run_id="fan").unwrap()
        children = [child_run_id("fan", 0, i) for i in range(len(items))]
        for answered in range(len(items)):
            asked = pending_of(store, "fan").unwrap()
            # as many wait as may run at once: an ended child starts the first one waiting, in any order
            assert len(asked) == min(ASKERS_LIMIT, len(items) - answered)
            assert all(a.path == ("fan",) and a.run_id in children for a in asked)
            chosen = data.draw(st.sampled_from(asked))
            decision = approved[children.index(chosen.run_id)]
            answer_below(store, "fan", chosen.run_id, chosen.seq, decision).unwrap()
            again = answer_below(store, "fan", chosen.run_id, chosen.seq, not decision)
            assert _refusal(again.failure()) is AnswerRefusal.ANSWERED_ALREADY
            if data.draw(st.booleans()):
                ASKERS.resume(store, "fan").unwrap()  # through the parent: it runs the child on
            else:
                ASKING.resume(store, chosen.run_id).unwrap()  # the child itself: it goes up to the parent
        record = store.get("fan").unwrap()
        assert record.status is RunStatus.FINISHED and pending_of(store, "fan").unwrap() == ()
        replayed = replay_stored(store, ASKERS.machine, "fan")
        assert not isinstance(replayed, Failure), replayed.failure()
        gathered = replayed.unwrap().memory.gathered
        assert gathered is not None
        assert [
            (o.run_id, getattr(o, "state", ""), getattr(o, "result", None)) for o in gathered.outcomes
        ] == [
            (child, "DONE" if yes else "REFUSED", n * 10)
            for child, yes, n in zip(children, approved, items, strict=True)
        ]
