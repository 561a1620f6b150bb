"""The inspector's experiments: what each experiment in the store found, case by case, as plain data.

An experiment's rows are read through the store's experiment protocol
(:class:`~agentsm_fn.durable.stores.protocol.experiments.ExperimentStore`); each case run's
result is the JSON the experiment stored next to its run (its grades, score, tokens, cost), read
here as JSON: nothing of :mod:`agentsm_fn.evals` is imported (its run properties need
Hypothesis), so the inspector serves experiments with the server extra alone. What a judge or a
run wrote (reasons, errors) is redacted as the rest of the page is (:func:`~agentsm_fn.inspector.plain`).

* :func:`experiments_view`: every experiment, newest first, with its cases, runs, pass rate and mean score;
* :func:`experiment_view`: one experiment's case runs, each with every evaluator's grade;
* :func:`case_view`: one case in two experiments, grades side by side (the page then compares the runs).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence

from returns.result import Failure, Result, Success

from agentsm_fn.durable import StoreFailure
from agentsm_fn.durable.stores.protocol.experiments import ExperimentEntry, ExperimentRecord, ExperimentStore
from agentsm_fn.inspector.plain import plain
from agentsm_fn.llm.json import JsonValue

__all__ = ["case_view", "experiment_view", "experiments_view"]

View = dict[str, JsonValue]


def _number(data: Mapping[str, object], key: str) -> float:
    value = data.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _grade(data: object) -> View:
    found: Mapping[str, object] = data if isinstance(data, Mapping) else {}
    grade: View = {"evaluator": str(found.get("evaluator", "")), "reason": str(found.get("reason", ""))}
    passed, score, label = found.get("passed"), found.get("score"), found.get("label")
    grade["passed"] = passed if isinstance(passed, bool) else None
    grade["score"] = float(score) if isinstance(score, int | float) and not isinstance(score, bool) else None
    grade["label"] = str(label) if label is not None else None
    return grade


def case_run(entry: ExperimentEntry) -> View:
    """One case run as the page shows it (a result that is not JSON reads as a run with an error).

    Example:
        >>> entry = ExperimentEntry(experiment="v1", case="fr", repeat=0, run_id="r1", updated=0.0,
        ...     result='{"status": "finished", "passed": true, "score": 1.0, '
        ...            '"grades": [{"evaluator": "equals", "passed": true, "reason": "same"}]}')
        >>> run = case_run(entry)
        >>> run["passed"], run["grades"][0]["evaluator"]
        (True, 'equals')
    """
    try:
        data: object = json.loads(entry.result)
    except ValueError:
        data = {"error": "its stored result is not JSON"}
    found: Mapping[str, object] = data if isinstance(data, Mapping) else {}
    grades = found.get("grades")
    usage = found.get("usage")
    tokens = usage if isinstance(usage, Mapping) else {}
    shown = plain(  # the reasons and errors a judge or a run wrote, redacted as the rest of the page is
        {
            "case": entry.case,
            "repeat": entry.repeat,
            "run_id": entry.run_id,
            "status": str(found.get("status", "")),
            "passed": bool(found.get("passed", False)),
            "score": _number(found, "score"),
            "grades": [_grade(g) for g in grades] if isinstance(grades, list) else [],
            "tokens": int(_number(tokens, "input_tokens") + _number(tokens, "output_tokens")),
            "cost": _number(found, "cost"),
            "seconds": _number(found, "seconds"),
            "steps": int(_number(found, "steps")),
            "error": str(found.get("error", "")),
        }
    )
    assert isinstance(shown, dict)  # plain keeps a dict a dict
    return shown


def _summary(record: ExperimentRecord, runs: Sequence[View]) -> View:
    scores = [float(r["score"]) for r in runs if isinstance(r["score"], float)]
    return {
        "name": record.name,
        "dataset": record.dataset,
        "subject": record.subject,
        "fingerprint": record.fingerprint,
        "repeats": record.repeats,
        "created": record.created,
        "cases": len({r["case"] for r in runs}),
        "runs": len(runs),
        "passed": sum(1 for r in runs if r["passed"]),
        "score": sum(scores) / len(scores) if scores else None,
    }


def _evaluators(runs: Iterable[View]) -> JsonValue:
    names: set[str] = set()
    for run in runs:
        grades = run["grades"]
        if isinstance(grades, list):
            names.update(str(g.get("evaluator", "")) for g in grades if isinstance(g, Mapping))
    return sorted(names)


def _runs(store: ExperimentStore, name: str) -> Result[list[View], StoreFailure]:
    return store.experiment_entries(name).map(lambda entries: [case_run(e) for e in entries])


def experiments_view(store: ExperimentStore) -> Result[View, StoreFailure]:
    """Every experiment in the store, newest first, each with its cases, runs, passes and mean score."""
    records = store.experiments()
    if isinstance(records, Failure):
        return records
    shown: list[JsonValue] = []
    for record in records.unwrap():
        runs = _runs(store, record.name)
        if isinstance(runs, Failure):
            return runs
        shown.append(_summary(record, runs.unwrap()))
    return Success({"experiments": shown})


def experiment_view(store: ExperimentStore, name: str) -> Result[View | None, StoreFailure]:
    """Experiment ``name``: its summary, evaluators, case runs, and the other experiments (None: absent)."""
    records = store.experiments()
    if isinstance(records, Failure):
        return records
    record = next((r for r in records.unwrap() if r.name == name), None)
    if record is None:
        return Success(None)
    runs = _runs(store, name)
    if isinstance(runs, Failure):
        return runs
    found = runs.unwrap()
    view = _summary(record, found)
    view["evaluators"] = _evaluators(found)
    view["case_runs"] = list(found)
    view["others"] = [r.name for r in records.unwrap() if r.name != name]
    return Success(view)


def case_view(store: ExperimentStore, case: str, a: str, b: str) -> Result[View | None, StoreFailure]:
    """Case ``case`` in experiments ``a`` and ``b``: each one's runs of it (None if either is absent)."""
    records = store.experiments()
    if isinstance(records, Failure):
        return records
    names = {r.name for r in records.unwrap()}
    if a not in names or b not in names:
        return Success(None)
    entries = store.case_entries(case, (a, b))
    if isinstance(entries, Failure):
        return entries
    found = entries.unwrap()
    runs = [case_run(e) for e in found]

    def side(name: str) -> View:
        return {"name": name, "runs": [r for r, e in zip(runs, found, strict=True) if e.experiment == name]}

    return Success({"case": case, "a": side(a), "b": side(b), "evaluators": _evaluators(runs)})
