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
from agentsm_fn.evals.evidence import Evidence
from agentsm_fn.evals.files import DATASET_SCHEMA, DatasetInvalid, load_dataset, read_dataset
from agentsm_fn.evals.grades import Grade
from agentsm_fn.evals.judge import JUDGE_MACHINE, JudgeMemory, LlmJudge
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

__all__ = [
    "DATASET_SCHEMA",
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
    "Grade",
    "Interval",
    "JudgeMemory",
    "LlmJudge",
    "Totals",
    "Trend",
    "answer_schema",
    "at_most_seconds",
    "at_most_steps",
    "at_most_tokens",
    "check",
    "compare",
    "comparison_json",
    "contains",
    "dataset_from_json",
    "dataset_to_json",
    "equals_expected",
    "junit_xml",
    "keeps",
    "load_dataset",
    "matches",
    "never_reached",
    "no_failure",
    "reached",
    "read_dataset",
    "render_comparison",
    "render_table",
    "report_json",
    "summarize",
    "tool_called",
    "tool_never_called",
    "totals",
]
