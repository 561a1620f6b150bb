"""ToolDef.spec is made once per definition and equals the ToolSpec its fields describe."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

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
