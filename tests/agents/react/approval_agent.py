"""An agent with a tool that needs approval, shared by the suspend/resume tests (and their subprocess)."""

from __future__ import annotations

import sys

from agentsm_fn.agents.react import Approved, Modified, ReactCompleted, Rejected, Suspended
from agentsm_fn.agents.react.outcomes import ApprovalDecision
from agentsm_fn.llm import LlmReply, ToolCall
from agentsm_fn.shell import StepClock
from agentsm_fn.shell.react_agent import Agent, AgentBuilder
from agentsm_fn.shell.scripted_llm import ScriptedLlm

DELETE_SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {"path": {"type": "string"}},
    "required": ["path"],
}
DELETED: list[str] = []


def delete_file(path: str) -> str:
    DELETED.append(path)
    return f"deleted {path}"


def first_reply() -> LlmReply:
    return LlmReply(tool_calls=(ToolCall("d1", "delete_file", {"path": "/tmp/report.txt"}),))


def final_reply() -> LlmReply:
    return LlmReply(content="The old report has been handled as you decided.")


def make_agent(*script: LlmReply) -> Agent:
    return (
        AgentBuilder.new("Clean up the old report")
        .llm(ScriptedLlm(script))
        .tool("delete_file", "Delete a file", DELETE_SCHEMA, delete_file, needs_approval=True)
        .with_clock(StepClock())
        .build()
        .unwrap()
    )


def decision_named(name: str) -> ApprovalDecision:
    if name == "approve":
        return Approved()
    if name == "reject":
        return Rejected("keep it")
    return Modified({"path": "/tmp/report-old.txt"})


def main(path: str, decision: str) -> int:
    """Resume the suspended run stored at ``path`` in this (new) process; print the outcome."""
    with open(path, encoding="utf-8") as f:
        suspended = Suspended.from_json(f.read()).unwrap()
    result = make_agent(final_reply()).resume(suspended, decision_named(decision))
    done = result.unwrap()
    assert isinstance(done, ReactCompleted)
    print(done.answer)
    print(done.memory.history[-1].observation)
    print("deleted:", ",".join(DELETED))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1], sys.argv[2]))
