"""A child's event in its parent's stream: its JSON form round-trips; anything else is refused."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st
from returns.result import Success

from agentsm_fn.stream import ChildEvent, MalformedEvent, RunEvent, child_event_from_json, child_event_to_json
from tests.stream.strategies import run_events


@given(run_events, st.text(), st.integers(min_value=-1))
def test_every_child_event_survives_its_json_form(event: RunEvent, parent: str, position: int) -> None:
    wrapped = ChildEvent(
        run_id="p", position=position, child_run_id=event.run_id, parent_run_id=parent, event=event
    )
    text = child_event_to_json(wrapped)
    assert child_event_from_json(text) == Success(wrapped)
    assert json.loads(text)["event"]["type"] == type(event).__name__


@given(
    st.dictionaries(
        st.sampled_from(["run_id", "position", "event", "x"]), st.integers() | st.text(), max_size=4
    )
)
def test_anything_else_is_a_malformed_event(data: dict[str, object]) -> None:
    decoded = child_event_from_json(json.dumps({**data, "type": "ChildEvent"}))
    assert isinstance(decoded.failure(), MalformedEvent)
