"""An experiment against aimock: the ReAct agent and the LLM judge both talk to an OpenAI-compatible server.

Every case's run is stored under the experiment and replays; the judge's call is an effect of
its own durable run, so judging again (the experiment run a second time) asks aimock nothing.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest

from agentsm_fn.agents.react import AgentConfig
from agentsm_fn.durable import Durable, RunStore, stored_events
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.evals import Case, Dataset, Grade, LlmJudge, equals_expected, no_failure, tool_called
from agentsm_fn.evals.experiment import arun_experiment, case_run_id
from agentsm_fn.evals.judging import JUDGE, judge_run_id
from agentsm_fn.evals.stored import experiment_runs
from agentsm_fn.evals.subjects import subject_for
from agentsm_fn.providers import HttpProvider, openai_provider
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.tools import tool
from tests.providers.conftest import Aimock, aimock_server

__all__ = ["aimock_server"]


@pytest.fixture
def aimock(aimock_server: Aimock) -> Aimock:
    aimock_server.reset()
    return aimock_server


@tool
def lookup_capital(country: str) -> str:
    """The capital of a country.

    Args:
        country: Its name.
    """
    return {"France": "Paris", "Japan": "Tokyo", "Peru": "Lima"}[country]


CASES = tuple(
    Case(name=country.lower(), input=f"What is the capital of {country}?", expected=city)
    for country, city in (("France", "Paris"), ("Japan", "Tokyo"), ("Peru", "Lima"))
)


def test_an_experiment_runs_the_agent_and_the_judge_against_aimock(aimock: Aimock, store: RunStore) -> None:
    asyncio.run(_experiment_against(aimock, store))


async def _experiment_against(aimock: Aimock, store: RunStore) -> None:
    async with httpx.AsyncClient() as async_client:  # the runs' connections live in this loop, closed in it
        with httpx.Client() as client:
            base = f"{aimock.base}/v1"
            provider = openai_provider(
                "mock-model",
                api_key="sk-test",
                base_url=base,
                env={},
                client=client,
                async_client=async_client,
            )
            await _judged(aimock, store, provider)


async def _judged(aimock: Aimock, store: RunStore, provider: HttpProvider) -> None:
    agent = (
        AgentBuilder.new("")
        .llm(provider)
        .tools(lookup_capital)
        .config(AgentConfig(max_steps=4, min_answer_length=1, reflect_every_n_steps=0))
        .build()
        .unwrap()
    )
    durable = Durable(
        name="tests.evals.test_aimock:AGENT", machine=agent.machine, shell=agent.shell, template=agent.memory
    )
    judge = LlmJudge(
        rubric="The answer names the capital city asked for.", provider=provider, model="mock-judge"
    )
    checks = (equals_expected(), tool_called("lookup_capital"), no_failure(), judge)
    dataset = Dataset(name="capitals", cases=CASES, evaluators=checks)
    found = (
        await arun_experiment(store, dataset, subject_for(durable), name="aimock", concurrency=2)
    ).unwrap()
    assert [(r.case, r.passed) for r in found.runs] == [("france", True), ("japan", True), ("peru", False)]
    peru = found.runs[2]
    assert peru.grade("equals expected") == Grade(
        evaluator="equals expected", passed=False, reason="expected Lima, got Quito"
    )
    verdict = peru.grade("judge")
    assert verdict is not None and (verdict.passed, verdict.reason) == (
        False,
        "Quito is not the capital of Peru",
    )
    assert peru.usage.input_tokens == 80 and peru.usage.output_tokens == 12  # the agent's two calls
    asked = len(aimock.journal())
    assert asked == 9  # two agent calls and one judge call per case
    # each case's run is stored under the experiment, replays, and its judge is a stored run of its own
    run_id = case_run_id("aimock", "peru", 0)
    assert replay_stored(store, durable.machine, run_id).unwrap().memory.final_answer == "Quito"
    assert type(stored_events(store, durable, run_id).unwrap()[-1]).__name__ == "Finished"
    judged = replay_stored(store, JUDGE.machine, judge_run_id(run_id, "judge")).unwrap()
    assert judged.memory.passed is False
    # judged again: read back from the store, the judge replayed, nothing asked
    again = (await arun_experiment(store, dataset, subject_for(durable), name="aimock")).unwrap()
    assert again.runs == found.runs and again.ran == 0
    assert len(aimock.journal()) == asked
    assert experiment_runs(store, "aimock").unwrap() == found.runs  # type: ignore[arg-type]  # both stores keep them
