"""Reading experiments back from the run store: the read API reports, comparisons and the inspector use.

* :func:`stored_experiments`: every experiment (name, dataset, subject, repeats), newest first;
* :func:`experiment_runs`: an experiment's case runs (each with its grades, tokens, cost and
  the id of the stored run it judged), in case and repeat order;
* :func:`case_across`: one case in several experiments, e.g. a baseline and a candidate;
* :func:`compare_stored`: two stored experiments compared case by case.

A case run is stored as the JSON of :meth:`~agentsm_fn.evals.CaseRun.to_json` (:func:`case_run_text`),
so any client of the store (SQL, the HTTP server) reads it without this library.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from returns.result import Failure, Result, Success

from agentsm_fn.durable import StoreFailure
from agentsm_fn.durable.stores.protocol.experiments import ExperimentEntry, ExperimentRecord, ExperimentStore
from agentsm_fn.evals.compare import Comparison, compare
from agentsm_fn.evals.results import CaseRun, case_run_from_json

__all__ = ["case_across", "compare_stored", "experiment_runs", "case_run_text", "stored_experiments"]


def case_run_text(run: CaseRun) -> str:
    """The JSON text a case run is stored as.

    Example:
        >>> case_run_text(CaseRun(case="fr", repeat=0, run_id="r1", status="finished"))[:36]
        '{"case": "fr", "repeat": 0, "run_id"'
    """
    return json.dumps(run.to_json())


def _run(entry: ExperimentEntry) -> CaseRun:
    data = json.loads(entry.result)
    return case_run_from_json(data if isinstance(data, Mapping) else {})


def stored_experiments(store: ExperimentStore) -> Result[tuple[ExperimentRecord, ...], StoreFailure]:
    """Every experiment in the store, newest first."""
    return store.experiments()


def experiment_runs(store: ExperimentStore, name: str) -> Result[tuple[CaseRun, ...], StoreFailure]:
    """The judged case runs of the experiment ``name`` (none if there is no such experiment)."""
    return store.experiment_entries(name).map(lambda entries: tuple(map(_run, entries)))


def case_across(
    store: ExperimentStore, case: str, experiments: Sequence[str]
) -> Result[dict[str, tuple[CaseRun, ...]], StoreFailure]:
    """The runs of ``case`` in each of ``experiments`` (an experiment that never ran it: no runs)."""
    found = store.case_entries(case, tuple(experiments))
    if isinstance(found, Failure):
        return found
    runs: dict[str, tuple[CaseRun, ...]] = {name: () for name in experiments}
    for entry in found.unwrap():
        runs[entry.experiment] = (*runs[entry.experiment], _run(entry))
    return Success(runs)


def compare_stored(
    store: ExperimentStore, baseline: str, candidate: str, *, tolerance: float = 1e-9, alpha: float = 0.05
) -> Result[Comparison, StoreFailure]:
    """The stored experiments ``baseline`` and ``candidate`` compared case by case (see :func:`compare`)."""
    old = experiment_runs(store, baseline)
    if isinstance(old, Failure):
        return old
    new = experiment_runs(store, candidate)
    if isinstance(new, Failure):
        return new
    return Success(compare(baseline, old.unwrap(), candidate, new.unwrap(), tolerance=tolerance, alpha=alpha))
