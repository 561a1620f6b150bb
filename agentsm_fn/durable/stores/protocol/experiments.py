"""Experiments in the run store: which runs an experiment made, and how each was judged.

An experiment is a set of runs tagged with it (docs/evals.md): one row per experiment (its
name, dataset, the durable program it ran and its machine's fingerprint, how many repeats),
and one row per case run (the experiment, the case, the repeat, the run's id, and its result
as JSON text: the grades, tokens, cost). The runs themselves are ordinary stored runs: they
replay and open in the inspector. Both stores keep experiments with the same SQL
(:mod:`agentsm_fn.durable.stores.sql.experiments`); the result text is opaque to the store.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import attrs
from returns.result import Result

from agentsm_fn.durable.errors import StoreFailure

__all__ = ["ExperimentEntry", "ExperimentRecord", "ExperimentStore"]


@attrs.frozen(kw_only=True)
class ExperimentRecord:
    """One experiment: its name, its dataset's name, the durable program it ran, how many repeats.

    Example:
        >>> ExperimentRecord(name="v1", dataset="capitals", subject="app:AGENT", fingerprint="f",
        ...                  repeats=3, created=0.0).repeats
        3
    """

    name: str
    dataset: str
    subject: str
    fingerprint: str
    repeats: int
    created: float


@attrs.frozen(kw_only=True)
class ExperimentEntry:
    """One judged run of one case in an experiment: the run's id and its result (JSON text)."""

    experiment: str
    case: str
    repeat: int
    run_id: str
    result: str
    updated: float


@runtime_checkable
class ExperimentStore(Protocol):
    """A store that keeps experiments (both stores do)."""

    def open_experiment(self, record: ExperimentRecord) -> Result[ExperimentRecord, StoreFailure]:
        """Store ``record`` unless an experiment of its name is stored; the stored one."""
        ...

    def experiments(self) -> Result[tuple[ExperimentRecord, ...], StoreFailure]:
        """Every experiment, newest first."""
        ...

    def save_results(self, entries: Sequence[ExperimentEntry]) -> Result[None, StoreFailure]:
        """Store (or replace) the results of case runs, and the runs they judged: one transaction."""
        ...

    def experiment_entries(self, experiment: str) -> Result[tuple[ExperimentEntry, ...], StoreFailure]:
        """An experiment's judged case runs, by case and repeat."""
        ...

    def case_entries(
        self, case: str, experiments: Sequence[str]
    ) -> Result[tuple[ExperimentEntry, ...], StoreFailure]:
        """The judged runs of ``case`` in each of ``experiments``, by experiment and repeat."""
        ...
