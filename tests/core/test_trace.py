"""The trace: append-only, immutable, filterable, JSON round-trip, readable table."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentsm_fn import Performers, Shell, StepClock, Trace, TraceEntry, run
from tests.core.sample import Ask, Mem, sample_machine

_text = st.text(max_size=20)
_rows = st.lists(
    st.tuples(
        st.integers(0, 10**6),
        _text,
        _text,
        _text,
        _text,
        st.floats(min_value=0, max_value=4e9, allow_nan=False),
    ),
    max_size=20,
)


@given(_rows)
def test_json_export_and_import_round_trip(rows: list[tuple[int, str, str, str, str, float]]) -> None:
    trace = Trace()
    for row in rows:
        trace = trace.record(*row)
    assert Trace.from_json(trace.to_json()) == trace


def test_record_returns_a_new_trace_and_keeps_the_old_one() -> None:
    empty = Trace()
    one = empty.record(1, "Idle", "START", "Planning", "", 0.0)
    assert len(empty) == 0
    assert len(one) == 1
    assert one[0] == TraceEntry(
        step=1, state="Idle", event="START", target="Planning", data="", timestamp=0.0
    )


def test_a_run_records_transitions_and_effect_requests_with_clock_stamps() -> None:
    shell = Shell(Performers().on(Ask, lambda _e: 2), StepClock(start=100.0, step=1.0))
    trace = run(sample_machine(), Mem(), shell).unwrap().trace
    events = [(e.state, e.event, e.target) for e in trace]
    assert events[0] == ("IDLE", "START", "WORK")
    assert events[1] == ("WORK", "request Ask", "")
    assert events[-1] == ("WORK", "FINISHED", "DONE")
    assert [e.timestamp for e in trace] == sorted(e.timestamp for e in trace)
    assert trace[0].timestamp == 100.0
    assert len(trace.for_state("WORK")) == len(trace) - 1


def test_render_is_a_table_with_one_line_per_entry() -> None:
    trace = Trace().record(1, "Idle", "START", "Planning", "task='x'", 0.0)
    text = trace.render()
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["step", "time", "(UTC)"]
    assert "Idle" in lines[2] and "-> Planning" in lines[2] and "task='x'" in lines[2]


def test_render_truncates_long_lines() -> None:
    trace = Trace().record(1, "Idle", "START", "Planning", "x" * 500, 0.0)
    assert all(len(line) <= 80 for line in trace.render(width=80).splitlines())


@pytest.mark.parametrize(
    "text",
    [
        "{}",
        "[1]",
        '[{"step": 1}]',
        json.dumps([{"step": "1", "state": "", "event": "", "target": "", "data": "", "timestamp": 0}]),
    ],
)
def test_malformed_json_is_a_clear_value_error(text: str) -> None:
    with pytest.raises(ValueError, match="trace"):
        Trace.from_json(text)
