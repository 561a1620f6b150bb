"""The durable example's order machines: verified, and every failure ends where its docstring says."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from agentsm_fn import Shell, run
from agentsm_fn.core import SUSPEND
from agentsm_fn.shell import Performers
from tests.example_modules import example
from verification import verify

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture(scope="module")
def orders() -> ModuleType:
    return example("durable_orders")


def test_both_versions_prove_every_property(orders: ModuleType) -> None:
    for machine in (orders.ORDER_MACHINE, orders.ORDER_MACHINE_V2):
        report = verify(machine)
        assert report.ok and report.strongly_sound, report.violations


def shell(orders: ModuleType, **changed: Callable[..., object]) -> Shell:
    performers: dict[type, Callable[..., object]] = {
        orders.LookUpPrice: lambda effect: 5_000,
        orders.CheckStock: lambda effect: True,
        orders.ChargeCard: lambda effect: f"receipt-{effect.order_id}",
        orders.AskManager: lambda effect: True,
        **{getattr(orders, name): performer for name, performer in changed.items()},
    }
    every = Performers()
    for kind, performer in performers.items():
        every = every.on(kind, performer)
    return Shell(every)


def failing(effect: object) -> object:
    raise ConnectionError("the card processor hung up")


@pytest.mark.parametrize(
    ("changed", "ends_in", "receipt"),
    [
        ({}, "DONE", "receipt-o-1"),
        ({"AskManager": lambda effect: False}, "CANCELLED", ""),
        ({"CheckStock": lambda effect: False}, "CANCELLED", ""),
        ({"LookUpPrice": failing}, "CANCELLED", ""),
        ({"AskManager": failing}, "CANCELLED", ""),
        ({"ChargeCard": failing}, "NEEDS_REVIEW", ""),
    ],
)
def test_each_outcome_and_failure_ends_the_order_where_the_table_says(
    orders: ModuleType, changed: dict[str, Callable[..., object]], ends_in: str, receipt: str
) -> None:
    done = run(orders.ORDER_MACHINE, orders.Order(order_id="o-1"), shell(orders, **changed)).unwrap()
    assert done.state.name == ends_in
    assert done.memory.receipt == receipt


def test_a_suspended_approval_still_waits(orders: ModuleType) -> None:
    waiting = run(
        orders.ORDER_MACHINE, orders.Order(order_id="o-7"), shell(orders, AskManager=lambda e: SUSPEND)
    ).unwrap()
    assert waiting.state.name == "APPROVING" and waiting.pending is not None
