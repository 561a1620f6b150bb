"""The JSON form of run events: an exact round trip, and a typed refusal of anything else."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success

from agentsm_fn.stream import (
    Finished,
    MalformedEvent,
    RunEvent,
    Transitioned,
    event_from_json,
    event_to_json,
)
from tests.stream.strategies import run_events

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@given(run_events)
def test_every_event_survives_its_json_form(event: RunEvent) -> None:
    assert event_from_json(event_to_json(event)) == Success(event)


@given(run_events)
def test_the_json_form_is_an_object_typed_by_the_class_name(event: RunEvent) -> None:
    data = json.loads(event_to_json(event))
    assert data["type"] == type(event).__name__
    assert "result" not in data


def test_the_result_stays_out_of_the_json_form() -> None:
    event = Finished(run_id="r", position=3, state="Done", steps=2, result=object())
    back = event_from_json(event_to_json(event)).unwrap()
    assert isinstance(back, Finished) and back.result is None and back == event


@given(st.text() | st.binary())
def test_any_text_is_an_event_or_a_malformed_event(text: str | bytes) -> None:
    decoded = event_from_json(text)
    assert isinstance(decoded, Success) or isinstance(decoded.failure(), MalformedEvent)


@given(st.dictionaries(st.text(), _json_values, max_size=6), st.sampled_from(["Transitioned", "Failed", 3]))
def test_any_json_object_is_an_event_or_a_malformed_event(data: dict[str, object], kind: object) -> None:
    decoded = event_from_json(json.dumps({**data, "type": kind}))
    assert isinstance(decoded, Success) or isinstance(decoded.failure(), MalformedEvent)


def _good() -> dict[str, object]:
    event = Transitioned(run_id="r", position=1, step=1, state="A", event="GO", target="B", at=0.5)
    data: dict[str, object] = json.loads(event_to_json(event))
    return data


def _refusal(data: object) -> str:
    decoded = event_from_json(json.dumps(data))
    assert isinstance(decoded, Failure)
    refusal: MalformedEvent = decoded.failure()
    return refusal.detail


def test_a_refusal_names_what_is_wrong() -> None:
    assert _refusal([1]) == "a run event is a JSON object, not list"
    assert _refusal({**_good(), "type": "Nope"}).startswith("'type' is 'Nope', not one of AwaitingOutcome, ")
    assert _refusal({**_good(), "extra": 1}) == "Transitioned has no field 'extra'"
    assert _refusal({**_good(), "step": "1"}) == "Transitioned: Expected `int`, got `str` - at `$.step`"
    missing = _good()
    del missing["target"]
    assert _refusal(missing) == "Transitioned: Object missing required field `target`"
    assert event_from_json("{").failure().detail.startswith("not JSON: ")
