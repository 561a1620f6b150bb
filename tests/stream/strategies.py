"""Hypothesis strategies for run events (every field of every type, finite floats).

The types and their fields are read off :data:`~agentsm_fn.stream.RunEvent` and the
classes themselves, so a new event type or field is generated without a change here
(a field of a type not in :data:`_VALUES` fails at once with a KeyError naming it).
"""

from __future__ import annotations

from typing import get_args

import attrs
from hypothesis import strategies as st

from agentsm_fn.stream import OutcomeKind, RunEvent

_int = st.integers(min_value=-(2**53), max_value=2**53)

_VALUES: dict[str, st.SearchStrategy[object]] = {
    "str": st.text(max_size=20),
    "int": _int,
    "float": st.floats(allow_nan=False, allow_infinity=False),
    "bool": st.booleans(),
    "OutcomeKind": st.sampled_from(OutcomeKind),
    "int | None": st.none() | st.integers(min_value=0, max_value=100),
}
"""A strategy per field annotation (as written: the events module postpones annotations)."""


def _events_of(cls: type[RunEvent]) -> st.SearchStrategy[RunEvent]:
    """Every field of ``cls`` in its JSON form drawn (the Python-only ones keep their default)."""
    fields = {
        field.name: _VALUES[str(field.type)]
        for field in attrs.fields(cls)
        if field.metadata.get("json", True)
    }
    return st.builds(cls, **fields)


run_events: st.SearchStrategy[RunEvent] = st.one_of([_events_of(cls) for cls in get_args(RunEvent)])
"""Any run event."""
