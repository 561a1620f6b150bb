"""Acting and ParallelActing: every branch of 000 section 4.9 and 001."""

from __future__ import annotations

from agentsm_fn.agents.react import Event, ReactToolResult, RunTool, RunToolBatch, ToolBatchResult
from agentsm_fn.agents.react.acting import act, act_in_parallel, receive_act, receive_parallel
from tests.agents.react.helpers import call, emitted, make_memory, requested


def _ok(call_id: str, name: str, output: str = "done") -> ReactToolResult:
    return ReactToolResult(call_id=call_id, name=name, ok=True, output=output)


def test_acting_without_a_tool_call_is_fatal() -> None:
    event, after = emitted(act(make_memory()))
    assert event is Event.FatalError
    assert after.error == "Acting entered without a current_tool_call"


def test_acting_unknown_tool_is_a_failure_observation() -> None:
    event, after = emitted(act(make_memory(current_tool_call=call("nonexistent"))))
    assert event is Event.ToolFailure
    assert after.last_observation == "ERROR: ToolNotFound: Tool 'nonexistent' not found in registry"
    assert after.error is None


def test_acting_invalid_arguments_is_a_failure_observation() -> None:
    event, after = emitted(act(make_memory(current_tool_call=call("search", query=42))))
    assert event is Event.ToolFailure
    assert after.last_observation is not None
    assert after.last_observation.startswith("ERROR: InvalidArguments: ")
    assert "42 is not of type 'string'" in after.last_observation


def test_acting_missing_required_argument_names_it() -> None:
    _, after = emitted(act(make_memory(current_tool_call=call("calculator"))))
    assert after.last_observation is not None
    assert "'expression' is a required property" in after.last_observation


def test_acting_valid_call_requests_the_tool_with_its_timeout() -> None:
    out = requested(act(make_memory(current_tool_call=call())))
    assert out.effect == RunTool(call(), timeout=5.0)


def test_acting_success_prefixes_success() -> None:
    event, after = emitted(receive_act(make_memory(current_tool_call=call()), _ok("c1", "search", "Paris")))
    assert event is Event.ToolSuccess
    assert after.last_observation == "SUCCESS: Paris"


def test_acting_error_has_type_and_message() -> None:
    failed = ReactToolResult.failure("c1", "search", "TimeoutError", "no result within 5.0s")
    event, after = emitted(receive_act(make_memory(current_tool_call=call()), failed))
    assert event is Event.ToolFailure
    assert after.last_observation == "ERROR: TimeoutError: no result within 5.0s"


def test_parallel_without_pending_calls_is_fatal() -> None:
    event, after = emitted(act_in_parallel(make_memory()))
    assert event is Event.FatalError
    assert after.error is not None


def test_parallel_requests_runnable_calls_in_order() -> None:
    calls = (call("search", "a"), call("calculator", "b", expression="1+1"))
    out = requested(act_in_parallel(make_memory(pending_tool_calls=calls)))
    assert isinstance(out.effect, RunToolBatch)
    assert [r.call for r in out.effect.runs] == list(calls)


def test_parallel_merges_prechecked_failures_in_call_order() -> None:
    calls = (call("nope", "a"), call("search", "b"), call("calculator", "c", expression="2*3"))
    memory = make_memory(pending_tool_calls=calls)
    out = requested(act_in_parallel(memory))
    assert isinstance(out.effect, RunToolBatch)
    assert [r.call.id for r in out.effect.runs] == ["b", "c"]
    batch = ToolBatchResult((_ok("b", "search"), _ok("c", "calculator", "6")))
    event, after = emitted(receive_parallel(memory, batch))
    assert event is Event.ToolFailure
    assert [r.call_id for r in after.parallel_results] == ["a", "b", "c"]
    assert after.parallel_results[0].error_type == "ToolNotFound"
    assert after.parallel_results[2].observation == "SUCCESS: 6"


def test_parallel_all_ok_is_success() -> None:
    calls = (call("search", "a"), call("search", "b"))
    memory = make_memory(pending_tool_calls=calls)
    event, after = emitted(
        receive_parallel(memory, ToolBatchResult((_ok("a", "search"), _ok("b", "search"))))
    )
    assert event is Event.ToolSuccess
    assert len(after.parallel_results) == 2
    assert after.last_observation is None


def test_parallel_all_prechecks_failing_needs_no_effect() -> None:
    calls = (call("nope", "a"), call("gone", "b"))
    event, after = emitted(act_in_parallel(make_memory(pending_tool_calls=calls)))
    assert event is Event.ToolFailure
    assert [r.error_type for r in after.parallel_results] == ["ToolNotFound", "ToolNotFound"]


def test_parallel_short_batch_marks_missing_results() -> None:
    calls = (call("search", "a"), call("search", "b"))
    event, after = emitted(receive_parallel(make_memory(pending_tool_calls=calls), ToolBatchResult(())))
    assert event is Event.ToolFailure
    assert [r.error_type for r in after.parallel_results] == ["MissingResult", "MissingResult"]
