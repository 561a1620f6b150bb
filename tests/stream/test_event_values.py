"""The stream's positional event builders make exactly what the events' constructors make."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentsm_fn.shell._event_values import _slot_setters, effect_completed, effect_requested, transitioned
from agentsm_fn.stream.events import EffectCompleted, EffectRequested, OutcomeKind, RunEvent, Transitioned
from agentsm_fn.stream.wire import event_to_json

texts = st.text(max_size=8)
numbers = st.integers(min_value=0, max_value=10**6)
parts = st.none() | numbers
seconds = st.floats(min_value=0.0, max_value=1e6)


def same(built: RunEvent, constructed: RunEvent) -> None:
    assert type(built) is type(constructed)
    assert built == constructed
    assert hash(built) == hash(constructed)
    assert repr(built) == repr(constructed)
    assert event_to_json(built) == event_to_json(constructed)
    assert attrs.asdict(built) == attrs.asdict(constructed)
    assert attrs.evolve(built, position=7) == attrs.evolve(constructed, position=7)


@given(texts, numbers, numbers, texts, texts, texts, seconds, texts)
def test_transitioned(
    run_id: str, position: int, step: int, state: str, event: str, target: str, at: float, data: str
) -> None:
    same(
        transitioned(run_id, position, step, state, event, target, at, data),
        Transitioned(
            run_id=run_id,
            position=position,
            step=step,
            state=state,
            event=event,
            target=target,
            at=at,
            data=data,
        ),
    )


@given(texts, numbers, texts, texts, texts, parts)
def test_effect_requested(
    run_id: str, position: int, state: str, effect: str, summary: str, part: int | None
) -> None:
    same(
        effect_requested(run_id, position, state, effect, summary, part),
        EffectRequested(
            run_id=run_id, position=position, state=state, effect=effect, summary=summary, part=part
        ),
    )


@given(texts, numbers, numbers, texts, st.sampled_from(OutcomeKind), texts, seconds, parts, texts)
def test_effect_completed(
    run_id: str,
    position: int,
    requested: int,
    effect: str,
    outcome: OutcomeKind,
    note: str,
    took: float,
    part: int | None,
    value: str,
) -> None:
    built = effect_completed(run_id, position, requested, effect, outcome, note, took, part, value)
    same(
        built,
        EffectCompleted(
            run_id=run_id,
            position=position,
            requested=requested,
            effect=effect,
            outcome=outcome,
            note=note,
            seconds=took,
            part=part,
            value=value,
        ),
    )
    assert built.value == value  # the Python-only field is set too


def test_a_class_that_checks_its_fields_is_refused() -> None:
    @attrs.frozen
    class Checked:
        n: int = attrs.field(validator=attrs.validators.instance_of(int))

    with pytest.raises(TypeError, match="constructor"):
        _slot_setters(Checked, ("n",))


def test_fields_named_out_of_order_are_refused() -> None:
    with pytest.raises(TypeError, match="fields are"):
        _slot_setters(Transitioned, ("position", "run_id", "step", "state", "event", "target", "at"))
