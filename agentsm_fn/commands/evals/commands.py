"""``agentsm-eval``: run a dataset against a durable program and gate a merge on the result.

``agentsm-eval run DATASET module:DURABLE [--baseline EXPERIMENT] [--fail-under SCORE]`` runs
every case (an interrupted experiment resumes where it stopped), prints the table (and writes
JSON or JUnit XML when asked), compares with the baseline, and exits with a code that means
one thing (:class:`~agentsm_fn.commands.evals._parser.Exit`). ``compare``, ``report`` and
``list`` read experiments back from the store.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from returns.result import Failure

from agentsm_fn.commands.evals._parser import Exit, parser
from agentsm_fn.commands.evals._progress import progress_bar
from agentsm_fn.durable import Durable, RunStore, open_store
from agentsm_fn.durable.running.templates import TemplateMismatch
from agentsm_fn.durable.stores.protocol.experiments import ExperimentStore
from agentsm_fn.evals.experiment import ExperimentRefused, ExperimentResult, run_experiment
from agentsm_fn.evals.files import load_dataset
from agentsm_fn.evals.reports import comparison_json, junit_xml, render_comparison, render_table, report_json
from agentsm_fn.evals.stored import compare_stored, experiment_runs
from agentsm_fn.evals.subjects import Subject, subject_for
from agentsm_fn.shell.targets import import_target

__all__: list[str] = []  # the entry point `main` is not re-exported: verification.cli has a main too


def _fail(message: str, code: Exit) -> int:
    print(f"agentsm-eval: {message}", file=sys.stderr)
    return int(code)


def _subject(name: str) -> Subject[Any, Any, Any] | tuple[str, Exit]:
    try:
        imported = import_target(name, passing=(TemplateMismatch,))
    except TemplateMismatch as mismatch:
        return str(mismatch), Exit.USAGE
    if isinstance(imported, Failure):
        return f"cannot load {name}: {imported.failure()}", Exit.NOT_FOUND
    found = imported.unwrap().value
    if isinstance(found, Subject):
        return found
    if isinstance(found, Durable):
        return subject_for(found)
    return f"{name} is not a Durable or a Subject (found {type(found).__name__})", Exit.NOT_FOUND


def _run(store: RunStore, args: Any) -> int:
    subject = _subject(args.durable)  # first: a file's folder is where the dataset's references are found too
    if isinstance(subject, tuple):
        return _fail(*subject)
    dataset = load_dataset(args.dataset)
    if isinstance(dataset, Failure):
        return _fail(dataset.failure().describe(), Exit.DATASET)
    cases = dataset.unwrap()
    misfits = [(c.name, subject.start(c)) for c in cases.cases]
    problems = [
        f"{args.dataset}: case {name!r}: {m.failure()}" for name, m in misfits if isinstance(m, Failure)
    ]
    if problems:
        return _fail("\n".join(problems), Exit.DATASET)
    experiments: ExperimentStore = store  # type: ignore[assignment]  # both stores keep experiments
    if args.baseline and not experiment_runs(experiments, args.baseline).map(bool).value_or(False):
        return _fail(f"no experiment {args.baseline!r} in the store to compare with", Exit.NOT_FOUND)
    name = args.name or cases.name
    with progress_bar(not args.no_progress) as told:
        ran = run_experiment(
            store,
            cases,
            subject,
            name=name,
            repeats=args.repeats,
            concurrency=args.concurrency,
            progress=told,
            coverage=args.coverage,
        )
    if isinstance(ran, Failure):
        problem = ran.failure()
        code = Exit.REFUSED if isinstance(problem, ExperimentRefused) else Exit.STORE
        return _fail(problem.describe(), code)
    return _report(experiments, ran.unwrap(), args)


def _report(store: ExperimentStore, found: ExperimentResult, args: Any) -> int:
    print(render_table(found.name, found.runs))
    if found.coverage is not None:
        print(found.coverage.summary())
    if args.json:
        Path(args.json).write_text(
            json.dumps(report_json(found.name, found.runs), indent=2), encoding="utf-8"
        )
    if args.junit:
        Path(args.junit).write_text(junit_xml(found.name, found.runs), encoding="utf-8")
    regressed = False
    if args.baseline:
        compared = compare_stored(store, args.baseline, found.name)
        if isinstance(compared, Failure):
            return _fail(compared.failure().describe(), Exit.STORE)
        print(render_comparison(compared.unwrap()))
        regressed = bool(compared.unwrap().regressed)
    if regressed:
        return int(Exit.REGRESSED)
    score = sum(r.score for r in found.runs) / len(found.runs) if found.runs else 0.0
    if args.fail_under is not None and score < args.fail_under:
        return _fail(f"mean score {score:.3f} is under {args.fail_under}", Exit.BELOW)
    return int(Exit.OK)


def _dispatch(store: RunStore, args: Any) -> int:
    experiments: ExperimentStore = store  # type: ignore[assignment]  # both stores keep experiments
    if args.command == "run":
        return _run(store, args)
    if args.command == "list":
        listed = experiments.experiments()
        if isinstance(listed, Failure):
            return _fail(listed.failure().describe(), Exit.STORE)
        for e in listed.unwrap():
            print(f"{e.name}\t{e.dataset}\t{e.subject}\trepeats={e.repeats}")
        return int(Exit.OK)
    if args.command == "report":
        runs = experiment_runs(experiments, args.name)
        if isinstance(runs, Failure):
            return _fail(runs.failure().describe(), Exit.STORE)
        if not runs.unwrap():
            return _fail(f"no experiment {args.name!r} in the store", Exit.NOT_FOUND)
        shown = {
            "table": lambda: render_table(args.name, runs.unwrap()),
            "json": lambda: json.dumps(report_json(args.name, runs.unwrap()), indent=2),
            "junit": lambda: junit_xml(args.name, runs.unwrap()),
        }[args.format]()
        print(shown)
        return int(Exit.OK)
    for named in (args.baseline, args.candidate):
        if not experiment_runs(experiments, named).map(bool).value_or(False):
            return _fail(f"no experiment {named!r} in the store", Exit.NOT_FOUND)
    compared = compare_stored(experiments, args.baseline, args.candidate)
    if isinstance(compared, Failure):
        return _fail(compared.failure().describe(), Exit.STORE)
    print(
        json.dumps(comparison_json(compared.unwrap())) if args.json else render_comparison(compared.unwrap())
    )
    return int(Exit.REGRESSED if compared.unwrap().regressed else Exit.OK)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``agentsm-eval`` with ``argv``; return its exit code.

    Example:
        >>> import tempfile, os
        >>> main(["--db", os.path.join(tempfile.mkdtemp(), "runs.db"), "list"])
        0
    """
    args = parser().parse_args(argv)
    db = args.db if args.db is not None else os.environ.get("AGENTSM_RUNS_DB", "runs.db")
    opened = open_store(db)
    if isinstance(opened, Failure):
        return _fail(opened.failure().describe(), Exit.STORE)
    store = opened.unwrap()
    try:
        return _dispatch(store, args)
    finally:
        store.close()
