"""Evals: know whether a change made an agent better or worse, case by case (docs/evals.md).

* Datasets: :class:`Case` (a name, an input, an optional expected output, metadata) and
  :class:`Dataset` (cases and the evaluators every case is judged by), written in Python or
  loaded from a JSON or YAML file checked against the published schema (:func:`load_dataset`).
* Evaluators read a finished, recorded run and perform nothing: the answer
  (:func:`equals_expected`, :func:`contains`, :func:`matches`, :func:`answer_schema`), the run
  (:func:`tool_called`, :func:`tool_never_called`, :func:`reached`, :func:`never_reached`,
  :func:`at_most_steps`, :func:`at_most_tokens`, :func:`at_most_seconds`, :func:`no_failure`),
  the kit's run properties (:func:`keeps`), custom functions (:func:`check`); and an LLM
  judge (:class:`LlmJudge`), whose call is an effect of the evaluation, run durably.
* Experiments: :func:`run_experiment` (:func:`arun_experiment`) runs a :class:`Subject` (a
  durable program, :func:`subject_for`) on every case, N repeats, bounded concurrency, every
  run stored and tagged with the experiment, resumable; :func:`machine_coverage` of its runs.
  Stored experiments are read back with :func:`stored_experiments`, :func:`experiment_runs`,
  :func:`case_across` and :func:`compare_stored`.
* Results: :class:`CaseRun` per run, :func:`summarize` over repeats (intervals from
  :mod:`agentsm_fn.evals.stats`), :func:`compare` two experiments case by case, and reports:
  :func:`render_table`, :func:`report_json`, :func:`junit_xml`, :func:`render_comparison`.

Importing this package imports the property-testing kit (run properties), which needs
Hypothesis: install the ``evals`` extra.
"""

from agentsm_fn.evals.cases import Case, Dataset, DatasetError, Evaluator
from agentsm_fn.evals.check import Check, CheckResult, check
from agentsm_fn.evals.checks import (
    answer_schema,
    at_most_seconds,
    at_most_steps,
    at_most_tokens,
    contains,
    equals_expected,
    matches,
    never_reached,
    no_failure,
    reached,
    tool_called,
    tool_never_called,
)
from agentsm_fn.evals.compare import CaseChange, Comparison, Trend, compare
from agentsm_fn.evals.coverage import MachineCoverage, machine_coverage
from agentsm_fn.evals.evidence import Evidence
from agentsm_fn.evals.experiment import (
    ExperimentRefused,
    ExperimentResult,
    Price,
    arun_experiment,
    case_run_id,
    run_experiment,
)
from agentsm_fn.evals.files import DATASET_SCHEMA, DatasetInvalid, load_dataset, read_dataset
from agentsm_fn.evals.grades import Grade
from agentsm_fn.evals.judge import JUDGE_MACHINE, JudgeMemory, LlmJudge
from agentsm_fn.evals.judging import JUDGE
from agentsm_fn.evals.properties import keeps
from agentsm_fn.evals.reports import (
    comparison_json,
    junit_xml,
    render_comparison,
    render_table,
    report_json,
)
from agentsm_fn.evals.results import CaseRun, CaseSummary, Totals, summarize, totals
from agentsm_fn.evals.specs import DatasetProblem, dataset_from_json, dataset_to_json
from agentsm_fn.evals.stats import Interval
from agentsm_fn.evals.stored import (
    case_across,
    case_run_text,
    compare_stored,
    experiment_runs,
    stored_experiments,
)
from agentsm_fn.evals.subjects import Subject, subject_for

__all__ = [
    "DATASET_SCHEMA",
    "JUDGE",
    "JUDGE_MACHINE",
    "Case",
    "CaseChange",
    "CaseRun",
    "CaseSummary",
    "Check",
    "CheckResult",
    "Comparison",
    "Dataset",
    "DatasetError",
    "DatasetInvalid",
    "DatasetProblem",
    "Evaluator",
    "Evidence",
    "ExperimentRefused",
    "ExperimentResult",
    "Grade",
    "Interval",
    "JudgeMemory",
    "LlmJudge",
    "MachineCoverage",
    "Price",
    "Subject",
    "Totals",
    "Trend",
    "answer_schema",
    "arun_experiment",
    "at_most_seconds",
    "at_most_steps",
    "at_most_tokens",
    "case_across",
    "case_run_id",
    "case_run_text",
    "check",
    "compare",
    "compare_stored",
    "comparison_json",
    "contains",
    "dataset_from_json",
    "dataset_to_json",
    "equals_expected",
    "experiment_runs",
    "junit_xml",
    "keeps",
    "load_dataset",
    "machine_coverage",
    "matches",
    "never_reached",
    "no_failure",
    "reached",
    "read_dataset",
    "render_comparison",
    "render_table",
    "report_json",
    "run_experiment",
    "stored_experiments",
    "subject_for",
    "summarize",
    "tool_called",
    "tool_never_called",
    "totals",
]
