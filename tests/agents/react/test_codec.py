"""The JSON codec for runs at rest: exact round trips, and malformed input as values."""

from __future__ import annotations

from collections.abc import Callable

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pyrsistent import PMap, PSet, PVector, _pvector, pmap, pvector

from agentsm_fn.agents.react import CodecError, ReactToolResult, State
from agentsm_fn.agents.react.codec import decode, dumps_snapshot, encode, loads_snapshot, register
from tests.agents.react.strategies import decisions, results, tool_calls

python_pvector: Callable[[list[object]], PVector[object]] = _pvector.python_pvector
"""pyrsistent's pure-Python vector (untyped there): the only one where no C build exists."""


@given(st.one_of(tool_calls, results, decisions))
def test_values_round_trip_exactly(value: object) -> None:
    assert loads_snapshot(dumps_snapshot(value)).unwrap() == value


def test_containers_keep_their_kind() -> None:
    value = (pvector([1, 2.5]), frozenset({"a"}), pmap({"k": None}), {"d": True}, State.Done)
    back = loads_snapshot(dumps_snapshot(value)).unwrap()
    assert back == value
    assert isinstance(back, tuple)
    assert [_kind(v) for v in back] == ["PVector", "frozenset", "PMap", "dict", "State"]


def _kind(value: object) -> str:
    """A value's kind: pyrsistent's abstract type (its vector's class differs by build), else its class."""
    found = next((kind for kind in (PVector, PMap, PSet) if isinstance(value, kind)), type(value))
    return found.__name__


def test_a_vector_of_either_pyrsistent_class_is_stored_alike_and_read_back() -> None:
    # pyrsistent's C vector (3.11 wheels) and its Python one (3.13): stored on one Python, read on another
    native, python = pvector([1, "a"]), python_pvector([1, "a"])
    assert dumps_snapshot(native) == dumps_snapshot(python) == '{"$pvector": [1, "a"]}'
    assert loads_snapshot(dumps_snapshot(python)).unwrap() == native


def test_unregistered_types_are_refused() -> None:
    @attrs.frozen
    class Secretive:
        x: int

    with pytest.raises(CodecError, match="not registered"):
        encode(Secretive(1))
    with pytest.raises(CodecError, match="cannot encode"):
        encode(object())


def test_register_refuses_two_classes_with_one_name() -> None:
    @attrs.frozen
    class State:  # same name as the agent's State enum
        x: int

    with pytest.raises(ValueError, match="two registered classes are called State"):
        register(State)


@pytest.mark.parametrize(
    "text",
    [
        "{",
        "[1]",
        '{"$enum": "State", "name": "Nowhere"}',
        '{"$enum": "Usage", "name": "x"}',
        '{"$attrs": "Usage", "fields": {"bogus": 1}}',
        '{"$attrs": "Usage", "fields": 3}',
        '{"$tuple": 3}',
        '{"$pmap": [[1]]}',
        '{"$mystery": []}',
        '{"a": 1, "b": 2, "c": 3}',
    ],
)
def test_malformed_text_is_a_failure_value(text: str) -> None:
    assert isinstance(loads_snapshot(text).failure(), CodecError)


def test_decode_of_plain_scalars() -> None:
    assert [decode(v) for v in (None, True, 3, 2.5, "s")] == [None, True, 3, 2.5, "s"]


def test_a_run_stored_before_tool_result_was_renamed_still_loads() -> None:
    # Written by the codec when the class was called ToolResult (its tag is the class name).
    stored = (
        '{"$tuple": [{"$attrs": "ToolResult", "fields": {"call_id": "c1", "name": "calc", "ok": true,'
        ' "output": "4", "error_type": ""}}]}'
    )
    assert loads_snapshot(stored).unwrap() == (
        ReactToolResult(call_id="c1", name="calc", ok=True, output="4"),
    )
    assert '"$attrs": "ReactToolResult"' in dumps_snapshot(
        ReactToolResult(call_id="c", name="n", ok=True, output="")
    )
