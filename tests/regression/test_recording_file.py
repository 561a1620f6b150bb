"""A recording is a stable, diffable JSON file that round-trips exactly; a corrupt one is a typed error naming
the file and the field."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings
from pyrsistent import pmap, pset, pvector
from returns.result import Failure, Success

from agentsm_fn.core import begin
from agentsm_fn.durable import RunStore, SqliteStore
from agentsm_fn.regression import (
    RecordingInvalid,
    RecordingProblem,
    from_json_form,
    load_recording,
    record_run,
    record_stored,
    recording_from_json,
    recording_to_json,
    replay_recording,
    to_json_form,
    write_recording,
)
from agentsm_fn.shell import run
from tests.regression.refunds import PRICES, REFUNDS, Desk
from verification.kit import kit_settings, llm_outcomes, llm_requests


@pytest.fixture
def store() -> Iterator[RunStore]:
    opened = SqliteStore.open(":memory:").unwrap()
    yield opened
    opened.close()


@pytest.fixture
def document(store: RunStore) -> dict[str, Any]:
    REFUNDS.start(store, Desk(message="refund please", order="o-1"), run_id="r1")
    parsed: dict[str, Any] = json.loads(recording_to_json(record_stored(store, REFUNDS, "r1").unwrap()))
    return parsed


def invalid(document: object) -> RecordingInvalid:
    found = recording_from_json(json.dumps(document), "desk.recording.json")
    assert isinstance(found, Failure), found
    error: RecordingInvalid = found.failure()
    return error


def test_the_file_reads_as_a_run_machine_start_effects_rows_and_end(document: dict[str, Any]) -> None:
    assert list(document) == [
        "format",
        "machine",
        "fingerprint",
        "run",
        "start",
        "effects",
        "tail",
        "rows",
        "end",
    ]
    assert document["format"] == "agentsm-recording/1"
    assert document["machine"] == "tests.regression.refunds:REFUNDS"
    refund = document["effects"][2]
    assert refund["request"] == {"$class": "tests.regression.refunds:Refund", "order": "o-1", "amount": 40}
    assert (refund["state"], refund["step"], refund["outcome"]) == ("REFUNDING", 4, "R-o-1-40")
    assert document["end"]["memory"]["notes"] == {"$pvector": ["classified refund"]}


def test_a_recording_is_written_back_exactly_as_it_was_read(store: RunStore, tmp_path: Path) -> None:
    REFUNDS.start(store, Desk(message="refund please", order="o-2"), run_id="r2")
    recording = record_stored(store, REFUNDS, "r2").unwrap()
    path = tmp_path / "r2.recording.json"
    write_recording(path, recording).unwrap()
    text = path.read_text(encoding="utf-8")
    again = load_recording(path).unwrap()
    assert again == recording
    assert recording_to_json(again) == text
    assert isinstance(replay_recording(again, REFUNDS), Success)


@pytest.mark.parametrize(
    ("change", "problem", "field", "detail"),
    [
        (lambda d: d.pop("format"), RecordingProblem.FORMAT, "", "not a recording (no 'format' field)"),
        (
            lambda d: d.update(format="agentsm-recording/9"),
            RecordingProblem.FORMAT,
            "",
            "format 'agentsm-recording/9'; this version reads 'agentsm-recording/1'",
        ),
        (lambda d: d.pop("machine"), RecordingProblem.FIELD, "machine", "missing"),
        (lambda d: d["start"].pop("memory"), RecordingProblem.FIELD, "start.memory", "missing"),
        (
            lambda d: d["effects"][1].update(digest="xyz"),
            RecordingProblem.FIELD,
            "effects[1].digest",
            "expected the effect's SHA-256 digest as 64 hex digits",
        ),
        (
            lambda d: d["effects"][0].update(ticks=[1.0, "soon"]),
            RecordingProblem.FIELD,
            "effects[0].ticks[1]",
            "expected a number, found a string",
        ),
        (
            lambda d: d["effects"][0].update(step="2"),
            RecordingProblem.FIELD,
            "effects[0].step",
            "expected an integer, found a string",
        ),
        (
            lambda d: (d["effects"][0].pop("outcome"), d["effects"][0].pop("at")),
            RecordingProblem.FIELD,
            "effects[0]",
            "only the last effect may be unanswered (the one the run waits for)",
        ),
        (
            lambda d: d["effects"][0].pop("at"),
            RecordingProblem.FIELD,
            "effects[0]",
            "an outcome comes with its clock reading, 'at' (and only an outcome does)",
        ),
        (
            lambda d: d["end"].update(answer="R-o-1-40"),
            RecordingProblem.FIELD,
            "end.answer",
            "not a field of a recording",
        ),
        (
            lambda d: d["rows"].__setitem__(1, "READING to LOOKING"),
            RecordingProblem.FIELD,
            "rows[1]",
            "expected a row written STATE -EVENT-> TARGET",
        ),
        (
            lambda d: d["end"].update(status="done"),
            RecordingProblem.FIELD,
            "end.status",
            "expected one of ['awaiting', 'failed', 'finished', 'ready'], found 'done'",
        ),
    ],
)
def test_a_corrupt_recording_is_a_typed_error_naming_its_field(
    document: dict[str, Any], change: Any, problem: RecordingProblem, field: str, detail: str
) -> None:
    change(document)
    error = invalid(document)
    assert (error.problem, error.field, error.detail) == (problem, field, detail)
    assert error.describe().startswith("desk.recording.json: ")


def test_text_that_is_not_json_is_unreadable() -> None:
    error = recording_from_json('{"format": ', "cut.recording.json").failure()
    assert error.problem is RecordingProblem.UNREADABLE
    assert error.describe().startswith("cut.recording.json: unreadable: not JSON: ")


def test_a_value_that_does_not_decode_names_its_field_when_replayed(document: dict[str, Any]) -> None:
    document["effects"][1]["outcome"] = {"$class": "tests.regression.refunds:Gone", "x": 1}
    document["start"]["memory"]["notes"] = {"$pvector": 3}
    recording = recording_from_json(json.dumps(document), "desk.recording.json").unwrap()
    error = replay_recording(recording, REFUNDS, "desk.recording.json").failure()
    assert isinstance(error, RecordingInvalid)
    assert (error.problem, error.field) == (RecordingProblem.VALUE, "start.memory.notes")
    assert error.detail == "corrupt: $pvector must hold an array, not int"
    document["start"]["memory"]["notes"] = {"$pvector": []}
    recording = recording_from_json(json.dumps(document), "desk.recording.json").unwrap()
    error = replay_recording(recording, REFUNDS, "desk.recording.json").failure()
    assert isinstance(error, RecordingInvalid)
    assert (error.problem, error.field) == (RecordingProblem.VALUE, "effects[1].outcome")
    assert error.detail.startswith("unknown class: tests.regression.refunds:Gone is not loaded here")


def test_a_missing_file_is_unreadable(tmp_path: Path) -> None:
    error = load_recording(tmp_path / "gone.recording.json").failure()
    assert (error.problem, error.source) == (
        RecordingProblem.UNREADABLE,
        str(tmp_path / "gone.recording.json"),
    )


# ---- properties -------------------------------------------------------------------------------------------

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text() | st.binary()
_KEYS = st.text(max_size=5) | st.integers()
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.tuples(inner, inner)
        | st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(pvector)
        | st.frozensets(st.integers() | st.text(max_size=3), max_size=3)
        | st.frozensets(st.integers(), max_size=3).map(pset)
        | st.dictionaries(_KEYS, inner, max_size=3)
        | st.dictionaries(st.text(max_size=3), inner, max_size=3).map(pmap)
        | inner.map(Success)
        | inner.map(Failure)
    ),
    max_leaves=12,
)


@settings(kit_settings(max_examples=150))
@given(value=_VALUES)
def test_any_value_the_codec_stores_round_trips_through_the_json_form_and_its_text(value: object) -> None:
    form = to_json_form(value).unwrap()
    parsed = json.loads(json.dumps(form, allow_nan=False))
    assert from_json_form(parsed, object).unwrap() == value


@settings(kit_settings(max_examples=60))
@given(value=llm_requests() | llm_outcomes())
def test_llm_requests_and_outcomes_round_trip_through_the_json_form(value: object) -> None:
    parsed = json.loads(json.dumps(to_json_form(value).unwrap(), allow_nan=False))
    assert from_json_form(parsed, object).unwrap() == value


@settings(kit_settings(max_examples=40))
@given(
    message=st.sampled_from(["refund please", "where is my parcel", "REFUND NOW"]),
    order=st.sampled_from([*PRICES, "o-9"]),
    limit=st.integers(min_value=0, max_value=200),
)
def test_a_recording_of_any_run_round_trips_through_its_text_and_replays(
    message: str, order: str, limit: int
) -> None:
    machine = REFUNDS.machine
    start = begin(machine, Desk(message=message, order=order, limit=limit))
    stopped = run(machine, start, REFUNDS.shell())
    snapshot = stopped.unwrap() if isinstance(stopped, Success) else stopped.failure().snapshot
    recording = record_run(machine, start, snapshot, REFUNDS.name).unwrap()
    text = recording_to_json(recording)
    again = recording_from_json(text).unwrap()
    assert again == recording
    assert recording_to_json(again) == text
    assert isinstance(replay_recording(again, REFUNDS), Success)
