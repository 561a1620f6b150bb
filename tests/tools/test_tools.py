"""Tools: registry, @tool schema derivation, argument validation."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success

from agentsm_fn.llm.json import JsonObject, thaw
from agentsm_fn.tools import Tool, ToolDef, ToolRegistry, argument_problems, schema_for, tool


def _plain(value: JsonObject) -> dict[str, Any]:
    plain = thaw(value)
    assert isinstance(plain, dict)
    return plain


def test_register_is_immutable_and_replaces_by_name() -> None:
    empty = ToolRegistry()
    one = empty.register("echo", "Echo", {"type": "object"}, lambda text: text)
    two = one.register("echo", "Echo louder", {"type": "object"}, lambda text: text.upper())
    assert len(empty) == 0 and empty.is_empty()
    assert len(one) == 1 and len(two) == 1
    assert two.execute("echo", {"text": "hi"}) == Success("HI")
    assert one.execute("echo", {"text": "hi"}) == Success("hi")


def test_execute_catches_exceptions_and_reads_results() -> None:
    def boom(x: int) -> str:
        raise ValueError(f"bad {x}")

    reg = (
        ToolRegistry()
        .register("boom", "", {"type": "object"}, boom)
        .register("fails", "", {"type": "object"}, lambda: Failure("no data"))
        .register("number", "", {"type": "object"}, lambda: 42)
        .register("ok", "", {"type": "object"}, lambda: Success("fine"))
    )
    assert reg.execute("boom", {"x": 1}).failure().describe() == "ValueError: bad 1"
    assert reg.execute("boom", {}).failure().error_type == "TypeError"
    assert reg.execute("fails", {}).failure().describe() == "ToolError: no data"
    assert reg.execute("number", {}) == Success("42")
    assert reg.execute("ok", {}) == Success("fine")


def test_execute_refuses_async_tools() -> None:
    async def slow() -> str:
        return "x"

    reg = ToolRegistry().register("slow", "", {"type": "object"}, slow)
    assert reg.execute("slow", {}).failure().error_type == "AsyncTool"


def test_definitions_and_schemas_follow_registration_order() -> None:
    reg = (
        ToolRegistry().register("b", "B", {"type": "object"}, str).register("a", "A", {"type": "object"}, str)
    )
    assert [d.name for d in reg.definitions()] == ["b", "a"]
    assert [s.name for s in reg.schemas()] == ["b", "a"]
    assert reg.has("a") and not reg.has("c")
    assert [t.name for t in reg] == ["b", "a"]


def test_tool_decorator_derives_the_schema() -> None:
    @tool(needs_approval=True, timeout=3.0, name="weather_now")
    def weather(city: str, unit: Literal["C", "F"] = "C", days: list[int] | None = None) -> str:
        """Current weather for a city.

        Args:
            city: The city name,
                in English.
            unit: Temperature unit.
        """
        return f"{city}: 20{unit}"

    assert isinstance(weather, Tool)
    d = weather.definition
    assert (d.name, d.description, d.needs_approval, d.timeout) == (
        "weather_now",
        "Current weather for a city.",
        True,
        3.0,
    )
    schema = _plain(d.parameters)
    props = schema["properties"]
    assert props["city"] == {"type": "string", "description": "The city name, in English."}
    assert props["unit"]["enum"] == ["C", "F"]
    assert props["days"] == {"type": ["array", "null"], "items": {"type": "integer"}}  # None is a value too
    assert schema["required"] == ["city"]


def test_bare_tool_decorator_and_scalar_types() -> None:
    @tool
    def add(a: int, b: float, flag: bool, meta: dict[str, str]) -> float:
        """Add."""
        return a + b

    props = _plain(add.definition.parameters)["properties"]
    kinds = {k: v["type"] for k, v in props.items()}
    assert kinds == {"a": "integer", "b": "number", "flag": "boolean", "meta": "object"}
    assert add.fn(a=1, b=2.5, flag=True, meta={}) == 3.5


def test_unannotated_or_unsupported_parameters_fail_at_decoration() -> None:
    def untyped(x) -> str:  # type: ignore[no-untyped-def]  # the point of the test
        return str(x)

    with pytest.raises(TypeError, match="needs a type annotation"):
        schema_for(untyped)

    def odd(x: complex) -> str:
        return str(x)

    with pytest.raises(TypeError, match="cannot express"):
        schema_for(odd)


def test_argument_problems_lists_every_problem() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
        "required": ["a", "b"],
        "additionalProperties": False,
    }
    assert argument_problems(schema, {"a": 1, "b": "x"}) is None
    problems = argument_problems(schema, {"a": "one", "c": 1})
    assert problems is not None
    assert "'b' is a required property" in problems
    assert "a: 'one' is not of type 'integer'" in problems
    assert "Additional properties are not allowed" in problems


def test_invalid_schema_is_reported_not_raised() -> None:
    assert argument_problems({"type": "nonsense"}, {}) is not None


@given(st.dictionaries(st.text(max_size=5), st.one_of(st.integers(), st.text(max_size=5), st.none())))
def test_argument_problems_never_raises(arguments: dict[str, object]) -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    result = argument_problems(schema, arguments)
    assert (result is None) == isinstance(arguments.get("q"), str)


def test_tooldef_repr_and_spec() -> None:
    d = ToolDef(name="search", description="Search")
    assert "search" in repr(d)
    assert d.spec.parameters == {"type": "object"}
