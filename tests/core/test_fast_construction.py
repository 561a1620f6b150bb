"""The one direct build the engine keeps (``Success`` in ``emit``) equals the constructor's value."""

from __future__ import annotations

import enum

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Success

from agentsm_fn.core import _fast, handlers
from agentsm_fn.core.effects import Effect, Perform


class S(enum.Enum):
    A = 1


@attrs.frozen
class Ping(Effect[str]):
    outcome_types = (str,)


def test_the_direct_build_is_in_use_with_the_pinned_returns() -> None:
    # If a dependency upgrade silently disabled it, the engine would slow down unnoticed.
    assert handlers._SET_VALUE is not None


@given(st.integers() | st.text() | st.none())
def test_a_direct_emit_equals_the_constructed_success(memory: object) -> None:
    built, made = handlers.emit(S.A, memory), Success((S.A, memory))
    assert type(built) is Success
    assert built == made and hash(built) == hash(made) and repr(built) == repr(made)
    assert built.unwrap() == (S.A, memory) and built.map(len) == made.map(len)


def test_without_the_direct_build_emit_uses_the_constructor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(handlers, "_SET_VALUE", None)
    assert handlers.emit(S.A, 1) == Success((S.A, 1))
    assert handlers.perform(Ping(), 1) == Success(Perform(Ping(), 1))


def test_the_probe_refuses_a_success_it_cannot_build_identically(monkeypatch: pytest.MonkeyPatch) -> None:
    class Odd:  # no ``_inner_value`` slot anywhere in its MRO
        pass

    monkeypatch.setattr(_fast, "Success", Odd)
    assert _fast.success_setter() is None
