"""A dataset from its JSON form (a file's content, checked against the schema first), and back.

:func:`dataset_from_json` builds the :class:`~agentsm_fn.evals.cases.Dataset` a file
describes: every evaluator from its one key (``{"contains": "Paris"}``), and the objects a
file names by ``module:attribute`` (a custom check, a run property, a judge's provider)
through ``resolve``, which the caller brings (:mod:`agentsm_fn.evals.files` imports them).
:func:`dataset_to_json` writes a dataset whose evaluators all came from such keys back.
Every problem names its case and field (:class:`DatasetProblem`); nothing raises.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import cast

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.evals import checks
from agentsm_fn.evals.cases import Case, Dataset, DatasetError, Evaluator
from agentsm_fn.evals.check import check
from agentsm_fn.evals.judge import LlmJudge
from agentsm_fn.llm.json import JsonValue, freeze, freeze_object, thaw

__all__ = ["DatasetProblem", "Resolve", "dataset_from_json", "dataset_to_json"]

Resolve = Callable[[str, str], Result[object, str]]
"""Find the object a file names (``module:attribute``), for an evaluator of this kind, or say why not."""


@attrs.frozen(kw_only=True)
class DatasetProblem:
    """What is wrong in a dataset file: in which case (empty: the dataset), which field, and why.

    Example:
        >>> DatasetProblem(case="capital", field="expeted", detail="not a field of a case").describe()
        "case 'capital', field 'expeted': not a field of a case"
    """

    case: str
    field: str
    detail: str

    def describe(self) -> str:
        """One line naming the case and the field."""
        where = [f"case {self.case!r}"] if self.case else []
        where += [f"field {self.field!r}"] if self.field else []
        return f"{', '.join(where) or 'the dataset'}: {self.detail}"


def _fixed(kind: str, value: JsonValue) -> Evaluator | None:
    """The evaluators a file writes with a plain value (None: a kind that names an object)."""
    match kind, value:
        case "equals_expected", _:
            return checks.equals_expected()
        case "no_failure", _:
            return checks.no_failure()
        case "contains", str(text):
            return checks.contains(text)
        case "regex", str(pattern):
            return checks.matches(pattern)
        case "answer_schema", _:
            return checks.answer_schema(value)
        case "tool_called", str(name):
            return checks.tool_called(name)
        case "tool_never_called", str(name):
            return checks.tool_never_called(name)
        case "reached", str(name):
            return checks.reached(name)
        case "never_reached", str(name):
            return checks.never_reached(name)
        case "max_steps", int(limit):
            return checks.at_most_steps(limit)
        case "max_tokens", int(limit):
            return checks.at_most_tokens(limit)
        case "max_seconds", int(limit) | float(limit):
            return checks.at_most_seconds(float(limit))
    return None


def _named(kind: str, value: JsonValue, resolve: Resolve) -> Result[Evaluator, str]:
    """The evaluators a file writes by naming an object (``module:attribute``)."""
    spec = freeze_object({kind: value})
    if kind == "judge" and isinstance(value, Mapping):
        found = resolve(str(value["provider"]), kind)
        return found.map(
            lambda provider: LlmJudge(
                rubric=str(value["rubric"]),
                provider=provider,  # type: ignore[arg-type]  # resolve checked it is a provider
                model=str(value.get("model", "")),
                name=str(value.get("name", "judge")),
                spec=spec,
            )
        )
    reference = str(value)
    found = resolve(reference, kind)
    if isinstance(found, Failure):
        return found
    target = found.unwrap()
    if kind == "property":
        from agentsm_fn.evals.properties import keeps  # noqa: PLC0415  # the kit is loaded only for properties
        from verification.kit.run_properties import RunProperty  # noqa: PLC0415  # as above

        if not isinstance(target, RunProperty):
            return Failure(f"{reference} is a {type(target).__name__}, not a run property")
        return Success(attrs.evolve(keeps(target), spec=spec))
    if not callable(target):
        return Failure(f"{reference} is a {type(target).__name__}, not a function")
    return Success(attrs.evolve(check(reference.rsplit(":", 1)[1], target), spec=spec))


def _evaluators(
    specs: JsonValue, case: str, field: str, resolve: Resolve, problems: list[DatasetProblem]
) -> tuple[Evaluator, ...]:
    found: list[Evaluator] = []
    for i, spec in enumerate(specs if isinstance(specs, Sequence) and not isinstance(specs, str) else ()):
        if not isinstance(spec, Mapping) or len(spec) != 1:
            problems.append(DatasetProblem(case=case, field=f"{field}[{i}]", detail="not one evaluator"))
            continue
        ((kind, value),) = spec.items()
        try:
            fixed = _fixed(kind, value)
        except Exception as exc:  # a bad regular expression or JSON Schema, found where it is made
            problems.append(DatasetProblem(case=case, field=f"{field}[{i}].{kind}", detail=str(exc)))
            continue
        made = Success(fixed) if fixed is not None else _named(kind, value, resolve)
        if isinstance(made, Failure):
            problems.append(DatasetProblem(case=case, field=f"{field}[{i}].{kind}", detail=made.failure()))
        else:
            found.append(made.unwrap())
    return tuple(found)


def dataset_from_json(
    data: Mapping[str, JsonValue], resolve: Resolve
) -> Result[Dataset, tuple[DatasetProblem, ...]]:
    """The dataset ``data`` (a file's content, already valid against the schema) describes.

    Example:
        >>> from returns.result import Failure
        >>> data = {"name": "capitals", "evaluators": [{"contains": "Paris"}],
        ...         "cases": [{"name": "fr", "input": "Capital of France?", "expected": "Paris"}]}
        >>> found = dataset_from_json(data, lambda name, kind: Failure("no imports here")).unwrap()
        >>> found.cases[0].expected, found.evaluators[0].name
        ('Paris', "contains 'Paris'")
    """
    problems: list[DatasetProblem] = []
    evaluators = _evaluators(data.get("evaluators", ()), "", "evaluators", resolve, problems)
    cases: list[Case] = []
    raw_cases = data.get("cases", ())
    for i, raw in enumerate(raw_cases if isinstance(raw_cases, Sequence) else ()):
        if not isinstance(raw, Mapping):
            continue
        name = str(raw.get("name", f"#{i}"))
        own = _evaluators(raw.get("evaluators", ()), name, "evaluators", resolve, problems)
        raw_input = raw.get("input")
        cases.append(
            Case(
                name=name,
                input=raw_input if isinstance(raw_input, str) else freeze(raw_input),
                expected=raw.get("expected"),
                metadata=raw.get("metadata") or {},
                evaluators=own,
            )
        )
    if problems:
        return Failure(tuple(problems))
    try:
        return Success(Dataset(name=str(data.get("name", "")), cases=tuple(cases), evaluators=evaluators))
    except DatasetError as error:
        return Failure(tuple(DatasetProblem(case="", field="cases", detail=p) for p in error.problems))


def _plain(value: JsonValue) -> JsonValue:
    """Frozen JSON as plain lists and dicts (still JSON)."""
    return cast(JsonValue, thaw(value))


def _specs(evaluators: Sequence[Evaluator], where: str) -> list[JsonValue]:
    found: list[JsonValue] = []
    for evaluator in evaluators:
        if evaluator.spec is None:
            raise ValueError(f"{where}: the evaluator {evaluator.name!r} was made in Python, not from a file")
        found.append(_plain(evaluator.spec))
    return found


def dataset_to_json(dataset: Dataset) -> dict[str, JsonValue]:
    """The dataset as a file keeps it (its evaluators must all have come from a file's keys).

    Raises ``ValueError`` for an evaluator made in Python (a function, not a key of the schema),
    and for a case whose input is a memory value (not text or a JSON object).

    Example:
        >>> from agentsm_fn.evals.checks import contains
        >>> data = Dataset(name="d", cases=(Case(name="a", input="hi"),), evaluators=(contains("x"),))
        >>> dataset_to_json(data)
        {'name': 'd', 'evaluators': [{'contains': 'x'}], 'cases': [{'name': 'a', 'input': 'hi'}]}
    """
    cases: list[JsonValue] = []
    for case in dataset.cases:
        if not isinstance(case.input, str | Mapping):
            kind = type(case.input).__name__
            raise ValueError(f"case {case.name!r}: its input is a {kind}, not text or a JSON object")
        shown: dict[str, JsonValue] = {
            "name": case.name,
            "input": case.input if isinstance(case.input, str) else _plain(freeze(case.input)),
        }
        if case.expected is not None:
            shown["expected"] = _plain(case.expected)
        if case.metadata:
            shown["metadata"] = _plain(case.metadata)
        if case.evaluators:
            shown["evaluators"] = _specs(case.evaluators, f"case {case.name!r}")
        cases.append(shown)
    top: dict[str, JsonValue] = {"name": dataset.name}
    if dataset.evaluators:
        top["evaluators"] = _specs(dataset.evaluators, "the dataset")
    top["cases"] = cases
    return top
