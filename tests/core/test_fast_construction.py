"""The direct builds of hot values (Success, Snapshot, Trace, Journal) equal their constructors."""

from __future__ import annotations

import enum

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pyrsistent import pvector
from returns.result import Success

from agentsm_fn.core import handlers, journal, snapshot, trace
from agentsm_fn.core._fast import one_field_builder, slot_setters
from agentsm_fn.core.effects import Effect, Perform
from agentsm_fn.core.journal import Journal
from agentsm_fn.core.snapshot import Snapshot, Status
from agentsm_fn.core.trace import Trace


class S(enum.Enum):
    A = 1


@attrs.frozen
class Ping(Effect[str]):
    outcome_types = (str,)


def test_the_direct_builds_are_in_use_with_the_pinned_libraries() -> None:
    # If a dependency upgrade silently disabled them, the engine would slow down unnoticed.
    assert handlers._SET_VALUE is not None
    assert snapshot._SETTERS is not None
    assert trace._trace is not Trace
    assert journal._journal is not Journal


@given(st.integers(), st.sampled_from(Status), st.integers(min_value=0), st.floats(allow_nan=False))
def test_a_direct_snapshot_equals_the_constructed_one(
    memory: int, status: Status, steps: int, at: float
) -> None:
    rows = Trace().record(1, S.A, "GO", S.A, "", at)
    ticks = Journal().tick(at)
    built = snapshot._snapshot(S.A, memory, status, None, steps, rows, ticks)
    made = Snapshot(state=S.A, memory=memory, status=status, steps=steps, trace=rows, journal=ticks)
    assert type(built) is Snapshot
    assert built == made and hash(built) == hash(made) and repr(built) == repr(made)
    assert attrs.evolve(built, steps=0) == attrs.evolve(made, steps=0)


def test_without_the_direct_builds_the_constructors_are_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(handlers, "_SET_VALUE", None)
    monkeypatch.setattr(snapshot, "_SETTERS", None)
    assert handlers.emit(S.A, 1) == Success((S.A, 1))
    assert handlers.perform(Ping(), 1) == Success(Perform(Ping(), 1))
    assert handlers._success(2) == Success(2)
    row = (1, S.A, "GO", S.A, "", 0.0)
    assert Trace().record(*row) == Trace().extend([row]) == Trace(pvector([row]))
    assert Journal().tick(1.0).outcome(Ping(), "pong", 2.0) == Journal(pvector([1.0, (2.0, Ping(), "pong")]))
    built = snapshot._snapshot(S.A, 0, Status.READY, None, 0, Trace(), Journal())
    assert built == Snapshot(state=S.A, memory=0)


def test_direct_emit_and_perform_equal_success() -> None:
    assert handlers.emit(S.A, 1) == Success((S.A, 1))
    assert hash(handlers.emit(S.A, 1)) == hash(Success((S.A, 1)))
    assert handlers._success(3) == Success(3)


@attrs.frozen
class Checked:
    x: int = attrs.field(validator=attrs.validators.instance_of(int))


@attrs.frozen
class Converted:
    x: int = attrs.field(converter=int)


@attrs.frozen
class PostInit:
    x: int

    def __attrs_post_init__(self) -> None:
        pass


@attrs.define(slots=False, frozen=True)
class NoSlots:
    x: int


class NotAttrs:
    __slots__ = ("x",)


@attrs.frozen(cache_hash=True)
class CachedHash:
    x: int


@pytest.mark.parametrize("cls", [Checked, Converted, PostInit, NoSlots, NotAttrs, CachedHash])
def test_no_direct_build_where_the_constructor_does_more(cls: type) -> None:
    assert slot_setters(cls, ("x",)) is None
    assert one_field_builder(cls, "x") is cls  # the constructor itself


def test_a_class_with_a_cached_hash_is_built_by_its_constructor() -> None:
    made = one_field_builder(CachedHash, "x")(3)
    assert made == CachedHash(3) and hash(made) == hash(CachedHash(3))


def test_the_direct_trace_and_journal_builds_equal_the_constructors() -> None:
    row = (1, S.A, "GO", S.A, "", 0.0)
    assert trace._trace(pvector([row])) == Trace(pvector([row]))
    assert journal._journal(pvector([1.0])) == Journal(pvector([1.0]))
    assert type(trace._trace(pvector())) is Trace and type(journal._journal(pvector())) is Journal
