"""A raising performer's credentials stay out of the activity failure Temporal keeps (no server needed).

The activity runs in temporalio's ``ActivityEnvironment``; the error it fails with is
encoded by the SDK's failure converter, exactly what a worker sends to the history.
"""

from __future__ import annotations

import pytest
from temporalio.api.failure.v1 import Failure
from temporalio.common import RawValue
from temporalio.converter import DataConverter
from temporalio.exceptions import ActivityError, ApplicationError, RetryState
from temporalio.testing import ActivityEnvironment

from agentsm_fn import EffectFailure, FailureKind, Performers
from agentsm_fn.temporal import data_converter
from agentsm_fn.temporal.activity import EffectActivities, failure_of
from tests.temporal.machines import Charge

KEY = "pay-9f8e7d6c5b4a39281706f5e4d3c2b1a0"


def _decline(effect: Charge) -> str:
    raise PermissionError(f"card API said 401 for key {KEY}")


async def _failed_attempt() -> ApplicationError:
    """The error one attempt of the activity fails with, performing a Charge whose performer raises."""
    environment = ActivityEnvironment()
    converter = data_converter().payload_converter
    environment.payload_converter = converter
    args = [
        RawValue(converter.to_payload(Charge(order_id="o-1", amount=9))),
        RawValue(converter.to_payload(0)),
    ]
    with pytest.raises(ApplicationError) as raised:
        await environment.run(EffectActivities(Performers().on(Charge, _decline)).perform, args)
    return raised.value


async def test_the_history_keeps_the_failure_without_the_credential(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAYMENTS_API_KEY", KEY)
    error = await _failed_attempt()
    assert (error.type, error.message) == ("PermissionError", "card API said 401 for key [redacted]")
    recorded = Failure()
    DataConverter.default.failure_converter.to_failure(error, data_converter().payload_converter, recorded)
    assert b"card API said 401" in recorded.SerializeToString()
    assert KEY.encode() not in recorded.SerializeToString()  # neither its message nor a cause's


async def test_the_workflow_delivers_the_redacted_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAYMENTS_API_KEY", KEY)
    error = await _failed_attempt()
    activity_error = ActivityError(
        "activity failed",
        scheduled_event_id=1,
        started_event_id=2,
        identity="worker",
        activity_type="Charge",
        activity_id="1",
        retry_state=RetryState.MAXIMUM_ATTEMPTS_REACHED,
    )
    activity_error.__cause__ = error
    delivered = failure_of(activity_error, Charge(order_id="o-1", amount=9), retry_safe=False)
    assert delivered == EffectFailure(
        kind=FailureKind.RAISED,
        effect="Charge o-1",
        detail="PermissionError: card API said 401 for key [redacted]",
    )
