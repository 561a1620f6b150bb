"""Both stores keep experiments alike: opened once, results upserted, read by experiment and by case."""

from __future__ import annotations

from agentsm_fn.durable import RunStore
from agentsm_fn.durable.stores.protocol.experiments import ExperimentEntry, ExperimentRecord, ExperimentStore


def record(name: str, created: float, subject: str = "app:AGENT") -> ExperimentRecord:
    return ExperimentRecord(
        name=name, dataset="d", subject=subject, fingerprint="f", repeats=2, created=created
    )


def entry(experiment: str, case: str, repeat: int, run_id: str, result: str, at: float) -> ExperimentEntry:
    return ExperimentEntry(
        experiment=experiment, case=case, repeat=repeat, run_id=run_id, result=result, updated=at
    )


def test_a_store_keeps_experiments(store: RunStore) -> None:
    assert isinstance(store, ExperimentStore)


def test_an_experiment_is_opened_once_and_its_first_record_kept(store: RunStore) -> None:
    experiments: ExperimentStore = store  # type: ignore[assignment]  # checked above
    first = record("v1", 1.0)
    assert experiments.open_experiment(first).unwrap() == first
    assert experiments.open_experiment(record("v1", 5.0, subject="other:B")).unwrap() == first
    experiments.open_experiment(record("v2", 2.0)).unwrap()
    assert [e.name for e in experiments.experiments().unwrap()] == ["v2", "v1"]


def test_results_are_upserted_and_read_by_experiment_and_by_case(store: RunStore) -> None:
    experiments: ExperimentStore = store  # type: ignore[assignment]  # every store keeps experiments
    for name in ("v1", "v2"):
        experiments.open_experiment(record(name, 1.0)).unwrap()
    experiments.save_results([entry("v1", "fr", 1, "r-fr-1", '{"passed": false}', 1.0)]).unwrap()
    experiments.save_results([entry("v1", "fr", 0, "r-fr-0", '{"passed": true}', 1.0)]).unwrap()
    experiments.save_results([entry("v1", "de", 0, "r-de-0", "{}", 1.0)]).unwrap()
    experiments.save_results([entry("v2", "fr", 0, "r2-fr-0", "{}", 2.0)]).unwrap()
    experiments.save_results(
        [entry("v1", "fr", 1, "r-fr-1b", '{"passed": true}', 3.0)]
    ).unwrap()  # judged again
    v1 = experiments.experiment_entries("v1").unwrap()
    assert [(e.case, e.repeat, e.run_id) for e in v1] == [
        ("de", 0, "r-de-0"),
        ("fr", 0, "r-fr-0"),
        ("fr", 1, "r-fr-1b"),
    ]
    assert v1[2].result == '{"passed": true}' and v1[2].updated == 3.0
    across = experiments.case_entries("fr", ("v1", "v2", "v3")).unwrap()
    assert [(e.experiment, e.repeat) for e in across] == [("v1", 0), ("v1", 1), ("v2", 0)]
    assert experiments.case_entries("fr", ()).unwrap() == ()
    assert experiments.experiment_entries("none").unwrap() == ()


def test_several_results_are_saved_in_one_go(store: RunStore) -> None:
    experiments: ExperimentStore = store  # type: ignore[assignment]  # every store keeps experiments
    batch = [entry("v1", f"c{i}", 0, f"r{i}", "{}", 1.0) for i in range(5)]
    experiments.save_results(batch).unwrap()
    experiments.save_results([]).unwrap()
    assert experiments.experiment_entries("v1").unwrap() == tuple(batch)
