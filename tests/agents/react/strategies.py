"""Hypothesis strategies for ReAct values (memories, tool calls, replies)."""

from __future__ import annotations

from hypothesis import strategies as st

from agentsm_fn.agents.react import (
    AgentConfig,
    AgentMemory,
    Approved,
    HistoryEntry,
    HumanApprovalRequest,
    Modified,
    ReactToolResult,
    Rejected,
    TokenBudget,
)
from agentsm_fn.llm import ToolCall, Usage
from agentsm_fn.tools import ToolDef

names = st.sampled_from(["search", "calculator", "weather", "delete_file", "nope"])
json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.floats(allow_nan=False), st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
arguments = st.dictionaries(st.text(max_size=6), json_values, max_size=3)
tool_calls = st.builds(ToolCall, id=st.text(max_size=6), name=names, arguments=arguments)
usages = st.builds(Usage, input_tokens=st.integers(0, 10**6), output_tokens=st.integers(0, 10**6))
results = st.builds(
    ReactToolResult,
    call_id=st.text(max_size=4),
    name=names,
    ok=st.booleans(),
    output=st.text(max_size=20),
    error_type=st.text(max_size=10),
)
decisions = st.one_of(
    st.just(Approved()), st.builds(Rejected, st.text(max_size=10)), st.builds(Modified, arguments)
)
entries = st.builds(
    HistoryEntry,
    step=st.integers(0, 50),
    tool=tool_calls,
    observation=st.text(max_size=30),
    success=st.booleans(),
)
budgets = st.builds(
    TokenBudget,
    input=st.none() | st.integers(0, 1000),
    output=st.none() | st.integers(0, 1000),
    total=st.none() | st.integers(0, 1000),
)
configs = st.builds(
    AgentConfig,
    max_steps=st.integers(0, 30),
    max_retries=st.integers(0, 5),
    confidence_threshold=st.floats(0, 1),
    reflect_every_n_steps=st.integers(0, 6),
    min_answer_length=st.integers(0, 40),
    parallel_tools=st.booleans(),
    models=st.dictionaries(st.sampled_from(["default", "calculation", "research"]), st.text(max_size=8)),
    approve_all_tools=st.booleans(),
    budget=st.none() | budgets,
)
tool_defs = st.builds(
    ToolDef,
    name=names,
    description=st.text(max_size=10),
    needs_approval=st.booleans(),
    timeout=st.none() | st.floats(0.01, 100),
)


@st.composite
def memories(draw: st.DrawFn) -> AgentMemory:
    """Any AgentMemory, including half-finished cycles."""
    call = draw(st.none() | tool_calls)
    approval = draw(
        st.none()
        | st.builds(
            HumanApprovalRequest,
            step=st.integers(0, 50),
            tool_call=tool_calls,
            reason=st.text(max_size=10),
            decision=st.none() | decisions,
        )
    )
    return AgentMemory(
        task=draw(st.text(max_size=20)),
        task_type=draw(st.sampled_from(["default", "calculation", "research"])),
        system_prompt=draw(st.text(max_size=10)),
        step=draw(st.integers(0, 50)),
        retry_count=draw(st.integers(0, 5)),
        confidence_score=draw(st.floats(0, 1)),
        total_usage=draw(usages),
        current_tool_call=call,
        pending_tool_calls=draw(st.lists(tool_calls, max_size=3)),
        parallel_results=draw(st.lists(results, max_size=3)),
        last_observation=draw(st.none() | st.text(max_size=20)),
        pending_approval=approval,
        history=draw(st.lists(entries, max_size=4)),
        final_answer=draw(st.none() | st.text(max_size=20)),
        error=draw(st.none() | st.text(max_size=20)),
        config=draw(configs),
        budget=draw(st.none() | budgets),
        blacklisted_tools=draw(st.frozensets(names, max_size=2)),
        refused_tools=draw(st.lists(names, max_size=2, unique=True)),
        tools=draw(st.lists(tool_defs, max_size=3)),
    )
