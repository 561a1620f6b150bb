"""ToolDef.spec is made once per definition and equals the ToolSpec its fields describe."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agentsm_fn.llm.json import thaw
from agentsm_fn.llm.messages import ToolSpec
from agentsm_fn.tools.spec import ToolDef

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=10,
)


@given(
    st.text(max_size=8), st.text(max_size=8), st.dictionaries(st.text(max_size=5), json_values, max_size=4)
)
def test_spec_equals_a_freshly_built_tool_spec(
    name: str, description: str, schema: dict[str, object]
) -> None:
    definition = ToolDef(name=name, description=description, parameters=schema)
    spec = definition.spec
    fresh = ToolSpec(name, description, schema)
    assert spec == fresh and hash(spec) == hash(fresh) and repr(spec) == repr(fresh)
    assert definition.spec is spec  # made once


def test_a_schema_dict_changed_between_registrations_is_frozen_afresh() -> None:
    schema: dict[str, object] = {"type": "object", "properties": {"q": {"type": "string"}}}
    first = ToolDef(name="f", description="", parameters=schema)
    again = ToolDef(name="f", description="", parameters=schema)
    assert again.parameters is first.parameters  # the same dict, unchanged: frozen once
    schema["required"] = ["q"]
    changed = ToolDef(name="f", description="", parameters=schema)
    assert thaw(changed.parameters) == {**schema, "required": ["q"]}
    assert "required" not in first.parameters
    nested = schema["properties"]
    assert isinstance(nested, dict)
    nested["q"] = {"type": "integer"}
    assert thaw(ToolDef(name="f", description="", parameters=schema).parameters) == schema
