"""An experiment in a process of its own that SIGKILLs itself mid-way (for the resume test).

    python -m tests.evals.kill_worker DB LOG [DIE_ON]

Runs the ``noted`` experiment: six cases, two at a time, on a ReAct agent whose one tool
appends its case's task to LOG. With DIE_ON, the tool kills this process (SIGKILL) right
after noting that case's task: its outcome is never committed.
"""

from __future__ import annotations

import os
import signal
import sys
from contextlib import closing
from pathlib import Path

from agentsm_fn.agents.react import AgentConfig
from agentsm_fn.durable import Durable, SqliteStore
from agentsm_fn.evals import Case, Dataset, no_failure, tool_called
from agentsm_fn.evals.experiment import run_experiment
from agentsm_fn.evals.subjects import subject_for
from agentsm_fn.llm import LlmReply, LlmRequest, ToolCall, ToolResultMessage, UserMessage
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.tools import tool

LOG: list[Path] = []
DIE_ON: list[str] = []
CASES = tuple(Case(name=f"c{i}", input=f"note task {i}") for i in range(6))


@tool
def note(text: str) -> str:
    """Note a text (not retry-safe: each note is counted).

    Args:
        text: What to note.
    """
    with LOG[0].open("a", encoding="utf-8") as out:
        out.write(text + "\n")
    if DIE_ON and text.endswith(DIE_ON[0]):
        os.kill(os.getpid(), signal.SIGKILL)
    return "noted"


class NotingLlm:
    """Asks for ``note(task)`` until the request holds a tool result, then answers."""

    name = "noting"

    def complete(self, request: LlmRequest) -> LlmReply:
        task = next(m.content for m in request.messages if isinstance(m, UserMessage))
        if not any(isinstance(m, ToolResultMessage) for m in request.messages):
            return LlmReply(tool_calls=(ToolCall("n1", "note", {"text": task}),))
        return LlmReply(content=f"done: {task}")


AGENT = (
    AgentBuilder.new("")
    .llm(NotingLlm())
    .tools(note)
    .config(AgentConfig(max_steps=4, min_answer_length=1, reflect_every_n_steps=0))
    .build()
    .unwrap()
)
NOTED = Durable(
    name="tests.evals.kill_worker:NOTED", machine=AGENT.machine, shell=AGENT.shell, template=AGENT.memory
)
DATASET = Dataset(name="noted", cases=CASES, evaluators=(tool_called("note"), no_failure()))


def main(argv: list[str]) -> int:
    LOG.append(Path(argv[1]))
    DIE_ON.extend(argv[2:3])
    with closing(SqliteStore.open(argv[0]).unwrap()) as store:
        found = run_experiment(store, DATASET, subject_for(NOTED), name="noted", concurrency=2)
        print(f"ran {found.unwrap().ran}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
