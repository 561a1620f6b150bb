"""A recorded run replays against the current code: the same code and a refactor pass, a planted change fails
at its step with the old and the new request (or row, or end)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import attrs
import pytest
from returns.result import Success

from agentsm_fn.core import begin
from agentsm_fn.durable import Durable, RunStore, SqliteStore
from agentsm_fn.durable.operations.answers import answer
from agentsm_fn.regression import (
    Divergence,
    DivergenceKind,
    Recording,
    record_run,
    record_stored,
    replay_recording,
)
from agentsm_fn.shell import run
from tests.regression.refunds import CRASHES, FORGETFUL, OVERPAYS, REFACTORED, REFUNDS, STRICT, Desk


@pytest.fixture
def store() -> Iterator[RunStore]:
    opened = SqliteStore.open(":memory:").unwrap()
    yield opened
    opened.close()


def recorded(store: RunStore, order: str, message: str = "Please refund my order") -> Recording:
    REFUNDS.start(store, Desk(message=message, order=order), run_id=order)
    return record_stored(store, REFUNDS, order).unwrap()


def diverges(recording: Recording, target: Durable[Any, Any, Any]) -> Divergence:
    failure = replay_recording(recording, target, "desk.recording.json").failure()
    assert isinstance(failure, Divergence), failure
    return failure


def test_a_recorded_run_replays_against_the_code_that_made_it(store: RunStore) -> None:
    recording = recorded(store, "o-1")
    assert recording.end.status == "finished"
    assert recording.rows == (
        "START -BEGIN-> READING",
        "READING -REFUND-> LOOKING",
        "LOOKING -FOUND-> REFUNDING",
        "REFUNDING -REFUNDED-> DONE",
    )
    assert [e.summary for e in recording.effects] == ["Classify", "Lookup", "Refund"]
    replayed = replay_recording(recording, REFUNDS, "desk.recording.json").unwrap()
    assert (replayed.steps, replayed.effects, replayed.machine_changed) == (4, 3, False)


def test_a_refactor_that_changes_nothing_passes_though_its_fingerprint_changed(store: RunStore) -> None:
    for order in ("o-1", "o-2", "o-3"):
        replayed = replay_recording(recorded(store, order), REFACTORED).unwrap()
        assert replayed.machine_changed


def test_a_planted_handler_change_fails_at_its_step_with_the_old_and_the_new_request(store: RunStore) -> None:
    divergence = diverges(recorded(store, "o-1"), OVERPAYS)
    assert (divergence.kind, divergence.step, divergence.state, divergence.seq) == (
        DivergenceKind.REQUEST,
        4,
        "REFUNDING",
        2,
    )
    report = divergence.describe()
    assert report.splitlines()[0] == (
        "desk.recording.json: diverges at step 4 (effect 2) in state REFUNDING: asks for another effect"
        " [the machine's fingerprint changed]"
    )
    assert '  - "amount": 40\n  + "amount": 41' in report
    assert '"$class": "tests.regression.refunds:Refund"' in divergence.recorded


def test_a_planted_routing_change_fails_at_the_row_it_takes_instead(store: RunStore) -> None:
    divergence = diverges(recorded(store, "o-3"), STRICT)
    assert (divergence.kind, divergence.step, divergence.state) == (DivergenceKind.ROW, 3, "LOOKING")
    assert (divergence.recorded, divergence.replayed) == (
        "LOOKING -FOUND-> REFUNDING",
        "LOOKING -LARGE-> APPROVING",
    )
    assert (
        "recorded: LOOKING -FOUND-> REFUNDING\n  now:      LOOKING -LARGE-> APPROVING"
        in divergence.describe()
    )


def test_a_change_to_what_the_run_remembers_fails_at_its_end_with_the_memory_diff(store: RunStore) -> None:
    divergence = diverges(recorded(store, "o-1"), FORGETFUL)
    assert (divergence.kind, divergence.step, divergence.detail) == (
        DivergenceKind.END,
        4,
        "the final memory differs",
    )
    assert '  -   "classified refund"\n  +   "refund"' in divergence.describe()


def test_a_change_in_code_the_run_never_reached_passes(store: RunStore) -> None:
    recording = recorded(store, "o-1", message="Where is my parcel?")
    assert recording.rows[-1] == "READING -OTHER-> DONE"
    assert isinstance(replay_recording(recording, OVERPAYS), Success)


def test_a_waiting_run_replays_to_the_same_request_and_its_answer_is_recorded_once_given(
    store: RunStore,
) -> None:
    waiting = recorded(store, "o-2")
    assert (waiting.end.status, waiting.effects[-1].summary, waiting.effects[-1].answered) == (
        "awaiting",
        "Approve",
        False,
    )
    assert isinstance(replay_recording(waiting, REFUNDS), Success)
    assert isinstance(replay_recording(waiting, OVERPAYS), Success)  # the refund is not reached yet
    answer(store, "o-2", 2, True).unwrap()
    REFUNDS.resume(store, "o-2").unwrap()
    approved = record_stored(store, REFUNDS, "o-2").unwrap()
    assert approved.rows[3:] == ("APPROVING -APPROVED-> REFUNDING", "REFUNDING -REFUNDED-> DONE")
    assert diverges(approved, OVERPAYS).step == 5


def test_a_run_that_failed_replays_to_the_same_failure_and_a_fix_is_a_divergence(store: RunStore) -> None:
    recording = recorded(store, "o-bad")
    assert recording.end.status == "failed"
    assert "negative amount" in recording.end.reason
    assert isinstance(replay_recording(recording, REFACTORED), Success)
    fixed = attrs.evolve(recording, end=attrs.evolve(recording.end, status="finished", reason=""))
    divergence = diverges(fixed, REFUNDS)
    assert divergence.kind is DivergenceKind.END
    assert divergence.replayed.startswith("failed in LOOKING after 2 steps: ")


def test_a_run_recorded_in_memory_is_the_stored_runs_recording(store: RunStore) -> None:
    desk = Desk(message="Please refund my order", order="o-3")
    machine = REFUNDS.machine
    start = begin(machine, desk)
    in_memory = record_run(
        machine, start, run(machine, start, REFUNDS.shell()).unwrap(), REFUNDS.name
    ).unwrap()
    stored = recorded(store, "o-3")
    same = ("machine", "fingerprint", "start_state", "memory", "rows", "end")
    assert {f: getattr(in_memory, f) for f in same} == {f: getattr(stored, f) for f in same}
    assert [(e.digest, e.request, e.outcome) for e in in_memory.effects] == [
        (e.digest, e.request, e.outcome) for e in stored.effects
    ]
    assert isinstance(replay_recording(in_memory, REFUNDS), Success)


def test_a_recording_without_its_requests_still_fails_at_the_step_and_shows_the_digest(
    store: RunStore,
) -> None:
    REFUNDS.start(store, Desk(message="refund please", order="o-1"), run_id="r")
    recording = record_stored(store, REFUNDS, "r", requests=False).unwrap()
    assert all(e.request is None for e in recording.effects)
    divergence = diverges(recording, OVERPAYS)
    assert divergence.step == 4
    assert divergence.recorded.startswith(
        f"Refund (digest {recording.effects[2].digest[:16]}; the recording left"
    )


def test_a_handler_that_now_raises_fails_at_its_step_with_the_reason(store: RunStore) -> None:
    divergence = diverges(recorded(store, "o-1"), CRASHES)
    assert (divergence.kind, divergence.step, divergence.state) == (DivergenceKind.FAILS, 3, "LOOKING")
    assert divergence.recorded == "LOOKING -FOUND-> REFUNDING"
    assert divergence.replayed.startswith("fails: ") and "KeyError" in divergence.replayed
    assert "fails where the recording goes on" in divergence.describe()
