"""Every run of the durable orders machine, explored to exhaustion, against its rules.

    agentsm-verify --explore examples/durable_orders.py:ORDER_MACHINE   # with [tool.agentsm_fn.explore]
    python examples/explore_orders.py                                 # the same, from Python

Each effect's outcomes are a short value list (prices on both sides of the approval limit,
stock or none, a receipt, the manager's yes or no); the explorer adds a raised, a timed-out
and an unknown failure of each, since every state has a failure route. The rules: three
run properties (no large charge without the manager's yes; no charge after a rejection;
every charge ends in DONE or NEEDS_REVIEW) and two invariants.
"""

from __future__ import annotations

from durable_orders import ORDER_MACHINE, AskManager, ChargeCard, CheckStock, E, LookUpPrice, Order, S
from hypothesis import strategies as st

from verification.explore import Exploration, explore
from verification.kit import (
    Invariant,
    Outcomes,
    RunProperty,
    entered,
    memory_invariant,
    never,
    only_after,
    only_changed_in,
    received,
    requested,
    responds,
    took,
)

STARTS = tuple(Order(order_id=f"o-{n}") for n in (1, 2))
"""Two orders: the ids reach the effects, so the explorer keeps their runs apart."""

OUTCOMES = (
    Outcomes()
    .on(LookUpPrice, lambda e: st.sampled_from((40, 1_000, 1_001, 5_000)))
    .on(CheckStock, lambda e: st.booleans())
    .on(ChargeCard, lambda e: st.just(f"receipt-{e.order_id}"))
    .on(AskManager, lambda e: st.booleans())
)
"""Small strategies, enumerated by the explorer (a value list via ``examples=`` works too)."""

INVARIANTS: tuple[Invariant[S, Order], ...] = (
    memory_invariant("only a large order is ever approved", lambda o: o.approved is None or o.amount > 1_000),
    only_changed_in("receipt", lambda o: o.receipt, {S.CHARGING}),
)

PROPERTIES: tuple[RunProperty[S, Order], ...] = (
    only_after(
        requested(ChargeCard, where=lambda e, t: e.amount > 1_000),
        received(AskManager, lambda yes: yes is True),
        name="no charge above 1,000 without the manager's yes",
    ),
    never(requested(ChargeCard), after=took(E.REJECTED), name="no charge after a rejection"),
    responds(
        requested(ChargeCard),
        entered(S.DONE, S.NEEDS_REVIEW),
        name="every charge ends in DONE or NEEDS_REVIEW",
    ),
)


def explore_orders() -> Exploration[S, E, Order]:
    """Explore every run of the orders machine from :data:`STARTS`."""
    return explore(ORDER_MACHINE, STARTS, OUTCOMES, INVARIANTS, properties=PROPERTIES)


if __name__ == "__main__":
    print(explore_orders().summary())
