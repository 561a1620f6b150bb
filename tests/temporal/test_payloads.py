"""Every value a run sends through Temporal comes back exactly; bad payloads are typed errors."""

from __future__ import annotations

import asyncio
import enum
import math
import sys
import types

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pyrsistent import PMap, PVector, pmap, pvector
from temporalio.api.common.v1 import Payload

from agentsm_fn import begin
from agentsm_fn.agents.react import Approved, ToolBatchResult
from agentsm_fn.llm import LlmReply, ToolCall
from agentsm_fn.temporal import ENCODING, PayloadDecodeError, ZlibPayloadCodec, data_converter
from tests.temporal.agents import plan_agent, react_agent

CONVERTER = data_converter().payload_converter


class Colour(enum.Enum):
    RED = 1
    GREEN = "green"


@attrs.frozen(kw_only=True)
class Box:
    label: str
    items: tuple[object, ...] = ()


def roundtrip(value: object) -> object:
    return CONVERTER.from_payloads(CONVERTER.to_payloads([value]))[0]


scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text() | st.binary()
keys = st.none() | st.booleans() | st.integers() | st.text() | st.sampled_from(Colour)
values = st.recursive(
    scalars | st.sampled_from(Colour),
    lambda inner: (
        st.tuples(inner, inner)
        | st.lists(inner, max_size=3).map(tuple)
        | st.lists(inner, max_size=3).map(pvector)
        | st.lists(inner, max_size=3)
        | st.frozensets(keys, max_size=3)
        | st.dictionaries(keys, inner, max_size=3)
        | st.dictionaries(keys, inner, max_size=3).map(pmap)
        | st.builds(Box, label=st.text(max_size=5), items=st.lists(inner, max_size=3).map(tuple))
    ),
    max_leaves=12,
)


def same(a: object, b: object) -> bool:
    """Equal, and of the same type all the way down (1, 1.0 and True are three values)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple | list | PVector) and isinstance(b, tuple | list | PVector):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict | PMap) and isinstance(b, dict | PMap):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if attrs.has(type(a)):
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in attrs.fields(type(a)))  # type: ignore[arg-type]  # attrs.has() is no TypeGuard
    return bool(a == b)


@given(values)
def test_every_value_round_trips_with_its_exact_types(value: object) -> None:
    assert same(roundtrip(value), value)


@pytest.mark.parametrize("number", [math.inf, -math.inf, -0.0, 1e308])
def test_special_floats_round_trip(number: float) -> None:
    back = roundtrip(number)
    assert isinstance(back, float) and math.copysign(1, back) == math.copysign(1, number) and back == number


def test_nan_round_trips() -> None:
    back = roundtrip(math.nan)
    assert isinstance(back, float) and math.isnan(back)


def test_the_agents_start_snapshots_and_outcomes_round_trip() -> None:
    agent = react_agent()
    for value in (
        begin(agent.machine, agent.memory),
        plan_agent().start("Find a PDF library"),
        LlmReply(tool_calls=(ToolCall("c1", "search", {"q": [1, 1.0, True]}),)),
        ToolBatchResult(()),
        Approved(),
    ):
        assert same(roundtrip(value), value)


def test_corrupt_bytes_are_a_typed_error() -> None:
    payload = Payload(metadata={"encoding": ENCODING.encode()}, data=b"junk")
    with pytest.raises(PayloadDecodeError, match="payload not decodable"):
        CONVERTER.from_payloads([payload])


def test_a_class_this_process_does_not_know_is_named() -> None:
    module = types.ModuleType("vanished_shop")

    @attrs.frozen
    class Parcel:
        weight: int

    Parcel.__module__, Parcel.__qualname__ = "vanished_shop", "Parcel"
    module.Parcel = Parcel  # type: ignore[attr-defined]  # a module made at run time
    sys.modules["vanished_shop"] = module
    try:
        (payload,) = CONVERTER.to_payloads([Parcel(3)])
    finally:
        del sys.modules["vanished_shop"]
    with pytest.raises(PayloadDecodeError, match="vanished_shop"):
        CONVERTER.from_payloads([payload])


def test_large_payloads_are_compressed_and_come_back() -> None:
    codec = ZlibPayloadCodec(threshold=1000)
    big, small = CONVERTER.to_payloads([("history " * 2000,), "short"])
    packed = asyncio.run(codec.encode([big, small]))
    assert packed[0].metadata["encoding"] == b"binary/zlib" and packed[0].ByteSize() < big.ByteSize() // 20
    assert packed[1] == small
    assert asyncio.run(codec.decode(packed)) == [big, small]


def test_a_corrupt_compressed_payload_is_a_typed_error() -> None:
    broken = Payload(metadata={"encoding": b"binary/zlib"}, data=b"not zlib")
    with pytest.raises(PayloadDecodeError, match="compressed payload is corrupt"):
        asyncio.run(ZlibPayloadCodec().decode([broken]))
