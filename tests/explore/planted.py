"""Copies of the explored examples, each with one planted bug (importable: pasted tests import them)."""

from __future__ import annotations

import enum
import importlib
from typing import Literal

import attrs
from durable_orders import ORDER_MACHINE, E, Order, S, look_up
from returns.result import Result

from agentsm_fn import Fault, effectful, emit, pure

triage = importlib.import_module("examples.property_testing.triage")


def priced_with_a_typo(order: Order, amount: int) -> Result[tuple[Literal[E.PRICED, E.LARGE], Order], Fault]:
    """``priced`` as written, except that the approval limit has one zero too many (the planted bug)."""
    return emit(E.LARGE if amount > 10_000 else E.PRICED, attrs.evolve(order, amount=amount))


ORDERS_WITH_A_TYPO = ORDER_MACHINE.extend(
    handlers={S.PRICING: effectful(look_up, priced_with_a_typo, failure_event=E.FAILED)}
)
"""Orders up to 10,000 skip the manager: the graph is unchanged, only a handler is wrong."""


def routing_urgent_to_work(t: object) -> Result[tuple[enum.Enum, object], Fault]:
    """Routing as written, except that an urgent ticket is assigned (the planted bug)."""
    urgent = getattr(t, "priority", 0) == 1
    return emit(triage.E.ASSIGNED, t) if urgent else triage.routing(t)


TRIAGE_WORKING_URGENT = triage.TRIAGE.extend(
    handlers={triage.S.ROUTING: pure(routing_urgent_to_work, events=set(triage.E))}
)
"""The triage workflow with urgent tickets sent to work instead of escalated."""
