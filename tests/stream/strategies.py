"""Hypothesis strategies for run events (every field of every type, finite floats)."""

from __future__ import annotations

from hypothesis import strategies as st

from agentsm_fn.stream import (
    AwaitingOutcome,
    EffectCompleted,
    EffectRequested,
    Failed,
    Finished,
    LlmTextDelta,
    OutcomeKind,
    RunEvent,
    RunStarted,
    ToolCallArgsDelta,
    Transitioned,
)

_text = st.text(max_size=20)
_int = st.integers(min_value=-(2**53), max_value=2**53)
_float = st.floats(allow_nan=False, allow_infinity=False)
_part = st.none() | st.integers(min_value=0, max_value=100)

run_events: st.SearchStrategy[RunEvent] = st.one_of(
    st.builds(
        RunStarted,
        run_id=_text,
        machine=_text,
        fingerprint=_text,
        state=_text,
        steps=_int,
        resumed=st.booleans(),
        position=_int,
    ),
    st.builds(
        Transitioned,
        run_id=_text,
        position=_int,
        step=_int,
        state=_text,
        event=_text,
        target=_text,
        at=_float,
    ),
    st.builds(
        EffectRequested, run_id=_text, position=_int, state=_text, effect=_text, summary=_text, part=_part
    ),
    st.builds(
        EffectCompleted,
        run_id=_text,
        position=_int,
        requested=_int,
        effect=_text,
        outcome=st.sampled_from(OutcomeKind),
        note=_text,
        seconds=_float,
        part=_part,
    ),
    st.builds(LlmTextDelta, run_id=_text, position=_int, text=_text),
    st.builds(
        ToolCallArgsDelta,
        run_id=_text,
        position=_int,
        index=_int,
        call_id=_text,
        name=_text,
        fragment=_text,
    ),
    st.builds(AwaitingOutcome, run_id=_text, position=_int, requested=_int, effect=_text, summary=_text),
    st.builds(Finished, run_id=_text, position=_int, state=_text, steps=_int),
    st.builds(Failed, run_id=_text, position=_int, state=_text, steps=_int, reason=_text, detail=_text),
)
"""Any run event."""
