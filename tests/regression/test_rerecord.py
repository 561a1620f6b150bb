"""An intended change is re-recorded against the live model (aimock): the old recording fails against the new
code at its first request, the new recording passes, and replaying sends nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from returns.result import Success

from agentsm_fn.durable import RunStore, SqliteStore
from agentsm_fn.regression import Divergence, DivergenceKind, record_stored, replay_recording, rerecord
from tests.providers.conftest import Aimock
from tests.regression.weather import WEATHER, WEATHER_V2, Chat


@pytest.fixture
def store() -> Iterator[RunStore]:
    opened = SqliteStore.open(":memory:").unwrap()
    yield opened
    opened.close()


def test_an_intended_change_is_re_recorded_against_the_live_model_and_then_passes(
    aimock: Aimock, store: RunStore
) -> None:
    WEATHER.start(store, Chat(question="What is the weather in Paris?"), run_id="paris").unwrap()
    old = record_stored(store, WEATHER, "paris").unwrap()
    assert json.loads(old.end.memory)["answer"] == "It is sunny in Paris."
    assert [e.summary.split(" ")[0] for e in old.effects] == ["LlmCall", "Forecast", "LlmCall"]
    asked = len(aimock.journal())
    assert asked == 2
    assert isinstance(replay_recording(old, WEATHER), Success)
    failure = replay_recording(old, WEATHER_V2, "paris.recording.json").failure()
    assert isinstance(failure, Divergence)
    assert (failure.kind, failure.step, failure.state, failure.seq) == (
        DivergenceKind.REQUEST,
        1,
        "ASKING",
        0,
    )
    report = failure.describe()
    assert '  -    "description": "Weather for a city",\n' in report
    assert '  +    "description": "Today\'s weather for a city, in one word",\n' in report
    assert len(aimock.journal()) == asked  # replaying sent nothing
    new = rerecord(old, WEATHER_V2, source="paris.recording.json").unwrap()
    assert len(aimock.journal()) == asked + 2
    assert (new.run_id, new.machine, new.end.status) == ("paris", WEATHER_V2.name, "finished")
    assert isinstance(replay_recording(new, WEATHER_V2), Success)
    assert replay_recording(new, WEATHER).failure().step == 1  # type: ignore[union-attr]
