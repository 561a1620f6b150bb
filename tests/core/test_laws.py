"""The engine's laws, checked over randomly generated machines and outcome scripts."""

from __future__ import annotations

import enum
import itertools

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Failure, Result, Success

from agentsm_fn import (
    EffectFailed,
    Fault,
    Perform,
    RunFailed,
    Snapshot,
    Status,
    begin,
    replay,
    resume,
    run,
    step,
)
from tests.core.machines import Memory, RandomMachine, delivered, random_machines


def _final(
    result: Result[Snapshot[enum.Enum, Memory], RunFailed[enum.Enum, Memory]],
) -> Snapshot[enum.Enum, Memory]:
    if isinstance(result, Success):
        snapshot: Snapshot[enum.Enum, Memory] = result.unwrap()
        return snapshot
    failed: RunFailed[enum.Enum, Memory] = result.failure()
    return failed.snapshot


@settings(max_examples=300, deadline=None)
@given(random_machines())
def test_replay_of_a_recorded_run_equals_the_run(sample: RandomMachine) -> None:
    machine = sample.machine
    result = run(machine, (), sample.shell())
    replayed = replay(machine, begin(machine, ()), _final(result).journal)
    if isinstance(result, Failure) and isinstance(result.failure().reason, EffectFailed):
        # an effect failure with no route is not journaled: the journal replays to the awaiting run
        assert replayed == Success(result.failure().snapshot)
        assert result.failure().snapshot.status is Status.AWAITING
    else:
        assert replayed == result


@settings(max_examples=300, deadline=None)
@given(random_machines())
def test_every_step_follows_a_row_of_the_table(sample: RandomMachine) -> None:
    machine = sample.machine
    final = _final(run(machine, (), sample.shell()))
    names = {(s.name, e.name): t.name for (s, e), t in machine.table.items()}
    transitions = [entry for entry in final.trace if entry.target]
    for entry in transitions:
        assert names[(entry.state, entry.event)] == entry.target
    # consecutive transitions chain: each starts where the previous one ended
    for before, after in itertools.pairwise(transitions):
        assert after.state == before.target
    assert final.steps == len(transitions)


@settings(max_examples=300, deadline=None)
@given(random_machines())
def test_runs_stop_at_the_first_terminal_state(sample: RandomMachine) -> None:
    machine = sample.machine
    result = run(machine, (), sample.shell())
    final = _final(result)
    terminal_names = {t.name for t in machine.terminals}
    targets = [entry.target for entry in final.trace if entry.target]
    assert all(target not in terminal_names for target in targets[:-1])
    if isinstance(result, Success):
        assert final.status is Status.FINISHED
        assert final.state in machine.terminals
    else:
        assert final.state not in machine.terminals


@settings(max_examples=300, deadline=None)
@given(random_machines())
def test_drive_and_step_by_step_agree(sample: RandomMachine) -> None:
    machine = sample.machine
    by_run = run(machine, (), sample.shell())
    outcomes = iter(sample.script)
    snap = begin(machine, ())
    clock = iter(float(i) for i in range(10_000))
    while snap.status is not Status.FINISHED:
        if snap.status is Status.READY:
            stepped = step(machine, snap, next(clock))
        else:
            stepped = resume(machine, snap, delivered(next(outcomes, 0), snap.pending), next(clock))
        if isinstance(stepped, Failure):
            assert stepped == by_run
            return
        snap = stepped.unwrap()
    assert Success(snap) == by_run


_garbage = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
    st.tuples(st.integers(), st.integers()),
    st.tuples(st.lists(st.integers(), max_size=1), st.none()),
    st.builds(Success, st.one_of(st.none(), st.integers(), st.tuples(st.text(max_size=3), st.none()))),
    st.builds(Failure, st.one_of(st.none(), st.text(max_size=5), st.builds(Fault, st.text(max_size=5)))),
    st.builds(Success, st.builds(Perform, st.integers(), st.none())),
    st.builds(Success, st.tuples(st.integers())),
    st.builds(Success, st.tuples(st.integers(), st.integers(), st.integers())),
    st.builds(Success, st.tuples(st.lists(st.integers(), max_size=1), st.none())),  # an unhashable "event"
)


@settings(max_examples=300, deadline=None)
@given(random_machines(), _garbage, st.floats(allow_nan=False, allow_infinity=False))
def test_no_decision_makes_step_raise(sample: RandomMachine, decision: object, now: float) -> None:
    machine = sample.machine
    for state in machine.handlers:
        broken = machine.extend(handlers={state: lambda _memory, _d=decision: _d})  # type: ignore[misc]  # deliberately ill-typed handler
        snap: Snapshot[enum.Enum, Memory] = Snapshot(state=state, memory=())
        result = step(broken, snap, now)
        assert isinstance(result, Success | Failure)
        if isinstance(result, Failure):
            assert result.failure().snapshot.memory == ()


@settings(max_examples=300, deadline=None)
@given(random_machines(), _garbage)
def test_the_run_loop_and_step_judge_every_decision_alike(sample: RandomMachine, decision: object) -> None:
    # run() takes the engine's fast fold, step() the plain path: no decision may tell them apart.
    machine = sample.machine
    for state in machine.handlers:
        patched = machine.extend(handlers={state: lambda _memory, _d=decision: _d})  # type: ignore[misc]  # deliberately ill-typed handler
        broken = attrs.evolve(patched, initial=state)
        by_run = run(broken, (), sample.shell())
        by_step = step(broken, begin(broken, ()), _final(by_run).journal[0].at)
        assert isinstance(by_run, Failure) == isinstance(by_step, Failure)
        if isinstance(by_run, Failure) and isinstance(by_step, Failure):
            assert by_run.failure().reason == by_step.failure().reason
            assert by_run.failure().snapshot.memory == ()
