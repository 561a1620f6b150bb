"""Cases and datasets: what an experiment runs, and how each run is judged.

A :class:`Case` is a name, an input (a task for a built-in agent, a JSON object of a
machine's memory fields, or a start memory of any machine), an optional expected output,
metadata, and evaluators of its own. A :class:`Dataset` is cases plus the evaluators every
case is judged by. Both are plain values; :mod:`agentsm_fn.evals.files` reads them from a
JSON or YAML file checked against the published schema.

Errors: a dataset that cannot be (two cases with one name, a case with no name) is a
programmer's error where it is made: one :class:`DatasetError` listing every problem.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TypeAlias

import attrs
from pyrsistent import pmap

from agentsm_fn.evals.check import Check
from agentsm_fn.evals.judge import LlmJudge
from agentsm_fn.llm.json import JsonObject, JsonValue, freeze, freeze_object

__all__ = ["Case", "Dataset", "DatasetError", "Evaluator"]

Evaluator: TypeAlias = Check | LlmJudge
"""What grades a run: a :class:`~agentsm_fn.evals.check.Check` (reads the run) or an LLM judge."""


def _expected(value: object) -> JsonValue | None:
    return None if value is None else freeze(value)


def _metadata(value: object) -> JsonObject:
    return freeze_object(value) if value else pmap()


def _evaluators(value: Iterable[Evaluator]) -> tuple[Evaluator, ...]:
    return tuple(value)


def _cases(value: Iterable[Case]) -> tuple[Case, ...]:
    return tuple(value)


class DatasetError(ValueError):
    """A dataset that cannot be: ``problems`` lists every one."""

    def __init__(self, name: str, problems: tuple[str, ...]) -> None:
        self.problems = problems
        super().__init__(f"dataset {name!r}: " + "; ".join(problems))


@attrs.frozen(kw_only=True)
class Case:
    """One task to run and judge.

    ``input`` is a task (a string, for a built-in agent), a JSON object of the memory's
    fields, or a start memory itself. ``expected`` is the expected output (text or JSON;
    None: none), which ``equals_expected`` and a judge read.

    Example:
        >>> Case(name="capital", input="What is the capital of France?", expected="Paris").expected
        'Paris'
    """

    name: str
    input: object
    expected: JsonValue | None = attrs.field(default=None, converter=_expected)
    metadata: JsonObject = attrs.field(factory=pmap, converter=_metadata)
    evaluators: tuple[Evaluator, ...] = attrs.field(default=(), converter=_evaluators)


@attrs.frozen(kw_only=True)
class Dataset:
    """Cases, and the evaluators that judge every case's run (each case may add its own).

    Example:
        >>> from agentsm_fn.evals.checks import contains
        >>> data = Dataset(name="capitals", cases=(Case(name="fr", input="Capital of France?"),),
        ...                evaluators=(contains("Paris"),))
        >>> [e.name for e in data.evaluators_of(data.cases[0])]
        ["contains 'Paris'"]
        >>> try:
        ...     Dataset(name="d", cases=(Case(name="a", input=""), Case(name="a", input="")))
        ... except DatasetError as error:
        ...     print(error)
        dataset 'd': two or more cases are named 'a'
    """

    name: str
    cases: tuple[Case, ...] = attrs.field(converter=_cases)
    evaluators: tuple[Evaluator, ...] = attrs.field(default=(), converter=_evaluators)

    def __attrs_post_init__(self) -> None:
        problems = [f"case {i} has no name" for i, case in enumerate(self.cases) if not case.name]
        counts = Counter(case.name for case in self.cases if case.name)
        problems += [f"two or more cases are named {name!r}" for name, n in counts.items() if n > 1]
        for case in self.cases:
            names = Counter(e.name for e in (*self.evaluators, *case.evaluators))
            problems += [
                f"case {case.name!r}: two evaluators are named {name!r} (give one a name)"
                for name, n in names.items()
                if n > 1
            ]
        if problems:
            raise DatasetError(self.name, tuple(problems))

    def evaluators_of(self, case: Case) -> tuple[Evaluator, ...]:
        """The dataset's evaluators, then the case's own."""
        return (*self.evaluators, *case.evaluators)

    def case(self, name: str) -> Case | None:
        """The case named ``name``, if any."""
        return next((c for c in self.cases if c.name == name), None)
