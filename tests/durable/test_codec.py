"""The durable codec: exact round trips of user values (Hypothesis), and typed errors for bad bytes."""

from __future__ import annotations

import dataclasses
import enum
import gc
from collections.abc import Callable
from types import MappingProxyType
from typing import ClassVar, NamedTuple

import attrs
import msgspec
from hypothesis import given
from hypothesis import strategies as st
from pyrsistent import PVector, _pvector, pmap, pset, pvector
from returns.result import Failure, Success

from agentsm_fn.agents.react import AgentMemory, HistoryEntry
from agentsm_fn.durable import CodecFailureKind, from_bytes, to_bytes
from agentsm_fn.durable.running.digest import content_digest
from agentsm_fn.durable.stores import _packed
from agentsm_fn.llm import LlmCall, LlmRequest, ToolCall, UserMessage

python_pvector: Callable[[list[object]], PVector[object]] = _pvector.python_pvector
"""pyrsistent's pure-Python vector (untyped there): the only one where no C build exists."""


class Colour(enum.Enum):
    RED = "red"
    BLUE = 2


@attrs.frozen
class Point:
    x: object
    y: object = None


@dataclasses.dataclass(frozen=True)
class Box:
    content: object


class Pair(NamedTuple):
    left: object
    right: object


@attrs.frozen
class Packed:
    """Stored as a payload of its own, remembered per object (as a thread's conversation is)."""

    __codec_packed__: ClassVar[bool] = True
    content: object
    extra: object = None


@attrs.frozen(weakref_slot=False)
class PackedUnreferenced:
    """Packed, but no weak reference can follow it: encoded afresh each time."""

    __codec_packed__: ClassVar[bool] = True
    content: object


@attrs.frozen
class Versioned:
    __codec_version__ = 2
    value: int


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(),
    st.binary(),
    st.sampled_from(Colour),
)
hashable = st.recursive(
    scalars, lambda inner: st.tuples(inner, inner) | st.frozensets(inner, max_size=3), max_leaves=6
)


def containers(inner: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    return st.one_of(
        st.lists(inner, max_size=3).map(tuple),
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(pvector),
        st.frozensets(hashable, max_size=3),
        st.dictionaries(hashable, inner, max_size=3),
        st.dictionaries(st.text(max_size=3), inner, max_size=3).map(MappingProxyType),
        st.dictionaries(hashable, inner, max_size=3).map(pmap),
        st.frozensets(hashable, max_size=3).map(pset),
        st.builds(Point, inner, inner),
        st.builds(Box, inner),
        st.builds(Pair, inner, inner),
        st.builds(Packed, inner, inner),
        st.builds(PackedUnreferenced, inner),
        inner.map(Success),
        inner.map(Failure),
    )


values = st.recursive(scalars, containers, max_leaves=20)


def same(a: object, b: object) -> bool:
    """Equal, and of the same types all the way down (a tuple is not a list)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple | list | PVector) and isinstance(b, tuple | list | PVector):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Point | Box | Pair | Packed | PackedUnreferenced):
        return all(
            same(getattr(a, f), getattr(b, f))
            for f in ("x", "y", "content", "left", "right", "extra")
            if hasattr(a, f)
        )
    return a == b


@given(values)
def test_every_value_round_trips_exactly(value: object) -> None:
    assert same(from_bytes(to_bytes(value).unwrap(), object).unwrap(), value)


@given(values)
def test_equal_values_have_equal_bytes_and_digests(value: object) -> None:
    again = from_bytes(to_bytes(value).unwrap(), object).unwrap()
    assert to_bytes(again).unwrap() == to_bytes(value).unwrap()
    assert content_digest(LlmCall(LlmRequest(model=repr(value)[:50], messages=()))) is not None


def test_a_react_memory_with_history_round_trips() -> None:
    entry = HistoryEntry(
        step=1, tool=ToolCall("c1", "search", {"q": ["a", 1, {"b": None}]}), observation="ok", success=True
    )
    memory = AgentMemory.new("task").evolve(history=pvector([entry]), blacklisted_tools=frozenset({"x", "y"}))
    assert from_bytes(to_bytes(memory).unwrap(), AgentMemory).unwrap() == memory


@given(st.binary(max_size=200))
def test_arbitrary_bytes_are_a_typed_failure_never_an_exception(data: bytes) -> None:
    result = from_bytes(data, object)
    if isinstance(result, Failure):
        assert result.failure().kind in (CodecFailureKind.CORRUPT, CodecFailureKind.VERSION)


@given(values, st.integers(min_value=0, max_value=10_000), st.integers(min_value=0, max_value=255))
def test_a_corrupted_payload_decodes_or_fails_with_a_value(value: object, where: int, byte: int) -> None:
    data = bytearray(to_bytes(value).unwrap())
    data[where % len(data)] = byte
    assert isinstance(from_bytes(bytes(data), object), Success | Failure)


def _payload(classes: list[object], tree: object, version: int = 1) -> bytes:
    return msgspec.msgpack.encode([version, classes, tree])


def test_an_unknown_class_an_old_version_and_a_removed_field_are_named() -> None:
    unknown = from_bytes(_payload([["nowhere.module:Thing", 1, []]], [9, 0]), object).failure()
    assert unknown.kind is CodecFailureKind.UNKNOWN_CLASS and "nowhere.module:Thing" in unknown.detail
    old = from_bytes(_payload([[f"{__name__}:Versioned", 1, ["value"]]], [9, 0, 3]), object).failure()
    assert old.kind is CodecFailureKind.VERSION and "version 1" in old.detail
    gone = from_bytes(_payload([[f"{__name__}:Point", 1, ["x", "z"]]], [9, 0, 1, 2]), object).failure()
    assert gone.kind is CodecFailureKind.VERSION and "'z'" in gone.detail
    later = from_bytes(_payload([], None, version=99), object).failure()
    assert later.kind is CodecFailureKind.VERSION


def test_a_failure_names_the_field_where_it_happened() -> None:
    data = _payload([[f"{__name__}:Point", 1, ["x", "y"]], ["nowhere:X", 1, []]], [9, 0, 1, [0, 5, [9, 1]]])
    failure = from_bytes(data, object).failure()
    assert failure.path == ".y[1]" and failure.within("r1", "memory").describe().startswith(
        "run r1, memory.y[1]:"
    )


def test_values_that_cannot_be_stored_are_refused_at_encoding() -> None:
    @attrs.frozen
    class Local:
        pass

    assert to_bytes(Point(lambda: 1)).failure().path == ".x"
    assert "module level" in to_bytes(Local()).failure().detail
    assert to_bytes(Versioned(1)).map(lambda data: from_bytes(data, Point)).unwrap().failure().kind is (
        CodecFailureKind.WRONG_TYPE
    )


def test_digests_do_not_depend_on_map_or_set_order() -> None:
    one = LlmCall(LlmRequest(model="m", messages=(UserMessage("hi"),), response_schema={"a": 1, "b": 2}))
    two = LlmCall(LlmRequest(model="m", messages=(UserMessage("hi"),), response_schema={"b": 2, "a": 1}))
    other = LlmCall(LlmRequest(model="m", messages=(UserMessage("ho"),)))
    assert content_digest(one) == content_digest(two) != content_digest(other)


def test_a_vector_of_either_pyrsistent_class_is_stored_alike_and_read_back() -> None:
    # pyrsistent's C vector (3.11 wheels) and its Python one (3.13): stored on one Python, read on another
    native, python = pvector([1, "a"]), python_pvector([1, "a"])
    assert to_bytes(native).unwrap() == to_bytes(python).unwrap()
    assert from_bytes(to_bytes(python).unwrap(), PVector).unwrap() == native


def test_a_packed_value_is_its_own_payload_embedded_as_it_is_in_every_value_that_holds_it() -> None:
    inner = Packed(content=(UserMessage("hi"), frozenset({"b", "a"})))
    alone = to_bytes(inner).unwrap()
    held = to_bytes(Box(content=(inner, inner))).unwrap()
    assert held.count(alone) == 2  # the same bytes inside, whatever holds it
    again = from_bytes(held, Box).unwrap()
    assert again == Box(content=(inner, inner)) and to_bytes(again).unwrap() == held
    assert isinstance(again.content, tuple)
    assert to_bytes(again.content[0]).unwrap() == alone  # one read back is known by its bytes


def test_a_packed_value_read_from_a_payload_of_another_shape_is_encoded_afresh() -> None:
    # A payload written with the fields in another order (an older class, or a hand-made one)
    # decodes to the same value; encoding that value writes this code's own payload, not those bytes.
    swapped = _payload([[f"{__name__}:Packed", 1, ["extra", "content"]]], [9, 0, 2, 1])
    value = from_bytes(swapped, Packed).unwrap()
    assert value == Packed(content=1, extra=2)
    assert to_bytes(value).unwrap() == to_bytes(Packed(content=1, extra=2)).unwrap() != swapped


def test_a_packed_payload_that_is_not_one_is_a_typed_failure() -> None:
    for tree in ([14, "not bytes"], [14, b"junk"], [14, _payload([], None, version=99)]):
        failure = from_bytes(_payload([], [0, tree]), object).failure()
        assert failure.kind in (CodecFailureKind.CORRUPT, CodecFailureKind.VERSION)
        assert failure.path == "[0]"


def test_a_packed_value_s_bytes_are_forgotten_with_it_and_never_outnumber_the_limit() -> None:
    for number in range(300):  # more than are remembered at once; each dies at the end of its turn
        assert from_bytes(to_bytes(Packed(content=number)).unwrap(), Packed).unwrap().content == number
    gc.collect()
    assert all(ref() is not None for ref, _ in _packed._BYTES.values())  # none kept for a dead value
    alive = [Packed(content=number) for number in range(300)]
    assert [to_bytes(value).unwrap() for value in alive] == [to_bytes(value).unwrap() for value in alive]
    assert len(_packed._BYTES) <= _packed._LIMIT
