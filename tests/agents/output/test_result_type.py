"""Result types: their schema derived once, and a reply read as a value or as every problem with it."""

from __future__ import annotations

import json
from typing import assert_type

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema.exceptions import SchemaError
from returns.result import Failure, Success

from agentsm_fn.agents.output import TEXT, OutputProblem, ResultType, result_type
from agentsm_fn.llm import JsonObject, thaw
from agentsm_fn.tools.schema import type_schema
from tests.agents.output.invoices import INVOICE, INVOICE_JSON, Invoice, Ticket, Verdict, totals_match


def test_an_attrs_class_gives_its_schema_nested_inline_with_required_fields_and_descriptions() -> None:
    invoices = result_type(Invoice)
    assert invoices.kind == "attrs" and invoices.name == "Invoice"
    assert invoices.spec is not None
    schema = thaw(invoices.spec.schema)
    assert isinstance(schema, dict)
    assert schema["required"] == ["number", "lines", "total"]
    assert schema["properties"]["number"] == {"type": "string", "description": "The invoice number."}
    assert schema["properties"]["note"] == {"type": ["string", "null"]}
    line = schema["properties"]["lines"]["items"]
    assert line["properties"]["price"]["properties"]["amount"] == {"type": "number"}
    assert invoices.spec.description.startswith("An invoice: three levels deep")
    assert "$ref" not in json.dumps(schema)


def test_a_typeddict_gives_its_schema_with_its_optional_keys_not_required() -> None:
    tickets = result_type(Ticket)
    assert tickets.spec is not None
    schema = thaw(tickets.spec.schema)
    assert isinstance(schema, dict)
    assert schema["required"] == ["category", "urgent"]
    assert schema["properties"]["tags"] == {"type": "array", "items": {"type": "string"}}


def test_a_valid_reply_becomes_a_value_of_the_class() -> None:
    assert result_type(Invoice).check(INVOICE_JSON) == Success(INVOICE)
    fenced = f"```json\n{INVOICE_JSON}\n```"
    assert result_type(Invoice).check(fenced) == Success(INVOICE)
    ticket = result_type(Ticket).check('{"category": "billing", "urgent": true}').unwrap()
    assert_type(ticket, Ticket)
    assert ticket == {"category": "billing", "urgent": True}


def test_every_schema_problem_is_named_with_its_path_and_expected_type() -> None:
    reply = '{"number": 7, "lines": [{"sku": "pen", "quantity": "2", "price": {"amount": 1.5}}]}'
    problems = result_type(Invoice).check(reply).failure()
    assert [str(p) for p in problems] == [
        "$: 'total' is a required property",
        "$.lines[0].price: 'currency' is a required property",
        "$.lines[0].quantity: '2' is not of type 'integer'",
        "$.number: 7 is not of type 'string'",
    ]


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("The invoice total is 3 EUR.", "$: not JSON (Expecting value at line 1 column 1)"),
        ('["INV-7"]', "$: expected a JSON object, got an array"),
        ("null", "$: expected a JSON object, got null"),
        ('{"number": "INV-7"', "$: not JSON (Expecting ',' delimiter at line 1 column 19)"),
    ],
)
def test_a_reply_that_is_no_json_object_is_one_problem(reply: str, problem: str) -> None:
    assert [str(p) for p in result_type(Invoice).check(reply).failure()] == [problem]


def test_the_class_own_validators_and_the_output_validators_feed_back_as_problems() -> None:
    @attrs.frozen(kw_only=True)
    class Positive:
        n: int = attrs.field(validator=attrs.validators.gt(0))

    problems = result_type(Positive).check('{"n": -1}').failure()
    assert problems == (OutputProblem(path="$", message="'n' must be > 0: -1"),)
    checked = result_type(Invoice).validated_by(totals_match)
    wrong = INVOICE_JSON.replace('"amount": 3.0', '"amount": 4.0')
    assert [str(p) for p in checked.check(wrong).failure()] == [
        "$: total 4.0 is not the sum of the lines (3.0)"
    ]
    assert checked.check(INVOICE_JSON) == Success(INVOICE)


def test_a_plain_json_schema_gives_frozen_json_objects() -> None:
    acks = result_type({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]})
    assert_type(acks, ResultType[JsonObject])
    value = acks.check('{"ok": true, "extra": [1]}').unwrap()
    assert thaw(value) == {"ok": True, "extra": [1]} and hash(value) is not None
    assert acks.name == "result"


@attrs.frozen
class Node:
    children: tuple[Node, ...]


def test_a_wrong_result_type_is_a_programmer_error_at_once() -> None:
    with pytest.raises(TypeError, match="attrs class, a TypedDict or a JSON Schema"):
        result_type(int)
    with pytest.raises(TypeError, match="must describe an object"):
        result_type({"type": "array"})
    with pytest.raises(SchemaError):
        result_type({"type": "nonsense"})
    with pytest.raises(TypeError, match="contains itself"):
        result_type(Node)


def test_text_is_the_default_and_its_validators_run_on_the_text() -> None:
    assert TEXT.check("anything at all") == Success("anything at all")
    loud = TEXT.validated_by(lambda t: Success(t.upper()))
    assert loud.check("hi") == Success("HI")


def test_type_schema_of_sets_fixed_tuples_and_mappings() -> None:
    assert type_schema(frozenset[str]) == {"type": "array", "uniqueItems": True, "items": {"type": "string"}}
    assert type_schema(tuple[int, str])["prefixItems"] == [{"type": "integer"}, {"type": "string"}]
    assert type_schema(dict[str, int]) == {"type": "object", "additionalProperties": {"type": "integer"}}


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


@given(
    st.one_of(
        st.text(max_size=60),
        _JSON.map(json.dumps),
        st.builds(
            lambda holds, reason, extra: json.dumps({"holds": holds, "reason": reason, **extra}),
            _JSON,
            _JSON,
            st.dictionaries(st.sampled_from(["confidence", "x"]), _JSON, max_size=2),
        ),
    )
)
def test_any_reply_gives_a_verdict_or_problems_never_an_exception(reply: str) -> None:
    match result_type(Verdict).check(reply):
        case Success(value):
            assert isinstance(value, Verdict)
        case Failure(problems):
            assert problems and all(p.path.startswith("$") and p.message for p in problems)
