"""Outcomes of the ReAct agent's tools for the kit: one call, a batch, and a child agent's run.

* ``tool_examples``/``batch_examples``: the representative results the deterministic suite feeds;
* :func:`child_outcomes`: how an agent tool's or a handoff's child run ends (finished with an answer
  or a typed result, failed, cancelled); ``child_examples`` one of each.
"""

from __future__ import annotations

from hypothesis import strategies as st

from agentsm_fn.agents.react import ReactToolResult, RunTool, RunToolBatch, ToolBatchResult
from agentsm_fn.teams import ChildCancelled, ChildFailed, ChildFinished, ChildOutcome, ChildRun

__all__ = ["batch_examples", "child_examples", "child_outcomes", "tool_examples"]


def tool_examples(run: RunTool) -> tuple[object, ...]:
    """A success and a timeout of the call."""
    c = run.call
    return (
        ReactToolResult(call_id=c.id, name=c.name, ok=True, output="4"),
        ReactToolResult.failure(c.id, c.name, "Timeout", "timed out after 5s"),
    )


def batch_examples(batch: RunToolBatch) -> tuple[object, ...]:
    """Every call succeeded; every call failed."""
    ok = tuple(ReactToolResult(call_id=r.call.id, name=r.call.name, ok=True, output="4") for r in batch.runs)
    failed = tuple(ReactToolResult.failure(r.call.id, r.call.name, "ValueError", "bad") for r in batch.runs)
    return ToolBatchResult(ok), ToolBatchResult(failed)


def child_outcomes(run: ChildRun) -> st.SearchStrategy[ChildOutcome]:
    """How the child run of an agent tool or a handoff ends.

    Example:
        >>> isinstance(child_outcomes(ChildRun(program="kit:EXPERT", memory=None)), st.SearchStrategy)
        True
    """
    return st.sampled_from(child_examples(run))


def child_examples(run: ChildRun) -> tuple[ChildOutcome, ...]:
    """Finished with an answer, with a typed result, failed, cancelled."""
    ids = {"run_id": "kit.c1", "program": run.program}
    return (
        ChildFinished(**ids, state="Done", result="The expert's answer, in full."),
        ChildFinished(**ids, state="Done", result={"amount": 6}),
        ChildFailed(**ids, reason="Agent failed: Max steps (3) reached without a final answer"),
        ChildCancelled(**ids),
    )
