"""Two experiments on the order machine for the experiments page: ``v1`` as the orders are priced, ``v2`` with
every price 10 higher (so the answer, the order's total, no longer equals the expected one)."""

from __future__ import annotations

import attrs

from agentsm_fn.durable import RunStore
from agentsm_fn.evals import Case, Dataset, equals_expected, no_failure, reached
from agentsm_fn.evals.experiment import run_experiment
from agentsm_fn.evals.subjects import Subject
from agentsm_fn.shell import Performers, Shell, StepClock
from tests.durable.machines import DURABLE_ORDERS, E, Lookup, Order, S, performers


def _pricier() -> Shell:
    return Shell(
        performers().merge(Performers().on(Lookup, lambda effect: 20 + effect.item)), StepClock(start=1000.0)
    )


PRICIER = attrs.evolve(DURABLE_ORDERS, name="tests.inspector.experiments:PRICIER", shell=_pricier)
DATASET = Dataset(
    name="orders",
    cases=(
        Case(name="two", input=Order(items=2), expected=21),
        Case(name="three", input=Order(items=3), expected=33),
    ),
    evaluators=(equals_expected(), reached("DONE"), no_failure()),
)


def stored_experiments(store: RunStore) -> None:
    """Run ``v1`` (the orders as priced: every case passes) and ``v2`` (pricier: equals expected fails)."""
    for name, durable in (("v1", DURABLE_ORDERS), ("v2", PRICIER)):
        subject: Subject[S, E, Order] = Subject(durable=durable, answer=lambda order: order.total)
        run_experiment(store, DATASET, subject, name=name, concurrency=1, coverage=False).unwrap()


__all__ = ["DATASET", "PRICIER", "stored_experiments"]
