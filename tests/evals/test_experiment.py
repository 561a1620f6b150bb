"""Experiments on a user's machine: run properties judged on recorded runs, coverage, repeats, concurrency."""

from __future__ import annotations

import asyncio
import itertools

import attrs

from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.durable import RunStore
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.evals import Case, Dataset, check, keeps, no_failure, reached, summarize
from agentsm_fn.evals.case_runs import cost_of
from agentsm_fn.evals.experiment import Price, arun_experiment, case_run_id, run_experiment
from agentsm_fn.evals.recorded import run_steps
from agentsm_fn.evals.stored import case_across, stored_experiments
from agentsm_fn.evals.subjects import Subject
from agentsm_fn.llm import LlmReply, Usage
from agentsm_fn.shell import Performers, Shell, StepClock
from tests.durable.machines import DURABLE_ORDERS, ORDERS, AskApproval, Charge, E, Lookup, Order, S
from verification.kit import RunProperty, never, only_after, requested, took

SMALL, LARGE = Order(items=2), Order(items=2, approval_over=15)
ORDERS_SUBJECT: Subject[S, E, Order] = Subject(durable=DURABLE_ORDERS, answer=lambda order: order.total)

APPROVED_FIRST: RunProperty[S, Order] = only_after(
    took(E.CHARGED), took(E.PRICED), name="charged after priced"
)
NEVER_LARGE: RunProperty[S, Order] = never(took(E.LARGE), name="never large")
CHARGES: RunProperty[S, Order] = never(
    requested(AskApproval), after=requested(Charge), name="no approval after a charge"
)


def test_the_recorded_steps_are_the_runs_rows_with_their_effects_and_outcomes(store: RunStore) -> None:
    DURABLE_ORDERS.start(store, SMALL, run_id="small").unwrap()
    seen: list[Snapshot[S, Order]] = []
    final = replay_stored(store, ORDERS, "small", seen=seen.append).unwrap()
    steps = run_steps(ORDERS, seen)
    rows = [(t.source, t.event, t.target) for t in steps]
    assert rows == [
        (S.START, E.BEGIN, S.PRICING),
        (S.PRICING, E.PRICED, S.CHARGING),
        (S.CHARGING, E.PRICED, S.PRICING),
        (S.PRICING, E.PRICED, S.CHARGING),
        (S.CHARGING, E.CHARGED, S.DONE),
    ]
    assert [t.index for t in steps] == [1, 2, 3, 4, 5] and len(steps) == final.steps
    assert (steps[1].effects, steps[1].outcomes) == ((Lookup(0),), (10,))
    assert (steps[4].effects, steps[4].outcomes) == ((Charge(1, 11),), ("receipt-1-11",))
    assert steps[0].before == SMALL and steps[-1].after == final.memory
    assert all(a.after == b.before for a, b in itertools.pairwise(steps))


def test_run_properties_and_checks_judge_each_cases_recorded_run(store: RunStore) -> None:
    dataset = Dataset(
        name="orders",
        cases=(Case(name="small", input=SMALL, expected=21), Case(name="large", input=LARGE)),
        evaluators=(keeps(APPROVED_FIRST), keeps(NEVER_LARGE), keeps(CHARGES), reached("DONE"), no_failure()),
    )
    found = run_experiment(store, dataset, ORDERS_SUBJECT, name="orders").unwrap()
    small, large = found.runs
    assert small.passed and small.status == "finished"
    assert large.status == "waiting"  # it waits for a person's approval: judged as it stands
    broken = large.grade("never large")
    assert broken is not None and broken.passed is False
    assert broken.reason == "run property 'never large' broken: LARGE happened (step 5)"
    assert large.grade("charged after priced").passed  # type: ignore[union-attr]
    assert large.grade("no failure").reason == "waiting: APPROVING"  # type: ignore[union-attr]
    coverage = found.coverage
    assert coverage is not None
    assert ("CHARGING", "LARGE", "APPROVING") in coverage.report.rows
    assert coverage.report.missing == (
        ("APPROVING", "APPROVED", "DONE"),
        ("CHARGING", "CHARGE_FAILED", "DONE"),
    )
    assert coverage.failure_routes == (("CHARGING", "CHARGE_FAILED", "DONE"),)
    assert coverage.failure_routes_taken == ()
    assert "failure route never taken: CHARGING --CHARGE_FAILED--> DONE" in coverage.summary()


def test_repeats_give_intervals_and_runs_of_one_case_are_read_across_experiments(store: RunStore) -> None:
    flaky = {"n": 0}

    def sometimes(e: object) -> bool:
        flaky["n"] += 1
        return flaky["n"] % 3 != 0

    dataset = Dataset(
        name="orders", cases=(Case(name="small", input=SMALL),), evaluators=(check("flaky", sometimes),)
    )
    first = run_experiment(store, dataset, ORDERS_SUBJECT, name="r1", repeats=3, coverage=False).unwrap()
    (summary,) = summarize(first.runs)
    assert (summary.runs, summary.passes) == (3, 2)
    assert summary.pass_rate.low < 2 / 3 < summary.pass_rate.high
    assert [r.run_id for r in first.runs] == [case_run_id("r1", "small", k) for k in range(3)]
    run_experiment(store, dataset, ORDERS_SUBJECT, name="r2", repeats=2, coverage=False).unwrap()
    across = case_across(store, "small", ["r1", "r2", "r3"]).unwrap()  # type: ignore[arg-type]  # both stores keep them
    assert {name: len(runs) for name, runs in across.items()} == {"r1": 3, "r2": 2, "r3": 0}
    assert [e.name for e in stored_experiments(store).unwrap()] == ["r2", "r1"]  # type: ignore[arg-type]  # as above


class Gate:
    """Counts how many charges are in flight at once (an async performer that yields to the loop)."""

    def __init__(self) -> None:
        self.now = self.most = 0

    async def charge(self, effect: Charge) -> str:
        self.now += 1
        self.most = max(self.most, self.now)
        await asyncio.sleep(0)  # let the other runs in: the gate, not timing, keeps them out
        await asyncio.sleep(0)
        self.now -= 1
        return f"receipt-{effect.item}"


def test_no_more_runs_than_the_concurrency_run_at_once(store: RunStore) -> None:
    gate = Gate()
    performers = Performers().on(Lookup, lambda e: 10).on_async(Charge, gate.charge)
    durable = attrs.evolve(DURABLE_ORDERS, shell=lambda: Shell(performers, StepClock(start=1.0)))
    cases = tuple(Case(name=f"o{i}", input=SMALL) for i in range(12))
    dataset = Dataset(name="many", cases=cases, evaluators=(no_failure(),))
    found = asyncio.run(arun_experiment(store, dataset, Subject(durable=durable), name="many", concurrency=3))
    assert all(r.passed for r in found.unwrap().runs) and len(found.unwrap().runs) == 12
    assert 1 < gate.most <= 3


def test_cost_is_priced_per_model_from_the_runs_replies() -> None:
    price = Price(input_per_million=2.0, output_per_million=10.0)
    assert price.of(Usage(input_tokens=500_000, output_tokens=100_000)) == 2.0
    replies = (LlmReply(model="a", usage=Usage(1_000_000, 0)), LlmReply(model="b", usage=Usage(0, 1_000_000)))
    assert cost_of(replies, {"a": price}) == 2.0
    assert cost_of(replies, {"a": price, "*": Price(input_per_million=0.0, output_per_million=1.0)}) == 3.0
