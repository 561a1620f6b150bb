"""The experiments every store keeps, in SQL both SQLite and PostgreSQL run alike.

:class:`StoreExperiments` reads and writes the ``experiments`` and ``experiment_runs`` tables
(:mod:`agentsm_fn.durable.stores.protocol.experiments`) over a store's ``_query`` and
``_change``: a result is one upsert, on the table's primary key (experiment, case, repeat).
"""

from __future__ import annotations

from collections.abc import Sequence

from returns.result import Result

from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.durable.stores.protocol.experiments import ExperimentEntry, ExperimentRecord
from agentsm_fn.durable.stores.sql.reads import Rows
from agentsm_fn.durable.stores.sql.writes import Execute, StoreWrites

__all__ = ["EXPERIMENT_TABLES", "StoreExperiments"]

EXPERIMENT_TABLES = (
    """CREATE TABLE IF NOT EXISTS experiments (
        name TEXT PRIMARY KEY,
        dataset TEXT NOT NULL,
        subject TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        repeats INTEGER NOT NULL,
        created {real} NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS experiment_runs (
        experiment TEXT NOT NULL,
        case_name TEXT NOT NULL,
        repeat INTEGER NOT NULL,
        run_id TEXT NOT NULL,
        result TEXT NOT NULL,
        updated {real} NOT NULL,
        PRIMARY KEY (experiment, case_name, repeat)
    )""",
    "CREATE INDEX IF NOT EXISTS experiment_runs_by_case ON experiment_runs (case_name, experiment, repeat)",
    "CREATE INDEX IF NOT EXISTS experiment_runs_by_run ON experiment_runs (run_id)",
)
"""The tables (``{real}``: the database's float type); created by every open, so an older store gains them."""

_EXPERIMENT = "name, dataset, subject, fingerprint, repeats, created"
_ENTRY = "experiment, case_name, repeat, run_id, result, updated"


def _record(row: tuple[object, ...]) -> ExperimentRecord:
    name, dataset, subject, fingerprint, repeats, created = row
    return ExperimentRecord(
        name=str(name),
        dataset=str(dataset),
        subject=str(subject),
        fingerprint=str(fingerprint),
        repeats=int(repeats),  # type: ignore[call-overload]  # an INTEGER column
        created=float(created),  # type: ignore[arg-type]  # a REAL column
    )


def _entry(row: tuple[object, ...]) -> ExperimentEntry:
    experiment, case, repeat, run_id, result, updated = row
    return ExperimentEntry(
        experiment=str(experiment),
        case=str(case),
        repeat=int(repeat),  # type: ignore[call-overload]  # an INTEGER column
        run_id=str(run_id),
        result=str(result),
        updated=float(updated),  # type: ignore[arg-type]  # a REAL column
    )


def _entries(rows: Rows) -> tuple[ExperimentEntry, ...]:
    return tuple(map(_entry, rows))


class StoreExperiments(StoreWrites):
    """The experiments of a :class:`~agentsm_fn.durable.stores.protocol.store.RunStore`, in shared SQL.

    Example:
        >>> from agentsm_fn.durable.stores.sqlite import SqliteStore
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> v1 = ExperimentRecord(name="v1", dataset="d", subject="app:A", fingerprint="f", repeats=1,
        ...                       created=1.0)
        >>> store.open_experiment(v1).unwrap() == v1
        True
        >>> fr = ExperimentEntry(experiment="v1", case="fr", repeat=0, run_id="run-1", result="{}",
        ...                      updated=2.0)
        >>> store.save_results([fr]).unwrap()
        >>> [(e.case, e.run_id) for e in store.experiment_entries("v1").unwrap()]
        [('fr', 'run-1')]
        >>> store.close()
    """

    def open_experiment(self, record: ExperimentRecord) -> Result[ExperimentRecord, StoreFailure]:
        """Store ``record`` unless an experiment of its name is stored; the stored one."""

        def work(execute: Execute) -> None:
            execute(
                f"INSERT INTO experiments({_EXPERIMENT}) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (name) DO NOTHING",
                (
                    record.name,
                    record.dataset,
                    record.subject,
                    record.fingerprint,
                    record.repeats,
                    record.created,
                ),
            )

        stored = self._change("open experiment", work, one_statement=True)
        sql = f"SELECT {_EXPERIMENT} FROM experiments WHERE name = ?"
        return stored.bind(
            lambda _: self._query("read experiment", sql, (record.name,), lambda rows: _record(rows[0]))
        )

    def experiments(self) -> Result[tuple[ExperimentRecord, ...], StoreFailure]:
        """Every experiment, newest first."""
        sql = f"SELECT {_EXPERIMENT} FROM experiments ORDER BY created DESC, name"
        return self._query("list experiments", sql, (), lambda rows: tuple(map(_record, rows)))

    def save_results(self, entries: Sequence[ExperimentEntry]) -> Result[None, StoreFailure]:
        """Store (or replace) the results of case runs, and the runs they judged: one transaction."""
        sql = (
            f"INSERT INTO experiment_runs({_ENTRY}) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (experiment, case_name, repeat) DO UPDATE SET run_id = excluded.run_id, "
            "result = excluded.result, updated = excluded.updated"
        )

        def work(execute: Execute) -> None:
            for e in entries:
                execute(sql, (e.experiment, e.case, e.repeat, e.run_id, e.result, e.updated))

        return self._change("save experiment results", work, one_statement=len(entries) == 1)

    def experiment_entries(self, experiment: str) -> Result[tuple[ExperimentEntry, ...], StoreFailure]:
        """An experiment's judged case runs, by case and repeat."""
        sql = f"SELECT {_ENTRY} FROM experiment_runs WHERE experiment = ? ORDER BY case_name, repeat"
        return self._query("read experiment", sql, (experiment,), _entries)

    def case_entries(
        self, case: str, experiments: Sequence[str]
    ) -> Result[tuple[ExperimentEntry, ...], StoreFailure]:
        """The judged runs of ``case`` in each of ``experiments``, by experiment and repeat."""
        names = tuple(experiments)
        marks = ", ".join("?" * len(names)) or "NULL"
        sql = (
            f"SELECT {_ENTRY} FROM experiment_runs WHERE case_name = ? AND experiment IN ({marks}) "
            "ORDER BY experiment, repeat"
        )
        return self._query("read case runs", sql, (case, *names), _entries)
