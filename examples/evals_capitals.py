"""Evals: the ReAct agent on a small dataset, judged by checks and an LLM judge, under two prompts.

    python examples/evals_capitals.py            # both experiments in a temporary store, then the comparison
    python examples/evals_capitals.py --db runs.db --inspect   # ... and the run inspector on the store

The agent looks a capital up with a tool and answers; the two prompts differ only in how it
answers ("the city's name only", or "a full sentence"). The dataset's checks (equals the
expected answer, the tool was called, no failure) and a judge with a rubric grade every run.
The model and the judge are offline stand-ins that answer from the request, as a real model
would (the tests run the same agent and judge against aimock, an OpenAI-compatible mock
server). The full-sentence prompt still names the right city, so the judge is content, but the
answers are no longer the expected text: ``compare`` flags every case as regressed.

    agentsm-eval --db runs.db run examples/evals_capitals.json examples/evals_capitals.py:TERSE --name terse
    agentsm-eval --db runs.db run examples/evals_capitals.json examples/evals_capitals.py:CHATTY \
        --name chatty --baseline terse
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path

from agentsm_fn.agents.react import AgentConfig
from agentsm_fn.durable import Durable, SqliteStore
from agentsm_fn.evals import (
    Case,
    Dataset,
    LlmJudge,
    equals_expected,
    no_failure,
    render_comparison,
    render_table,
    tool_called,
)
from agentsm_fn.evals.experiment import run_experiment
from agentsm_fn.evals.stored import compare_stored
from agentsm_fn.evals.subjects import subject_for
from agentsm_fn.llm import (
    LlmReply,
    LlmRequest,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from agentsm_fn.shell.react_agent import Agent, AgentBuilder
from agentsm_fn.tools import tool

CAPITALS = {"France": "Paris", "Japan": "Tokyo", "Peru": "Lima", "Kenya": "Nairobi"}

TERSE_PROMPT = "Look the capital up with the tool, then answer with the city's name only."
CHATTY_PROMPT = "Look the capital up with the tool, then answer in one full, friendly sentence."


@tool
def lookup_capital(country: str) -> str:
    """The capital city of a country.

    Args:
        country: The country's English name.
    """
    return CAPITALS.get(country, "unknown")


class CapitalsLlm:
    """A stand-in model: asks for the tool, then answers as the system prompt says."""

    name = "capitals"

    def complete(self, request: LlmRequest) -> LlmReply:
        system = next((m.content for m in request.messages if isinstance(m, SystemMessage)), "")
        task = next(m.content for m in request.messages if isinstance(m, UserMessage))
        results = [m.content for m in request.messages if isinstance(m, ToolResultMessage)]
        usage = Usage(input_tokens=12 * len(request.messages), output_tokens=8)
        if not results:
            country = next((c for c in CAPITALS if c in task), task)
            return LlmReply(tool_calls=(ToolCall("c1", "lookup_capital", {"country": country}),), usage=usage)
        city = results[-1].removeprefix("SUCCESS: ")
        answer = city if "name only" in system else f"The capital you asked about is {city}, a fine city."
        return LlmReply(content=answer, usage=usage, model="stand-in")


class JudgeLlm:
    """A stand-in judge: passes an answer that names the expected city."""

    name = "judge"

    def complete(self, request: LlmRequest) -> LlmReply:
        lines = request.messages[-1].content.splitlines()
        answer = next((line.removeprefix("Answer: ") for line in lines if line.startswith("Answer: ")), "")
        expected = next(
            (line.split(": ", 1)[1] for line in lines if line.startswith("Expected answer: ")), ""
        )
        right = bool(expected) and expected.casefold() in answer.casefold()
        reason = "names the expected city" if right else f"does not name {expected}"
        return LlmReply(
            content=f'{{"passed": {str(right).lower()}, "score": {int(right)}, "reason": "{reason}"}}'
        )


def agent(prompt: str) -> Agent:
    """The ReAct agent with ``prompt`` as its system prompt (the task comes from each case)."""
    built = (
        AgentBuilder.new("")
        .system_prompt(prompt)
        .llm(CapitalsLlm())
        .tools(lookup_capital)
        .config(AgentConfig(max_steps=4, min_answer_length=1, reflect_every_n_steps=0))
        .build()
    )
    return built.unwrap()


def durable(prompt: str, name: str) -> Durable:  # type: ignore[type-arg]  # the agent's own types
    made = agent(prompt)
    return Durable(name=name, machine=made.machine, shell=made.shell, template=made.memory)


TERSE = durable(TERSE_PROMPT, "evals_capitals:TERSE")
CHATTY = durable(CHATTY_PROMPT, "evals_capitals:CHATTY")

RUBRIC = "The answer names the capital city the question asks for."


def judge() -> JudgeLlm:
    """The judge's model (a dataset file names it as ``evals_capitals:judge``)."""
    return JudgeLlm()


def dataset() -> Dataset:
    """Four capitals; every run is checked and judged."""
    return Dataset(
        name="capitals",
        cases=tuple(
            Case(name=country.lower(), input=f"What is the capital of {country}?", expected=city)
            for country, city in CAPITALS.items()
        ),
        evaluators=(
            equals_expected(),
            tool_called("lookup_capital"),
            no_failure(),
            LlmJudge(rubric=RUBRIC, provider=JudgeLlm()),
        ),
    )


def main(argv: Sequence[str] | None = None) -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--db", type=Path, help="the run store (default: a temporary file)")
    options.add_argument("--inspect", action="store_true", help="serve the run inspector on the store")
    args = options.parse_args(argv)
    db = args.db or Path(tempfile.mkdtemp()) / "runs.db"
    with closing(SqliteStore.open(db).unwrap()) as store:
        for name, subject in (("terse", TERSE), ("chatty", CHATTY)):
            found = run_experiment(store, dataset(), subject_for(subject), name=name).unwrap()
            print(render_table(found.name, found.runs), end="\n\n")
        print(render_comparison(compare_stored(store, "terse", "chatty").unwrap()))
    if args.inspect:
        from agentsm_fn.commands.runs.commands import main as runs  # noqa: PLC0415  # only to serve

        return runs(["--db", str(db), "serve"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
