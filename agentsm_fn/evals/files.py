"""Datasets from files: JSON, or YAML (extra ``evals``), checked against the published JSON Schema.

The schema ships in the package (:data:`DATASET_SCHEMA`, ``agentsm_fn/evals/dataset.schema.json``);
an editor that knows JSON Schema completes and checks a dataset file against it. A file that
breaks it is refused with every problem, each naming its case and its field
(:class:`~agentsm_fn.evals.specs.DatasetProblem`): ``case 'capital', field 'expeted': ...``.
Objects a file names by ``module:attribute`` (a custom check, a run property, a judge's
provider) are imported here, the one place that imports a file's code.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import cast

import attrs
import jsonschema
from returns.result import Failure, Result, Success

from agentsm_fn.evals.cases import Dataset
from agentsm_fn.evals.specs import DatasetProblem, dataset_from_json
from agentsm_fn.llm.json import JsonValue
from agentsm_fn.shell.targets import import_target

__all__ = ["DATASET_SCHEMA", "DatasetInvalid", "dataset_problems", "load_dataset", "read_dataset"]

DATASET_SCHEMA = Path(__file__).parent / "dataset.schema.json"
"""The published JSON Schema of a dataset file."""


@attrs.frozen(kw_only=True)
class DatasetInvalid:
    """A dataset file that cannot be read or breaks the schema: every problem in it.

    Example:
        >>> DatasetInvalid(path="d.json", problems=(DatasetProblem(case="a", field="input",
        ...                detail="a required property"),)).describe()
        "d.json: case 'a', field 'input': a required property"
    """

    path: str
    problems: tuple[DatasetProblem, ...]

    def describe(self) -> str:
        """The file, then one line per problem."""
        return "\n".join(f"{self.path}: {p.describe()}" for p in self.problems)


@functools.cache
def _validator() -> jsonschema.protocols.Validator:
    schema = json.loads(DATASET_SCHEMA.read_text(encoding="utf-8"))
    kind = jsonschema.validators.validator_for(schema)
    return kind(schema, format_checker=kind.FORMAT_CHECKER)


def _where(data: object, path: tuple[object, ...]) -> tuple[str, str]:
    """(case name, field path) of a place in the file: ``("capital", "evaluators[0].contains")``."""
    case, rest = "", list(path)
    if len(rest) >= 2 and rest[0] == "cases" and isinstance(rest[1], int) and isinstance(data, Mapping):
        cases = data.get("cases")
        index = rest[1]
        found = cases[index] if isinstance(cases, list) and index < len(cases) else None
        name = found.get("name") if isinstance(found, Mapping) else None
        case = name if isinstance(name, str) and name else f"#{index}"
        rest = rest[2:]
    field = ""
    for part in rest:
        field += f"[{part}]" if isinstance(part, int) else (f".{part}" if field else str(part))
    return case, field


def _problem(data: object, error: jsonschema.ValidationError) -> DatasetProblem:
    case, field = _where(data, tuple(error.absolute_path))
    if error.validator == "additionalProperties" and isinstance(error.instance, Mapping):
        allowed = set(error.schema.get("properties", {})) if isinstance(error.schema, Mapping) else set()
        extra = sorted(k for k in error.instance if k not in allowed)
        field = ".".join(p for p in (field, extra[0] if extra else "") if p)
        detail = f"not a field here (allowed: {', '.join(sorted(allowed))})"
        return DatasetProblem(case=case, field=field, detail=detail)
    if error.validator == "required" and isinstance(error.validator_value, list):
        missing = [
            k
            for k in error.validator_value
            if isinstance(error.instance, Mapping) and k not in error.instance
        ]
        field = ".".join(p for p in (field, missing[0] if missing else "") if p)
        return DatasetProblem(case=case, field=field, detail="is required")
    return DatasetProblem(case=case, field=field, detail=error.message)


def dataset_problems(data: object) -> tuple[DatasetProblem, ...]:
    """Every way ``data`` (a parsed file) breaks the schema, in file order.

    Example:
        >>> for p in dataset_problems({"name": "d", "cases": [{"name": "a", "inptu": "x"}]}):
        ...     print(p.describe())
        case 'a', field 'input': is required
        case 'a', field 'inptu': not a field here (allowed: evaluators, expected, input, metadata, name)
    """
    errors = sorted(
        _validator().iter_errors(cast(JsonValue, data)), key=lambda e: [str(p) for p in e.absolute_path]
    )
    return tuple(_problem(data, error) for error in errors)


def _resolve(reference: str, kind: str) -> Result[object, str]:
    imported = import_target(reference)  # as agentsm-verify and agentsm-runs find their targets
    if isinstance(imported, Failure):
        return Failure(f"cannot import {reference}: {imported.failure()}")
    found = imported.unwrap().value
    if kind == "judge" and not (hasattr(found, "complete") or hasattr(found, "acomplete")):
        if not callable(found):
            return Failure(f"{reference} is neither an LLM provider nor a function that makes one")
        try:
            found = found()
        except Exception as exc:  # the factory's own failure, shown with the file
            return Failure(f"{reference}() raised {type(exc).__name__}: {exc}")
    return Success(found)


def _parse(path: Path) -> Result[object, str]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        return Failure(f"cannot read it: {exc.strerror or exc}")
    if path.suffix.lower() in (".yaml", ".yml"):
        try:
            import yaml  # noqa: PLC0415  # optional: the evals extra
        except ImportError:
            return Failure("reading YAML needs PyYAML: pip install 'agentsm-fn[evals]' (or write JSON)")
        try:
            return Success(yaml.safe_load(text))
        except yaml.YAMLError as exc:
            return Failure(f"not YAML: {exc}")
    try:
        return Success(json.loads(text))
    except json.JSONDecodeError as exc:
        return Failure(f"not JSON: {exc}")


def read_dataset(data: object, path: str = "<data>") -> Result[Dataset, DatasetInvalid]:
    """The dataset a parsed file keeps: checked against the schema, then built (its references imported)."""
    problems = dataset_problems(data)
    if problems:
        return Failure(DatasetInvalid(path=path, problems=problems))
    built = dataset_from_json(cast(Mapping[str, JsonValue], data), _resolve)
    return built.alt(lambda found: DatasetInvalid(path=path, problems=found))


def load_dataset(path: str | Path) -> Result[Dataset, DatasetInvalid]:
    """The dataset in the JSON or YAML file at ``path``.

    Example:
        >>> import json, tempfile
        >>> file = Path(tempfile.mkdtemp()) / "capitals.json"
        >>> _ = file.write_text(json.dumps({"name": "capitals", "cases": [
        ...     {"name": "fr", "input": "Capital of France?", "expected": "Paris", "expeted": "x"}]}))
        >>> print(load_dataset(file).failure().problems[0].describe())
        case 'fr', field 'expeted': not a field here (allowed: evaluators, expected, input, metadata, name)
    """
    parsed = _parse(Path(path))
    if isinstance(parsed, Failure):
        return Failure(
            DatasetInvalid(
                path=str(path), problems=(DatasetProblem(case="", field="", detail=parsed.failure()),)
            )
        )
    return read_dataset(parsed.unwrap(), str(path))
