"""Strategies for the built-in values, the outcome registry, profiles and counterexample rendering."""

from __future__ import annotations

from typing import ClassVar

import attrs
import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st

from agentsm_fn.core import Effect
from agentsm_fn.llm import LlmCall, LlmFailure, LlmFailureKind, LlmReply, LlmRequest, ToolSpec
from verification.kit import (
    Outcomes,
    default_outcomes,
    kit_settings,
    llm_failures,
    llm_replies,
    messages,
    outcomes_of,
)
from verification.kit._render import short

CALL = LlmCall(LlmRequest(model="m", messages=(), tools=(ToolSpec("search", "s", {"type": "object"}),)))


@settings(max_examples=100, deadline=None)
@given(outcomes_of(CALL))
def test_every_generated_llm_outcome_is_one_the_call_accepts(outcome: object) -> None:
    assert CALL.accepts(outcome)


@pytest.mark.parametrize("kind", list(LlmFailureKind), ids=lambda k: k.name)
def test_failures_of_every_kind_are_generated(kind: LlmFailureKind) -> None:
    assert find(llm_failures(), lambda f: f.kind is kind).kind is kind


@pytest.mark.parametrize(
    "shape",
    [
        lambda r: not r.tool_calls and not r.content.strip(),  # an empty answer
        lambda r: len(r.tool_calls) >= 2,  # parallel calls
        lambda r: bool(r.tool_calls) and bool(r.content),  # text and calls at once
        lambda r: any(c.name == "" for c in r.tool_calls),  # a malformed call
        lambda r: any(
            c.name not in ("search", "calculator", "weather") for c in r.tool_calls
        ),  # unknown tool
        lambda r: r.finish_reason == "length",  # truncated
        lambda r: r.confidence < 0.4,  # low confidence
    ],
    ids=["empty", "parallel", "text+calls", "empty-name", "unknown-tool", "truncated", "low-confidence"],
)
def test_replies_of_every_shape_are_generated(shape: object) -> None:
    assert callable(shape)
    assert isinstance(find(llm_replies(), shape), LlmReply)


@given(messages())
def test_messages_are_frozen_values(message: object) -> None:
    assert attrs.has(type(message))
    assert hash(message) == hash(message)


@attrs.frozen
class Coin(Effect[bool]):
    outcome_types: ClassVar[tuple[type, ...]] = (bool,)


def test_an_unregistered_effect_falls_back_to_its_outcome_types() -> None:
    assert isinstance(find(default_outcomes().strategy_for(Coin()), lambda b: b is True), bool)
    assert default_outcomes().examples_for(Coin()) == ()


def test_registry_entries_override_and_merge() -> None:
    heads = Outcomes().on(Coin, lambda _: st.just(True), examples=lambda _: (True,))
    merged = default_outcomes().merge(heads)
    assert merged.examples_for(Coin()) == (True,)
    assert merged.examples_for(CALL)  # LlmCall kept from the default registry
    assert isinstance(merged.examples_for(CALL)[-1], LlmFailure)


def test_profiles_are_selected_by_argument_then_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HYPOTHESIS_PROFILE", raising=False)
    assert kit_settings().max_examples == 200
    assert kit_settings().derandomize
    monkeypatch.setenv("HYPOTHESIS_PROFILE", "deep")
    assert kit_settings().max_examples == 2000
    assert kit_settings("ci").max_examples == 200
    with pytest.raises(ValueError, match="unknown Hypothesis profile"):
        kit_settings("nightly-typo")


def test_counterexamples_show_only_fields_that_differ_from_their_defaults() -> None:
    text = short(LlmReply(content="hi", confidence=0.5))
    assert text == "LlmReply(content='hi', confidence=0.5)"
    assert short("x" * 500, 20).endswith("…")
