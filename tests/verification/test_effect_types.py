"""A state that declares the effects it requests: SM010 reads the declaration, the kit tests it.

An effect that turns its failures into an outcome of its own is a failure route; the
verifier cannot see which effects a state requests unless the state says so
(``effectful(..., effects={...})``). The declaration is checked against the handler's
annotations, and the kit feeds those failures and fails a run that requests an effect of
an undeclared type or whose declared effect does not handle its failure after all.
"""

from __future__ import annotations

import enum
from typing import ClassVar, Literal

import attrs
import pytest
from hypothesis import strategies as st
from returns.result import Result

from agentsm_fn import Effect, EffectFailure, Fault, Perform, define_machine, effectful, emit, perform
from agentsm_fn.core.machine import Machine
from verification import verify
from verification.effect_types import handles_own_failures
from verification.kit import Outcomes, RunViolation, check_machine, kit_settings


class S(enum.Enum):
    FETCHING = 1
    DONE = 2
    GAVE_UP = 3


class E(enum.Enum):
    GOT = 1
    GAVE_UP = 2


@attrs.frozen
class Fetch(Effect[str]):
    """A fetch whose failure becomes the text ``ERROR: ...`` (its own outcome)."""

    outcome_types: ClassVar[tuple[type, ...]] = (str,)

    def outcome_of_failure(self, failure: EffectFailure) -> str:
        return f"ERROR: {failure.problem()}"


@attrs.frozen
class Ping(Effect[str]):
    """An effect that does not handle its failures."""

    outcome_types: ClassVar[tuple[type, ...]] = (str,)


@attrs.frozen
class Liar(Effect[str]):
    """Claims (by overriding) to handle its failures, but hands them back to the state's route."""

    outcome_types: ClassVar[tuple[type, ...]] = (str,)

    def outcome_of_failure(self, failure: EffectFailure) -> str | None:
        return None


def fetch(text: str) -> Result[Perform[str, str], Fault]:
    return perform(Fetch(), text)


def ping(text: str) -> Result[Perform[str, str], Fault]:
    return perform(Ping(), text)


def lie(text: str) -> Result[Perform[str, str], Fault]:
    return perform(Liar(), text)


def count(text: str) -> Result[Perform[int, str], Fault]:  # names int outcomes: Fetch's are str
    return perform(Fetch(), text)  # type: ignore[arg-type]  # the planted disagreement


def got(text: str, body: str) -> Result[tuple[Literal[E.GOT, E.GAVE_UP], str], Fault]:
    return emit(E.GAVE_UP if body.startswith("ERROR") else E.GOT, body)


def machine(request: object, effects: set[type[Effect[object]]] | None) -> Machine[S, E, str]:
    return define_machine(
        name="fetcher",
        states=S,
        events=E,
        initial=S.FETCHING,
        terminals={S.DONE, S.GAVE_UP},
        table={(S.FETCHING, E.GOT): S.DONE, (S.FETCHING, E.GAVE_UP): S.GAVE_UP},
        handlers={S.FETCHING: effectful(request, got, effects=effects)},  # type: ignore[arg-type]  # request varies
    )


def sm010(m: Machine[S, E, str]) -> list[str]:
    return [v.message for v in verify(m).violations if v.code == "SM010"]


def test_handling_its_own_failures_is_read_from_the_effect_class() -> None:
    assert handles_own_failures(Fetch) and handles_own_failures(Liar) and not handles_own_failures(Ping)


def test_a_state_whose_declared_effects_handle_their_failures_passes_sm010() -> None:
    assert sm010(machine(fetch, None))  # undeclared: the verifier cannot see the route
    assert sm010(machine(fetch, {Fetch})) == []


def test_a_declared_effect_that_does_not_handle_its_failures_is_named() -> None:
    (message,) = sm010(machine(ping, {Ping}))
    assert "Ping do(es) not turn failures into outcomes" in message


def test_a_declaration_that_disagrees_with_the_annotations_is_reported() -> None:
    (message,) = sm010(machine(count, {Fetch}))
    assert "Fetch's outcomes (str) are not what count's Perform[...] names" in message


def test_the_kit_still_feeds_the_failures_of_a_declared_effect() -> None:
    outcomes = Outcomes().on(Fetch, lambda e: st.just("body"))
    report = check_machine(
        machine(fetch, {Fetch}), st.just("url"), outcomes=outcomes, settings=kit_settings(max_examples=80)
    )
    assert report.rows[("FETCHING", "GAVE_UP", "GAVE_UP")] > 0  # reached only through a failure


def test_the_kit_catches_a_declared_effect_that_does_not_handle_its_failure_after_all() -> None:
    assert sm010(machine(lie, {Liar})) == []  # the class says it handles them
    outcomes = Outcomes().on(Liar, lambda e: st.just("body"))
    with pytest.raises(RunViolation, match="could not perform Liar in state FETCHING") as caught:
        check_machine(
            machine(lie, {Liar}),
            st.just("url"),
            outcomes=outcomes,
            settings=kit_settings(max_examples=80),
            require_all_transitions=False,
        )
    assert caught.value.kind == "run-failed"


def test_the_kit_catches_a_state_requesting_an_effect_it_does_not_declare() -> None:
    outcomes = Outcomes().on(Ping, lambda e: st.just("body"))
    with pytest.raises(RunViolation, match="FETCHING requested Ping, declares only Fetch") as caught:
        check_machine(
            machine(ping, {Fetch}),
            st.just("url"),
            outcomes=outcomes,
            settings=kit_settings(max_examples=20),
            failures=False,
            require_all_transitions=False,
        )
    assert caught.value.kind == "undeclared-effect"
