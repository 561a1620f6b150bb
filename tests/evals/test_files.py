"""Dataset files: JSON or YAML, checked against the published schema; every problem names case and field."""

from __future__ import annotations

import json
import string
from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Failure, Success

from agentsm_fn.evals import (
    DATASET_SCHEMA,
    Case,
    Dataset,
    LlmJudge,
    dataset_to_json,
    load_dataset,
    read_dataset,
)
from agentsm_fn.evals.checks import contains, equals_expected, matches, no_failure, reached

NAMES = st.text(string.ascii_letters + string.digits + "-_ ", min_size=1, max_size=12)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
EVALUATORS = st.sampled_from(
    [equals_expected(), no_failure(), contains("Paris"), matches(r"\d+"), reached("DONE")]
)


@st.composite
def datasets(draw: st.DrawFn) -> Dataset:
    names = draw(st.lists(NAMES, min_size=1, max_size=5, unique=True))
    cases = tuple(
        Case(
            name=name,
            input=draw(
                st.text(max_size=20) | st.dictionaries(st.sampled_from(["task", "n"]), JSON, min_size=1)
            ),
            expected=draw(st.none() | JSON.filter(lambda v: v is not None)),
            metadata=draw(st.dictionaries(st.text(max_size=5), JSON, max_size=2)),
            evaluators=draw(st.lists(EVALUATORS, max_size=2, unique_by=lambda e: e.name)),
        )
        for name in names
    )
    shared = tuple(e for e in draw(st.lists(EVALUATORS, max_size=2, unique_by=lambda e: e.name)))
    own = {e.name for c in cases for e in c.evaluators}
    return Dataset(name=draw(NAMES), cases=cases, evaluators=tuple(e for e in shared if e.name not in own))


@settings(max_examples=60, deadline=None)
@given(datasets())
def test_a_dataset_written_as_json_reads_back_equal(dataset: Dataset) -> None:
    assert read_dataset(json.loads(json.dumps(dataset_to_json(dataset)))) == Success(dataset)


@settings(max_examples=30, deadline=None)
@given(datasets())
def test_a_dataset_written_as_yaml_reads_back_equal(dataset: Dataset) -> None:
    assert read_dataset(yaml.safe_load(yaml.safe_dump(dataset_to_json(dataset)))) == Success(dataset)


GOOD = {"name": "capitals", "cases": [{"name": "fr", "input": "Capital of France?", "expected": "Paris"}]}
FIELDS = ("name", "input", "expected", "metadata", "evaluators")


@settings(max_examples=60, deadline=None)
@given(st.text(string.ascii_lowercase + "_", min_size=1, max_size=10).filter(lambda f: f not in FIELDS))
def test_an_unknown_field_in_a_case_is_named_with_its_case(field: str) -> None:
    bad = json.loads(json.dumps(GOOD))
    bad["cases"][0][field] = 1
    problems = read_dataset(bad).failure().problems
    assert [(p.case, p.field) for p in problems] == [("fr", field)]


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["input", "name"]),
    st.integers(0, 3),
)
def test_a_missing_required_field_is_named_with_its_case(field: str, index: int) -> None:
    cases = [{"name": f"c{i}", "input": "x"} for i in range(4)]
    del cases[index][field]
    problems = read_dataset({"name": "d", "cases": cases}).failure().problems
    expected_case = f"c{index}" if field == "input" else f"#{index}"
    assert [(p.case, p.field, p.detail) for p in problems] == [(expected_case, field, "is required")]


def test_a_wrong_evaluator_is_named_with_its_case_and_place() -> None:
    bad = {
        "name": "d",
        "evaluators": [{"contains": "x", "regex": "y"}],
        "cases": [
            {"name": "a", "input": "x", "evaluators": [{"max_steps": -1}]},
            {"name": "b", "input": "x", "evaluators": [{"regex": "("}]},
            {"name": "c", "input": 3},
        ],
    }
    shown = [p.describe() for p in read_dataset(bad).failure().problems]
    assert shown[0].startswith("case 'a', field 'evaluators[0].max_steps': -1 is less than the minimum")
    assert shown[1].startswith("case 'b', field 'evaluators[0].regex': '(' is not a 'regex'")
    assert shown[2].startswith("case 'c', field 'input': 3 is not of type")
    assert shown[3].startswith("field 'evaluators[0]': ")


def test_references_are_imported_and_a_bad_one_is_a_problem_of_its_case(tmp_path: Path) -> None:
    data = {
        "name": "d",
        "evaluators": [
            {"custom": "tests.evals.fixtures:short_answer"},
            {"property": "tests.evals.fixtures:NO_REFUND"},
            {"judge": {"rubric": "Is it right?", "provider": "tests.evals.fixtures:scripted_judge"}},
        ],
        "cases": [{"name": "a", "input": "x", "evaluators": [{"custom": "tests.evals.fixtures:missing"}]}],
    }
    problems = read_dataset(data).failure().problems
    assert [(p.case, p.field) for p in problems] == [("a", "evaluators[0].custom")]
    assert problems[0].detail.endswith("tests.evals.fixtures has no attribute missing")
    data["cases"] = [{"name": "a", "input": "x"}]
    found = read_dataset(data).unwrap()
    assert [e.name for e in found.evaluators] == ["short_answer", "no refund", "judge"]
    judge = found.evaluators[2]
    assert isinstance(judge, LlmJudge) and judge.rubric == "Is it right?"
    assert dataset_to_json(found) == data  # named objects are written back by name


def test_files_are_read_as_json_or_yaml_and_unreadable_ones_say_why(tmp_path: Path) -> None:
    (tmp_path / "d.json").write_text(json.dumps(GOOD))
    (tmp_path / "d.yaml").write_text(yaml.safe_dump(GOOD))
    (tmp_path / "bad.json").write_text("{")
    assert load_dataset(tmp_path / "d.json") == load_dataset(tmp_path / "d.yaml")
    assert load_dataset(tmp_path / "d.json").unwrap().cases[0].expected == "Paris"
    assert "not JSON" in load_dataset(tmp_path / "bad.json").failure().describe()
    assert "cannot read it" in load_dataset(tmp_path / "none.json").failure().describe()
    assert isinstance(load_dataset(tmp_path / "none.json"), Failure)


def test_the_published_schema_is_a_valid_json_schema_that_accepts_the_docs_dataset() -> None:
    import jsonschema

    schema = json.loads(DATASET_SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(GOOD)
