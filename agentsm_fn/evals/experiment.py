"""Experiments: a subject run on every case of a dataset, N times each, every run stored and judged.

:func:`arun_experiment` runs the subject's durable program on each (case, repeat) with at
most ``concurrency`` runs at once, in the run store, under run ids derived from the
experiment, the case and the repeat (:func:`case_run_id`), so each case's run opens in the
inspector and replays. A finished run is judged by the dataset's evaluators (checks read
the stored run; a judge runs durably next to it), and its :class:`~agentsm_fn.evals.CaseRun`
is stored with the experiment (in batches, one transaction each). Running an experiment again resumes
it: judged case runs are read back, not run again; a run that was cut off (its process
killed) is resumed from its journal, so no effect is performed twice; the rest are started.

Errors: :class:`ExperimentRefused` when the store holds an experiment of that name for
another subject or machine (compare experiments, never mix them); a store failure.
"""

from __future__ import annotations

import asyncio
import enum
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.durable import RunStore, StoreFailure
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.durable.stores.protocol.experiments import ExperimentEntry, ExperimentRecord, ExperimentStore
from agentsm_fn.evals.case_runs import Price, case_run_id, judge_case
from agentsm_fn.evals.cases import Case, Dataset
from agentsm_fn.evals.coverage import MachineCoverage, machine_coverage
from agentsm_fn.evals.results import CaseRun
from agentsm_fn.evals.stored import case_run_text, experiment_runs
from agentsm_fn.evals.subjects import Subject

__all__ = [
    "ExperimentRefused",
    "ExperimentResult",
    "Price",
    "arun_experiment",
    "case_run_id",
    "run_experiment",
]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

SAVE_EVERY = 32
"""Judged case runs are stored in batches of this many (and the rest at the end), one transaction each."""

Progress = Callable[[int, int, CaseRun], None]
"""Told ``(done, total, case_run)`` as each case run is judged."""


@attrs.frozen(kw_only=True)
class ExperimentRefused:
    """The store's experiment of this name is of another subject or machine: ``why``."""

    experiment: str
    why: str

    def describe(self) -> str:
        """One line: the experiment and why it cannot go on here."""
        return f"experiment {self.experiment!r}: {self.why}"


ExperimentError = ExperimentRefused | StoreFailure
"""Why an experiment could not run at all (a case's own trouble is in its case run)."""


@attrs.frozen(kw_only=True)
class ExperimentResult:
    """An experiment's case runs (one per case and repeat, in dataset order) and the machine's coverage."""

    name: str
    runs: tuple[CaseRun, ...]
    ran: int
    """How many case runs were run (or resumed) now; the others were read back, already judged."""
    coverage: MachineCoverage | None = None


def _opened(store: ExperimentStore, record: ExperimentRecord) -> Result[ExperimentRecord, ExperimentError]:
    opened = store.open_experiment(record)
    if isinstance(opened, Failure):
        return opened
    found = opened.unwrap()
    if found.subject != record.subject:
        return Failure(
            ExperimentRefused(experiment=record.name, why=f"it ran {found.subject}, not {record.subject}")
        )
    if found.fingerprint != record.fingerprint:
        why = "its machine changed since it started (name a new experiment to compare with it)"
        return Failure(ExperimentRefused(experiment=record.name, why=why))
    return Success(found)


async def arun_experiment(
    store: RunStore,
    dataset: Dataset,
    subject: Subject[Any, Any, Any],
    *,
    name: str,
    repeats: int = 1,
    concurrency: int = 4,
    prices: Mapping[str, Price] | None = None,
    progress: Progress | None = None,
    coverage: bool = True,
    clock: Callable[[], float] | None = None,
) -> Result[ExperimentResult, ExperimentError]:
    """Run ``subject`` on every case of ``dataset`` ``repeats`` times (resuming an interrupted run of it)."""
    experiments: ExperimentStore = store  # type: ignore[assignment]  # both stores keep experiments
    now = (clock or subject.durable.clock or time.time)()
    record = ExperimentRecord(
        name=name,
        dataset=dataset.name,
        subject=subject.name,
        fingerprint=subject.durable.fingerprint,
        repeats=repeats,
        created=now,
    )
    opened = _opened(experiments, record)
    if isinstance(opened, Failure):
        return opened
    fresh = opened.unwrap() == record  # stored by this call: no run of it can exist yet
    before = experiment_runs(experiments, name)
    if isinstance(before, Failure):
        return before
    judged = {(r.case, r.repeat): r for r in before.unwrap()}
    todo = [(case, k) for case in dataset.cases for k in range(repeats) if (case.name, k) not in judged]
    total, done = len(dataset.cases) * repeats, len(judged)
    gate = asyncio.Semaphore(max(1, concurrency))
    stopped: list[Any] = []
    unsaved: list[ExperimentEntry] = []
    saving: list[Result[None, StoreFailure]] = []

    async def save() -> None:
        batch = list(unsaved)
        unsaved.clear()
        if batch:
            saving.append(await asyncio.to_thread(experiments.save_results, batch))

    async def one(case: Case, repeat: int) -> None:
        nonlocal done
        async with gate:
            run, snapshot = await judge_case(store, dataset, subject, case, repeat, name, prices or {}, fresh)
        stamp = (clock or time.time)()
        unsaved.append(
            ExperimentEntry(
                experiment=name,
                case=case.name,
                repeat=repeat,
                run_id=run.run_id,
                result=case_run_text(run),
                updated=stamp,
            )
        )
        if len(unsaved) >= SAVE_EVERY:  # a judged run lost with its batch is judged again, never run again
            await save()
        judged[(case.name, repeat)] = run
        if snapshot is not None:
            stopped.append(snapshot)
        done += 1
        if progress is not None:
            progress(done, total, run)

    await asyncio.gather(*(one(case, k) for case, k in todo))
    await save()
    failed = next((r for r in saving if isinstance(r, Failure)), None)
    if failed is not None:
        return failed
    runs = tuple(judged[(c.name, k)] for c in dataset.cases for k in range(repeats) if (c.name, k) in judged)
    covered = None
    if coverage:
        snapshots = await asyncio.to_thread(_snapshots, store, subject, runs, stopped)
        covered = machine_coverage(subject.durable.machine, snapshots)
    return Success(ExperimentResult(name=name, runs=runs, ran=len(todo), coverage=covered))


def _snapshots(
    store: RunStore, subject: Subject[Any, Any, Any], runs: Sequence[CaseRun], fresh: list[Any]
) -> list[Any]:
    """Where every case run stopped: as they ran, if all ran now; else replayed from the store."""
    made = [r for r in runs if r.run_id and not r.error]
    if len(fresh) == len(made):
        return fresh
    found = (replay_stored(store, subject.durable.machine, r.run_id) for r in made)
    return [r.unwrap() for r in found if isinstance(r, Success)]


def run_experiment(
    store: RunStore,
    dataset: Dataset,
    subject: Subject[StateT, EventT, MemoryT],
    *,
    name: str,
    repeats: int = 1,
    concurrency: int = 4,
    prices: Mapping[str, Price] | None = None,
    progress: Progress | None = None,
    coverage: bool = True,
) -> Result[ExperimentResult, ExperimentError]:
    """:func:`arun_experiment` from synchronous code (in an event loop of its own).

    Example:
        >>> from agentsm_fn.durable import Durable, SqliteStore
        >>> from agentsm_fn.evals import Case, Dataset, equals_expected
        >>> from agentsm_fn.evals.judge import JUDGE_MACHINE, JudgeMemory
        >>> from agentsm_fn.llm import LlmReply
        >>> from agentsm_fn.shell import Shell
        >>> from agentsm_fn.shell.react_performers import llm_performers
        >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
        >>> said = LlmReply(content='{"passed": true, "score": 1, "reason": "right"}')
        >>> grader = Durable(name="app:GRADER", machine=JUDGE_MACHINE,
        ...                  shell=lambda: Shell(llm_performers(ScriptedLlm([said]))))
        >>> asked = JudgeMemory(rubric="r", question="2+2?", answer="4")
        >>> case = Case(name="sum", input=asked, expected="right")
        >>> data = Dataset(name="d", cases=(case,), evaluators=(equals_expected(),))
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> found = run_experiment(store, data, Subject(durable=grader, answer=lambda m: m.reason), name="v1")
        >>> [(r.case, r.passed, r.run_id) for r in found.unwrap().runs]
        [('sum', True, 'v1.sum.0.6ee32707')]
        >>> store.close()
    """
    return asyncio.run(
        arun_experiment(
            store,
            dataset,
            subject,
            name=name,
            repeats=repeats,
            concurrency=concurrency,
            prices=prices,
            progress=progress,
            coverage=coverage,
        )
    )
