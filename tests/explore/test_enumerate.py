"""Listing a small strategy's values: each kind agrees with what Hypothesis draws from it.

The lister reads Hypothesis internals; these tests fail loudly if an upgrade moves them.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verification.explore import NotEnumerable
from verification.explore._enumerate import enumerate_strategy

KINDS: dict[str, st.SearchStrategy[object]] = {
    "just": st.just("x"),
    "none": st.none(),
    "booleans": st.booleans(),
    "sampled_from": st.sampled_from((3, 1, 2)),
    "integers": st.integers(-2, 2),
    "one_of": st.one_of(st.just(1), st.booleans()),
    "tuples": st.tuples(st.booleans(), st.sampled_from("ab")),
    "map": st.integers(0, 3).map(lambda n: n * 10),
    "sampled map": st.sampled_from((1, 2)).map(str),
    "filter": st.integers(0, 9).filter(lambda n: n % 3 == 0),
    "sampled filter": st.sampled_from(range(6)).filter(lambda n: n > 3),
}
EXPECTED: dict[str, tuple[object, ...]] = {
    "just": ("x",),
    "none": (None,),
    "booleans": (False, True),
    "sampled_from": (3, 1, 2),
    "integers": (-2, -1, 0, 1, 2),
    "one_of": (1, False, True),
    "tuples": ((False, "a"), (False, "b"), (True, "a"), (True, "b")),
    "map": (0, 10, 20, 30),
    "sampled map": ("1", "2"),
    "filter": (0, 3, 6, 9),
    "sampled filter": (4, 5),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_lists_exactly_its_values(kind: str) -> None:
    assert enumerate_strategy(KINDS[kind]) == EXPECTED[kind]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_value_hypothesis_draws_is_listed(kind: str) -> None:
    listed = enumerate_strategy(KINDS[kind])

    @settings(max_examples=60, database=None, derandomize=True)
    @given(KINDS[kind])
    def drawn(value: object) -> None:
        assert value in listed

    drawn()


@pytest.mark.parametrize(
    "strategy", [st.integers(), st.text(), st.integers(0, 10_000), st.lists(st.booleans())], ids=repr
)
def test_unbounded_or_unknown_strategies_ask_for_a_value_list(strategy: st.SearchStrategy[object]) -> None:
    with pytest.raises(NotEnumerable, match="value list"):
        enumerate_strategy(strategy)
